"""A process's (or a thread's) ``/proc/<pid>/stat``, read past its command name.

The line is ``pid (comm) state ppid pgrp session ...``, and ``comm`` is the process's own to
choose: it may hold spaces and parentheses, ``) (`` among them. Only the last ``)`` on the
line closes it, so the fields are split after that one.
"""

from __future__ import annotations

import os

__all__ = ["cpu_seconds", "start_time", "stat_fields"]


def stat_fields(pid: int, thread: int | None = None) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (of thread ``thread`` of
    ``pid``: ``/proc/<pid>/task/<thread>/stat``), or None when it is gone.

    ``[0]`` is the state (one letter), ``[1]`` the parent, ``[2]`` the process group, ``[3]``
    the session, ``[19]`` the start time in clock ticks since boot: ``proc(5)``'s fields
    numbered from 3.
    """
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    try:
        with open(path, "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2:].decode(errors="replace").split()


def cpu_seconds(pid: int) -> float | None:
    """The CPU (user + system seconds, to the clock tick) process ``pid`` used so far, with
    that of the children it reaped; None when it is gone."""
    fields = stat_fields(pid)
    try:
        ticks = sum(int(field) for field in fields[11:15]) if fields else None
    except ValueError:
        return None
    return None if ticks is None else ticks / os.sysconf("SC_CLK_TCK")


def start_time(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, as ``/proc`` writes it), or None
    when it is gone: a number and its start time name one process, whatever reuses the
    number later."""
    fields = stat_fields(pid)
    return fields[19] if fields is not None and len(fields) > 19 else None
