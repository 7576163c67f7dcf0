"""The Ray backend against the local pool, through the real sandboxed referee.

One local Ray with 2 CPUs serves the whole module (the executor uses a Ray already initialised
in its process and leaves it running; a second driver joins it by address). The bots are
deterministic (greedy, collector and the fixture bots), so results compare game for game;
limits are generous so that a loaded machine never turns a slow answer into a forfeit. No
assertion reads the wall clock.
"""

from __future__ import annotations

import _thread
import datetime as dt
import json
import logging
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

ray = pytest.importorskip(
    "ray", reason="Ray is not installed (pip install -e '.[ray]'; .ci/run installs it)")

from store_polling import kill_after_games, wait_for_games  # noqa: E402
from tournament_fixtures import (  # noqa: E402, F401 - _repo_cwd: an autouse fixture
    REPO,
    _repo_cwd,
)

from arena.bench.ray import run_ray_bench  # noqa: E402
from arena.cli.main import app  # noqa: E402
from arena.errors import ClusterError  # noqa: E402
from arena.referee import pause  # noqa: E402
from arena.registry import resolve, spec_from_path  # noqa: E402
from arena.sandbox.uids import UID_BASE  # noqa: E402
from arena.tournament import ray_bundles, ray_executor, ray_worker  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402
from arena.tournament.spec_loading import load_spec  # noqa: E402
from arena.tournament.tasks import (  # noqa: E402
    GAME_BATCH_S,
    DoneMessage,
    ErrorMessage,
    GameBatch,
    GameMessage,
    KeptCopyMessage,
    LogMessage,
    Message,
    TableTask,
)

FIXTURES = Path(__file__).resolve().parent / "bots"
LIMITS = {"decision_ms": 10000, "time_bank_ms": 60000, "startup_ms": 60000}
#: Deterministic bots, copied once per module run (results are compared across runs, so
#: their files must not change in between, whatever happens to bots/ meanwhile).
BOT_FILES = {"greedy": REPO / "bots" / "greedy.py", "collector": REPO / "bots" / "collector.py",
             "hashed": FIXTURES / "hashed.py", "last": FIXTURES / "last.py",
             "first": FIXTURES / "first.py"}
_snapshot: dict[str, str] = {}


def bot(name: str) -> str:
    return _snapshot[name]


@pytest.fixture(scope="module", autouse=True)
def _bots(tmp_path_factory: pytest.TempPathFactory) -> None:
    where = tmp_path_factory.mktemp("bots")
    for name, source in BOT_FILES.items():
        shutil.copy2(source, where / source.name)
        _snapshot[name] = str(where / source.name)


