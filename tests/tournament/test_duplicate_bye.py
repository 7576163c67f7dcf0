"""A bye scores as a win of every game the bot would have played that round
(docs/TOURNAMENTS.md): ``games_per_match``, times 2 in duplicate mode, where a pairing plays
each deal from both seat orders."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from tournament_fixtures import write_spec

from arena.tournament.pairings import round_pairings
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


def test_a_duplicate_bye_is_worth_both_seatings_games(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "odd.yaml", db, name="odd", rounds=1, games_per_match=2,
                      duplicate=True, bots=["greedy", "collector", "heuristic"])
    run_tournament(load_spec(spec), 1, trial=False)
    _, (view,) = round_pairings(db, "odd")
    (board,) = view.boards
    assert (board.games_done, board.seatings) == (4, 2)
    assert [points for _, _, points in view.byes] == [Fraction(4)]
    assert sum(board.points) == 4  # what the bye is worth: every game of the pairing won
