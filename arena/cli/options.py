"""Option types that several commands share, declared once so their flags and help agree."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

from arena.referee.seeds import utc_today

__all__ = [
    "DbOption",
    "DryRunOption",
    "EventDateOption",
    "JsonFlag",
    "TableFormatOption",
    "TableFormatOrJsonOption",
    "TournamentArgument",
    "event_day",
    "table_or_json",
    "wants_json",
]

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


#: What ``--format`` takes on a command whose output is for people or for a script.
TABLE_OR_JSON = ("table", "json")


def table_or_json(value: str | None) -> str | None:
    """``--format``'s check: table or json (None: not given)."""
    if value is not None and value not in TABLE_OR_JSON:
        raise typer.BadParameter(f"unknown format '{value}' (choose table or json)")
    return value


#: ``--format``: the output for people (table) or for a script (json), as every command that
#: prints data takes it; ``None`` when not given, so that ``--json`` can be told apart.
TableFormatOption = Annotated[str | None, typer.Option(
    "--format", "-f", metavar="table|json", callback=table_or_json,
    help="table (for people; the default) or json (every field, for scripts).")]

#: ``--format`` of a command that took ``--json`` before (:data:`JsonFlag`), whose help
#: names it.
TableFormatOrJsonOption = Annotated[str | None, typer.Option(
    "--format", "-f", metavar="table|json", callback=table_or_json,
    help="table (for people; the default) or json (every field, for scripts; --json is the "
         "same).")]

#: ``--json``: the older spelling of ``--format json``, kept so that scripts using it still
#: work; hidden, as ``--format``'s help names it.
JsonFlag = Annotated[bool, typer.Option("--json", hidden=True,
                                        help="The same as --format json.")]


def wants_json(fmt: str | None, json_flag: bool) -> bool:
    """Whether ``--format`` and ``--json`` ask for json; both given must agree."""
    if json_flag and fmt == "table":
        raise typer.BadParameter("--json asks for json, --format table for a table: give one",
                                 param_hint="'--format' / '-f'")
    return json_flag or fmt == "json"


def event_day(text: str | None) -> dt.date:
    """``--event-date``'s day, else today in UTC (as a tournament without one)."""
    if text is None:
        return utc_today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"must be a date (YYYY-MM-DD), not {text!r}",
                                 param_hint="'--event-date'") from None
