"""``arena bench rl``: the PettingZoo environment's steps per second against RLCard's UNO,
and the Gymnasium environment's learner steps per second against a sample bot.

Both AEC environments are driven the same way in the same process, pinned to one core:
reset, then at every step a uniformly random legal action (ours read from the action mask,
RLCard's from its state's legal actions) until the game ends, again and again. Our step
builds the vector observation and the mask (the structured view in ``infos`` too, in a
second row); RLCard's step builds its state (observation planes and legal actions). That
is the environment alone, every seat acting at random.

A learner meets opponents that think: the Gymnasium rows count the learner's steps (a random
legal action each) while bots play every other seat in-process, fewer of them, since a bot's
decision costs far more than a step. Figures are steps per CPU second, the median of
``repeat`` alternating repetitions, so that a loaded machine slows every row alike; the
ratio is ours over RLCard's, or a Gymnasium row's over the AEC's at its table size.
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
from arena.common.printable import printable
from arena.errors import BotError
from arena.registry import resolve_named, someone_elses
from arena.rl.aec import PalaestraAEC
from arena.rl.gym_env import PalaestraEnv

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
    #: The bot at the Gymnasium rows' other seats (None: those rows were not measured).
    opponent: str | None = None
    opponent_steps: int = 0
    #: The Gymnasium rows: the learner's steps per CPU second against ``opponent``.
    learner_rows: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "repeat": self.repeat, "cpu": self.cpu,
                "palaestra": self.rows, "rlcard_uno_steps_per_s": self.rlcard,
                "rlcard_error": self.rlcard_error, "opponent": self.opponent,
                "opponent_steps": self.opponent_steps, "gymnasium": self.learner_rows}

    def render(self) -> str:
        core = f"pinned to CPU {self.cpu}" if self.cpu is not None else "not pinned"
        lines = [f"Environment steps per CPU second (median of {self.repeat}, {core}).",
                 f"PettingZoo AEC, every seat a random legal action ({self.steps:,} steps a "
                 "repetition): the environment alone"]
        for row in self.rows:
            ratio = (f"  {row['steps_per_s'] / self.rlcard:.2f}x RLCard's UNO"
                     if self.rlcard else "")
            lines.append(f"  palaestra AEC, {row['players']} players, {row['what']}: "
                         f"{row['steps_per_s']:,.0f}{ratio}")
        if self.rlcard is not None:
            lines.append(f"  RLCard UNO (2 players): {self.rlcard:,.0f}")
        else:
            lines.append(f"  RLCard UNO: not measured ({self.rlcard_error})")
        if self.opponent is not None:
            lines.append(f"Gymnasium, the learner's steps (a random legal action each) with "
                         f"{self.opponent} at every other seat ({self.opponent_steps:,} "
                         "learner steps a repetition): what a learner gets")
        alone = {row["players"]: row["steps_per_s"] for row in self.rows
                 if row["what"] == "vector + mask"}
        for row in self.learner_rows:
            share = (f"  {alone[row['players']] / row['steps_per_s']:.0f}x below the AEC"
                     if row["players"] in alone else "")
            lines.append(f"  palaestra Gymnasium, {row['players']} players, learner vs "
                         f"{row['opponents']}: {row['steps_per_s']:,.0f}{share}")
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


def _learner(players: int, opponent: str) -> Runner:
    """The Gymnasium environment's learner steps, ``opponent`` at every other seat (loaded
    now: a name that is no bot is refused before anything is measured)."""
    _refuse_someone_elses(opponent)
    env = PalaestraEnv([opponent] * (players - 1))

    def run(steps: int, seed: int) -> int:
        pick = random.Random(seed).randrange
        obs, _ = env.reset(seed=seed)
        for _ in range(steps):
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, _, _ = env.step(int(legal[pick(len(legal))]))
            if terminated:
                obs, _ = env.reset()
        return steps

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


def _refuse_someone_elses(opponent: str) -> None:
    """The opponent is imported into the bench's own process, unsandboxed: a bot that, as far
    as the arena can tell, someone else wrote (a student's submission) is not run there, as
    ``arena bench tournament`` and ``arena game --rerun`` do not run one."""
    reason = someone_elses(resolve_named(opponent).path)
    if reason is not None:
        raise BotError(f"{printable(opponent)}: {reason}; --opponent runs in this process, "
                       "unsandboxed, with your rights: measure against a bot of your own "
                       "(a sample bot, or your copy of one)")


def run_rl_bench(players: tuple[int, ...] = (2, 4), steps: int = 20_000, repeat: int = 5,
                 seed: int = 0, pin: bool = True, opponent: str | None = "greedy",
                 opponent_steps: int = 2_000) -> RlBench:
    """Measure (the help of ``arena bench rl`` says how); ``opponent`` None leaves out the
    Gymnasium rows."""
    runners: dict[tuple[int, str], Runner] = {}
    for n in players:
        runners[(n, "vector + mask")] = _palaestra(n, structured=False)
        runners[(n, "vector + mask + infos")] = _palaestra(n, structured=True)
    learners = {n: _learner(n, opponent) for n in players} if opponent is not None else {}
    rates: dict[tuple[int, str], list[float]] = {key: [] for key in runners}
    learner_rates: dict[int, list[float]] = {n: [] for n in learners}
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
            for n, run in learners.items():
                learner_rates[n].append(_rate(run, opponent_steps, seed + rep))
    bench = RlBench(steps, repeat, cpu, rlcard_error=error, opponent=opponent,
                    opponent_steps=opponent_steps if opponent is not None else 0)
    for (n, what), values in rates.items():
        bench.rows.append({"players": n, "what": what,
                           "steps_per_s": statistics.median(values)})
    for n, values in learner_rates.items():
        bench.learner_rows.append({"players": n, "opponents": _seated(opponent, n - 1),
                                   "steps_per_s": statistics.median(values)})
    if their_rates:
        bench.rlcard = statistics.median(their_rates)
    return bench


def _seated(opponent: str | None, seats: int) -> str:
    """``greedy``, or ``3 greedy``: the bots at the learner's table."""
    return f"{opponent}" if seats == 1 else f"{seats} {opponent}"
