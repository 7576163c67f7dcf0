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

from arena.errors import ArenaError, BotError
from arena.referee.rerun import (
    ANSWER_FAILURES,
    RerunDecision,
    RerunOutcome,
    bot_seed_of,
    check_rerunnable,
    game_index_of,
    rerun_match,
    rerun_seat,
)
from arena.sdk.bot import Bot
from arena.sdk.local import BotAgent
from arena.sdk.runner import load_bot

__all__ = ["earlier_games", "show_rerun"]

#: How the output names a decision, said once: the seat's count, and the referee's act id.
_NAMING = ("decision N: seat {seat}'s N-th decision of its game, from 1; act K: the "
           "referee's request id, counted over the bot's match from 0")


def show_rerun(title: str, games: list[dict[str, Any]], seat: int, bot_file: Path,
               options: dict[str, Any], debug: bool, from_start: bool = False,
               unsandboxed: bool = False) -> None:
    """Rerun ``bot_file`` in ``seat`` of the last of ``games`` (the match's games up to it,
    where at hand: :func:`earlier_games`) and print what it did; exit 1 unless it gave the
    same answers. ``from_start`` replays the earlier games first; ``debug`` opens pdb where
    the bot raised. A bot that is not the user's own is refused unless ``unsandboxed``."""
    from arena.errors import BotLoadError

    record = games[-1]
    check_rerunnable(record, seat)
    if not unsandboxed:
        _refuse_someone_elses(bot_file)
    if from_start:
        _check_from_start(games, seat)
    try:
        load_bot(bot_file)
    except BotLoadError:
        raise
    except (Exception, SystemExit) as exc:  # the bot's module itself raised
        typer.echo(f"Loading {bot_file} raised:")
        _fail(exc, debug)
    _say_start(title, games, seat, bot_file, options, from_start)
    outcomes = rerun_match(games, seat, lambda: _fresh(bot_file), options, from_start)
    if from_start and outcomes[0].game_index:
        typer.echo(f"note: the bot's process last started in game {outcomes[0].game_index} "
                   "(the referee restarted it): replayed from there")
    for outcome in outcomes[:-1]:
        typer.echo(f"{_game_id(record, outcome.game_index)}: {_same_line(outcome)}")
    outcome = outcomes[-1]
    if outcome.first_act_id is None:
        typer.echo(f"note: the record does not tell game {outcome.game_index}'s act ids (its "
                   "failures place none, and the match's earlier games are not at hand): "
                   "the bot's request ids here differed from the game's")
    # named whenever it is not the game asked for (--from-start stopped in an earlier one)
    named = len(outcomes) > 1 or outcome.game_index != game_index_of(record)
    prefix = f"{_game_id(record, outcome.game_index)}: " if named else ""
    if outcome.same:
        typer.echo(prefix + _same_line(outcome))
    if outcome.same_answers:  # the rerun stops at the first game that differs
        _say_end(outcome)
        return
    _say_stop(outcome, prefix, debug)


def _refuse_someone_elses(bot_file: Path) -> None:
    """The rerun imports the bot here, outside the sandbox, with the user's rights: a bot
    that, as far as the arena can tell, someone else wrote needs the user's word."""
    from arena.common.printable import printable
    from arena.registry import someone_elses

    reason = someone_elses(bot_file)
    if reason is not None:
        raise BotError(f"{printable(str(bot_file))}: {reason}; --rerun runs a bot in this "
                       "process, unsandboxed, with your rights (your files, your network): "
                       "read its code, then add --unsandboxed to rerun it all the same, or "
                       "let its author rerun it (arena status NAME --records gives them the "
                       "games)")


def _game_id(record: dict[str, Any], index: int) -> str:
    """A game of ``record``'s match by its id: ``Game cup/r1/t0/g2``."""
    referee = record.get("referee")
    match_id = referee.get("match_id") if isinstance(referee, dict) else None
    return f"Game {match_id}/g{index}" if match_id else f"Game {index} of the match"


def _fresh(bot_file: Path) -> Bot:
    """The bot as a fresh process has it: its module run again, a new instance."""
    return load_bot(bot_file)


def _check_from_start(games: list[dict[str, Any]], seat: int) -> None:
    """--from-start needs every earlier game of the match, with the same bot in the seat."""
    index = game_index_of(games[-1])
    if [game_index_of(game) for game in games] != list(range(index + 1)):
        have = [game_index_of(game) for game in games[:-1]]
        missing = sorted(set(range(index)) - set(have))
        raise ArenaError(f"--from-start replays the match's games before game {index}, and "
                         f"game {', '.join(map(str, missing[:5]))} of it with seat {seat}'s bot "
                         "is not at hand (a stored game reads the results database, a records "
                         "file the records before it)")


