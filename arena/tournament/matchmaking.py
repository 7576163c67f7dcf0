"""League matchmaking: which bots sit at the next table, chosen by what it teaches the ratings.

A league never ends, so there is no schedule: each next table is chosen from the ratings of
the games played so far. The rule, in order:

1. **Newcomers first.** An active entrant with fewer than ``first_tables`` tables (a version
   that just entered) sits at the next table, the earliest entered first; its opponents are
   chosen by rule 3. A new version so plays its first games at once.
2. **Exploration.** With probability ``explore`` (drawn from a random stream seeded by the
   league's seed and the table's number), the table goes to the pair that has met least
   (for k > 2: that pair, then the entrants that met the table's members least), ties broken
   by the same stream. Every pair therefore keeps meeting now and then, which guards the
   ratings against a wrong early estimate that the greedy rule would never test again.
3. **Information.** Otherwise the table that is expected to remove the most rating variance
   is chosen. A game between ``a`` and ``b`` shrinks each one's ``sigma**2`` by
   ``sigma**4 / c**2 * w(t)`` (TrueSkill's update: ``c**2 = 2 beta**2 + sigma_a**2 +
   sigma_b**2``, ``t`` the winner's mu margin over ``c``, ``w`` largest for an even game);
   ``w`` is averaged over the two outcomes, each weighted by its probability under the
   current ratings. So the rule seeks uncertain entrants (large sigma) in close games (mu
   near): that is where the order is least known. A table's score is the sum over its pairs,
   each pair's share divided by ``1 + m`` when it met ``m`` times already (a rematch teaches
   less than the model says, if the model is wrong). For 2 players every pair is scored; for
   k players a greedy fill: the most uncertain entrant opens the table, and each next seat
   goes to the entrant raising the score most.

Nothing else enters the decision: no wall clock, no worker timing. The state is the league's
seed, the games played (in order) and the entrants in the order they entered, so a league
replays its choices exactly from those. Seats within the table, and the duplicate seatings
of its deal, are the runner's (:func:`arena.referee.seating.seat_orders`).

See docs/LEAGUE.md for the measurement of this rule against uniform random pairing.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from statistics import NormalDist

from arena.tournament.schedule import derive_seed

__all__ = ["FieldState", "Rating", "next_table", "pair_gain", "random_table"]

#: Tables a newcomer plays before the information rule alone seats it.
FIRST_TABLES = 1
#: Chance that a table explores (the least-met pair) rather than maximises information.
EXPLORE = 0.1


@dataclass(frozen=True, slots=True)
class Rating:
    """An entrant's current TrueSkill estimate."""

    mu: float
    sigma: float


@dataclass
class FieldState:
    """What the next table is chosen from: the active entrants in the order they entered,
    their ratings, and the tables each entrant and each pair has played."""

    active: list[int]
    ratings: dict[int, Rating]
    beta: float
    tables: Counter[int] = field(default_factory=Counter)
    meetings: Counter[tuple[int, int]] = field(default_factory=Counter)

    def add_table(self, seats: Sequence[int]) -> None:
        """Count one table (a deal) played by ``seats``."""
        for bot in set(seats):
            self.tables[bot] += 1
        for a, b in combinations(sorted(set(seats)), 2):
            self.meetings[(a, b)] += 1

    def met(self, a: int, b: int) -> int:
        return self.meetings[(a, b) if a < b else (b, a)]


_NORMAL = NormalDist()


def _w(t: float) -> float:
    """TrueSkill's variance factor of a win by margin ``t`` (in units of ``c``)."""
    v = _NORMAL.pdf(t) / max(_NORMAL.cdf(t), 1e-12)
    return v * (v + t)


def pair_gain(a: Rating, b: Rating, beta: float) -> float:
    """The variance a game between ``a`` and ``b`` is expected to remove from their two
    ratings: TrueSkill shrinks ``sigma**2`` by ``sigma**4 / c**2 * w(t)``, and ``w`` is
    averaged over who wins, each with its probability under the current ratings."""
    c2 = 2 * beta * beta + a.sigma ** 2 + b.sigma ** 2
    t = (a.mu - b.mu) / math.sqrt(c2)
    expected = _NORMAL.cdf(t) * _w(t) + _NORMAL.cdf(-t) * _w(-t)
    return (a.sigma ** 4 + b.sigma ** 4) / c2 * expected


def _score(state: FieldState, group: Sequence[int]) -> float:
    """How much a table of ``group`` teaches: the expected variance removed over its pairs,
    each pair's share divided by ``1 + m`` when it met ``m`` times already."""
    ratings = state.ratings
    return sum(pair_gain(ratings[a], ratings[b], state.beta) / (1 + state.met(a, b))
               for a, b in combinations(group, 2))


def _fill(state: FieldState, opening: list[int], k: int) -> tuple[int, ...]:
    """Complete ``opening`` to ``k`` seats, each next seat the entrant scoring best."""
    group = list(opening)
    while len(group) < k:
        rest = [b for b in state.active if b not in group]
        group.append(max(rest, key=lambda b: (_score(state, [*group, b]),
                                              -state.active.index(b))))
    return tuple(group)


def _explore(state: FieldState, k: int, rng: random.Random) -> tuple[int, ...]:
    """The least-met pair (ties by ``rng``), filled with the entrants that met it least."""
    pairs = list(combinations(state.active, 2))
    rng.shuffle(pairs)
    a, b = min(pairs, key=lambda p: state.met(*p))
    group = [a, b]
    while len(group) < k:
        rest = [x for x in state.active if x not in group]
        rng.shuffle(rest)
        group.append(min(rest, key=lambda x: sum(state.met(x, y) for y in group)))
    return tuple(group)


def next_table(state: FieldState, k: int, seed: int, number: int, *,
               first_tables: int = FIRST_TABLES, explore: float = EXPLORE) -> tuple[int, ...]:
    """The entrants of table ``number`` of a league at tables of ``k`` (see the module's
    rule), in no particular seat order. Needs at least ``k`` active entrants."""
    if len(state.active) < k:
        raise ValueError(f"{len(state.active)} active entrant(s) cannot fill a table of {k}")
    rng = random.Random(derive_seed(seed, "league", number))
    newcomers = [b for b in state.active if state.tables[b] < first_tables]
    if newcomers:
        return _fill(state, [newcomers[0]], k)
    if rng.random() < explore:
        return _explore(state, k, rng)
    if k == 2:
        return max(combinations(state.active, 2), key=lambda p: _score(state, p))
    opener = max(state.active, key=lambda b: (state.ratings[b].sigma, -state.tables[b]))
    return _fill(state, [opener], k)


def random_table(active: Sequence[int], k: int, seed: int, number: int) -> tuple[int, ...]:
    """Uniform random pairing, the baseline the rule is measured against."""
    return tuple(random.Random(derive_seed(seed, "random", number)).sample(list(active), k))
