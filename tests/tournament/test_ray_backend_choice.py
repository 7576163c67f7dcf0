"""How ``arena run`` comes to the Ray backend, and its one-line refusals on the way: an address
implies Ray, an address with the local pool is refused, Ray not installed is said in one
line (as by ``arena bench ray``), and a private Ray takes ``--workers`` CPUs of its own,
never a cluster ``ray start`` left on the machine. None of these starts a Ray."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import (  # noqa: F401 - _repo_cwd: an autouse fixture
    _repo_cwd,
    runner,
    write_spec,
)

from arena.cli.main import app
from arena.errors import ClusterError

SPEC_FIELDS: dict[str, Any] = {"format": "round_robin", "bots": ["greedy", "collector"],
                               "rounds": None, "games_per_match": 1}


def _free_port() -> int:
    with socket.socket() as probe_socket:  # a port just freed: nothing listens on it
        probe_socket.bind(("127.0.0.1", 0))
        return int(probe_socket.getsockname()[1])


def test_an_address_alone_puts_the_run_on_ray(tmp_path: Path) -> None:
    """``--address`` without ``--backend`` is the Ray backend: the run tries that cluster
    (and stops at once where nothing listens) rather than playing on the local pool."""
    pytest.importorskip("ray", reason="Ray is not installed")
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "spec.yaml", db, **SPEC_FIELDS)
    port = _free_port()
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial",
                                 "--address", f"127.0.0.1:{port}"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(
        f"Error: cannot join the Ray cluster at 127.0.0.1:{port}: nothing accepts connections "
        f"at 127.0.0.1:{port} (Connection refused)")
    assert result.stderr.count("\n") == 1 and not db.exists()



def test_ray_address_in_the_environment_is_the_cluster_to_join(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``RAY_ADDRESS=HEAD:PORT`` works as ``--address`` (docs/CLUSTER.md) once the run is on
    Ray: a private Ray is not started in its place."""
    pytest.importorskip("ray", reason="Ray is not installed")
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "spec.yaml", db, **SPEC_FIELDS)
    port = _free_port()
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial",
                                 "--backend", "ray"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(
        f"Error: cannot join the Ray cluster at 127.0.0.1:{port}: nothing accepts connections")
    assert not db.exists()

@pytest.mark.parametrize(("flags", "said"), [
    (["--backend", "local", "--address", "127.0.0.1:6379"],
     "--address is a Ray cluster address; it needs --backend ray"),
    (["--backend", "rey"], "unknown backend 'rey' (choose local or ray)")])
def test_a_backend_the_run_cannot_take_is_a_usage_error(
        tmp_path: Path, flags: list[str], said: str) -> None:
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "arena.db", **SPEC_FIELDS)
    result = runner.invoke(app, ["run", str(spec), "--no-progress", *flags])
    assert result.exit_code == 2, result.output
    assert said in result.stderr
    assert not (tmp_path / "arena.db").exists()


@pytest.fixture()
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as one without the 'ray' extra: importing Ray fails."""
    monkeypatch.setitem(sys.modules, "ray", None)
    for name in ("arena.tournament.ray_executor", "arena.bench.ray"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_the_ray_backend_without_ray_is_one_error_line(tmp_path: Path, no_ray: None) -> None:
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "spec.yaml", db, **SPEC_FIELDS)
    result = runner.invoke(app, ["run", str(spec), "--no-progress", "--backend", "ray"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: the Ray backend is not available (")
    assert result.stderr.endswith("); install it from the checkout with pip install -e "
                                  "'.[ray]', or use --backend local\n")
    assert result.stderr.count("\n") == 1 and not db.exists()


def test_bench_ray_without_ray_is_one_error_line(no_ray: None) -> None:
    result = runner.invoke(app, ["bench", "ray", "--games", "1"])
    assert result.exit_code == 1, result.output
    assert result.stderr == "Error: Ray is not installed: pip install -e '.[ray]' in the checkout\n"


def test_a_private_ray_has_the_workers_cpus_and_joins_no_running_cluster(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--backend ray`` without an address starts a Ray of its own with ``--workers`` CPUs:
    a bare ``ray.init()`` would take every core, or join a cluster ``ray start`` left
    running on the machine (docs/CLUSTER.md, "Without a cluster")."""
    ray = pytest.importorskip("ray", reason="Ray is not installed")
    from arena.tournament.ray_executor import RayExecutor

    started: list[dict[str, Any]] = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **options: started.append(options))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    executor = RayExecutor(workers=3)
    try:
        executor._connect()
    finally:
        executor.close()
    assert len(started) == 1
    assert (started[0].get("address"), started[0].get("num_cpus")) == ("local", 3)


def test_an_ipv6_head_in_brackets_is_tried_not_taken_for_an_unknown_host() -> None:
    """``--address [::1]:PORT``, as Ray writes an IPv6 head: the check before joining reaches
    that address rather than stopping at the brackets as an unknown host name."""
    pytest.importorskip("ray", reason="Ray is not installed")
    from arena.tournament.ray_executor import RayExecutor

    try:
        with socket.socket(socket.AF_INET6) as probe_socket:
            probe_socket.bind(("::1", 0))
            port = probe_socket.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with pytest.raises(ClusterError) as info:
        RayExecutor(workers=1, address=f"[::1]:{port}").start(1)
    assert str(info.value).startswith(
        f"cannot join the Ray cluster at [::1]:{port}: nothing accepts connections at "
        f"::1:{port} (Connection refused)")
