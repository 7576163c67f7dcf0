"""How ``arena match`` shows a match: its outcome for people (:func:`render_match`: the games'
and bots' tables fitted to the terminal, the failures; :func:`head_to_head_lines`, with a
sequential test's verdict) and as JSON (:func:`match_json`), a sequential test's progress
line, and what a Ctrl-C leaves (:func:`interrupted`). :mod:`arena.cli.match_commands` reads
the options and plays the match.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.cli.terminal import fill_words, hanging
from arena.common.fitting import fit_rows, not_shown
from arena.common.plural import counted
from arena.rating.match_series import first_bot_score, wins_so_far
from arena.rating.sprt import Score, SprtTest, describe_elo
from arena.referee.failures import (
    Reason,
    describe,
    describe_leaves_out,
    distinct_reasons,
    failures_and_forfeits,
)
from arena.referee.match import GameOutcome, MatchOutcome

__all__ = ["Shown", "compared_names", "failure_reasons", "games_table", "head_to_head_lines",
           "interrupted", "match_json", "progress_line", "render_match", "sprt_verdict"]


@dataclass(frozen=True)
class Shown:
    """What of a match is printed: the per-game table, a progress line every ``progress``
    games (0: none), and under the bots' table every distinct reason a bot failed
    (``failures``) or one line per bot and failure type."""

    table: bool
    progress: int
    failures: bool = False


def match_json(outcome: MatchOutcome, seed: int, test: SprtTest | None) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if len(outcome.names) == 2:
        score = first_bot_score(outcome.games)
        extra["elo"] = _elo_json(score)
        if test is not None:
            extra["sprt"] = {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha,
                             "beta": test.beta, "llr": round(test.llr(score), 4),
                             "bounds": [round(b, 4) for b in test.bounds],
                             "decision": test.decision(score)}
    return {"seed": seed, **outcome.to_json(), **extra,
            "failure_reasons": [_reason_json(reason) for reason in _reasons(outcome.games)]}


def _reasons(games: Sequence[GameOutcome], label: Callable[[int], str] = str) -> list[Reason]:
    """Every distinct reason a bot failed in ``games``, its first game named by ``label``."""
    return distinct_reasons((game.names[f["seat"]], label(game.game_index), f)
                            for game in games for f in game.failures)


def _reason_json(reason: Reason) -> dict[str, Any]:
    """A reason as ``--format json`` carries it: the first game as its index (``_reasons``)."""
    return {"bot": reason.bot, "type": reason.type, "detail": reason.detail,
            "times": reason.times, "first_game": int(reason.first_game),
            "first_seat": reason.first_seat}


def _elo_json(score: Score) -> dict[str, Any]:
    """The first bot's score and Elo difference (an infinite end of the interval is null)."""
    elo, low, high = score.elo()

    def shown(value: float) -> float | None:
        return None if math.isinf(value) else round(value, 1)

    return {"wins": score.wins, "draws": score.draws, "losses": score.losses,
            "score": round(score.mean, 4), "elo": shown(elo), "elo_95": [shown(low),
                                                                          shown(high)],
            "los": round(score.los(), 4)}


def compared_names(names: Sequence[str], keys: Sequence[str]) -> list[str]:
    """The bots a head-to-head names: two versions of one bot, which the tables number
    (``mybot#1``, ``mybot#2``), by ``name@version``, so that the verdict on a new version
    says which version is stronger; the tables' names otherwise."""
    bare = [name.partition("#")[0] for name in names]
    versions = [key.rpartition("@")[2] for key in keys]
    if len(set(bare)) < len(bare) and len(set(versions)) == len(versions):
        return [f"{name}@{version}" for name, version in zip(bare, versions)]
    return list(names)