def write_spec(path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {
        "name": "ray-rr", "format": "round_robin",
        "bots": [bot("greedy"), bot("collector"), bot("hashed")],
        "players_per_game": 2, "rounds": 2, "games_per_match": 4, "seed": 31,
        "event_date": "2026-11-29", "limits": LIMITS, "results": str(db),
    }
    data.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def games(db: Path, name: str) -> list[tuple[Any, ...]]:
    """The games table, game for game (bot ids mapped to name@version); each id once."""
    conn = sqlite3.connect(str(db))
    try:
        keys = {r[0]: f"{r[1]}@{r[2]}" for r in conn.execute("SELECT id, name, version FROM bots")}
        tid = conn.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
        rows = [(r[0], r[1], [keys[b] for b in json.loads(r[2])], r[3], json.loads(r[4]), r[5],
                 json.loads(r[6]))
                for r in conn.execute(
                    "SELECT id, seed, seats_json, starting_seat, placements_json, decisions, "
                    "desmos_json FROM games WHERE tournament_id = ? "
                    "ORDER BY round, table_index, game_index", (tid,))]
        records = conn.execute("SELECT COUNT(*) FROM records WHERE tournament_id = ?",
                               (tid,)).fetchone()[0]
    finally:
        conn.close()
    assert len({r[0] for r in rows}) == len(rows) == records
    return rows


def ray_workers(function: str = "play_table_stream") -> list[int]:
    """Pids of Ray worker processes executing ``function`` (Ray titles them ``ray::NAME``)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            title = (proc / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if title == f"ray::{function}".encode():
            found.append(int(proc.name))
    return found


def children(pid: int) -> list[str]:
    """The child processes of ``pid`` (any of its threads'), each as "pid command line"."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for kid in kids:
            try:
                line = Path(f"/proc/{kid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                line = b"(gone)"
            found.append(f"{kid} {line.decode(errors='replace')[:200]}")
    return found


def has_children(pid: int) -> bool:
    return bool(children(pid))


@pytest.fixture(scope="module")
def bot_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bot-cache")


@pytest.fixture(scope="module")
def cluster(bot_cache: Path) -> Any:
    """A local Ray with 2 CPUs for the whole module (its workers keep the bots' files in
    ``bot_cache``); yields its address."""
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
        logging.ERROR)
    if ray.is_initialized():
        ray.shutdown()
    old = os.environ.get("ARENA_RAY_CACHE")
    os.environ["ARENA_RAY_CACHE"] = str(bot_cache)  # inherited by the workers
    ray.init(address="local", num_cpus=2, num_gpus=0, include_dashboard=False,
             log_to_driver=False, logging_level=logging.WARNING)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        if old is None:
            os.environ.pop("ARENA_RAY_CACHE", None)
        else:
            os.environ["ARENA_RAY_CACHE"] = old


@pytest.fixture(scope="module")
def local_reference(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, ...]]:
    """The round-robin played by the local pool: what every Ray run must reproduce."""
    old = Path.cwd()
    os.chdir(REPO)
    try:
        tmp = tmp_path_factory.mktemp("local")
        db = tmp / "local.db"
        summary = run_tournament(load_spec(write_spec(tmp / "spec.yaml", db)), 2,
                                 backend="local")
    finally:
        os.chdir(old)
    assert summary.state == "finished" and summary.games_recorded == 24
    return games(db, "ray-rr")


# ---------------------------------------------------------------------------- no cluster
def test_a_bot_directory_travels_whole_and_is_checked(tmp_path: Path) -> None:
    bot = tmp_path / "dirbot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.yaml").write_text("name: dirbot\ncommand: [./run.sh]\nlast_read_page: 12\n")
    (bot / "run.sh").write_text("#!/bin/sh\nexec python3 lib/main.py\n")
    (bot / "run.sh").chmod(0o755)
    (bot / "lib" / "main.py").write_text("print('hello')\n")
    spec = spec_from_path(bot)
    bundle = ray_bundles.pack_bot(spec)
    assert {rel for rel, _, _ in bundle.files} == {"bot.yaml", "run.sh", "lib/main.py"}

    local = ray_bundles.materialize_bot(bundle, spec, cache=tmp_path / "cache")
    assert local.path != spec.path and local.path.name == "dirbot"
    assert (local.path / "lib" / "main.py").read_text() == "print('hello')\n"
    assert os.stat(local.path / "run.sh").st_mode & stat.S_IXUSR
    assert (local.version, local.metadata, local.command) == (spec.version, spec.metadata,
                                                             spec.command)
    # the same content again: the cached copy, unchanged
    assert ray_bundles.materialize_bot(bundle, spec, cache=tmp_path / "cache").path == local.path

    tampered = ray_bundles.BotBundle(
        bundle.name, bundle.version, bundle.top, bundle.is_dir,
        tuple((rel, mode, data + b"#" if rel == "run.sh" else data)
              for rel, mode, data in bundle.files))
    with pytest.raises(ClusterError, match="arrived on .* as version"):
        ray_bundles.materialize_bot(tampered, spec, cache=tmp_path / "cache")
    for bad in ("../escape.py", "/tmp/escape.py"):
        hostile = ray_bundles.BotBundle(bundle.name, bundle.version, bundle.top, True,
                                        ((bad, 0o644, b"x"),))
        with pytest.raises(ClusterError, match="bad file name"):
            ray_bundles.materialize_bot(hostile, spec, cache=tmp_path / "cache")
    assert not (tmp_path / "escape.py").exists() and not Path("/tmp/escape.py").exists()


@pytest.mark.parametrize("kind", ["module", "directory"])
def test_a_bot_made_executable_is_packed_anew(tmp_path: Path, kind: str) -> None:
    """The driver tells bundles apart before packing them; a chmod changes no byte, so a
    bot whose file was made executable (or no longer) kept the bundle packed before, and
    the workers ran it with the old bits (the sandbox seals each file executable or not)."""
    if kind == "module":
        where = tmp_path / "first.py"
        shutil.copy(bot("first"), where)
        changed = where
    else:
        where = tmp_path / "dirbot"
        where.mkdir()
        (where / "bot.yaml").write_text("name: dirbot\ncommand: [./run.sh]\n")
        changed = where / "run.sh"
        changed.write_text("#!/bin/sh\nexec python3 main.py\n")
    changed.chmod(0o644)
    spec = spec_from_path(where)
    before = ray_bundles.bundle_identity(spec)  # the key of the bundle the first table packed
    changed.chmod(0o755)
    assert spec_from_path(where).files_digest == spec.files_digest  # the bytes are the same
    assert ray_bundles.bundle_identity(spec) != before
    packed = ray_bundles.materialize_bot(ray_bundles.pack_bot(spec), spec, cache=tmp_path / "c")
    ran = packed.path if kind == "module" else packed.path / "run.sh"
    assert os.stat(ran).st_mode & stat.S_IXUSR
    changed.chmod(0o640)  # other bits than the executable ones change nothing that runs
    assert ray_bundles.bundle_identity(spec) == before


def test_a_module_bot_travels_alone(tmp_path: Path) -> None:
    spec = spec_from_path(Path(bot("greedy")))
    bundle = ray_bundles.pack_bot(spec)
    assert [rel for rel, _, _ in bundle.files] == ["greedy.py"] and not bundle.is_dir
    local = ray_bundles.materialize_bot(bundle, spec, cache=tmp_path)
    assert local.path.name == "greedy.py" and local.path.read_bytes() == spec.path.read_bytes()
    assert sorted(p.name for p in local.path.parent.iterdir()) == [".complete", "greedy.py"]


def test_a_bot_with_options_travels_as_its_files_and_keeps_them(tmp_path: Path) -> None:
    plain = spec_from_path(Path(bot("greedy")))
    tuned = plain.with_options({"depth": 2})
    bundle = ray_bundles.pack_bot(tuned)
    assert bundle.version == plain.version  # the files' hash: what a worker can check
    assert bundle.digest == ray_bundles.pack_bot(plain).digest  # one cached copy for both
    local = ray_bundles.materialize_bot(bundle, tuned, cache=tmp_path)
    assert (local.key, local.options) == (tuned.key, {"depth": 2})


