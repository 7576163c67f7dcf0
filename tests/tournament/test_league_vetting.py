"""A league vets new versions aside: a vet that takes long (here one the test holds until it
lets it go) does not hold the tables back, the version enters at the first poll after its
vet ended, a refused one is refused once, and a stop does not wait for a vet, which the next
run does again."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from time import monotonic
from typing import Any

import pytest
from tournament_fixtures import FIXTURES, PassedCheck, bots_dir_for, runner, write_spec

from arena.cli.main import app
from arena.protocol.transport import Closed, Timeout
from arena.referee.connection import Connection
from arena.referee.launch import TransportConnection, sandbox_launcher
from arena.registry import BotSpec, resolve, submit
from arena.sandbox import Limits, reaper
from arena.tournament import league
from arena.tournament.events import Progress, RunWarning
from arena.tournament.league_store import request_stop
from arena.tournament.league_vetting import VetCancelled, VetQueue, VetScope
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec

#: How long a held vet waits to be let go before it gives up: a league that waits for it
#: then fails the test (slowly) instead of hanging it.
_HELD_AT_MOST_S = 60


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


@pytest.fixture
def aside(monkeypatch: pytest.MonkeyPatch) -> None:
    """The league vets on a CPU of its own, as where a CPU is left to no pinned worker."""
    from arena.common.cpus import allowed_cpus
    from arena.tournament import runner as runner_module

    monkeypatch.setattr(runner_module, "vet_cpus",
                        lambda executor: frozenset(allowed_cpus()[-1:] or [0]))


@pytest.fixture
def queues(monkeypatch: pytest.MonkeyPatch) -> list[VetQueue]:
    """The leagues' vet queues, as they are made."""
    made: list[VetQueue] = []

    class Recorded(VetQueue):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(league, "VetQueue", Recorded)
    return made


def _league(tmp_path: Path, db: Path, games: int | None) -> Path:
    data: dict[str, Any] = {"name": "ladder", "format": "league", "bots": ["*"],
                            "games_per_match": 1, "duplicate": True, "seed": 5,
                            "budget": None if games is None else {"games": games}}
    path = write_spec(tmp_path / "ladder.yaml", db, **data)
    path.write_text(path.read_text().replace("rounds: 3\n", ""))
    return path


class _HeldVet:
    """Submits a new version of ``first`` once 2 games (table 1) are recorded; its vet waits
    until the test lets it go (``release``), then says ``refusal``. Counts its vets."""

    def __init__(self, registry: Path, tmp_path: Path, refusal: str | None = None) -> None:
        self.registry, self.refusal = registry, refusal
        self.source = tmp_path / "first_v2.py"
        self.source.write_text((FIXTURES / "first.py").read_text() + "\n# v2\n")
        self.key = ""
        self.started = threading.Event()
        self.release = threading.Event()
        self.returned = threading.Event()
        self.vets: list[str] = []
        self.games_when_started = -1

    def submit(self, event: object) -> None:
        if isinstance(event, Progress) and event.done >= 2 and not self.key:
            version = submit(self.source, "first", self.registry,
                             check=lambda spec: PassedCheck(), update=True).version
            self.key = f"first@{version}"

    def __call__(self, bot: BotSpec, scope: VetScope) -> str | None:
        if bot.key != self.key:
            return None
        self.vets.append(bot.key)
        self.started.set()
        self.release.wait(_HELD_AT_MOST_S)
        self.returned.set()
        return self.refusal


def _status(db: Path) -> str:
    shown = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    return shown.stdout


def _json(db: Path) -> dict[str, Any]:
    shown = runner.invoke(app, ["status", "ladder", "--db", str(db), "--format", "json"])
    assert shown.exit_code == 0, shown.output
    return dict(json.loads(shown.stdout))


def _lines_of(key: str, db: Path) -> list[str]:
    """``arena status``'s lines on the version ``key`` among the league's entries."""
    return [line for line in _status(db).splitlines() if line.startswith(f"  {key}:")]


