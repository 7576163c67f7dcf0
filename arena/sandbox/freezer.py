"""Freezing a bot by its cgroup (:class:`CgroupFreezer`), and telling a bot that runs on
after its freezes or stops (:class:`RunOn`, :func:`wait_until`).

A frozen or stopped process gets no CPU only once it next leaves the kernel: a bot inside a
long system call runs on, on the CPU of the bot asked meanwhile. The referee's stops by signal
(:mod:`arena.referee.pause`) share the run-on count and the wait with the freezes here; see
docs/SANDBOX.md, "CPU fairness".
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from arena.sandbox.cgroups import CPU_STAT, EVENTS, FREEZE

__all__ = ["FREEZE_WAIT_S", "FREEZING_US", "CgroupFreezer", "RunOn", "wait_until"]

log = logging.getLogger("arena.sandbox")

#: How long :meth:`CgroupFreezer.wait_frozen` yields its CPU before it polls instead.
_FREEZE_SPIN_S = 0.001
_FREEZE_POLL_S = 0.001
#: How long a freeze waits for a bot seen to run on: past any system call a bot may make
#: within its limits (populating its whole address space takes about a second).
FREEZE_WAIT_S = 10.0
#: CPU between a freeze and the next thaw that freezing alone may take, with room for a bot
#: of many waiting threads (measured: docs/SANDBOX.md, "CPU fairness").
FREEZING_US = 500
#: CPU past that, added up over a bot's freezes, that says it runs on: at once, or a call
#: shorter than that looped by a thread, caught by a few freezes.
_RUN_ON_US = 2000


class RunOn:
    """The CPU a bot used after it was frozen (or stopped) and before it was continued, added
    up where it is more than freezing takes: past a limit, the bot is inside long system
    calls at its freezes (a process freezes, or stops, when it next leaves the kernel), on the
    CPU of the bot asked meanwhile, and is waited for from then on."""

    def __init__(self) -> None:
        self.total_us = 0
        self.runs_on = False

    def add(self, used_us: float) -> bool:
        """Count one freeze's CPU; True when this one says the bot runs on (once)."""
        if self.runs_on or used_us < FREEZING_US:
            return False
        self.total_us += int(used_us)
        self.runs_on = self.total_us >= _RUN_ON_US
        return self.runs_on


def wait_until(done: Callable[[], bool], timeout_s: float) -> bool:
    """Wait until ``done()`` says a bot's processes are frozen or stopped: they get there in a
    few microseconds once they have a CPU, so it is yielded to them for a millisecond; past
    that one is inside a system call that runs on, waited for without spinning. False after
    ``timeout_s``."""
    start = time.monotonic()
    spin_until, deadline = start + _FREEZE_SPIN_S, start + timeout_s
    while not done():
        now = time.monotonic()
        if now >= deadline:
            return False
        if now < spin_until:
            os.sched_yield()
        else:
            time.sleep(_FREEZE_POLL_S)
    return True