def _same_line(outcome: RerunOutcome) -> str:
    """The decisions answered as recorded, the timed-out ones set apart."""
    skipped = ", ".join(_named(d, f"{d.seconds or 0:.2f} s here") for d in outcome.timed_out)
    but = (f", but for {skipped}: timed out in the record, not compared (the rerun has no "
           "clock)" if skipped else "")
    struck = ", ".join(_named(d) for d in outcome.struck_again)
    also = f"; {struck}: no legal index again, as the record has it" if struck else ""
    return f"{_decisions(outcome)}: the same answers as recorded{but}{also}"


def _say_stop(outcome: RerunOutcome, prefix: str, debug: bool) -> None:
    """Where the rerun stopped (in the game ``prefix`` names, if any), and exit 1."""
    if outcome.error is None and not _hash_seed_as_sandbox():
        typer.echo("note: bots run with PYTHONHASHSEED=0 and this process has another hash "
                   "seed: a bot that iterates a set of strings answers otherwise here; rerun "
                   "with PYTHONHASHSEED=0 in front of the command")
    if outcome.stopped_at is not None:
        typer.echo(prefix + _stop_line(outcome, outcome.stopped_at))
    else:
        typer.echo(f"At the end of game {outcome.game_index} (on_game_end) the bot raised:"
                   if outcome.game_index else "At the game's end (on_game_end) the bot raised:")
    if outcome.error is not None:
        _fail(outcome.error, debug)
    raise typer.Exit(1)


def earlier_games(ref: str, number: int, db: Path, record: dict[str, Any],
                  seat: int) -> list[dict[str, Any]]:
    """The games of ``record``'s match before it that the same bot played in ``seat``, in
    order, as far as they are at hand: a stored game's from the results database, a records
    file's from the records before it (the nearest ones of its match, a file may hold several
    matches of one id). Missing ones are left out."""
    referee = record.get("referee")
    index = game_index_of(record)
    keys = _seats(record)
    if not index or not isinstance(referee, dict) or seat >= len(keys):
        return []
    path = Path(ref)
    if path.exists():
        found = _file_games(path, number, referee.get("match_id"), index) \
            if path.is_file() else {}  # a pipe is read once
    else:
        found = _stored_games(ref.rpartition("/g")[0], index, db)
    return [found[i] for i in sorted(found) if _seats(found[i])[seat:seat + 1] == [keys[seat]]]


def _seats(record: dict[str, Any]) -> list[Any]:
    referee = record.get("referee")
    seats = referee.get("seats") if isinstance(referee, dict) else None
    return seats if isinstance(seats, list) else []


def _file_games(path: Path, number: int, match_id: Any, index: int) -> dict[int, dict[str, Any]]:
    """The records before the ``number``-th of ``path`` that are games 0 to ``index`` - 1 of
    match ``match_id``: the nearest one of each index."""
    from arena.engine.record import records_in
    from arena.errors import ReplayError

    found: dict[int, dict[str, Any]] = {}
    for count, read in enumerate(records_in(path), 1):
        if count >= number:
            break
        try:
            game = read()
        except ReplayError:
            continue
        referee = game.get("referee") if isinstance(game, dict) else None
        if isinstance(referee, dict) and referee.get("match_id") == match_id:
            at = game_index_of(game)
            if at < index:
                found[at] = game
                found = {i: g for i, g in found.items() if i <= at}  # an older match's go
    return found


def _stored_games(match_id: str, index: int, db: Path) -> dict[int, dict[str, Any]]:
    """Games 0 to ``index`` - 1 of a stored match, those the database holds."""
    from arena.errors import ReplayError, StoreError
    from arena.tournament.game_records import game_record
    from arena.tournament.store import Store

    found: dict[int, dict[str, Any]] = {}
    with Store(db, create=False, read_only=True) as store:
        for at in range(index):
            try:
                found[at] = game_record(store, f"{match_id}/g{at}")
            except (StoreError, ReplayError):  # not stored, or damaged: not at hand
                continue
    return found