@pytest.mark.parametrize("refusal", [None, "failed the compliance check: too slow"])
def test_tables_go_on_while_a_version_is_vetted_and_it_enters_after_its_vet(
        tmp_path: Path, registry: Path, queues: list[VetQueue], refusal: str | None,
        aside: None) -> None:
    db = tmp_path / "a.db"
    held = _HeldVet(registry, tmp_path, refusal)
    warnings: list[str] = []
    played_while_held: list[int] = []
    shown_while_held: list[str] = []

    def report(event: object) -> None:
        held.submit(event)
        if isinstance(event, RunWarning):
            warnings.append(event.text)
        if not isinstance(event, Progress) or not held.started.is_set() or held.returned.is_set():
            return
        if not played_while_held:
            shown_while_held.extend(_lines_of(held.key, db))
            shown_while_held.extend(json.dumps(vet) for vet in _json(db)["vetting"])
        played_while_held.append(event.done)
        if event.done >= 8:  # table 4 played out: let the vet end, then wait until it has
            # still said since the table it was first seen at, not the last poll's
            shown_while_held.extend(_lines_of(held.key, db))
            held.release.set()
            queues[0].wait(_HELD_AT_MOST_S)

    run_tournament(load_spec(_league(tmp_path, db, 14)), 1, report=report, vetter=held)
    assert held.vets == [held.key]  # vetted once, refused or not
    # seen at the poll before table 2, held while tables 2 to 4 were played
    assert played_while_held[-1] - played_while_held[0] >= 4
    assert shown_while_held == [f"  {held.key}: being vetted since table 2",
                                json.dumps({"bot": held.key, "since_table": 2,
                                            "gave_way": []}),
                                f"  {held.key}: being vetted since table 2"]
    entries = _lines_of(held.key, db)
    if refusal is None:
        assert entries == [f"  {held.key}: active since table 5"]
    else:
        assert entries == [f"  {held.key}: refused at table 5: {refusal}"]
        assert [w for w in warnings if "refused" in w] == [f"{held.key} is refused: {refusal}"]


def test_a_stop_does_not_wait_for_a_vet_and_the_next_run_vets_again(
        tmp_path: Path, registry: Path, aside: None) -> None:
    db = tmp_path / "a.db"
    held = _HeldVet(registry, tmp_path)
    asked: list[int] = []

    def stop_while_held(event: object) -> None:
        held.submit(event)
        if isinstance(event, Progress) and held.started.is_set() and not asked:
            asked.append(event.done)
            assert runner.invoke(app, ["league", "stop", "ladder", "--db", str(db)]).exit_code == 0

    try:
        summary = run_tournament(load_spec(_league(tmp_path, db, None)), 1,
                                 report=stop_while_held, vetter=held)
        assert summary.state == "stopped"
        assert not held.returned.is_set()  # the vet was still held when the run ended
    finally:
        held.release.set()
    assert held.key not in _status(db)  # nothing stored for it: not refused, not entered
    again = _HeldVet(registry, tmp_path)
    again.key = held.key
    again.release.set()
    more = run_tournament(load_spec(_league(tmp_path, db, summary.games_done + 8)), 1,
                          vetter=again)
    assert more.state == "finished"
    assert again.vets == [held.key]
    assert f"  {held.key}: active since table " in _status(db)


