"""``arena export``: a tournament's games as JSON lines for other tools.

Registered by :mod:`arena.cli.main`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import DbOption, TournamentArgument
from arena.cli.output_file import check_output_file, warn_left_out
from arena.common.plural import counted
from arena.common.printable import printable
from arena.common.wholefile import write_whole
from arena.tournament.store import DEFAULT_RESULTS

__all__ = ["register"]

_EXPORT_HELP = "\n\n".join([
    "Export a tournament's games as JSON lines, one game a line in play order: its seats "
    "(name@version), places, points as the standings count them, Desmos, failures and its "
    "whole game record, with schema_version 1 (docs/RECORDS.md, \"Exported games\"); "
    "gzip-compressed when FILE ends in .gz. arena replay and arena game read the file too; a "
    "deal book (--deals) takes each line's seed.",
    "Example: arena export swiss -o swiss-games.jsonl",
])


def export(
    tournament: TournamentArgument,
    output: Annotated[Path, typer.Option(
        "--output", "-o", metavar="FILE",
        help="Where to write (- for stdout; gzip-compressed when FILE ends in .gz).")],
    db: DbOption = Path(DEFAULT_RESULTS),
) -> None:
    """Export a tournament's games (help text: ``_EXPORT_HELP``)."""
    import sys

    from arena.errors import StoreError
    from arena.tournament.export import export_games

    if str(output) == "-":
        warn_left_out(export_games(db, tournament, sys.stdout).skipped, "the export")
        return
    check_output_file(output, "--output")
    try:
        count, skipped = write_whole(output, lambda handle: export_games(db, tournament, handle),
                                     compressed=output.suffix == ".gz")
    except OSError as exc:
        raise StoreError(f"cannot write {output}: {exc.strerror or exc}") from None
    warn_left_out(skipped, str(output))
    typer.echo(f"Wrote {counted(count, 'game')} of {printable(tournament)} to {output}",
               err=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("export", help=_EXPORT_HELP,
                short_help="Export a tournament's games with their records.")(export)