def test_a_worker_with_other_arena_code_refuses_the_table() -> None:
    task = TableTask(tournament="t", round=1, table=0, bots=(), bot_ids=(), games=1, seed=1,
                     limits={}, event_date=dt.date(2026, 11, 29))
    start, *messages = list(ray_worker.play_table_stream(task, "0.0.0:not-this-code"))
    assert isinstance(start, ray_worker.TableStart)  # the node it ran on, for the counts
    assert len(messages) == 1 and isinstance(messages[0], ErrorMessage)
    assert "different arena code" in messages[0].message


def test_the_fingerprint_covers_every_module_a_worker_plays_with() -> None:
    """A worker imports the task functions and, to play, the referee: every arena module it
    then holds is fingerprinted (other code there could deal other games), and none of the
    planner's (pydantic, rich) nor Ray itself is needed for it."""
    # Module names, not files: a compiled module's __file__ is mypyc's, not its source's.
    probe = ("import sys, arena.tournament.ray_worker, arena.referee.match, "
             "arena.referee.launch\n"
             "print(*sorted(n for n, m in list(sys.modules.items()) "
             "if n.split('.')[0] == 'arena' and getattr(m, '__file__', None)), sep='\\n')\n"
             "print(*[name for name in ('pydantic', 'rich', 'ray') if name in sys.modules])")
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    root = Path(ray_bundles.arena.__file__).resolve().parent
    held = []
    for name in out[:-1]:
        path = Path(*name.split(".")[1:])
        if (root / path / "__init__.py").exists():
            held.append((path / "__init__.py").as_posix())
        elif (root / path).with_suffix(".py").exists():
            held.append(path.with_suffix(".py").as_posix())
        # else mypyc's shared library of the compiled modules, built from their sources
    assert "tournament/ray_worker.py" in held
    assert [rel for rel in held if not any(rel == item or rel.startswith(item + "/")
                                           for item in ray_bundles.PLAY_CODE)] == []
    assert out[-1] == ""


def test_ray_client_addresses_are_refused_with_the_way_out() -> None:
    executor = ray_executor.RayExecutor(workers=1, address="ray://head:10001")
    with pytest.raises(ClusterError, match="--address HEAD:6379"):
        executor.start(1)


def test_an_address_where_nothing_listens_is_one_clear_error_not_minutes_of_retries() -> None:
    import socket

    with socket.socket() as probe_socket:  # a port just freed: nothing listens on it
        probe_socket.bind(("127.0.0.1", 0))
        port = probe_socket.getsockname()[1]
    executor = ray_executor.RayExecutor(workers=1, address=f"127.0.0.1:{port}")
    with pytest.raises(ClusterError) as info:
        executor.start(1)
    assert str(info.value).startswith(
        f"cannot join the Ray cluster at 127.0.0.1:{port}: nothing accepts connections at "
        f"127.0.0.1:{port} (Connection refused) (is `ray start --head` running there?")
    with pytest.raises(ClusterError, match="unknown host 'no-such-head.invalid'"):
        ray_executor.RayExecutor(workers=1, address="no-such-head.invalid:6379").start(1)
    assert not ray.is_initialized()


@pytest.mark.parametrize(("failure", "hinted"), [
    ("Could not find any running Ray instance. Please specify the one to connect to", False),
    ("Failed to connect to GCS within 60 seconds", True)])
def test_the_token_hint_comes_only_where_a_cluster_was_found(
        monkeypatch: pytest.MonkeyPatch, failure: str, hinted: bool) -> None:
    # `--address auto` with no Ray running was told to set up token authentication
    def refuse(**_: Any) -> None:
        raise ConnectionError(failure)

    monkeypatch.setattr(ray_executor.ray, "init", refuse)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with pytest.raises(ClusterError) as info:
        ray_executor.RayExecutor(workers=1, address="auto").start(1)
    assert str(info.value).startswith(f"cannot join the Ray cluster at auto: {failure}")
    assert ("RAY_AUTH_MODE=token" in str(info.value)) is hinted


def test_a_cluster_that_cannot_be_joined_leaves_no_tournament_behind(tmp_path: Path) -> None:
    # the join used to come after the tournament was stored: a later run with other
    # fields was refused as a changed spec
    import socket

    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        port = probe_socket.getsockname()[1]
    db = tmp_path / "ray.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db))
    with pytest.raises(ClusterError, match="cannot join the Ray cluster"):
        run_tournament(spec, 1, backend="ray", address=f"127.0.0.1:{port}")
    assert not db.exists()
    assert not ray.is_initialized()


