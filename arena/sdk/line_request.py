"""A :class:`~arena.sdk.Request` read from an ``act`` line and decoded only if the bot reads it.

Decoding is paid only for what a bot uses: an ``act`` line is decoded when the bot first reads
the request's ``observation``, ``legal``, ``time_ms`` or ``context`` (once; a bot that reads
them gets every later request decoded at once, :mod:`arena.sdk.serving`). Plain Python on
purpose: the class swaps its ``__class__`` and stores into ``Request``'s slots, which a
compiled class may not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.scanner import make_scanner
from typing import Any

from arena.sdk.bot import Request

__all__ = ["ACT_HEAD", "LineRequest", "loads", "stash_line"]

_scan_once = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed: a class


def loads(line: bytes) -> Any:
    """json.loads without its per-call set-up: the referee's lines are compact UTF-8 objects,
    one per line, so scanning the object at offset 0 is enough (anything odd falls back)."""
    try:
        return _scan_once(line.decode(), 0)[0]
    except (StopIteration, ValueError):
        return json.loads(line)


#: The head of an ``act`` line as the referee writes it (docs/PROTOCOL.md: ``type``, ``id``
#: and ``decision`` first); a line that starts otherwise is decoded whole at once.
ACT_HEAD = re.compile(rb'\{"type":"act","id":(0|[1-9][0-9]{0,17}),"decision":"([a-z_]{1,32})",')
#: Request's own slots (member descriptors): the lazy request below stores into them directly.
_SLOT = {name: Request.__dict__[name] for name in ("observation", "legal", "time_ms", "context")}
_STASH = _SLOT["context"]  # holds the raw line until it is decoded
#: ``stash_line(request, line)``: keep a lazy request's line until it is decoded.
stash_line = _STASH.__set__


def _make_decode() -> Callable[[Request], None]:
    set_observation = _SLOT["observation"].__set__
    set_legal = _SLOT["legal"].__set__
    set_time = _SLOT["time_ms"].__set__
    get_line, set_context = _STASH.__get__, _STASH.__set__
    set_class = object.__setattr__

    def decode(request: Request) -> None:
        """Decode a lazy request's line into its fields; it is then a plain Request."""
        message = loads(get_line(request))
        set_observation(request, message["observation"])
        set_legal(request, message["legal"])
        set_time(request, message.get("time_ms"))
        set_context(request, message.get("context") or {})
        set_class(request, "__class__", Request)

    return decode


_decode = _make_decode()


def _lazy_field(name: str) -> Any:
    slot = _SLOT[name]

    def get(self: Request) -> Any:
        _decode(self)
        return slot.__get__(self)

    def set(self: Request, value: Any) -> None:  # decoded first, so it is not overwritten
        _decode(self)
        slot.__set__(self, value)

    return property(get, set)


class LineRequest(Request):
    """A :class:`Request` read from an ``act`` line, decoded on first use of ``observation``,
    ``legal``, ``time_ms`` or ``context``; the decode turns it into a plain ``Request`` (same
    slots, so ``__class__`` can change), so every later read is a plain slot read. A bot
    that decides without those fields (from ``kind`` alone, or not at all) pays no JSON
    decoding; any other pays the one decode it paid before. A malformed line (never from the
    referee) raises in the bot's ``act`` at its first read."""

    __slots__ = ()

    observation = _lazy_field("observation")
    legal = _lazy_field("legal")
    time_ms = _lazy_field("time_ms")
    context = _lazy_field("context")
