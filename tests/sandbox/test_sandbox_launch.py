"""What a launched bot sees (environment, files, descriptors, user) and how it is ended."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sandbox_support import (
    MODES,
    STARTUP_S,
    assert_nothing_left,
    bubblewrap_runs,
    drops_privileges,
    has,
)

from arena.errors import SandboxError
from arena.protocol.transport import Closed, Line, SubprocessTransport
from arena.sandbox import Limits, SandboxReport, kit_env, launch, probe
from arena.sandbox.cgroups import sweep_dead_cgroups
from arena.sandbox.commandline import BOX_PREFIX
from arena.sandbox.reaper import ENV_MARKER, find_processes, reap_adopted
from arena.sandbox.spawn import THREAD_POOLS
from arena.sandbox.strays import kill_strays
from arena.sandbox.uids import UID_BASE, UID_SPAN

INSPECT = r"""
import json, os, sys
home = os.environ.get("HOME", "")
try:
    with open(os.path.join(home, "scratch.txt"), "w") as f:
        f.write("ok")
    home_writable = True
except OSError:
    home_writable = False
print(json.dumps({
    "env": dict(os.environ), "cwd": os.getcwd(), "files": sorted(os.listdir(".")),
    "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")), "uid": os.getuid(),
    "argv": sys.argv[1:], "home_writable": home_writable, "executable": sys.executable,
    "sid_is_own": os.getsid(0) == os.getpid() or os.getsid(0) == os.getppid(),
    "utc_offset": __import__("time").localtime().tm_gmtoff,
}), flush=True)
"""


def write_bot(tmp_path: Path, source: str, name: str = "bot.py") -> Path:
    bot_dir = tmp_path / "botdir"
    bot_dir.mkdir(exist_ok=True)
    (bot_dir / name).write_text(source)
    return bot_dir


def run_to_line(proc, seconds: float = STARTUP_S) -> Line:
    transport = SubprocessTransport(proc)
    got = transport.receive(time.monotonic() + seconds)
    assert isinstance(got, Line), (got, proc.stderr_text())
    return got


def test_bot_sees_a_cleared_environment_its_copy_and_only_std_fds(
        tmp_path: Path, report: SandboxReport) -> None:
    bot_dir = write_bot(tmp_path, INSPECT)
    (bot_dir / "data.txt").write_text("model weights")
    with launch(["python3", str(bot_dir / "bot.py"), str(bot_dir / "data.txt"), "plain"],
                workdir=bot_dir, env={**kit_env(), "EXTRA": "1"}, report=report) as proc:
        seen = json.loads(run_to_line(proc).data)
    env = seen["env"]
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE",
                        "PYTHONUNBUFFERED", "PYTHONNOUSERSITE", "PYTHONHASHSEED", "PYTHONPATH",
                        "TZ", "EXTRA", ENV_MARKER, "LC_CTYPE", "PWD", "SHLVL", *THREAD_POOLS}
    assert env[ENV_MARKER] == proc.marker and env["LANG"] == "C.UTF-8"
    assert env["TZ"] == "UTC" and seen["utc_offset"] == 0  # whatever the host's zone
    assert {name: env[name] for name in THREAD_POOLS} == dict.fromkeys(THREAD_POOLS, "1")
    assert env["PYTHONPATH"] == kit_env()["PYTHONPATH"]
    assert seen["files"] == ["bot.py", "data.txt"]
    assert seen["argv"] == ["data.txt", "plain"]  # absolute paths into workdir rewritten
    assert seen["home_writable"]
    assert seen["fds"] == [0, 1, 2, 3]  # 3 is the listdir of /proc/self/fd itself
    assert os.path.realpath(seen["executable"]) == os.path.realpath(report.python)
    if report.uid is not None and os.geteuid() == 0:  # a uid of its own (fresh_uid)
        assert UID_BASE <= seen["uid"] < UID_BASE + UID_SPAN
    assert_nothing_left(proc)


def test_a_bot_starts_whatever_the_numbers_of_the_referees_descriptors(
        tmp_path: Path, report: SandboxReport) -> None:
    """A busy referee hands the bot's pipes over as fds 10 and up (dash, /bin/sh on Debian,
    cannot move those)."""
    bot_dir = write_bot(tmp_path, INSPECT)
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(40)]
    try:
        with launch(["python3", "bot.py"], workdir=bot_dir, env=kit_env(),
                    report=report) as proc:
            seen = json.loads(run_to_line(proc).data)
        assert seen["fds"] == [0, 1, 2, 3]
        assert_nothing_left(proc)
        # the probe launches its checks the same way: with high fds it reaches every layer
        disabled = [name for name, on in report.layers.items()
                    if on is not True and name in ("bwrap", "landlock", "seccomp", "cgroup")]
        again = probe(disable=disabled) if disabled else probe(refresh=True)
        assert again.level == report.level
        assert ("bwrap" in again.level) == ("bwrap" not in disabled and bubblewrap_runs())
    finally:
        for fd in held:
            os.close(fd)


def test_single_module_bot_gets_only_its_own_file(tmp_path: Path,
                                                  report: SandboxReport) -> None:
    bot_dir = write_bot(tmp_path, INSPECT)
    (bot_dir / "other_bot.py").write_text("SECRET = 1\n")
    with launch(["python3", "bot.py"], workdir=bot_dir / "bot.py", report=report) as proc:
        seen = json.loads(run_to_line(proc).data)
    assert seen["files"] == ["bot.py"]


def test_the_kit_is_importable_by_the_bot(tmp_path: Path, report: SandboxReport) -> None:
    bot_dir = write_bot(tmp_path, "import arena, arena.errors, json\n"
                                  "print(json.dumps(arena.__file__), flush=True)\n")
    with launch(["python3", "bot.py"], workdir=bot_dir, env=kit_env(), report=report) as proc:
        path = json.loads(run_to_line(proc).data)
    assert path.startswith(str(report.kit_path))


def test_stderr_is_drained_and_capped_head_and_tail(tmp_path: Path,
                                                    report: SandboxReport) -> None:
    bot_dir = write_bot(tmp_path, "import sys\n"
                                  "sys.stderr.write('HEAD\\n' + 'x' * 3_000_000 + '\\nTAIL\\n')\n"
                                  "sys.stderr.flush()\n"
                                  "print('done', flush=True)\n")
    limits = Limits(stderr_bytes=20_000)
    with launch(["python3", "bot.py"], workdir=bot_dir, limits=limits, report=report) as proc:
        assert run_to_line(proc).text == "done"  # a full stderr pipe never blocks the bot
        proc.wait(STARTUP_S)
        text = proc.stderr_text()
    assert text.startswith("HEAD") and text.rstrip().endswith("TAIL")
    assert "bytes of stderr dropped" in text
    assert len(text) < 25_000


def test_kill_all_is_idempotent_and_reports_the_kill(tmp_path: Path,
                                                     report: SandboxReport) -> None:
    bot_dir = write_bot(tmp_path, "import time\nprint('up', flush=True)\ntime.sleep(3600)\n")
    proc = launch(["python3", "bot.py"], workdir=bot_dir, report=report)
    run_to_line(proc)
    assert proc.exit_status().running and proc.poll() is None
    first = proc.kill_all()
    assert first.killed_by_referee and not first.running
    assert proc.kill_all() == first
    assert_nothing_left(proc)


def test_a_bot_killed_from_another_thread_is_reaped_by_its_own(tmp_path: Path,
                                                               report: SandboxReport) -> None:
    """What a league's cancelled vet does: its thread sees the bot, forks and all, gone on
    its next read, and ends it as usual."""
    marker = "mk" + secrets.token_hex(8)
    bot_dir = write_bot(tmp_path, "import os, time\nos.fork()\nprint('x', flush=True)\n"
                                  "time.sleep(3600)\n")
    proc = launch(["python3", "bot.py"], workdir=bot_dir, marker=marker, report=report)
    transport = SubprocessTransport(proc)
    assert isinstance(transport.receive(time.monotonic() + STARTUP_S), Line)
    elsewhere = threading.Thread(target=proc.kill_without_reaping)
    elsewhere.start()
    elsewhere.join()
    assert find_processes(marker=marker, include_zombies=False) == []
    got = transport.receive(time.monotonic() + STARTUP_S)
    while isinstance(got, Line):  # the other process's 'x'
        got = transport.receive(time.monotonic() + STARTUP_S)
    assert isinstance(got, Closed)
    assert proc.kill_all().killed_by_referee
    assert_nothing_left(proc)


def test_closed_is_reported_when_the_bot_exits(tmp_path: Path, report: SandboxReport) -> None:
    bot_dir = write_bot(tmp_path, "import sys\nsys.exit(7)\n")
    with launch(["python3", "bot.py"], workdir=bot_dir, report=report) as proc:
        got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Closed) and got.status is not None
        assert got.status.exit_code == 7 and not got.status.killed_by_referee
    assert_nothing_left(proc)


def test_a_missing_bot_path_or_readable_path_is_a_sandbox_error(
        tmp_path: Path, report: SandboxReport) -> None:
    def boxes() -> set[Path]:  # this process's only: other runs' boxes come and go
        return set(Path(tempfile.gettempdir()).glob(f"{BOX_PREFIX}{os.getpid()}-*"))

    before = boxes()
    with pytest.raises(SandboxError, match="does not exist"):
        launch(["python3", "bot.py"], workdir=tmp_path / "nope", report=report)
    bot_dir = write_bot(tmp_path, "pass\n")
    with pytest.raises(SandboxError, match="does not exist"):
        launch(["python3", "bot.py"], workdir=bot_dir, readable=[tmp_path / "nope"],
               report=report)
    with pytest.raises(SandboxError, match="empty"):
        launch([], workdir=bot_dir, report=report)
    assert boxes() <= before  # a refused launch leaves no box behind


def test_the_bot_cannot_write_its_own_files(tmp_path: Path, report: SandboxReport) -> None:
    bot_dir = write_bot(tmp_path, "import os, json\n"
                                  "try:\n"
                                  "    open('bot.py', 'a').write('x')\n"
                                  "    print('modified', flush=True)\n"
                                  "except OSError as e:\n"
                                  "    print(type(e).__name__, flush=True)\n")
    with launch(["python3", "bot.py"], workdir=bot_dir, report=report) as proc:
        assert run_to_line(proc).text != "modified"
    assert (bot_dir / "bot.py").read_text().endswith("e).__name__, flush=True)\n")


SCRUBBED_GRANDCHILD = r"""
import os, sys
pid = os.fork()
if pid == 0:
    os.setsid()
    if os.fork() == 0:
        os.execve("/bin/sleep", ["sleep", "3600"], {})  # no marker anywhere
    os._exit(0)
