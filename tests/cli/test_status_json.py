"""``arena status --format json``: what the text shows, as one document a script reads (is a
run live, how far, which failures), of every tournament or one."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_status_failures import _stored
from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe
from arena.tournament.store import Store

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")

#: The keys of a tournament in the list, as ``arena tournaments --format json`` has them,
#: with its run's.
LISTING_KEYS = ["name", "format", "players_per_game", "bots", "versions", "games_done",
                "games_planned", "budget_games", "budget_spent", "state", "live", "pid",
                "created_at"]
DETAIL_KEYS = [*LISTING_KEYS, "entrants", "sitting", "seed", "seed_secret", "seed_drawn",
               "spec_hash", "finished_at", "rules", "rounds", "round", "kept_copies",
               "round_progress", "standings", "failures", "restarted", "failure_reasons",
               "open_one", "forfeits", "resume", "go_on", "stop"]


def _json(*args: str) -> Any:
    result = runner.invoke(app, ["status", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def swiss(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Swiss of three sample bots over two rounds, played through ``arena run``."""
    if not probe().can_run:
        pytest.skip("bots cannot run here")
    root = tmp_path_factory.mktemp("swiss")
    db = root / "tiny.db"
    spec = root / "tiny.yaml"
    spec.write_text(yaml.safe_dump({
        "name": "tiny", "format": "swiss", "players_per_game": 2, "rounds": 2,
        "games_per_match": 1, "seed": 5, "event_date": "2026-11-29", "results": str(db),
        "bots": ["greedy", "random", "collector"]}))
    run = runner.invoke(app, ["run", str(spec), "--no-trial", "--no-progress", "-w", "1"])
    assert run.exit_code == 0, run.output
    return db


@needs_sandbox
def test_a_finished_swiss_in_json(swiss: Path) -> None:
    data = _json("tiny", "--db", str(swiss), "--format", "json")
    assert list(data) == DETAIL_KEYS
    assert {key: data[key] for key in ["name", "format", "players_per_game", "bots",
                                       "versions", "games_done", "games_planned", "state",
                                       "live", "pid", "seed", "seed_secret", "rounds", "round",
                                       "failures", "failure_reasons", "forfeits", "resume",
                                       "stop"]} == {
        "name": "tiny", "format": "swiss", "players_per_game": 2, "bots": 3, "versions": 3,
        "games_done": 2, "games_planned": 2, "state": "finished", "live": False, "pid": None,
        "seed": 5, "seed_secret": False, "rounds": 2, "round": 2, "failures": {},
        "failure_reasons": [], "forfeits": 0, "resume": None, "stop": None}
    assert [entry["bot"].split("@")[0] for entry in data["entrants"]] == [
        "greedy", "random", "collector"]
    # three bots at tables of two: one pairing and one bye a round, as the text's table
    assert data["round_progress"] == [
        {"round": r, "paired": True, "pairings": 1, "byes": 1, "games_done": 1,
         "games_planned": 1} for r in (1, 2)]
    assert [list(row) for row in data["standings"]] == [
        ["rank", "bot", "score", "buchholz", "pairings", "byes", "field"]] * 3
    assert sum(row["score"] for row in data["standings"]) == 4.0  # 2 games, 2 byes


@needs_sandbox
def test_the_list_in_json(swiss: Path) -> None:
    data = _json("--db", str(swiss), "-f", "json")
    assert list(data) == ["tournaments"]
    [tiny] = data["tournaments"]
    assert list(tiny) == LISTING_KEYS
    assert (tiny["name"], tiny["state"], tiny["live"], tiny["games_done"]) == (
        "tiny", "finished", False, 2)


def test_a_killed_run_with_failures_in_json(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)  # stored as running, with no run holding it: killed
    data = _json("t", "--db", str(db), "--format", "json")
    assert list(data) == DETAIL_KEYS
    assert (data["state"], data["live"], data["resume"]) == (
        "stopped", False, f"arena run <spec.yaml> --db {db}")
    assert data["failures"] == {"crash": 2, "protocol_error": 1, "timeout": 4}
    assert data["restarted"] == {"crash": 2}
    assert data["failure_reasons"] == [
        {"bot": "a", "type": "timeout", "detail": "no answer within 1000 ms", "times": 3,
         "first_game": "t/r1/t0/g0", "first_seat": 0},
        {"bot": "a", "type": "timeout", "detail": "no answer within 1000 ms; 40 bytes "
         "arrived without a newline", "times": 1, "first_game": "t/r1/t0/g1", "first_seat": 0},
        {"bot": "a", "type": "crash", "detail": "exited between games (exit code 1), after "
         "game 0 of the match ended", "times": 2, "first_game": "t/r1/t0/g0", "first_seat": 0},
        {"bot": "b", "type": "protocol_error", "detail": "bad JSON: 'x'", "times": 1,
         "first_game": "t/r1/t0/g1", "first_seat": 1}]
    assert data["open_one"] == f"arena game t/r1/t0/g0 --seat 0 --db {db}"


def test_one_bots_failures_in_json(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    assert _json("t", "--db", str(db), "--failures", "--bot", "b", "-f", "json") == {
        "name": "t", "bot": "b", "failures": {"protocol_error": 1}, "restarted": {},
        "failure_reasons": [{"bot": "b", "type": "protocol_error", "detail": "bad JSON: 'x'",
                             "times": 1, "first_game": "t/r1/t0/g1", "first_seat": 1}],
        "open_one": f"arena game t/r1/t0/g1 --seat 1 --db {db}"}
    missing = runner.invoke(app, ["status", "t", "--db", str(db), "--failures", "--bot", "zz",
                                  "-f", "json"])
    assert missing.exit_code == 1 and missing.stdout == ""
    assert missing.stderr == "Error: no bot named 'zz' in tournament 't' (its bots: a, b, c)\n"


def test_a_drawn_seed_stays_secret_in_json(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with Store(db) as store:
        store.create_tournament(
            name="contest", spec_hash="abc", spec_json={"seed": None}, format="round_robin",
            players_per_game=2, seed=123456789, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None, bots=[("a", "v1", "bots/a.py", {}),
                                                   ("b", "v1", "bots/b.py", {})])
    result = runner.invoke(app, ["status", "contest", "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "123456789" not in result.stdout
    data = json.loads(result.stdout)
    assert (data["seed"], data["seed_secret"], data["seed_drawn"]) == (None, True, True)


def test_records_are_said_beside_the_json(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    records = tmp_path / "t.jsonl"
    result = runner.invoke(app, ["status", "t", "--db", str(db), "--records", str(records),
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["name"] == "t"
    assert result.stderr.splitlines()[-1] == f"wrote 3 game records to {records}"


def test_an_unknown_format_is_one_usage_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["status", "--db", str(tmp_path / "a.db"), "--format", "csv"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == ("Error: Invalid value for '--format' / '-f': unknown format 'csv' "
                             "(choose table or json)\nTry 'arena status --help'.\n")


def test_a_live_run_is_told_with_its_pid(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    with Store(db) as running, running.lock("t"):
        detail = _json("t", "--db", str(db), "--format", "json")
        listed = _json("--db", str(db), "--format", "json")["tournaments"][0]
    for data in (detail, listed):
        assert (data["state"], data["live"], data["pid"]) == ("running", True, os.getpid())
    assert (detail["resume"], detail["stop"]) == (None, None)  # a round-robin is not stopped
    after = _json("t", "--db", str(db), "--format", "json")
    assert (after["state"], after["live"], after["pid"]) == ("stopped", False, None)
