"""A bot frozen between its decisions must not run on, on the CPU of the bot asked next
(docs/SANDBOX.md, "CPU fairness"): a process freezes (or stops) only when it next leaves the
kernel, so the system calls that run longest are refused, and a bot seen to run on is waited
for."""

from __future__ import annotations

import errno
import itertools
import json
import os
import secrets
import time
from pathlib import Path

import pytest
from sandbox_support import (
    HOSTILE,
    STARTUP_S,
    assert_nothing_left,
    drops_privileges,
    has,
    long_call_bot,
)

from arena.protocol.transport import Line, SubprocessTransport
from arena.sandbox import Limits, SandboxedProcess, SandboxReport, launch, probe
from arena.sandbox.reaper import find_processes


def test_memory_is_neither_populated_nor_collapsed_in_one_long_call(
        run_hostile, report: SandboxReport) -> None:
    """Memory populated at once (``MAP_POPULATE``, ``MADV_POPULATE_*``) took about 250 ms a
    GiB in one call, a range collapsed into huge pages (``MADV_COLLAPSE``, also through
    ``process_madvise``) 2 s a GiB, one reclaimed at once (``MADV_PAGEOUT``) 82 ms a GiB: a
    bot that started one as it answered ran on after its freeze, 108 ms of the next bot's
    300 ms turn, and every later pause waited for it. Under
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
        "madv_collapse": errno.EINVAL, "madv_pageout": errno.EINVAL,
        "process_madvise": errno.EPERM}


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


def _pauses_until_waited_for(window_us: int, pauses: int) -> int | None:
    """How many pauses of a bot that uses ``window_us`` of CPU between each freeze and the next
    thaw (its cgroup's counter, scripted: the kernel's cannot be made to) it takes until its
    pauses wait for it; None if they never do within ``pauses``."""
    from arena.referee.pause import pause, resume

    report = probe()
    if report.freezer is not True:
        pytest.skip("bots are not frozen by a cgroup here")
    marker = "mk" + secrets.token_hex(8)
    proc = launch(["python3", "echo.py", marker], workdir=HOSTILE / "echo.py",
                  limits=Limits(), marker=marker, report=report)
    try:
        got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Line), proc.stderr_text()
        reads = itertools.count()  # at each freeze, then before each thaw
        proc._freezer.cpu_used_us = (  # type: ignore[method-assign]
            lambda: (next(reads) + 1) // 2 * window_us)
        for done in range(1, pauses + 1):
            pause(proc)
            resume(proc)
            if proc.runs_on:
                return done
        return None
    finally:
        proc.kill_all()
        assert_nothing_left(proc)


def test_a_bot_that_runs_on_a_little_after_every_freeze_is_waited_for() -> None:
    """Only a bot seen to run on is waited for at its freezes, and one window of 2 ms says so
    at once; but a thread looping over a call shorter than that (changing the protection of
    64 MiB, 1 ms) ran on up to 0.9 ms after every freeze and was never seen. The CPU of every
    window above what freezing takes is added up: 1.5 ms a window is seen at the second."""
    assert _pauses_until_waited_for(1500, pauses=5) == 2


def test_a_bot_that_only_freezes_is_not_waited_for() -> None:
    """Freezing a bot whose 40 threads wait took up to 0.1 ms of its CPU: however often, that
    is not running on (waiting at every freeze cost 12% of the main job's CPU)."""
    assert _pauses_until_waited_for(100, pauses=200) is None


def _running_threads(marker: str) -> list[str]:
    """The threads of the bot's processes that are not stopped, with their states."""
    running = []
    for pid in find_processes(marker=marker, include_zombies=False):
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                stat = (task / "stat").read_bytes()
            except OSError:  # gone meanwhile
                continue
            state = stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3]
            if state not in (b"T", b"t", b"Z", b"X"):
                running.append(f"{pid}/{task.name} {state.decode()}")
    return running


def test_a_bot_stopped_by_its_uid_is_waited_for_once_seen_to_run_on() -> None:
    """Stopped by its uid (no cgroup to freeze it by: a root referee in a container whose
    cgroups are read-only), a process stops when it next leaves the kernel, and nothing
    looked: 16 processes of a bot each reading a 111 MiB file took 490 ms of the next bot's
    500 ms turn, every turn. Its CPU is now read at each stop and before the next continue,
    as a cgroup's, and once it is seen to run on, each stop waits until it has stopped."""
    from arena.referee.pause import pause, resume, send_queued_stops

    report = probe()
    if os.geteuid() != 0 or not report.active("user"):
        pytest.skip("bots are stopped by their uid only under a root referee")
    with long_call_bot(report) as proc:
        for _ in range(50):  # stopped inside a long call: seen to run on
            pause(proc, by_cgroup=False)
            send_queued_stops()
            time.sleep(0.1)  # another bot's turn, on which it runs on
            resume(proc, by_cgroup=False)
            time.sleep(0.02)  # a busy machine may not run it at once: into its next call
            if _waited_for(proc):
                break
        assert _waited_for(proc)
        for _ in range(4):
            time.sleep(0.05)
            pause(proc, by_cgroup=False)
            send_queued_stops()
            running = _running_threads(proc.marker)
            resume(proc, by_cgroup=False)
            assert not running


