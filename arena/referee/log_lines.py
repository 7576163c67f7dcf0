"""What a line of a bot's log tells of its failure: a write into its own files, a shared
library the sandbox does not show. The bot writes the line, so each test reads it once:
every pattern here either fails within its fixed words or ends with its one repeat, and a
path is looked at from its own start only, where one regex read the rest of the line again
for every box it named."""

from __future__ import annotations

import re

from arena.sandbox.commandline import BOX_PREFIX, BWRAP_BOT_DIR

__all__ = ["library_missing", "writes_own_files"]

#: A write refused by a read-only mount, as any runtime tells it (Node's EROFS, C's strerror,
#: Rust's "os error 30", a Java exception's "(Read-only file system)").
_EROFS = re.compile(r"\bEROFS\b", re.IGNORECASE)
_READ_ONLY_FS = re.compile("read-only file system", re.IGNORECASE)
#: A program's exec refused: not a write, though Landlock denies it in the same words.
_EXEC = re.compile(r"\bexec", re.IGNORECASE)
#: A run of a path's characters, and what may stand before a path the words follow.
_PATH = re.compile(r"""[^\s:'"()]+""")
_BEFORE_PATH = re.compile(r"[\s:]")
#: Landlock's EACCES of a path in the bot's copy, where it alone guards the copy (no
#: bubblewrap mount): as the shell, C and Go ("PATH: Permission denied") and Java ("PATH
#: (Permission denied)") follow the path with it, as Node ("EACCES: permission denied, open
#: 'PATH'") and Python ("Permission denied: 'PATH'") put it before the quoted path.
_DENIED_AFTER = re.compile(": permission denied", re.IGNORECASE)
_DENIED_AFTER_JAVA = re.compile(r" \(permission denied\)", re.IGNORECASE)
_DENIED_NODE = re.compile(r"\bEACCES: permission denied, ", re.IGNORECASE)
_NODE_CALL = re.compile(r"\w+")
_DENIED_PYTHON = re.compile("permission denied: '", re.IGNORECASE)
#: Node's code, which is no relative path of the bot's.
_EACCES = re.compile(r"EACCES\b", re.IGNORECASE)
#: The bot's copy as bubblewrap mounts it, and a box holding it without bubblewrap
#: (``/tmp/arena-box-12-ab/bot/``): the box's name, then its copy.
_COPY_DIR = re.compile(f"{re.escape(BWRAP_BOT_DIR)}/", re.IGNORECASE)
_BOX_DIR = re.compile(f"/{re.escape(BOX_PREFIX)}", re.IGNORECASE)
_BOX_NAME = re.compile(r"""[^/\s:'"()]*""")
#: The dynamic loader's words for a shared library it did not find.
_LOADER_FAILED = "error while loading shared libraries: "
_NOT_FOUND = "No such file"


def writes_own_files(line: str) -> bool:
    """Whether ``line`` tells of a write into the bot's own files, which the sandbox copies
    read-only: a read-only file system's error, or the permission denied of a path in the
    bot's copy (relative, under ``/bot/``, or under a box's ``bot/``) in a line naming no
    exec. Words after the line's first newline count only where the one regex this replaces
    read them (a read-only file system's; a path just after it, with the words after)."""
    if _EROFS.search(line) or _READ_ONLY_FS.search(line):
        return True
    line_end = line.find("\n")
    line_end = len(line) if line_end < 0 else line_end
    if _EXEC.search(line, 0, line_end):
        return False
    return (_path_then_denied(line, line_end) or _quoted_own(line, line_end, _DENIED_PYTHON)
            or _quoted_own(line, line_end, _DENIED_NODE, call=True))


def _path_then_denied(line: str, line_end: int) -> bool:
    """Whether a path of the bot's, first in ``line`` or after a space or colon at most just
    past ``line_end``, is followed by "permission denied" (C's, Java's)."""
    for path in _PATH.finditer(line):
        start, end = path.span()
        if start > line_end + 1:
            return False
        if start and not _BEFORE_PATH.match(line, start - 1):
            continue
        if ((_DENIED_AFTER.match(line, end) or _DENIED_AFTER_JAVA.match(line, end))
                and _is_own(line, start, end)):
            return True
    return False


def _quoted_own(line: str, line_end: int, words: re.Pattern[str], *,
                call: bool = False) -> bool:
    """Whether ``words`` before ``line_end``, then (``call``) a word and a space, are followed
    by a quoted path of the bot's (Python's, Node's)."""
    for found in words.finditer(line, 0, line_end):
        start = found.end()
        if call:
            name = _NODE_CALL.match(line, start)
            if name is None or not line.startswith(" '", name.end()):
                continue
            start = name.end() + 2
        path = _PATH.match(line, start)
        if path is not None and line.startswith("'", path.end()) and _is_own(
                line, start, path.end()):
            return True
    return False


def _is_own(line: str, start: int, end: int) -> bool:
    """Whether ``line[start:end]``, a whole run of a path's characters, is a path in the
    bot's copy: relative (the copy is the working directory; Node's EACCES is no path), under
    ``/bot/``, or under a box's ``bot/``. Each box reads its own name only."""
    if line[start] != "/":
        return _EACCES.match(line, start) is None
    if _COPY_DIR.match(line, start):
        return True
    for box in _BOX_DIR.finditer(line, start + 1, end):
        name = _BOX_NAME.match(line, box.end(), end)
        if name is not None and _COPY_DIR.match(line, name.end(), end):
            return True
    return False


def library_missing(line: str) -> bool:
    """Whether ``line`` holds the dynamic loader's error for a shared library it did not find
    ("error while loading shared libraries: ... No such file"), both on one line."""
    for part in line.split("\n"):
        failed = part.find(_LOADER_FAILED)
        if failed >= 0 and part.find(_NOT_FOUND, failed + len(_LOADER_FAILED)) >= 0:
            return True
    return False
