"""A real tiny tournament played with 1 and with 2 workers gives identical ratings and outputs."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trueskill

pytest.importorskip("arena.tournament.runner")

REPO = Path(__file__).resolve().parents[2]
BOTS = [REPO / "bots" / f"{name}.py" for name in ("random", "greedy", "collector")]

SPEC = """\
name: tiny
format: swiss
bots: [{bots}]
players_per_game: 2
games_per_match: 2
rounds: 2
seed: 5
# generous limits: a timeout under a loaded CI machine must not change the games compared
limits: {{decision_ms: 10000, time_bank_ms: 60000, startup_ms: 60000}}
"""


def arena(*args: str, cwd: Path) -> str:
    result = subprocess.run([sys.executable, "-m", "arena.cli.main", *args], cwd=cwd,
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.skipif(not all(p.is_file() for p in BOTS), reason="sample bots not shipped yet")
def test_one_and_two_workers_give_identical_leaderboards(tmp_path: Path) -> None:
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.format(bots=", ".join(str(p) for p in BOTS)))
    outputs = []
    for workers in (1, 2):
        db = f"w{workers}.db"
        run_out = arena("run", str(spec), "--workers", str(workers), "--db", db,
                        "--no-progress", cwd=tmp_path)
        assert "Leaderboard: tiny" in run_out  # printed by the runner's CLI at the end
        board = json.loads(arena("leaderboard", "--format", "json", "--db", db, cwd=tmp_path))
        results = json.loads(arena("results", "tiny", "--db", db, cwd=tmp_path))
        with sqlite3.connect(tmp_path / db) as conn:
            history = conn.execute(
                "SELECT h.game_id, b.name, b.version, h.mu_before, h.sigma_before, h.mu_after, "
                "h.sigma_after FROM rating_history h JOIN bots b ON b.id = h.bot_id "
                "ORDER BY h.game_id, b.name").fetchall()
        outputs.append((board, results, history))
    (board1, results1, history1), (board2, results2, history2) = outputs
    assert board1 == board2
    assert results1 == results2
    assert history1 == history2 and history1
    assert board1["games"] == len(results1["games"]) > 0
    # and the stored ratings are what the trueskill package gives from the exported games
    env = trueskill.TrueSkill(**results1["rating"])
    ratings: dict[str, trueskill.Rating] = {}
    for game in results1["games"]:
        groups = [(ratings.get(bot, env.create_rating()),) for bot in game["seats"]]
        for bot, (new,) in zip(game["seats"], env.rate(groups, ranks=game["placements"]),
                               strict=True):
            ratings[bot] = new
    assert {b["key"]: (b["mu"], b["sigma"]) for b in board1["bots"]} == {
        k: (r.mu, r.sigma) for k, r in ratings.items()}
