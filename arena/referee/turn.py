"""Which bot of a match may run (docs/SANDBOX.md, "CPU fairness"): :class:`CpuTurn`."""

from __future__ import annotations

from arena.referee.connection import Connection

__all__ = ["CpuTurn"]


class CpuTurn:
    """Which bot of a match may run: the one asked last (docs/SANDBOX.md, "CPU fairness").
    Asking another stops it first; a bot asked twice in a row is not stopped in between
    (nobody else thinks meanwhile), so only a change of bot costs a stop and a continue."""

    def __init__(self) -> None:
        self.running: Connection | None = None

    def stop_other(self, conn: Connection) -> None:
        """Stop the bot running now, if it is another than ``conn``."""
        if self.running is not conn:
            if self.running is not None:
                self.running.pause()
            self.running = None

    def give(self, conn: Connection) -> None:
        """Continue ``conn``, the bot running now stopped first if another."""
        self.stop_other(conn)
        conn.resume()
        self.running = conn

    def forget(self, conn: Connection) -> None:
        """``conn`` is stopped or ended: no longer the one running."""
        if self.running is conn:
            self.running = None
