"""A league's every-version leaderboard tells its versions apart where the version column is
left out to fit: a bot's versions are named name@version there, as any tournament's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import bots_dir_for, league_spec

from arena.rating.board_view import leaderboard_text
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _league(tmp_path: Path, db: Path, **fields: Any) -> Path:
    return league_spec(tmp_path, db, 8, **fields)


def test_every_version_is_named_apart_without_the_version_column(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db)), 1, vetter=lambda bot, scope: None)
    (registry / "first.py").write_text((registry / "first.py").read_text() + "\n# v2\n")
    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 16})), 1,
                   vetter=lambda bot, scope: None)
    # a narrow terminal's table: the version is left out
    lines = leaderboard_text(db, "ladder", all_versions=True, width=60).splitlines()
    rule = next(i for i, line in enumerate(lines) if line.lstrip().startswith("---"))
    assert "version" not in lines[rule - 1].split()
    bots = sorted(line.split()[1] for line in lines[rule + 1:rule + 5])
    assert len(set(bots)) == 4, "\n".join(lines)
    assert [b.split("@")[0] for b in bots] == ["first", "first", "hashed", "last"]
    newest = leaderboard_text(db, "ladder", width=60).splitlines()
    assert sorted(line.split()[1] for line in newest[rule + 1:rule + 4]) == [
        "first", "hashed", "last"]  # one version of each: names alone
