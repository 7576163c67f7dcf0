"""Swiss pairing properties over random score tables, table sizes, points and standings."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.referee.seating import seat_orders
from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    RatedGame,
    RatingTrack,
    compute_standings,
    conservative_ratings,
    game_points,
    spec_table_weight,
    table_weight,
)
from arena.tournament.swiss import EXACT_WORK_BUDGET, SwissRound, pair_round, table_sizes


# ---------------------------------------------------------------------------- helpers
def meetings(played: list[PlayedTable]) -> Counter[frozenset[int]]:
    per_round: dict[int, set[frozenset[int]]] = {}
    for t in played:
        per_round.setdefault(t.round, set()).update(
            frozenset(p) for p in itertools.combinations(t.seats, 2))
    counts: Counter[frozenset[int]] = Counter()
    for pairs in per_round.values():
        counts.update(pairs)
    return counts


def off_size(played: list[PlayedTable], k: int) -> Counter[tuple[int, int]]:
    """Rounds each entrant sat at a table of each size other than k."""
    rounds = {(t.round, e, len(t.seats)) for t in played if len(t.seats) != k for e in t.seats}
    return Counter((e, size) for _, e, size in rounds)


def penalty(groups: list[tuple[int, ...]], met: Counter[frozenset[int]],
            byes: Counter[int], scores: dict[int, Fraction], off: Counter[tuple[int, int]],
            k: int) -> tuple[int, int, int, Fraction]:
    """(second byes, repeat meetings, off-size tables, the bye recipients' scores above the
    lowest) exactly as the pairing's first four criteria."""
    bye_cost = sum(byes[g[0]] ** 2 for g in groups if len(g) == 1)
    off_cost = sum(off[(e, len(g))] ** 2 for g in groups if 1 < len(g) != k for e in g)
    repeat = sum(met[frozenset(p)] ** 2 for g in groups if len(g) > 1
                 for p in itertools.combinations(g, 2))
    low = min(scores.values())
    bye_score = sum((scores[g[0]] - low for g in groups if len(g) == 1), Fraction(0))
    return bye_cost, repeat, off_cost, bye_score


def partitions(players: list[int], sizes: list[int]) -> list[list[tuple[int, ...]]]:
    """Every partition of ``players`` into groups of the given sizes (brute force)."""
    if not players:
        return [[]]
    first, rest = players[0], players[1:]
    out = []
    for size in sorted(set(sizes)):
        left = list(sizes)
        left.remove(size)
        for others in itertools.combinations(rest, size - 1):
            remaining = [p for p in rest if p not in others]
            for tail in partitions(remaining, left):
                out.append([(first, *others), *tail])
    return out


def simulate_history(n: int, k: int, rounds: int, rng: random.Random
                     ) -> tuple[list[PlayedTable], list[Bye]]:
    """Random earlier rounds: random valid partitions with random placements."""
    sizes, n_byes = table_sizes(n, k)
    played: list[PlayedTable] = []
    byes: list[Bye] = []
    for r in range(1, rounds + 1):
        order = list(range(n))
        rng.shuffle(order)
        i = 0
        for size in sizes:
            seats = tuple(order[i:i + size])
            i += size
            places = [rng.randint(1, size) for _ in seats]
            played.append(PlayedTable(r, seats, tuple(game_points(places))))
        for e in order[i:i + n_byes]:
            byes.append(Bye(r, e, Fraction(1)))
    return played, byes


def check_round(n: int, k: int, result: SwissRound) -> None:
    sizes, n_byes = table_sizes(n, k)
    seated = [e for t in result.tables for e in t] + list(result.byes)
    assert sorted(seated) == list(range(n)), "every bot exactly once"
    assert sorted(len(t) for t in result.tables) == sorted(sizes)
    assert all(2 <= len(t) <= 5 for t in result.tables)
    assert len(result.byes) == n_byes
    if k > 2:
        assert not result.byes


