"""``arena bench swiss``: per-round pairing times, before and after, and the costs compared."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from arena.cli.main import app


def test_bench_swiss_reports_every_field_and_table_size_as_json() -> None:
    result = CliRunner().invoke(app, ["bench", "swiss", "-n", "70", "-n", "9", "-p", "2",
                                      "-p", "3", "-r", "2", "--before-max", "9",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["rows"]
    assert [(r["entrants"], r["players"]) for r in rows] == [(70, 2), (70, 3), (9, 2), (9, 3)]
    assert all(len(r["after_s"]) == 2 for r in rows)
    assert [r["before_median_s"] is None for r in rows] == [True, True, False, False]
    # a field of 9 is paired exactly by both solvers: the very same cost
    assert [r["cost_equal"] for r in rows[2:]] == [2, 2]


def test_bench_swiss_table_shows_not_run_for_the_previous_solver_past_the_limit() -> None:
    result = CliRunner().invoke(app, ["bench", "swiss", "-n", "66", "-p", "2", "-r", "1",
                                      "--before-max", "0"])
    assert result.exit_code == 0, result.output
    assert "not run" in result.output and "      66       2" in result.output


def test_bench_swiss_refuses_tables_of_more_than_five() -> None:
    result = CliRunner().invoke(app, ["bench", "swiss", "-p", "7"])
    assert result.exit_code == 2
    assert "Invalid value for '--players'" in result.output
