"""CLI commands of the rating layer (registered by arena.cli.main).

``leaderboard``, ``results``, ``h2h`` and ``tournaments`` only read the results database; store
errors are :class:`arena.errors.StoreError` and reach the user as one ``Error: ...`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated

import typer

from arena.cli.options import DbOption
from arena.rating.games import DEFAULT_DB
from arena.rating.render import MACHINE_FORMATS, OUTPUT_FORMATS, TABLE_FORMATS

# The commands import the rating modules (trueskill and friends) when they run, so that
# `arena` starts fast for every other command.

RESULT_FORMATS = ("json", "csv")

__all__ = ["register"]


def _format(value: str) -> str:
    """A format of the tables: ``table``, as every command that prints data calls its text
    for people, is tabulate's ``simple``."""
    if value == "table":
        return "simple"
    if value not in OUTPUT_FORMATS:
        raise typer.BadParameter(f"unknown format '{value}' (choose table, json, csv or a "
                                 f"tabulate format: {', '.join(TABLE_FORMATS)})")
    return value


def _result_format(value: str) -> str:
    if value not in RESULT_FORMATS:
        raise typer.BadParameter(f"unknown format '{value}' (choose json or csv)")
    return value


FormatOption = Annotated[
    str,
    typer.Option("--format", "-f", callback=_format, metavar="FMT",
                 help="table (for people), json, csv or any tabulate format (simple, the "
                      "same as table; github, grid, latex, html, ...)."),
]


_AllVersionsOption = Annotated[
    bool, typer.Option("--all-versions", help="A league: every version of each bot, the "
                       "retired ones too (default: the newest, the one playing).")
]
_WatchOption = Annotated[
    bool, typer.Option("--watch", help="Refresh the leaderboard in the terminal until Ctrl-C "
                       "(a running league or tournament).")
]
_EveryOption = Annotated[
    float, typer.Option("--every", min=0.1, help="Seconds between refreshes (--watch).")
]
_RefreshesOption = Annotated[
    int | None, typer.Option("--refreshes", min=1, help="Stop watching after this many frames.")
]


def leaderboard(
    tournament: Annotated[
        str | None, typer.Argument(metavar="TOURNAMENT",
                                    help="Tournament name (default: the latest one).")
    ] = None,
    all_games: Annotated[
        bool, typer.Option("--all", help="Rate every game ever recorded, across tournaments.")
    ] = False,
    fmt: FormatOption = "table",
    db: DbOption = DEFAULT_DB,
    sort: Annotated[
        str, typer.Option("--sort", metavar="rating|points",
                          help="Rank by the rating (mu - 3 sigma) or by points, then Buchholz "
                               "(a Swiss tournament's standings).")
    ] = "rating",
    wide: Annotated[
        bool, typer.Option("--wide", help="Show every column (default: what fits 100 "
                                          "columns or a narrower terminal; json and csv "
                                          "always have every field).")
    ] = False,
    columns: Annotated[
        str | None, typer.Option("--columns", metavar="A,B,...",
                                 help="Show these columns, comma-separated, e.g. "
                                      "'mu-3sigma,games,win %' (the rank and the bot are "
                                      "always shown; json and csv have every field).")
    ] = None,
    all_versions: _AllVersionsOption = False,
    watch: _WatchOption = False,
    every: _EveryOption = 2.0,
    refreshes: _RefreshesOption = None,
) -> None:
    """Print a leaderboard (help text: ``_HELP['leaderboard']``)."""
    if watch and all_games:
        raise typer.BadParameter("--watch shows one tournament's leaderboard, not --all",
                                 param_hint="--watch")
    if all_games and tournament is not None:
        raise typer.BadParameter("give a tournament name or --all, not both")
    if wide and columns is not None:
        raise typer.BadParameter("give --wide or --columns, not both", param_hint="--columns")
    from arena.cli.terminal import terminal_width
    from arena.rating.board_view import leaderboard_text, table_columns
    from arena.rating.leaderboard import SORTS
    from arena.rating.trueskill_rating import RatingMemo

    if sort not in SORTS:
        raise typer.BadParameter(f"unknown order '{sort}' (choose rating or points)",
                                 param_hint="--sort")
    picked = _picked(columns, table_columns())
    memo = RatingMemo() if watch else None  # each frame rates only what landed since

    def frame() -> str:  # the width read again each frame: a watched window may be resized
        return _shown(leaderboard_text(db, tournament, all_games=all_games,
                                       all_versions=all_versions, sort=sort, fmt=fmt,
                                       columns=picked, wide=wide, memo=memo,
                                       width=terminal_width()), fmt)
    if watch:
        _watch(frame, every, refreshes)
    else:
        typer.echo(frame())


def _shown(text: str, fmt: str) -> str:
    """``text`` in ``fmt`` as printed: a database from elsewhere never passed the arena's
    entry, where a bot's text is escaped, so a table's is escaped here (json escapes its
    own)."""
    from arena.common.printable import printable_log

    return text if fmt == "json" else printable_log(text)


def _picked(columns: str | None, known: Sequence[str]) -> list[str] | None:
    """The columns ``--columns`` names (None: the default choice); an unknown one refused."""
    picked = None if columns is None else [c.strip() for c in columns.split(",") if c.strip()]
    unknown = [c for c in picked or () if c not in known]
    if unknown:
        raise typer.BadParameter(f"unknown column(s) {', '.join(repr(c) for c in unknown)} "
                                 f"(choose among: {', '.join(known)})", param_hint="--columns")
    return picked


