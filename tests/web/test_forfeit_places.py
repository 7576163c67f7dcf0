"""The site's games list places a forfeit last (RULES.md E28): a game every seat forfeited
shows nobody first."""

from __future__ import annotations

from arena.rating.games import BotVersion, StoredGame
from arena.web.data import _game_rows


def test_a_game_nobody_played_shows_every_seat_last_and_no_winner() -> None:
    a, b = BotVersion("a", "v1", 1), BotVersion("b", "v1", 2)
    nobody = StoredGame(id="t/r1/t0/g0", tournament_id=1, tournament="t", round=1,
                        table_index=0, game_index=0, seed=0, seats=(a, b), placements=(1, 1),
                        forfeits=((0, "startup_failure"), (1, "startup_failure")))
    (row,) = _game_rows({}, [nobody])
    assert row.placements == [2, 2]  # the page marks a seat first by its place 1: none