os.waitpid(pid, 0)
print("spawned", flush=True)
sys.stdin.readline()
"""


def test_a_grandchild_that_scrubs_every_trace_dies_with_the_pid_namespace(
        tmp_path: Path, report: SandboxReport) -> None:
    if not has(report, "bwrap"):
        pytest.skip("only a pid namespace catches a process that leaves no trace")
    bot_dir = write_bot(tmp_path, SCRUBBED_GRANDCHILD)
    proc = launch(["python3", "bot.py"], workdir=bot_dir, report=report)
    assert run_to_line(proc).text == "spawned"
    ns_pid = proc.namespace_pid()
    assert ns_pid is not None
    namespace = os.readlink(f"/proc/{ns_pid}/ns/pid")

    def in_namespace() -> list[int]:
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.readlink(f"/proc/{name}/ns/pid") == namespace:
                        found.append(int(name))
                except OSError:
                    pass
        return found

    assert len(in_namespace()) >= 3  # the namespace init, the bot, the sleeping grandchild
    proc.kill_all()
    assert in_namespace() == []
    assert_nothing_left(proc)


def test_a_grandchild_that_scrubs_every_trace_is_killed_as_an_orphan_without_bwrap(
        tmp_path: Path, report: SandboxReport) -> None:
    if has(report, "bwrap"):
        pytest.skip("covered by the pid-namespace test")
    if report.uid is None or report.uid == os.geteuid():
        pytest.skip("orphans are attributed by the bot uid, and bots run as the referee's")
    bot_dir = write_bot(tmp_path, SCRUBBED_GRANDCHILD)
    proc = launch(["python3", "bot.py"], workdir=bot_dir, report=report)
    assert run_to_line(proc).text == "spawned"

    def sleepers() -> list[int]:
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    stat = Path(f"/proc/{name}/stat").read_text()
                    cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
                except OSError:
                    continue
                fields = stat[stat.rfind(")") + 2:].split()
                if int(fields[1]) == os.getpid() and cmdline == b"sleep\x003600\x00":
                    found.append(int(name))
        return found

    deadline = time.monotonic() + STARTUP_S
    while not sleepers() and time.monotonic() < deadline:
        time.sleep(0.01)  # the double fork reparents the grandchild to us (subreaper)
    assert sleepers()
    proc.kill_all()
    assert sleepers() == []
    assert_nothing_left(proc)


UNTIED = r"""
import ctypes, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
libc = ctypes.CDLL(None, use_errno=True)
# PR_SET_PDEATHSIG: none, or a signal it ignores, to outlive the referee; SIGKILL is allowed
refused = [libc.prctl(1, sig, 0, 0, 0) != 0 for sig in (0, signal.SIGTERM, signal.SIGKILL)]
print("kept" if refused == [True, True, False] else f"refused {refused}", flush=True)
time.sleep(3600)
"""


#: A referee that launches one stubborn bot (SIGTERM ignored), says its marker, then waits to
#: be killed; argv: the sandbox layers to disable (comma-separated), the bot's directory.
_DOOMED_REFEREE = r"""
import secrets, sys, time
from arena.protocol.transport import Line, SubprocessTransport
from arena.sandbox import launch, probe
off = tuple(layer for layer in sys.argv[1].split(",") if layer)
report = probe(disable=off) if off else probe()
marker = "mk" + secrets.token_hex(8)
proc = launch(["python3", "bot.py", marker], workdir=sys.argv[2], marker=marker, report=report)
got = SubprocessTransport(proc).receive(time.monotonic() + 60)
assert isinstance(got, Line), (got, proc.stderr_text())
print(marker, got.text, flush=True)
time.sleep(3600)
"""
def _start_doomed_referee(mode: str, bot_dir: Path) -> tuple[subprocess.Popen[str], str, str]:
    """:data:`_DOOMED_REFEREE` in ``mode`` with the bot of ``bot_dir``, once its bot runs: the
    referee, the bot's marker and the bot's first line."""
    referee = subprocess.Popen([sys.executable, "-c", _DOOMED_REFEREE, ",".join(MODES[mode]),
                                str(bot_dir)], stdout=subprocess.PIPE, text=True)
    assert referee.stdout is not None
    said = referee.stdout.readline().split()
    if len(said) != 2 or not said[0].startswith("mk"):
        referee.kill()
        referee.wait()
        pytest.fail(f"the referee did not start its bot: {said}")
    return referee, said[0], said[1]


STUBBORN = r"""
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("up", flush=True)
time.sleep(3600)
"""


@pytest.mark.parametrize("bot", ["stubborn", "untied"])
@pytest.mark.parametrize("mode", list(MODES))
def test_a_bot_dies_with_a_referee_killed_without_warning(tmp_path: Path, mode: str,
                                                          bot: str) -> None:
    """``kill -9`` of the referee (or the OOM killer) runs none of its clean-up: the kernel
    must end the bot, with bubblewrap (--die-with-parent) or without (PR_SET_PDEATHSIG), and
    under seccomp a bot cannot clear that signal (the "untied" one tries)."""
    bot_dir = write_bot(tmp_path, STUBBORN if bot == "stubborn" else UNTIED)
    os.chmod(tmp_path, 0o755)
    # probed first: a first probe in this process sweeps dead referees' cgroups, this one's too
    report = probe(disable=MODES[mode]) if MODES[mode] else probe()
    if bot == "untied" and not has(report, "seccomp"):
        pytest.skip("without seccomp a bot may clear its parent-death signal (docs/SANDBOX.md)")
    referee, marker, said = _start_doomed_referee(mode, bot_dir)
    try:
        assert said == ("up" if bot == "stubborn" else "kept")
        assert find_processes(marker=marker), "the bot is not running"
    finally:
        referee.kill()
        referee.wait()
    deadline = time.monotonic() + STARTUP_S  # the kernel's SIGKILL is asynchronous
    while find_processes(marker=marker) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert find_processes(marker=marker) == []
    reap_adopted()
    parent = report.freezer_parent or (report.cgroup_parent if report.active("cgroup") else None)
    if parent is not None:  # its bot's cgroup, named by its pid, goes with the next sweep
        # (another arena's probe on this machine, a test run beside this one, may have
        # swept it already: gone either way)
        left = list(parent.glob(f"arena-{referee.pid}-{marker}"))
        assert len(left) <= 1
        assert all(cgroup in sweep_dead_cgroups(parent) and not cgroup.exists()
                   for cgroup in left)


ESCAPING_HELPER = r"""
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.chdir("/")
        os.execve("/bin/sleep", ["sleep", "3600"], {})  # no marker, no box: nothing names it
    os._exit(0)
