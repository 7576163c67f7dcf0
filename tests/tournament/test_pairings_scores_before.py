"""``arena pairings`` shows each bot's score before the round: the score before the next
round is that plus what the bot took in the round (at its board, or by its bye), and a
round's own bye is not in its score before it."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from pathlib import Path

from tournament_fixtures import write_spec

from arena.tournament.pairings import round_pairings
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


def test_a_rounds_scores_before_are_the_last_rounds_plus_its_points(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "odd.yaml", db, name="odd", rounds=3, games_per_match=1,
                      bots=["greedy", "collector", "heuristic"])  # a bye every round
    run_tournament(load_spec(spec), 1, trial=False)
    _, rounds = round_pairings(db, "odd")
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for view in rounds:
        assert len(view.byes) == 1
        before = {bot: score for bot, score, _ in view.byes}
        before.update((bot, score) for board in view.boards
                      for bot, score in zip(board.bots, board.before, strict=True))
        assert before == {bot: expected[bot] for bot in before}, f"round {view.round}"
        for bot, _, points in view.byes:
            expected[bot] += points
        for board in view.boards:
            for bot, points in zip(board.bots, board.points, strict=True):
                expected[bot] += points
