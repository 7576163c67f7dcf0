"""A bot start stuck between its fork and its exec, on demand (:func:`stuck_start`).

The test process registers one at-fork hook; armed, it has the child say its pid and then
wait on a lock that another thread of the parent held at the fork, which no thread of the
child will release: what a lock or an at-fork hook of a referee full of threads can do.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from arena.errors import SandboxError
from arena.sandbox import SandboxedProcess
from arena.sandbox.procstat import stat_fields

_armed: list[Any] = []


def _stuck_after_fork() -> None:
    if _armed:
        fd, lock = _armed
        os.write(fd, str(os.getpid()).encode())
        lock.acquire()


os.register_at_fork(after_in_child=_stuck_after_fork)


class StuckStart:
    """The armed trap: :meth:`start` runs a bot's start, :meth:`child` waits for its child
    stuck in the hook."""

    def __init__(self) -> None:
        self.told, self.tell = os.pipe()
        self.pid = 0

    def start(self, launching: Callable[[], SandboxedProcess]) -> tuple[threading.Thread,
                                                                         list[str]]:
        """Run ``launching`` (a bot's start) in a thread of its own; its outcome, once it
        ends: ``started`` (the bot then ended), or the start's error."""
        outcome: list[str] = []

        def run() -> None:
            try:
                launching().kill_all()
                outcome.append("started")
            except SandboxError as exc:
                outcome.append(str(exc))
            finally:
                os.write(self.tell, b" ")  # a start that never forked into the hook

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread, outcome

    def child(self) -> int:
        """The pid of the child stuck in the hook (0: the start ended without one); the
        process's later forks go on."""
        said = os.read(self.told, 64).split()
        _armed.clear()
        self.pid = int(said[0]) if said and said[0].isdigit() else 0
        return self.pid


@contextlib.contextmanager
def stuck_start() -> Iterator[StuckStart]:
    """Arm the trap for the block: the next child forked with the at-fork hooks (a bot's
    start, whose ``preexec_fn`` runs them) stays stuck before its exec. On leaving, a child
    still there is killed, so that no start stays stuck."""
    held = threading.Lock()
    held.acquire()
    trap = StuckStart()
    _armed[:] = [trap.tell, held]
    try:
        yield trap
    finally:
        _armed.clear()
        held.release()
        fields = stat_fields(trap.pid) if trap.pid else None
        if fields is not None and fields[1] == str(os.getpid()):  # still ours, unreaped
            with contextlib.suppress(OSError):
                os.kill(trap.pid, signal.SIGKILL)
        os.close(trap.told)
        os.close(trap.tell)