def head_to_head_lines(names: list[str], score: Score, test: SprtTest | None,
                        cap: int | None) -> list[str]:
    """The first bot against the second: score, Elo with its 95% interval, LOS, and the
    sequential test's verdict."""
    counted = ", ".join(f"{n} {word}{'' if n == 1 else plural}" for n, word, plural in (
        (score.wins, "win", "s"), (score.draws, "shared place", "s"),
        (score.losses, "loss", "es")))
    lines = [f"{names[0]} against {names[1]}: {counted}; score {score.mean:.1%}; Elo "
             f"difference {describe_elo(score)}; likelihood of superiority {score.los():.1%}"]
    if test is not None:
        lower, upper = test.bounds
        decision = test.decision(score)
        if decision is not None:
            verdict = sprt_verdict(decision, names, test)
        elif cap is None:
            verdict = "undecided so far"
        else:
            verdict = f"undecided at the cap of {cap} game{'' if cap == 1 else 's'} (--games)"
        lines.append(f"{test.describe()}: LLR {test.llr(score):.2f} (bounds {lower:.2f}, "
                     f"{upper:.2f}) after {score.games} game{'' if score.games == 1 else 's'}: "
                     f"{verdict}")
    return lines


def sprt_verdict(decision: str, names: list[str], test: SprtTest) -> str:
    """What an accepted hypothesis says of the first bot, in words: H1 that it is at
    least ``elo0`` stronger, H0 that it is not ``elo1`` stronger."""
    first, second = names[0], names[1]
    if decision == "H1":
        elo = test.elo0
        claim = ("stronger than" if elo == 0 else f"more than {elo:g} Elo stronger than"
                 if elo > 0 else f"at most {-elo:g} Elo weaker than")
        return f"H1 accepted: {first} is {claim} {second}"
    elo = test.elo1
    claim = ("not stronger than" if elo == 0 else f"not {elo:g} Elo stronger than"
             if elo > 0 else f"more than {-elo:g} Elo weaker than")
    return f"H0 accepted: {first} is {claim} {second}"


def progress_line(score: Score, test: SprtTest, played: int) -> str:
    """``Games 20: score 12.5-7.5 (62.5%), Elo +88.7 (95%: ...), LLR 0.45 (bounds ...)``:
    the ``played`` games, and, when fewer, how many the score and test count (a game both
    bots forfeited is no game between them)."""
    points = score.wins + 0.5 * score.draws
    lower, upper = test.bounds
    uncounted = played - score.games
    counted = (f" ({score.games} counted; {uncounted} forfeited by both)" if uncounted
               else "")
    return (f"Games {played}{counted}: score {points:g}-{score.games - points:g} "
            f"({score.mean:.1%}), Elo {describe_elo(score)}, "
            f"LLR {test.llr(score):.2f} (bounds {lower:.2f}, {upper:.2f})")


def interrupted(played: list[GameOutcome], games: int, seed: int,
                 records: Path | None, day: dt.date | None = None,
                 flags: Sequence[str] = ()) -> str:
    """What a Ctrl-C leaves: how far the match got, each bot's wins so far, how to replay
    (the day too: bots' dates are read against it; and ``flags``, the other options that
    decide the games)."""
    if not played:
        return f"Interrupted before the first game ended (seed {seed})."
    kept = f"; their records are in {records}" if records is not None else ""
    replay = (" ".join([f"--seed {seed} --event-date {day}", *flags]) if day is not None
              else f"seed {seed}")
    return (f"Interrupted after {len(played)} of {games} games ({replay} replays them"
            f"{kept}); wins so far: "
            + ", ".join(f"{name} {n}" for name, n in wins_so_far(played)))


def render_match(outcome: MatchOutcome, seed_line: str, show: Shown,
                  width: int | None = None) -> str:
    """The match for people; ``width``: a terminal's columns, which the lines wrap at words
    and the bots' table fits (None: a pipe's, as it is)."""
    names = outcome.names
    lines = [f"Match {' vs '.join(names)}: {counted(len(outcome.games), 'game')}, "
             f"sandbox {outcome.sandbox_level or 'n/a'}", seed_line]
    if width is not None:
        lines = [hanging(line, width) for line in lines]
    if show.table:
        lines.extend([games_table(outcome, width), ""])
    lines.append(_bots_table(outcome, width))
    reasons = failure_reasons(outcome.games, show.failures)
    lines.extend(reasons if width is None else (hanging(line, width) for line in reasons))
    return "\n".join(lines)