# ---------------------------------------------------------------------------- on Ray
def test_ray_plays_the_same_games_as_the_local_pool(
    cluster: str, local_reference: list[tuple[Any, ...]], tmp_path: Path, bot_cache: Path
) -> None:
    db = tmp_path / "ray.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db))
    summary = run_tournament(spec, 2, backend="ray")
    assert summary.state == "finished" and summary.games_recorded == 24
    assert not summary.mismatches
    assert games(db, "ray-rr") == local_reference
    # each bot's CPU, told by the tables that ended its processes, as on the local pool
    assert sorted(summary.bot_cpu_s) == sorted(bot.key for bot in spec.entrants)
    assert all(seconds > 0 for seconds in summary.bot_cpu_s.values())
    # the bots reached the workers as bundles, each written once into the node's cache
    cached = sorted(p.name.rsplit("-", 1)[0] for p in bot_cache.iterdir()
                    if not p.name.startswith("."))
    assert all(cached.count(name) == 1 for name in ("collector", "greedy", "hashed")), cached
    stats = ray_executor.RayExecutor.last_stats
    assert stats is not None and stats.bundles == 3 and stats.retries == 0
    # each table started its two bots and told so, with its referee's CPU, as locally
    assert summary.bot_starts == 2 * stats.tables and summary.referee_cpu_s > 0


def test_swiss_rounds_on_ray_match_the_local_pool(cluster: str, tmp_path: Path) -> None:
    bots = [bot(name) for name in ("greedy", "collector", "hashed", "last", "first")]
    runs = {}
    for backend in ("local", "ray"):
        db = tmp_path / f"{backend}.db"
        spec = write_spec(tmp_path / f"{backend}.yaml", db, name="ray-swiss", format="swiss",
                          bots=bots, rounds=2, games_per_match=2)
        summary = run_tournament(load_spec(spec), 2, backend=backend)
        assert summary.state == "finished" and summary.games_recorded == 8
        runs[backend] = games(db, "ray-swiss")
    assert runs["ray"] == runs["local"]


def quick_table(games: int) -> TableTask:
    """A table of ``games`` quick games (the fixture bots that play the first and the last
    option, a few milliseconds a game)."""
    return TableTask(tournament="ray-batches", round=1, table=0,
                     bots=tuple(spec_from_path(Path(bot(name))) for name in ("first", "last")),
                     bot_ids=(1, 2), games=games, seed=5, limits=dict(LIMITS),
                     event_date=dt.date(2026, 11, 29))


def test_a_tables_games_come_batched_each_once_in_order_before_its_end(cluster: str) -> None:
    """A table on Ray sends its games as a local worker does: held and sent together
    (GameBatch, one Ray object and one transaction for several), never alone, each once, in
    order, all before the table's end. Held for the whole table (``hold_s``), a table's games
    come in fewer messages than games however slow the machine."""
    for hold_s, count in ((GAME_BATCH_S, 8), (3600.0, 12)):
        executor = ray_executor.RayExecutor(workers=1)
        executor.hold_s = hold_s
        seen: list[Any] = []
        try:
            executor.run([quick_table(count)], seen.append)
        finally:
            executor.close()
        stream = [m for m in seen if not isinstance(m, LogMessage)]
        assert isinstance(stream[-1], DoneMessage)
        batches = stream[:-1]
        assert all(isinstance(m, GameBatch) for m in batches), stream
        assert [g.row["game_index"] for b in batches for g in b.games] == list(range(count))
        assert executor.stats.games == count
    assert len(batches) < count




def on_ray(tasks: list[TableTask]) -> list[Any]:
    """The messages of ``tasks`` played by an executor of one worker on the module's Ray."""
    executor = ray_executor.RayExecutor(workers=1)
    seen: list[Any] = []
    try:
        executor.run(tasks, seen.append)
    finally:
        executor.close()
    return seen


def played(messages: list[Any]) -> list[GameMessage]:
    """The games among ``messages``, sent alone or in batches, in their order in the table."""
    found = [game for m in messages if isinstance(m, GameBatch) for game in m.games]
    found += [m for m in messages if isinstance(m, GameMessage)]
    return sorted(found, key=lambda game: game.row["game_index"])


def assert_played_without_failures(task: TableTask) -> None:
    seen = on_ray([task])
    assert isinstance(seen[-1], DoneMessage), seen
    assert [game.row["failures"] for game in played(seen)] == [[]] * task.games

@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a thread back niceness 0")
def test_a_tables_bots_run_at_a_normal_niceness_as_on_the_local_pool(cluster: str) -> None:
    """Ray starts its workers at niceness 15: a table's bots left there would get less of a
    busy CPU than under the local pool, and lose on time what they win locally."""
    assert_played_without_failures(replace(quick_table(2), bots=(
        spec_from_path(FIXTURES / "normal_nice.py"), spec_from_path(Path(bot("last"))))))


def test_a_tables_limits_reach_the_sandbox_on_its_node(cluster: str) -> None:
    """The spec's limits travel with the table and bound its bots on the node that plays it,
    as the local pool's (a bot that starts only under its spec's open-files limit)."""
    assert_played_without_failures(replace(
        quick_table(2), limits={**LIMITS, "open_files": 40},
        bots=(spec_from_path(FIXTURES / "open_files_40.py"), spec_from_path(Path(bot("last"))))))


