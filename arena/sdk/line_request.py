"""A :class:`~arena.sdk.Request` read from an ``act`` line and decoded only if the bot reads it.

Decoding an ``act`` (its observation and options) is most of what the kit does per decision,
and a bot that decides without those fields (from ``kind`` alone, or not at all) need not pay
it: :mod:`arena.sdk.serving` hands such a bot these requests until it reads one.
"""

from __future__ import annotations

from typing import Any

from arena.protocol.messages import act_fields, decode
from arena.sdk.bot import Request

__all__ = ["LineRequest"]

#: The fields of a request that come from decoding its line.
_DECODED_FIELDS = ("observation", "legal", "time_ms", "context")


class LineRequest(Request):
    """A :class:`Request` whose ``observation``, ``legal``, ``time_ms`` and ``context`` are
    decoded from its ``act`` line on the first read of any of them (once; every later read
    is a plain attribute read). A field the bot sets before reading stays its own. A
    malformed line (never from the referee) raises in the bot's ``act`` at its first
    read."""

    __slots__ = ("_line",)

    def __init__(self, id: int, kind: str, seat: int, line: bytes) -> None:
        # The decoded fields stay unset until they are read (see __getattr__).
        self.id = id
        self.kind = kind
        self.seat = seat
        self._line: bytes | None = line

    @property
    def decoded(self) -> bool:
        """Whether the line has been decoded (the bot read the request)."""
        return self._line is None

    def __getattr__(self, name: str) -> Any:
        # Python calls this only for an attribute it did not find: a field not decoded yet.
        line = self._line
        if line is None or name not in _DECODED_FIELDS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        fields = act_fields(decode(line))
        self._line = None
        for field in _DECODED_FIELDS:
            if not hasattr(self, field):
                setattr(self, field, fields[field])
        return getattr(self, name)
