"""Round-robin completeness, seat balance, gauntlets, duplicate rotations and seeds."""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter

import pytest

from arena.referee.seating import seat_orders
from arena.tournament.schedule import (
    Table,
    balanced_groups,
    derive_seed,
    gauntlet,
    interleave,
    round_robin,
    seat_tables,
)


def seat_counts(tables: list[Table]) -> Counter[tuple[int, int]]:
    return Counter((bot, seat) for t in tables for seat, bot in enumerate(t.seats))


def assert_seats_balanced(tables: list[Table], bots: range | list[int], k: int) -> None:
    counts = seat_counts(tables)
    for bot in bots:
        per_seat = [counts[(bot, seat)] for seat in range(k)]
        assert max(per_seat) - min(per_seat) <= 1, (bot, per_seat)
        if sum(per_seat) % k == 0:
            assert len(set(per_seat)) == 1, (bot, per_seat)


@pytest.mark.parametrize("n", range(2, 11))
@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_two_player_round_robin_is_complete_and_seat_balanced(n: int, rounds: int) -> None:
    tables = round_robin(n, 2, rounds=rounds)
    pairs = Counter(frozenset(t.seats) for t in tables)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(range(n), 2)}
    assert set(pairs.values()) == {rounds}
    assert_seats_balanced(tables, range(n), 2)
    # each repeated pairing alternates seats: with 2 cycles, once in each order
    if rounds == 2:
        orders = Counter(t.seats for t in tables)
        assert set(orders.values()) == {1}


@pytest.mark.parametrize(("n", "k"), [(k + extra, k) for k in (3, 4, 5) for extra in range(0, 5)])
def test_k_player_round_robin_plays_every_subset(n: int, k: int) -> None:
    tables = round_robin(n, k)
    groups = Counter(frozenset(t.seats) for t in tables)
    assert set(groups) == {frozenset(c) for c in itertools.combinations(range(n), k)}
    assert set(groups.values()) == {1}
    assert all(len(set(t.seats)) == k for t in tables)
    assert_seats_balanced(tables, range(n), k)


@pytest.mark.parametrize(("n", "k"), [(9, 3), (12, 4), (13, 3), (16, 4), (20, 5), (30, 4)])
def test_balanced_schedule_when_subsets_are_unaffordable(n: int, k: int) -> None:
    tables = round_robin(n, k, max_tables=10)
    assert math.comb(n, k) > 10 and len(tables) < math.comb(n, k)
    played = Counter(bot for t in tables for bot in t.seats)
    assert len(set(played.values())) == 1  # every bot plays as many tables
    counts = seat_counts(tables)
    for bot in range(n):  # a multiple of k tables per bot: exactly equal seats
        assert len({counts[(bot, seat)] for seat in range(k)}) == 1
    meetings = Counter(frozenset(p) for t in tables for p in itertools.combinations(t.seats, 2))
    values = [meetings[frozenset(p)] for p in itertools.combinations(range(n), 2)]
    assert max(values) - min(values) <= 2
    assert sum(values) == len(tables) * k * (k - 1) // 2


