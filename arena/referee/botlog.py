"""A bot's log (its stderr) as the referee keeps it: :class:`BotLog` cuts it into one part
per game, across the processes the bot ran in; :func:`log_tail` is what a failure quotes.

The log is a courtesy: reading it never breaks the referee (an unreadable log reads empty).
"""

from __future__ import annotations

from arena.referee.connection import Connection

__all__ = ["BotLog", "log_tail"]


class BotLog:
    """What a bot's processes wrote to stderr, handed out one span at a time (a game's part
    of its record): what the processes ended since the last cut wrote, then what the running
    one wrote since."""

    def __init__(self) -> None:
        #: Where the running process's log was cut last (a byte offset into it).
        self._mark = 0
        #: Bytes written since the last cut, those the cap dropped from the text included.
        self._bytes = 0
        #: What was taken in since the last cut: what the processes ended since wrote after
        #: it, and the referee's notes with what the running one wrote before each.
        self._taken = ""
        #: Bytes the bot wrote in the span :meth:`cut` handed out last (more than its text
        #: when the cap dropped some).
        self.last_bytes = 0
        #: Characters of that span's text: what a game's record keeps is counted in them.
        self.last_chars = 0

    def started(self) -> None:
        """A new process runs: its log begins at its first byte."""
        self._mark = 0

    def ended(self, conn: Connection) -> None:
        """``conn``'s process is gone: what it wrote since the cut goes with the next one."""
        self._taken += self._since_mark(conn)
        self._mark = 0

    def note(self, conn: Connection, text: str) -> None:
        """A line of the referee's for the bot's author, after what ``conn``'s process has
        written so far."""
        self._taken += self._since_mark(conn) + text

    def cut(self, conn: Connection | None) -> str:
        """The log written since the previous cut, ``conn`` being the running process."""
        text = self._taken + (self._since_mark(conn) if conn is not None else "")
        self._taken = ""
        self.last_bytes, self._bytes = self._bytes, 0
        self.last_chars = len(text)
        return text

    def _since_mark(self, conn: Connection) -> str:
        """What ``conn``'s process logged since the mark (which moves on)."""
        try:
            text, mark = conn.stderr_since(self._mark)
        except Exception:  # the log is a courtesy; never let it break the referee
            return ""
        self._bytes += max(mark - self._mark, 0)
        self._mark = mark
        return text


def log_tail(conn: Connection | None) -> str:
    """The log ``conn``'s process holds (its start and its latest part, within the cap), for
    a failure to quote; empty without a process."""
    try:
        return conn.stderr_text() if conn is not None else ""
    except Exception:  # the log is a courtesy; never let it break the referee
        return ""
