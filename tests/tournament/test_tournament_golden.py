"""The same spec and seed play the same games, move for move, from one version of the arena to
the next: small versions of tournaments/swiss.yaml and tournaments/four_player.yaml, played
through the sandboxed referee, against digests of what they stored; and one of them again by
``arena run`` in another environment (hash seed, locale, time zone, directory, umask).

A digest covers every game's id, bots by seat, seed, starting seat, placements, decision count
and forfeits, and the Swiss byes. When a change is meant to deal or play other games (a rule
change, say), print the new digest here and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import spec_from_mapping

REPO = Path(__file__).resolve().parents[2]

SAMPLES = ["random", "greedy", "collector", "heuristic"]
LIMITS = {"decision_ms": 10000, "time_bank_ms": 60000, "startup_ms": 60000}
SPECS: dict[str, dict[str, Any]] = {
    "swiss": {"format": "swiss", "players_per_game": 2, "rounds": 3, "games_per_match": 4,
              "duplicate": True, "seed": 2026, "rating": {"mu": 25.0, "draw_probability": 0.1}},
    "four_player": {"format": "round_robin", "players_per_game": 4, "games_per_match": 3,
                    "duplicate": True, "seed": 4},
}
DIGESTS = {
    "swiss": "30a3c640f7f1a6e4",
    "four_player": "a114e99401ec3697",
}


def stored_games(db: Path, name: str) -> list[Any]:
    conn = sqlite3.connect(str(db))
    try:
        names = {r[0]: r[1] for r in conn.execute("SELECT id, name FROM bots")}
        games: list[Any] = [
            [r[0], [names[b] for b in json.loads(r[1])], r[2], r[3], json.loads(r[4]), r[5],
             json.loads(r[6])]
            for r in conn.execute(
                "SELECT g.id, g.seats_json, g.seed, g.starting_seat, g.placements_json, "
                "g.decisions, g.forfeits_json FROM games g JOIN tournaments t "
                "ON t.id = g.tournament_id WHERE t.name = ? "
                "ORDER BY g.round, g.table_index, g.game_index", (name,))]
        games += [["bye", r[0], names[r[1]], r[2]] for r in conn.execute(
            "SELECT y.round, y.bot_id, y.points FROM byes y JOIN tournaments t "
            "ON t.id = y.tournament_id WHERE t.name = ? ORDER BY y.round, y.bot_id", (name,))]
    finally:
        conn.close()
    return games


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_spec_plays_the_games_it_always_played(name: str, tmp_path: Path) -> None:
    db = tmp_path / f"{name}.db"
    spec = spec_from_mapping({"name": name, "bots": SAMPLES, "event_date": "2026-11-29",
                              "limits": LIMITS, "results": str(db), **SPECS[name]})
    summary = run_tournament(spec, 2, trial=False)
    assert summary.state == "finished" and not summary.mismatches
    games = stored_games(db, name)
    digest = hashlib.sha256(json.dumps(games).encode()).hexdigest()[:16]
    assert digest == DIGESTS[name], json.dumps(games[:3])


def _private_umask() -> None:
    os.umask(0o077)


def test_the_environment_of_arena_run_changes_no_game(tmp_path: Path) -> None:
    """Another hash seed, locale, time zone, current directory and umask: the same games."""
    name = "four_player"
    db = tmp_path / f"{name}.db"
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"name": name, "bots": SAMPLES, "event_date": "2026-11-29",
                                    "limits": LIMITS, **SPECS[name]}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONHASHSEED": "12345", "LC_ALL": "C", "LANG": "C",
           "TZ": "Pacific/Kiritimati",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "run", str(spec), "--db", str(db),
         "--workers", "2", "--no-trial", "--no-progress"],
        cwd=elsewhere, env=env, capture_output=True, text=True, preexec_fn=_private_umask)
    assert done.returncode == 0, done.stderr
    games = stored_games(db, name)
    assert hashlib.sha256(json.dumps(games).encode()).hexdigest()[:16] == DIGESTS[name]
