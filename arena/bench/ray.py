"""``arena bench ray``: the same tournament with the local pool and on a fresh local Ray, and
Ray's costs one by one (a task's round trip, a streaming task's messages, bundles)."""

from __future__ import annotations

import logging
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray
import yaml

from arena.registry import BotSpec
from arena.tournament.events import Report, ignore
from arena.tournament.game_records import compress_record, game_record
from arena.tournament.ray_bundles import BotBundle, materialize_bot, pack_bot
from arena.tournament.ray_executor import RayExecutor, RayStats, quiet_ray_logging
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import spec_from_mapping
from arena.tournament.store import Store, game_id
from arena.tournament.tasks import GameMessage, Message

__all__ = ["RayBenchResult", "run_ray_bench"]

@dataclass
class RayBenchResult:
    """Figures of ``arena bench ray``."""

    spec: str
    games: int
    workers: int
    runs: list[dict[str, float | str]] = field(default_factory=list)
    overhead: dict[str, float] = field(default_factory=dict)

    def busy(self) -> tuple[float, float] | None:
        """Ray's games/s without ``ray.init`` and shutdown (medians), and its ratio to the
        local pool's games/s over its whole run (the local pool has no start-up to speak
        of), or None when a figure is missing."""
        ray_runs = [r for r in self.runs if r["backend"] == "ray"]
        local = [float(r["games_per_s"]) for r in self.runs if r["backend"] == "local"]
        o = self.overhead
        if not ray_runs or not local or not o.get("init_s"):
            return None
        busy = (statistics.median(float(r["seconds"]) for r in ray_runs) - o["init_s"]
                - o.get("shutdown_s", 0.0))
        if busy <= 0:
            return None
        rate = float(ray_runs[0]["games"]) / busy
        return rate, rate / statistics.median(local)

    def to_json(self) -> dict[str, Any]:
        busy = self.busy()
        return {"spec": self.spec, "games": self.games, "workers": self.workers,
                "runs": self.runs, "overhead": {k: round(v, 6) for k, v in
                                                self.overhead.items()},
                "ray_games_per_s_without_init": None if busy is None else round(busy[0], 3),
                "ray_vs_local_without_init": None if busy is None else round(busy[1], 3),
                "cpus": os.cpu_count()}

    def render(self) -> str:
        lines = [f"ray bench: {self.spec}, {self.games} games, {self.workers} workers, "
                 f"{os.cpu_count()} CPUs"]
        o = self.overhead
        for backend in ("local", "ray"):
            runs = [r for r in self.runs if r["backend"] == backend]
            if not runs:
                continue
            rates = [float(r["games_per_s"]) for r in runs]
            seconds = statistics.median(float(r["seconds"]) for r in runs)
            loads = [float(r["load_before"]) for r in runs] + [float(r["load_after"])
                                                               for r in runs]
            each = f"; runs: {', '.join(f'{x:.2f}' for x in rates)}" if len(runs) > 1 else ""
            cpu = statistics.median(float(r.get("driver_cpu_s", 0.0)) * 1000
                                    / max(1.0, float(r["games"])) for r in runs)
            lines.append(f"  {backend + f' ({self.workers} workers)':<21} {seconds:7.2f} s  "
                         f"{statistics.median(rates):6.2f} games/s  (median of {len(runs)}"
                         f"{each}; load average {min(loads):.1f}-{max(loads):.1f}); "
                         f"driver {cpu:.2f} CPU-ms a game")
        busy = self.busy()
        if busy is not None:
            lines.append(f"  {'ray without init/exit':<21} {self.games / busy[0]:7.2f} s  "
                         f"{busy[0]:6.2f} games/s  ({busy[1]:.2f}x the local pool; aim "
                         "0.9x or better)")
        rows = [
            (f"ray.init (a local Ray, {self.workers} CPUs)", f"{o.get('init_s', 0):.3f} s"),
            ("ray.shutdown", f"{o.get('shutdown_s', 0):.3f} s"),
            ("worker warm-up (sandbox probe)", f"{o.get('warmup_s', 0):.3f} s per worker"),
            ("empty task round trip", f"{o.get('task_rtt_ms', 0):.3f} ms (median)"),
            ("first message of a streaming task", f"{o.get('stream_first_ms', 0):.3f} ms"),
            ("bots packed + ray.put", f"{o.get('pack_ms', 0):.3f} ms for "
             f"{int(o.get('bundles', 0))} bundles, {int(o.get('bundle_bytes', 0))} bytes"),
            ("bundle written + checked on a worker", f"{o.get('materialize_ms', 0):.3f} ms "
             f"first, {o.get('materialize_cached_ms', 0):.3f} ms cached"),
            ("one game's message to the driver", f"{o.get('message_ms', 0):.3f} ms "
             f"({int(o.get('record_bytes', 0))}-byte compressed record)"),
            ("driver's next()+get() per message", f"{o.get('receive_ms_per_message', 0):.3f} "
             f"ms (during the run; {o.get('games_per_message', 0):.2f} games a message)"),
        ]
        lines.append("  where the Ray overhead goes:")
        lines += [f"    {label:<38} {value}" for label, value in rows]
        return "\n".join(lines)


