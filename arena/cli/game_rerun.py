"""How ``arena game GAME --seat S --rerun BOT`` shows a rerun: the bot's answers held to the
recorded ones, and what it raised with its whole traceback (the bot's author, on their own
machine, debugging their own code, wants it, where every other command says one line)."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import typer

from arena.referee.rerun import (
    RerunDecision,
    RerunOutcome,
    bot_seed_of,
    check_rerunnable,
    game_index_of,
    rerun_seat,
)
from arena.sdk.runner import load_bot

__all__ = ["show_rerun"]

#: Recorded failures an answer itself makes: an answer that is no legal index reproduces them.
_ANSWER_FAILURES = ("illegal_choice", "protocol_error")


def show_rerun(title: str, record: dict[str, Any], seat: int, bot_file: Path,
               options: dict[str, Any], debug: bool) -> None:
    """Rerun ``bot_file`` in ``seat`` of ``record`` and print what it did; exit 1 unless it
    gave the same answers. ``debug`` opens pdb where the bot raised."""
    from arena.errors import BotLoadError

    check_rerunnable(record, seat)
    try:
        bot = load_bot(bot_file)
    except BotLoadError:
        raise
    except (Exception, SystemExit) as exc:  # the bot's module itself raised
        typer.echo(f"Loading {bot_file} raised:")
        _fail(exc, debug)
    _say_start(title, record, seat, bot_file, options)
    outcome = rerun_seat(record, seat, bot, options)
    if outcome.same:
        skipped = ", ".join(f"{d.number} ({d.seconds or 0:.2f} s here)"
                            for d in outcome.timed_out)
        but = (f", but for {'decisions' if len(outcome.timed_out) > 1 else 'decision'} "
               f"{skipped}: timed out in the record, not compared (the rerun has no clock)"
               if skipped else "")
        typer.echo(f"{_decisions(outcome.same)}: the same answers as recorded{but}")
    if outcome.same_answers:
        _say_end(outcome)
        return
    if outcome.error is None and not _hash_seed_as_sandbox():
        typer.echo("note: bots run with PYTHONHASHSEED=0 and this process has another hash "
                   "seed: a bot that iterates a set of strings answers otherwise here; rerun "
                   "with PYTHONHASHSEED=0 in front of the command")
    if outcome.stopped_at is not None:
        typer.echo(_stop_line(outcome, outcome.stopped_at))
    else:
        typer.echo("At the game's end (on_game_end) the bot raised:")
    if outcome.error is not None:
        _fail(outcome.error, debug)
    raise typer.Exit(1)


def _say_start(title: str, record: dict[str, Any], seat: int, bot_file: Path,
               options: dict[str, Any]) -> None:
    """What is rerun, and what the rerun cannot give the bot as the game did: before the
    bot runs, so that what it prints comes after."""
    referee = record.get("referee") if isinstance(record.get("referee"), dict) else {}
    keys = referee.get("seats") if isinstance(referee, dict) else None
    key = keys[seat] if isinstance(keys, list) and seat < len(keys) else None
    bot_seed = bot_seed_of(record, seat)
    seed = "no bot_seed recorded" if bot_seed is None else f"bot_seed {bot_seed}"
    who = f" ({key})" if key else ""
    given = ", ".join(f"{k}={v}" for k, v in options.items())
    typer.echo(f"{title}: seat {seat}{who} rerun in-process with {bot_file}, {seed}"
               + (f", options {given}" if given else ""))
    for note in _notes(record, seat, key, options):
        typer.echo(f"note: {note}")


def _say_end(outcome: RerunOutcome) -> None:
    if outcome.forfeit is None:
        typer.echo(f"Same answers: the bot answered every decision of seat {outcome.seat} as "
                   "recorded")
        return
    typer.echo(f"Same answers, but the recorded bot forfeited outside its own decisions "
               f"({_failure(outcome.forfeit)}): not reproduced here")
    raise typer.Exit(1)


def _decisions(count: int) -> str:
    return "Decision 1" if count == 1 else f"Decisions 1-{count}"


def _option(decision: RerunDecision, index: int) -> str:
    return f"option {index} {json.dumps(decision.options[index], separators=(', ', ': '))}"


def _failure(failure: Mapping[str, Any] | None) -> str:
    """A recorded failure as ``arena game`` names it: its type, the decision of the match it
    came at (the referee counts a bot's requests over its match, from 0), its detail."""
    failure = failure or {}
    at = (f" at decision {failure['decision']} of its match"
          if failure.get("decision") is not None else "")
    return f"{failure.get('type')}{at}: {failure.get('detail') or 'no detail recorded'}"


def _stop_line(outcome: RerunOutcome, decision: RerunDecision) -> str:
    where = f"Decision {decision.number} (round {decision.round}, a {decision.kind} decision)"
    failed = ""
    if decision.recorded is None:
        where += f", where the recorded bot forfeited ({_failure(outcome.forfeit)})"
        failed = "forfeit"
    elif decision.failure is not None:
        where += (f", where the record has a failure ({_failure(decision.failure)}; the "
                  f"referee played option {decision.recorded})")
        failed = "failure"
    if outcome.error is not None:
        return f"{where}: the bot raised:"
    index = decision.legal_answer
    answer = (_option(decision, index) if index is not None else
              f"{decision.answer!r:.60}, not an index into the {len(decision.options)} legal "
              "options")
    if failed:
        kind = (decision.failure or outcome.forfeit or {}).get("type")
        clockless = (f" (the rerun has no clock; the bot took {decision.seconds or 0:.2f} s "
                     "here)" if kind == "timeout" else "")
        again = ("reproduced" if index is None and kind in _ANSWER_FAILURES
                 else f"not reproduced{clockless}")
        return f"{where}: the bot answers {answer}: the {failed} is {again}"
    assert decision.recorded is not None
    return f"{where}: the bot answers {answer}; the record has " \
           f"{_option(decision, decision.recorded)}"


def _notes(record: dict[str, Any], seat: int, key: str | None,
           options: dict[str, Any]) -> list[str]:
    """What the rerun cannot give the bot as the game did, said before it runs."""
    notes = []
    if bot_seed_of(record, seat) is None:
        notes.append(f"the record holds no bot_seed for seat {seat}: self.rng is seeded as "
                     "BotAgent seeds it, not as in the game")
    game_index = game_index_of(record)
    if game_index:
        notes.append(f"game {game_index} of its match is rerun alone (the bot is told its "
                     "index): what the bot kept from the match's earlier games is not replayed")
    if key and "+o" in key.rpartition("@")[2] and not options:
        notes.append(f"seat {seat}'s bot was entered with options ({key}): give them with "
                     "--option KEY=VALUE")
    return notes


def _hash_seed_as_sandbox() -> bool:
    return os.environ.get("PYTHONHASHSEED") == "0"


def _fail(exc: BaseException, debug: bool) -> None:
    """Print ``exc`` with its traceback from the bot's side of the rerun, open pdb there when
    asked, and exit 1."""
    tb = _from_the_bot(exc.__traceback__)
    typer.echo("".join(traceback.format_exception(type(exc), exc, tb)).rstrip("\n"))
    if debug and tb is not None:
        import pdb

        pdb.post_mortem(tb)
    raise typer.Exit(1)


def _from_the_bot(tb: TracebackType | None) -> TracebackType | None:
    """The traceback without its first frames in the arena's rerun (the harness, not the
    bot's path)."""
    harness = (str(Path(__file__).resolve()), str(Path(rerun_seat.__code__.co_filename)))
    while tb is not None and tb.tb_next is not None and \
            tb.tb_frame.f_code.co_filename in harness:
        tb = tb.tb_next
    return tb
