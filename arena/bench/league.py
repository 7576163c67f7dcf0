"""How fast league matchmaking finds the true order: a simulated field, no bots, no sandbox.

``arena bench league``: ``bots`` entrants of known strength (true skills drawn from a seeded
normal distribution), games decided in-process from those skills (each seat performs its
skill plus Gaussian noise; the best performance places first), TrueSkill updated after every
game exactly as the league does. The same field is run twice: tables chosen by
:func:`arena.tournament.matchmaking.next_table` and by uniform random pairing. At each
checkpoint (a number of games played) the rank correlation of the rating order (by mu) with
the true order is taken: Kendall's tau and Spearman's rho, averaged over ``repeats`` fields.
A table is one deal played in every seating (duplicate), i.e. ``k`` games at k players.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trueskill

from arena.tournament.matchmaking import FieldState, Rating, next_table, random_table
from arena.tournament.schedule import derive_seed

__all__ = ["CHECKPOINTS", "LeagueBench", "bench_league", "kendall", "spearman"]

#: Games at which the correlations are taken.
CHECKPOINTS = (100, 200, 400, 800, 1600, 3200)


@dataclass
class LeagueBench:
    """Mean correlations at each checkpoint, per matchmaking."""

    bots: int
    players: int
    repeats: int
    noise: float
    checkpoints: list[int]
    #: method -> (kendall, spearman) per checkpoint
    curves: dict[str, list[tuple[float, float]]]

    def render(self) -> str:
        """The two curves side by side, one row per checkpoint."""
        lines = [f"{self.bots} simulated bots at tables of {self.players}, {self.repeats} "
                 f"field(s), performance noise {self.noise:g}: rank correlation of the "
                 "ratings (by mu) with the true order",
                 f"{'games':>7}  {'league tau':>10}  {'random tau':>10}  {'league rho':>10}  "
                 f"{'random rho':>10}"]
        for i, games in enumerate(self.checkpoints):
            (lk, ls), (rk, rs) = self.curves["league"][i], self.curves["random"][i]
            lines.append(f"{games:>7}  {lk:>10.3f}  {rk:>10.3f}  {ls:>10.3f}  {rs:>10.3f}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        return {"bots": self.bots, "players": self.players, "repeats": self.repeats,
                "noise": self.noise, "checkpoints": self.checkpoints,
                "curves": {m: [{"kendall": round(k, 4), "spearman": round(s, 4)}
                               for k, s in c] for m, c in self.curves.items()}}


def kendall(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's tau-a of two equally long sequences."""
    n = len(xs)
    score = 0
    for i in range(n):
        for j in range(i + 1, n):
            a, b = xs[i] - xs[j], ys[i] - ys[j]
            score += (a * b > 0) - (a * b < 0)
    return score / (n * (n - 1) / 2)


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    for rank, i in enumerate(order):
        ranks[i] = float(rank)
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rho (no ties expected: skills and mus are continuous)."""
    rx, ry = _ranks(xs), _ranks(ys)
    n = len(xs)
    return 1 - 6 * sum((a - b) ** 2 for a, b in zip(rx, ry, strict=True)) / (n * (n * n - 1))


Chooser = Callable[[FieldState, int, int, int], tuple[int, ...]]


def _league(state: FieldState, k: int, seed: int, number: int) -> tuple[int, ...]:
    return next_table(state, k, seed, number)


def _uniform(state: FieldState, k: int, seed: int, number: int) -> tuple[int, ...]:
    return random_table(state.active, k, seed, number)


def _simulate(skills: Sequence[float], k: int, choose: Chooser, seed: int, noise: float,
              checkpoints: Sequence[int]) -> list[tuple[float, float]]:
    env = trueskill.TrueSkill(tau=0.0, draw_probability=0.0)
    ratings = {i: env.create_rating() for i in range(len(skills))}
    state = FieldState(active=list(range(len(skills))), ratings={}, beta=env.beta)
    rng = random.Random(derive_seed(seed, "bench-league-games"))
    games = 0
    found: list[tuple[float, float]] = []
    number = 0
    while len(found) < len(checkpoints):
        state.ratings = {i: Rating(r.mu, r.sigma) for i, r in ratings.items()}
        group = choose(state, k, seed, number)
        number += 1
        state.add_table(group)
        for _ in range(k):  # one game per seating of the deal
            perf = [skills[b] + rng.gauss(0.0, noise) for b in group]
            order = sorted(range(k), key=lambda s: -perf[s])
            ranks = [order.index(s) for s in range(k)]
            rated = env.rate([(ratings[b],) for b in group], ranks=ranks)
            for b, (r,) in zip(group, rated, strict=True):
                ratings[b] = r
            games += 1
            while len(found) < len(checkpoints) and games >= checkpoints[len(found)]:
                mus = [ratings[i].mu for i in range(len(skills))]
                found.append((kendall(mus, skills), spearman(mus, skills)))
    return found


def bench_league(bots: int = 50, players: int = 2, repeats: int = 3, seed: int = 2026,
                 noise: float = 4.0, checkpoints: Sequence[int] = CHECKPOINTS) -> LeagueBench:
    """Both matchmakings on ``repeats`` simulated fields of ``bots`` (see the module)."""
    curves: dict[str, list[tuple[float, float]]] = {}
    for method, choose in (("league", _league), ("random", _uniform)):
        runs = []
        for r in range(repeats):
            field = random.Random(derive_seed(seed, "bench-league-field", r))
            skills = [field.gauss(25.0, 25.0 / 6) for _ in range(bots)]
            runs.append(_simulate(skills, players, choose, seed + r, noise, checkpoints))
        curves[method] = [
            (sum(run[i][0] for run in runs) / repeats, sum(run[i][1] for run in runs) / repeats)
            for i in range(len(checkpoints))]
    return LeagueBench(bots=bots, players=players, repeats=repeats, noise=noise,
                       checkpoints=list(checkpoints), curves=curves)
