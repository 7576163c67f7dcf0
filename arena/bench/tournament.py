"""``arena bench tournament``: games/s of the runner with 1 and 2 workers, its CPU against the
same games played in-process, and the store's cost.

The same tournament (a small round-robin of sample bots, or a spec file such as the main job
``tournaments/swiss.yaml``; real sandboxed referee) is run once per worker count (``repeat``
times, every other time in the reverse order, summed up by medians) into a fresh temporary
database; games/s is games over the wall time of the whole run (worker start-up, bot
start-up and the store included; the sandbox is probed once before the runs, as ``arena run``
probes it before its run starts, and the workers take that probe), and its CPU is this
process's plus its reaped children's (workers, referees, bots, helpers). Right after each run
its games are played again in-process (:mod:`arena.bench.inprocess`: the very same configs and
bot seeds, one core; right after, because this machine's speed swings from one half-minute to
the next; the first replay of a process costs more than the later ones, so one untimed replay
comes before the first): the run's overhead is its CPU over that in-process CPU, and its wall
time is compared with the in-process CPU divided by the workers (what perfectly parallel,
overhead-free play would take). After a run of several workers the same games are also played
in-process by as many processes at once, each on a CPU of its own
(:func:`~arena.bench.inprocess.replay_in_parallel`): the one-core replay's time over theirs is
the machine's own speed-up on these games, which bounds the workers' (two cores of a virtual
machine can slow each other down), and the run's wall time is compared with theirs. A run's
CPU is split by part (the runner, the referees, the bots and their sandbox), and the bots'
part by bot: each bot's processes, whole (:attr:`arena.sandbox.SandboxedProcess.cpu_seconds`,
summed as the workers tell it), against its agent's share of the in-process replay, whose
rest is the engine's. The
store's cost is the median time of committing one game (its
row plus its compressed record, one transaction) into a database in WAL mode, measured with the
records the runs produced.
"""

from __future__ import annotations

import datetime as dt
import os
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bench.inprocess import (
    InProcessResult,
    ParallelReplay,
    not_in_process,
    replay_in_parallel,
    replay_in_process,
)
from arena.sandbox import probe
from arena.tournament.events import Report, ignore
from arena.tournament.game_records import compress_record, game_record
from arena.tournament.runner import run_tournament
from arena.tournament.spec import TournamentSpec
from arena.tournament.spec_loading import load_spec, spec_from_mapping
from arena.tournament.store import Store

__all__ = ["BenchResult", "run_tournament_bench"]

DEFAULT_BOTS = ("greedy", "collector", "heuristic")
#: The figures of a worker count summed up over repeats by their median.
_MEDIANS = ("games_per_s", "seconds", "cpu_seconds", "cpu_ratio", "wall_ratio",
            "machine_speedup", "parallel_wall_ratio")