def games_table(outcome: MatchOutcome, width: int | None = None) -> str:
    """One row per game: seats, who started, places, Desmos, tie-break, failures (on a
    terminal too narrow for them, ``width``, fewer, said under the table)."""
    names = outcome.names
    rows = []
    seated = any(game.entrants for game in outcome.games)
    for game in outcome.games:
        failures = ", ".join(f"{game.names[f['seat']]} {f['type']}" for f in game.failures)
        order = range(len(names))
        rows.append([game.game_index, *([" ".join(game.names)] if seated else []),
                     game.names[game.starting_seat],
                     # a forfeit is the table's last place, as the mean place counts it
                     " ".join(str(game.standing_place(game.seat_of(i))) for i in order),
                     ", ".join(game.desmos[game.seat_of(i)] for i in order), game.tiebreak,
                     failures or "-"])
    desmos = "desmos (same order)" if seated else "desmos"
    headers = ["game", *(["seats"] if seated else []), "starts", f"places ({', '.join(names)})",
               desmos, "tiebreak", "failures"]
    # a terminal too narrow for the table: how each game ended, its places, stays (the
    # failures, left out last, are told under the bots' table too)
    table, left_out = fit_rows(headers, rows, ("tiebreak", desmos, "starts", "seats",
                                               "failures"), width)
    if left_out and width is not None:
        table += "\n" + fill_words(not_shown(left_out, "--format json has every field"), width)
    return table


#: What the bots' table leaves out on a terminal too narrow for it, first to last: the
#: latencies and counts before the wins (the match's outcome).
_BOTS_LEFT_OUT = ("version", "max ms", "median ms", "decisions", "mean place", "restarts")


def _bots_table(outcome: MatchOutcome, width: int | None = None) -> str:
    """One row per bot: version, wins, mean place and its diagnostics; the timeouts, failures
    and restarts columns only when some bot had one (a line says so otherwise), so that the
    table fits 100 columns; a terminal narrower still (``width``) has fewer, said under it."""
    rows = []
    standings = outcome.standings()
    for stats, diag in zip(standings, outcome.bots, strict=True):
        failures = failures_and_forfeits(diag["failures"], diag["forfeits"])
        rows.append([diag["name"], diag["bot"].split("@")[1], stats["wins"],
                     stats["mean_place"], diag["decisions"],
                     "-" if diag["median_ms"] is None else f"{diag['median_ms']:.2f}",
                     "-" if diag["max_ms"] is None else f"{diag['max_ms']:.1f}",
                     diag["timeouts"], failures or "-", diag["restarts"]])
    headers = ["bot", "version", "wins", "mean place", "decisions", "median ms", "max ms",
               "timeouts", "failures", "restarts"]
    quiet = [i for i in (7, 8, 9) if all(row[i] in (0, "-") for row in rows)]
    table, left_out = fit_rows(headers, rows, _BOTS_LEFT_OUT, width, names=0,
                               columns=[h for i, h in enumerate(headers) if i not in quiet])
    if left_out and width is not None:
        table += "\n" + fill_words(not_shown(left_out, "--format json has every field"), width)
    if not quiet:
        return table
    named = [headers[i] for i in quiet]
    said = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]
    return f"{table}\nNo {said}."


def failure_reasons(games: Sequence[GameOutcome], every: bool) -> list[str]:
    """Why each bot failed: a line per bot and type (:func:`arena.referee.failures.describe`),
    and where some reasons are left out a pointer to --failures; or (``every``) every distinct
    reason (:func:`arena.referee.failures.distinct_reasons`)."""
    reasons = _reasons(games, lambda game: f"game {game}")
    if every:
        lines = [reason.line() for reason in reasons]
    else:
        lines = describe((game.names[f["seat"]], str(game.game_index), f)
                         for game in games for f in game.failures)
        if describe_leaves_out(reasons):
            lines.append("(--failures lists every reason, with how often)")
    return ["", "Failures:", *(f"  {line}" for line in lines)] if lines else []
