"""What ``arena status`` says of a league: its tables counted as played only once all their
games are, the table a killed run left half played said apart."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import bots_dir_for, league_spec, runner

from arena.cli.main import app
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _league(tmp_path: Path, db: Path, **fields: Any) -> Path:
    return league_spec(tmp_path, db, 8, **fields)


def _status(db: Path) -> list[str]:
    shown = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    return shown.stdout.splitlines()


def test_a_table_half_played_is_not_counted_as_played(tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db)), 1, vetter=lambda bot, scope: None)
    conn = sqlite3.connect(str(db))
    with conn:
        tables = conn.execute("SELECT COUNT(DISTINCT round) FROM tables").fetchone()[0]
        assert tables * 2 == conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert f"tables played: {tables}" in _status(db)
    with conn:  # as a run killed inside its last table leaves it
        conn.execute("DELETE FROM games WHERE round = ? AND table_index = 1", (tables,))
    conn.close()
    assert f"tables played: {tables - 1} (and 1 chosen, not played out yet)" in _status(db)
    shown = runner.invoke(app, ["status", "ladder", "--db", str(db), "--format", "json"])
    assert shown.exit_code == 0, shown.output
    counted = json.loads(shown.stdout)
    assert (counted["tables_played"], counted["tables_not_played_out"]) == (tables - 1, 1)
    assert (counted["rounds"], counted["round"]) == (None, tables)  # as run --check has it


def test_the_heading_counts_bots_not_their_versions(tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    spec = _league(tmp_path, db)
    run_tournament(load_spec(spec), 1, vetter=lambda bot, scope: None)
    (registry / "first.py").write_text((registry / "first.py").read_text() + "\n# v2\n")
    run_tournament(load_spec(_league(tmp_path, db, budget={"games": 16})), 1,
                   vetter=lambda bot, scope: None)
    heading = _status(db)[0]
    assert "league, 2 per table, 3 bots (4 versions), seed 5" in heading, heading
    for command in (["status", "ladder"], ["status"], ["tournaments"]):
        shown = runner.invoke(app, [*command, "--db", str(db), "--format", "json"])
        assert shown.exit_code == 0, shown.output
        data = json.loads(shown.stdout)
        listed = data["tournaments"][0] if "tournaments" in data else data
        assert (listed["bots"], listed["versions"]) == (3, 4), command
    for command in (["status"], ["tournaments"]):  # the list's text counts bots too
        shown = runner.invoke(app, [*command, "--db", str(db)])
        row = next(line for line in shown.stdout.splitlines() if line.startswith("ladder"))
        assert row.split()[3] == "3", row


def test_a_league_without_an_end_plans_null_games_in_every_listing(tmp_path: Path,
                                                                    registry: Path) -> None:
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db)), 1, vetter=lambda bot, scope: None)
    conn = sqlite3.connect(str(db))
    with conn:  # as a league run without a budget stores it
        conn.execute("UPDATE tournaments SET games_planned = 0")
    conn.close()
    for command in (["status", "ladder"], ["status"], ["tournaments"]):
        shown = runner.invoke(app, [*command, "--db", str(db), "--format", "json"])
        assert shown.exit_code == 0, shown.output
        data = json.loads(shown.stdout)
        listed = data["tournaments"][0] if "tournaments" in data else data
        assert listed["games_planned"] is None, command