def _bench_spec(source: Path, games: int, rounds: int | None, db: Path,
                name: str) -> Any:
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    data.update({"name": name, "games_per_match": games, "results": str(db)})
    if rounds is not None:
        data["rounds"] = rounds
    return spec_from_mapping(data, source=source)


def _echo_messages(messages: list[Message]) -> Iterator[Message]:
    for message in messages:  # noqa: UP028 - not "yield from": Ray sends into the generator
        yield message


def _noop() -> int:
    return 0


def _materialize_timing(bundle: BotBundle, spec: BotSpec) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="arena-ray-bench-") as tmp:
        began = time.perf_counter()
        materialize_bot(bundle, spec, cache=Path(tmp))
        first = time.perf_counter() - began
        began = time.perf_counter()
        materialize_bot(bundle, spec, cache=Path(tmp))
        return first, time.perf_counter() - began


def run_ray_bench(spec_path: str | Path = "tournaments/swiss.yaml", *, games: int = 20,
                  rounds: int | None = None, workers: int = 2, repeat: int = 1,
                  samples: int = 50, address: str | None = None,
                  report: Report = ignore) -> RayBenchResult:
    """The same tournament with the local pool and with a fresh local Ray, alternately
    ``repeat`` times (games/s over each whole run, start-up included; the machine's load
    varies, alternating spreads it), then Ray's costs one by one. With ``address``, Ray's
    runs join that running cluster instead (its start-up is then the join). The runs report
    to ``report``."""
    source = Path(spec_path)
    result = RayBenchResult(spec=str(source), games=0, workers=workers)
    ray_stats: list[RayStats] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-ray-") as tmp:
        messages: list[Message] = []
        spec = None
        for _ in range(max(1, repeat)):
            for backend in ("local", "ray"):
                db = Path(tmp) / f"{backend}.db"
                spec = _bench_spec(source, games, rounds, db, f"bench-{backend}")
                load_before = os.getloadavg()[0]
                RayExecutor.last_stats = None
                cpu = time.process_time()  # the driver's threads, Ray's included; no child
                summary = run_tournament(spec, workers, fresh=True, backend=backend,
                                         address=address if backend == "ray" else None,
                                         trial=False, report=report,  # play alone
                                         # the bench chose Ray, not the spec's author
                                         pin_workers=False if backend == "ray" else None)
                result.games = summary.games_recorded
                result.runs.append({"backend": backend, "games": float(summary.games_recorded),
                                    "seconds": summary.elapsed_s,
                                    "games_per_s": summary.games_per_s,
                                    "driver_cpu_s": time.process_time() - cpu,
                                    "load_before": load_before,
                                    "load_after": os.getloadavg()[0]})
                if backend == "ray" and RayExecutor.last_stats is not None:
                    ray_stats.append(RayExecutor.last_stats)
                if backend == "local" and not messages:
                    messages = _sample_messages(db, spec.name, samples)
        if ray_stats:
            def median(values: list[float]) -> float:
                return statistics.median(values) if values else 0.0

            messages_seen = sum(st.messages for st in ray_stats)
            games_seen = sum(st.games for st in ray_stats)
            last = ray_stats[-1]
            result.overhead.update({
                "init_s": median([st.init_s for st in ray_stats]),
                "shutdown_s": median([st.shutdown_s for st in ray_stats]),
                "warmup_s": median([w for st in ray_stats for w in st.warmup_s]),
                "pack_ms": last.pack_s * 1000, "bundles": float(last.bundles),
                "bundle_bytes": float(last.bundle_bytes),
                "receive_ms_per_message": (sum(st.receive_s for st in ray_stats)
                                           / messages_seen * 1000 if messages_seen else 0.0),
                "games_per_message": games_seen / messages_seen if messages_seen else 0.0})
        assert spec is not None
        # Ray's costs one by one, on a Ray that is up (a cluster's situation).
        owned = not ray.is_initialized()
        if owned:
            quiet_ray_logging()
            where: dict[str, Any] = ({"address": address} if address else
                                     {"address": "local", "num_cpus": workers, "num_gpus": 0,
                                      "include_dashboard": False})
            ray.init(**where, log_to_driver=False, logging_level=logging.WARNING,
                     namespace="arena-bench")
        try:
            result.overhead.update(_ray_costs(messages, workers, samples))
        finally:
            if owned:
                ray.shutdown()
        records = [len(m.record) for m in messages if isinstance(m, GameMessage) and m.record]
        result.overhead["record_bytes"] = float(statistics.median(records)) if records else 0.0
        first, cached = [], []
        for bot in spec.entrants:
            f, c = _materialize_timing(pack_bot(bot), bot)
            first.append(f)
            cached.append(c)
        result.overhead["materialize_ms"] = statistics.median(first) * 1000
        result.overhead["materialize_cached_ms"] = statistics.median(cached) * 1000
    return result


