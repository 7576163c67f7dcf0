"""``arena match``: one sandboxed match of 2-5 bots, optionally a sequential test.

The match itself is :class:`arena.rating.match_series.MatchSeries`; this module parses the
options and prints the outcome, which :mod:`arena.cli.match_report` words. Registered by
:mod:`arena.cli.bot_commands`.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.bot_options import DecisionMs, MemoryMb, StartupMs, limits_of, with_options
from arena.cli.match_report import (
    Shown,
    compared_names,
    failure_reasons,
    head_to_head_lines,
    interrupted,
    match_json,
    progress_line,
    render_match,
)
from arena.cli.options import (
    EventDateOption,
    JsonFlag,
    TableFormatOrJsonOption,
    event_day,
    wants_json,
)
from arena.cli.output_file import check_output_file
from arena.cli.signals import stop_on_sigterm
from arena.cli.terminal import terminal_width, wrapped
from arena.common.plural import counted
from arena.common.printable import shell_word
from arena.engine.houserules import HouseRules, rules_from_texts
from arena.errors import BotError, FilesChangedError
from arena.rating.match_series import (
    SPRT_GAMES,
    MatchSeries,
    default_seating,
    first_bot_score,
    games_per_deal,
    never_started,
    told_apart,
)
from arena.rating.sprt import Score, SprtTest
from arena.referee.failures import (
    for_author,
)
from arena.referee.match import GameOutcome, MatchOutcome
from arena.referee.seating import SEATINGS, crowded_table
from arena.registry import BotSpec
from arena.tournament.dealbook import read_deal_book
from arena.tournament.entries import exposed_deals

__all__ = ["MATCH_HELP", "PROGRESS_GAMES", "match"]

#: Games between two progress lines of a sequential test, by default (fastchess's too).
PROGRESS_GAMES = 10


MATCH_HELP = "\n\n".join([
    "Play one match of 2-5 bots through the sandbox, each bot one persistent process "
    "(with --duplicate, one for each seating: no process is dealt a deal twice). "
    "Prints placements per game and per-bot diagnostics: decisions, median and max "
    "latency, timeouts, failures by type; with two bots also the first one's Elo "
    "difference with its 95% interval. A terminal too narrow for the tables leaves out "
    "their least telling columns (the places and wins stay) and says which; --format json "
    "has every field.",
    "With --sprt ELO0,ELO1 (two bots) the match is a sequential test, as chess engine "
    "testers run them: it stops once the games show the first bot at least ELO1 Elo "
    "stronger (H1) or at most ELO0 (H0), with error rates --alpha and --beta; --games "
    "is then the most it plays (default 2000). It plays each deal twice, the bots' seats "
    "swapped (--duplicate rotations), so that neither a seat nor a deal favours one bot.",
    "A sequential test prints a progress line every --progress games (score, Elo with its "
    "95% interval, LLR with its bounds) and the per-game table only with --verbose; "
    "--quiet prints neither.",
    "Under the bots' table each bot's failures are told a line per failure type, with its "
    "first detail (and how many others); --failures lists every distinct reason instead, "
    "each with how often and the first game and seat it happened in; --format json always "
    "carries them (failure_reasons). Ctrl-C stops the match: how far it got and the failures "
    "of the games that ended are told on stderr (exit 130; SIGTERM the same, exit 143).",
    "With --duplicate each deal is played once per seat order: rotations (k orders for k "
    "bots) or permutations (k!); --games is then a multiple of that.",
    "Example: arena match bots/random.py bots/greedy.py --games 10 --seed 1",
    "Example: arena match mybot mybot@1a2b3c4d5e6f --sprt 0,10",
    "Example: arena match bots/greedy.py bots/heuristic.py -g 4 --rule kinds=family",
])


_MaxStrikes = Annotated[int | None, typer.Option(
    "--max-strikes", min=0, help="Strikes per game before a forfeit (default 3).")]
#: ``--sprt``, ``--alpha`` and ``--beta``: the sequential test.
_Sprt = Annotated[str | None, typer.Option(
    "--sprt", metavar="ELO0,ELO1",
    help="Play a sequential test of the first bot against the second: H0 it is ELO0 "
         "Elo stronger, H1 ELO1 (e.g. 0,10); stops when one is accepted.")]
_Alpha = Annotated[float | None, typer.Option(
    "--alpha", help="With --sprt: the chance of accepting H1 when H0 holds (default "
    "0.05).")]
_Beta = Annotated[float | None, typer.Option(
    "--beta", help="With --sprt: the chance of accepting H0 when H1 holds (default "
    "0.05).")]
#: ``--duplicate`` and ``--deals``: which deals are played, in which seatings.
_Duplicate = Annotated[str | None, typer.Option(
    "--duplicate", metavar="|".join(SEATINGS),
    help="Play each deal once per seat order (default: none; rotations with --sprt).")]
_Deals = Annotated[Path | None, typer.Option(
    "--deals", metavar="FILE", help="A deal book: the deals to play, in order "
    "(docs/TOURNAMENTS.md, \"Deal books\").")]
#: ``--verbose``, ``--quiet`` and ``--progress``: how much of a long match is shown.
_Verbose = Annotated[bool, typer.Option(
    "--verbose", "-v", help="With --sprt: print the per-game table too (shown by default "
    "without --sprt).")]
_Quiet = Annotated[bool, typer.Option(
    "--quiet", "-q", help="No per-game table and no progress lines: the bots' table and the "
    "verdict only (for scripts; --format json for the whole outcome).")]
_Progress = Annotated[int, typer.Option(
    "--progress", min=1, metavar="N", help="With --sprt: a progress line every N games "
    "(score, Elo with its interval, LLR with its bounds).")]
_Failures = Annotated[bool, typer.Option(
    "--failures", help="Under the bots' table, every distinct reason a bot failed, how often "
    "and where first (by default a line per bot and failure type).")]


def match(
    bots: Annotated[list[str], typer.Argument(
        metavar="BOTS", help="2 to 5 bots: registered names, .py modules or bot directories.")],
    games: Annotated[int | None, typer.Option(
        "--games", "-g", min=1, help="Games to play (default 1, or one deal in each "
        "seating with --duplicate; with --sprt the most to play, default 2000).")] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", "-s", min=0, help="Match seed (game seeds derive from it). Default: a "
        "secret one, drawn now and printed after the match: a bot that knew the seed "
        "could compute every deal.")] = None,
    records: Annotated[Path | None, typer.Option(
        "--records", help="Write each game's record to this JSONL file.")] = None,
    fmt: TableFormatOrJsonOption = None,
    json_flag: JsonFlag = False,
    decision_ms: DecisionMs = None,
    time_bank_ms: Annotated[int | None, typer.Option(
        "--time-bank-ms", min=0, help="Time bank per game (default 10000).")] = None,
    max_strikes: _MaxStrikes = None,
    startup_ms: StartupMs = None,
    memory_mb: MemoryMb = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", metavar="N:KEY=VALUE",
        help="A setting for the N-th bot (1-based), sent in hello as a tournament "
             "entry's options are, e.g. -o 1:iterations=250; repeat for more.")] = None,
    sprt: _Sprt = None,
    alpha: _Alpha = None,
    beta: _Beta = None,
    duplicate: _Duplicate = None,
    rule: Annotated[list[str] | None, typer.Option(
        "--rule", metavar="NAME=VALUE",
        help="A house rule for every game (repeatable; arena rules --house lists them), "
             "e.g. kinds=family.")] = None,
    ponder: Annotated[bool, typer.Option(
        "--ponder", help="Let the bots run while another decides (by default each is "
        "stopped between its decisions).")] = False,
    deals: _Deals = None,
    event_date: EventDateOption = None,
    verbose: _Verbose = False,
    quiet: _Quiet = False,
    progress: _Progress = PROGRESS_GAMES,
    failures: _Failures = False,
) -> None:
    """Play one match (help text: ``MATCH_HELP``)."""
    _check_table(bots)
    flags = _deciding_flags(games, duplicate, deals, rule or [], option or [],
                            (sprt, alpha, beta))
    as_json = wants_json(fmt, json_flag)
    day = event_day(event_date)
    rules = rules_from_texts(rule)
    test = _sprt_test(sprt, alpha, beta, len(bots))
    show = _shown(verbose, quiet, 0 if as_json or test is None else progress, test is None,
                  failures)
    seating = _seating(duplicate, test is not None)
    games = _games(games, len(bots), seating, test is not None)
    if (crowded := crowded_table(len(bots), seating)) is not None:
        typer.echo(f"warning: {crowded}", err=True)
    limits = limits_of(decision_ms, time_bank_ms, max_strikes, startup_ms, memory_mb)
    entrants = told_apart(with_options(bots, option or []))
    if records is not None:
        check_output_file(records, "'--records'")
    book = _deal_book(deals, seed, entrants)  # the seed as given: None when drawn below
    drawn, seed = seed is None, secrets.randbits(63) if seed is None else seed
    series = MatchSeries(entrants, games, seed, limits, seating, test, records, rules=rules,
                         ponder=ponder, deals=book, event_date=day)
    try:
        with stop_on_sigterm():  # as Ctrl-C: how far it got said, the bots reaped
            outcome = series.play(on_game=_progress_printer(series, test, show.progress))
    except (KeyboardInterrupt, FilesChangedError):  # the error, if any, says why after
        _print_interrupted(series, seed, show.failures, flags)
        raise
    outcome = replace(outcome, games=_for_author(outcome.games, entrants))
    if as_json:
        typer.echo(json.dumps({**match_json(outcome, seed, test), "event_date": day.isoformat(),
                               "rules": rules.to_json()}, indent=2))
    else:
        _print_match(outcome, seed, drawn, test, games, records, show, rules,
                     " ".join([f"--seed {seed} --event-date {day}", *flags]))
    if never := never_started(outcome):
        raise BotError(f"{', '.join(never)} never started (the failures above say why)")


def _check_table(bots: list[str]) -> None:
    """A wrong number of bots is a mistyped command line, as a missing one is, so it is told
    before anything is read or started."""
    if not 2 <= len(bots) <= 5:
        raise typer.BadParameter(f"a match needs 2 to 5 bots, got {len(bots)}",
                                 param_hint="'BOTS'")


def _deal_book(deals: Path | None, seed: int | None,
               entrants: list[BotSpec]) -> tuple[int, ...]:
    """The deal book's deals (none without one), once a warning has said so if a bot could
    know the deals (:func:`~arena.tournament.entries.exposed_deals`)."""
    book = read_deal_book(deals) if deals else ()
    if (exposed := exposed_deals(seed, book, entrants, match=True)) is not None:
        # a short seed is a note: a casual match is what most are, and fine with one
        typer.echo(f"{'warning' if book else 'note'}: {exposed}", err=True)
    return book


def _shown(verbose: bool, quiet: bool, progress: int, table: bool,
           failures: bool = False) -> Shown:
    """What to print: ``table`` and ``progress`` by default, less with --quiet, the table
    with --verbose (both: a usage error); every failure's reason with --failures."""
    if verbose and quiet:
        raise typer.BadParameter("--verbose and --quiet ask for opposite things: give one",
                                 param_hint="'--quiet'")
    return Shown(table=verbose or (table and not quiet), progress=0 if quiet else progress,
                 failures=failures)


