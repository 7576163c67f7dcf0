"""The Swiss standings and pairing scores of forfeits (RULES.md E28): a forfeit scores
nothing, and a game every seat forfeited scores 0 for each and is not rated."""

from __future__ import annotations

from fractions import Fraction

from arena.engine import standing_places
from arena.tournament.scoring import game_points
from arena.tournament.standings import forfeited_seats, scoring_inputs, standings_of


def test_a_forfeit_is_the_table_s_last_place() -> None:
    assert standing_places([1, 1], {0, 1}) == [2, 2]
    assert standing_places([2, 3, 1, 3], {1, 3}) == [2, 4, 1, 4]
    assert standing_places([2, 1], {}) == [2, 1]


def test_a_forfeit_scores_nothing_and_the_players_keep_their_places() -> None:
    assert game_points([1, 1], {0, 1}) == [0, 0]
    assert game_points([1, 1, 1], {0, 1, 2}) == [0, 0, 0]
    assert game_points([2, 3, 1, 3], {1, 3}) == [Fraction(2, 3), 0, 1, 0]
    assert game_points([1, 2, 2], {1, 2}) == [1, 0, 0]
    # without forfeits, shared places still split their positions' points
    assert game_points([1, 1, 3]) == [Fraction(3, 4), Fraction(3, 4), 0]


def test_swiss_standings_give_a_double_forfeit_nothing() -> None:
    """Round 1: entrants 0-1 play, 2-3 both never start; 2 and 3 score nothing (not the half
    point each of a draw) and are not rated; the loser of the game played is ahead of them
    on Buchholz."""
    games = [(1, 0, [10, 11], [1, 2], forfeited_seats({})),
             (1, 1, [12, 13], [1, 1], forfeited_seats({"0": "startup_failure",
                                                       "1": "startup_failure"}))]
    inputs = scoring_inputs(games, [], {10: 0, 11: 1, 12: 2, 13: 3}, 4, {"format": "swiss"})
    played, _, rated, _ = inputs
    assert [table.points for table in played] == [(1, 0), (0, 0)]
    assert len(rated) == 1
    standings = standings_of(inputs, {"format": "swiss"})
    assert [(s.entrant, s.score) for s in standings] == [(0, 1), (1, 0), (2, 0), (3, 0)]
