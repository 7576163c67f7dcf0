"""Shared fixtures of the sandbox tests: the sandbox modes to run under, hostile programs, and
the "nothing left behind" check."""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.protocol.transport import Line, Received, SubprocessTransport
from arena.sandbox import Limits, SandboxedProcess, SandboxReport, launch, probe
from arena.sandbox.reaper import find_processes

HOSTILE = Path(__file__).resolve().parent.parent / "fixtures" / "hostile"
#: Generous: a start-up is not what these tests measure, and CI machines can be slow.
STARTUP_S = 60.0

#: Sandbox modes every hostile test runs under: what the probe found, the fallback without
#: bubblewrap, bubblewrap without Landlock (a kernel older than Landlock: inside bubblewrap
#: Landlock hides most of what a weaker bubblewrap would show), and the bare minimum
#: (session, rlimits, user).
MODES = {
    "probed": (),
    "no-bwrap": ("bwrap",),
    "no-landlock": ("landlock",),
    "bare": ("bwrap", "landlock", "seccomp", "cgroup"),
}


@pytest.fixture(scope="session")
def reports() -> dict[str, SandboxReport]:
    return {name: probe(disable=off) if off else probe() for name, off in MODES.items()}


@pytest.fixture(params=list(MODES))
def report(request: pytest.FixtureRequest, reports: dict[str, SandboxReport]) -> SandboxReport:
    return reports[request.param]


def has(report: SandboxReport, *layers: str) -> bool:
    """Whether any of ``layers`` is active in ``report``."""
    return any(report.active(layer) for layer in layers)


def drops_privileges(report: SandboxReport) -> bool:
    """Whether the bot runs as another, unprivileged uid (or the referee is not root)."""
    return report.uid is not None or os.geteuid() != 0


class Bot:
    """A launched hostile program with its transport and marker."""

    def __init__(self, proc: SandboxedProcess, marker: str) -> None:
        self.proc = proc
        self.marker = marker
        self.transport = SubprocessTransport(proc)

    def receive(self, seconds: float) -> Received:
        return self.transport.receive(time.monotonic() + seconds)

    def ready(self) -> str:
        got = self.receive(STARTUP_S)
        assert isinstance(got, Line), (got, self.proc.stderr_text())
        assert got.text.startswith("ready"), got
        return got.text

    def send(self, text: str = "{}") -> None:
        self.transport.send_line(text.encode() + b"\n")


@pytest.fixture
def run_hostile(report: SandboxReport) -> Iterator:
    """``run_hostile(script, *args, limits=...)`` launches tests/fixtures/hostile/<script>
    with a fresh marker; afterwards every launched bot is killed and checked for leftovers."""
    launched: list[Bot] = []

    def run(script: str, *args: str, limits: Limits | None = None) -> Bot:
        marker = "mk" + secrets.token_hex(8)
        proc = launch(["python3", script, marker, *args], workdir=HOSTILE / script,
                      limits=limits or Limits(), marker=marker, report=report)
        bot = Bot(proc, marker)
        launched.append(bot)
        return bot

    yield run
    for bot in launched:
        bot.transport.close()
        bot.proc.kill_all()
        assert_nothing_left(bot.proc)


def zombie_children(sid: int | None = None) -> list[int]:
    """Zombie children of this process (nobody reaped them), of one session if ``sid`` is
    given. Other tests' orphans may reparent to this process (the referee is a child
    subreaper), so a bot's check looks only at its own session."""
    me = str(os.getpid())
    zombies = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] == "Z" and fields[1] == me and (sid is None or fields[3] == str(sid)):
            zombies.append(int(name))
    return zombies


def assert_nothing_left(proc: SandboxedProcess) -> None:
    """No process with the bot's marker or session, no zombie, no private directory."""
    assert find_processes(marker=proc.marker) == []
    assert find_processes(sid=proc.sid) == []
    assert zombie_children(proc.sid) == []
    assert not proc.box.exists()


def bubblewrap_runs() -> bool:
    """Whether bubblewrap itself starts a program in new pid and network namespaces here
    (the probe, asking more, must then reach its layer: a failure of ours, not the kernel's,
    would otherwise pass for a machine without it)."""
    import shutil
    import subprocess

    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    user = [] if os.geteuid() == 0 else ["--unshare-user"]
    done = subprocess.run([bwrap, "--unshare-pid", "--unshare-net", *user, "--ro-bind", "/",
                           "/", "--proc", "/proc", "--dev", "/dev", "true"],
                          capture_output=True, timeout=60)
    return done.returncode == 0


@contextlib.contextmanager
def long_call_bot(report: SandboxReport) -> Iterator[SandboxedProcess]:
    """A bot whose thread makes one long system call after another (changing the protection
    of 512 MiB), started and said ``up``; ended after, and nothing of it left."""
    proc = launch(["python3", "long_system_call.py", "512"],
                  workdir=HOSTILE / "long_system_call.py", limits=Limits(),
                  marker="mk" + secrets.token_hex(8), report=report)
    try:
        got = SubprocessTransport(proc).receive(time.monotonic() + STARTUP_S)
        assert isinstance(got, Line) and got.text == "up", proc.stderr_text()
        yield proc
    finally:
        proc.kill_all()
    assert_nothing_left(proc)

