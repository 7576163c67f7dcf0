"""Find, kill and reap every process a bot started, wherever it went.

A bot can leave its process group (``setpgid``), its session (``setsid``) and its parent
(double fork). What still ties those processes to the bot, from strongest to weakest:

* the pid namespace (bubblewrap): killing the namespace's init kills everything in it;
* a marker in the environment (``ARENA_SANDBOX=<token>``), inherited unless the bot scrubs it;
* the session, the process group, and the parent links at the time of the sweep;
* failing all of these, being an orphan adopted by the referee and running as the bot user:
  when the last running bot of a referee ends, every such orphan is killed (only when bots run
  as a uid of their own, so nothing the referee started itself can be mistaken for one).

If the referee itself is killed (``kill -9``, the OOM killer), nothing of this runs: the bot's
direct child of the referee then gets SIGKILL from the kernel (``PR_SET_PDEATHSIG``, set between
fork and exec by :func:`parent_death_setter`), and bubblewrap's ``--die-with-parent`` takes the
whole pid namespace with it.

The referee makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``) so orphans are reparented
to it rather than to init: it can then reap them, so no zombie outlives a match. Only zombies
that belong to no session of the referee's own are reaped here, and never a pid a live
:class:`~arena.sandbox.launcher.SandboxedProcess` still waits for, so ``subprocess`` objects of
the referee's own keep their exit statuses.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.sandbox.procstat import start_time, stat_fields

__all__ = [
    "ENV_MARKER",
    "ProcInfo",
    "adopted_orphans",
    "become_subreaper",
    "find_processes",
    "is_alive",
    "kill_tree",
    "may_have_made",
    "may_have_started",
    "parent_death_setter",
    "processes_of_uid",
    "reap_adopted",
    "register_child",
    "unregister_child",
]

#: Environment variable carrying each sandbox's unique marker token.
ENV_MARKER = "ARENA_SANDBOX"

_PR_SET_CHILD_SUBREAPER = 36
_lock = threading.Lock()
_subreaper: bool | None = None
_own_children: set[int] = set()


def _prctl() -> Any:
    """libc's ``prctl`` (None without it), looked up once."""
    global _prctl_function
    if _prctl_function is None:
        try:
            _prctl_function = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl_function = False
    return _prctl_function or None


_prctl_function: Any = None


def become_subreaper() -> bool:
    """Make this process a child subreaper (once); False when the kernel refuses."""
    global _subreaper
    with _lock:
        if _subreaper is None:
            prctl = _prctl()
            _subreaper = prctl is not None and prctl(
                _PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), ctypes.c_ulong(0),
                ctypes.c_ulong(0), ctypes.c_ulong(0)) == 0
        return _subreaper


_PR_SET_PDEATHSIG = 1


