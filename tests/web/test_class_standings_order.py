"""A class's Swiss (class_db.py: forty bots, failures, forfeits, ties in points and Buchholz)
ranked the same by ``arena status`` (the standings) and ``arena leaderboard --sort points``,
as docs/RATINGS.md promises: a tie in points and Buchholz goes to the higher rating in both,
so both read the rating off the same places. The fixture's stored placements put some
forfeited seats first, as a hand-edited database may: the standings must still count a
forfeit as the table's last place, as the leaderboard's rating does."""

from __future__ import annotations

import json
from pathlib import Path

import class_db
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def test_status_and_the_points_leaderboard_rank_a_class_alike(tmp_path: Path) -> None:
    db = str(class_db.build(tmp_path / "class.db"))
    status = runner.invoke(app, ["status", class_db.NAME, "--db", db, "--format", "json"])
    board = runner.invoke(app, ["leaderboard", class_db.NAME, "--db", db, "--sort", "points",
                                "--format", "json"])
    assert status.exit_code == 0 and board.exit_code == 0, status.output + board.output
    standings = [row["bot"] for row in json.loads(status.stdout)["standings"]]
    by_points = [row["key"] for row in json.loads(board.stdout)["bots"]]
    tied = {(row["score"], row["buchholz"]) for row in json.loads(status.stdout)["standings"]}
    # the fixture has ties in points and Buchholz, which only the rating breaks
    assert len(tied) < len(standings)
    assert standings == by_points
