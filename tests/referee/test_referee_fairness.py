"""CPU fairness: a bot not asked to decide gets no CPU. The spinner (tests/fixtures/bots/)
leaves helpers behind that spin in sessions of their own; while the honest bot is asked, every
process of the spinner must be stopped, under each sandbox mode, and a bot stopped between
its decisions still ends the match normally (``bye`` read, nothing left). With ``ponder`` the
spinner keeps running. Behaviour is asserted (process states, CPU time), never timing."""

from __future__ import annotations

import datetime as dt
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.protocol import messages
from arena.referee.connection import Connection, Received
from arena.referee.keeper import BotKeeper
from arena.referee.launch import TransportConnection, sandbox_launcher
from arena.referee.match import MatchRequest, play_match
from arena.referee.pause import _Signaller, pause, resume, send_queued_stops
from arena.registry import resolve
from arena.sandbox import Limits, SandboxReport, probe
from arena.sandbox.reaper import find_processes
from arena.sandbox.uids import UID_BASE, UID_SPAN

ROOT = Path(__file__).resolve().parents[2]
SPINNER = ROOT / "tests" / "fixtures" / "bots" / "spinner"
RANDOM = ROOT / "bots" / "random.py"
LIMITS = Limits(decision_ms=2000, time_bank_ms=0, bye_grace_ms=1000)
#: How long a stop is waited for to show in /proc: generous, only a failure waits it out.
SETTLE_S = 5.0
MODES = {"probed": (), "no-bwrap": ("bwrap",), "bare": ("bwrap", "landlock", "seccomp",
                                                       "cgroup")}

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")


@pytest.fixture(params=list(MODES))
def report(request: pytest.FixtureRequest) -> SandboxReport:
    off = MODES[request.param]
    return probe(disable=set(off)) if off else probe()


def processes(conn: TransportConnection) -> list[int]:
    """Every live process of the bot: by its own uid (a root referee), else its marker."""
    assert conn.proc is not None
    uid = conn.proc.uid
    if uid is not None:
        return find_processes(uid=uid, include_zombies=False)
    return find_processes(marker=conn.marker, include_zombies=False)