os.wait()
print("up", flush=True)
time.sleep(3600)
"""


def _sleepers(cgroup: Path) -> list[int]:
    """The ``sleep 3600`` processes in ``cgroup``."""
    found = []
    with contextlib.suppress(OSError):
        for pid in (cgroup / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/cmdline").read_bytes() == b"sleep\x003600\x00":
                    found.append(int(pid))
    return found


def _running(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rfind(")") + 2] != "Z"


@pytest.mark.parametrize("mode", list(MODES))
def test_what_a_bot_forked_dies_with_a_dead_referees_cgroup(tmp_path: Path, mode: str) -> None:
    """A referee killed without warning takes its bot along, but without bubblewrap not a
    helper the bot forked that left its session and every trace (the parent-death signal
    ends the referee's own child only). That helper cannot leave the bot's cgroup: the next
    referee's sweep of dead referees' cgroups kills it."""
    bot_dir = write_bot(tmp_path, ESCAPING_HELPER)
    os.chmod(tmp_path, 0o755)
    report = probe(disable=MODES[mode]) if MODES[mode] else probe()
    parent = report.freezer_parent or (report.cgroup_parent if report.active("cgroup") else None)
    if parent is None:
        pytest.skip("bots have no cgroup here")
    referee, marker, said = _start_doomed_referee(mode, bot_dir)
    try:
        assert said == "up"
        cgroup = parent / f"arena-{referee.pid}-{marker}"
        deadline = time.monotonic() + STARTUP_S
        while not _sleepers(cgroup):
            assert time.monotonic() < deadline, "the helper did not start"
            time.sleep(0.01)
        (helper,) = _sleepers(cgroup)
    finally:
        referee.kill()
        referee.wait()
    deadline = time.monotonic() + STARTUP_S
    while find_processes(marker=marker) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert find_processes(marker=marker) == []
    if has(report, "bwrap"):  # the pid namespace died with its init, the helper with it
        while _running(helper) and time.monotonic() < deadline:
            time.sleep(0.01)
    assert _running(helper) == (not has(report, "bwrap"))
    assert cgroup in sweep_dead_cgroups(parent) and not cgroup.exists()
    assert not _running(helper)
    reap_adopted()


def _stray_in_a_box(owner: str) -> tuple[Path, subprocess.Popen[bytes]]:
    """A bot's process left running in the box ``arena-box-<owner>-...`` (as a bot user when
    the test is root)."""
    user = {"user": UID_BASE + UID_SPAN - 1} if os.geteuid() == 0 else {}
    box = Path(tempfile.mkdtemp(prefix=f"{BOX_PREFIX}{owner}-"))
    os.chmod(box, 0o755)
    (box / "bot").mkdir(mode=0o755)
    return box, subprocess.Popen(
        ["sleep", "3600"], cwd=box / "bot", **user,
        env={"PATH": os.environ["PATH"], ENV_MARKER: "mk" + secrets.token_hex(8)})


def _owned_by(box: Path, owner: int) -> Path:
    """``box`` renamed to name ``owner`` as its referee (the stray's working directory
    follows it)."""
    renamed = box.with_name(f"{BOX_PREFIX}{owner}-{box.name.rsplit('-', 1)[1]}")
    box.rename(renamed)
    return renamed


def test_a_dead_referees_cgroup_is_swept_when_its_pid_was_reused() -> None:
    """What a dead referee's bot forked, left in the bot's cgroup, is killed with it though
    another process, started after it, took the referee's pid since."""
    report = probe()
    parent = report.freezer_parent or (report.cgroup_parent if report.active("cgroup") else None)
    if parent is None:
        pytest.skip("bots have no cgroup here")
    stray = subprocess.Popen(["sleep", "3600"])
    reuser = subprocess.Popen(["sleep", "3600"])  # the dead referee's number, taken later
    cgroup = parent / f"arena-{reuser.pid}-mk{secrets.token_hex(8)}"
    try:
        cgroup.mkdir()
        (cgroup / "cgroup.procs").write_text(str(stray.pid))
        assert cgroup in sweep_dead_cgroups(parent) and not cgroup.exists()
        assert stray.wait(timeout=STARTUP_S) == -signal.SIGKILL
        assert reuser.poll() is None
    finally:
        for proc in (stray, reuser):
            proc.kill()
            proc.wait()
        with contextlib.suppress(OSError):
            cgroup.rmdir()


