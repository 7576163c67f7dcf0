"""Option types that several commands share, declared once so their flags and help agree."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

from arena.referee.seeds import utc_today

__all__ = ["DbOption", "DryRunOption", "EventDateOption", "TournamentArgument", "event_day"]

#: ``--db``: the results database a command reads (``arena run`` writes it).
DbOption = Annotated[
    Path, typer.Option("--db", envvar="ARENA_DB", show_default=True,
                       help="Results database written by arena run ($ARENA_DB when set).")
]

#: A stored tournament's name, for the commands that read one.
TournamentArgument = Annotated[
    str, typer.Argument(metavar="TOURNAMENT",
                        help="Tournament name (arena tournaments lists them).")
]

#: ``--event-date``: the day the games of ``arena match`` and ``arena play`` count as played.
EventDateOption = Annotated[str | None, typer.Option(
    "--event-date", metavar="YYYY-MM-DD", help="The day the games count as played: the "
    "players' last_read_page and last_book_finished are read against it (rulings 12 and "
    "13). Default: today in UTC.")]

#: ``--dry-run``: the pruning commands say what they would remove.
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Say what would be removed; "
                                                             "remove nothing.")]


def event_day(text: str | None) -> dt.date:
    """``--event-date``'s day, else today in UTC (as a tournament without one)."""
    if text is None:
        return utc_today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"must be a date (YYYY-MM-DD), not {text!r}",
                                 param_hint="'--event-date'") from None