# ---------------------------------------------------------------------------- properties
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 9), k=st.integers(2, 5), rounds=st.integers(0, 5),
       seed=st.integers(0, 2**32))
def test_random_score_tables_pair_validly_with_minimal_rematches(
    n: int, k: int, rounds: int, seed: int
) -> None:
    k = min(k, n)
    rng = random.Random(seed)
    played, byes = simulate_history(n, k, rounds, rng)
    ratings = [rng.uniform(-5, 30) for _ in range(n)]
    standings = compute_standings(n, played, byes, ratings)
    result = pair_round(standings, played, byes, k)
    check_round(n, k, result)
    # no avoidable rematch, no avoidable second bye, the bye as low as it can go: brute
    # force over every partition
    met = meetings(played)
    had_bye = Counter(b.entrant for b in byes)
    sizes, n_byes = table_sizes(n, k)
    groups = [*result.tables, *((b,) for b in result.byes)]
    scores = {s.entrant: s.score for s in standings}
    off = off_size(played, k)
    best = min(penalty(p, met, had_bye, scores, off, k)
               for p in partitions(list(range(n)), [*sizes, *([1] * n_byes)]))
    assert penalty(groups, met, had_bye, scores, off, k) == best
    if best[1] == 0:
        assert all(met[frozenset(p)] == 0 for t in result.tables
                   for p in itertools.combinations(t, 2))


@settings(max_examples=40, deadline=None)
@given(n=st.sampled_from([3, 5, 7, 9]), seed=st.integers(0, 2**32))
def test_two_player_byes_at_most_once(n: int, seed: int) -> None:
    """A whole odd-field Swiss of n rounds: every bot has at most one bye."""
    rng = random.Random(seed)
    played: list[PlayedTable] = []
    byes: list[Bye] = []
    for r in range(1, n + 1):
        standings = compute_standings(n, played, byes)
        result = pair_round(standings, played, byes, 2)
        check_round(n, 2, result)
        for table in result.tables:
            winner = rng.randrange(2)
            played.append(PlayedTable(r, table, tuple(Fraction(int(i == winner))
                                                      for i in range(2))))
        byes.extend(Bye(r, e, Fraction(1)) for e in result.byes)
    counts = Counter(b.entrant for b in byes)
    assert len(counts) == n and set(counts.values()) == {1}


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 11), k=st.integers(3, 5), seed=st.integers(0, 2**32))
def test_off_size_tables_go_round_the_field(n: int, k: int, seed: int) -> None:
    """5 bots at tables of 3 leave a table of 2 each round: in duplicate mode (where a
    smaller table plays fewer rotations, so fewer points are on offer) no bot sits there a
    second time before every bot sat there once. One bot used to sit there every round."""
    k = min(k, n)
    rng = random.Random(seed)
    played: list[PlayedTable] = []
    for r in range(1, 7):
        result = pair_round(compute_standings(n, played), played, [], k, sizes_first=True)
        check_round(n, k, result)
        for table in result.tables:
            places = list(range(1, len(table) + 1))
            rng.shuffle(places)
            played.append(PlayedTable(r, table, tuple(game_points(places))))
        sizes = {len(t) for t in result.tables} - {k}
        for size in sizes:
            counts = [off_size(played, k)[(e, size)] for e in range(n)]
            assert max(counts) - min(counts) <= 1, (size, counts)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(6, 12), seed=st.integers(0, 2**32))
def test_multiplayer_swiss_spreads_repeat_meetings(n: int, seed: int) -> None:
    """Tables of 3: over 3 rounds no pair meets three times while fields are this large."""
    rng = random.Random(seed)
    played: list[PlayedTable] = []
    for r in range(1, 4):
        result = pair_round(compute_standings(n, played), played, [], 3)
        check_round(n, 3, result)
        for table in result.tables:
            places = list(range(1, len(table) + 1))
            rng.shuffle(places)
            played.append(PlayedTable(r, table, tuple(game_points(places))))
    assert max(meetings(played).values()) <= 2


