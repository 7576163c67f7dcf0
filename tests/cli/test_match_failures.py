"""``arena match --failures``: every distinct reason a bot failed, with how often and where
first, where the match's summary tells one detail per bot and type (and points to the flag)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.registry import SAMPLE_BOTS_DIR
from arena.sandbox import probe

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")

#: Answers its acts with two different protocol errors in turn.
GARBLED = Path(__file__).resolve().parents[1] / "fixtures" / "bots" / "garbled"
NOT_JSON = ("not JSON: 'not json' (stdout carries protocol lines only: print logs to "
            "stderr)")
NO_CHOICE = "'action' needs an integer 'choice', got none"


def _failures(tmp_path: Path, *args: str) -> list[str]:
    """The lines from ``Failures:`` to the blank line after them, of a one-game match of
    the garbled bot, struck out on its third failure, against random."""
    result = runner.invoke(app, ["match", str(GARBLED), str(SAMPLE_BOTS_DIR / "random.py"),
                                 "--games", "1", "--seed", "3", "--max-strikes", "2",
                                 "--quiet", *args],
                           env={"ARENA_BOTS_DIR": str(tmp_path / "registry")})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = lines.index("Failures:")
    return lines[start:lines.index("", start)]


@needs_sandbox
def test_the_summary_points_to_the_reasons_it_leaves_out(tmp_path: Path) -> None:
    assert _failures(tmp_path) == [
        "Failures:",
        f"  garbled protocol_error, 3 times (game 0): {NOT_JSON} (and 1 other detail)",
        "  (--failures lists every reason, with how often)",
    ]


@needs_sandbox
def test_failures_lists_every_distinct_reason(tmp_path: Path) -> None:
    assert _failures(tmp_path, "--failures") == [
        "Failures:",
        f"  garbled protocol_error 2 times (first game 0, seat 0): {NOT_JSON}",
        f"  garbled protocol_error once (first game 0, seat 0): {NO_CHOICE}",
    ]


@needs_sandbox
def test_json_carries_every_distinct_reason(tmp_path: Path) -> None:
    result = runner.invoke(app, ["match", str(GARBLED), str(SAMPLE_BOTS_DIR / "random.py"),
                                 "--games", "1", "--seed", "3", "--max-strikes", "2",
                                 "--json", "--failures"],
                           env={"ARENA_BOTS_DIR": str(tmp_path / "registry")})
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["failure_reasons"] == [
        {"bot": "garbled", "type": "protocol_error", "detail": NOT_JSON, "times": 2,
         "first_game": 0, "first_seat": 0},
        {"bot": "garbled", "type": "protocol_error", "detail": NO_CHOICE, "times": 1,
         "first_game": 0, "first_seat": 0},
    ]


@needs_sandbox
@pytest.mark.parametrize(("stop", "said", "code"), [("SIGINT", "Interrupted.", 130),
                                                    ("SIGTERM", "Terminated.", 143)])
def test_an_interrupted_match_tells_the_failures_of_the_games_that_ended(
        tmp_path: Path, stop: str, said: str, code: int) -> None:
    """Ctrl-C (or SIGTERM, which stops it the same way) once the first progress line is out:
    how far the match got, then every reason a bot failed in the games that ended, and the
    exit of an interrupted command, as arena run's (SIGTERM ended it silently, -15)."""
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "arena.cli.main", "match", str(GARBLED),
               str(SAMPLE_BOTS_DIR / "random.py"), "--sprt", "0,10", "--progress", "1",
               "--games", "200", "--seed", "3", "--max-strikes", "2", "--failures",
               "--event-date", "2026-11-29"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONPATH": str(root),
                               "ARENA_BOTS_DIR": str(tmp_path / "registry")}) as match:
        assert match.stdout is not None
        assert match.stdout.readline().startswith("Games 2: ")
        match.send_signal(getattr(signal, stop))
        _, stderr = match.communicate(timeout=120)
    told = stderr.splitlines()
    ended = re.fullmatch(r"Interrupted after (\d+) of 200 games \(--seed 3 --event-date "
                         r"2026-11-29 --games 200 --sprt 0,10 replays them\); wins so far: "
                         r"garbled 0, random \d+", told[1])
    assert ended is not None, stderr
    games = int(ended[1])  # a game may end between the line and the signal
    assert told[4:] == [
        "",
        "Failures:",
        f"  garbled protocol_error {2 * games} times (first game 0, seat 0): {NOT_JSON}",
        f"  garbled protocol_error {games} times (first game 0, seat 0): {NO_CHOICE}",
        said,
    ]
    assert match.returncode == code