def _print_interrupted(series: MatchSeries, seed: int, every_reason: bool = False,
                       flags: Sequence[str] = ()) -> None:
    """On stderr, after a Ctrl-C: how far the match got, the test so far, and why bots failed
    in the games that ended (every distinct reason with ``every_reason``, as --failures);
    ``flags``: the others that decide the games (:func:`_deciding_flags`)."""
    typer.echo(interrupted(series.played, series.games, seed, series.records,
                            series.event_date, flags), err=True)
    whole = series.whole_deals()  # the test counts deals
    if series.test is not None and whole:
        names = compared_names(whole[0].names, whole[0].seats)
        typer.echo("\n".join(head_to_head_lines(names, first_bot_score(whole), series.test,
                                                 None)), err=True)
    if reasons := failure_reasons(_for_author(series.played, series.bots), every_reason):
        typer.echo("\n".join(reasons), err=True)


def _games(games: int | None, bots: int, seating: str, sequential: bool) -> int:
    """``--games`` checked against the seating (whole deals), or its default."""
    per_deal = games_per_deal(bots, seating)
    if games is None:
        return SPRT_GAMES - SPRT_GAMES % per_deal if sequential else per_deal
    if games % per_deal:
        raise typer.BadParameter(
            f"--duplicate {seating} plays each deal in {per_deal} seatings: give a "
            f"multiple of {per_deal}, not {games}", param_hint="'--games'")
    return games


