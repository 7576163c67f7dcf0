"""A bot frozen between its decisions must not run on, on the CPU of the bot asked next
(docs/SANDBOX.md, "CPU fairness"): a process freezes (or stops) only when it next leaves the
kernel, so the system calls that run longest are refused, and a bot seen to run on is waited
for."""

from __future__ import annotations

import errno
import json

import pytest
from sandbox_support import STARTUP_S, drops_privileges, has

from arena.protocol.transport import Line
from arena.sandbox import SandboxReport


def test_memory_is_neither_populated_nor_collapsed_in_one_long_call(
        run_hostile, report: SandboxReport) -> None:
    """Memory populated at once (``MAP_POPULATE``, ``MADV_POPULATE_*``) took about 250 ms a
    GiB in one call, and a range collapsed into huge pages (``MADV_COLLAPSE``, also through
    ``process_madvise``) 2 s a GiB: a bot that started one as it answered ran on after its
    freeze, 108 ms of the next bot's 300 ms turn, and every later pause waited for it. Under
    seccomp they fail (the advice as on a kernel before it); with ``MAP_NONBLOCK`` the kernel
    populates nothing, so that mapping still works."""
    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("populating_calls.py")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    assert json.loads(got.data) == {
        "map_populate": errno.EPERM, "map_populate_nonblock": 0,
        "madv_populate_read": errno.EINVAL, "madv_populate_write": errno.EINVAL,
        "madv_collapse": errno.EINVAL, "process_madvise": errno.EPERM}


def test_no_memory_is_locked(run_hostile, report: SandboxReport) -> None:
    """Locking memory populates it in the same call (``mlock``, ``mlockall``, ``MAP_LOCKED``),
    up to the locked-memory limit the referee passed on: 8 MiB here, any (unlimited included)
    for a root referee, where it takes as long as ``MAP_POPULATE``. The limit is 0 in every
    mode: the calls fail as for any process not allowed to lock memory (EPERM)."""
    if not drops_privileges(report):
        pytest.skip("a bot running as root may lock memory whatever its limit")
    bot = run_hostile("locked_memory.py")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    assert json.loads(got.data) == dict.fromkeys(("mlock", "mlockall", "map_locked"),
                                                 errno.EPERM)
