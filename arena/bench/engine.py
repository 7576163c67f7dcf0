"""``arena bench engine``: how fast the engine plays and evaluates, on one core.

Three measurements, each the median of ``repeat`` timed repetitions (the process is pinned to
one CPU while it runs, where the OS allows it):

* **random play**: :func:`~arena.engine.agents.play_game` with one
  :class:`~arena.engine.agents.RandomAgent` per seat, exactly as the arena plays in-process
  games: an :class:`~arena.engine.observation.Observation` is built at every decision and
  every event is tracked. decisions/s counts choices asked of agents (a choice with one legal
  option is taken by the engine and is not a decision); games/s counts whole games.
* **Desmos evaluations**: :func:`~arena.engine.desmos.evaluate` over random 5-card hands of
  the 51 cards other than the Palaestron (drawn from a fixed seed; one untimed warm-up pass
  first, since the evaluator fills its table on first sight of a hand shape).
* **census**: :func:`~arena.engine.desmos.census` over all 2,349,060 hands; the first run in
  the process is reported apart (it solves every signature), then the median.

Every figure is given twice: by wall-clock time (``time.perf_counter``) and by the CPU time of
this process (``time.process_time``). On an idle machine they agree; on a shared one the
wall-clock figure also counts the time other processes held the core, and the CPU figure is
the engine's own speed.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from arena.common.cpus import one_core
from arena.common.fitting import fit_columns, not_shown_lines, shortened
from arena.engine.agents import RandomAgent, play_game
from arena.engine.config import GameConfig, rounds_for
from arena.engine.desmos import census, evaluate
from arena.errors import RulesError
from arena.native import native_build

__all__ = ["CENSUS_HANDS", "BenchRow", "EngineBench", "bench_census", "bench_evaluate",
           "bench_play", "run_engine_bench"]

#: C(51, 5): every 5-card hand without the Palaestron.
CENSUS_HANDS = 2_349_060


@dataclass
class BenchRow:
    """One measured figure: its median over the repetitions and every sample."""

    what: str
    value: float
    unit: str
    samples: list[float] = field(default_factory=list)
    note: str = ""
    #: the same figure by CPU time of this process
    cpu_value: float = 0.0
    cpu_samples: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "value": self.value, "unit": self.unit,
                "samples": self.samples, "cpu_value": self.cpu_value,
                "cpu_samples": self.cpu_samples, "note": self.note}


@dataclass
class EngineBench:
    rows: list[BenchRow]
    cpu: int | None
    repeat: int
    #: how the engine ran: "compiled (mypyc, N modules)" or "pure (why)"
    build: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"cpu": self.cpu, "repeat": self.repeat, "engine": self.build,
                "rows": [r.to_json() for r in self.rows]}

    def render(self, tablefmt: str = "simple", width: int | None = None) -> str:
        """The report; on a terminal ``width`` columns wide, its table without the columns
        that matter least (the note first), then with the measurements' names cut."""
        cells = [{"measurement": r.what, "median": _fmt(r.value), "unit": r.unit,
                  "min": _fmt(min(r.samples)), "max": _fmt(max(r.samples)),
                  "median (CPU time)": _fmt(r.cpu_value), "note": r.note} for r in self.rows]

        def table(kept: Sequence[str], most: int | None) -> str:
            return str(tabulate(
                [[shortened(cell[c], most) if c == "measurement" else cell[c] for c in kept]
                 for cell in cells],
                headers=list(kept), tablefmt=tablefmt, disable_numparse=True))

        text, left_out = fit_columns(table, _COLUMNS, _LEFT_OUT, width,
                                     [r.what for r in self.rows])
        core = f"pinned to CPU {self.cpu}" if self.cpu is not None else "not pinned"
        head = (f"arena bench engine: median of {self.repeat} repetitions, one core ({core}); "
                f"engine {self.build}")
        return "\n".join([head, "", text,
                          *not_shown_lines(left_out, "--format json has every figure")])


#: The report's columns, and those a narrow terminal leaves out, first to last.
_COLUMNS = ("measurement", "median", "unit", "min", "max", "median (CPU time)", "note")
_LEFT_OUT = ("note", "max", "min", "median (CPU time)")


