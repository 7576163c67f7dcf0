"""A duplicate Swiss stores each pairing's seatings as tables of their own; the pairing and the
tie-break count them as one meeting of that round (docs/TOURNAMENTS.md): a duplicate history
pairs the next round, and ranks its standings, as the same history stored one table per
pairing does."""

from __future__ import annotations

import random
from collections import defaultdict
from fractions import Fraction

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_tournament_swiss import simulate_history

from arena.referee.seating import seat_orders
from arena.tournament.scoring import PlayedTable, compute_standings, game_points
from arena.tournament.swiss import SwissRound, pair_round


def _histories(n: int, k: int, rounds: int, mode: str, rng: random.Random
               ) -> tuple[list[PlayedTable], list[PlayedTable]]:
    """Random earlier rounds twice: each pairing's seatings stored one table each (as a
    duplicate run stores them), and the same pairings one table each, its points summed."""
    pairings, _ = simulate_history(n, k, rounds, rng)
    seatings: list[PlayedTable] = []
    collapsed: list[PlayedTable] = []
    for table in pairings:
        total: dict[int, Fraction] = defaultdict(Fraction)
        for seats in seat_orders(table.seats, mode):
            points = game_points([rng.randint(1, len(seats)) for _ in seats])
            seatings.append(PlayedTable(table.round, seats, tuple(points)))
            for e, pts in zip(seats, points, strict=True):
                total[e] += pts
        collapsed.append(PlayedTable(table.round, table.seats,
                                     tuple(total[e] for e in table.seats)))
    return seatings, collapsed


def _who_meets(paired: SwissRound) -> tuple[set[frozenset[int]], tuple[int, ...]]:
    return {frozenset(t) for t in paired.tables}, paired.byes


@settings(max_examples=120, deadline=None)
@given(n=st.integers(4, 9), k=st.integers(3, 4), rounds=st.integers(1, 4),
       mode=st.sampled_from(["rotations", "permutations"]), seed=st.integers(0, 2**32))
# a table of 3 and one of 2: counted seating by seating, a pair met at the table of 3 would
# weigh as three meetings and one met at the table of 2 as two, and the pairing would differ
@example(n=8, k=3, rounds=3, mode="rotations", seed=211)
def test_a_pairings_seatings_are_one_meeting_of_the_round(n: int, k: int, rounds: int,
                                                         mode: str, seed: int) -> None:
    k = min(k, n)
    seatings, collapsed = _histories(n, k, rounds, mode, random.Random(seed))
    as_stored = compute_standings(n, seatings, (), None, k - 1)
    as_one = compute_standings(n, collapsed, (), None, k - 1)
    assert [(s.entrant, s.score, s.buchholz) for s in as_stored] == \
        [(s.entrant, s.score, s.buchholz) for s in as_one]
    assert _who_meets(pair_round(as_stored, seatings, (), k, sizes_first=True)) == \
        _who_meets(pair_round(as_one, collapsed, (), k, sizes_first=True))
