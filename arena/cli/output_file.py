"""Files the CLI writes into (``--records``): checked before the work that fills them starts."""

from __future__ import annotations

import gzip
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

import typer

__all__ = ["check_output_file", "write_whole"]

T = TypeVar("T")


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


def _open_text(path: Path, compressed: bool) -> TextIO:
    if compressed:
        return gzip.open(path, "wt", encoding="utf-8")
    return open(path, "w", encoding="utf-8")


def write_whole(path: Path, write: Callable[[TextIO], T], *, compressed: bool = False) -> T:
    """Call ``write`` with ``path`` open for text and return what it returns (``compressed``:
    through gzip). A file (or the file a symbolic link names) is written beside itself and
    renamed into place, so a failed write leaves no half-written file; a device or a pipe is
    written straight, as given. Raises ``OSError``."""
    target = path.resolve()
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        with _open_text(target, compressed) as handle:
            return write(handle)
    part = target.with_name(f".{target.name}.part")
    try:
        with _open_text(part, compressed) as handle:
            result = write(handle)
        part.replace(target)
        return result
    finally:
        part.unlink(missing_ok=True)
