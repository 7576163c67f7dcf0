"""``arena bench rl``: the PettingZoo environment's steps per second against RLCard's UNO.

Both environments are driven the same way in the same process, pinned to one core: reset,
then at every step a uniformly random legal action (ours read from the action mask, RLCard's
from its state's legal actions) until the game ends, again and again. Our step builds the
vector observation and the mask (the structured view in ``infos`` too, in a second row);
RLCard's step builds its state (observation planes and legal actions). Figures are steps
per CPU second, the median of ``repeat`` alternating repetitions, so that a loaded machine
slows both alike; the ratio is ours over RLCard's.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.common.cpus import one_core
from arena.rl.aec import PalaestraAEC

__all__ = ["RlBench", "run_rl_bench"]

Runner = Callable[[int, int], int]


@dataclass
class RlBench:
    """Steps per CPU second of each environment (None: RLCard is not installed)."""

    steps: int
    repeat: int
    cpu: int | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    rlcard: float | None = None
    rlcard_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "repeat": self.repeat, "cpu": self.cpu,
                "palaestra": self.rows, "rlcard_uno_steps_per_s": self.rlcard,
                "rlcard_error": self.rlcard_error}

    def render(self) -> str:
        core = f"pinned to CPU {self.cpu}" if self.cpu is not None else "not pinned"
        lines = [f"Environment steps per CPU second ({self.steps:,} steps a repetition, median "
                 f"of {self.repeat}, {core}):"]
        for row in self.rows:
            ratio = (f"  {row['steps_per_s'] / self.rlcard:.2f}x RLCard's UNO"
                     if self.rlcard else "")
            lines.append(f"  palaestra AEC, {row['players']} players, {row['what']}: "
                         f"{row['steps_per_s']:,.0f}{ratio}")
        if self.rlcard is not None:
            lines.append(f"  RLCard UNO (2 players): {self.rlcard:,.0f}")
        else:
            lines.append(f"  RLCard UNO: not measured ({self.rlcard_error})")
        return "\n".join(lines)


def _palaestra(players: int, structured: bool) -> Runner:
    env = PalaestraAEC(players, structured=structured)

    def run(steps: int, seed: int) -> int:
        pick = random.Random(seed).randrange
        done = 0
        game = seed
        while done < steps:
            env.reset(seed=game)
            game += 1
            terminations = env.terminations
            while not terminations[env.agent_selection]:
                legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
                env.step(int(legal[pick(len(legal))]))
                done += 1
        return done

    return run


def _rlcard() -> Runner:
    import rlcard  # an optional comparison: only this bench needs it

    env = rlcard.make("uno", config={"seed": 0})

    def run(steps: int, seed: int) -> int:
        pick = random.Random(seed).randrange
        done = 0
        while done < steps:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[pick(len(legal))])
                done += 1
        return done

    return run


def _rate(run: Runner, steps: int, seed: int) -> float:
    start = time.process_time()
    done = run(steps, seed)
    return done / max(time.process_time() - start, 1e-9)


def run_rl_bench(players: tuple[int, ...] = (2, 4), steps: int = 20_000, repeat: int = 5,
                 seed: int = 0, pin: bool = True) -> RlBench:
    """Measure (the help of ``arena bench rl`` says how)."""
    runners: dict[tuple[int, str], Runner] = {}
    for n in players:
        runners[(n, "vector + mask")] = _palaestra(n, structured=False)
        runners[(n, "vector + mask + infos")] = _palaestra(n, structured=True)
    rates: dict[tuple[int, str], list[float]] = {key: [] for key in runners}
    error = None
    theirs: Runner | None = None
    try:
        theirs = _rlcard()
    except ImportError as exc:
        error = f"rlcard is not installed: {exc}"
    their_rates: list[float] = []
    with one_core() as cpu:
        for rep in range(repeat):
            for key, run in runners.items():
                rates[key].append(_rate(run, steps, seed + rep))
            if theirs is not None:
                their_rates.append(_rate(theirs, steps, seed + rep))
    bench = RlBench(steps, repeat, cpu, rlcard_error=error)
    for (n, what), values in rates.items():
        bench.rows.append({"players": n, "what": what,
                           "steps_per_s": statistics.median(values)})
    if their_rates:
        bench.rlcard = statistics.median(their_rates)
    return bench
