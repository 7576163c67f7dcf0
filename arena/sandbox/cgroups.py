"""A bot's own cgroup v2 directory, made and removed: with limits (memory.max, pids.max) where
the ``cgroup`` layer is active, else bare, only to be frozen between the bot's decisions
(``cgroup.freeze``: docs/SANDBOX.md, "CPU fairness")."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import time
from pathlib import Path

from arena.sandbox import reaper
from arena.sandbox.limits import MIB, Limits

__all__ = ["CPU_STAT", "EVENTS", "FREEZE", "bots_cgroup_parent", "can_freeze", "make_cgroup",
           "own_v2_cgroup", "remove_cgroup", "sweep_dead_cgroups", "v2_cgroup_of_self"]

log = logging.getLogger("arena.sandbox")


#: The file that freezes every process of a cgroup (``1``) and thaws them (``0``).
FREEZE = "cgroup.freeze"
#: Says ``frozen 1`` once every process of a cgroup told to freeze is frozen.
EVENTS = "cgroup.events"
#: The CPU a cgroup's processes used (``usage_usec``), kept with or without the cpu controller.
CPU_STAT = "cpu.stat"


def make_cgroup(parent: Path, marker: str, limits: Limits | None) -> Path:
    """The bot's cgroup under ``parent``; ``limits`` None: a bare one (no controllers). Its
    name holds this process's pid, so that what a referee killed without warning left is
    found (:func:`sweep_dead_cgroups`)."""
    _sweep_once(parent)
    path = parent / f"arena-{os.getpid()}-{marker}"
    path.mkdir(mode=0o755)
    if limits is None:
        return path
    (path / "memory.max").write_text(str(limits.memory_mb * MIB))
    with contextlib.suppress(OSError):
        (path / "memory.swap.max").write_text("0")
    (path / "pids.max").write_text(str(limits.processes))
    return path


def sweep_dead_cgroups(parent: Path) -> list[Path]:
    """Remove the bots' cgroups under ``parent`` whose referee is gone; return them. Its bots
    died with it, but not what they forked (the kernel's parent-death signal ends only the
    referee's own child): those processes cannot leave the bot's cgroup, so they are killed
    with it (also when a process that started after them took the referee's pid), unless
    one of them lies outside this process's pid namespace (listed as pid 0: the cgroup is
    another container's referee's, whose pid means nothing here)."""
    removed = []
    for path in parent.glob("arena-*-*"):
        owner = path.name.split("-")[1]
        if not owner.isdigit():
            continue
        try:
            members = (path / "cgroup.procs").read_text().split()
        except OSError:
            continue
        if "0" in members or _owned_by_a_live_referee(int(owner), members):
            continue
        remove_cgroup(path)
        if not path.exists():
            removed.append(path)
    return removed


def _owned_by_a_live_referee(owner: int, members: list[str]) -> bool:
    """Whether referee ``owner`` runs: a process that took its number since started after
    the processes of its bot's cgroup."""
    if not members:
        return reaper.is_alive(owner)
    return any(reaper.may_have_started(owner, int(pid)) for pid in members if pid.isdigit())


_swept: set[Path] = set()


def _sweep_once(parent: Path) -> None:
    if parent not in _swept:
        _swept.add(parent)
        sweep_dead_cgroups(parent)


def remove_cgroup(path: Path | None) -> None:
    if path is None:
        return
    for _ in range(100):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                break
            _kill_members(path)
            time.sleep(0.01)
    log.warning("could not remove cgroup %s", path)


def _kill_members(path: Path) -> None:
    """SIGKILL every process of the cgroup: at once by ``cgroup.kill`` (Linux 5.14), else one
    by one (a process forked meanwhile is caught by the caller's next try)."""
    try:
        (path / "cgroup.kill").write_text("1")
        return
    except OSError:
        pass
    with contextlib.suppress(OSError):
        for pid in (path / "cgroup.procs").read_text().split():
            if pid != "0":
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)


def own_v2_cgroup() -> str | None:
    """This process's cgroup in the cgroup v2 hierarchy, as ``/proc/self/cgroup`` names it
    (``/`` for the root), or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    return next((line[3:] for line in lines if line.startswith("0::")), None)


def v2_cgroup_of_self() -> Path | None:
    """This process's own directory in the cgroup v2 hierarchy, wherever that is mounted
    (``/sys/fs/cgroup``, or ``/sys/fs/cgroup/unified`` beside cgroup v1), or None."""
    own = own_v2_cgroup()
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    if own is None:
        return None
    for line in mounts:
        fields = line.split()
        if "-" not in fields:
            continue
        tail = fields[fields.index("-") + 1:]
        # Only a mount of the hierarchy's root: another root would shift every path.
        if tail and tail[0] == "cgroup2" and fields[3] == "/":
            return Path(fields[4]) / own.lstrip("/")
    return None


def can_freeze(parent: Path) -> str | None:
    """Why a bot's cgroup under ``parent`` could not be frozen, or None when it can (a
    trial cgroup is made, frozen, thawed and removed)."""
    trial = parent / f"arena-freeze-check-{os.getpid()}"
    try:
        trial.mkdir(mode=0o755)
    except OSError as exc:
        return f"cannot make a cgroup in {parent}: {exc.strerror}"
    try:
        for value in ("1", "0"):
            (trial / FREEZE).write_text(value)
        return None
    except OSError as exc:
        return f"cannot freeze a cgroup in {parent}: {exc.strerror}"
    finally:
        with contextlib.suppress(OSError):
            trial.rmdir()


def bots_cgroup_parent() -> tuple[Path | None, bool | str]:
    """A cgroup v2 directory under which each bot may get its own cgroup, or why not."""
    explicit = os.environ.get("ARENA_CGROUP")
    if explicit:
        parent = Path(explicit)
    else:
        root = Path("/sys/fs/cgroup")
        if (root / "unified" / "cgroup.controllers").exists():  # hybrid: v1 has them
            return None, ("hybrid cgroups: v2 has no memory or pids controller (bots are "
                          "frozen, not limited); set ARENA_CGROUP to a delegated cgroup v2 "
                          "directory")
        if not (root / "cgroup.controllers").exists():
            return None, ("no cgroup v2 hierarchy at /sys/fs/cgroup (cgroup v1); "
                          "set ARENA_CGROUP to a delegated cgroup v2 directory")
        own = own_v2_cgroup()
        if own != "/":
            return None, (f"the referee's cgroup {own or '?'} is not delegated to it; "
                          "set ARENA_CGROUP to a delegated cgroup v2 directory")
        parent = root
    try:
        enabled = (parent / "cgroup.subtree_control").read_text().split()
    except OSError as exc:
        return None, f"cannot read {parent}/cgroup.subtree_control: {exc.strerror}"
    missing = [c for c in ("memory", "pids") if c not in enabled]
    if missing:
        return None, f"controller(s) {', '.join(missing)} not enabled in {parent}"
    if not os.access(parent, os.W_OK):
        return None, f"{parent} is not writable"
    return parent, True
