"""The leaderboard's tie-breaks as ``arena leaderboard --json``'s ``sort`` states them
(:data:`arena.rating.leaderboard.SORTS`), and a row's note when two things are said of it:
each found by breaking the code and seeing every other test pass."""

from __future__ import annotations

from typing import Any

import trueskill

from arena.rating.leaderboard import Leaderboard, LeaderboardRow, rating_order, sort_leaderboard
from arena.rating.trueskill_rating import RatingSettings


def _row(key: str, **fields: Any) -> LeaderboardRow:
    values: dict[str, Any] = {"rank": 0, "key": key, "bot": key.split("@")[0],
                              "version": key.split("@")[1], "mu": 25.0, "sigma": 5.0,
                              "conservative": 10.0, "games": 4, "wins": 2, "win_pct": 50.0,
                              "mean_placement": 1.5, "points": 2.0, "byes": 0,
                              "buchholz": None}
    values.update(fields)
    return LeaderboardRow(**values)


def _board(rows: list[LeaderboardRow]) -> Leaderboard:
    return Leaderboard(scope="tournament", tournament=None, settings=RatingSettings(),
                       games=8, swiss=True, rows=rows)


def test_equal_conservative_ratings_go_by_the_higher_mu() -> None:
    """mu - 3 sigma: 30 - 15 and 24 - 9 are both 15; the surer estimate is not the better."""
    ratings = {"alpha@1": trueskill.Rating(mu=24.0, sigma=3.0),
               "beta@1": trueskill.Rating(mu=30.0, sigma=5.0)}
    assert rating_order(ratings) == ["beta@1", "alpha@1"]
    board = sort_leaderboard(_board([_row("alpha@1", mu=24.0, sigma=3.0, conservative=15.0),
                                     _row("beta@1", mu=30.0, sigma=5.0, conservative=15.0)]),
                             "rating")
    assert [(r.rank, r.key) for r in board.rows] == [(1, "beta@1"), (2, "alpha@1")]


def test_by_points_equal_points_and_buchholz_go_by_rating_before_entry_order() -> None:
    board = sort_leaderboard(_board([
        _row("first@1", entry=0, points=3.0, buchholz=4.0, conservative=8.0),
        _row("second@1", entry=1, points=3.0, buchholz=4.0, conservative=12.0),
        _row("third@1", entry=2, points=1.0, buchholz=9.0, conservative=20.0)]), "points")
    assert [(r.rank, r.key) for r in board.rows] == [(1, "second@1"), (2, "first@1"),
                                                     (3, "third@1")]


def test_a_new_version_withdrawn_says_both() -> None:
    row = _row("greedy@3", new_version=True, older_versions=["2", "1"],
               field_status="withdrawn from round 3")
    assert row.note == "new (older: 2, 1); withdrawn from round 3"
    assert _row("greedy@1", field_status="joined in round 2").note == "joined in round 2"
