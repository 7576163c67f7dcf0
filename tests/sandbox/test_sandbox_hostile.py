"""Hostile programs in the sandbox: each gets the right observable outcome, and nothing it
started survives (checked after every test by the ``run_hostile`` fixture), under every sandbox
mode this machine offers."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import signal
import socket
import struct
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from sandbox_support import (
    HOSTILE,
    STARTUP_S,
    assert_nothing_left,
    drops_privileges,
    has,
    long_call_bot,
)

from arena.protocol.transport import Closed, Line, Overflow, SubprocessTransport, Timeout
from arena.sandbox import Limits, SandboxReport, landlock, launch, probe
from arena.sandbox.reaper import find_processes

REPO = Path(__file__).resolve().parents[2]


def test_hangs_forever_times_out_and_is_killed(run_hostile) -> None:
    bot = run_hostile("hang.py")
    bot.ready()
    bot.send()
    assert isinstance(bot.receive(0.2), Timeout)
    assert isinstance(bot.receive(0.0), Timeout)
    status = bot.proc.kill_all()
    assert status.killed_by_referee and not status.running


def test_sleeps_past_the_limit_then_answers_late(run_hostile) -> None:
    bot = run_hostile("slow.py", "1.0")
    bot.ready()
    bot.send('{"id": 1}')
    assert isinstance(bot.receive(0.1), Timeout)
    late = bot.receive(STARTUP_S)  # the stale answer still arrives, and is recognisable
    assert isinstance(late, Line) and json.loads(late.data) == {"id": 1}


def test_busy_loop_is_stopped_by_the_cpu_limit(run_hostile) -> None:
    bot = run_hostile("busy_loop.py", limits=Limits(cpu_seconds=1))
    bot.ready()
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Closed) and got.status is not None
    assert got.status.signal in (signal.SIGXCPU, signal.SIGKILL)
    assert not got.status.killed_by_referee


@pytest.mark.parametrize(("mode", "code", "sig"), [("exit3", 3, None),
                                                   ("segv", None, signal.SIGSEGV)])
def test_crash_mid_way_reports_exit_code_or_signal(run_hostile, mode: str, code: int | None,
                                                   sig: int | None) -> None:
    bot = run_hostile("crash.py", mode)
    bot.ready()
    bot.send()
    assert isinstance(bot.receive(STARTUP_S), Line)
    bot.send()
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Closed) and got.status is not None
    assert (got.status.exit_code, got.status.signal) == (code, sig)
    assert not got.status.killed_by_referee and not got.status.memory_limit
    assert bot.proc.exit_status().description == ("exit code 3" if code else "killed by SIGSEGV")


def test_garbage_arrives_as_lines_that_do_not_parse(run_hostile) -> None:
    bot = run_hostile("garbage.py")
    bot.ready()
    lines = [bot.receive(STARTUP_S) for _ in range(4)]
    assert all(isinstance(line, Line) for line in lines)
    datas = [line.data for line in lines if isinstance(line, Line)]
    assert datas[1] == b"\xff\xfe\x00\x01 binary \x80"
    assert datas[2] == b'{"type": "action", "id": '  # CRLF ends a line too
    for data in datas:
        with pytest.raises(ValueError):
            json.loads(data)


def test_gigantic_line_overflows_and_reading_stops(run_hostile) -> None:
    bot = run_hostile("huge_line.py", "2000000", limits=Limits(line_bytes=100_000))
    bot.ready()
    got = bot.receive(STARTUP_S)
    assert got == Overflow(100_000)
    assert bot.receive(STARTUP_S) == Overflow(100_000)  # sticky: "after" is never read


def test_unbounded_memory_fails_detectably(run_hostile) -> None:
    bot = run_hostile("memory_hog.py", limits=Limits(memory_mb=256))
    bot.ready()
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Closed) and got.status is not None
    assert got.status.memory_limit or got.status.signal == signal.SIGKILL
    assert got.status.memory_limit is ("MemoryError" in bot.proc.stderr_text())


@pytest.mark.parametrize("then", ["exit", "hang"])
def test_children_that_outlive_the_bot_are_all_killed(run_hostile, then: str) -> None:
    bot = run_hostile("fork_orphans.py", then)
    text = bot.ready()
    assert len(text.split()) == 4  # ready + three pids: child, own group, setsid'd grandchild
    if then == "hang":
        assert len(find_processes(marker=bot.marker, include_zombies=False)) >= 4
    bot.proc.kill_all()  # the fixture then checks that nothing with the marker is left


def test_ignores_sigterm_and_closed_stdin_is_killed_after_the_grace(run_hostile) -> None:
    bot = run_hostile("ignore_sigterm.py")
    assert "SIGTERM ignored" in bot.ready()
    status = bot.proc.shutdown(grace_s=0.2)
    assert status.killed_by_referee and not status.running


def test_writes_outside_its_directory_fail_or_stay_invisible(run_hostile,
                                                             report: SandboxReport) -> None:
    tmp_target = Path(tempfile.gettempdir()) / f"outside-{os.getpid()}-{id(report)}"
    repo_target = REPO / f"outside-{os.getpid()}-{id(report)}"
    bot = run_hostile("write_outside.py", str(tmp_target), str(repo_target))
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), bot.proc.stderr_text()
    results = json.loads(got.data)
    try:
        own = [path for path in results if path.endswith("written-by-bot")]
        assert own and results[own[0]] != "written"  # its own files are read-only
        if has(report, "bwrap", "landlock") or drops_privileges(report):
            assert not repo_target.exists()
        if has(report, "bwrap", "landlock"):
            assert not tmp_target.exists()  # refused (landlock) or in a private /tmp (bwrap)
    finally:
        for target in (tmp_target, repo_target):
            if target.exists():
                target.unlink()


#: Where a bot is frozen by a cgroup: with its file system confined, and without (only its
#: uid, not the referee's, keeps it from the cgroup's files).
FREEZER_MODES = {"probed": (), "no-bwrap": ("bwrap",), "uid-only": ("bwrap", "landlock",
                                                                   "seccomp")}


@pytest.mark.parametrize("mode", list(FREEZER_MODES))
def test_a_bot_can_neither_thaw_itself_nor_leave_its_cgroup(mode: str) -> None:
    """Frozen between its decisions by its cgroup (docs/SANDBOX.md, "CPU fairness"), a bot
    must not be able to undo it: not write ``cgroup.freeze`` (its own or another bot's) nor
    move a process out of its cgroup."""
    report = probe(disable=FREEZER_MODES[mode]) if FREEZER_MODES[mode] else probe()
    parent = report.freezer_parent or (report.cgroup_parent if report.active("cgroup") else None)
    if parent is None or report.freezer is not True:
        pytest.skip("bots are not frozen by a cgroup in this mode")
    marker = "mk" + secrets.token_hex(8)
    own = parent / f"arena-{os.getpid()}-{marker}"
    proc = launch(["python3", "escape_cgroup.py", marker, str(parent), str(own)],
                  workdir=HOSTILE / "escape_cgroup.py", limits=Limits(), marker=marker,
                  report=report)
    try:
        assert proc.cgroup == own
        got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Line), proc.stderr_text()
        results = json.loads(got.data)
        assert results["thaw"] != "written" and results["leave"] != "written", results
        assert str(proc.pid) in (own / "cgroup.procs").read_text().split()
    finally:
        proc.kill_all()
    assert_nothing_left(proc)
    assert not own.exists()


@pytest.mark.parametrize("mode", list(FREEZER_MODES))
def test_a_pause_returns_once_the_bot_is_frozen_even_inside_a_long_system_call(
        mode: str) -> None:
    """A process freezes when it next leaves the kernel: a bot whose thread maps memory
    populated at once ran on after each pause, 55-72 ms, on the CPU and the clock of the bot
    asked next (refused under seccomp since; changing the protection of 512 MiB, which is
    not, takes some 8 ms). Once seen to run on, a bot's pauses wait until it is frozen."""
    from arena.referee.pause import pause, resume

    report = probe(disable=FREEZER_MODES[mode]) if FREEZER_MODES[mode] else probe()
    if report.freezer is not True:
        pytest.skip("bots are not frozen by a cgroup in this mode")
    with long_call_bot(report) as proc:
        assert proc.cgroup is not None
        for _ in range(10):  # frozen inside a long call, most likely the first time
            time.sleep(0.05)
            pause(proc)
            time.sleep(0.1)  # another bot's turn, on which it runs on
            resume(proc)
            if proc.runs_on:
                break
        assert proc.runs_on
        for _ in range(4):
            time.sleep(0.05)
            pause(proc)
            events = (proc.cgroup / "cgroup.events").read_text()
            resume(proc)
            assert "frozen 1" in events


def test_every_writable_place_is_capped(run_hostile, report: SandboxReport) -> None:
    """Under bubblewrap the root and /dev are read-only and /tmp and /dev/shm are tmpfs of
    tmp_mb each: a bot cannot fill the host's memory with files."""
    if not has(report, "bwrap"):
        pytest.skip("the tmpfs mounts come with bubblewrap")
    bot = run_hostile("fill_tmpfs.py", "24", limits=Limits(tmp_mb=8))
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), bot.proc.stderr_text()
    written = json.loads(got.data)
    assert written["/"] == 0 and written["/dev"] == 0
    assert 0 < written["/tmp"] <= 8 << 20 and 0 < written["/dev/shm"] <= 8 << 20