class CgroupFreezer:
    """A bot's cgroup files, open from its launch to its end: its freeze switch, its events
    (whether it is frozen yet) and its CPU count. Without a cgroup (``cgroup`` None), or on
    a kernel without ``cgroup.freeze``, it freezes nothing and counts no CPU. ``pid`` names
    the bot in the log."""

    def __init__(self, cgroup: Path | None, pid: int) -> None:
        self._pid = pid
        self._freeze_fd = _open_cgroup_file(cgroup, FREEZE, os.O_WRONLY)
        self._events_fd = _open_cgroup_file(cgroup, EVENTS, os.O_RDONLY)
        self._cpu_fd = _open_cgroup_file(cgroup, CPU_STAT, os.O_RDONLY)
        self._frozen = False
        self._cpu_at_freeze: int | None = None
        #: Whether the bot was seen to run on after its freezes (inside long system calls):
        #: from then on each freeze waits until it is frozen.
        self._run_on = RunOn()

    @property
    def counts_cpu(self) -> bool:
        """Whether :meth:`cpu_used_us` reads the cgroup's count (the CPU of every process
        that was in it, whoever reaped it)."""
        return self._cpu_fd is not None

    @property
    def runs_on(self) -> bool:
        """Whether the bot was seen to run on after its freezes: its freezes wait for it."""
        return self._run_on.runs_on

    @property
    def frozen(self) -> bool:
        """Whether :meth:`freeze` froze the bot last (and it was not thawed since)."""
        return self._frozen

    def freeze(self, frozen: bool) -> bool:
        """Freeze every process of the bot (``frozen``), or thaw them, by its cgroup: the
        processes it forks are in it too, whatever session, group or namespace they move to,
        and none can leave it. False when the bot has no cgroup to freeze by, or the write
        failed: the caller stops the bot with signals instead."""
        if self._freeze_fd is None:
            return False
        if not frozen and self._frozen:
            self._note_running_on()
        try:
            os.write(self._freeze_fd, b"1" if frozen else b"0")
        except OSError as exc:
            log.warning("cannot %s bot %d by its cgroup: %s", "freeze" if frozen else "thaw",
                        self._pid, exc.strerror)
            return False
        self._frozen = frozen
        if frozen:
            self._cpu_at_freeze = self.cpu_used_us()
            if self.runs_on:
                if not self.wait_frozen(FREEZE_WAIT_S):
                    log.warning("bot %d was not frozen after %.0f s (a system call that runs "
                                "on); going on", self._pid, FREEZE_WAIT_S)
                # what it ran on while waited for is outside every clock: counted from here
                self._cpu_at_freeze = self.cpu_used_us()
        return True

    def _note_running_on(self) -> None:
        """Before a thaw: a bot that used more CPU since its freeze than freezing takes was
        inside a long system call (a process freezes when it next leaves the kernel), on
        the CPU of the bot asked meanwhile. Added up over its freezes, so that calls each
        shorter than the limit are seen too; once past it, its freezes wait from then on."""
        used = self.cpu_since_freeze_us()
        if used is not None and self._run_on.add(used):
            log.warning("bot %d ran on %.1f ms after its freezes (long system calls); its "
                        "freezes now wait until it is frozen", self._pid,
                        self._run_on.total_us / 1000)

    def cpu_since_freeze_us(self) -> int | None:
        """The CPU the bot used since :meth:`freeze` froze it (None when it is not frozen, or
        its cgroup tells no CPU): what it ran on, on the CPU of whoever was asked meanwhile."""
        before = self._cpu_at_freeze if self._frozen else None
        now = self.cpu_used_us() if before is not None else None
        return None if before is None or now is None else max(0, now - before)

    def cpu_used_us(self) -> int | None:
        """The CPU the bot's processes used so far (its cgroup's ``usage_usec``)."""
        if self._cpu_fd is None:
            return None
        try:
            first = os.pread(self._cpu_fd, 64, 0).split(b"\n", 1)[0]
            return int(first.split()[1]) if first.startswith(b"usage_usec") else None
        except (OSError, IndexError, ValueError):
            return None

    def wait_frozen(self, timeout_s: float) -> bool:
        """After :meth:`freeze`: wait until every process of the bot is frozen. A process
        freezes when it next leaves the kernel, so one inside a long system call (an ``mmap``
        populating a gigabyte) runs on until the call returns, on the CPU of whoever is asked
        next. False after ``timeout_s`` (True at once where there is nothing to wait for)."""
        fd = self._events_fd
        if fd is None or not self._frozen:
            return True

        def frozen() -> bool:
            try:
                return b"frozen 1" in os.pread(fd, 128, 0)
            except OSError:  # the cgroup is gone with the bot
                return True
        return wait_until(frozen, timeout_s)

    def close(self) -> None:
        """Close the cgroup's files (the bot ended: its CPU count was read)."""
        for fd in (self._freeze_fd, self._events_fd, self._cpu_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._freeze_fd = self._events_fd = self._cpu_fd = None


def _open_cgroup_file(cgroup: Path | None, name: str, mode: int) -> int | None:
    if cgroup is None:
        return None
    try:
        return os.open(cgroup / name, mode | os.O_CLOEXEC)
    except OSError:  # a kernel before cgroup.freeze (Linux 5.2): signals do it
        return None
