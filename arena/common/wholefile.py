"""A file written whole or not at all (what an export or a report writes into), and a text
file read whole whether it is gzip-compressed or not."""

from __future__ import annotations

import errno
import gzip
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

__all__ = ["GZIP_MAGIC", "is_device", "read_text", "write_whole"]

T = TypeVar("T")

#: The first bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``, decompressed when it is gzip (``.gz`` exports, records).
    Raises ``OSError`` (``gzip.BadGzipFile`` too), ``EOFError``, ``zlib.error`` or
    ``UnicodeDecodeError``; a device (``/dev/zero`` never ends) is refused unread."""
    if is_device(path):
        raise OSError(errno.ENODEV, "a device, not a file", str(path))
    data = path.read_bytes()
    if data[:2] == GZIP_MAGIC:
        data = gzip.decompress(data)
    return data.decode("utf-8")


def is_device(path: Path) -> bool:
    """Whether ``path`` names a character or block device (a pipe is read: it ends)."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):  # the read that follows says why, in its own words
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


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