def test_network_connection_is_refused(run_hostile, report: SandboxReport) -> None:
    if not has(report, "bwrap", "seccomp", "landlock"):
        pytest.skip("no layer that blocks the network in this mode")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.setblocking(False)
        bot = run_hostile("network.py", str(server.getsockname()[1]))
        got = bot.receive(STARTUP_S)
        assert isinstance(got, Line) and got.text.startswith("refused"), got
        with pytest.raises(BlockingIOError):
            server.accept()


def test_reading_another_bots_files_fails(run_hostile, report: SandboxReport) -> None:
    if not (has(report, "bwrap", "landlock") or drops_privileges(report)):
        pytest.skip("the bot runs as the referee's uid without a filesystem layer")
    other = Path(tempfile.mkdtemp(prefix="arena-other-bot-"))
    try:
        secret = other / "secret.txt"
        secret.write_text("s3cret\n")
        secret.chmod(0o600)
        bot = run_hostile("read_other.py", str(secret))
        first, second = bot.receive(STARTUP_S), bot.receive(STARTUP_S)
        assert isinstance(first, Line) and first.text.startswith("denied"), first
        assert isinstance(second, Line) and second.text.startswith("denied"), second
    finally:
        secret.unlink()
        other.rmdir()


def test_a_bot_cannot_read_another_running_bots_copy(run_hostile,
                                                    report: SandboxReport) -> None:
    """The real thing: the other bot's own copy of its files, while it runs. Each copy
    belongs to root and the bot's own group (each bot has a uid and group of its own), so
    it is unreadable by any other bot even without bubblewrap or Landlock."""
    if not (has(report, "bwrap", "landlock") or (drops_privileges(report)
                                                 and os.geteuid() == 0)):
        pytest.skip("the bots run as the referee's own uid without a filesystem layer")
    victim = run_hostile("echo.py")
    victim.ready()
    target = victim.proc.box / "bot" / "echo.py"
    assert target.is_file()
    bot = run_hostile("read_other.py", str(target))
    first, second = bot.receive(STARTUP_S), bot.receive(STARTUP_S)
    assert isinstance(first, Line) and first.text.startswith("denied"), first
    assert isinstance(second, Line) and second.text.startswith("denied"), second