def test_a_tables_event_date_decides_its_first_seat_on_the_node(
        cluster: str, tmp_path: Path) -> None:
    """The event date travels with the table: the first seat goes to the most recent
    ``last_read_page`` not after it (ruling 13), so a node reading today's date instead
    seats another bot first than the local pool does."""
    from arena.tournament.worker import play_table

    seated = []
    for name, page in (("late", "2026-11-30"), ("early", "2026-11-01")):
        where = tmp_path / name
        where.mkdir()
        shutil.copy2(bot("first"), where / "first.py")
        (where / "bot.yaml").write_text(f"name: {name}\nmodule: first.py\n"
                                        f"last_read_page: {page}\n")
        seated.append(spec_from_path(where))
    task = replace(quick_table(2), bots=tuple(seated), event_date=dt.date(2026, 11, 29))

    local: list[Any] = []
    play_table(task, local.append)
    locally = [game.row["starting_seat"] for game in played(local)]
    assert len(locally) == 2
    assert [game.row["starting_seat"] for game in played(on_ray([task]))] == locally

@pytest.mark.parametrize("league", [True, False])
def test_a_leagues_bot_updated_before_its_first_table_travels_as_the_kept_copy(
        cluster: str, tmp_path: Path, league: bool) -> None:
    """'arena submit --update' between a version's entry and its first table on Ray: its
    files were packed from the bots directory, the new version's, and the league stopped
    though the update had kept the old ones. A tournament's table packs the kept copy (the
    new files, which cannot start, never travel) and tells the run so; a table without kept
    copies still stops, saying so."""
    import dataclasses

    from tournament_fixtures import PassedCheck

    from arena.registry import submit

    bots_dir = tmp_path / "bots"
    bots_dir.mkdir()

    def register(source: Path, update: bool = False) -> Any:
        return submit(source, "first", bots_dir, check=lambda spec: PassedCheck(),
                      update=update)

    entered = register(Path(bot("first")))
    newer = tmp_path / "first_v2.py"
    newer.write_text("raise RuntimeError('the new version ran')\n\n\n"
                     "class FirstBot:\n    name = 'first'\n")
    register(newer, update=True)
    task = dataclasses.replace(quick_table(4), kept_copies=league,
                               bots=(entered, spec_from_path(Path(bot("last")))))
    executor = ray_executor.RayExecutor(workers=1)
    seen: list[Any] = []
    try:
        if not league:
            with pytest.raises(ClusterError, match="its files at .* changed since"):
                executor.run([task], seen.append)
            return
        executor.run([task], seen.append)
    finally:
        executor.close()
    assert isinstance(seen[-1], DoneMessage)
    played = [game for m in seen if isinstance(m, GameBatch) for game in m.games]
    assert len(played) == 4 and all(game.row["failures"] == [] for game in played)
    assert [m.kept for m in seen if isinstance(m, KeptCopyMessage)] == [entered.key]


def test_a_kept_directory_bot_travels_under_its_own_directory_name(
        cluster: str, bot_cache: Path, tmp_path: Path) -> None:
    """A league's version whose files 'arena submit --update' replaced is seated, from the
    next poll on, from its kept copy ``.versions/NAME@VERSION``: a directory bot was packed
    again under that name and written to each node as another cache entry, ``NAME@VERSION``
    where its first tables had ``NAME``. It travels as the same bundle, under its own name."""
    import dataclasses

    from tournament_fixtures import PassedCheck

    from arena.registry import resolve, submit

    bots_dir, source = tmp_path / "bots", tmp_path / "dirbot"
    source.mkdir()
    shutil.copy2(bot("first"), source / "first.py")
    (source / "bot.yaml").write_text("name: dirbot\nmodule: first.py\n")

    def register(update: bool = False) -> Any:
        return submit(source, "dirbot", bots_dir, check=lambda spec: PassedCheck(),
                      update=update)

    entered = register()
    (source / "first.py").write_text((source / "first.py").read_text() + "\n# v2\n")
    register(update=True)
    kept = resolve(entered.key, bots_dir)  # as the league's next poll seats it
    assert kept.path.name == entered.key
    last = spec_from_path(Path(bot("last")))
    executor = ray_executor.RayExecutor(workers=1)
    seen: list[Any] = []
    try:  # before the poll (the bots directory's path, packed from the kept copy), after it
        for spec in (entered, kept):
            executor.run([dataclasses.replace(quick_table(2), kept_copies=True,
                                              bots=(spec, last))], seen.append)
    finally:
        executor.close()
    assert [type(m) for m in seen if isinstance(m, (DoneMessage, ErrorMessage))] == [
        DoneMessage, DoneMessage]
    copies = {p.name for entry in bot_cache.glob("dirbot-*") for p in entry.iterdir()
              if p.is_dir()}
    assert copies == {"dirbot"}


def test_a_version_seated_from_its_kept_copy_is_packed_once(
        cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A league's version seated from its own files at one table and from the copy 'arena
    submit --update' kept at the next (the league seats the kept copy once the update is
    seen): the bundles were told apart by the bot's path, so the driver read the same bytes
    again and put a second copy of them in Ray's object store."""
    import dataclasses

    from tournament_fixtures import PassedCheck

    from arena.registry import kept_copy, submit

    bots_dir = tmp_path / "bots"
    bots_dir.mkdir()
    entered = submit(Path(bot("first")), "first", bots_dir, check=lambda spec: PassedCheck())
    newer = tmp_path / "first_v2.py"
    newer.write_text("class FirstBot:\n    name = 'first'\n")
    submit(newer, "first", bots_dir, check=lambda spec: PassedCheck(), update=True)
    kept = kept_copy(entered)
    assert kept is not None and kept.path != entered.path
    other = spec_from_path(Path(bot("last")))
    tasks = [dataclasses.replace(quick_table(2), table=index, kept_copies=True,
                                 bots=(seated, other))
             for index, seated in enumerate((entered, kept))]
    packed: list[str] = []
    real_pack = ray_executor.pack_bot

    def counted(spec: Any, kept_copies: bool = False) -> Any:
        packed.append(spec.name)
        return real_pack(spec, kept_copies)

    monkeypatch.setattr(ray_executor, "pack_bot", counted)
    seen = on_ray(tasks)
    assert sorted(packed) == ["first", "last"]
    assert sum(isinstance(m, DoneMessage) for m in seen) == 2
    assert [game.row["failures"] for game in played(seen)] == [[]] * 4