def test_a_bot_stopped_by_its_process_tree_is_stopped_in_every_thread() -> None:
    """Stopped by its process tree (a referee that is not root and has no cgroup), a bot was
    taken for stopped once the first thread of each of its processes was, while another ran
    on inside a long system call. Every thread is looked at now."""
    from arena.referee.pause import pause, resume

    report = probe()
    with long_call_bot(report) as proc:
        for _ in range(4):
            time.sleep(0.05)
            pause(proc, by_cgroup=False, by_uid=False)
            running = _running_threads(proc.marker)
            resume(proc, by_cgroup=False, by_uid=False)
            assert not running


class _Stopped:
    """A sandboxed bot as a match's turn sees it, stopped by its uid."""

    def __init__(self, proc: SandboxedProcess) -> None:
        self.proc, self.paused = proc, False

    def pause(self) -> None:
        from arena.referee.pause import pause, send_queued_stops

        pause(self.proc, by_cgroup=False)
        send_queued_stops()  # a stop goes with the next continue: sent now
        self.paused = True

    def resume(self) -> None:
        from arena.referee.pause import resume

        resume(self.proc, by_cgroup=False)
        self.paused = False

    def cpu_since_pause(self) -> float | None:
        from arena.referee.pause import cpu_since_pause

        return cpu_since_pause(self.proc) if self.paused else None


class _Asked:
    """The bot asked: no process, nothing to stop."""

    def pause(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def cpu_since_pause(self) -> float | None:
        return None


@pytest.mark.parametrize("mechanism", ["cgroup", "uid"])
def test_the_bot_asked_is_credited_the_cpu_a_bot_stopped_in_a_long_call_used(
        mechanism: str) -> None:
    """Stopped inside a long system call, a bot runs on, on the CPU of the bot asked next
    (16 processes reading a large file took 315 ms of its 500 ms turn): on a CPU they share,
    the deadline of the bot asked moves on by the CPU the stopped bot was counted."""
    from arena.referee.cpu_turn import CpuTurn, Deadline
    from arena.referee.launch import TransportConnection

    report = probe()
    if mechanism == "cgroup" and report.freezer is not True:
        pytest.skip("bots are not frozen by a cgroup here")
    if mechanism == "uid" and (os.geteuid() != 0 or not report.active("user")):
        pytest.skip("bots are stopped by their uid only under a root referee")
    with long_call_bot(report) as proc:
        # by cgroup as a match's bots are (the first mechanism that applies); by uid forced
        stopped = (TransportConnection(SubprocessTransport(proc), proc) if mechanism == "cgroup"
                   else _Stopped(proc))
        asked = _Asked()
        turn = CpuTurn(shares_cpu=True)
        # a busy machine may not run the bot between its continue and its stop: it is given
        # a moment to be inside a call, and as many tries as it needs
        most = 0.0  # the longest run-on the referee read
        for _ in range(50):  # stopped inside a long call, most likely the first time
            turn.give(stopped)
            time.sleep(0.02)
            turn.give(asked)
            time.sleep(0.1)  # the asked bot's turn, on which the stopped one runs on
            wait = Deadline(asked, at=0.0, budget=1.0)
            if wait.move_on(turn):
                break
            most = max(most, stopped.cpu_since_pause() or 0.0)
        else:
            assert most > 0, "the stopped bot's run-on was never read"
            assert most < 0.0015, f"a run-on of {most * 1000:.2f} ms went uncredited"
            pytest.skip(f"the bot's calls ran on at most {most * 1000:.2f} ms after a stop on "
                        "this machine: under the 1.5 ms a credit needs")
        counted = stopped.cpu_since_pause()  # the figure the referee keeps
        assert counted is not None and wait.credited > 0
        assert wait.at == wait.credited == pytest.approx(counted - 0.0005)
        for _ in range(50):  # until it is seen to run on: then its stops wait for it
            turn.give(stopped)
            time.sleep(0.02)
            turn.give(asked)
            time.sleep(0.1)  # a run-on is read at the next continue: time for one to happen
            if _waited_for(proc):
                break
        assert _waited_for(proc)
        time.sleep(0.1)
        # what it ran on while waited for was outside every clock: nothing to credit but the
        # last slice the kernel counts as the bot leaves the CPU, just after its cgroup reads
        # frozen (at most a scheduler tick; a run-on is the length of a whole call)
        last = Deadline(asked, at=0.0, budget=1.0)
        last.move_on(turn)
        assert last.credited < 0.005, f"a run-on of {last.credited * 1000:.2f} ms credited"


def _waited_for(proc: SandboxedProcess) -> bool:
    """Whether the bot's stops (by cgroup or by uid) now wait until it is stopped."""
    from arena.referee import pause as pause_module

    watch = pause_module._watched.get(proc)
    return proc.runs_on or (watch is not None and watch.run_on.runs_on)


def test_a_bot_the_sweeps_gave_up_on_is_counted_from_then(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """By tree, the sweeps give up after 50 on a process they never see stopped (a long call
    outlasting them): its CPU from then on is what the bot asked is credited; a bot
    continued reads nothing."""
    from arena.referee import pause as pause_module

    report = probe()
    with long_call_bot(report) as proc:
        monkeypatch.setattr(pause_module, "_threads_stopped", lambda pid: False)
        pause_module.pause(proc, by_cgroup=False, by_uid=False)
        gave_up_on = pause_module.cpu_since_pause(proc)
        pause_module.resume(proc, by_cgroup=False, by_uid=False)
        assert gave_up_on is not None and gave_up_on >= 0
        assert pause_module.cpu_since_pause(proc) is None
