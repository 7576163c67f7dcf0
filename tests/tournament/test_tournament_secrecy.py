"""A contest's secrets: the results database, its ``-wal`` and ``-shm`` files readable by the
arena's user alone (an existing one's mode fixed), and ``arena run`` refusing a contest (no
public seed) where bots run without bubblewrap or Landlock, unless ``--insecure``."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import socket
import stat
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from tournament_fixtures import runner, write_spec

import arena.sandbox
from arena.cli.main import app
from arena.registry import resolve
from arena.sandbox import SandboxReport
from arena.tournament import ray_bundles, ray_worker
from arena.tournament import runner as runner_module
from arena.tournament.pool import LocalPool
from arena.tournament.secrecy import bare_contest
from arena.tournament.store import Store
from arena.tournament.tasks import ErrorMessage, GameBatch, GameMessage, Message, TableTask

REFUSAL = ("Error: this tournament is a contest (its spec gives no public seed), and bots here "
           "run without bubblewrap or Landlock, where they could read its secret seed and "
           "every hand; pass --insecure to run it anyway\n")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _bare() -> SandboxReport:
    return SandboxReport(layers={"bwrap": "disabled", "landlock": "disabled", "user": True,
                                 "rlimits": True, "setsid": True}, level="user+rlimits",
                         warnings=[], python="python3")


def test_a_new_database_and_its_directory_are_private(tmp_path: Path) -> None:
    db = tmp_path / "results" / "deep" / "arena.db"
    old = os.umask(0o022)
    try:
        with Store(db) as store, store.transaction() as conn:
            conn.execute("INSERT INTO bots(name, version, path) VALUES ('a', '1', 'p')")
            for suffix in ("", "-wal", "-shm"):
                assert _mode(Path(f"{db}{suffix}")) == 0o600, suffix
    finally:
        os.umask(old)
    assert _mode(db.parent) == 0o700


def test_an_existing_readable_database_is_made_private(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "arena.db"
    with Store(db):
        pass
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            os.chmod(f"{db}{suffix}", 0o644)
    with caplog.at_level(logging.WARNING, logger="arena.tournament"), Store(db):
        assert _mode(db) == 0o600
        assert _mode(Path(f"{db}-wal")) == 0o600
    assert any("was readable by others (mode 644): now 600" in r.message
               for r in caplog.records)


def test_only_a_contest_in_the_bare_mode_is_refused() -> None:
    bare = _bare()
    assert bare_contest(None, bare) is not None
    assert bare_contest(7, bare) is None  # a public seed has no secret to keep
    for layer in ("bwrap", "landlock"):
        isolated = SandboxReport(layers={**bare.layers, layer: True}, level=layer,
                                 warnings=[], python="python3")
        assert bare_contest(None, isolated) is None


def test_arena_run_refuses_a_contest_in_the_bare_mode(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.sandbox, "probe", _bare)
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "contest.yaml", db, seed=None, format="round_robin",
                      bots=["greedy", "collector"], rounds=None, games_per_match=1)
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial"])
    assert result.exit_code == 1
    assert result.output == REFUSAL
    assert not db.exists()
    insecure = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial",
                                   "--insecure"])
    assert insecure.exit_code == 0, insecure.output
    assert "1/1 games recorded" in insecure.output


class _InProcessRay:
    """A Ray executor without Ray: each task runs through the Ray worker's own table task
    (:func:`~arena.tournament.ray_worker.play_table_stream`) in this process, its bots sent
    as bundles, its messages handed back as the Ray executor hands them."""

    bot_cpu_s: dict[str, float] = {}
    warnings: list[str] = []

    def start(self, tables: int) -> None:
        pass

    def run(self, tasks: Sequence[TableTask], on_message: Callable[[Message], None],
            last: bool = False) -> None:
        for task in tasks:
            bundles = [ray_bundles.pack_bot(bot) for bot in task.bots]
            for message in ray_worker.play_table_stream(task, ray_bundles.code_fingerprint(),
                                                        *bundles):
                if not isinstance(message, ray_worker.TableStart):
                    on_message(message)

    def stop(self) -> None:
        pass

    def close(self, kill: bool = False) -> None:
        pass


def _isolated() -> SandboxReport:
    return SandboxReport(layers={**_bare().layers, "bwrap": True}, level="bwrap+user",
                         warnings=[], python="python3")


def test_a_bare_ray_node_refuses_a_contests_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver refuses a contest on its own probe; a Ray node whose bots would run bare
    refuses each table of it itself, naming the node and what it lacks."""
    monkeypatch.setattr(ray_worker, "probe", _bare)
    contest = TableTask(tournament="t", round=1, table=3, bots=(), bot_ids=(), games=1,
                        seed=1, limits={}, event_date=dt.date(2026, 1, 1), contest=True)
    start, *messages = list(ray_worker.play_table_stream(contest,
                                                         ray_bundles.code_fingerprint()))
    assert isinstance(start, ray_worker.TableStart)
    assert len(messages) == 1 and isinstance(messages[0], ErrorMessage), messages
    assert messages[0].message == (
        f"table r1/t3 refused: this tournament is a contest (its spec gives no public seed), "
        f"and bots on the Ray node {socket.gethostname()} would run without bubblewrap or "
        "Landlock (bwrap: disabled; landlock: disabled), where they could read its secret "
        "seed and every hand; install bubblewrap on it, or pass --insecure to run it anyway")
    for task in (replace(contest, insecure=True), replace(contest, contest=False)):
        assert ray_worker._bare_contest_here(task) is None
    monkeypatch.setattr(ray_worker, "probe", _isolated)
    assert ray_worker._bare_contest_here(contest) is None


