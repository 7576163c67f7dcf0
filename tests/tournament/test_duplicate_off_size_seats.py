"""A duplicate Swiss puts its off-size criterion before repeat meetings (docs/TOURNAMENTS.md):
a table of k plays k seatings, an off-size one another number, so its seats go round the
field before any bot sits at it again, even at the cost of a repeat meeting."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tournament_fixtures import write_spec

from arena.tournament.pairings import round_pairings
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


def test_five_bots_at_tables_of_three_take_the_table_of_two_in_turn(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "five.yaml", db, name="five", rounds=3, games_per_match=1,
                      players_per_game=3, duplicate=True,
                      bots=["greedy", "collector", "heuristic", "random",
                            {"bot": "greedy", "name": "twin"}])
    run_tournament(load_spec(spec), 1, trial=False)
    _, rounds = round_pairings(db, "five")
    at_two = Counter(bot for view in rounds for board in view.boards if len(board.bots) == 2
                     for bot in board.bots)
    assert sum(at_two.values()) == 6
    assert max(at_two.values()) == 2 and len(at_two) == 5  # one bot twice, in round 3
