"""A game nobody played scores nothing (RULES.md E28): every place a game's result is used
reads a forfeit as the table's last place, worth no points, and a game every seat forfeited as
no information (not rated, no meeting between the bots, no win)."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

from rating_store_builder import GameSpec, StoreBuilder

from arena.rating.games import BotVersion, StoredGame
from arena.rating.h2h import compute_h2h
from arena.rating.leaderboard import compute_leaderboard
from arena.rating.match_series import first_bot_score
from arena.rating.results import render_results
from arena.rating.standings import stored_game_points, total_points
from arena.rating.trueskill_rating import RatingSettings
from arena.referee.outcome import GameOutcome, MatchOutcome

A, B, C, D = (BotVersion(name, "v1", i) for i, name in enumerate("abcd", 1))
NEVER = "startup_failure"


def _game(index: int, seats: tuple[BotVersion, ...], placements: tuple[int, ...],
          forfeited: tuple[int, ...] = ()) -> StoredGame:
    return StoredGame(id=f"t/r1/t0/g{index}", tournament_id=1, tournament="t", round=1,
                      table_index=0, game_index=index, seed=index, seats=seats,
                      placements=placements, forfeits=tuple((s, NEVER) for s in forfeited))


def test_a_game_every_seat_forfeited_scores_nothing_and_places_both_last() -> None:
    nobody = _game(0, (C, D), (1, 1), (0, 1))
    assert stored_game_points(nobody) == {C: 0, D: 0}
    played = _game(1, (A, B), (1, 2))
    board = {row.bot: row for row in compute_leaderboard([played, nobody], RatingSettings())
             .rows}
    assert [(board[n].games, board[n].wins, board[n].points, board[n].mean_placement)
            for n in "abcd"] == [(1, 1, 1.0, 1.0), (1, 0, 0.0, 2.0), (1, 0, 0.0, 2.0),
                                 (1, 0, 0.0, 2.0)]
    # not rated: both keep the default rating
    assert board["c"].mu == board["d"].mu == 25.0


def test_forfeited_seats_of_a_played_game_share_the_last_place_and_score_nothing() -> None:
    """Four seats, two forfeited: the two who played keep their places among themselves."""
    game = _game(0, (A, B, C, D), (2, 3, 1, 3), (1, 3))
    assert stored_game_points(game) == {C: 1, A: Fraction(2, 3), B: 0, D: 0}
    assert total_points([game]) == {"a@v1": Fraction(2, 3), "b@v1": 0, "c@v1": 1, "d@v1": 0}
    board = {row.bot: row for row in compute_leaderboard([game], RatingSettings()).rows}
    assert [board[n].mean_placement for n in "abcd"] == [2.0, 4.0, 1.0, 4.0]


def test_two_bots_that_both_forfeited_did_not_meet_head_to_head() -> None:
    h2h = compute_h2h([_game(0, (A, B), (1, 1), (0, 1)), _game(1, (A, B, C), (2, 2, 1), (0, 1))])
    assert ("a@v1", "b@v1") not in h2h.pairs and ("b@v1", "a@v1") not in h2h.pairs
    assert h2h.pairs[("c@v1", "a@v1")].ahead == 1 and h2h.pairs[("c@v1", "a@v1")].games == 1


def _outcome(placements: list[int], forfeits: dict[int, str]) -> GameOutcome:
    return GameOutcome(game_id="m/g0", game_index=0, seed=0, seats=["a@1", "b@1", "c@1"],
                       names=["a", "b", "c"], starting_seat=0, placements=placements,
                       desmos=["", "", ""], ascension=False, tiebreak="none", failures=[],
                       forfeits=forfeits, decisions=0, duration_s=0.0, latency=[], record={})


def test_a_match_counts_a_forfeit_last_and_a_double_forfeit_as_no_game() -> None:
    nobody = _outcome([1, 1, 1], {0: NEVER, 1: NEVER, 2: NEVER})
    played = _outcome([1, 2, 2], {1: NEVER, 2: NEVER})
    match = MatchOutcome(match_id="m", seats=["a@1", "b@1", "c@1"], names=["a", "b", "c"],
                         games=[nobody, played], bots=[], sandbox_level="", limits={},
                         duration_s=0.0)
    assert [row["mean_place"] for row in match.standings()] == [2.0, 3.0, 3.0]
    assert [row["wins"] for row in match.standings()] == [1, 0, 0]
    score = first_bot_score([nobody, played])
    assert (score.wins, score.draws, score.losses) == (1, 0, 0)


def test_the_results_export_gives_each_seat_its_points_and_standing_place(
        tmp_path: Path) -> None:
    """A grader reading ``arena results`` sees the double forfeit score 0-0, and a forfeited
    seat placed last, as the standings place it, not the shared first place the engine's
    placements hold (a bot that timed out showed place 1 beside 'forfeit' and 0.0 points);
    the engine's placement stays, named as such."""
    builder = StoreBuilder(tmp_path / "a.db")
    tid, (c, d) = builder.tournament("cup", ["charlie", "delta"])
    builder.game(GameSpec(tid, 0, 0, 0, [c, d], [1, 1], forfeits={"0": NEVER, "1": "timeout"}))
    builder.game(GameSpec(tid, 0, 0, 1, [d, c], [1, 2], forfeits={"1": NEVER}))
    builder.close()
    doc = json.loads(render_results(tmp_path / "a.db", "cup", "json"))
    assert [game["points"] for game in doc["games"]] == [[0.0, 0.0], [1.0, 0.0]]
    assert [game["standing_places"] for game in doc["games"]] == [[2, 2], [1, 2]]
    assert [game["placements"] for game in doc["games"]] == [[1, 1], [1, 2]]
    rows = list(csv.DictReader(io.StringIO(render_results(tmp_path / "a.db", "cup", "csv"))))
    assert [(row["place"], row["engine_placement"], row["forfeit"], row["points"])
            for row in rows] == [
        ("2", "1", NEVER, "0.0"), ("2", "1", "timeout", "0.0"), ("1", "1", "", "1.0"),
        ("2", "2", NEVER, "0.0")]
    assert "placement" not in rows[0]  # a reader of the old column is told, not misled