def stat(pid: int) -> tuple[str, int]:
    """State and CPU ticks (user + system) of a process; ("X", 0) once gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "X", 0
    fields = text[text.rfind(")") + 2:].split()
    return fields[0], int(fields[11]) + int(fields[12])


def frozen(cgroup: Path, pids: Sequence[int]) -> bool:
    """Whether the cgroup is frozen (the kernel says so once every process in it is) and
    every one of ``pids`` is in it."""
    try:
        events = (cgroup / "cgroup.events").read_text().split()
        members = {int(pid) for pid in (cgroup / "cgroup.procs").read_text().split()}
    except OSError:
        return False
    state = dict(zip(events[::2], events[1::2], strict=False))
    return state.get("frozen") == "1" and all(
        pid in members or stat(pid)[0] in ("X", "Z") for pid in pids)


def all_stopped(conn: TransportConnection, pids: Sequence[int]) -> bool:
    """Every process of the bot is stopped (SIGSTOP) or frozen (its cgroup's freezer)."""
    assert conn.proc is not None
    if conn.proc.frozen and conn.proc.cgroup is not None:
        return frozen(conn.proc.cgroup, pids)
    return all(stat(pid)[0] in ("T", "t", "X", "Z") for pid in pids)


def settled(conn: TransportConnection, pids: Sequence[int]) -> bool:
    """Whether every process shows as stopped, waiting up to SETTLE_S (a SIGSTOP is
    delivered when the kernel next schedules the process, not when kill() returns; a
    freezer freezes each when it next runs)."""
    end = time.monotonic() + SETTLE_S
    while not all_stopped(conn, pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


class Watch:
    """The sandbox launcher under one mode; while the honest bot waits for an answer, the
    spinner's processes are looked at."""

    def __init__(self, report: SandboxReport, wait: bool) -> None:
        self.inner = sandbox_launcher(report)
        self.wait = wait
        self.spinner: TransportConnection | None = None
        self.made: list[TransportConnection] = []
        #: Per decision of the honest bot: (spinner processes, all stopped, CPU unchanged).
        self.seen: list[tuple[int, bool, bool]] = []

    def __call__(self, command: Sequence[str], workdir: Any, limits: Any) -> Connection:
        conn = self.inner(command, workdir, limits)
        assert isinstance(conn, TransportConnection)
        self.made.append(conn)
        if Path(workdir) == SPINNER:
            self.spinner = conn
            return conn
        return Observed(conn, self)


class Observed:
    """The honest bot's connection: each answer it waits for is watched."""

    def __init__(self, conn: TransportConnection, watch: Watch) -> None:
        self.conn, self.watch, self.asked = conn, watch, False

    def send(self, data: bytes) -> bool:
        self.asked = self.asked or b'"type":"act"' in data
        return self.conn.send(data)

    def receive(self, deadline: float) -> Received:
        spinner = self.watch.spinner
        if not self.asked or spinner is None or spinner.proc is None:
            return self.conn.receive(deadline)
        self.asked = False
        pids = processes(spinner)
        stopped = settled(spinner, pids) if self.watch.wait else all_stopped(spinner, pids)
        before = [stat(pid)[1] for pid in pids]
        got = self.conn.receive(deadline)
        after = [stat(pid)[1] for pid in pids]
        self.watch.seen.append((len(pids), stopped, before == after))
        return got

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def play(report: SandboxReport, ponder: bool) -> tuple[Any, Watch]:
    watch = Watch(report, wait=not ponder)
    outcome = play_match(MatchRequest(
        bots=[resolve(SPINNER), resolve(RANDOM)], games=1, seed=5, limits=LIMITS,
        launcher=watch, event_date=dt.date(2026, 11, 29), ponder=ponder))
    assert len(outcome.games) == 1 and outcome.games[0].failures == []
    for conn in watch.made:  # nothing left, stopped or not
        assert conn.marker and find_processes(marker=conn.marker) == []
        assert conn.proc is not None and (conn.proc.uid is None
                                          or find_processes(uid=conn.proc.uid) == [])
    return outcome, watch


def test_a_spinning_opponent_is_stopped_while_the_other_bot_thinks(
        report: SandboxReport) -> None:
    outcome, watch = play(report, ponder=False)
    assert watch.seen, "the honest bot was asked"
    for count, stopped, same_cpu in watch.seen:
        assert count >= 3, "the spinner and its two helpers"
        assert stopped, "every process of the spinner is stopped while the other is asked"
        assert same_cpu, "and gets no CPU until that answer"
    # Stopped between decisions, both still read 'bye' and exit by themselves.
    assert [bot["exit"] for bot in outcome.bots] == ["exit code 0", "exit code 0"]


def test_a_process_kept_for_a_later_match_waits_stopped(report: SandboxReport) -> None:
    """A worker keeps a bot's process between its matches (``BotKeeper``): meanwhile every
    process of it is stopped at once, not only when the next bot is asked."""
    watch = Watch(report, wait=True)
    keeper = BotKeeper()
    try:
        play_match(MatchRequest(
            bots=[resolve(SPINNER), resolve(RANDOM)], games=1, seed=5, limits=LIMITS,
            launcher=watch, event_date=dt.date(2026, 11, 29), keeper=keeper))
        assert watch.spinner is not None and keeper.stats()["idle"] == 2
        for conn in watch.made:  # the bot asked last as well as the other
            pids = processes(conn)
            assert pids and settled(conn, pids), conn.marker
        pids = processes(watch.spinner)
        before = [stat(pid)[1] for pid in pids]
        time.sleep(0.05)
        assert [stat(pid)[1] for pid in pids] == before, "no CPU while kept"
    finally:
        keeper.close()
    for conn in watch.made:
        assert conn.marker and find_processes(marker=conn.marker) == []


def test_with_ponder_the_spinner_keeps_running() -> None:
    outcome, watch = play(probe(), ponder=True)
    assert watch.seen and not any(stopped for _, stopped, _ in watch.seen)
    assert outcome.limits["ponder"] is True


MECHANISMS = {"cgroup": {}, "uid": {"by_cgroup": False}, "tree": {"by_cgroup": False,
                                                                  "by_uid": False}}


@pytest.mark.parametrize("mechanism", list(MECHANISMS))
def test_each_mechanism_stops_setsid_helpers_too(report: SandboxReport, mechanism: str) -> None:
    """Each way of stopping a bot, alone, stops its helpers that left its session: the
    cgroup's freezer (where the bot has a cgroup), its uid (a root referee) and, for a
    referee that is not root, the process group, then the descendants (the pid namespace's
    under bubblewrap) and the marker."""
    conn = sandbox_launcher(report)([str(part) for part in resolve(SPINNER).command],
                                    SPINNER, LIMITS)
    assert isinstance(conn, TransportConnection) and conn.proc is not None
    try:
        if mechanism == "cgroup" and conn.proc.cgroup is None:
            pytest.skip("the bot has no cgroup here")
        if mechanism == "uid" and conn.proc.uid is None:
            pytest.skip("the bot has no uid of its own here")
        conn.send(messages.hello({}))
        got = conn.receive(time.monotonic() + 60)
        assert got.kind == "line" and b"ready" in got.data
        pids = processes(conn)
        assert len(pids) >= 3
        pause(conn.proc, **MECHANISMS[mechanism])
        send_queued_stops()  # by uid, a stop waits for the next continue (of another bot)
        assert conn.proc.frozen == (mechanism == "cgroup")
        assert settled(conn, pids)
        before = [stat(pid)[1] for pid in pids]
        time.sleep(0.05)
        assert [stat(pid)[1] for pid in pids] == before, "no CPU while stopped"
        resume(conn.proc, **MECHANISMS[mechanism])
        assert not conn.proc.frozen and not all_stopped(conn, pids)
    finally:
        conn.kill()
    assert find_processes(marker=conn.marker) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root referee stops bots by uid")
def test_the_signalling_helper_imports_nothing_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper runs as root; a referee started in a bot's own directory (``arena match .
    greedy``) must not have it import that bot's ``signal.py``."""
    ran = tmp_path / "ran"
    (tmp_path / "signal.py").write_text(f"open({str(ran)!r}, 'a').write('signal')\n"
                                        "from _signal import *\n")
    monkeypatch.chdir(tmp_path)
    helper = _Signaller()
    try:
        assert helper.send(UID_BASE + UID_SPAN - 1, signal.SIGCONT, wait=True)  # no one's
    finally:
        helper.close()
    assert not ran.exists()