@dataclass
class BenchResult:
    """Figures of one bench run."""

    bots: list[str]
    tables: int
    games_per_match: int
    runs: list[dict[str, float]] = field(default_factory=list)
    store_ms_per_game: float = 0.0
    store_games: int = 0
    record_bytes: int = 0
    #: What is played: the default round-robin, or the spec file's name.
    title: str = ""
    #: Each run's games played in-process right after it, in the runs' order.
    in_process: list[InProcessResult] = field(default_factory=list)
    #: Why the games were not played in-process, if they were not.
    no_in_process: str | None = None
    #: How many times each worker count was run.
    repeat: int = 1
    #: Each run's CPU by bot (``name@version``, every entrant), in the runs' order: its
    #: processes', sandbox included (``sandboxed``), and its agent's in the in-process
    #: replay right after (``in_process``, when there is one).
    by_bot: list[dict[str, dict[str, float]]] = field(default_factory=list)

    def speedups(self) -> list[float]:
        """Each repeat's 2-worker games/s over its 1-worker games/s, in the repeats' order."""
        by_repeat: dict[float, dict[int, float]] = {}
        for r in self.runs:
            by_repeat.setdefault(r.get("repeat", 1.0), {})[int(r["workers"])] = r["games_per_s"]
        return [pair[2] / pair[1] for pair in by_repeat.values()
                if 1 in pair and 2 in pair and pair[1] > 0]

    def machine_speedups(self) -> list[float]:
        """Each 2-worker run's games in-process on 2 CPUs at once: the one-core replay's time
        over theirs, in the repeats' order."""
        return [r["machine_speedup"] for r in self.runs
                if int(r["workers"]) == 2 and "machine_speedup" in r]

    @property
    def ratio(self) -> float | None:
        """The median 2-over-1 speed-up of the repeats."""
        speedups = self.speedups()
        return statistics.median(speedups) if speedups else None

    def medians(self) -> dict[int, dict[str, float]]:
        """For each worker count, the median over its runs of each figure they all have."""
        out: dict[int, dict[str, float]] = {}
        for count in sorted({int(r["workers"]) for r in self.runs}):
            runs = [r for r in self.runs if int(r["workers"]) == count]
            out[count] = {key: statistics.median(r[key] for r in runs) for key in _MEDIANS
                          if all(key in r for r in runs)}
        return out

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "bots": self.bots, "tables": self.tables,
                "games_per_match": self.games_per_match,
                "runs": [{**r, "by_bot": {bot: {key: round(value, 3)
                                                for key, value in figures.items()}
                                          for bot, figures in split.items()}}
                         for r, split in zip(self.runs, self.by_bot, strict=True)],
                "in_process": [{"games": local.games, "cpu_seconds": round(local.cpu_seconds, 3),
                                "differing": local.differing,
                                "engine_cpu_seconds": round(local.engine_cpu_seconds, 3),
                                "bot_cpu_seconds": {bot: round(value, 3) for bot, value
                                                    in local.bot_cpu_s.items()}}
                               for local in self.in_process],
                "no_in_process": self.no_in_process,
                "speedup_2_vs_1": None if self.ratio is None else round(self.ratio, 3),
                "repeat": self.repeat,
                "speedups": [round(x, 3) for x in self.speedups()],
                "machine_speedups": [round(x, 3) for x in self.machine_speedups()],
                "medians": {str(count): {key: round(value, 3) for key, value in figures.items()}
                            for count, figures in self.medians().items()},
                "store_ms_per_game": round(self.store_ms_per_game, 3),
                "store_games": self.store_games, "record_bytes": self.record_bytes,
                "cpus": os.cpu_count()}

    def render(self) -> str:
        lines = [f"tournament bench: {self.title} of {', '.join(self.bots)}, {self.tables} "
                 f"tables x {self.games_per_match} games, sandboxed referee, "
                 f"{os.cpu_count()} CPUs"]
        for r, split in zip(self.runs, self.by_bot, strict=True):
            lines += _run_lines(r, self.repeat, split)
        if self.in_process:
            differing = max(local.differing for local in self.in_process)
            same = ("the same placements" if not differing else
                    f"up to {differing} with other placements (forfeits, or a bot that is "
                    "not deterministic)")
            lines.append(f"  in-process (BotAgent + play_game, one core, warmed up, after "
                         f"each run): {self.in_process[0].games} games in "
                         f"{' / '.join(f'{x.cpu_seconds:.2f}' for x in self.in_process)} "
                         f"CPU-s, {same}")
        elif self.no_in_process:
            lines.append(f"  in-process: not measured ({self.no_in_process})")
        if self.repeat > 1:
            lines += self._median_lines()
        if self.ratio is not None:
            each = ("" if self.repeat == 1 else f"median of {len(self.speedups())} repeats ("
                    + " / ".join(f"{x:.2f}" for x in self.speedups()) + "): ")
            lines.append(f"  speed-up 2 vs 1 worker: {each}{self.ratio:.2f}x (aim: 1.8x or "
                         "better; needs the CPUs otherwise idle: a load average well above 0 "
                         "means other processes compete)")
            lines += self._machine_lines()
        lines.append(f"  store: {self.store_ms_per_game:.3f} ms per game insert (median of "
                     f"{self.store_games}, one transaction with a {self.record_bytes}-byte "
                     "compressed record, WAL)")
        return "\n".join(lines)

    def _machine_lines(self) -> list[str]:
        """The machine's own speed-up on these games, and what the arena keeps of it."""
        machine = self.machine_speedups()
        if not machine or self.ratio is None:
            return []
        median = statistics.median(machine)
        each = "" if len(machine) == 1 else " / ".join(f"{x:.2f}" for x in machine) + ", "
        return [f"  the same games in-process on 2 CPUs at once: {each}median {median:.2f}x "
                f"the one-core replay's speed (the machine's own speed-up); the arena keeps "
                f"{self.ratio / median:.0%} of it"]

    def _median_lines(self) -> list[str]:
        lines = [f"  medians over {self.repeat} repeats (range):"]
        for count, figures in self.medians().items():
            runs = [r for r in self.runs if int(r["workers"]) == count]
            line = f"    {count} worker(s): {_spread(runs, figures, 'games_per_s', ' games/s', 1)}"
            if "cpu_ratio" in figures:
                line += (f"; CPU {_spread(runs, figures, 'cpu_ratio', 'x')} the in-process "
                         f"CPU, wall {_spread(runs, figures, 'wall_ratio', 'x')} the "
                         f"in-process CPU / {count}")
            if "parallel_wall_ratio" in figures:
                line += (f"; wall {_spread(runs, figures, 'parallel_wall_ratio', 'x')} the "
                         f"games in-process on {count} CPUs at once")
            lines.append(line)
        return lines


