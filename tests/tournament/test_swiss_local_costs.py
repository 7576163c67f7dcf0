"""The large-field solver weighs a pairing by one integer per table (arena.tournament.
swiss_local): comparing two pairings' sums must compare their criteria exactly as the exact
solver does, lexicographically (second byes, repeat meetings, off-size seats, the bye's
score, score spread, rank distance), or a large field would trade, say, a repeat meeting for
a closer score. Held here on small fields, where every criterion can be made to differ."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tournament_swiss import simulate_history

from arena.tournament.scoring import compute_standings
from arena.tournament.swiss import SwissRound, _Field, round_cost, table_sizes
from arena.tournament.swiss_local import LocalCosts


def _random_pairing(n: int, k: int, rng: random.Random) -> list[tuple[int, ...]]:
    sizes, n_byes = table_sizes(n, k)
    order = list(range(n))
    rng.shuffle(order)
    groups, start = [], 0
    for size in [*sizes, *([1] * n_byes)]:
        groups.append(tuple(order[start:start + size]))
        start += size
    return groups


def _sign(x: object, y: object) -> int:
    return (x > y) - (x < y)  # type: ignore[operator]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 11), k=st.integers(2, 5), rounds=st.integers(1, 6),
       sizes_first=st.booleans(), seed=st.integers(0, 2**32))
def test_the_local_solvers_integer_costs_order_pairings_as_the_criteria_do(
        n: int, k: int, rounds: int, sizes_first: bool, seed: int) -> None:
    k = min(k, n)
    rng = random.Random(seed)
    played, byes = simulate_history(n, k, rounds, rng)
    standings = compute_standings(n, played, byes, [rng.uniform(-5, 30) for _ in range(n)])
    newcomers = {e for e in range(n) if rng.random() < 0.3}  # late entrants joining now
    field = _Field(standings, played, byes, k, sizes_first, newcomers)
    costs = LocalCosts(field.order, field.scaled, field.meetings, field.bye_count,
                       field.off_size, k, sizes_first, newcomers)
    for _ in range(8):
        a, b = _random_pairing(n, k, rng), _random_pairing(n, k, rng)
        by_criteria = [round_cost(standings, played, byes, k, SwissRound(
            tables=tuple(g for g in p if len(g) > 1),
            byes=tuple(g[0] for g in p if len(g) == 1)), sizes_first=sizes_first,
            newcomers=newcomers) for p in (a, b)]
        by_integer = [sum(costs.group(g) for g in p) for p in (a, b)]
        assert _sign(*by_integer) == _sign(*by_criteria), (a, b, by_criteria)
