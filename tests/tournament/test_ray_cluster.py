"""A real two-node Ray cluster on this machine: a head and a second node started by ``ray
start`` as separate processes, each with one CPU (its own temporary directory, its own ports,
its own token: nothing shared with another Ray on the machine).

Against it: the games match the local pool's game for game, both nodes play tables, the
second node killed mid-run loses and duplicates nothing, and a killed ``arena run
--address`` driver resumes. Teardown kills the cluster's processes by pid (found by its
temporary directory and as their descendants), never ``ray stop``, which would stop every
Ray on the machine. No assertion reads the wall clock.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("ray", reason="the 'ray' extra is not installed")
if shutil.which("ray") is None:
    pytest.skip("the ray command is not on PATH", allow_module_level=True)

from store_polling import kill_after_games, wait_for_games  # noqa: E402
from test_ray_backend import games, has_children  # noqa: E402
from tournament_fixtures import (  # noqa: E402, F401 - _repo_cwd: an autouse fixture
    REPO,
    _repo_cwd,
)

from arena.tournament.runner import run_tournament  # noqa: E402
from arena.tournament.spec_loading import load_spec  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "bots"
LIMITS = {"decision_ms": 10000, "time_bank_ms": 60000, "startup_ms": 60000}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _node_ports() -> list[str]:
    """Every port a node listens on, fresh: no collision with another Ray on the machine."""
    flags = ["--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
             "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port"]
    return [x for flag in flags for x in (flag, str(_free_port()))]


def _pids_with(text: str) -> list[int]:
    """Processes naming ``text`` in their command line or holding a file under it open (Ray
    renames its agents' command lines, but their logs stay open in the session directory)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if text.encode() in (proc / "cmdline").read_bytes() or any(
                    text in os.readlink(fd) for fd in (proc / "fd").iterdir()):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            tree.setdefault(parent, []).append(int(proc.name))
    return tree


def _with_descendants(roots: list[int]) -> list[int]:
    tree, seen, todo = _children(), [], list(roots)
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.append(pid)
            todo += tree.get(pid, [])
    return seen


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@dataclass
class Cluster:
    address: str
    env: dict[str, str]
    root: Path

    def node_processes(self, node: str) -> list[int]:
        """The processes of ``node`` (head or n2) and their descendants (its workers)."""
        return _with_descendants(_pids_with(str(self.root / node)))


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    root = Path(tempfile.mkdtemp(prefix="arena-rc-", dir="/tmp"))  # Ray's sockets: short
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
           "RAY_USAGE_STATS_ENABLED": "0", "ARENA_RAY_CACHE": str(root / "bots"),
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    address = f"127.0.0.1:{_free_port()}"
    head = ["ray", "start", "--head", "--port", address.rsplit(":", 1)[1], "--num-cpus", "1",
            "--include-dashboard", "false", "--temp-dir", str(root / "head"),
            "--disable-usage-stats", *_node_ports()]
    # a second address on the loopback, so that a driver on this machine attaches to the
    # head's raylet (it picks the node of its own address), never to the node killed below
    second = ["ray", "start", "--address", address, "--node-ip-address", "127.0.0.2",
              "--num-cpus", "1", "--temp-dir", str(root / "n2"), "--disable-usage-stats",
              *_node_ports()]
    try:
        for command in (head, second):
            done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, done.stdout + done.stderr
        yield Cluster(address, env, root)
    finally:
        _kill(_with_descendants(_pids_with(str(root))))
        shutil.rmtree(root, ignore_errors=True)