@pytest.mark.parametrize(("n", "k"), [(18, 3), (24, 4), (20, 5)])
def test_cycles_of_a_balanced_schedule_seat_the_pairs_one_cycle_leaves_apart(
        n: int, k: int) -> None:
    """No one cycle's blocks cover every difference here (20 at tables of 5: 10 pairs never
    meet in 20 tables): two cycles choose their blocks together, so every pair meets, rather
    than the same pairs staying apart twice over."""
    tables = round_robin(n, k, rounds=2, max_tables=10)
    meetings = Counter(frozenset(p) for t in tables for p in itertools.combinations(t.seats, 2))
    assert {meetings[frozenset(p)] for p in itertools.combinations(range(n), 2)} <= {2, 3}
    for r in (1, 2):  # each cycle on its own: every bot as many tables
        played = Counter(bot for t in tables if t.round == r for bot in t.seats)
        assert len(played) == n and len(set(played.values())) == 1
    assert_seats_balanced(tables, range(n), k)
    assert [t.index for t in tables if t.round == 2] == list(range(len(tables) // 2))
    dup = round_robin(n, k, rounds=2, duplicate=True, max_tables=10)
    assert {frozenset(t.seats) for t in dup} == {frozenset(t.seats) for t in tables}


def test_balanced_groups_perfect_difference_family() -> None:
    # (13, 3, 1) and (13, 4, 1) designs exist: every pair meets exactly once
    for k in (3, 4):
        groups = balanced_groups(13, k)
        meetings = Counter(frozenset(p) for g in groups for p in itertools.combinations(g, 2))
        assert len(meetings) == math.comb(13, 2) and set(meetings.values()) == {1}


def test_seat_colouring_is_a_proper_assignment() -> None:
    groups = [tuple(c) for c in itertools.combinations(range(7), 3)] * 2
    seated = seat_tables(groups)
    assert [sorted(s) for s in seated] == [sorted(g) for g in groups]
    counts = Counter((bot, seat) for s in seated for seat, bot in enumerate(s))
    for bot in range(7):  # 30 tables each, 10 per seat
        assert [counts[(bot, seat)] for seat in range(3)] == [10, 10, 10]


@pytest.mark.parametrize("k", [2, 3, 4])
def test_duplicate_plays_every_rotation_of_a_deal(k: int) -> None:
    tables = round_robin(k + 1, k, duplicate=True)
    by_deal: dict[int, list[Table]] = {}
    for t in tables:
        by_deal.setdefault(t.deal, []).append(t)
    for rotations in by_deal.values():
        assert len(rotations) == k
        for bot in rotations[0].seats:
            assert sorted(t.seats.index(bot) for t in rotations) == list(range(k))
    assert [t.index for t in tables] == list(range(len(tables)))


@pytest.mark.parametrize("k", [2, 3])
def test_gauntlet_challengers_meet_only_the_field(k: int) -> None:
    challengers, field = [0, 1], [2, 3, 4, 5]
    tables = gauntlet(challengers, field, k)
    for c in challengers:
        mine = [t for t in tables if c in t.seats]
        opponents = Counter(b for t in mine for b in t.seats if b != c)
        assert set(opponents) == set(field)
        assert len(set(opponents.values())) == 1
    for t in tables:
        assert len([b for b in t.seats if b in challengers]) == 1
    assert_seats_balanced(tables, challengers + field, k)


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_a_gauntlets_field_sits_in_every_seat_as_evenly_as_its_challengers(
        k: int, rounds: int) -> None:
    challengers, field = [0, 1, 2], list(range(3, 3 + k + 2))
    tables = gauntlet(challengers, field, k, rounds=rounds)
    assert_seats_balanced(tables, challengers + field, k)


def test_schedules_are_pure_functions() -> None:
    assert round_robin(9, 4, max_tables=20) == round_robin(9, 4, max_tables=20)
    assert gauntlet([0], [1, 2, 3], 2, rounds=2) == gauntlet([0], [1, 2, 3], 2, rounds=2)


def test_derive_seed_is_stable_and_spreads() -> None:
    assert derive_seed(1, "match", 1, 0) == derive_seed(1, "match", 1, 0)
    # pinned: seeds must never drift between versions, or stored tournaments stop resuming
    digest = hashlib.sha256(b"palaestra-arena/0/match/1/0").digest()
    assert derive_seed(0, "match", 1, 0) == int.from_bytes(digest[:8], "big") >> 1
    assert derive_seed(0, "match", 1, 0) == 5360203203180262264
    seeds = {derive_seed(7, "match", r, t) for r in range(1, 20) for t in range(50)}
    assert len(seeds) == 19 * 50
    assert all(0 <= s < 2**63 for s in seeds)


def test_interleave_keeps_one_schedule_and_merges_several_by_round() -> None:
    pairs = round_robin(4, 2, rounds=2, duplicate=True)
    assert interleave([pairs]) == pairs
    fours = round_robin(4, 4, rounds=2, duplicate=True)
    merged = interleave([pairs, fours])
    assert len(merged) == len(pairs) + len(fours)
    for r in (1, 2):
        in_round = [t for t in merged if t.round == r]
        assert [t.index for t in in_round] == list(range(len(in_round)))
        assert [len(t.seats) for t in in_round] == [2] * 12 + [4] * 4  # pairs first, as listed
    pair_deals = {t.deal for t in merged if len(t.seats) == 2}
    four_deals = {t.deal for t in merged if len(t.seats) == 4}
    assert pair_deals == set(range(6)) and four_deals == {6}
    assert sorted(t.seats for t in merged) == sorted(t.seats for t in pairs + fours)


def test_permutations_seat_every_order_of_each_deal() -> None:
    """duplicate: permutations plays a deal in all k! orders: every bot in every seat and
    after every other bot equally often, which rotations of one order cannot give."""
    tables = round_robin(4, 4, rounds=1, duplicate="permutations")
    assert len(tables) == 24 and {t.deal for t in tables} == {0}
    assert len({t.seats for t in tables}) == 24
    assert set(seat_counts(tables).values()) == {6}
    follows = Counter((t.seats[i], t.seats[(i + 1) % 4]) for t in tables for i in range(4))
    assert len(follows) == 12 and set(follows.values()) == {8}
    rotations = round_robin(4, 4, rounds=1, duplicate=True)
    follows = Counter((t.seats[i], t.seats[(i + 1) % 4]) for t in rotations for i in range(4))
    assert len(follows) == 4  # one order: each bot always after the same neighbour
    assert seat_orders((0, 1), "permutations") == seat_orders((0, 1), True)
    assert seat_orders((2, 0, 1), False) == [(2, 0, 1)]
