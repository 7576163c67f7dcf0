"""``arena bench ismcts``: the ISMCTS sample bot's search speed, and its strength at two budgets.

The bot runs in-process (it is our own sample bot, not untrusted code), asked as the referee
asks it. Speed: searches with a fixed number of iterations from the positions of real games
(greedy opponents, 2 and 4 players; early, middle and late turns), plus the cost of one
determinisation and one playout. Strength (optional): duplicate 2-player games of the two
budgets head to head and each against the heuristic bot.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import GameConfig, new_game
from arena.errors import ArenaError
from arena.registry import SAMPLE_BOTS_DIR
from arena.sdk import Bot, GameStart, Request
from arena.sdk.runner import load_bot
from arena.sdk.search import SearchView, play_out

__all__ = ["IsmctsBench", "run_ismcts_bench"]

#: Told after each deal of the strength games: (deals done, deals in all, the share of
#: first places of each pair's first bot so far, as (first bot, second bot, share)).
DealCallback = Callable[[int, int, list[tuple[str, str, float]]], None]


@dataclass
class IsmctsBench:
    """The figures: one speed row per table size and phase (and one of costs per table
    size), one strength row per pair of bots."""

    iterations_per_search: int
    speed: list[dict[str, Any]] = field(default_factory=list)
    strength: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"iterations_per_search": self.iterations_per_search, "speed": self.speed,
                "strength": self.strength}

    def render(self) -> str:
        lines = [f"ISMCTS speed ({self.iterations_per_search} iterations per search, median "
                 "per position):"]
        for row in self.speed:
            if row["phase"] == "costs":
                lines.append(f"  {row['players']} players: one determinisation "
                             f"{row['determinisation_ms']:.3f} ms, one playout to the end "
                             f"{row['playout_ms']:.2f} ms (CPU)")
            else:
                lines.append(f"  {row['players']} players, {row['phase']:6s} "
                             f"({row['searches']:2d} searches): "
                             f"{row['iterations_per_cpu_s']:7.0f} iterations/s CPU, "
                             f"{row['iterations_per_wall_s']:7.0f} wall")
        for row in self.strength:
            lines.append(f"  {row['a']} vs {row['b']}: first place {row['a_first_share']:.3f} "
                         f"+- {row['stderr']:.3f} over {row['games']} duplicate games")
        return "\n".join(lines)


def run_ismcts_bench(positions: int = 12, iterations: int = 200, games: int = 0,
                     budgets: tuple[int, int] = (30, 150), bots_dir: Path | None = None,
                     seed: int = 1, on_deal: DealCallback | None = None) -> IsmctsBench:
    """Measure ``ismcts.py`` of ``bots_dir`` (default: the sample bots): ``positions``
    searches of ``iterations`` per table size; with ``games``, that many deals per strength
    pair at the two ``budgets`` (CPU milliseconds per decision)."""
    where = bots_dir if bots_dir is not None else SAMPLE_BOTS_DIR
    for name in ("ismcts", "heuristic"):
        if not (where / f"{name}.py").is_file():
            raise ArenaError(f"no {name}.py in {where} (--bots names the directory of "
                             "ismcts.py and heuristic.py)")
    bench = IsmctsBench(iterations)
    for players in (2, 4):
        bench.speed += _speed(where, players, positions, iterations, seed)
    if games:
        bench.strength = _strength(where, budgets, games, seed, on_deal)
    return bench


def _make(where: Path, name: str, ms: float = 0, its: int = 0) -> Bot:
    """A fresh instance of the bot ``name`` of ``where``; ismcts with its budgets."""
    bot = load_bot(where / f"{name}.py")
    if name == "ismcts":
        bot.ms, bot.iterations = ms, its  # type: ignore[attr-defined]
    return bot


def _play(bots: list[Bot], game_seed: int, visit: Any = None) -> Any:
    """A game between kit bots in-process, asked as the referee asks them."""
    n = len(bots)
    config = GameConfig(players=tuple(f"p{i}" for i in range(n)), seed=game_seed)
    state = new_game(config)
    for s, b in enumerate(bots):
        b.on_game_start(GameStart(0, s, list(config.players), 0, config.rounds))
    cursors = [0] * n
    while state.decision is not None:
        d = state.decision
        events = state.events_for(d.seat, cursors[d.seat])
        cursors[d.seat] += len(events)
        for event in events:
            bots[d.seat].on_event(event)
        request = Request(0, d.kind, state.observe(d.seat, False).to_json(False),
                          list(d.options), None, dict(d.context), d.seat)
        if visit is not None:
            visit(state, request, bots[d.seat])
        state.apply(bots[d.seat].act(request))
    return state


def _speed(where: Path, players: int, positions: int, iterations: int,
           seed: int) -> list[dict[str, Any]]:
    """Searches from positions of real games at ``players`` players, by phase, and the cost
    of a determinisation and a playout."""
    rows: dict[str, list[tuple[float, float, int]]] = {"early": [], "middle": [], "late": []}
    costs: list[tuple[float, float]] = []
    game = 0
    while sum(map(len, rows.values())) < positions:
        found, timed = _searched_game(where, players, iterations, seed * 1000 + game)
        game += 1
        searched = [f for f in found if f[1].kind in ("turn", "swap")]
        for (progress, request), measured in zip(searched, timed):
            bucket = "early" if progress < 1 / 3 else "middle" if progress < 2 / 3 else "late"
            rows[bucket].append(measured)
            view = SearchView(request.observation, [], request.kind, request.legal)
            if len(costs) < 3 * positions:
                cpu = time.process_time()
                sample = view.sample_state(len(costs))
                mid = time.process_time()
                play_out(sample, random.Random(len(costs)))
                costs.append((mid - cpu, time.process_time() - mid))
    speed: list[dict[str, Any]] = []
    for phase, results in rows.items():
        if results:
            speed.append({
                "players": players, "phase": phase, "searches": len(results),
                "iterations_per_cpu_s": statistics.median(
                    n / c for c, _, n in results if c > 0),
                "iterations_per_wall_s": statistics.median(
                    n / w for _, w, n in results if w > 0),
            })
    speed.append({"players": players, "phase": "costs",
                  "determinisation_ms": 1000 * statistics.median(c for c, _ in costs),
                  "playout_ms": 1000 * statistics.median(p for _, p in costs)})
    return speed


def _searched_game(where: Path, players: int, iterations: int, game_seed: int
                   ) -> tuple[list[tuple[float, Request]], list[tuple[float, float, int]]]:
    """One game of ismcts (seat 0) against greedy bots: (the phase and request of each of
    its turn and swap decisions, the (CPU s, wall s, iterations) of each of its searches)."""
    found: list[tuple[float, Request]] = []
    timed: list[tuple[float, float, int]] = []
    probe = _make(where, "ismcts", 0, iterations)

    def keep(state: Any, request: Request, bot: Bot) -> None:
        if request.kind in ("turn", "swap") and request.seat == 0:
            found.append((state.turn / (state.rounds * players), request))

    def search(view: Any, rng: Any, time_ms: Any = None) -> int:
        cpu, wall = time.process_time(), time.perf_counter()
        choice = type(probe).search(probe, view, rng, time_ms)  # type: ignore[attr-defined]
        timed.append((time.process_time() - cpu, time.perf_counter() - wall,
                      probe.last_iterations))  # type: ignore[attr-defined]
        return int(choice)

    probe.search = search  # type: ignore[attr-defined]
    _play([probe] + [_make(where, "greedy") for _ in range(players - 1)], game_seed, keep)
    return found, timed


def _strength(where: Path, budgets: tuple[int, int], games: int, seed: int,
              on_deal: DealCallback | None) -> list[dict[str, Any]]:
    """Deal by deal, every pair in turn (a run stopped early still reports all three)."""
    low, high = budgets
    pairs = [(f"ismcts@{high}ms", lambda: _make(where, "ismcts", high),
              f"ismcts@{low}ms", lambda: _make(where, "ismcts", low)),
             (f"ismcts@{high}ms", lambda: _make(where, "ismcts", high),
              "heuristic", lambda: _make(where, "heuristic")),
             (f"ismcts@{low}ms", lambda: _make(where, "ismcts", low),
              "heuristic", lambda: _make(where, "heuristic"))]
    players = [(make_a(), make_b()) for _, make_a, _, make_b in pairs]
    scores = [0.0] * len(pairs)
    for g in range(games):
        for k, (a, b) in enumerate(players):
            for seats in ((a, b), (b, a)):
                places = _play(list(seats), seed * 7919 + g).result.placements
                mine = places[seats.index(a)]
                scores[k] += 1.0 / places.count(1) if mine == 1 else 0.0
        if on_deal is not None:
            on_deal(g + 1, games, [(name_a, name_b, scores[k] / (2 * g + 2))
                                   for k, (name_a, _, name_b, _) in enumerate(pairs)])
    strength = []
    for k, (name_a, _, name_b, _) in enumerate(pairs):
        share = scores[k] / (2 * games)
        strength.append({"a": name_a, "b": name_b, "games": 2 * games, "a_first_share": share,
                         "stderr": (share * (1 - share) / (2 * games)) ** 0.5})
    return strength