def test_a_bot_cannot_read_the_referees_command_line(run_hostile,
                                                   report: SandboxReport) -> None:
    """The referee's arguments may hold a --seed (and so every hand): /proc shows a bot its
    own process only (a pid namespace under bubblewrap, Landlock without it)."""
    if not has(report, "bwrap", "landlock"):
        pytest.skip("no layer that hides other processes in this mode")
    bot = run_hostile("read_proc.py", str(os.getpid()))
    lines = [bot.receive(STARTUP_S) for _ in range(3)]
    assert all(isinstance(line, Line) for line in lines), (lines, bot.proc.stderr_text())
    texts = [line.text for line in lines if isinstance(line, Line)]
    assert texts[0].startswith(f"denied /proc/{os.getpid()}/cmdline"), texts
    assert texts[2] == "read /proc/self/status", texts
    if has(report, "landlock"):  # bubblewrap's init too, inside bubblewrap
        assert texts[1].startswith("denied /proc/1/cmdline"), texts


def _json_answer(bot: Any) -> Any:
    """The one JSON line a hostile bot prints with what it found."""
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    return json.loads(got.data)


def test_under_bubblewrap_a_bot_finds_no_process_of_the_host(run_hostile,
                                                             report: SandboxReport) -> None:
    """docs/SANDBOX.md: under bubblewrap /proc shows a bot two processes, bubblewrap's init
    and itself (a pid namespace of its own). Landlock alone keeps other processes' entries
    unreadable, but a signal 0 still told a bot which of the host's pids exist (the
    referee's, another bot's) and /proc listed them all."""
    if not has(report, "bwrap"):
        pytest.skip("only bubblewrap gives a bot a pid namespace of its own")
    other = run_hostile("echo.py")
    other.ready()
    bot = run_hostile("other_pids.py", str(os.getpid()), str(other.proc.pid))
    found = _json_answer(bot)
    assert found["signal"] == ["ESRCH", "ESRCH"], found
    assert found["proc"] == "denied" or len(found["proc"]) <= 2, found


