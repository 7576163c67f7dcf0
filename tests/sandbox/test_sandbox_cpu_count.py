"""A bot's CPU, counted whole once it is ended: every process of it, the sandbox's own too,
with and without a cgroup to count by, whether it exited or was killed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from sandbox_support import STARTUP_S, assert_nothing_left

from arena.protocol.transport import Line, SubprocessTransport
from arena.sandbox import SandboxReport, launch, probe

#: Burns some CPU, says how much its own process used, then exits or waits to be killed.
BURNER = """
import sys, time
began = time.process_time()
while time.process_time() - began < 0.2:
    pass
print(time.process_time(), flush=True)
if sys.argv[1:] == ["exit"]:
    sys.exit(0)
time.sleep(3600)
"""

#: What the bot's CPU is counted by in each: a cgroup where the probe gives bots one, the
#: rusage of what the referee reaps where it does not (bubblewrap's processes in between).
MODES = {
    "probed": (),
    "no-cgroup": ("cgroup",),
    "no-bwrap": ("bwrap",),
    "bare": ("bwrap", "landlock", "seccomp", "cgroup"),
}


@pytest.fixture(scope="module")
def reports() -> dict[str, SandboxReport]:
    return {name: probe(disable=off) if off else probe() for name, off in MODES.items()}


@pytest.mark.parametrize("ending", ["exit", "killed"])
@pytest.mark.parametrize("mode", list(MODES))
def test_a_bots_cpu_is_counted_whole_once_it_is_ended(
        tmp_path: Path, reports: dict[str, SandboxReport], mode: str, ending: str) -> None:
    report = reports[mode]
    (tmp_path / "bot.py").write_text(BURNER)
    proc = launch(["python3", "bot.py", ending], workdir=tmp_path, report=report)
    got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
    assert isinstance(got, Line), (got, proc.stderr_text())
    own = float(got.text)  # the program's own CPU: the bot's whole count holds it and more
    if ending == "exit":
        assert proc.wait(STARTUP_S) is not None
    assert proc.cpu_seconds is None  # known once every process of it is reaped
    status = proc.kill_all()
    assert status.killed_by_referee == (ending == "killed")
    # within what a count may miss: the clock tick /proc counts a killed process's CPU in,
    # and the start-up between the fork and the move into the cgroup (microseconds)
    slack = 2 / os.sysconf("SC_CLK_TCK")
    assert proc.cpu_seconds is not None and proc.cpu_seconds >= own - slack
    counts_by_cgroup = report.freezer_parent is not None or report.active("cgroup")
    assert proc.cpu_source == ("cgroup" if counts_by_cgroup else "rusage")
    assert_nothing_left(proc)