def test_a_league_left_too_few_to_fill_a_table_waits_for_the_vet_under_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Edited in place, the only other bot's version leaves at the poll that sees the edit,
    before the edit's vet ended: the league waits for that vet rather than stop for want of
    bots."""
    registry = bots_dir_for(tmp_path, monkeypatch, "first", "last")
    db = tmp_path / "a.db"
    edited: list[bool] = []

    def edit(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 2 and not edited:
            target = registry / "first.py"
            target.write_text(target.read_text() + "\n# edited in place\n")
            edited.append(True)

    summary = run_tournament(load_spec(_league(tmp_path, db, 8)), 1, report=edit,
                             vetter=lambda bot, scope: None)
    assert (summary.state, summary.games_done) == ("finished", 8)
    status = _status(db)
    assert "retired: its files changed or went away by table 2" in status
    assert ": active since table 2" in status


def test_a_league_vets_beside_its_tables_only_on_a_cpu_no_worker_is_pinned_to() -> None:
    """A vetted bot beside the tables took their bots' CPU against their clocks (a version
    could spin up to its decision time at every check decision): it is vetted beside them
    only where pinned workers leave a CPU to it, else between tables (the n + 1 tests of
    test_league.py count that)."""
    from arena.common.cpus import allowed_cpus
    from arena.tournament.pool import LocalPool
    from arena.tournament.runner import vet_cpus

    cpus = allowed_cpus()
    assert vet_cpus(LocalPool(1)) is None  # not pinned: a table's bots may run anywhere
    assert vet_cpus(LocalPool(len(cpus) or 1, pin_workers=True)) is None
    if len(cpus) > 1:
        assert vet_cpus(LocalPool(1, pin_workers=True)) == frozenset(cpus[1:])


class _Line:
    """Holds the vet of a new version of ``first`` (submitted once table 1 is played) while
    it submits ``then``'s versions (bot name, a tag making the version), one after each table
    played, then lets it go; records the vets in order, and ``arena status`` (text and JSON)
    just before it lets go."""

    def __init__(self, registry: Path, tmp_path: Path, then: list[tuple[str, str]]) -> None:
        self.registry, self.tmp_path, self.then = registry, tmp_path, list(then)
        self.first = ""
        self.submitted: list[tuple[str, int]] = []  # key, the table it is seen at
        self.vets: list[str] = []
        self.held = threading.Event()
        self.release = threading.Event()
        self.shown: tuple[str, dict[str, Any]] | None = None

    def _submit(self, name: str, tag: str) -> str:
        source = self.tmp_path / f"{name}_{tag}.py"
        source.write_text((FIXTURES / f"{name}.py").read_text() + f"\n# {tag}\n")
        version = submit(source, name, self.registry, check=lambda spec: PassedCheck(),
                         update=True).version
        return f"{name}@{version}"

    def report(self, db: Path, event: object) -> None:
        if (not isinstance(event, Progress) or event.done < 2 or event.done % 2
                or self.release.is_set()):
            return
        seen_at = event.done // 2 + 1  # 2 games a table: seen at the poll before the next
        if not self.first:
            self.first = self._submit("first", "v2")
        elif self.held.is_set() and self.then:
            name, tag = self.then.pop(0)
            self.submitted.append((self._submit(name, tag), seen_at))
        elif self.held.is_set():
            self.shown = _status(db), _json(db)
            self.release.set()

    def __call__(self, bot: BotSpec, scope: VetScope) -> str | None:
        self.vets.append(bot.key)
        if bot.key == self.first:
            self.held.set()
            self.release.wait(_HELD_AT_MOST_S)
        return None


def test_versions_waiting_for_their_vet_are_vetted_in_the_order_first_seen(
        tmp_path: Path, registry: Path, aside: None) -> None:
    """``last`` seen before ``hashed``: vetted before it, whatever their names' order."""
    db = tmp_path / "a.db"
    line = _Line(registry, tmp_path, [("last", "v2"), ("hashed", "v2")])
    run_tournament(load_spec(_league(tmp_path, db, 24)), 1,
                   report=lambda event: line.report(db, event), vetter=line)
    assert line.vets == [line.first, *(key for key, _ in line.submitted)]
    assert len(line.vets) == 3


def test_a_newer_version_takes_the_place_of_one_still_waiting_for_its_vet(
        tmp_path: Path, registry: Path, aside: None) -> None:
    """The older one is never vetted nor entered, and arena status says it gave way."""
    db = tmp_path / "a.db"
    line = _Line(registry, tmp_path, [("last", "v2"), ("last", "v3")])
    run_tournament(load_spec(_league(tmp_path, db, 24)), 1,
                   report=lambda event: line.report(db, event), vetter=line)
    (older, _), (newer, seen_at) = line.submitted
    assert line.vets == [line.first, newer]
    assert line.shown is not None
    text, data = line.shown
    assert f"  {newer}: being vetted since table {seen_at} ({older} gave way to it before " \
           "its vet ended)" in text.splitlines()
    assert not [line for line in text.splitlines() if line.startswith(f"  {older}")]
    assert {"bot": newer, "since_table": seen_at, "gave_way": [older]} in data["vetting"]
    assert older not in _status(db)
    assert f"  {newer}: active since table " in _status(db)
    board = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db), "--all-versions"])
    assert board.exit_code == 0 and newer.split("@")[1] in board.stdout
    assert older.split("@")[1] not in board.stdout


