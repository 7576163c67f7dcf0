"""Details of pairing, seeds and standings an organiser relies on that no broader test held:
each found by breaking the code that implements it and seeing every other test pass."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from tournament_fixtures import write_spec

from arena.errors import SpecError
from arena.tournament.schedule import gauntlet, match_seed, round_robin
from arena.tournament.scoring import PlayedTable, RatedGame, conservative_ratings, game_points
from arena.tournament.spec_loading import load_spec
from arena.tournament.standings import standings_of
from arena.tournament.swiss import seat_table


def test_of_two_bots_the_one_that_sat_first_less_often_sits_first() -> None:
    """0 sat first twice and second once, 1 sat first once. Either seating puts two earlier
    uses on its seats; the even one (each in a seat it used once) goes before the one that
    gives 0 the first seat a third time."""
    uses = Counter({(0, 0): 2, (0, 1): 1, (1, 0): 1})
    assert seat_table((0, 1), uses, {0: 0, 1: 1}, None) == (1, 0)


def test_a_bot_withdrawn_in_the_round_it_joins_is_refused(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "arena.db", rounds=3,
                      bots=["greedy", "collector", "heuristic", "random"],
                      joined={"random": 3}, withdrawn={"random": 3})
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    assert str(info.value) == (f"{spec} is not a valid tournament spec:\n  withdrawn.random: "
                               "from round 3, but it joins in round 3: it would never play")


def test_a_round_robin_played_twice_deals_new_cards_in_its_second_cycle() -> None:
    """The second cycle repeats the pairings (deal numbers too); its seeds are its own."""
    tables = round_robin(4, 2, rounds=2)
    assert {t.deal for t in tables if t.round == 1} == {t.deal for t in tables if t.round == 2}
    seeds = [match_seed(11, t.round, t.deal) for t in tables]
    assert len(set(seeds)) == len(seeds)


def test_a_gauntlet_meets_every_subset_up_to_max_tables_and_the_balanced_schedule_past() -> None:
    """6 opponents at tables of 4: 20 triples, each at a table of its own. Past
    ``max_tables`` (10): the balanced schedule of 6 at tables of 3, one block developed
    modulo 6: 6 tables, each opponent at 3."""
    every = gauntlet([0], list(range(1, 7)), 4)
    assert sorted(tuple(sorted(t.seats)) for t in every) == \
        [(0, *triple) for triple in combinations(range(1, 7), 3)]
    balanced = gauntlet([0], list(range(1, 7)), 4, max_tables=10)
    assert len(balanced) == 6 and all(0 in t.seats for t in balanced)
    assert Counter(e for t in balanced for e in t.seats if e) == dict.fromkeys(range(1, 7), 3)


def test_the_standings_rate_their_tie_break_with_the_spec_s_settings() -> None:
    """``arena status`` ranks ties by the rating the spec's ``rating`` settings give, as the
    run pairing the rounds does, not by the library's defaults."""
    games = [RatedGame((0, 1), (1, 2)), RatedGame((1, 2), (1, 2)), RatedGame((2, 0), (1, 1))]
    played = [PlayedTable(r, g.seats, tuple(game_points(g.placements)))
              for r, g in enumerate(games, 1)]
    settings = {"mu": 40.0, "sigma": 4.0, "beta": 2.0, "tau": 0.0, "draw_probability": 0.3}
    standings = standings_of((played, [], games, 3), {"format": "swiss", "rating": settings})
    expected = conservative_ratings(3, games, **settings)
    assert {s.entrant: s.rating for s in standings} == dict(enumerate(expected))
