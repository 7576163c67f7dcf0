"""The leaderboard sorted by points ranks a Swiss as its standings do, down to the last
tie-break: entry order, not the bots' names."""

from __future__ import annotations

import json
from pathlib import Path

from tournament_fixtures import FIXTURES, runner, write_spec

from arena.cli.main import app
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


def test_points_order_breaks_a_full_tie_by_entry_order_as_the_standings(
        tmp_path: Path) -> None:
    """zz and aa each beat a bot that never starts, at tables of their own: the same points,
    Buchholz and rating. The standings put zz, entered first, above aa."""
    never = str(FIXTURES / "no_start.py")
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "tie.yaml", db, name="tie", rounds=1, games_per_match=1,
                      bots=[{"bot": "greedy", "name": "zz"}, {"bot": never, "name": "p"},
                            {"bot": "greedy", "name": "aa"}, {"bot": never, "name": "q"}])
    run_tournament(load_spec(spec), 1, trial=False)
    status = json.loads(runner.invoke(app, ["status", "tie", "--db", str(db), "-f",
                                            "json"]).output)
    standings = [row["bot"].split("@")[0] for row in status["standings"]]
    assert standings[:2] == ["zz", "aa"]
    board = json.loads(runner.invoke(app, ["leaderboard", "tie", "--db", str(db), "--sort",
                                           "points", "-f", "json"]).output)
    assert [row["bot"] for row in board["bots"]] == standings
