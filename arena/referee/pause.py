"""A bot gets the CPU only while it is asked: :func:`pause` stops every process of a bot
between its decisions (its cgroup frozen, or SIGSTOP), :func:`resume` continues them when it
is asked.

Without this, a bot's helpers that spin (each after ``setsid()``, a scheduler autogroup of
its own) take CPU from the bot that is thinking, and any bot ponders on the others' time.
docs/SANDBOX.md ("CPU fairness") says what each mechanism covers; pondering is a match option
(``ponder``), off by default.

Three mechanisms, the first that applies to the bot:

* **by cgroup** (the bot has a cgroup of its own: the ``cgroup`` layer's, or a bare one a root
  referee makes for this alone): ``cgroup.freeze`` freezes every process in it, and the
  processes a bot forks stay in its cgroup, which it cannot leave. One write each way, no
  helper, no signal: the sandbox's own processes (bubblewrap's) are not woken as a stop wakes
  them, to be told that a child stopped.
* **by uid** (a root referee, the bot under a uid of its own: the sandbox's user layer):
  ``kill(-1, sig)`` sent with the bot's uid as effective uid reaches every process that runs
  as that uid, whatever its session, process group or pid namespace, and the kernel hands a
  signal sent to many processes to the children forked meanwhile too, so nothing escapes.
  It is sent by a small helper process of the referee's (one per referee, started at the
  first pause, in a session of its own) whose real uid is one no process has (derived from
  the referee's pid, below the bots' range), so that ``kill(-1)`` reaches the bot's
  processes and nothing else, and the bots cannot signal the helper.
  A process stops when it next leaves the kernel, so the bot's CPU (its processes', found
  from its own) is read at each stop and before the next continue, as a cgroup's: a bot
  seen to run on is waited for at each later stop until every thread of it has stopped.
* **by tree** (otherwise: a referee that is not root): the bot's process group at once, then
  sweeps of ``/proc`` for its session, its descendants (under bubblewrap, those of the pid
  namespace's init: every process of the namespace) and its marker, until a sweep finds
  every one stopped. A bot that leaves its tree and scrubs its marker escapes it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field

from arena.sandbox import SandboxedProcess
from arena.sandbox.freezer import FREEZE_WAIT_S, RunOn, wait_until
from arena.sandbox.procstat import stat_fields
from arena.sandbox.reaper import find_processes
from arena.sandbox.uids import UID_BASE, UID_SPAN, is_bot_uid

__all__ = ["cpu_since_pause", "end_helper", "pause", "resume", "send_queued_stops",
           "signaller_uid"]

log = logging.getLogger("arena.referee")

#: Stops queued before they are sent without a continue to go with them.
_MAX_QUEUED = 64
#: Sweeps of the tree mechanism before it gives up (a process limit bounds the forks).
_SWEEPS = 50

#: The helper: real uid ``ruid`` (no process has it), saved uid root, effective uid switched
#: to the bot's for each ``kill(-1)``; one byte back per request, in order.
_HELPER = r"""
import os, signal, sys
base, span, ruid = (int(arg) for arg in sys.argv[1:4])
os.setresgid(ruid, ruid, ruid)
os.setgroups([])
os.setresuid(ruid, 0, 0)
pending = b""
while True:
    data = os.read(0, 65536)
    if not data:
        break
    *lines, pending = (pending + data).split(b"\n")
    for line in lines:
        uid, sig = (int(field) for field in line.split())
        if not base <= uid < base + span or sig not in (signal.SIGSTOP, signal.SIGCONT):
            sys.exit(1)
        os.setresuid(-1, uid, -1)
        try:
            os.kill(-1, sig)
        except ProcessLookupError:
            pass
        finally:
            os.setresuid(-1, 0, -1)
    os.write(1, b"k" * len(lines))  # the requests that came together, answered together