def test_under_bubblewrap_a_bot_sees_no_host_directory_but_the_systems(
        run_hostile, report: SandboxReport) -> None:
    """docs/SANDBOX.md: under bubblewrap ``/`` holds only ``/bot``, ``/tmp``, ``/dev``,
    ``/proc``, ``/etc`` (the few files the runtimes need) and the system directories: no
    home directory, no host configuration (its hostname, hosts, machine id), with Landlock
    or without it."""
    if not has(report, "bwrap"):
        pytest.skip("only bubblewrap builds the bot a root of its own")
    bot = run_hostile("look_around.py")
    seen = _json_answer(bot)
    system = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"}
    assert seen["/"] == "denied" or set(seen["/"]) <= system | {
        "bot", "tmp", "dev", "proc", "etc"}, seen["/"]
    runtimes = {p.name for pattern in ("python3*", "java-*") for p in Path("/etc").glob(pattern)}
    assert seen["/etc"] == "denied" or set(seen["/etc"]) <= runtimes | {
        "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "nsswitch.conf", "ssl",
        "passwd", "group"}, seen["/etc"]


def test_file_locks_on_shared_files_carry_no_signal_between_bots(
        run_hostile, report: SandboxReport) -> None:
    """Two bots share read-only files (the kit, the interpreter). A lock one takes there, seen
    by another, is a covert channel (a colluding pair could pass hands): under seccomp a
    bot's locks succeed and do nothing, and inotify is denied."""
    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("lock_signal.py")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    word, path, *results = got.text.split(" ")
    assert word == "locked" and results == ["flock=ok", "lockf=ok", "inotify=denied"], got
    fd = os.open(path, os.O_RDONLY)  # the same file, as another bot would open it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the bot's lock were held
        fcntl.flock(fd, fcntl.LOCK_UN)
        query = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        l_type = struct.unpack("hhqqi4x", fcntl.fcntl(fd, fcntl.F_GETLK, query))[0]
        assert l_type == fcntl.F_UNLCK, "the bot's read lock is visible"
    finally:
        os.close(fd)


def test_a_bot_pinned_with_its_worker_cannot_widen_its_affinity(
        report: SandboxReport) -> None:
    """A worker pinned to one CPU (``pin_workers``) pins its bots: one that set its
    affinity to every CPU ran threads on the other workers' CPUs, slowing their tables'
    bots against their clocks. Under seccomp the call succeeds and changes nothing."""
    from arena.common.cpus import one_core

    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: nothing to widen to")
    with one_core() as cpu:
        proc = launch(["python3", "widen_affinity.py"], workdir=HOSTILE / "widen_affinity.py",
                      report=report)
    try:
        got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Line), (got, proc.stderr_text())
        assert got.text == f"affinity {cpu} ok {cpu}", got.text
    finally:
        proc.kill_all()
    assert_nothing_left(proc)


def test_a_file_stops_at_the_file_size_limit_and_descriptors_at_their_limit(
        run_hostile) -> None:
    """The rlimits of every mode: one file grows to ``file_size_mb`` and no further (the
    write fails, EFBIG), descriptors stop at ``open_files``, and no core is ever dumped."""
    bot = run_hostile("outgrow_limits.py", "6",
                      limits=Limits(file_size_mb=2, open_files=20, tmp_mb=16))
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    assert json.loads(got.data) == {"written": 2 << 20, "ended": "OSError errno 27",
                                    "fds": 20, "core": [0, 0]}