def _say_start(title: str, games: list[dict[str, Any]], seat: int, bot_file: Path,
               options: dict[str, Any], from_start: bool) -> None:
    """What is rerun, how decisions are named, and what the rerun cannot give the bot as the
    game did: before the bot runs, so that what it prints comes after."""
    record = games[-1]
    referee = record.get("referee") if isinstance(record.get("referee"), dict) else {}
    keys = referee.get("seats") if isinstance(referee, dict) else None
    key = keys[seat] if isinstance(keys, list) and seat < len(keys) else None
    bot_seed = bot_seed_of(record, seat)
    seed = "no bot_seed recorded" if bot_seed is None else f"bot_seed {bot_seed}"
    who = f" ({key})" if key else ""
    given = ", ".join(f"{k}={v}" for k, v in options.items())
    typer.echo(f"{title}: seat {seat}{who} rerun in-process with {bot_file}, {seed}"
               + (f", options {given}" if given else ""))
    typer.echo(f"({_NAMING.format(seat=seat)})")
    for note in _notes(record, seat, key, options, from_start):
        typer.echo(f"note: {note}")


def _say_end(outcome: RerunOutcome) -> None:
    if outcome.forfeit is None:
        typer.echo(f"Same answers: the bot answered every decision of seat {outcome.seat} as "
                   "recorded")
        return
    typer.echo(f"Same answers, but the recorded bot forfeited outside its own decisions "
               f"({_failure(outcome.forfeit)}): not reproduced here")
    raise typer.Exit(1)


def _named(decision: RerunDecision, more: str = "") -> str:
    """A decision as the output names it: ``decision 9 (act 8)``, with ``more`` in the
    brackets."""
    said = [f"act {decision.act_id}"] if decision.act_id is not None else []
    said += [more] if more else []
    return f"decision {decision.number}" + (f" ({'; '.join(said)})" if said else "")


def _decisions(outcome: RerunOutcome) -> str:
    count, first = outcome.same, outcome.first_act_id
    if count == 1:
        return "Decision 1" + (f" (act {first})" if first is not None else "")
    acts = f" (acts {first}-{first + count - 1})" if first is not None else ""
    return f"Decisions 1-{count}{acts}"


def _option(decision: RerunDecision, index: int) -> str:
    return f"option {index} {json.dumps(decision.options[index], separators=(', ', ': '))}"


def _failure(failure: Mapping[str, Any] | None) -> str:
    """A recorded failure as ``arena game`` names it: its type, the act it came at (the
    referee's request id, over the match from 0), its detail."""
    failure = failure or {}
    at = f" at act {failure['decision']}" if failure.get("decision") is not None else ""
    return f"{failure.get('type')}{at}: {failure.get('detail') or 'no detail recorded'}"


def _stop_line(outcome: RerunOutcome, decision: RerunDecision) -> str:
    act = f"act {decision.act_id}; " if decision.act_id is not None else ""
    where = (f"Decision {decision.number} ({act}round {decision.round}, a {decision.kind} "
             "decision)")
    failed = ""
    if decision.recorded is None:
        where += f", where the recorded bot forfeited ({_failure(outcome.forfeit)})"
        failed = "forfeit"
    elif decision.failure is not None:
        lot = ", drawn by lot" if decision.kind == "rps" else ""
        where += (f", where the record has a failure ({_failure(decision.failure)}; the "
                  f"referee played option {decision.recorded}{lot})")
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
        again = ("reproduced" if index is None and kind in ANSWER_FAILURES
                 else f"not reproduced{clockless}")
        return f"{where}: the bot answers {answer}: the {failed} is {again}"
    assert decision.recorded is not None
    return f"{where}: the bot answers {answer}; the record has " \
           f"{_option(decision, decision.recorded)}"


def _notes(record: dict[str, Any], seat: int, key: str | None, options: dict[str, Any],
           from_start: bool) -> list[str]:
    """What the rerun cannot give the bot as the game did, said before it runs."""
    notes = []
    if bot_seed_of(record, seat) is None:
        notes.append(f"the record holds no bot_seed for seat {seat}: self.rng is seeded as "
                     "BotAgent seeds it, not as in the game")
    game_index = game_index_of(record)
    if game_index and not from_start:
        notes.append(f"game {game_index} of its match is rerun alone (the bot is told its "
                     "index): what the bot kept from the match's earlier games is not "
                     "replayed (--from-start replays them first)")
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
    harness = (str(Path(__file__).resolve()), str(Path(rerun_seat.__code__.co_filename)),
               str(Path(BotAgent.choose.__code__.co_filename)))
    while tb is not None and tb.tb_next is not None and \
            tb.tb_frame.f_code.co_filename in harness:
        tb = tb.tb_next
    return tb