def test_strays_of_a_referee_that_died_are_killed_and_a_live_referees_are_not() -> None:
    """What a dead referee's sandbox left running (its box named by its pid) is killed by the
    next referee; the same process in a live referee's box is left alone. The dead referee is
    a process that ended after its stray started, as a referee's bots start before it dies:
    whatever took its number since started after the stray too."""
    started: dict[str, tuple[Path, subprocess.Popen[bytes]]] = {}
    try:
        started["live"] = _stray_in_a_box(str(os.getpid()))
        started["dead"] = _stray_in_a_box("0")
        gone = subprocess.Popen(["true"])
        gone.wait()
        started["dead"] = (_owned_by(started["dead"][0], gone.pid), started["dead"][1])
        killed = kill_strays()
        assert started["dead"][1].pid in killed
        assert started["dead"][1].wait(timeout=STARTUP_S) == -signal.SIGKILL
        assert started["live"][1].pid not in killed
        assert started["live"][1].poll() is None
    finally:
        for box, proc in started.values():
            proc.kill()
            proc.wait()
            shutil.rmtree(box)


def test_strays_of_a_dead_referee_whose_pid_was_reused_are_killed() -> None:
    """A busy machine gives a dead referee's pid to another process: that one started after
    the referee's bots, so it is not their referee, and they are killed; it is not."""
    box, stray = _stray_in_a_box("0")
    reuser = subprocess.Popen(["sleep", "3600"])  # the dead referee's number, taken later
    try:
        box = _owned_by(box, reuser.pid)
        killed = kill_strays()
        assert stray.pid in killed
        assert stray.wait(timeout=STARTUP_S) == -signal.SIGKILL
        assert reuser.pid not in killed and reuser.poll() is None
    finally:
        for proc in (stray, reuser):
            proc.kill()
            proc.wait()
        shutil.rmtree(box)