def test_the_calls_seccomp_denies_fail_with_eperm_and_clone3_with_enosys(
        run_hostile, report: SandboxReport) -> None:
    """The deny list docs/SANDBOX.md names, call by call: ptrace (of the bot's own child,
    which nothing else refuses), clone with a namespace flag, io_uring, userfaultfd,
    perf_event_open, the kernel keyrings, process_vm_*, a new user namespace, mounts, bpf,
    fanotify, cachestat and mincore (which tells a file's cached pages, no clock needed, to
    the file's owner: a user referee's bots own the kit they share) fail with EPERM; clone3
    with ENOSYS, so that libc falls back to clone, and Linux AIO with ENOSYS (its requests
    carry RWF_NOWAIT where no filter sees it)."""
    import errno

    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("denied_calls.py")
    found = _json_answer(bot)
    assert [found.pop(call) for call in ("clone3", "io_setup", "io_submit")] == [
        errno.ENOSYS] * 3
    assert found == dict.fromkeys(found, errno.EPERM), found


def _touching_the_referee(off: set[str], victim: Path) -> dict[str, str]:
    """What tests/fixtures/hostile/touch_referee.py, launched with the layers ``off`` switched
    off, could change of the file ``victim`` and of the referee's process (skipped where
    Landlock and seccomp do not both run without bubblewrap)."""
    report = probe(disable=off)
    if not (has(report, "seccomp") and has(report, "landlock")):
        pytest.skip("no seccomp and Landlock without bubblewrap here")
    if "user" not in off and not drops_privileges(report):
        pytest.skip("the bots of this referee share its uid")
    proc = launch(["python3", "touch_referee.py", "mk", str(victim)],
                  workdir=HOSTILE / "touch_referee.py", report=report)
    try:
        got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Line), (got, proc.stderr_text())
        found: dict[str, str] = json.loads(got.data)
    finally:
        proc.kill_all()
        assert_nothing_left(proc)
    return found