def _for_author(games: Sequence[GameOutcome], bots: Sequence[BotSpec]) -> list[GameOutcome]:
    """``games`` with their failures' paths under each bot's own directory, as check-bot
    names them: the match is its author's own run, where they open the file."""
    paths = {bot.name: bot.path for bot in bots}
    return [replace(game, failures=for_author(game.failures, game.names, paths))
            for game in games]


def _deciding_flags(games: int | None, duplicate: str | None, deals: Path | None,
                    rules: list[str], options: list[str],
                    sprt: tuple[str | None, float | None, float | None]) -> list[str]:
    """The options given that decide which games a match plays, besides its seed and date,
    each with its value as shell words: what a replay of the same bots needs to play the same
    games (the limits decide only whether a bot runs out of time)."""
    given: list[tuple[str, object]] = [
        ("--games", games), ("--duplicate", duplicate), ("--deals", deals),
        *zip(("--sprt", "--alpha", "--beta"), sprt, strict=True),
        *(("--rule", text) for text in rules), *(("--option", text) for text in options)]
    return [f"{flag} {shell_word(str(value))}" for flag, value in given if value is not None]


def _print_match(outcome: MatchOutcome, seed: int, drawn: bool, test: SprtTest | None,
                 games: int, records: Path | None, show: Shown, rules: HouseRules,
                 replay: str) -> None:
    """The match for people; ``replay``: the options that play the same games again."""
    width = terminal_width()
    typer.echo(render_match(outcome, f"Seed {seed}" + (
        f" (drawn for this match; {replay} plays the same games)"
        if drawn else ""), show, width))
    score = first_bot_score(outcome.games) if len(outcome.names) == 2 else Score()
    # a bot that never started forfeited every game: an Elo of -inf measures nothing of it
    if len(outcome.names) == 2 and score.games and not never_started(outcome):
        typer.echo("\n" + "\n".join(wrapped(line) for line in
                                     head_to_head_lines(compared_names(
                                         outcome.names, outcome.seats), score, test, games)))
    if records is not None:
        typer.echo(wrapped(f"Wrote {counted(len(outcome.games), 'game record')} to {records} "
                           f"(arena game {records} -n 1 shows game 0)"))
    if not rules.is_default:
        typer.echo(wrapped(f"Played with {rules.describe()}"))