def test_arena_run_stops_at_a_bare_ray_nodes_refusal(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver has bubblewrap, the node not: the run stops at the node's refusal with one
    ``Error:`` line, as at the driver's own; --insecure reaches the node and plays."""
    monkeypatch.setattr(arena.sandbox, "probe", _isolated)
    monkeypatch.setattr(ray_worker, "probe", _bare)
    monkeypatch.setattr(runner_module, "_executor", lambda *args, **kwargs: _InProcessRay())
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "contest.yaml", db, seed=None, format="round_robin",
                      bots=["greedy", "collector"], rounds=None, games_per_match=1)
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial",
                                 "--backend", "ray"])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if "Error" in line]
    assert errors == [line for line in result.output.splitlines() if "refused" in line]
    assert len(errors) == 1 and errors[0].startswith(
        "Error: table r1/t0 refused: this tournament is a contest"), result.output
    assert f"the Ray node {socket.gethostname()} would run without" in errors[0]
    insecure = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial",
                                   "--backend", "ray", "--insecure"])
    assert insecure.exit_code == 0, insecure.output
    assert "1/1 games recorded" in insecure.output


def _command_lines() -> list[bytes]:
    lines = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                lines.append(Path(f"/proc/{name}/cmdline").read_bytes())
    return lines


def test_no_seed_is_on_a_command_line_while_a_table_plays() -> None:
    """Every process's command line is world-readable in the bare mode: the worker playing a
    table and the bots at it get the seeds through pipes, never on their command lines."""
    seed = 7_319_846_205_531_977
    task = TableTask(tournament="t", round=1, table=0, bots=(resolve("random"),) * 2,
                     bot_ids=(1, 2), games=2, seed=seed, limits={},
                     event_date=dt.date(2026, 1, 1))
    seen: list[list[bytes]] = []
    seeds: list[int] = [seed]

    def on_message(message: object) -> None:
        games = message.games if isinstance(message, GameBatch) else [message]
        for game in games:
            if isinstance(game, GameMessage):
                seeds.append(int(game.row["seed"]))
                seen.append(_command_lines())  # the worker and the bots are still there

    pool = LocalPool(1)
    try:
        pool.run([task], on_message)
    finally:
        pool.close()
    assert len(seen) == 2
    for lines in seen:
        assert any(b"multiprocessing" in line for line in lines)  # the worker was there
        for value in seeds:
            assert not [line for line in lines if str(value).encode() in line], value
