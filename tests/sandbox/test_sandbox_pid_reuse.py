"""A bot that exited by itself under bubblewrap leaves an orphaned init, the referee's to reap:
the end of another bot leaves it to its own bot's end, which counts its CPU; and should
anything else reap it, that end touches no process the kernel gave its number to since
(once its numbers wrap)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path

import pytest
from sandbox_support import STARTUP_S

from arena.protocol.transport import Line, SubprocessTransport
from arena.sandbox import SandboxedProcess, launch, probe
from arena.sandbox.procstat import stat_fields

#: Says it runs, then exits by itself, as a bot does after ``bye``.
QUICK = "print('up', flush=True)\n"
#: Where the kernel takes the number of the next process from (root of the pid namespace).
LAST_PID = Path("/proc/sys/kernel/ns_last_pid")


def _started_as(pid: int, tries: int = 50) -> subprocess.Popen[bytes] | None:
    """A process of this test's own started under number ``pid`` (free again), or None when
    another process on the machine kept taking it first."""
    for _ in range(tries):
        LAST_PID.write_text(str(pid - 1))
        bystander = subprocess.Popen(["sleep", "60"])
        if bystander.pid == pid:
            return bystander
        bystander.kill()
        bystander.wait()
    return None


def _exited_by_itself(tmp_path: Path) -> tuple[SandboxedProcess, int]:
    """A bot launched under bubblewrap that exited by itself, and its init's host pid."""
    report = probe()
    if not report.active("bwrap"):
        pytest.skip("needs bubblewrap")
    (tmp_path / "bot.py").write_text(QUICK)
    proc = launch(["python3", "bot.py"], workdir=tmp_path, report=report)
    got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
    assert isinstance(got, Line), (got, proc.stderr_text())
    assert proc.wait(STARTUP_S) == 0
    init = proc.namespace_pid()
    assert init is not None
    return proc, init


def test_the_end_of_another_bot_leaves_an_exited_bots_init_to_its_own(tmp_path: Path) -> None:
    proc, init = _exited_by_itself(tmp_path)
    fields = stat_fields(init)
    if fields is None or fields[1] != str(os.getpid()):
        proc.kill_all()
        pytest.skip("this bubblewrap reaps its init itself")
    other = launch(["python3", "bot.py"], workdir=tmp_path, report=probe())
    other.kill_all()  # reaps the orphans the referee adopted, but not another bot's init
    assert stat_fields(init) is not None
    proc.kill_all()
    assert stat_fields(init) is None


def test_a_bot_that_exited_leaves_alone_the_process_that_took_its_inits_number(
        tmp_path: Path) -> None:
    if os.geteuid() != 0 or not os.access(LAST_PID, os.W_OK):
        pytest.skip("needs a root referee that may choose the next pid")
    proc, init = _exited_by_itself(tmp_path)
    with contextlib.suppress(ChildProcessError):  # where bubblewrap has not reaped it
        os.waitpid(init, 0)  # reaped by other code of the referee's process: its number free
    bystander = _started_as(init)
    if bystander is None:
        proc.kill_all()
        pytest.skip(f"pid {init} kept being taken by another process")
    try:
        proc.kill_all()
        time.sleep(0.05)
        assert bystander.poll() is None, "the referee killed a process that was not the bot's"
        assert proc.cpu_seconds is not None
    finally:
        bystander.kill()
        bystander.wait()
