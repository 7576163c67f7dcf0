"""``arena league retire``: an organiser takes a bot out of a league, running or stopped; no
table chosen after seats it, its games stay, and the refusals are one line each."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import bots_dir_for, runner, write_spec

from arena.cli.main import app
from arena.tournament.events import Progress
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _league(tmp_path: Path, db: Path, games: int) -> Path:
    data: dict[str, Any] = {"name": "ladder", "format": "league", "bots": ["*"],
                            "games_per_match": 1, "duplicate": True, "seed": 5,
                            "budget": {"games": games}}
    path = write_spec(tmp_path / "ladder.yaml", db, **data)
    path.write_text(path.read_text().replace("rounds: 3\n", ""))
    return path


def _tables(db: Path) -> list[tuple[int, list[str]]]:
    """Each table's number and its first seating's bots, by name."""
    conn = sqlite3.connect(str(db))
    try:
        names = {r[0]: r[1] for r in conn.execute("SELECT id, name FROM bots")}
        return [(r[0], [names[b] for b in json.loads(r[1])]) for r in conn.execute(
            "SELECT round, seats_json FROM tables WHERE table_index = 0 ORDER BY round")]
    finally:
        conn.close()


def _retire(db: Path, *args: str) -> Any:
    return runner.invoke(app, ["league", "retire", "ladder", *args, "--db", str(db)])


def test_a_retired_bot_sits_at_no_table_chosen_after_and_stays_out_on_resume(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    told: list[Any] = []

    def retire_after_four(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 4 and not told:
            told.append(_retire(db, "last", "--reason", "too slow"))
            told.append(runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout)

    summary = run_tournament(load_spec(_league(tmp_path, db, 16)), 1,
                             report=retire_after_four, vetter=lambda bot, scope: None)
    assert summary.games_done == 16
    result = told[0]
    assert result.exit_code == 0, result.output
    told_line = re.fullmatch(r"last@\w+ retires from league 'ladder': by the organiser after "
                             r"table (\d+) \(too slow\); no table chosen from now on seats it\n",
                             result.stdout)
    assert told_line is not None, result.stdout
    after = int(told_line.group(1))
    tables = _tables(db)
    assert any("last" in seats for number, seats in tables if number <= after)
    later = [seats for number, seats in tables if number > after]
    assert later and all("last" not in seats for seats in later)
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert f"entered at table 1, retired: by the organiser after table {after} (too slow)" \
        in status
    # while it ran, status told how to stop it, not how to resume it
    assert told[1].endswith("\nstop with: arena league stop ladder --db a.db\n"), told[1]
    assert "resume with" not in told[1]
    board = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db)]).stdout
    assert board.splitlines()[-1] == ("Retired from the league, no longer playing (ratings "
                                      "kept): last.")
    # stopped, then run again with a larger budget: it does not come back
    run_tournament(load_spec(_league(tmp_path, db, 24)), 1, vetter=lambda bot, scope: None)
    assert all("last" not in seats for number, seats in _tables(db) if number > after)
    assert runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout.count(
        "retired: by the organiser") == 1


def test_refusals_are_one_line_and_change_nothing(tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db, 4)), 1, vetter=lambda bot, scope: None)
    board = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db)]).stdout
    assert "Retired from the league" not in board
    unknown = _retire(db, "nobody")
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith("Error: no active entry 'nobody' in league 'ladder' "
                                     "(active: first@")
    stopped = _retire(db, "hashed")
    assert stopped.exit_code == 0, stopped.output
    assert stopped.stdout.endswith("the league plays on without it when run again\n")
    again = _retire(db, "hashed")
    assert again.exit_code == 1
    assert again.stderr.startswith("Error: hashed@") and "is not playing in league 'ladder' " \
        "(it is retired; arena status ladder lists the entries)" in again.stderr
    too_few = _retire(db, "first")
    assert too_few.exit_code == 1
    assert too_few.stderr.startswith("Error: retiring first@")
    assert too_few.stderr.endswith("would leave 1 active bot in league 'ladder', too few for "
                                   "its tables of 2\n")
    for refused in (unknown, again, too_few):
        assert refused.stderr.count("\n") == 1 and refused.stdout == ""
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert status.count(": active since table 1") == 2