def test_bots_run_unprivileged_when_the_referee_is_root(report: SandboxReport) -> None:
    if os.geteuid() != 0:
        pytest.skip("the referee is not root")
    if not report.active("user"):
        pytest.skip("the user layer is off in this mode")
    assert report.uid not in (None, 0)
    assert drops_privileges(report)


def test_each_bot_gets_a_uid_of_its_own_so_none_uses_up_anothers_processes(
        tmp_path: Path, report: SandboxReport) -> None:
    """RLIMIT_NPROC counts per uid: with one uid for every bot, a bot forking to its limit
    left the others no room for a thread (the QA's forfeit-by-fork)."""
    if os.geteuid() != 0 or report.uid is None:
        pytest.skip("bots run as the referee's own user")
    (tmp_path / "victim").mkdir()
    (tmp_path / "hog").mkdir()
    victim_dir = write_bot(tmp_path / "victim", (
        "import os, sys, threading\nprint(os.getuid(), flush=True)\nsys.stdin.readline()\n"
        "threads = [threading.Thread(target=sys.stdin.readline) for _ in range(4)]\n"
        "[t.start() for t in threads]\nprint('threads ok', flush=True)\n"))
    hog_dir = write_bot(tmp_path / "hog", (
        "import os, sys, time\nprint(os.getuid(), flush=True)\nn = 0\n"
        "while True:\n"
        "    try:\n        pid = os.fork()\n    except OSError:\n        break\n"
        "    if pid == 0:\n        time.sleep(3600)\n        os._exit(0)\n    n += 1\n"
        "print('forked', n, flush=True)\ntime.sleep(3600)\n"))
    limits = Limits(processes=8)
    victim = launch(["python3", "bot.py"], workdir=victim_dir, report=report, limits=limits)
    hog = launch(["python3", "bot.py"], workdir=hog_dir, report=report, limits=limits)
    to_victim, to_hog = SubprocessTransport(victim), SubprocessTransport(hog)

    def line(transport: SubprocessTransport) -> str:
        got = transport.receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Line), (got, transport.process.stderr_text())
        return got.text

    try:
        uids = [int(line(to_victim)), int(line(to_hog))]
        assert uids[0] != uids[1] and all(UID_BASE <= u < UID_BASE + UID_SPAN for u in uids)
        assert line(to_hog).startswith("forked ")  # up to its own limit
        to_victim.send_line(b"go\n")
        assert line(to_victim) == "threads ok"
    finally:
        for proc in (victim, hog):
            proc.kill_all()
            assert_nothing_left(proc)