def _ray_costs(messages: list[Message], workers: int, samples: int) -> dict[str, float]:
    """An empty task's round trip, and a streaming task's first and later messages (the
    messages of real games, records included)."""
    noop: Any = ray.remote(_noop).options(num_cpus=1)
    ray.get([noop.remote() for _ in range(workers)])
    times = []
    for _ in range(samples):
        began = time.perf_counter()
        ray.get(noop.remote())
        times.append(time.perf_counter() - began)
    echo: Any = ray.remote(_echo_messages).options(num_cpus=1, num_returns="streaming")
    firsts, per_message = [], []
    for _ in range(5):
        began = time.perf_counter()
        generator = echo.remote(messages)
        ray.get(next(generator))
        firsts.append(time.perf_counter() - began)
        began = time.perf_counter()
        count = 0
        for ref in generator:
            ray.get(ref)
            count += 1
        if count:
            per_message.append((time.perf_counter() - began) / count)
    return {"task_rtt_ms": statistics.median(times) * 1000,
            "stream_first_ms": statistics.median(firsts) * 1000,
            "message_ms": statistics.median(per_message) * 1000 if per_message else 0.0}


def _sample_messages(db: Path, name: str, samples: int) -> list[Message]:
    """Messages as a table would send them, rebuilt from stored games (with their records)."""
    messages: list[Message] = []
    with Store(db) as store:
        row = store.require(name)
        for game in store.games(row.id)[:samples]:
            messages.append(GameMessage(
                (game.round, game.table_index),
                {"id": game_id(name, game.round, game.table_index, game.game_index),
                 "round": game.round, "table_index": game.table_index,
                 "game_index": game.game_index, "seed": game.seed, "seats": list(game.seats),
                 "starting_seat": game.starting_seat, "placements": list(game.placements),
                 "failures": game.failures, "forfeits": game.forfeits,
                 "decisions": game.decisions, "duration_s": game.duration_s},
                compress_record(game_record(store, game.id))))
    return messages