@pytest.mark.parametrize("own_uid", [False, True])
def test_a_bot_of_the_referees_uid_changes_no_files_mode_times_owner_or_attributes(
        tmp_path: Path, own_uid: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Landlock governs opening and making files, not changing what describes them: a bot
    under the referee's own uid (a referee that is not root, on a host where bubblewrap
    cannot run) set the kit's ``arena/sdk/__init__.py`` to mode 000, so every later bot
    failed to import the kit, set its access time or cleared its no-atime flag (``ioctl``
    on a descriptor opened to read: the channel that flag closes), and made the referee's
    results database readable and writable by everyone;
    and where Landlock is older than ABI 3 (Linux 6.2: taken as 2 here), ``truncate`` of
    a path is not governed either, and it emptied that database. Seccomp refuses those
    calls there (EPERM), its own scratch's included; a bot of a uid of its own changes only
    its own files, as before."""
    if not own_uid and 2 <= landlock.abi_version():
        monkeypatch.setattr(landlock, "abi_version", lambda: 2)
    victim = tmp_path / "results.db"
    victim.write_text("results")
    victim.chmod(0o600)
    before = victim.stat()
    found = _touching_the_referee({"bwrap"} if own_uid else {"bwrap", "user"}, victim)
    if own_uid:
        assert found["own chmod"] == "changed"
    else:
        calls = ["chmod", "utime", "chown", "setxattr", "flags", "truncate", "own chmod"]
        assert {call: found[call] for call in calls} == dict.fromkeys(calls, "EPERM")
    after = victim.stat()
    assert (after.st_mode, after.st_atime_ns, after.st_mtime_ns, after.st_uid,
            after.st_size) == (before.st_mode, before.st_atime_ns, before.st_mtime_ns,
                               before.st_uid, before.st_size)


def test_a_bot_of_the_referees_uid_signals_neither_the_referee_nor_another_bot() -> None:
    """docs/SANDBOX.md: without bubblewrap, Landlock (ABI 6 on) refuses a bot's signals to
    any process outside its own sandbox: under the referee's own uid (a referee that is not
    root) nothing else did, and a bot could stop the referee or another bot."""
    report = probe(disable={"bwrap", "user"})
    if not has(report, "landlock") or landlock.abi_version() < 6:
        pytest.skip("no Landlock with signal scoping without bubblewrap here")
    launched = []
    try:
        for script, args in (("echo.py", []), ("other_pids.py", [str(os.getpid())])):
            marker = "mk" + secrets.token_hex(8)
            launched.append(launch(["python3", script, marker, *args,
                                    *[str(proc.pid) for proc in launched]],
                                   workdir=HOSTILE / script, marker=marker, report=report))
        got = SubprocessTransport(launched[1]).receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Line), (got, launched[1].stderr_text())
        assert json.loads(got.data)["signal"] == ["EPERM", "EPERM"]
    finally:
        for proc in launched:
            proc.kill_all()
            assert_nothing_left(proc)


def test_a_bot_of_the_referees_uid_changes_no_limit_or_priority_of_the_referee(
        tmp_path: Path) -> None:
    """Landlock does not govern ``prlimit``, ``setpriority``, the scheduling calls or
    ``ioprio_set`` either: a bot under the referee's own uid (a referee that is not root,
    without bubblewrap) read and set the referee's limits (its CPU seconds or open files
    lowered would end it) and reniced it and every process of its user. Seccomp refuses
    them there (EPERM) for any process but the caller itself, which keeps them."""
    found = _touching_the_referee({"bwrap", "user"}, tmp_path / "none")
    expected = {"parent limit": "EPERM", "parent priority": "EPERM", "user priority": "EPERM",
                "parent policy": "EPERM", "own limit": "changed", "own priority": "changed",
                "own policy": "changed"}
    assert {call: found[call] for call in expected} == expected


def test_no_memory_is_held_in_anonymous_files_beyond_the_limit(
        run_hostile, report: SandboxReport) -> None:
    """An anonymous memory file's pages (memfd_create) count in no process's address space:
    a bot limited to 96 MiB held 128 MiB in them, up to its open files times its file size
    limit per process, all of it unseen by the OOM killer, which would end another process
    (the referee) first. Under seccomp the call fails as on a kernel without it (ENOSYS)."""
    import errno

    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("memory_files.py", "128", limits=Limits(memory_mb=96))
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    assert json.loads(got.data) == {"held_mb": 0, "errno": errno.ENOSYS}


def test_a_socket_buffer_cannot_be_raised_to_hold_memory(
        run_hostile, report: SandboxReport) -> None:
    """What a Unix socket's queue holds counts in no address space, bounded by its send
    buffer, which a bot could raise to twice ``net.core.wmem_max``: 30 socket pairs held 238
    MiB in a process limited to 96 MiB. Under seccomp the raise succeeds without effect (a
    bot's sockets are all Unix ones, whose buffers only bound their queues)."""
    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("socket_buffers.py")
    found = _json_answer(bot)
    assert found["after"] == found["before"]
    assert 0 < found["queued"] <= 2 * found["before"]  # the last message may pass the end


def test_the_page_cache_of_shared_files_is_no_clockless_channel(
        run_hostile, report: SandboxReport) -> None:
    """Bots share the page cache of the files they all read: one read a page of a large
    file under /usr to set a bit, dropped it (fadvise DONTNEED) to clear it, and another
    read it back with preadv2(RWF_NOWAIT) (EAGAIN: not cached): a 64-bit word passed between
    two bubblewrap sandboxes in one probe. Under seccomp the probe fails as where it is
    unsupported, and the drop does nothing; timing is what is left."""
    import errno

    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("page_cache.py")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    word, path, dropped, probe = got.text.split(" ")
    assert (word, dropped, probe) == ("page_cache", "fadvise=ok",
                                      f"probe=errno{errno.EOPNOTSUPP}"), got.text
    fd = os.open(path, os.O_RDONLY)  # as another bot would probe it, were it allowed
    try:
        assert os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT) == 1, "the bot dropped it"
    finally:
        os.close(fd)


def test_futexes_on_pages_of_shared_files_are_no_channel(
        run_hostile, report: SandboxReport) -> None:
    """A futex not marked private on a page of a file both bots map (os.py) is keyed by the
    file and the offset across uids and namespaces: one bot's 16 threads waited on its first
    words, another woke those of the bits set, and each wake returned 1 or 0, a 16-bit word
    passed between two bubblewrap sandboxes in one probe. Under seccomp such a wait fails at
    once with EAGAIN (as if the word had changed), so no wake finds a waiter."""
    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    receiver = run_hostile("futex_channel.py", "wait")
    receiver.ready()
    sender = run_hostile("futex_channel.py", "wake", "0xa5c3")
    got = sender.receive(STARTUP_S)
    assert isinstance(got, Line), (got, sender.proc.stderr_text())
    assert json.loads(got.data) == [0] * 16, "a wake found a waiter of the other bot"
    receiver.send()
    got = receiver.receive(STARTUP_S)
    assert isinstance(got, Line), (got, receiver.proc.stderr_text())
    assert json.loads(got.data) == ["EAGAIN"] * 16


