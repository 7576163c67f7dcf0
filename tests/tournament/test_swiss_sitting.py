"""How a Swiss field sits, said by `arena run --check`, `arena status` (text and json) and the
site's overview, counts each round's field: a withdrawn bot and a late entrant are never at one
table, so a field that stays at eight across a withdrawal and a late entry sits at tables of 4
every round, and a withdrawal alone makes the later rounds sit off-size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tournament_fixtures import REPO, runner, write_spec

from arena.cli.main import app
from arena.tournament.planning import swiss_sitting
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec
from arena.web.data import load_tournament

SAMPLES = REPO / "bots"
EIGHT = ["greedy", "collector", "heuristic", "random",
         *({"bot": "random", "name": f"r{i}"} for i in range(4))]


def _played(tmp_path: Path, **fields: Any) -> Path:
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "class.yaml", db, name="class", players_per_game=4, rounds=2,
                      games_per_match=1, **fields)
    run_tournament(load_spec(spec), 1, trial=False)
    return spec


def _said(spec: Path) -> tuple[str, str, Any, Any]:
    """The first lines of `arena run --check` and `arena status`, and the json's `sitting`
    of both."""
    db = str(spec.parent / "arena.db")
    check = runner.invoke(app, ["run", str(spec), "--check", "--no-trial"])
    status = runner.invoke(app, ["status", "class", "--db", db])
    check_json = runner.invoke(app, ["run", str(spec), "--check", "--no-trial", "-f", "json"])
    status_json = runner.invoke(app, ["status", "class", "--db", db, "-f", "json"])
    return (check.output.splitlines()[0], status.output.splitlines()[0],
            json.loads(check_json.output)["sitting"], json.loads(status_json.output)["sitting"])


def test_a_late_entrant_in_a_withdrawn_bots_place_sits_at_full_tables(tmp_path: Path) -> None:
    spec = _played(tmp_path, bots=[*EIGHT, {"bot": "greedy", "name": "late"}],
                   withdrawn={"r3": 2}, joined={"late": 2})
    check, status, check_json, status_json = _said(spec)
    assert "swiss 'class', 9 entries, tables of 4, 2 rounds, " in check
    assert status.startswith("tournament class: swiss, 4 per table, 9 bots, ")
    assert check_json is None and status_json is None
    assert load_tournament(tmp_path / "arena.db", "class").seating == ""


def test_a_withdrawal_makes_the_later_rounds_sit_off_size(tmp_path: Path) -> None:
    spec = _played(tmp_path, bots=EIGHT, withdrawn={"r3": 2})
    check, status, check_json, status_json = _said(spec)
    assert "swiss 'class', 8 entries, tables of 4 (sitting 4 + 3 in round 2), 2 rounds, " in check
    assert status.startswith("tournament class: swiss, 4 per table (sitting 4 + 3 in round 2), "
                             "8 bots, ")
    assert check_json == status_json == "4 + 3 in round 2"
    site = load_tournament(tmp_path / "arena.db", "class")
    assert site.seating == "4 + 3 in round 2"


def test_the_phrase_names_each_run_of_off_size_rounds() -> None:
    assert swiss_sitting(4, [7, 7, 7]) == "4 + 3 each round"
    assert swiss_sitting(4, [8, 7, 7, 8, 9]) == "4 + 3 in rounds 2-3; 5 + 4 in round 5"
    assert swiss_sitting(4, [8, 8]) is None
    assert swiss_sitting(2, [7, 6]) is None  # byes even out a field of two-player tables