def _seating(duplicate: str | None, sequential: bool) -> str:
    """``--duplicate`` checked; by default a sequential test plays each deal both ways."""
    if duplicate is None:
        return default_seating(sequential)
    if duplicate not in SEATINGS:
        raise typer.BadParameter(f"unknown seating '{duplicate}' (choose "
                                 f"{', '.join(SEATINGS[:-1])} or {SEATINGS[-1]})",
                                 param_hint="'--duplicate'")
    return duplicate


def _sprt_test(text: str | None, alpha: float | None, beta: float | None,
               bots: int) -> SprtTest | None:
    """``--sprt ELO0,ELO1`` as a test (None without it); usage errors say what is wrong."""
    if text is None:
        given = [flag for flag, value in (("--alpha", alpha), ("--beta", beta))
                 if value is not None]
        if given:
            raise typer.BadParameter(f"{' and '.join(given)} only set the error rates of a "
                                     "sequential test: give --sprt ELO0,ELO1 too",
                                     param_hint=f"'{given[0]}'")
        return None
    alpha = 0.05 if alpha is None else alpha
    beta = 0.05 if beta is None else beta
    if bots != 2:
        raise typer.BadParameter(f"a sequential test compares two bots, not {bots}",
                                 param_hint="'--sprt'")
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise typer.BadParameter(f"expected ELO0,ELO1 such as 0,10, got {text!r}",
                                 param_hint="'--sprt'")
    try:
        return SprtTest(values[0], values[1], alpha, beta)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--sprt'") from None


def _progress_printer(series: MatchSeries, test: SprtTest | None,
                      every: int) -> Callable[[GameOutcome], None] | None:
    """A progress line once at least ``every`` more games of whole deals (those the test
    weighs) have ended; None when there is to be none."""
    if not every or test is None:
        return None
    last = [0]

    def on_game(_game: GameOutcome) -> None:
        whole = series.whole_deals()
        if len(whole) == len(series.played) and len(whole) >= last[0] + every:
            last[0] = len(whole)
            typer.echo(progress_line(first_bot_score(whole), test, len(whole)))

    return on_game


