"""``arena bench rl``: our environment's steps per second beside RLCard's UNO."""

from __future__ import annotations

import importlib.util
import json

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

from typer.testing import CliRunner  # noqa: E402

from arena.bench.rl import run_rl_bench  # noqa: E402
from arena.cli.main import app  # noqa: E402

HAS_RLCARD = importlib.util.find_spec("rlcard") is not None


def test_the_bench_measures_each_table_size_with_and_without_infos() -> None:
    bench = run_rl_bench((2, 3), steps=150, repeat=1)
    assert [(row["players"], row["what"]) for row in bench.rows] == [
        (2, "vector + mask"), (2, "vector + mask + infos"),
        (3, "vector + mask"), (3, "vector + mask + infos")]
    assert all(row["steps_per_s"] > 0 for row in bench.rows)
    text = bench.render()
    assert text.startswith("Environment steps per CPU second (150 steps a repetition, "
                           "median of 1, ")
    if HAS_RLCARD:
        assert bench.rlcard is not None and "x RLCard's UNO" in text
    else:
        assert "RLCard UNO: not measured (rlcard is not installed" in text


def test_arena_bench_rl_prints_json() -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--players", "2", "--steps", "100",
                                      "--repeat", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["steps"] == 100 and len(data["palaestra"]) == 2


def test_arena_bench_rl_refuses_a_table_of_six() -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--players", "6"])
    assert result.exit_code == 2
    assert "Invalid value for '--players' / '-p'" in result.output
