"""``arena pairings``: who met whom, round by round, as chess Swiss software shows a round.

Registered by :mod:`arena.cli.main`."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.options import DbOption, TournamentArgument
from arena.common.fitting import fit_rows, not_shown, tabulated, widest
from arena.common.names import shown_names
from arena.common.printable import printable_log
from arena.tournament.store import DEFAULT_RESULTS

if TYPE_CHECKING:
    from arena.tournament.pairings import RoundPairings

__all__ = ["register", "render_round"]

_PAIRINGS_HELP = "\n\n".join([
    "Show a tournament's pairings round by round: each board (a pairing; in duplicate mode "
    "its seatings together) with its bots in seat order and their scores before the round, "
    "the points each took at the board and the games played, then the round's byes. Scores "
    "are Swiss points (1 a game for first place, 0 for last or a forfeit).",
    "Not for a league, which has no rounds: it chooses one table at a time (arena report NAME "
    "-o DIR lists its tables, arena status NAME its entries, arena game NAME/r1/t0/g0 its "
    "first game).",
    "Example: arena pairings swiss --round 2",
    "Example: arena pairings swiss --format json",
])

PAIRINGS_FORMATS = ("text", "json")


def _pairings_format(value: str) -> str:
    if value == "table":  # as every command that prints data calls its text for people
        return "text"
    if value not in PAIRINGS_FORMATS:
        raise typer.BadParameter(f"unknown format '{value}' (choose text or json)")
    return value


def pairings(
    tournament: TournamentArgument,
    round_no: Annotated[int | None, typer.Option("--round", "-r", min=1, metavar="N",
                                                 help="Only this round (default: every "
                                                      "round).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", callback=_pairings_format,
                                     metavar="text|json",
                                     help="text (for people; table is the same) or json "
                                          "(every figure, scores as numbers, bots as "
                                          "name@version).")] = "text",
    db: DbOption = Path(DEFAULT_RESULTS),
) -> None:
    """Show the pairings (help text: ``_PAIRINGS_HELP``)."""
    from arena.cli.terminal import terminal_width
    from arena.rating.render import render_json
    from arena.tournament.pairings import pairings_json, round_pairings

    row, rounds = round_pairings(db, tournament, round_no)
    if fmt == "json":
        typer.echo(render_json(pairings_json(row, rounds)))
        return
    width = terminal_width()
    for i, view in enumerate(rounds):
        if i:
            typer.echo("")
        # a database from elsewhere never passed the arena's entry, where a bot's text is escaped
        typer.echo(printable_log("\n".join(render_round(row.name, row.rounds, view, width))))


def _score(value: Fraction) -> str:
    """1, 1.5, 0.33: at most two decimals, no trailing zeros."""
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


def render_round(tournament: str, rounds: int, view: RoundPairings,
                 width: int | None = None) -> list[str]:
    """A round's lines: its title, the boards' table, its byes. ``width``: a terminal's
    columns; where a board a line wide is wider, each seat has a line of its own."""
    title = f"{tournament}, round {view.round} of {rounds}"
    if not view.paired:
        return [f"{title}: not paired yet (a Swiss round is paired once the one before it "
                "is finished)"]
    names = shown_names([b for board in view.boards for b in board.bots]
                   + [label for label, _, _ in view.byes])
    # a round of tables of two sizes plays 2 seatings at one and 3 at the other
    seatings = sorted({board.seatings for board in view.boards} - {1})
    if seatings:
        title += (f" (duplicate: each board plays its deals in {' or '.join(map(str, seatings))}"
                  " seatings, counted together)")
    table = _boards_table(view, names)
    if width is not None:  # a terminal's: the title wraps at words, not mid-word
        title = textwrap.fill(title, width)
    left_out: list[str] = []
    if width is not None and widest(table) > width:
        # a board of many seats on one line outruns the terminal: a line a seat instead
        table, left_out = _seats_table(view, names, width)
    lines = [title, table]
    if left_out and width is not None:
        lines.append(textwrap.fill(not_shown(left_out, "a wider terminal or a pipe shows them"),
                                   width))
    for label, before, points in view.byes:
        lines.append(f"bye: {names[label]} ({_score(before)}), +{_score(points)}")
    return lines


def _boards_table(view: RoundPairings, names: dict[str, str]) -> str:
    """A line a board: its bots in seat order with their scores before, then the points."""
    width = max((len(board.bots) for board in view.boards), default=2)
    rows = []
    for board in view.boards:
        cells = [f"{names[b]} ({_score(s)})" for b, s in zip(board.bots, board.before,
                                                            strict=True)]
        rows.append([board.number, *cells, *[""] * (width - len(cells)),
                     " - ".join(_score(p) for p in board.points),
                     f"{board.games_done}/{board.games_planned}"])
    headers = ["board", *(f"seat {i + 1} (score before)" for i in range(width)), "result",
               "games"]
    return tabulated(rows, headers, disable_numparse=True)


#: What a line a seat leaves out on a terminal too narrow for it, first to last: the
#: board's progress, then the scores it started from (the points it took stay).
_SEATS_LEFT_OUT = ("games", "score before")


def _seats_table(view: RoundPairings, names: dict[str, str],
                 width: int) -> tuple[str, list[str]]:
    """A line a seat, for a narrow terminal: the same figures as :func:`_boards_table`, less
    the columns of :data:`_SEATS_LEFT_OUT` a terminal of ``width`` columns has no room for,
    then with the names cut; and those columns."""
    headers = ["board", "seat", "bot", "score before", "points", "games"]
    rows = []
    for board in view.boards:
        for seat, (bot, before, points) in enumerate(zip(board.bots, board.before,
                                                         board.points, strict=True)):
            first = seat == 0  # the board's number and games on its first seat's line
            rows.append([board.number if first else "", seat + 1, names[bot], _score(before),
                         _score(points),
                         f"{board.games_done}/{board.games_planned}" if first else ""])
    return fit_rows(headers, rows, _SEATS_LEFT_OUT, width, names=2, disable_numparse=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("pairings", help=_PAIRINGS_HELP,
                short_help="Show a tournament's pairings round by round.")(pairings)
