"""Leftovers of referees that died without ending their bots: kill them, remove their boxes."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import tempfile
from pathlib import Path

from arena.sandbox import reaper
from arena.sandbox.leftovers import sweep_dead_uids
from arena.sandbox.uids import UID_BASE, UID_SPAN
from arena.sandbox.workdir import remove_tree

__all__ = ["kill_strays", "sweep_once"]

_swept = False


def sweep_once() -> None:
    """Clean up after referees that died without doing it (once per process): kill what
    still runs in their sandboxes (:func:`kill_strays`), remove what their bots left in
    shared places (:func:`~arena.sandbox.leftovers.sweep_dead_uids`), then their private
    directories, ``arena-box-<pid>-*`` and ``arena-kit-<pid>-*`` whose pid is gone, or was
    taken since by a process that started after the directory was made."""
    global _swept
    if _swept:
        return
    _swept = True
    kill_strays()
    sweep_dead_uids()
    for path in Path(tempfile.gettempdir()).glob("arena-[bk][oi][xt]-*-*"):
        owner = path.name.split("-")[2]
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            # lstat: anyone may put a link of that name in /tmp, to a tree of ours
            st = path.lstat()
            if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() \
                    and not reaper.may_have_made(int(owner), path):
                remove_tree(path)


#: A referee's private directory in a path: its pid is the group.
_OWNED_PATH = re.compile(rb"/arena-(?:box|kit)-([0-9]+)-")


def kill_strays() -> list[int]:
    """SIGKILL the processes of sandboxes whose referee died without ending them; return
    their pids. A referee killed at the wrong moment of a bot's start-up can leave
    bubblewrap's namespace init behind (it sets its own parent-death signal only once it
    runs). A stray is a process of a bot user (of the referee's own user when bots run as
    it) whose working directory, or bubblewrap command line, names a box or kit of a pid
    that is gone. A busy machine soon gives a dead referee's pid to another process: one
    that started after the stray is not its referee
    (:func:`~arena.sandbox.reaper.may_have_started`)."""
    me, euid = os.getpid(), os.geteuid()
    bot_uids = range(UID_BASE, UID_BASE + UID_SPAN)
    killed = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            uid = os.stat(f"/proc/{name}").st_uid
            if uid not in bot_uids and (euid == 0 or uid != euid):
                continue
            where = os.readlink(f"/proc/{name}/cwd").encode()
            argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        owners = set(_OWNED_PATH.findall(where))
        bwrap = bool(argv) and argv[0].endswith(b"bwrap")
        if bwrap:
            owners.update(*(_OWNED_PATH.findall(arg) for arg in argv))
        if not owners or any(reaper.may_have_started(int(owner), int(name))
                             for owner in owners):
            continue
        if uid not in bot_uids and not bwrap and not _marked(name):
            continue  # the referee's own user: a shell left in a box is not a bot
        with contextlib.suppress(OSError):
            os.kill(int(name), signal.SIGKILL)
            killed.append(int(name))
    return killed


def _marked(pid: str) -> bool:
    """Whether the process carries a sandbox marker in its environment."""
    try:
        return (reaper.ENV_MARKER.encode() + b"=") in Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False

