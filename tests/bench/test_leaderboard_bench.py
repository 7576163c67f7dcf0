"""``arena bench leaderboard``: a big tournament's reads, without and with its stored history."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.bench.leaderboard import write_tournament
from arena.cli.main import app
from arena.rating.games import connect, load_games


def test_bench_leaderboard_reports_each_size_with_the_same_ratings_and_none_rated_again(
) -> None:
    result = CliRunner().invoke(app, ["bench", "leaderboard", "-g", "120", "-g", "30", "-p",
                                      "2", "-p", "3", "--bots", "7", "--repeat", "1",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert (doc["bots"], doc["repeat"]) == (7, 1)
    rows = doc["rows"]
    assert [(r["games"], r["players"]) for r in rows] == [(120, 2), (120, 3), (30, 2), (30, 3)]
    assert all(r["same"] and r["rated_with_history"] == 0 for r in rows)


def test_bench_leaderboard_writes_the_games_it_says_at_full_tables(tmp_path: Path) -> None:
    write_tournament(tmp_path / "a.db", 95, 3, 7, seed=4)
    with connect(tmp_path / "a.db") as conn:
        games = load_games(conn, None)
    assert len(games) == 95
    assert {len(set(g.seats)) for g in games} == {3}  # two tables of 3 a round, no bot twice
    assert len({(g.round, g.table_index) for g in games}) == 10  # ten games a table


def test_bench_leaderboard_table_and_refusals() -> None:
    table = CliRunner().invoke(app, ["bench", "leaderboard", "-g", "40", "-p", "2",
                                     "--bots", "4", "--repeat", "1"])
    assert table.exit_code == 0, table.output
    row = table.output.splitlines()[2].split()
    assert row[:2] == ["40", "2"] and row[-1] == "yes" and len(row) == 9, table.output
    few = CliRunner().invoke(app, ["bench", "leaderboard", "-p", "4", "--bots", "3"])
    assert few.exit_code == 2
    assert "3 bots cannot fill a table of 4" in few.output