def test_the_futex2_calls_fail_with_enosys(run_hostile, report: SandboxReport) -> None:
    """futex_waitv and the futex2 calls take their flags (shared or private) where the filter
    cannot see them: they fail as on a kernel without them, and glibc does not use them."""
    import errno

    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("futex_channel.py", "futex2")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    assert json.loads(got.data) == dict.fromkeys(
        ("futex_waitv", "futex_wake", "futex_wait", "futex_requeue"), errno.ENOSYS)


def test_threads_and_process_shared_locks_still_work(run_hostile) -> None:
    """What waits on futexes in a bot's own program: threading (private futexes, untouched)
    and multiprocessing's Lock between two processes (a shared futex: under seccomp its wait
    spins, and it still finishes). Where /dev/shm may not be written (Landlock) the Lock
    cannot be made at all, as before."""
    bot = run_hostile("threads_and_locks.py")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    word, threaded, processes = got.text.split(" ")
    assert (word, threaded) == ("threads_and_locks", str(1000 + 328350))
    assert processes in ("4000", "PermissionError", "FileNotFoundError"), got.text


def test_process_limit_stops_a_fork_spree(run_hostile, report: SandboxReport) -> None:
    if not drops_privileges(report):
        pytest.skip("RLIMIT_NPROC does not bind root")
    bot = run_hostile("many_processes.py", "200", limits=Limits(processes=8))
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line) and got.text.startswith("forked"), got
    assert int(got.text.split()[1]) < 200


def test_well_behaved_echo_round_trips(run_hostile) -> None:
    bot = run_hostile("echo.py")
    bot.ready()
    for i in range(20):
        bot.transport.send({"type": "act", "id": i})
        got = bot.receive(STARTUP_S)
        assert isinstance(got, Line) and json.loads(got.data) == {"type": "act", "id": i}
    bot.transport.close()
    status = bot.proc.shutdown(grace_s=STARTUP_S)
    assert status.exit_code == 0 and not status.killed_by_referee


def test_a_bot_cannot_read_which_pages_another_maps(
        run_hostile, report: SandboxReport) -> None:
    """A page of a file two bots both read is mapped by both: pagemap's exclusive bit, smaps
    and numa_maps tell a bot which of the pages it maps another process maps too, a bit per
    page that the other sets and clears at will, no clock needed (two bots passed 32-bit words
    exactly so, again and again). Landlock leaves them out of the bot's own /proc entries,
    inside bubblewrap too (docs/SANDBOX.md, "Channels between bots")."""
    import errno

    if not has(report, "landlock"):
        pytest.skip("only Landlock restricts a bot's own /proc entries")
    bot = run_hostile("page_sharing.py")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    assert json.loads(got.data) == dict.fromkeys(
        ("pagemap", "smaps", "smaps_rollup", "numa_maps"), errno.EACCES)


def test_a_bot_cannot_have_its_memory_merged_with_another_bots(
        run_hostile, report: SandboxReport) -> None:
    """On a host that runs KSM, pages a bot offers for merging are merged with identical ones
    of another process: which of its pages merged (the time a write to one takes, its own
    ``/proc`` counts) tells what the other holds. Under seccomp the calls that offer them
    fail, as on a kernel without KSM (EINVAL)."""
    import errno

    if not has(report, "seccomp"):
        pytest.skip("no seccomp layer in this mode")
    bot = run_hostile("memory_merging.py")
    got = bot.receive(STARTUP_S)
    assert isinstance(got, Line), (got, bot.proc.stderr_text())
    assert json.loads(got.data) == dict.fromkeys(("madv_mergeable", "pr_set_memory_merge"),
                                                 errno.EINVAL)


def test_under_bubblewrap_a_bot_sees_no_host_account_but_its_own_name(
        run_hostile, report: SandboxReport) -> None:
    """The host's /etc/passwd and /etc/group name its people (a class server's students):
    under bubblewrap a bot sees root, nobody and its own uid, named ``bot`` (a runtime that
    asks for the user's name gets one)."""
    if not has(report, "bwrap"):
        pytest.skip("only bubblewrap gives a bot account files of its own")
    bot = run_hostile("accounts.py")
    seen = _json_answer(bot)
    uid = bot.proc.uid if bot.proc.uid is not None else os.geteuid()
    own = "root" if uid == 0 else "bot"
    assert seen == {"users": sorted({"root", "nobody", own}),
                    "groups": sorted({"root", "nogroup", own}), "me": own}
