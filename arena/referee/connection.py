"""A running bot as the referee's client sees it: :class:`Connection`, what one read
produced (:class:`Received`, and what an overflow broke) and how the process ended
(:class:`Ended`).

Implemented for the sandbox (:mod:`arena.referee.launch`) and by scripted bots in the tests, so
the client's rules are tested without processes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.sandbox import Limits

__all__ = ["OUT_OF_TIME", "Connection", "Ended", "Launcher", "Received", "overflow_detail"]


@dataclass(slots=True)
class Received:
    """What one read produced, transport-independent: ``kind`` is ``line``, ``timeout``,
    ``closed`` or ``overflow``; ``data`` the line for ``line``, and for ``overflow`` ``line``
    (one line too long) or ``total`` (too many bytes in all, blank lines included)."""

    kind: str
    data: bytes = b""


#: What a read past the deadline amounts to.
OUT_OF_TIME = Received("timeout")


def overflow_detail(got: Received, line_bytes: int) -> str:
    """Which output limit an ``overflow`` broke: one line, or all the bot wrote for one
    message."""
    if got.data == b"total":
        return (f"wrote more than {line_bytes} bytes without answering (blank lines and "
                "ignored lines count)")
    return f"wrote a line longer than {line_bytes} bytes"


@dataclass(frozen=True, slots=True)
class Ended:
    """How a bot process ended: a readable description (``exit code 1``, ``killed by
    SIGKILL``), the exit code when it exited, whether it ended by itself (not killed by the
    referee) and whether its memory limit killed it (where the sandbox can tell)."""

    description: str
    exit_code: int | None = None
    voluntary: bool = True
    memory_limit: bool = False


class Connection(Protocol):
    """A running bot: the referee's side of its pipes plus its process."""

    pid: int | None
    level: str

    def send(self, data: bytes) -> bool:
        """Write protocol lines; False when the bot no longer reads (its end is closed)."""
        ...

    def receive(self, deadline: float) -> Received:
        """The next line, or why there is none, by ``deadline`` (``time.monotonic``)."""
        ...

    def ended(self, wait_s: float) -> Ended | None:
        """How the process ended (waiting up to ``wait_s``), or None while it runs."""
        ...

    def stderr_text(self) -> str:
        """The bot's captured log so far."""
        ...

    def stderr_since(self, mark: int) -> tuple[str, int]:
        """The log written from byte ``mark`` on, and the mark to pass next time."""
        ...

    def shutdown(self, grace_s: float) -> Ended:
        """Close stdin, wait up to ``grace_s`` for a voluntary exit, then kill everything."""
        ...

    def kill(self) -> None:
        """Kill and reap every process of the bot at once; idempotent."""
        ...

    def kill_from_elsewhere(self) -> None:
        """End the bot from a thread other than the one using the connection: that thread's
        next read finds it closed, and its own :meth:`kill` or :meth:`shutdown` reaps it."""
        ...

    def unterminated(self) -> int:
        """Bytes the bot wrote that no newline has ended yet (0 for scripted connections)."""
        ...

    def pause(self) -> None:
        """Stop every process of the bot: it gets no CPU until :meth:`resume`."""
        ...

    def resume(self) -> None:
        """Continue every process of the bot (returns once they are)."""
        ...

    def cpu_since_pause(self) -> float | None:
        """The CPU (seconds) the bot used since :meth:`pause` stopped it: a process stops
        only when it next leaves the kernel. None when it runs, or nothing was read."""
        ...

    def dump_stack(self, wait_s: float) -> str:
        """Ask the bot's program for its stack (``SIGUSR1``, the bot continued for it if it
        is stopped, and stopped again after) and return what it logged meanwhile, read until
        the dump ends or ``wait_s`` seconds pass. Only for a bot whose ``ready`` offered it."""
        ...


#: Starts a bot: (command, workdir, limits) -> Connection; raises on a launch failure.
Launcher = Callable[[Sequence[str], Path | str, Limits], Connection]
