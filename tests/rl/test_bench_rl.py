"""``arena bench rl``: our environment's steps per second beside RLCard's UNO, and a
learner's steps against a sample bot."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

from typer.testing import CliRunner  # noqa: E402

from arena.bench.rl import run_rl_bench  # noqa: E402
from arena.cli.main import app  # noqa: E402
from arena.registry import SAMPLE_BOTS_DIR  # noqa: E402

HAS_RLCARD = importlib.util.find_spec("rlcard") is not None


def test_the_bench_measures_each_table_size_with_and_without_infos() -> None:
    bench = run_rl_bench((2, 3), steps=150, repeat=1, opponent=None)
    assert [(row["players"], row["what"]) for row in bench.rows] == [
        (2, "vector + mask"), (2, "vector + mask + infos"),
        (3, "vector + mask"), (3, "vector + mask + infos")]
    assert all(row["steps_per_s"] > 0 for row in bench.rows)
    assert bench.learner_rows == []
    text = bench.render()
    assert text.startswith("Environment steps per CPU second (median of 1, ")
    assert ("PettingZoo AEC, every seat a random legal action (150 steps a repetition): the "
            "environment alone") in text
    assert "Gymnasium" not in text
    if HAS_RLCARD:
        assert bench.rlcard is not None and "x RLCard's UNO" in text
    else:
        assert "RLCard UNO: not measured (rlcard is not installed" in text


def test_the_bench_measures_a_learner_against_a_sample_bot_at_each_table_size() -> None:
    bench = run_rl_bench((2, 3), steps=150, repeat=1, opponent="greedy", opponent_steps=20)
    assert [(row["players"], row["opponents"]) for row in bench.learner_rows] == [
        (2, "greedy"), (3, "2 greedy")]
    assert all(row["steps_per_s"] > 0 for row in bench.learner_rows)
    text = bench.render()
    assert ("Gymnasium, the learner's steps (a random legal action each) with greedy at every "
            "other seat (20 learner steps a repetition): what a learner gets") in text
    assert "palaestra Gymnasium, 3 players, learner vs 2 greedy: " in text
    assert "x below the AEC" in text


def test_arena_bench_rl_prints_json() -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--players", "2", "--steps", "100",
                                      "--repeat", "1", "--opponent-steps", "10",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["steps"] == 100 and len(data["palaestra"]) == 2
    assert data["opponent"] == "greedy" and data["opponent_steps"] == 10
    assert [row["players"] for row in data["gymnasium"]] == [2]
    assert data["gymnasium"][0]["steps_per_s"] > 0


def test_arena_bench_rl_leaves_out_the_learner_rows_at_zero_steps() -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--players", "2", "--steps", "100",
                                      "--repeat", "1", "--opponent-steps", "0",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["opponent"] is None and data["gymnasium"] == []


def test_arena_bench_rl_refuses_an_unknown_opponent_before_measuring() -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--steps", "100", "--opponent",
                                      "no-such-bot"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: unknown bot 'no-such-bot'")


def test_arena_bench_rl_refuses_a_table_of_six() -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--players", "6"])
    assert result.exit_code == 2
    assert "Invalid value for '--players' / '-p'" in result.output


def test_arena_bench_rl_refuses_a_submitted_bot_as_the_opponent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The opponent runs in the bench's own process, unsandboxed: a student's submitted bot
    ran there with the organiser's rights, as arena bench tournament no longer lets one."""
    bots_dir = tmp_path / "submitted"
    bots_dir.mkdir()
    shutil.copy(SAMPLE_BOTS_DIR / "random.py", bots_dir / "theirs.py")
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    result = CliRunner().invoke(app, ["bench", "rl", "--players", "2", "--steps", "100",
                                      "--repeat", "1", "--opponent-steps", "10",
                                      "--opponent", str(bots_dir / "theirs.py")])
    assert result.exit_code == 1, result.output
    theirs = bots_dir / "theirs.py"
    assert result.stderr.startswith(
        f"Error: {theirs}: it is a bot submitted to the bots directory {bots_dir}; ")
    assert "--opponent runs in this process, unsandboxed" in result.stderr