def test_a_cancelled_table_ends_its_bots(cluster: str) -> None:
    """The run stopped while a table plays (Ctrl-C in the driver: the executor closed): the
    table's task is cancelled and ends its bots, games held or not."""
    executor = ray_executor.RayExecutor(workers=1)
    playing: list[int] = []

    def on_message(message: Any) -> None:
        if isinstance(message, GameBatch):
            playing.extend(pid for pid in ray_workers() if has_children(pid))
            if playing:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        try:
            executor.run([quick_table(400)], on_message)
        finally:
            executor.close()
    assert playing, "no worker was seen playing the table"
    # the referee's signalling helper (arena.referee.pause) lives as long as its worker
    # when the stops went by uid: it is the referee's, not a bot's
    helper = "base, span, ruid = (int(arg) for arg in sys.argv[1:4])"
    assert not [kid for pid in playing for kid in children(pid) if helper not in kid]


def test_a_cancel_repeated_while_a_table_ends_waits_for_its_end() -> None:
    """Ray repeats a cancel for as long as the task runs, as a KeyboardInterrupt in the
    task's (main) thread: ending a table waits through the repeats until the table's
    thread has stopped, so the task never ends with its bots still playing."""
    stopped, ended, release, table_done = (threading.Event() for _ in range(4))
    delivered = threading.Semaphore(0)

    def table() -> None:  # a table slow to stop: it ends when released
        stopped.wait()
        release.wait()
        table_done.set()

    def repeat_cancels() -> None:
        stopped.wait()
        for _ in range(2):
            _thread.interrupt_main()
            delivered.acquire()  # the interrupt reached the main thread
        release.set()

    def on_interrupt(signum: int, frame: Any) -> None:
        codes = set()
        while frame is not None:
            codes.add(frame.f_code)
            frame = frame.f_back
        delivered.release()
        # as Ray's: only while the task still runs (and not into this handler itself)
        if ray_worker._end_table.__code__ in codes and on_interrupt.__code__ not in codes:
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, on_interrupt)
    try:
        thread = threading.Thread(target=table, daemon=True)
        thread.start()
        threading.Thread(target=repeat_cancels, daemon=True).start()
        try:
            ray_worker._end_table(stopped, ended, thread)
            cut_short = False
        except KeyboardInterrupt:
            cut_short = True
        while not release.wait(timeout=0.05):  # every repeat delivered, seen between bytecodes
            pass
    finally:
        signal.signal(signal.SIGINT, old)
    assert not cut_short, "a repeated cancel cut the table's ending short"
    assert table_done.is_set() and ended.is_set()


@pytest.mark.skipif(os.geteuid() != 0, reason="bots are stopped by uid only by a root referee")
def test_a_cancelled_table_leaves_no_signalling_helper() -> None:
    """The table's thread, pausing a bot that ending the table has just killed (its cgroup
    gone with it), stops it by uid, which starts the referee's signalling helper: ending the
    table ends that too, so nothing of the table outlives it."""
    stopped, ended = threading.Event(), threading.Event()
    started: list[bool] = []

    gone = subprocess.Popen(["true"])  # the killed bot's pid: a process that has ended
    gone.wait()

    class KilledBot:  # what pause() and resume() ask of a bot
        uid = UID_BASE
        pid = gone.pid
        frozen = False

        def freeze(self, frozen: bool) -> bool:
            return False  # its cgroup went with it

        def namespace_pid(self) -> int | None:
            return None

    def table() -> None:
        stopped.wait()
        pause.pause(KilledBot())  # type: ignore[arg-type]
        pause.resume(KilledBot())  # type: ignore[arg-type]
        started.append(pause._signaller.proc is not None)

    thread = threading.Thread(target=table, daemon=True)
    thread.start()
    ray_worker._end_table(stopped, ended, thread)
    assert started == [True], "the table's thread did not start the helper"
    assert pause._signaller.proc is None