"""


def signaller_uid(pid: int | None = None) -> int:
    """The helper's real uid: below the bots' range, one per referee process (by pid)."""
    return UID_BASE - 1 - (os.getpid() if pid is None else pid)


class _Signaller:
    """The helper process, and the requests not yet acknowledged."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.unacked = 0
        self.queued: list[str] = []
        self.broken = False

    def send(self, uid: int, sig: int, *, wait: bool) -> bool:
        """Ask the helper. Without ``wait`` the request is only queued: it goes with the next
        one that waits, in the same write. With ``wait``, return once this and every earlier
        request is done. False when the helper cannot be used (the caller falls back to the
        tree)."""
        with self.lock:
            if self.broken:
                return False
            self.queued.append(f"{uid} {int(sig)}\n")
            if not wait and len(self.queued) < _MAX_QUEUED:
                return True
            return self._send_queued()

    def flush(self) -> None:
        """Send the queued requests now, if any, and wait for them."""
        with self.lock:
            if self.queued and not self.broken:
                self._send_queued()

    def _send_queued(self) -> bool:
        try:
            proc = self.proc or self._start()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write("".join(self.queued).encode())
            self.unacked += len(self.queued)
            self.queued.clear()
            while self.unacked:
                got = proc.stdout.read(self.unacked)
                if not got:
                    raise OSError("the signalling helper ended")
                self.unacked -= len(got)
            return True
        except (OSError, ValueError) as exc:
            log.warning("cannot stop bots by uid (%s); stopping them by process tree", exc)
            self.broken = True
            self._end()
            return False

    def _start(self) -> subprocess.Popen[bytes]:
        # No parent-death signal: it follows the launching thread, which may end first; the
        # helper ends at the end of its input, when the referee does. Isolated (-I): ``-c``
        # would import from the working directory first, maybe a bot's own (its signal.py),
        # as root.
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _HELPER, str(UID_BASE), str(UID_SPAN),
             str(signaller_uid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            close_fds=True, start_new_session=True, bufsize=0)
        return self.proc

    def close(self) -> None:
        """End the helper at the end of its input, waiting for it."""
        with self.lock:
            proc, self.proc = self.proc, None
            self.queued.clear()
            if proc is None:
                return
            with contextlib.suppress(OSError, ValueError):
                assert proc.stdin is not None
                proc.stdin.close()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def _end(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                proc.wait(5)


_signaller = _Signaller()


def end_helper() -> None:
    """End this referee's helper (if it started one) and reap it: a referee about to exit
    calls it, so the helper's CPU is counted with the referee's (its children's usage)."""
    _signaller.close()


def send_queued_stops() -> None:
    """Send the stops by uid still queued (each waits for the next continue) and wait for
    them: the bots paused so far are stopped when this returns."""
    _signaller.flush()


def _forked() -> None:
    """In a forked child (a worker): the helper and its pipes are the parent's."""
    global _signaller
    _signaller = _Signaller()


os.register_at_fork(after_in_child=_forked)


def _by_uid(proc: SandboxedProcess) -> int | None:
    """The bot's own uid when the by-uid mechanism applies to it."""
    uid = proc.uid
    if uid is None or os.geteuid() != 0 or not is_bot_uid(uid):
        return None
    return uid


def pause(proc: SandboxedProcess, *, by_cgroup: bool = True, by_uid: bool = True) -> None:
    """Stop every process of the bot (it gets no CPU until :func:`resume`). By cgroup, a bot
    seen to run on after a freeze (inside a long system call, on the CPU of the bot asked
    next) is waited for until it is frozen (:meth:`SandboxedProcess.freeze`)."""
    if by_cgroup and proc.freeze(True):
        return
    uid = _by_uid(proc) if by_uid else None
    if uid is None or not _stop_by_uid(proc, uid):
        _by_tree(proc, signal.SIGSTOP)


def resume(proc: SandboxedProcess, *, by_cgroup: bool = True, by_uid: bool = True) -> None:
    """Continue every process of the bot; returns once they are (and earlier pauses done)."""
    if by_cgroup and proc.frozen:
        send_queued_stops()  # a stop queued for a bot without a cgroup goes out first
        if proc.freeze(False):
            return
    uid = _by_uid(proc) if by_uid else None
    if uid is not None:
        _note_running_on(proc)
    if uid is None or not _signaller.send(uid, signal.SIGCONT, wait=True):
        _by_tree(proc, signal.SIGCONT)


def cpu_since_pause(proc: SandboxedProcess) -> float | None:
    """The CPU (seconds) the bot used since :func:`pause` stopped it, as the mechanism that
    stopped it reads it anyway: its cgroup's since the freeze, its processes' since the stop
    by uid, the processes still running when the sweeps by tree gave up. None when it is
    not stopped or nothing was read (a bot waited for until it stopped runs on no more)."""
    if proc.frozen:
        used_us = proc.cpu_since_freeze_us()
        return used_us / 1e6 if used_us is not None else None
    watch = _watched.get(proc)
    before = ((watch.cpu_at_stop if watch is not None else None)
              or _running_at_give_up.get(proc.marker))
    return _cpu_since(before) if before else None


@dataclass
class _Watch:
    """A bot stopped by uid: its CPU by process when it was last stopped, and whether it
    runs on after its stops."""

    cpu_at_stop: dict[int, float] | None = None
    run_on: RunOn = field(default_factory=RunOn)


_watched: weakref.WeakKeyDictionary[SandboxedProcess, _Watch] = weakref.WeakKeyDictionary()


def _stop_by_uid(proc: SandboxedProcess, uid: int) -> bool:
    """Stop the bot by its uid; False when the helper cannot be used."""
    watch = _watched.setdefault(proc, _Watch())
    if not watch.run_on.runs_on:
        watch.cpu_at_stop = _cpu_by_process(proc)
        # Queued: it goes in one write with the next request that waits (the continue of the
        # bot asked next), which is answered only once both are done.
        return _signaller.send(uid, signal.SIGSTOP, wait=False)
    if not _signaller.send(uid, signal.SIGSTOP, wait=True):
        return False
    if not _wait_stopped(proc, FREEZE_WAIT_S):
        log.warning("bot %d was not stopped after %.0f s (a system call that runs on); going "
                    "on", proc.pid, FREEZE_WAIT_S)
    return True


def _note_running_on(proc: SandboxedProcess) -> None:
    """Before a continue by uid: the CPU the bot used since its stop, as a frozen bot's."""
    watch = _watched.get(proc)
    if watch is None or watch.cpu_at_stop is None:
        return
    before, watch.cpu_at_stop = watch.cpu_at_stop, None
    if watch.run_on.add(_cpu_since(before) * 1e6):
        log.warning("bot %d ran on %.1f ms after its stops (long system calls); its stops "
                    "now wait until it is stopped", proc.pid, watch.run_on.total_us / 1000)


def _wait_stopped(proc: SandboxedProcess, timeout_s: float) -> bool:
    """Wait until every thread of the bot is stopped (:func:`wait_until`)."""
    return wait_until(lambda: all(_threads_stopped(pid) for pid in _bot_processes(proc)),
                      timeout_s)


def _bot_processes(proc: SandboxedProcess) -> set[int]:
    """Every process of the bot, found from its own without reading all of ``/proc``: its
    descendants (under bubblewrap every process of its pid namespace, whose init adopts the
    orphans) and, without bubblewrap, the orphans the referee adopted (their subreaper) that
    run as its uid."""
    roots = {proc.pid}
    ns_pid = proc.namespace_pid()
    if ns_pid:
        roots.add(ns_pid)
    else:
        roots.update(pid for pid in _children(os.getpid()) if _owner(pid) == proc.uid)
    found: set[int] = set()
    while roots:
        pid = roots.pop()
        if pid not in found:
            found.add(pid)
            roots.update(_children(pid))
    return found


def _children(pid: int) -> list[int]:
    children: list[int] = []
    for task in _tasks(pid):
        with contextlib.suppress(OSError, ValueError):
            with open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                children.extend(int(child) for child in f.read().split())
    return children


def _tasks(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/task")
    except OSError:  # gone
        return []


def _owner(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def _cpu_by_process(proc: SandboxedProcess) -> dict[int, float]:
    """The CPU each process of the bot used so far, in seconds (its CPU clock: every thread's,
    to the nanosecond, where ``/proc``'s counts are in hundredths of a second)."""
    return _cpu_of(_bot_processes(proc))


def _cpu_of(pids: Iterable[int]) -> dict[int, float]:
    used: dict[int, float] = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            used[pid] = time.clock_gettime(_process_cpu_clock(pid))
    return used


def _cpu_since(before: dict[int, float]) -> float:
    """The CPU (seconds) the processes of ``before`` used since it was read, those gone
    left out. Only the processes found then: stopped ones do not fork (and a search of
    ``/proc`` costs twice the read)."""
    return sum(cpu - before[pid] for pid, cpu in _cpu_of(before).items())


def _process_cpu_clock(pid: int) -> int:
    """The id of the CPU clock of process ``pid`` (the kernel's ``MAKE_PROCESS_CPUCLOCK``
    with the scheduler's clock), which ``clock_getcpuclockid`` would give."""
    return ((~pid) << 3) | 2


#: What the tree mechanism stopped, by bot marker: what it continues (no sweep needed).
_stopped_by_tree: dict[str, set[int]] = {}
#: By bot marker, the CPU of the processes the sweeps found still running when they gave up:
#: they run on, on the CPU of the bot asked next (read only then: nothing to read otherwise).
_running_at_give_up: dict[str, dict[int, float]] = {}


def _by_tree(proc: SandboxedProcess, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.sid, sig)
    if sig == signal.SIGCONT:  # stopped processes neither fork nor move: the same ones
        _running_at_give_up.pop(proc.marker, None)
        _signal_each(_stopped_by_tree.pop(proc.marker, set()), sig)
        return
    roots = [proc.pid]
    ns_pid = proc.namespace_pid()
    if ns_pid:
        roots.append(ns_pid)
    stopped = _stopped_by_tree.setdefault(proc.marker, set())
    for _ in range(_SWEEPS):
        pids = find_processes(marker=proc.marker, sid=proc.sid, pgid=proc.sid,
                              descendants_of=roots, include_zombies=False)
        stopped.update(pids)
        running = [pid for pid in pids if not _threads_stopped(pid)]
        _signal_each(running, sig)
        if not running:
            return
    _running_at_give_up[proc.marker] = _cpu_of(running)


def _signal_each(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _threads_stopped(pid: int) -> bool:
    """Whether every thread of ``pid`` is stopped (or gone): each stops when it next leaves
    the kernel, the first one not the last."""
    return all(_stopped(pid, int(task)) for task in _tasks(pid))


def _stopped(pid: int, thread: int) -> bool:
    """Whether thread ``thread`` of ``pid`` is stopped (or gone)."""
    fields = stat_fields(pid, thread)
    return not fields or fields[0] in ("T", "t", "Z", "X")
