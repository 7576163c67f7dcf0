"""Bot starts under way, which ending every bot (:func:`arena.sandbox.process.kill_survivors`)
ends too.

A start forks and then waits until the child has exec'd the bot's command; only then is
there a bot to end. A child stuck before its exec (an at-fork hook or a lock of another
thread of the referee's, copied held into the child; a stop or a freeze) would hold the
start, and the thread that runs it, for good, and a referee ending every bot, which knows
only the bots already started, would leave it behind. :func:`end_starts` kills such a child
(so the start returns) and marks every start under way, which then ends the bot it started
and fails (:func:`starting` and :meth:`Start.check`). Outside an ending, the bot's start-up
limit does the same for a child that has not exec'd in that time (:func:`exec_deadline`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.errors import SandboxError
from arena.sandbox.procstat import stat_fields

__all__ = ["Start", "end_starts", "exec_deadline", "starting"]


@dataclass(eq=False)
class Start:
    """One start under way: the thread that forks, and its children from before."""

    thread: int
    before: frozenset[int]
    ended: bool = field(default=False)
    #: The start-up limit (ms) the child had not exec'd within, if so.
    overdue_ms: int | None = field(default=None)

    def check(self) -> None:
        """Raise :class:`SandboxError` when every bot was ended during this start, or its
        child had not exec'd within its deadline (the caller ends the bot it started)."""
        with _lock:
            if self.ended:
                raise SandboxError("cannot start the bot: every bot of this process is "
                                   "being ended")
            if self.overdue_ms is not None:
                raise SandboxError(f"cannot start the bot: its process had not run its "
                                   f"command within startup_ms ({self.overdue_ms} ms), stuck "
                                   "between its fork and its exec")


_lock = threading.Lock()
_under_way: set[Start] = set()
#: The calling thread's start under way (``start``), for :func:`exec_deadline`.
_current = threading.local()


def _children(thread: int) -> set[int]:
    """The live children of this process's thread ``thread`` (empty where the kernel does
    not list them)."""
    try:
        with open(f"/proc/self/task/{thread}/children", "rb") as f:
            return {int(pid) for pid in f.read().split()}
    except (OSError, ValueError):
        return set()


@contextlib.contextmanager
def starting() -> Iterator[Start]:
    """Register the calling thread's start for the duration of the block."""
    thread = threading.get_native_id()
    start = Start(thread, frozenset(_children(thread)))
    with _lock:
        _under_way.add(start)
    _current.start = start
    try:
        yield start
    finally:
        _current.start = None
        with _lock:
            _under_way.discard(start)


@contextlib.contextmanager
def exec_deadline(limit_ms: int) -> Iterator[None]:
    """Around the fork and exec of the calling thread's start: a child that has not exec'd
    ``limit_ms`` after the block began is killed (the start then returns), and the start
    fails. A thread of its own waits, since the starting one waits in the fork for the exec."""
    start: Start | None = getattr(_current, "start", None)
    if start is None:
        yield
        return
    timer = threading.Timer(limit_ms / 1000, _overdue, (start, limit_ms))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _overdue(start: Start, limit_ms: int) -> None:
    with _lock:
        start.overdue_ms = limit_ms
    _kill_new_children(start)


def end_starts() -> None:
    """Mark every start under way ended, and kill the child each has forked and not yet
    turned into a bot: a start stuck before its exec then returns, and fails."""
    with _lock:
        starts = list(_under_way)
        for start in starts:
            start.ended = True
    for start in starts:
        _kill_new_children(start)


def _kill_new_children(start: Start) -> None:
    for pid in _children(start.thread) - start.before:
        _kill_child(pid)


def _kill_child(pid: int) -> None:
    """SIGKILL ``pid`` if it is still a child of this process: held by a pidfd once checked,
    a number freed and reused meanwhile is never signalled."""
    try:
        pidfd = os.pidfd_open(pid)
    except (OSError, AttributeError):  # gone, or no pidfd: only a child's number is safe
        fields = stat_fields(pid)
        if fields is not None and fields[1] == str(os.getpid()):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return
    try:
        fields = stat_fields(pid)
        if fields is not None and fields[1] == str(os.getpid()):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)