def test_a_cancelled_table_ends_a_bot_start_stuck_before_its_exec(tmp_path: Path) -> None:
    """A bot's start whose child is stuck between fork and exec (:mod:`fork_trap`: as any
    lock of a Ray worker's many threads can hold it) is ended with the table: the cancel
    killed only the bots it knew, gave the table's thread, stuck in the start, its 15 s, and
    ended the task with the child and the thread left behind (a later start of that thread
    would have outlived the table)."""
    from fork_trap import stuck_start

    from arena.sandbox import launch, probe

    probe()  # its own starts, once per process, before the trap is armed
    (tmp_path / "bot.py").write_text("print('never run')\n")
    stopped, ended = threading.Event(), threading.Event()
    with stuck_start() as trap:
        thread, outcome = trap.start(lambda: launch(["python3", "bot.py"],
                                                    workdir=tmp_path / "bot.py"))
        child = trap.child()
        assert child, f"the start did not fork into the hook: {outcome}"
        ray_worker._end_table(stopped, ended, thread)
        assert not thread.is_alive(), "the table's thread is still in the bot's start"
        assert outcome == ["cannot start the bot: every bot of this process is being ended"]
        assert not Path(f"/proc/{child}").exists(), "the stuck child was not ended and reaped"
    thread.join(30)


def test_a_killed_worker_loses_and_duplicates_no_game(
    cluster: str, local_reference: list[tuple[Any, ...]], tmp_path: Path
) -> None:
    db = tmp_path / "killed.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db))
    killed: list[int] = []
    stop = threading.Event()

    def killer() -> None:
        # once a game is recorded, SIGKILL a worker in the middle of a table (its bots alive)
        if wait_for_games(db, "ray-rr", 1, timeout=300) < 1:
            return
        while not stop.is_set() and not killed:
            for pid in ray_workers():
                if has_children(pid):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
            time.sleep(0.02)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        summary = run_tournament(spec, 2, backend="ray")
    finally:
        stop.set()
        thread.join(10)
    assert killed, "no worker was caught playing a table"
    assert any("lost its Ray worker" in w for w in summary.warnings), summary.warnings
    assert summary.state == "finished"
    assert summary.games_recorded == 24 and not summary.mismatches
    assert games(db, "ray-rr") == local_reference


def _dying_table(dies: Callable[[TableTask], bool], after_a_game: bool,
                 once: Path | None = None) -> Any:
    """A table task that plays as the real one, but whose worker process dies (``os._exit``,
    as at a crash or a node lost) on the tables ``dies`` picks, at every attempt or, given
    ``once`` (a file the first attempt makes), at the first only: at once, or once it has
    sent the first game of the table (the others it held never arrive)."""

    def table(task: TableTask, fingerprint: str, *bundles: Any,
              hold_s: float = GAME_BATCH_S) -> Any:
        import dataclasses as dc
        import os as process

        from arena.tournament.ray_worker import play_table_stream
        from arena.tournament.tasks import GameBatch as Batch

        dying = dies(task)
        if dying and once is not None:
            try:
                process.close(process.open(once, process.O_CREAT | process.O_EXCL))
            except FileExistsError:
                dying = False
        if dying and not after_a_game:
            process._exit(1)
        for message in play_table_stream(task, fingerprint, *bundles, hold_s=hold_s):
            if dying and isinstance(message, Batch):
                yield dc.replace(message, games=message.games[:1])
                process._exit(1)
            yield message

    return table


