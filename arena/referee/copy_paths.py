"""Paths into a bot's sandboxed copy in text the bot wrote (its log, a failure's detail, a
traceback's frames): the copy as bubblewrap mounts it (``/bot/``) or its box without
bubblewrap (``/tmp/arena-box-12-ab/bot/``), found (:func:`in_copy`, :func:`copy_boxes`) and
named as the bot's author knows them (:func:`author_paths`). The bot writes the text, so each
is a scan that reads it once: a pattern looking for a box from every slash read the rest of
a path again."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from arena.sandbox.commandline import BOX_PREFIX, BWRAP_BOT_DIR

__all__ = ["COPY_DIR", "author_paths", "copy_boxes", "in_copy"]

#: A run of text a path lies within: a path into the bot's copy is inside one (a quoted one
#: too). Its one repeat ends it, so a search for it never gives back what it read.
_PATH_RUN = re.compile(r"[^\s\"']+")
#: Where a path may begin: a slash that does not go on a name or another path.
_PATH_START = re.compile(r"(?<![\w./-])/")
#: The bot's copy as bubblewrap mounts it, and the box holding it without bubblewrap
#: (``/tmp/arena-box-12-ab/bot/``).
COPY_DIR = f"{BWRAP_BOT_DIR}/"
_BOX_DIR = f"/{BOX_PREFIX}"


def in_copy(path: str) -> str | None:
    """``path`` relative to the bot's copy as the sandbox runs it (``/bot`` inside bubblewrap,
    ``<box>/bot`` without it): ``pkg/a.py``; ``None`` for a path outside it."""
    if path.startswith(COPY_DIR) and len(path) > len(COPY_DIR):
        return path[len(COPY_DIR):]
    box = _last_box(path, 1, len(path), rest=1) if path.startswith("/") else None
    return None if box is None else path[box[1]:]


def author_paths(text: str, home: str | Path | None = None) -> str:
    """``text`` (a bot's log, a failure's detail) with the paths into the bot's sandboxed copy
    (``/bot/bot.py``) named as its author knows them: under ``home``, the bot's directory,
    or relative to it (``bot.py``) when that is not known."""
    prefix = f"{str(home).rstrip('/')}/" if home else ""
    # A scan, not one regex: a bot writes this text, and a pattern searching each path's
    # start for a box further on reads the rest of the run again from every slash.
    kept: list[str] = []
    copied = 0
    for run in _PATH_RUN.finditer(text):
        box = _last_box(text, run.start(), run.end())
        for start in _PATH_START.finditer(text, run.start(), run.end()):
            at = start.start()
            if at < copied:
                continue
            if text.startswith(COPY_DIR, at):
                end = at + len(COPY_DIR)
            elif box is not None and box[0] > at:
                end = box[1]  # a box path goes through its box's copy: the last in the run
            else:
                continue
            kept += [text[copied:at], prefix]
            copied = end
    return "".join([*kept, text[copied:]])


def _last_box(text: str, start: int, end: int, *, rest: int = 0) -> tuple[int, int] | None:
    """Where the last ``/arena-box-.../bot/`` of ``text[start:end]``, a run of a path's
    characters, begins and ends, followed by ``rest`` characters or more; ``None`` without
    one."""
    return next((box for box in copy_boxes(text, start, end) if box[1] + rest <= end), None)


def copy_boxes(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Where each ``/arena-box-.../bot/`` of ``text[start:end]`` begins and ends, the last
    first. Each candidate reads only its own box's name, so the text is read once."""
    box = text.rfind(_BOX_DIR, start, end)
    while box >= 0:
        slash = text.find("/", box + len(_BOX_DIR), end)
        if slash >= 0 and text.startswith(COPY_DIR, slash, end):
            yield box, slash + len(COPY_DIR)
        box = text.rfind(_BOX_DIR, start, box)