def test_marker_finds_every_process_of_a_bot(tmp_path: Path, report: SandboxReport) -> None:
    marker = "mk" + secrets.token_hex(8)
    bot_dir = write_bot(tmp_path, "import os, time\nos.fork()\nprint('x', flush=True)\n"
                                  "time.sleep(3600)\n")
    with launch(["python3", "bot.py"], workdir=bot_dir, marker=marker, report=report) as proc:
        run_to_line(proc)
        assert len(find_processes(marker=marker, include_zombies=False)) >= 2
    assert find_processes(marker=marker) == []


def test_a_bot_starts_with_no_stop_signal_blocked(tmp_path: Path,
                                                  report: SandboxReport) -> None:
    """The referee holds SIGINT and SIGTERM across the fork; the bot must not inherit that
    (the SDK's clean exit on SIGTERM, and any bot's own handlers, rely on it)."""
    bot_dir = write_bot(tmp_path, (
        "for line in open('/proc/self/status'):\n"
        "    if line.startswith('SigBlk:'):\n"
        "        print(int(line.split()[1], 16), flush=True)\n"))
    with launch(["python3", "bot.py"], workdir=bot_dir, report=report) as proc:
        blocked = int(run_to_line(proc).text)
    for signum in (signal.SIGINT, signal.SIGTERM):
        assert not blocked & (1 << (signum - 1)), hex(blocked)


SIGNALS_AS_A_WORKER_HOLDS_THEM = r"""
import signal, sys, threading, time
from pathlib import Path
from arena.sandbox import launch
from arena.protocol.transport import Line, SubprocessTransport

signal.signal(signal.SIGINT, signal.SIG_IGN)  # a pool worker: the parent handles Ctrl-C
seen = []

def start() -> None:  # a league's vet thread holds both
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    with launch(["python3", "bot.py"], workdir=Path(sys.argv[1])) as proc:
        seen.append(SubprocessTransport(proc).receive(time.monotonic() + 60))

thread = threading.Thread(target=start)
thread.start()
thread.join()
print(seen[0].text if isinstance(seen[0], Line) else seen[0], flush=True)
"""


def test_a_bot_started_by_a_worker_or_a_vet_has_its_stop_signals_as_anywhere(
        tmp_path: Path) -> None:
    """A tournament worker ignores Ctrl-C (its parent handles it) and a league's vet thread
    blocks the stop signals: a bot started there must start as under check-bot, neither
    blocked nor ignored, or it would behave otherwise in a tournament than when checked."""
    bot_dir = write_bot(tmp_path, (
        "masks = dict(line.split(':') for line in open('/proc/self/status')\n"
        "             if line.startswith(('SigBlk:', 'SigIgn:')))\n"
        "print(' '.join(str(int(masks[k].strip(), 16)) for k in ('SigBlk', 'SigIgn')),\n"
        "      flush=True)\n"))
    script = tmp_path / "as_a_worker.py"
    script.write_text(SIGNALS_AS_A_WORKER_HOLDS_THEM)
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, str(script), str(bot_dir)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 0, (done.stdout, done.stderr)
    blocked, ignored = map(int, done.stdout.split())
    for signum in (signal.SIGINT, signal.SIGTERM):
        assert not blocked & (1 << (signum - 1)), hex(blocked)
        assert not ignored & (1 << (signum - 1)), hex(ignored)


STOP_DURING_FORK = r"""
import os, signal, sys, tempfile
from pathlib import Path
from arena.sandbox import launch

def stop(signum, frame):
    raise SystemExit(143)  # what a tournament worker does on SIGTERM

signal.signal(signal.SIGTERM, stop)
os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGTERM))
bot = Path(sys.argv[1])
try:
    proc = launch(["python3", "bot.py"], workdir=bot, marker=sys.argv[2])
finally:
    print("boxes", sorted(p.name for p in Path(tempfile.gettempdir()).glob(
        f"arena-box-{os.getpid()}-*")), flush=True)
print("the stop was lost: launch returned", proc, flush=True)
"""


def test_a_stop_signal_during_the_fork_is_raised_after_it_and_leaves_nothing(
        tmp_path: Path) -> None:
    """A SIGTERM landing in the fork's at-fork hooks (logging's lock release) used to be
    printed as "Exception ignored" and lost: the tournament worker went on playing."""
    bot_dir = write_bot(tmp_path, "import time\nprint('up', flush=True)\ntime.sleep(3600)\n")
    marker = "mk" + secrets.token_hex(8)
    script = tmp_path / "stop_during_fork.py"
    script.write_text(STOP_DURING_FORK)
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, str(script), str(bot_dir), marker],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 143, (done.stdout, done.stderr)
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.splitlines() == ["boxes []"]
    assert find_processes(marker=marker) == []