def test_a_table_whose_worker_dies_after_sending_a_game_is_replayed_without_loss(
    cluster: str, local_reference: list[tuple[Any, ...]], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first table's worker dies once it has sent one game, the others of its
    tenth of a second held: the replay records those, and the game that arrived once only."""
    monkeypatch.setattr(ray_executor, "play_table_stream", _dying_table(
        lambda task: (task.round, task.table) == (1, 0), True, once=tmp_path / "died"))
    db = tmp_path / "dies.db"
    summary = run_tournament(load_spec(write_spec(tmp_path / "spec.yaml", db)), 2,
                             backend="ray")
    [lost] = [w for w in summary.warnings if "lost its Ray worker" in w]
    assert lost.startswith("table r1/t0 lost its Ray worker (WorkerCrashedError: ")
    assert lost.endswith("); replaying it (attempt 2 of 3), games already recorded are kept")
    assert summary.state == "finished" and summary.games_recorded == 24
    assert not summary.mismatches
    assert games(db, "ray-rr") == local_reference


def test_a_table_that_keeps_losing_its_worker_stops_the_run(
        cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table whose worker dies at every attempt (a bot that brings its node down, say) is
    tried three times, then the run stops with one line, rather than trying for ever."""
    monkeypatch.setattr(ray_executor, "play_table_stream", _dying_table(
        lambda task: (task.round, task.table) == (1, 0), False))
    db = tmp_path / "always.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db, rounds=1, games_per_match=1))
    told: list[str] = []
    with pytest.raises(ClusterError) as info:
        run_tournament(spec, 2, backend="ray",
                       report=lambda event: told.append(str(getattr(event, "text", ""))))
    assert str(info.value).startswith("table r1/t0 lost its Ray worker 3 times (last: "
                                      "WorkerCrashedError: ")
    assert str(info.value).endswith("); stopping")
    assert [text.partition("(attempt ")[2][:6] for text in told if "r1/t0 lost" in text] == [
        "2 of 3", "3 of 3"]


def test_a_node_without_the_arena_package_stops_the_run_saying_so(
        cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table failing on Ray otherwise than by a lost worker stops the run with one line
    (the table is not dropped), and a node that cannot import arena is told what to do."""

    def table(task: TableTask, fingerprint: str, *bundles: Any,
              hold_s: float = GAME_BATCH_S) -> Any:
        raise ModuleNotFoundError("No module named 'arena'")
        yield  # a generator, as the real task

    monkeypatch.setattr(ray_executor, "play_table_stream", table)
    executor = ray_executor.RayExecutor(workers=1)
    try:
        with pytest.raises(ClusterError) as info:
            executor.run([quick_table(2)], lambda message: None)
    finally:
        executor.close()
    assert str(info.value) == (
        "table r1/t0: a Ray worker cannot import the arena package; install it on every node "
        "(pip install -e '.[ray]' in a checkout; docs/CLUSTER.md)")

def test_resume_after_the_driver_is_killed(
    cluster: str, local_reference: list[tuple[Any, ...]], tmp_path: Path
) -> None:
    """A second driver joins the cluster by address (``arena run --address``), is SIGKILLed
    mid-run, and the spec run again completes it: every game exactly once, as locally."""
    db = tmp_path / "resumed.db"
    spec_file = write_spec(tmp_path / "spec.yaml", db)
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "run", str(spec_file), "--no-progress",
         "--backend", "ray", "--address", cluster],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    kill_after_games(process, db, "ray-rr", 4, timeout=300)
    before = len(games(db, "ray-rr"))
    assert 4 <= before <= 24
    summary = run_tournament(load_spec(spec_file), 2, backend="ray")
    assert summary.state == "finished"
    assert summary.games_before == before and summary.games_done == 24
    assert not summary.mismatches
    assert games(db, "ray-rr") == local_reference


def test_bench_ray_reports_both_backends_and_the_overhead(cluster: str, tmp_path: Path) -> None:
    """The spec pins its workers (as the shipped swiss.yaml does): the bench chose Ray itself,
    so its Ray runs say nothing of pinning."""
    spec = write_spec(tmp_path / "bench.yaml", tmp_path / "unused.db", format="swiss",
                      rounds=1, bots=[bot(name) for name in ("greedy", "collector", "hashed")],
                      pin_workers=True)
    events: list[Any] = []
    result = run_ray_bench(spec, games=1, workers=2, samples=3, report=events.append)
    assert not [e for e in events if "pin_workers" in str(getattr(e, "text", ""))]
    data = result.to_json()
    assert [r["backend"] for r in data["runs"]] == ["local", "ray"]
    assert data["runs"][0]["games"] == data["runs"][1]["games"] == data["games"] > 0
    for key in ("task_rtt_ms", "stream_first_ms", "message_ms", "pack_ms", "materialize_ms",
                "record_bytes", "warmup_s"):
        assert key in data["overhead"], key
    assert "ray_vs_local_without_init" in data  # None when ray.init took the whole run
    # "games a message" as the one Ray run counted them (each game once, the messages
    # with the table's end and warnings)
    stats = ray_executor.RayExecutor.last_stats
    assert stats is not None and stats.games == data["games"]
    assert data["overhead"]["games_per_message"] == pytest.approx(stats.games / stats.messages)
    assert "where the Ray overhead goes" in result.render()


def test_tables_of_a_books_same_deals_with_a_bot_in_common_follow_each_other(
        cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tables dealt a book's same deals with a bot in common are never in flight at once
    (its two processes would each hold a seat's cards of a deal); a third, apart, is."""
    events: list[tuple[str, int]] = []
    submit = ray_executor.RayExecutor._submit

    def recording(self: ray_executor.RayExecutor, task: TableTask,
                  on_message: Callable[[Message], None]) -> None:
        events.append(("submitted", task.table))
        submit(self, task, on_message)

    monkeypatch.setattr(ray_executor.RayExecutor, "_submit", recording)
    first, last = quick_table(2).bots
    tables = [replace(quick_table(2), table=0, deals=(101, 102)),
              replace(quick_table(2), table=1, deals=(101, 102), bots=(first, resolve("random"))),
              replace(quick_table(2), table=2, deals=(101, 102),
                      bots=(resolve("greedy"), resolve("collector")))]

    def note(message: Message) -> None:
        if isinstance(message, DoneMessage):
            events.append(("done", message.key[1]))

    executor = ray_executor.RayExecutor(workers=2)
    try:
        executor.run(tables, note)
    finally:
        executor.close()
    assert events.index(("done", 0)) < events.index(("submitted", 1)), events
    assert events.index(("submitted", 2)) < events.index(("done", 0)), events


@pytest.mark.parametrize(("spec_backend", "flags", "said"), [
    ("local", [], False),  # a spec for the local pool, put on Ray from the command line
    ("ray", [], True),  # the spec asks for both itself
    ("local", ["--pin-workers"], True)])
def test_pinning_on_ray_is_said_once_where_it_was_asked_of_ray(
        cluster: str, tmp_path: Path, spec_backend: str, flags: list[str], said: bool) -> None:
    db = tmp_path / "pin.db"
    spec = write_spec(tmp_path / "pin.yaml", db, name="pin", rounds=1, games_per_match=1,
                      pin_workers=True, backend=spec_backend)
    result = CliRunner().invoke(app, ["run", str(spec), "--backend", "ray", "--workers", "2",
                                      "--no-progress", *flags])  # on the module's Ray
    assert result.exit_code == 0, result.output
    warned = [line for line in result.output.splitlines() if "pin_workers" in line]
    expected = ("warning: pin_workers: ignored on the Ray backend (Ray places the tables on "
                "its nodes)")
    assert warned == ([expected] if said else [])