def _spread(runs: list[dict[str, float]], medians: dict[str, float], key: str, unit: str,
            digits: int = 2) -> str:
    """A figure's median with its range over ``runs``: ``1.64x (1.59-2.02)``."""
    low, high = min(r[key] for r in runs), max(r[key] for r in runs)
    return f"{medians[key]:.{digits}f}{unit} ({low:.{digits}f}-{high:.{digits}f})"


def _run_lines(r: dict[str, float], repeat: int,
               split: dict[str, dict[str, float]]) -> list[str]:
    """One run's figures, as the table shows them; ``split``: its CPU by bot."""
    pinned = ", each on a CPU of its own" if r.get("pinned") else ""
    which = f"run {int(r['repeat'])} of {repeat}, " if repeat > 1 else ""
    lines = [f"  {which}{int(r['workers'])} worker(s){pinned}: {int(r['games'])} games in "
             f"{r['seconds']:.2f} s = {r['games_per_s']:.2f} games/s; "
             f"{r['cpu_seconds']:.1f} CPU-s, {r['cpus_busy']:.2f} CPUs busy on "
             f"average, {int(r['bot_starts'])} bot starts (load average "
             f"{r['load_before']:.1f} before, {r['load_after']:.1f} after)",
             f"    CPU by part: runner {r['parent_cpu_seconds']:.1f}, referees "
             f"{r['referee_cpu_seconds']:.1f}, bots and their sandbox "
             f"{r['bots_cpu_seconds']:.1f} CPU-s", *_bot_lines(r, split)]
    if "cpu_ratio" in r:
        lines.append(f"    vs in-process ({r['in_process_cpu_seconds']:.2f} CPU-s, "
                     f"played right after): CPU {r['cpu_ratio']:.2f}x (aim: 1.4x or "
                     f"less), wall {r['wall_ratio']:.2f}x the in-process CPU / "
                     f"{int(r['workers'])} (aim: 1.6x or less)")
    if "machine_speedup" in r:
        lines.append(f"    in-process on {int(r['workers'])} CPUs at once (every "
                     f"{_ordinal(int(r['workers']))} game to each process): "
                     f"{r['parallel_seconds']:.2f} s, {r['parallel_cpu_seconds']:.2f} CPU-s, "
                     f"{r['machine_speedup']:.2f}x the one-core replay's speed; this run's "
                     f"wall {r['parallel_wall_ratio']:.2f}x theirs"
                     + (f"; {int(r['parallel_differing'])} games with other placements"
                        if r["parallel_differing"] else ""))
    return lines


def _bot_lines(r: dict[str, float], split: dict[str, dict[str, float]]) -> list[str]:
    """A run's CPU by bot, sandboxed against in-process, and the engine's share."""
    lines = []
    width = max((len(bot) for bot in split), default=0)
    for bot, figures in split.items():
        line = f"      {bot:<{width}}  sandboxed {figures['sandboxed']:.2f} CPU-s"
        if "in_process" in figures:
            local = figures["in_process"]
            ratio = f"{figures['sandboxed'] / local:.2f}x" if local > 0 else "-"
            line += f", in-process act {local:.2f} ({ratio})"
        lines.append(line)
    together = sum(figures["sandboxed"] for figures in split.values())
    line = (f"      the bots' processes together: {together:.2f} CPU-s of the "
            f"{r['bots_cpu_seconds']:.2f} above")
    if "in_process_cpu_seconds" in r:
        line += (f", {together / r['in_process_cpu_seconds']:.2f}x the whole in-process "
                 f"replay; its engine (the rest of it) {r['in_process_engine_cpu_seconds']:.2f}")
    return [*lines, line]


