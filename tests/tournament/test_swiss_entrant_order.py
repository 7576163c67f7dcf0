"""A Swiss under way stores its entries by their place in ``bots``: a changed spec may add
late entrants at the end (docs/TOURNAMENTS.md, "Changing a Swiss under way"), but one whose
earlier entrants stand in another order would hand one bot's games to another. It is
refused as any other changed spec is, not taken as the rounds it adds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tournament_fixtures import runner, write_spec

from arena.cli.main import app
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec

FIELD: list[Any] = ["greedy", "collector", "heuristic", "random"]


def _spec(tmp_path: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {"name": "class", "bots": FIELD, "rounds": 2, "games_per_match": 1}
    data.update(fields)
    return write_spec(tmp_path / "class.yaml", tmp_path / "arena.db", **data)


def test_entrants_reordered_with_rounds_added_are_another_spec(tmp_path: Path) -> None:
    run_tournament(load_spec(_spec(tmp_path)), 1, trial=False)
    swapped = _spec(tmp_path, rounds=3, bots=[FIELD[1], FIELD[0], *FIELD[2:]])
    result = runner.invoke(app, ["run", str(swapped), "--check", "--no-trial"])
    assert result.exit_code == 1, result.output
    assert "holds 'class': 4/4 games, finished, with another spec (hash " in result.output
    assert result.output.endswith(
        "Entries not started (--no-trial), but arena run refuses the stored tournament's "
        "other spec (--new-edition starts another edition beside it, --fresh starts anew).\n")
