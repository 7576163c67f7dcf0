"""``arena run`` with bots that stream blank lines or a line never ended: every table is
played and recorded, the hostile bots forfeit with the right failure, and the honest bots'
games are untouched (tests/fixtures/bots/)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tournament_fixtures import REPO, _repo_cwd, write_spec  # noqa: F401 - autouse fixture

from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec

HOSTILE = REPO / "tests" / "fixtures" / "bots"


def test_bots_streaming_newlines_stall_no_table(tmp_path: Path) -> None:
    db = tmp_path / "hostile.db"
    bots = ["greedy", "collector", str(HOSTILE / "newlines"), str(HOSTILE / "partial")]
    spec = write_spec(tmp_path / "spec.yaml", db, name="hostile", format="round_robin",
                      bots=bots, rounds=1, games_per_match=1,
                      limits={"decision_ms": 200, "time_bank_ms": 0, "max_strikes": 1,
                              "line_bytes": 100_000})
    summary = run_tournament(load_spec(spec), 2)
    assert summary.games_recorded == 6  # every pair's table, none held up
    conn = sqlite3.connect(str(db))
    try:
        rows = conn.execute("SELECT failures_json FROM games").fetchall()
    finally:
        conn.close()
    seen = {(f["bot"].split("@")[0], f["type"]) for row in rows for f in json.loads(row[0])}
    assert {name for name, _ in seen} <= {"newlines", "partial"}, "honest bots never fail"
    assert ("newlines", "output_limit") in seen and ("partial", "timeout") in seen
