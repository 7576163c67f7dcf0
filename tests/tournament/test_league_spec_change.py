"""A league whose spec changed: its run is refused in one line naming the change, as any
tournament's, though a league's stored entrants are its entry rule, not versions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import bots_dir_for, runner, write_spec

from arena.cli.main import app
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _league(tmp_path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {"name": "ladder", "format": "league", "bots": ["first", "last"],
                            "games_per_match": 1, "duplicate": True, "seed": 5,
                            "budget": {"games": 4}}
    data.update(fields)
    path = write_spec(tmp_path / "ladder.yaml", db, **data)
    path.write_text(path.read_text().replace("rounds: 3\n", ""))
    return path


@pytest.mark.parametrize(("bots", "said"), [
    (["first", "last", "hashed"], "bots: hashed joined"),
    (["first", "h*"], "bots: last left; h* joined"),
    (["last", "first"], "bots: the same entries in another order"),
])
def test_a_changed_entry_rule_is_refused_in_one_line_naming_it(
        tmp_path: Path, registry: Path, bots: list[str], said: str) -> None:
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db)), 1, vetter=lambda bot, scope: None)
    changed = _league(tmp_path, db, bots=bots)
    result = runner.invoke(app, ["run", str(changed), "--db", str(db)])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: tournament 'ladder' exists with "
                                                   "a different spec"), result.stderr
    assert f"entrants changed ({said})" in lines[0]
    assert "--continue" not in lines[0]  # a league enters new versions itself
