"""Option types that several commands share, declared once so their flags and help agree."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["DbOption", "TournamentArgument"]

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
