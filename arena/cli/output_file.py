"""Files the CLI writes into (``--records``): checked before the work that fills them starts."""

from __future__ import annotations

import os
from pathlib import Path

import typer

__all__ = ["check_output_file"]


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