def test_heuristic_fallback_still_pairs_validly() -> None:
    rng = random.Random(5)
    n, k = 24, 4
    played, byes = simulate_history(n, k, 2, rng)
    standings = compute_standings(n, played, byes)
    result = pair_round(standings, played, byes, k, work_budget=0)
    check_round(n, k, result)
    met = meetings(played)
    scores = {s.entrant: s.score for s in standings}
    assert penalty(list(result.tables), met, Counter(), scores, Counter(), k)[1] <= 2


def test_first_round_pairs_neighbours_and_gives_the_bye_to_the_last() -> None:
    result = pair_round(compute_standings(5, []), [], [], 2)
    assert result.tables == ((0, 1), (2, 3))
    assert result.byes == (4,)


def test_the_bye_goes_to_the_lowest_score_even_when_the_tables_spread_more() -> None:
    """After 20-0 and 16-4 tables and a bye worth 20, the bye goes to the 0 (not the 4, as
    it did when the bye's score counted like a table's spread and tied with it)."""
    played = [PlayedTable(1, (0, 4), (Fraction(20), Fraction(0))),
              PlayedTable(1, (2, 3), (Fraction(16), Fraction(4)))]
    byes = [Bye(1, 1, Fraction(20))]
    standings = compute_standings(5, played, byes)
    assert [s.score for s in standings] == [20, 20, 16, 4, 0]
    result = pair_round(standings, played, byes, 2)
    assert result.byes == (4,)
    assert all(set(t) != {2, 3} for t in result.tables)  # and no rematch for it


def test_score_groups_are_respected() -> None:
    # after one round: 0, 2 won; 1, 3 lost -> winners meet winners
    played = [PlayedTable(1, (0, 1), (Fraction(1), Fraction(0))),
              PlayedTable(1, (2, 3), (Fraction(1), Fraction(0)))]
    result = pair_round(compute_standings(4, played), played, [], 2)
    assert sorted(map(sorted, result.tables)) == [[0, 2], [1, 3]]


def test_seats_alternate_for_two_players() -> None:
    # round 1: 0 (seat 0) beat 1, 3 (seat 1) beat 2 -> round 2 pairs 0-3 and 1-2
    played = [PlayedTable(1, (0, 1), (Fraction(1), Fraction(0))),
              PlayedTable(1, (2, 3), (Fraction(0), Fraction(1)))]
    result = pair_round(compute_standings(4, played), played, [], 2)
    # whoever sat in seat 1 takes seat 0 now
    assert sorted(result.tables) == [(1, 2), (3, 0)]


@pytest.mark.parametrize("k", [3, 4, 5])
def test_table_sizes_mix_rather_than_bye(k: int) -> None:
    for n in range(k, 41):
        sizes, n_byes = table_sizes(n, k)
        assert n_byes == 0 and sum(sizes) == n
        assert all(2 <= s <= 5 for s in sizes)
        assert all(abs(s - k) <= 2 for s in sizes)
        assert sizes == sorted(sizes, reverse=True)
    assert table_sizes(10, 4) == ([4, 3, 3], 0)
    assert table_sizes(9, 4) == ([5, 4], 0)


