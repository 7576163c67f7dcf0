"""Files the CLI writes into (``--records``): checked before the work that fills them starts,
and what it says of the games it left out of them."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from arena.common.printable import printable
from arena.errors import DamagedRecordError

__all__ = ["check_output_file", "warn_left_out"]


def warn_left_out(skipped: list[DamagedRecordError], out: str) -> None:
    """One line on stderr naming the games whose damaged stored records an export to ``out``
    left out, and why (the others were written)."""
    if not skipped:
        return
    if len(skipped) == 1:
        # a database from elsewhere never passed the arena's entry, where a bot's text is escaped
        typer.echo(f"warning: {printable(str(skipped[0]))}; left out of {out}", err=True)
        return
    games = printable(", ".join(f"{exc.game} ({exc.reason})" for exc in skipped))
    typer.echo(f"warning: {len(skipped)} games' stored records are damaged; left out of "
               f"{out}: {games}", err=True)


def check_output_file(path: Path, option: str) -> None:
    """Refuse ``path`` as a usage error (``option`` names it) when no file can be written
    there: a missing directory, a directory, no write permission. A device such as
    /dev/stdout is allowed."""
    problem = None
    if not path.parent.is_dir():
        problem = f"directory {path.parent} does not exist"
    elif path.is_dir():
        problem = f"{path} is a directory; give a file name"
    elif not os.access(path if path.exists() else path.parent, os.W_OK):
        problem = f"{path} is not writable"
    if problem is not None:
        raise typer.BadParameter(problem, param_hint=option)