def _fmt(value: float) -> str:
    return f"{value:,.3f}" if value < 100 else f"{value:,.0f}"


class _Clock:
    """Wall-clock and CPU seconds of one timed block."""

    def __enter__(self) -> _Clock:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = max(time.process_time() - self.cpu, 1e-9)


def _row(what: str, unit: str, units: list[float], clocks: list[_Clock], note: str,
         per_second: bool = True) -> BenchRow:
    """A row from per-repetition units and clocks: a rate (units/s) or plain seconds."""
    if per_second:
        wall = [u / c.wall for u, c in zip(units, clocks)]
        cpu = [u / c.cpu for u, c in zip(units, clocks)]
    else:
        wall = [c.wall for c in clocks]
        cpu = [c.cpu for c in clocks]
    return BenchRow(what, statistics.median(wall), unit, wall, note, statistics.median(cpu), cpu)


def bench_play(players: int, games: int, repeat: int, seed: int = 0) -> list[BenchRow]:
    """decisions/s and games/s of random play with observations (as ``play_game``)."""
    names = tuple(f"random-{s}" for s in range(players))
    clocks: list[_Clock] = []
    decisions: list[float] = []
    for rep in range(repeat):
        configs = [GameConfig(players=names, seed=seed + rep * games + g) for g in range(games)]
        agents = [[RandomAgent(c.seed * 8 + s) for s in range(players)] for c in configs]
        count = 0
        with _Clock() as clock:
            for config, seats in zip(configs, agents):
                count += len(play_game(config, seats).choices)
        clocks.append(clock)
        decisions.append(count)
    note = f"{games} games per repetition, observations built, events tracked"
    what = f"random play, {players} players"
    return [_row(what, "decisions/s", decisions, clocks, note),
            _row(what, "games/s", [games] * repeat, clocks, note)]


def bench_evaluate(hands: int, repeat: int, seed: int = 0) -> BenchRow:
    """evaluate() calls per second on random 5-card hands (Palaestron excluded)."""
    rng = random.Random(seed)
    cards = list(range(51))
    sample = [tuple(rng.sample(cards, 5)) for _ in range(hands)]
    for hand in sample:  # warm-up: the evaluator's table fills on first sight of a hand shape
        evaluate(hand)
    clocks = []
    for _ in range(repeat):
        with _Clock() as clock:
            for hand in sample:
                evaluate(hand)
        clocks.append(clock)
    return _row("Desmos evaluate()", "evaluations/s", [hands] * repeat, clocks,
                f"{hands:,} random 5-card hands per repetition, after one warm-up pass")


def bench_census(repeat: int) -> list[BenchRow]:
    """The census: its first run in this process, then the median of ``repeat`` runs."""
    with _Clock() as first:
        census()
    clocks = []
    for _ in range(repeat):
        with _Clock() as clock:
            census()
        clocks.append(clock)
    note = "all 2,349,060 hands"
    return [
        _row("Desmos census, first run", "seconds", [1], [first],
             note + "; solves every hand shape", per_second=False),
        _row("Desmos census", "seconds", [1] * repeat, clocks, note, per_second=False),
        _row("Desmos census", "hands/s", [CENSUS_HANDS] * repeat, clocks, note),
    ]


def run_engine_bench(players: tuple[int, ...] = (2, 4), games: int = 100, repeat: int = 5,
                     hands: int = 200_000, census_repeat: int = 3,
                     pin: bool = True) -> EngineBench:
    """Every measurement above, on one core; the census first (so its first run is cold)."""
    if repeat < 1 or census_repeat < 1 or games < 1 or hands < 1:
        raise RulesError("games, hands and repetitions must be at least 1")
    for n in players:
        rounds_for(n)
    pinned: AbstractContextManager[int | None] = one_core() if pin else nullcontext(None)
    with pinned as cpu:
        rows = bench_census(census_repeat)
        rows.append(bench_evaluate(hands, repeat))
        for n in players:
            rows.extend(bench_play(n, games, repeat))
    return EngineBench(rows, cpu, repeat, str(native_build()))
