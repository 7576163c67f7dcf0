"""A bot's lines that answer nothing it is asked now (docs/PROTOCOL.md): which are skipped
without a strike, and which answers are late. :class:`StrayLines` keeps the rule.

Skipped: a message of a later protocol version (an unknown type), and the late answer to an
act already struck, once. Any other stray line (a debug print, an ``action`` with a past id)
is struck once, and the real answer behind it, late now, is then skipped like one after a
timeout: a bot is never struck twice for one act.
"""

from __future__ import annotations

from arena.protocol import messages

__all__ = ["StrayLines"]


class StrayLines:
    """One bot process's late acts, and the unknown type it wrote for the current message."""

    def __init__(self) -> None:
        #: Ids of acts whose answer is late: timed out or struck for a stray line (ids are
        #: unique over the match, so a late answer is recognised even in the next game).
        self._late: set[int] = set()
        #: The type of the first line of unknown type the bot wrote for the current act.
        self.ignored_type: str | None = None
        #: The id of the first late answer dropped while the current act was awaited.
        self.dropped: int | None = None

    def new_act(self) -> None:
        """A new act is awaited: what was noted of the lines for the last one is forgotten."""
        self.ignored_type = None
        self.dropped = None

    def forget(self) -> None:
        """The process is gone or begins a new match: no answer of it is awaited."""
        self._late.clear()

    def late(self, id_: int) -> None:
        """Act ``id_`` timed out: its answer, if it comes, is skipped."""
        self._late.add(id_)

    def skipped(self, data: bytes, id_: int) -> bool:
        """Whether ``data``, no answer to act ``id_``, costs no strike; when it costs one,
        the real answer to ``id_`` is late from now on."""
        unknown = messages.unknown_type(data)
        if unknown is not None:
            self.ignored_type = self.ignored_type or unknown
            return True
        late = messages.action_id(data)
        if late is not None and late in self._late:
            self._late.discard(late)
            self.dropped = late if self.dropped is None else self.dropped
            return True
        self._late.add(id_)
        return False