def parent_death_setter() -> Callable[[], None] | None:
    """A function for the child between fork and exec: it asks the kernel for SIGKILL when the
    launching thread ends, so a bot does not outlive a referee killed without a chance to end
    it (the signal follows the thread, as bubblewrap's ``--die-with-parent`` does). To be
    called after the change of uid, which clears the setting; exec keeps it. A referee that
    died during the fork is caught by the parent check after it. None without ``prctl``."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()
    getppid, exit_now = os.getppid, os._exit
    kill, zero = ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0)

    def set_parent_death() -> None:
        prctl(_PR_SET_PDEATHSIG, kill, zero, zero, zero)
        if getppid() != parent:
            exit_now(1)

    return set_parent_death


def register_child(pid: int) -> None:
    """Mark ``pid`` as waited for by its owner (never reaped by :func:`reap_adopted`)."""
    with _lock:
        _own_children.add(pid)


def unregister_child(pid: int) -> None:
    with _lock:
        _own_children.discard(pid)


@dataclass(frozen=True)
class ProcInfo:
    """The fields of ``/proc/<pid>/stat`` and ``status`` that the sweeps need."""

    pid: int
    state: str
    ppid: int
    pgid: int
    sid: int
    uid: int


def _info(pid: int) -> ProcInfo | None:
    fields = stat_fields(pid)
    if fields is None:
        return None
    uid = -1
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for raw in f:
                if raw.startswith(b"Uid:"):
                    uid = int(raw.split()[1])
                    break
    except (OSError, ValueError):
        return None
    try:
        return ProcInfo(pid, fields[0], int(fields[1]), int(fields[2]), int(fields[3]), uid)
    except (IndexError, ValueError):
        return None


def _all_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _has_marker(pid: int, marker: str) -> bool:
    needle = marker.encode()
    env_needle = f"{ENV_MARKER}={marker}".encode()
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                data = f.read()
        except OSError:
            continue
        if (env_needle if name == "environ" else needle) in data:
            return True
    return False


def find_processes(*, marker: str | None = None, sid: int | None = None,
                   pgid: int | None = None, uid: int | None = None,
                   descendants_of: Iterable[int] = (), include_zombies: bool = True) -> list[int]:
    """Pids (never this process) matching any given criterion.

    ``marker`` matches the command line or the ``ARENA_SANDBOX`` environment entry;
    ``descendants_of`` follows parent links from the given pids.
    """
    me = os.getpid()
    infos = {pid: info for pid in _all_pids() if pid != me and (info := _info(pid)) is not None}
    found = _descendants(infos, set(descendants_of))
    for info in infos.values():
        if (sid is not None and info.sid == sid) or (pgid is not None and info.pgid == pgid) \
                or (uid is not None and info.uid == uid):
            found.add(info.pid)
        elif marker is not None and info.pid not in found and _has_marker(info.pid, marker):
            found.add(info.pid)
    if not include_zombies:
        found = {pid for pid in found if infos[pid].state not in ("Z", "X")}
    return sorted(found)


def _descendants(infos: dict[int, ProcInfo], roots: set[int]) -> set[int]:
    """The processes of ``infos`` that descend from ``roots`` by parent links, with the roots
    that are among them."""
    found: set[int] = set()
    if not roots:
        return found
    children: dict[int, list[int]] = {}
    for info in infos.values():
        children.setdefault(info.ppid, []).append(info.pid)
    stack = [pid for root in roots for pid in children.get(root, [])]
    stack += [root for root in roots if root in infos]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, []))
    return found


def adopted_orphans(uid: int) -> list[int]:
    """Live children of this process running as ``uid`` (the bot user) that it did not start
    itself: orphans of bots that the subreaper inherited."""
    me = os.getpid()
    own_sid = os.getsid(0)
    with _lock:
        protected = set(_own_children)
    found = []
    for pid in _all_pids():
        info = _info(pid)
        if info is not None and info.ppid == me and info.sid != own_sid and info.uid == uid \
                and info.state not in ("Z", "X") and pid not in protected:
            found.append(pid)
    return found


def processes_of_uid(uid: int) -> int:
    """How many processes ``uid`` owns now (RLIMIT_NPROC counts them all)."""
    count = 0
    for pid in _all_pids():
        info = _info(pid)
        if info is not None and info.uid == uid:
            count += 1
    return count


def kill_tree(*, root: int | None = None, sid: int | None = None, pgid: int | None = None,
              marker: str | None = None, extra: Iterable[int] = (), rounds: int = 50) -> set[int]:
    """SIGKILL every process tied to a bot until a sweep finds none alive; return the pids.

    Sweeps repeat because a process may fork between being found and being killed; the
    bot's process limit bounds how long that can go on.
    """
    killed: set[int] = set()
    pending = {pid for pid in extra if pid > 0}
    if pgid is not None and pgid > 1:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    for attempt in range(rounds):
        found = set(find_processes(marker=marker, sid=sid, pgid=pgid,
                                   descendants_of=[root] if root else (),
                                   include_zombies=False))
        alive = (found | pending) - {os.getpid()}
        pending = set()
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        if attempt:
            time.sleep(0.001 * attempt)
    return killed


def reap_adopted(extra: Iterable[int] = (), wait_s: float = 0.0,
                 cpu_of: dict[int, float] | None = None) -> list[int]:
    """Reap zombie children adopted from bots (see the module docstring); return their pids.

    ``extra`` names pids just killed: those that are still our children are waited for up to
    ``wait_s`` seconds, because SIGKILL is delivered asynchronously. ``cpu_of`` is given the
    CPU seconds (user + system, their reaped descendants' included) of each of them reaped.
    """
    me = os.getpid()
    own_sid = os.getsid(0)
    with _lock:
        protected = set(_own_children)
    asked = set(extra)
    waiting = asked - protected
    reaped: list[int] = []
    deadline = time.monotonic() + wait_s
    while True:
        candidates = set(waiting)
        for pid in _all_pids():
            info = _info(pid)
            if info is not None and info.ppid == me and info.state == "Z" \
                    and info.sid != own_sid:
                candidates.add(pid)
        for pid in sorted(candidates - protected):
            try:
                done, _status, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:
                waiting.discard(pid)
                continue
            if done:
                if cpu_of is not None and pid in asked:
                    cpu_of[pid] = usage.ru_utime + usage.ru_stime
                reaped.append(pid)
                waiting.discard(pid)
        waiting = {pid for pid in waiting if (info := _info(pid)) is not None and info.ppid == me}
        if not waiting or time.monotonic() >= deadline:
            return reaped
        time.sleep(0.002)


def may_have_started(owner: int, pid: int) -> bool:
    """Whether process ``owner`` runs and may be the referee of process ``pid`` (a bot's, or
    what it forked): a referee starts before its bots, and a process that took a dead
    referee's number (a busy machine soon reuses one) after them. Unknown start times count
    as the referee, so that nothing of a live one is touched."""
    if not is_alive(owner):
        return False
    born, pid_born = start_time(owner), start_time(pid)
    if born is None or pid_born is None or not (born.isdigit() and pid_born.isdigit()):
        return True
    return int(born) < int(pid_born)


#: How far a file's time may lag behind the start time ``/proc`` gives its maker (a file
#: system's coarse clock, another machine's clock on a network mount, a clock set since).
_FILE_TIME_SLACK_S = 1.0


def may_have_made(owner: int, path: Path) -> bool:
    """Whether process ``owner`` runs and may have made ``path`` (a file or directory named
    by its number): its maker started before it, and a process that took a dead maker's
    number (a busy machine soon reuses one) after it last changed. An unknown start time
    counts as the maker's, so that nothing of a live one is taken."""
    if not is_alive(owner):
        return False
    born = start_time(owner)
    try:
        made = path.lstat().st_mtime
    except OSError:
        return False
    if born is None or not born.isdigit():
        return True
    since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    started = time.time() - since_boot + int(born) / os.sysconf("SC_CLK_TCK")
    return started <= made + _FILE_TIME_SLACK_S


def is_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one this process may not signal counts too). A
    number no process id can be (read from a name anyone may give a file) is not alive."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except OSError:
        return True
    return True