def test_a_directory_made_a_link_while_the_bot_is_copied_is_not_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's directory may belong to its author, who can swap one of its directories for
    a link to a place only the referee may read while the referee copies it (the box's
    appearance in /tmp says when): the copy must not follow it."""
    from arena.sandbox import workdir

    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "data.txt").write_text("the referee's secret\n")
    bot = write_bot(tmp_path, "print('hello')\n")
    (bot / "data").mkdir()
    (bot / "data" / "data.txt").write_text("the bot's own data\n")
    scandir = os.scandir

    def racing(path: Any = ".") -> Any:  # the author's swap, just as data/ is listed
        if str(path) == str(bot / "data") and not (bot / "data").is_symlink():
            (bot / "data").rename(bot / "data.real")
            (bot / "data").symlink_to(secret)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", racing)
    dest = tmp_path / "box" / "bot"
    dest.parent.mkdir()
    with pytest.raises(SandboxError) as info:
        workdir.copy_bot(bot, dest, None)
    assert str(info.value) == ("the bot's files changed while they were copied: data is a "
                               "symbolic link now")
    assert not (dest / "data" / "data.txt").exists()


def test_the_copy_holds_at_most_so_many_files(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Files added after the bot was checked are counted by the copy itself."""
    from arena.sandbox import workdir

    monkeypatch.setattr(workdir, "MAX_BOT_FILES", 3)
    bot = write_bot(tmp_path, "print('hello')\n")
    for i in range(3):
        (bot / f"data{i}.txt").write_text("x")
    dest = tmp_path / "box" / "bot"
    dest.parent.mkdir()
    with pytest.raises(SandboxError) as info:
        workdir.copy_bot(bot, dest, None)
    assert str(info.value) == "the bot holds more than 3 files"


@pytest.mark.parametrize("kind", ["directory", "module"])
def test_a_parent_of_the_bot_made_a_link_after_its_check_is_not_followed(
        tmp_path: Path, kind: str) -> None:
    """Its author may own a parent of the bot's path: swapped for a link to a place holding
    a same-named bot (the same files, and a file of someone else's beside them) just after
    the table's check, the copy must not take that place's files."""
    from arena.registry import files_unchanged, spec_from_path
    from arena.sandbox import workdir

    own, elsewhere = tmp_path / "author" / "bots", tmp_path / "elsewhere"
    for root in (own, elsewhere):
        (root / "mybot").mkdir(parents=True)
        (root / "mybot" / "bot.py").write_text("print('hello')\n")
        (root / "mybot.py").write_text("print('hello')\n")
    (elsewhere / "mybot" / "secret.txt").write_text("the referee's secret\n")
    (elsewhere / "mybot.py").write_text("print('hello')\n# the referee's secret\n")
    bot = own / ("mybot" if kind == "directory" else "mybot.py")
    spec = spec_from_path(bot)
    assert files_unchanged(spec)  # the table's check
    own.rename(tmp_path / "author" / "bots.real")  # the author's swap, just after it
    own.symlink_to(elsewhere)
    dest = tmp_path / "box" / "bot"
    dest.parent.mkdir()
    with pytest.raises(SandboxError) as info:
        workdir.copy_bot(spec.path, dest, None)
    assert str(info.value) == (f"the bot's files changed while they were copied: {own} is a "
                               "symbolic link now")
    assert not (dest / "secret.txt").exists()
    assert "secret" not in "".join(p.read_text() for p in dest.rglob("*") if p.is_file())


