"""League matchmaking: k distinct active entrants, a newcomer seated at once (the earliest
entered first), an exploring table for the pair that met least, the most uncertain entrant
opening a table of three, every pair meeting over time, the same choice from the same state,
and a field ranked closer to its true order than uniform random pairing ranks it (the
simulation behind arena bench league)."""

from __future__ import annotations

import json
import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.bench.league import bench_league, kendall, spearman
from arena.cli.main import app
from arena.tournament.matchmaking import FieldState, Rating, next_table, pair_gain


def _state(n: int, seed: int, played: int) -> FieldState:
    rng = random.Random(seed)
    state = FieldState(active=list(range(n)), beta=25 / 6, ratings={
        b: Rating(rng.uniform(15, 35), rng.uniform(1, 25 / 3)) for b in range(n)})
    for _ in range(played):
        state.add_table(rng.sample(range(n), 2))
    for b in range(n):
        state.tables[b] += 1  # nobody is a newcomer
    return state


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 12), k=st.integers(2, 5), seed=st.integers(0, 2**32),
       number=st.integers(1, 10_000), played=st.integers(0, 40))
def test_a_table_is_k_distinct_active_entrants_and_the_same_each_time(
        n: int, k: int, seed: int, number: int, played: int) -> None:
    state = _state(n, seed, played)
    table = next_table(state, k, seed, number)
    assert len(table) == len(set(table)) == k and set(table) <= set(state.active)
    assert next_table(_state(n, seed, played), k, seed, number) == table


def test_a_newcomer_plays_the_next_table() -> None:
    state = _state(10, 1, 50)
    state.active.append(10)
    state.ratings[10] = Rating(25.0, 25 / 3)
    for number in range(1, 20):
        assert 10 in next_table(state, 3, 7, number)


def test_every_pair_meets_over_time() -> None:
    rng = random.Random(3)
    skills = [rng.gauss(25, 4) for _ in range(8)]
    state = FieldState(active=list(range(8)), beta=25 / 6,
                       ratings={b: Rating(25.0, 25 / 3) for b in range(8)})
    for number in range(1, 400):
        table = next_table(state, 2, 11, number)
        state.add_table(table)
        a, b = table  # a crude update: the stronger closer to its skill, sigma shrinking
        for x in (a, b):
            r = state.ratings[x]
            state.ratings[x] = Rating(r.mu + 0.2 * (skills[x] - r.mu), max(1.0, r.sigma * 0.97))
    assert all(state.met(a, b) >= 1 for a, b in combinations(range(8), 2))


def test_an_even_uncertain_game_teaches_more() -> None:
    sure, unsure = Rating(25, 1), Rating(25, 8)
    assert pair_gain(unsure, unsure, 4) > pair_gain(sure, sure, 4)
    assert pair_gain(unsure, Rating(26, 8), 4) > pair_gain(unsure, Rating(45, 8), 4)


def test_rank_correlations() -> None:
    assert kendall([1, 2, 3], [10, 20, 30]) == 1.0 == spearman([1, 2, 3], [1, 5, 9])
    assert kendall([1, 2, 3], [3, 2, 1]) == -1.0 == spearman([1, 2, 3], [3, 2, 1])


def test_the_league_ranks_a_simulated_field_faster_than_random_pairing() -> None:
    result = bench_league(bots=16, players=2, repeats=2, checkpoints=(60, 120, 240))
    league = [tau for tau, _ in result.curves["league"]]
    uniform = [tau for tau, _ in result.curves["random"]]
    assert sum(league) > sum(uniform)
    shown = CliRunner().invoke(app, ["bench", "league", "--bots", "6", "--repeats", "1",
                                     "-g", "12", "-f", "json"])
    assert shown.exit_code == 0
    assert set(json.loads(shown.stdout)["curves"]) == {"league", "random"}


def _played_field(n: int) -> FieldState:
    """``n`` entrants who have each played a table: no newcomer among them."""
    state = FieldState(active=list(range(n)), beta=25 / 6,
                       ratings={b: Rating(25.0 + b / 3, 1.0) for b in range(n)})
    for b in range(n):
        state.tables[b] += 1
    return state


def test_newcomers_sit_in_the_order_they_entered() -> None:
    state = _played_field(6)
    for late in (6, 7, 8):  # three versions entered one after another, fresh ratings
        state.active.append(late)
        state.ratings[late] = Rating(25.0, 25 / 3)
    first = next_table(state, 2, 7, 1, explore=0.0)
    assert first[0] == 6 and 8 not in first
    state.add_table(first)
    assert 8 in next_table(state, 2, 7, 2, explore=0.0)


def test_an_exploring_table_goes_to_the_pair_that_met_least() -> None:
    state = _played_field(4)
    for a, b in combinations(range(4), 2):
        for _ in range(3 if (a, b) != (1, 3) else 1):
            state.add_table((a, b))
    assert sorted(next_table(state, 2, 5, 9, explore=1.0)) == [1, 3]
    # at 3 players the third seat is the entrant that met the pair least
    state.add_table((0, 1))
    state.add_table((0, 3))
    assert sorted(next_table(state, 3, 5, 9, explore=1.0)) == [1, 2, 3]


def test_the_most_uncertain_entrant_opens_a_table_of_three() -> None:
    state = _played_field(6)
    state.ratings[5] = Rating(45.0, 3.0)  # far from the field, so no seat would go to it
    assert 5 in next_table(state, 3, 1, 1, explore=0.0)