def _watch(frame: Callable[[], str], every: float, refreshes: int | None) -> None:
    """Show ``frame()`` every ``every`` seconds, in place in a terminal (one frame after
    another elsewhere), until Ctrl-C or ``refreshes`` frames."""
    import sys
    import time

    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    shown = 0
    live = Live(console=Console(), auto_refresh=False) if sys.stdout.isatty() else None
    try:
        if live is not None:
            live.start()
        while True:
            text = frame()
            if live is not None:
                live.update(Text(text), refresh=True)
            else:
                typer.echo(text + "\n")
            shown += 1
            if refreshes is not None and shown >= refreshes:
                return
            time.sleep(every)
    except KeyboardInterrupt:
        return  # watching ends here; nothing to undo
    finally:
        if live is not None:
            live.stop()


def results(
    tournament: Annotated[str, typer.Argument(metavar="TOURNAMENT", help="Tournament name.")],
    fmt: Annotated[
        str, typer.Option("--format", "-f", callback=_result_format, metavar="json|csv",
                          help="json (one document) or csv (one row per seat).")
    ] = "json",
    db: DbOption = DEFAULT_DB,
) -> None:
    """Export a tournament's games (help text: ``_HELP['results']``)."""
    from arena.rating.results import render_results

    typer.echo(_shown(render_results(db, tournament, fmt), fmt))


def h2h(
    tournament: Annotated[str, typer.Argument(metavar="TOURNAMENT", help="Tournament name.")],
    players: Annotated[int | None, typer.Option(
        "--players", "-p", min=2, max=5,
        help="Only the games at tables of this size (a ladder may mix sizes).")] = None,
    fmt: FormatOption = "table",
    db: DbOption = DEFAULT_DB,
) -> None:
    """Print the head-to-head matrix (help text: ``_HELP['h2h']``)."""
    from arena.cli.terminal import terminal_width
    from arena.rating.h2h import build_h2h, render_h2h

    typer.echo(_shown(render_h2h(build_h2h(db, tournament, players), fmt,
                                 width=terminal_width()), fmt))


def tournaments(
    fmt: FormatOption = "table",
    db: DbOption = DEFAULT_DB,
) -> None:
    """List stored tournaments (help text: ``_HELP['tournaments']``)."""
    from arena.cli.terminal import terminal_width
    from arena.rating.results import render_tournaments, tournament_summaries
    from arena.tournament.status import no_tournaments

    summaries = tournament_summaries(db)
    if not summaries and fmt not in MACHINE_FORMATS:  # a table's header alone says nothing
        typer.echo(no_tournaments(db))
        return
    typer.echo(_shown(render_tournaments(summaries, fmt, width=terminal_width()), fmt))


# Help texts: one paragraph per string, because the rich help keeps a docstring's line breaks.
_HELP = {
    "leaderboard": "\n\n".join([
        "Show the TrueSkill leaderboard of a tournament (default: the latest), sorted by the "
        "conservative rating mu - 3 sigma.",
        "Columns: rank, bot, version, mu, sigma, mu-3sigma, games, wins, win %, mean place, "
        "points (per game: 1 for first, 0 for last or a forfeit, shared places split), byes and "
        "buchholz (Swiss only), failures by type, note. Ratings are per bot version: a new version "
        "starts fresh and its note says 'new' (with the older versions).",
        "By default the table fits 100 columns (a narrower terminal: its width): it leaves out "
        "the columns empty for every bot, points when they equal the wins, then sigma, mean "
        "place, win %, mu and version as needed, then on a narrower terminal still every "
        "column but the rank, the bot and what the board is sorted by (names too long are cut "
        "with an ellipsis), and says which under the table. --wide shows every column, "
        "--columns the ones named, after the rank and the bot, which are always shown; json "
        "and csv always have every field.",
        "Example: arena leaderboard swiss --format github",
    ]),
    "results": "\n\n".join([
        "Export every game of a tournament in rating order (id, round, table, seed, bots by "
        "seat as name@version, each seat's place as the standings count it, a forfeit last, "
        "and as the engine placed it, failures, forfeits, each seat's points) with the "
        "rating parameters, so anyone can recompute the ratings.",
        "Example: arena results swiss --format csv > swiss-games.csv",
    ]),
    "h2h": "\n\n".join([
        "Head-to-head matrix: how often the row bot placed ahead of the column bot in the games "
        "where both sat, with a 95% Wilson interval and the number of games (a shared place "
        "counts half).",
        "Example: arena h2h swiss --format grid",
    ]),
    "tournaments": "\n\n".join([
        "List the stored tournaments: format, players per table, bots, games done/planned and "
        "state.",
        "Example: arena tournaments --db results/arena.db",
    ]),
}


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("leaderboard", help=_HELP["leaderboard"],
                short_help="Show a tournament's TrueSkill leaderboard.")(leaderboard)
    app.command("results", help=_HELP["results"],
                short_help="Export a tournament's games in rating order.")(results)
    app.command("h2h", help=_HELP["h2h"],
                short_help="Show how often each bot placed ahead of another.")(h2h)
    app.command("tournaments", help=_HELP["tournaments"],
                short_help="List the stored tournaments.")(tournaments)