def _ordinal(n: int) -> str:
    return {2: "other", 3: "third"}.get(n, f"{n}th")


def _cpu_seconds() -> float:
    """CPU time of this process and its reaped children (workers, and through them the
    referees and bots): how much CPU a run needed, whatever else the machine was doing."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _own_cpu_seconds() -> float:
    """CPU time of this process alone: the runner's planning, bookkeeping and store."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _spec(bots: tuple[str, ...], games: int, rounds: int, db: Path, seed: int,
          spec_file: Path | None) -> TournamentSpec:
    if spec_file is not None:
        return load_spec(spec_file)
    return spec_from_mapping({
        "name": "bench", "format": "round_robin", "bots": list(bots), "players_per_game": 2,
        "games_per_match": games, "rounds": rounds, "seed": seed, "results": str(db),
    })


def _store_cost(records: list[bytes], games: int) -> float:
    """Median milliseconds to commit one game row plus its record."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-store-") as tmp, \
            Store(Path(tmp) / "store.db") as store:
        row = store.create_tournament(
            name="store-bench", spec_hash="-", spec_json={}, format="round_robin",
            players_per_game=2, seed=0, event_date=dt.date(2026, 1, 1),
            rounds=1, games_planned=games, spec_path=None,
            bots=[("a", "1", "-", {}), ("b", "1", "-", {})])
        times = []
        for i in range(games):
            game = {"id": f"store-bench/r1/t{i}/g0", "round": 1, "table_index": i,
                    "game_index": 0, "seed": i, "seats": [1, 2], "starting_seat": 0,
                    "placements": [1, 2], "desmos": ["Pair", "High Hand"], "ascension": False,
                    "tiebreak": "", "failures": [], "forfeits": {}, "decisions": 30,
                    "duration_s": 0.05, "latency": [{}, {}]}
            blob = records[i % len(records)]
            began = time.perf_counter()
            store.record_game(row.id, game, blob)
            times.append(time.perf_counter() - began)
        return statistics.median(times) * 1000.0


def run_tournament_bench(
    *,
    games: int = 10,
    rounds: int = 6,
    workers: tuple[int, ...] = (1, 2),
    bots: tuple[str, ...] = DEFAULT_BOTS,
    store_games: int = 500,
    seed: int = 1,
    spec_file: Path | None = None,
    in_process: bool = True,
    reuse_bots: bool | None = None,
    pin_workers: bool | None = None,
    repeat: int = 1,
    report: Report = ignore,
) -> BenchResult:
    """Run the bench tournament (``spec_file``'s, else the default round-robin) once per worker
    count, ``repeat`` times (alternating the order), each run followed by its games
    in-process; see the module docstring. ``reuse_bots``
    False starts every table's bots afresh, ``pin_workers`` pins each worker and its bots to
    a CPU (None: as the spec says). The runs report to ``report`` (the sandbox's warnings,
    say)."""
    result = BenchResult(bots=list(bots), tables=0, games_per_match=games, title="round-robin",
                         repeat=repeat)
    records: list[bytes] = []
    probe()  # the machine's, not a run's: every worker count is measured without it
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        for index in range(repeat):
            # every other repeat in the reverse order: a machine that grows faster or slower
            # during the bench then favours neither worker count
            order = workers if index % 2 == 0 else tuple(reversed(workers))
            for count in order:
                db = Path(tmp) / f"w{count}-{index + 1}.db"
                spec = _spec(bots, games, rounds, db, seed, spec_file)
                pinned = spec.pin_workers if pin_workers is None else pin_workers
                run, sandboxed = _run_once(spec, count, db, report, reuse_bots, pinned)
                run["repeat"] = float(index + 1)
                result.runs.append(run)
                result.by_bot.append(_by_bot(spec, sandboxed))
                _describe(result, records, spec, db, from_file=spec_file is not None)
                if in_process:
                    result.no_in_process = not_in_process(spec.entrants)
                if in_process and result.no_in_process is None:
                    if not result.in_process:  # warms this process up: a first replay costs more
                        replay_in_process(db, spec.name, spec.entrants)
                    _compare_in_process(result, run, replay_in_process(db, spec.name,
                                                                       spec.entrants))
                    if count > 1:
                        _compare_parallel(run, replay_in_parallel(db, spec.name,
                                                                  spec.entrants, count))
    if records:
        result.record_bytes = int(statistics.median(len(r) for r in records))
        result.store_ms_per_game = _store_cost(records, store_games)
        result.store_games = store_games
    return result


def _describe(result: BenchResult, records: list[bytes], spec: TournamentSpec, db: Path, *,
              from_file: bool) -> None:
    """Note what the run in ``db`` played (its tables; the spec's title and bots) and keep
    the first run's records for the store's cost."""
    with Store(db) as store:
        row = store.require(spec.name)
        result.tables = len(store.tables(row.id))
        if not records:
            for game in store.games(row.id)[:50]:
                records.append(compress_record(game_record(store, game.id)))
    if from_file:
        result.title = spec.name
        result.bots = [b.name for b in spec.entrants]
        result.games_per_match = spec.games_per_match


def _compare_in_process(result: BenchResult, run: dict[str, float],
                        local: InProcessResult) -> None:
    """Set ``run``'s ratios against ``local``, its games played in-process right after it: on
    a virtual machine whose speed swings from one half-minute to the next, the closest
    moment is the fairest floor."""
    result.in_process.append(local)
    for bot, figures in result.by_bot[-1].items():
        figures["in_process"] = local.bot_cpu_s.get(bot, 0.0)
    run["in_process_cpu_seconds"] = local.cpu_seconds
    run["in_process_engine_cpu_seconds"] = local.engine_cpu_seconds
    run["cpu_ratio"] = run["cpu_seconds"] / local.cpu_seconds
    run["wall_ratio"] = run["seconds"] / (local.cpu_seconds / run["workers"])


def _compare_parallel(run: dict[str, float], parallel: ParallelReplay) -> None:
    """Set ``run``'s figures against its games played in-process by as many processes as it
    had workers, right after its one-core replay."""
    run["parallel_seconds"] = parallel.seconds
    run["parallel_cpu_seconds"] = parallel.cpu_seconds
    run["parallel_differing"] = float(parallel.differing)
    run["machine_speedup"] = run["in_process_cpu_seconds"] / parallel.seconds
    run["parallel_wall_ratio"] = run["seconds"] / parallel.seconds


def _by_bot(spec: TournamentSpec, sandboxed: dict[str, float]) -> dict[str, dict[str, float]]:
    """Each bot's CPU in a run, every entrant named (0: none of its processes ran)."""
    bots = [bot.key for bot in spec.entrants]
    bots += sorted(set(sandboxed) - set(bots))
    return {bot: {"sandboxed": sandboxed.get(bot, 0.0)} for bot in bots}


def _run_once(spec: TournamentSpec, workers: int, db: Path, report: Report,
              reuse_bots: bool | None, pin_workers: bool
              ) -> tuple[dict[str, float], dict[str, float]]:
    """One run of ``spec`` into ``db`` with ``workers`` workers: its figures, and its bots'
    CPU by ``name@version``."""
    load_before = os.getloadavg()[0]
    cpu_before, own_before = _cpu_seconds(), _own_cpu_seconds()
    summary = run_tournament(spec, workers, fresh=True, db=db, trial=False,
                             reuse_bots=reuse_bots, pin_workers=pin_workers, report=report)
    cpu, own = _cpu_seconds() - cpu_before, _own_cpu_seconds() - own_before
    return {"workers": float(workers), "games": float(summary.games_recorded),
            "seconds": summary.elapsed_s, "games_per_s": summary.games_per_s,
            "cpu_seconds": cpu, "cpus_busy": cpu / summary.elapsed_s if summary.elapsed_s else 0,
            "parent_cpu_seconds": own,
            "referee_cpu_seconds": summary.referee_cpu_s,
            # the rest: the bots, their sandbox (bubblewrap) and the workers' start-up
            "bots_cpu_seconds": max(0.0, cpu - own - summary.referee_cpu_s),
            "bot_starts": float(summary.bot_starts), "pinned": float(pin_workers),
            "load_before": load_before, "load_after": os.getloadavg()[0]}, summary.bot_cpu_s