def write_spec(path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {
        "name": "rc", "format": "round_robin",
        "bots": [str(REPO / "bots" / "greedy.py"), str(REPO / "bots" / "collector.py"),
                 str(FIXTURES / "hashed.py")],
        "players_per_game": 2, "rounds": 2, "games_per_match": 4, "seed": 47,
        "event_date": "2026-12-02", "limits": LIMITS, "results": str(db),
    }
    data.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


#: A driver in a process of its own (Ray reads the cluster's token when it is loaded, so a
#: driver needs it in its environment from the start): runs the spec, prints its summary and
#: the executor's statistics as JSON.
DRIVER = """
import json, sys
from arena.tournament.ray_executor import RayExecutor
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec
summary = run_tournament(load_spec(sys.argv[1]), 2, backend="ray", address=sys.argv[2])
stats = RayExecutor.last_stats
print(json.dumps({"state": summary.state, "games": summary.games_recorded,
                  "warnings": list(summary.warnings), "mismatches": len(summary.mismatches),
                  "tables": stats.tables, "retries": stats.retries,
                  "tables_by_node": stats.tables_by_node}))
"""


def _drive(cluster: Cluster, spec: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", DRIVER, str(spec), cluster.address],
                          cwd=REPO, env=cluster.env, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _local(tmp_path: Path, **fields: Any) -> list[tuple[Any, ...]]:
    db = tmp_path / "local.db"
    summary = run_tournament(load_spec(write_spec(tmp_path / "local.yaml", db, **fields)), 2,
                             backend="local")
    assert summary.state == "finished"
    return games(db, str(fields.get("name", "rc")))


def test_both_nodes_play_and_the_games_are_the_local_pools(cluster: Cluster,
                                                           tmp_path: Path) -> None:
    db = tmp_path / "ray.db"
    run = _drive(cluster, write_spec(tmp_path / "ray.yaml", db))
    assert run["state"] == "finished" and run["games"] == 24 and run["retries"] == 0
    assert games(db, "rc") == _local(tmp_path)
    assert len(run["tables_by_node"]) == 2, run  # both nodes played tables
    assert sum(run["tables_by_node"].values()) == run["tables"] == 6


def test_a_killed_driver_resumes_through_arena_run(cluster: Cluster, tmp_path: Path) -> None:
    """``arena run --backend ray --address`` SIGKILLed mid-run, then run again: every game
    exactly once, the same as the local pool's."""
    db = tmp_path / "resumed.db"
    spec_file = write_spec(tmp_path / "spec.yaml", db)
    command = [sys.executable, "-m", "arena.cli.main", "run", str(spec_file), "--no-progress",
               "--backend", "ray", "--address", cluster.address]
    process = subprocess.Popen(command, cwd=REPO, env=cluster.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    kill_after_games(process, db, "rc", 4, timeout=300)
    before = len(games(db, "rc"))
    assert 4 <= before <= 24
    done = subprocess.run(command, cwd=REPO, env=cluster.env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert games(db, "rc") == _local(tmp_path)


def test_the_second_node_killed_mid_run_loses_and_duplicates_nothing(
        cluster: Cluster, tmp_path: Path) -> None:
    """Kill -9 every process of the second node (its raylet, agents and workers, the bots
    with them) while it plays a table: the table is replayed on the head. Last in the
    module: the cluster has one node after it."""
    db = tmp_path / "killed.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="rc-kill", games_per_match=12)
    raylets = [p for p in _pids_with(str(cluster.root / "n2")) if _is_raylet(p)]
    assert len(raylets) == 1
    killed: list[int] = []
    stop = threading.Event()

    def killer() -> None:
        if wait_for_games(db, "rc-kill", 1, timeout=300) < 1:
            return
        while not stop.is_set() and not killed:
            playing = [pid for pid in _with_descendants(raylets) if _is_table(pid)]
            if any(has_children(pid) for pid in playing):  # its bots are up: mid-table
                killed.extend(cluster.node_processes("n2"))
                _kill(killed)
            time.sleep(0.02)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        run = _drive(cluster, spec)
    finally:
        stop.set()
        thread.join(10)
    assert killed, "the second node was never caught playing a table"
    assert any("lost its Ray worker" in w for w in run["warnings"]), run["warnings"]
    assert run["state"] == "finished" and run["games"] == 72 and not run["mismatches"]
    assert run["retries"] >= 1
    assert games(db, "rc-kill") == _local(tmp_path, name="rc-kill", games_per_match=12)


def _is_table(pid: int) -> bool:
    """A Ray worker playing a table (Ray titles a worker after the task it runs)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0] == (
            b"ray::play_table_stream")
    except OSError:
        return False


def _is_raylet(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"raylet")
    except OSError:
        return False