def test_a_field_at_tables_of_five_sits_at_the_fewest_tables_evenly() -> None:
    """The choice docs/TOURNAMENTS.md explains: 11 bots at tables of 5 sit 4 + 4 + 3, not
    5 + 3 + 3 (six bots two seats from the table asked for, tables of unequal games), and 12
    sit 4 + 4 + 4, not 5 + 4 + 3: as few tables as hold the field, as even as can be."""
    for n in range(3, 200):
        tables = -(-n // 5)
        even = [n // tables + (i < n % tables) for i in range(tables)]
        assert table_sizes(n, 5) == (even, 0), n


def test_two_player_table_sizes() -> None:
    assert table_sizes(7, 2) == ([2, 2, 2], 1)
    assert table_sizes(8, 2) == ([2, 2, 2, 2], 0)


# ---------------------------------------------------------------------------- scoring
def test_game_points_linear_with_shared_places() -> None:
    assert game_points([1, 2]) == [1, 0]
    assert game_points([2, 1, 3]) == [Fraction(1, 2), 1, 0]
    assert game_points([1, 1, 3]) == [Fraction(3, 4), Fraction(3, 4), 0]
    # the engine may number a shared place 1,2,2,4 or 1,2,2,3: same points
    assert game_points([1, 2, 2, 4]) == game_points([1, 2, 2, 3]) == [
        1, Fraction(1, 2), Fraction(1, 2), 0]
    assert sum(game_points([3, 1, 2, 2, 5])) == Fraction(5, 2)


def test_standings_tie_breaks_buchholz_then_rating() -> None:
    played = [
        PlayedTable(1, (0, 1), (Fraction(1), Fraction(0))),
        PlayedTable(1, (2, 3), (Fraction(1), Fraction(0))),
        PlayedTable(2, (0, 2), (Fraction(0), Fraction(1))),
        PlayedTable(2, (1, 3), (Fraction(1), Fraction(0))),
    ]
    # scores: 0:1, 1:1, 2:2, 3:0; Buchholz: 0 -> 1+2=3, 1 -> 1+0=1
    standings = compute_standings(4, played, [], [0.0, 9.0, 0.0, 0.0])
    assert [s.entrant for s in standings] == [2, 0, 1, 3]
    assert standings[1].buchholz == 3 and standings[2].buchholz == 1
    # equal score and Buchholz: the rating decides
    tied = compute_standings(2, [PlayedTable(1, (0, 1), (Fraction(1, 2), Fraction(1, 2)))],
                             [], [1.0, 2.0])
    assert [s.entrant for s in tied] == [1, 0]


def test_buchholz_counts_a_small_tables_mates_as_a_full_tables() -> None:
    """At tables of 4, a field of 7 sits 4 + 3: the bot at the table of 3 has two table-mates
    to the others' three, and its Buchholz counts their scores as three would score at their
    mean, so the tie-break weighs who was met, not how many."""
    played = [
        PlayedTable(1, (0, 1, 2, 3), (Fraction(1),) * 4),
        PlayedTable(1, (4, 5, 6), (Fraction(1), Fraction(5, 4), Fraction(5, 4))),
    ]
    # 0 and 4 score 1 each; 0 met three bots of 1 (sum 3), 4 met two of 5/4 (sum 5/2)
    standings = compute_standings(7, played, [], table_mates=3)
    by = {s.entrant: s for s in standings}
    assert by[0].buchholz == 3 and by[4].buchholz == Fraction(15, 4)
    assert [s.entrant for s in standings].index(4) < [s.entrant for s in standings].index(0)
    # a field of one table size keeps the plain sum
    assert compute_standings(7, played[:1], [], table_mates=3)[0].buchholz == 3


def test_byes_score_but_add_no_buchholz() -> None:
    played = [PlayedTable(1, (0, 1), (Fraction(1), Fraction(0)))]
    standings = compute_standings(3, played, [Bye(1, 2, Fraction(1))])
    by = {s.entrant: s for s in standings}
    assert by[2].score == 1 and by[2].buchholz == 0 and by[2].byes == 1


_rated_games = st.lists(st.builds(
    lambda seats, placements: RatedGame(tuple(seats), tuple(placements[:len(seats)])),
    st.lists(st.integers(0, 4), min_size=2, max_size=4),
    st.lists(st.integers(1, 4), min_size=4, max_size=4)), max_size=30)


@settings(max_examples=60, deadline=None)
@given(_rated_games, st.lists(st.integers(0, 30), min_size=1, max_size=4), _rated_games)
def test_ratings_kept_from_round_to_round_are_those_rated_afresh(
        games: list[RatedGame], cuts: list[int], other: list[RatedGame]) -> None:
    """The runner's rating tie-break, kept between Swiss rounds, gives the very numbers of
    rating every game again (rounds rated one after another), and a list that is not the
    earlier one extended is rated afresh."""
    params = {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 0.0,
              "draw_probability": 0.1}
    track = RatingTrack(5, **params)
    for cut in sorted(cuts):
        assert track.ratings(games[:cut]) == conservative_ratings(5, games[:cut], **params)
    assert track.ratings(other) == conservative_ratings(5, other, **params)


def test_conservative_ratings_follow_game_order() -> None:
    games = [RatedGame((0, 1), (1, 2)), RatedGame((1, 2), (1, 2))]
    ratings = conservative_ratings(3, games)
    assert ratings[0] > ratings[2]
    assert conservative_ratings(3, games) == ratings


@pytest.mark.parametrize("duplicate", [False, True, "rotations", "permutations"])
def test_an_off_size_table_offers_the_points_of_a_nominal_one(duplicate: bool | str) -> None:
    """In duplicate mode a table plays one match per seating: the weight makes every table's
    games together worth what a nominal table's are, whatever its size."""
    for nominal in range(2, 6):
        for size in range(2, 6):
            games = len(seat_orders(tuple(range(size)), duplicate))
            nominal_games = len(seat_orders(tuple(range(nominal)), duplicate))
            assert table_weight(size, nominal, duplicate) * games == nominal_games


@pytest.mark.parametrize("fmt", ["round_robin", "gauntlet"])
def test_a_ladder_counts_every_table_size_game_for_game(fmt: str) -> None:
    """Only Swiss pairs for one table size: a ladder's sizes (``[2, 4]``) are each nominal,
    so ``arena pairings`` counts their points as the leaderboard does, unscaled."""
    spec = {"format": fmt, "players_per_game": [2, 4], "duplicate": "permutations"}
    assert [spec_table_weight(spec)(size) for size in (2, 4)] == [1, 1]
    swiss = {**spec, "format": "swiss", "players_per_game": 2}
    assert spec_table_weight(swiss)(4) == Fraction(2, 24)


@pytest.mark.parametrize("work_budget", [EXACT_WORK_BUDGET, 0])  # exact, then local search
def test_a_late_entrant_takes_the_bye_only_when_no_other_of_its_score_group_can(
        work_budget: int) -> None:
    """Round 1: 0 beat 1, 2 beat 3; 4 joins in round 2 with 0, the last of the 0s (no
    Buchholz, entered last), where the bye went: it missed a round, and the bye scored it a
    round's wins before it played a game. 3, the last of the others, takes it."""
    played = [PlayedTable(1, (0, 1), (Fraction(1), Fraction(0))),
              PlayedTable(1, (2, 3), (Fraction(1), Fraction(0)))]
    standings = compute_standings(5, played)
    assert [s.entrant for s in standings] == [0, 2, 1, 3, 4]
    assert pair_round(standings, played, [], 2, work_budget=work_budget).byes == (4,)
    result = pair_round(standings, played, [], 2, work_budget=work_budget, newcomers=[4])
    assert result.byes == (3,)
    assert sorted(map(sorted, result.tables)) == [[0, 2], [1, 4]]


@pytest.mark.parametrize("work_budget", [EXACT_WORK_BUDGET, 0])
def test_a_late_entrant_alone_in_the_lowest_score_group_takes_the_bye(work_budget: int) -> None:
    """Two drawn tables (1/2 each): 4, joining with 0, is the lowest score alone; the bye
    goes to the lowest score group first."""
    half = Fraction(1, 2)
    played = [PlayedTable(1, (0, 1), (half, half)), PlayedTable(1, (2, 3), (half, half))]
    standings = compute_standings(5, played)
    result = pair_round(standings, played, [], 2, work_budget=work_budget, newcomers=[4])
    assert result.byes == (4,)