@pytest.mark.parametrize("kind", ["directory", "module"])
def test_a_launch_runs_only_a_copy_that_hashes_to_the_checked_version(
        tmp_path: Path, report: SandboxReport, monkeypatch: pytest.MonkeyPatch,
        kind: str) -> None:
    """The copy is hashed as it is written, with the formula of a bot's version: an edit
    made between the table's check and the copy (here just as the copy begins) is refused
    with no box left behind; an unchanged bot starts, and a file added to its directory
    since (an editor's swap file, say) is not copied: the version does not name it."""
    import arena.sandbox.spawn
    from arena.errors import FilesChangedError
    from arena.referee.launch import _version_files
    from arena.registry import spec_from_path

    bot_dir = write_bot(tmp_path, "import os\nprint(sorted(os.listdir('.')), flush=True)\n")
    (bot_dir / "lib").mkdir()
    (bot_dir / "lib" / "data.txt").write_text("the bot's own data\n")
    (bot_dir / "__pycache__").mkdir()  # caches are in neither the version nor the copy
    (bot_dir / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    bot = bot_dir if kind == "directory" else bot_dir / "bot.py"
    spec = spec_from_path(bot)
    (bot_dir / ".bot.py.swp").write_text("added since the check\n")
    with launch(["python3", "bot.py"], workdir=bot, report=report,
                files_digest=spec.files_digest, files=_version_files(spec)) as proc:
        assert run_to_line(proc).text == str(["bot.py", "lib"] if kind == "directory"
                                             else ["bot.py"])
    real_copy = arena.sandbox.spawn.copy_bot

    def edited_first(workdir: Path, dest: Path, gid: int | None,
                     only: frozenset[str] | None = None) -> str:
        (bot_dir / "bot.py").write_text("print('edited', flush=True)\n")
        return real_copy(workdir, dest, gid, only)

    monkeypatch.setattr(arena.sandbox.spawn, "copy_bot", edited_first)
    before = set(Path(tempfile.gettempdir()).glob(f"{BOX_PREFIX}{os.getpid()}-*"))
    with pytest.raises(FilesChangedError) as info:
        launch(["python3", "bot.py"], workdir=bot, report=report,
               files_digest=spec.files_digest, files=_version_files(spec))
    (bot_dir / ".bot.py.swp").unlink()
    assert str(info.value) == (f"the bot's files at {bot} changed since they were checked "
                               f"(version {spec.files_digest}, copied "
                               f"{spec_from_path(bot).files_digest})")
    assert set(Path(tempfile.gettempdir()).glob(f"{BOX_PREFIX}{os.getpid()}-*")) <= before


@pytest.mark.parametrize("kind", ["directory", "module"])
def test_a_hard_link_made_after_the_bots_check_is_not_copied(tmp_path: Path, kind: str) -> None:
    """The bot's check refuses a hard link to a file outside it; its author may make one
    after the check (before a launch, or a restart a crash asks for), and the copy held
    the other file's content where the bot could read it. Links within the bot are kept."""
    from arena.sandbox import workdir

    outside = tmp_path / "outside.txt"
    outside.write_text("not the bot's\n")
    bot = write_bot(tmp_path, "print('hello')\n")
    (bot / "own.txt").write_text("the bot's own\n")
    os.link(bot / "own.txt", bot / "own-too.txt")
    if kind == "directory":
        os.link(outside, bot / "data.txt")
        source = bot
    else:
        source = tmp_path / "module.py"
        os.link(outside, source)
    dest = tmp_path / "box" / "bot"
    dest.parent.mkdir()
    with pytest.raises(SandboxError) as info:
        workdir.copy_bot(source, dest, None)
    shown = "data.txt" if kind == "directory" else "module.py"
    assert str(info.value) == (f"the bot's files changed while they were copied: {shown} is "
                               "a hard link to a file outside the bot now (2 names, 1 of them "
                               "in the bot)")
    assert not (dest / shown).exists()
    if kind == "directory":
        os.unlink(bot / "data.txt")
        other = tmp_path / "box" / "again"
        workdir.copy_bot(bot, other, None)
        assert (other / "own-too.txt").read_text() == "the bot's own\n"


HOST_ZONE = """\
import json, os, time
try:
    with open("/etc/localtime", "rb") as f:
        shown = f.read()[:4].decode("latin-1")
except OSError as exc:
    shown = type(exc).__name__
del os.environ["TZ"]
time.tzset()
print(json.dumps({"localtime": shown, "utc_offset": time.localtime().tm_gmtoff}), flush=True)
"""


def test_a_bot_is_not_shown_the_hosts_time_zone(tmp_path: Path,
                                                report: SandboxReport) -> None:
    """TZ=UTC sets a bot's local time, but /etc/localtime was bound in as well: the host's
    zone, whole, to a bot that read it (or dropped TZ). It is no longer needed."""
    if not has(report, "bwrap"):
        pytest.skip("without bubblewrap /etc/localtime is a link into /usr, which the bot "
                    "reads (docs/SANDBOX.md, 'What is left')")
    if not os.path.exists("/etc/localtime"):
        pytest.skip("this host has no /etc/localtime to hide")
    bot_dir = write_bot(tmp_path, HOST_ZONE)
    with launch(["python3", "bot.py"], workdir=bot_dir, report=report) as proc:
        seen = json.loads(run_to_line(proc).data)
    assert seen["localtime"] in ("FileNotFoundError", "PermissionError")
    assert seen["utc_offset"] == 0


def test_a_start_stuck_before_its_exec_fails_at_its_startup_limit(tmp_path: Path) -> None:
    """A bot's start whose child is stuck between fork and exec (:mod:`fork_trap`) fails
    once its start-up limit has passed, the child killed and reaped: it held the start, and
    the referee's thread with it, for good (no limit counted before the exec)."""
    from fork_trap import stuck_start

    probe()  # its own starts, once per process, before the trap is armed
    (tmp_path / "bot.py").write_text("print('never run')\n")
    with stuck_start() as trap:
        thread, outcome = trap.start(lambda: launch(
            ["python3", "bot.py"], workdir=tmp_path / "bot.py", limits=Limits(startup_ms=300)))
        child = trap.child()
        assert child, f"the start did not fork into the hook: {outcome}"
        thread.join(60)  # a bound on a wait that, stuck, never ends; not a measure
        assert not thread.is_alive(), "the start is still stuck"
        assert outcome == ["cannot start the bot: its process had not run its command within "
                           "startup_ms (300 ms), stuck between its fork and its exec"]
        assert not Path(f"/proc/{child}").exists(), "the stuck child was not ended and reaped"