def test_versions_seen_while_the_league_waits_for_a_vet_keep_their_order(
        tmp_path: Path, registry: Path) -> None:
    """Vetted between tables, the league polls again and again at one table's number while
    it waits: ``last`` submitted before ``hashed`` is still vetted (and listed) first."""
    db = tmp_path / "a.db"
    line = _Line(registry, tmp_path, [])
    listed: list[list[str]] = []

    def shown(key: str) -> None:
        for _ in range(_HELD_AT_MOST_S * 10):  # the league polls every half second meanwhile
            vetted = [vet["bot"] for vet in _json(db)["vetting"]]
            if key in vetted:
                listed.append(vetted)
                return
            threading.Event().wait(0.1)

    def vetter(bot: BotSpec, scope: VetScope) -> str | None:
        line.vets.append(bot.key)
        if bot.key == line.first:
            for name in ("last", "hashed"):
                key = line._submit(name, "v2")
                line.submitted.append((key, 0))
                shown(key)
        return None

    def report(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 2 and not line.first:
            line.first = line._submit("first", "v2")

    run_tournament(load_spec(_league(tmp_path, db, 16)), 1, report=report, vetter=vetter)
    order = [line.first, *(key for key, _ in line.submitted)]
    assert listed[-1] == order
    assert line.vets == order


class _RunningVet:
    """Vets ``first``'s version ``v2`` (submitted once table 1 is played) by starting it in
    the sandbox, in the vet's scope, and waiting for its first line, which never comes (it
    waits for a 'hello' never sent): held until its process ends, with ``during`` called
    meanwhile. Records each vet, how the held one's wait ended, and its bot's marker."""

    def __init__(self, registry: Path, tmp_path: Path,
                 during: Callable[[], None] = lambda: None) -> None:
        self.registry, self.tmp_path, self.during = registry, tmp_path, during
        self.held = ""
        self.vets: list[str] = []
        self.waited = ""
        self.marker: str | None = None
        self.returned = threading.Event()

    def submit(self, tag: str) -> str:
        source = self.tmp_path / f"first_{tag}.py"
        source.write_text((FIXTURES / "first.py").read_text() + f"\n# {tag}\n")
        version = submit(source, "first", self.registry, check=lambda spec: PassedCheck(),
                         update=True).version
        return f"first@{version}"

    def report(self, event: object) -> None:
        if isinstance(event, Progress) and event.done >= 2 and not self.held:
            self.held = self.submit("v2")

    def __call__(self, bot: BotSpec, scope: VetScope) -> str | None:
        self.vets.append(bot.key)
        if bot.key != self.held:
            return None
        connection = scope.launch(bot.command, bot.path, Limits())
        assert isinstance(connection, TransportConnection)
        try:
            self.marker = connection.marker
            self.during()
            self.waited = connection.receive(monotonic() + _HELD_AT_MOST_S).kind
        finally:
            connection.kill()
            self.returned.set()
        return None


def _left_running(marker: str | None) -> list[int]:
    assert marker is not None
    return reaper.find_processes(marker=marker, include_zombies=False)


def test_a_vet_a_newer_version_replaces_is_cancelled_and_the_newer_one_enters(
        tmp_path: Path, registry: Path) -> None:
    """Vetted between tables, the league waits for the vet under way: a newer version of its
    bot ends it there and then (its bot killed, what it found dropped, never entered) and
    is vetted next; arena status says the older one gave way, as one never vetted."""
    db = tmp_path / "a.db"
    listed: list[dict[str, Any]] = []
    vetting = _RunningVet(registry, tmp_path)
    newer: list[str] = []
    vetting.during = lambda: newer.append(vetting.submit("v3"))

    def vetter(bot: BotSpec, scope: VetScope) -> str | None:
        if newer and bot.key == newer[0]:
            for _ in range(_HELD_AT_MOST_S * 10):  # the rows are stored as its vet starts
                listed[:] = _json(db)["vetting"]
                if any(vet["bot"] == bot.key for vet in listed):
                    break
                threading.Event().wait(0.1)
        return vetting(bot, scope)

    summary = run_tournament(load_spec(_league(tmp_path, db, 8)), 1, report=vetting.report,
                             vetter=vetter)
    assert summary.state == "finished"
    assert vetting.waited == "closed"  # its bot was killed: the wait did not run out
    assert _left_running(vetting.marker) == []
    assert vetting.vets == [vetting.held, newer[0]]
    assert listed == [{"bot": newer[0], "since_table": 2, "gave_way": [vetting.held]}]
    assert vetting.held not in _status(db)
    assert f"  {newer[0]}: active since table 2" in _status(db)


def test_a_stop_cancels_the_vet_under_way(tmp_path: Path, registry: Path,
                                          aside: None) -> None:
    """The run stops at once, and the vet's bot does not outlive it."""
    db = tmp_path / "a.db"
    vetting = _RunningVet(registry, tmp_path, lambda: request_stop(db, "ladder"))
    summary = run_tournament(load_spec(_league(tmp_path, db, None)), 1,
                             report=vetting.report, vetter=vetting)
    assert summary.state == "stopped"
    assert vetting.returned.wait(_HELD_AT_MOST_S)
    assert vetting.waited == "closed"
    assert _left_running(vetting.marker) == []
    assert vetting.held not in _status(db)


def test_the_compliance_check_of_a_cancelled_vet_ends_with_its_bot(tmp_path: Path) -> None:
    """A bot that never answers 'hello' (its start-up limit an hour) is vetted; the version
    dropped, its vet ends (its bot killed) and says nothing."""
    source = tmp_path / "sleeper.py"
    source.write_text("import time\ntime.sleep(3600)\n"
                      + (FIXTURES / "first.py").read_text())
    bot = resolve(source)
    launched: list[TransportConnection] = []
    started, returned = threading.Event(), threading.Event()

    def recorded(command: Sequence[str], workdir: Path | str, limits: Limits) -> Connection:
        connection = sandbox_launcher()(command, workdir, limits)
        assert isinstance(connection, TransportConnection)
        launched.append(connection)
        started.set()
        return connection

    def vetter(spec: BotSpec, scope: VetScope) -> str | None:
        try:
            return league.vet(spec, scope, {"startup_ms": 3_600_000})
        finally:
            returned.set()

    queue = VetQueue(vetter, launcher=recorded)
    queue.want([bot])
    assert started.wait(_HELD_AT_MOST_S)
    queue.want([])
    assert returned.wait(_HELD_AT_MOST_S)
    assert launched[0].ended(0) is not None
    assert _left_running(launched[0].marker) == []
    assert queue.ended() == {}


def test_a_vets_bots_end_at_close_whichever_of_its_threads_launched_them() -> None:
    """The scope a vetter is handed is its one launcher, not its thread's: a bot a thread of
    the vetter's own launches through it is killed at close() too, its wait cut short."""
    bot = resolve(FIXTURES / "first.py")
    launched, waited = threading.Event(), []

    def hold_a_bot(scope: VetScope) -> None:  # the bot waits for a 'hello' never sent
        connection = scope.launch(bot.command, bot.path, Limits())
        try:
            launched.set()
            waited.append(connection.receive(monotonic() + _HELD_AT_MOST_S).kind)
        finally:
            connection.kill()

    helpers: list[threading.Thread] = []

    def vetter(spec: BotSpec, scope: VetScope) -> str | None:
        helpers.append(threading.Thread(target=hold_a_bot, args=(scope,)))
        helpers[0].start()
        helpers[0].join()
        return None

    queue = VetQueue(vetter)
    queue.want([bot])
    assert launched.wait(_HELD_AT_MOST_S)
    queue.close()
    helpers[0].join(_HELD_AT_MOST_S)
    assert waited == ["closed"]
    assert queue.ended() == {}


def test_a_vet_that_fails_once_cancelled_is_not_the_leagues_failure(tmp_path: Path) -> None:
    """Its bot killed under it, a vet may fail any way: that is dropped with it, where a
    vetter's exception otherwise stops the league."""
    bot = resolve(FIXTURES / "first.py")
    started, returned = threading.Event(), threading.Event()

    def vetter(spec: BotSpec, scope: VetScope) -> str | None:
        started.set()
        try:
            if scope.cancelled.wait(_HELD_AT_MOST_S):
                raise RuntimeError("the bot went away")
            return None
        finally:
            returned.set()

    queue = VetQueue(vetter)
    queue.want([bot])
    assert started.wait(_HELD_AT_MOST_S)
    queue.close()
    assert returned.wait(_HELD_AT_MOST_S)
    assert queue.ended() == {}
    assert not queue.busy()


class _Wrapped:
    """A bot's connection behind another class (as the bench's recorder wraps one): the
    cancellation reaches it only through the connection's own interface."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def __getattr__(self, name: str) -> Any:
        return getattr(self.connection, name)


class _SilentTransport:
    """A bot with no process that never writes: a read waits for its deadline or its close."""

    def __init__(self) -> None:
        self._closed = threading.Event()

    def send(self, message: object) -> None:
        pass

    def send_line(self, line: bytes) -> None:
        pass

    def receive(self, deadline: float) -> Timeout | Closed:
        return Closed() if self._closed.wait(max(0.0, deadline - monotonic())) else Timeout()

    def close(self) -> None:
        self._closed.set()

    def unterminated(self) -> int:
        return 0


def _wrapped_sandbox_bot(command: Sequence[str], workdir: Path | str,
                         limits: Limits) -> Connection:
    return _Wrapped(sandbox_launcher()(command, workdir, limits))


def _bot_without_a_process(command: Sequence[str], workdir: Path | str,
                           limits: Limits) -> Connection:
    return TransportConnection(_SilentTransport(), level="none")


@pytest.mark.parametrize("launcher", [_wrapped_sandbox_bot, _bot_without_a_process])
def test_a_cancelled_vet_ends_bots_of_any_connection(
        launcher: Callable[[Sequence[str], Path | str, Limits], Connection]) -> None:
    """A vet's bot whose connection is not the sandbox's own class (wrapped, or with no
    process behind it) is ended at close() too: the vet's wait for it is cut short."""
    bot = resolve(FIXTURES / "first.py")
    launched, waited, markers = threading.Event(), [], []

    def vetter(spec: BotSpec, scope: VetScope) -> str | None:
        connection = scope.launch(bot.command, bot.path, Limits())
        try:
            markers.append(getattr(connection, "marker", None))
            launched.set()
            waited.append(connection.receive(monotonic() + _HELD_AT_MOST_S).kind)
        finally:
            connection.kill()
        return None

    queue = VetQueue(vetter, launcher=launcher)
    queue.want([bot])
    assert launched.wait(_HELD_AT_MOST_S)
    began = monotonic()
    queue.close()
    while not waited and monotonic() - began < _HELD_AT_MOST_S:
        threading.Event().wait(0.05)
    assert waited == ["closed"]
    if markers[0] is not None:
        assert _left_running(markers[0]) == []
    assert queue.ended() == {}


def test_a_cancelled_vet_starts_no_bot_any_more() -> None:
    """A vet's thread may go on after its cancellation (a check between two starts): each
    start it asks for from then on is refused, never a bot process outliving the vet."""
    started: list[Sequence[str]] = []

    def launcher(command: Sequence[str], workdir: Path | str, limits: Limits) -> Connection:
        started.append(command)
        raise AssertionError("a bot started for a cancelled vet")

    scope = VetScope(launcher)
    scope.cancel()
    with pytest.raises(VetCancelled):
        scope.launch(["python3", "bot.py"], ".", Limits())
    assert started == [] and scope.cancelled.is_set()
