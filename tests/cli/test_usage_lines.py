"""Every command's usage line names its arguments as the README and the help texts do:
upper case (``TOURNAMENT``, ``BOTS``, ``PATH``), never the Python parameter's name; and a
usage mistake is told in one ``Error: ...`` line and a hint, exit code 2, never in a box."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize(("command", "usage"), [
    (["export"], "export [OPTIONS] {TOURNAMENT}"),
    (["pairings"], "pairings [OPTIONS] {TOURNAMENT}"),
    (["report"], "report [OPTIONS] {TOURNAMENT}"),
    (["delete"], "delete [OPTIONS] {TOURNAMENT}"),
    (["h2h"], "h2h [OPTIONS] {TOURNAMENT}"),
    (["results"], "results [OPTIONS] {TOURNAMENT}"),
    (["leaderboard", "a", "b"], "leaderboard [OPTIONS] [TOURNAMENT]"),
    (["status", "a", "b"], "status [OPTIONS] [TOURNAMENT]"),
    (["match"], "match [OPTIONS] {BOTS}..."),
    (["play"], "play [OPTIONS] {BOTS}..."),
    (["check-bot"], "check-bot [OPTIONS] {PATH}"),
    (["submit"], "submit [OPTIONS] {PATH}"),
    (["league", "stop"], "league stop [OPTIONS] {NAME}"),
    (["league", "retire"], "league retire [OPTIONS] {NAME} {BOT}"),
    (["run"], "run [OPTIONS] {SPEC}"),
])
def test_usage_names_the_arguments_in_upper_case(command: list[str], usage: str) -> None:
    result = runner.invoke(app, command, prog_name="arena")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")
    helped = runner.invoke(app, [*command[:2 if command[0] == "league" else 1], "--help"],
                           prog_name="arena", env={"COLUMNS": "200"})
    assert helped.exit_code == 0
    assert helped.output.split("\n", 2)[1].strip() == f"Usage: arena {usage}"


@pytest.mark.parametrize(("command", "told", "helped"), [
    (["run", "tournaments/swiss.yaml", "--budget-games", "4"],
     "No such option: --budget-games (Possible options: --games)", "arena run"),
    (["match", "greedy", "random", "-o", "depth=3"],
     "Invalid value for '--option': expected N:KEY=VALUE, got 'depth=3'", "arena match"),
    (["match", "greedy", "random", "--games", "0"],
     "Invalid value for '--games' / '-g': Input should be greater than or equal to 1",
     "arena match"),
    (["run"], "Missing argument 'SPEC'.", "arena run"),
    (["game", "g1", "--format", "xml"],
     "Invalid value for '--format' / '-f': unknown format 'xml' (choose text or json)",
     "arena game"),
    (["leaderboard", "a", "b"], "Got unexpected extra argument(s) (b)", "arena leaderboard"),
    (["league", "stop", "x", "--bogus"], "No such option: --bogus", "arena league stop"),
    (["bench", "nosuch"], "No such command 'nosuch'.", "arena bench"),
    (["leaderbord"], "No such command 'leaderbord' (did you mean 'leaderboard'?).", "arena"),
    (["bench", "engin"], "No such command 'engin' (did you mean 'engine'?).", "arena bench"),
    (["league", "stp"], "No such command 'stp' (did you mean 'stop'?).", "arena league"),
    (["env", "lst"], "No such command 'lst' (did you mean 'list'?).", "arena env"),
    (["bots", "prun"], "No such command 'prun' (did you mean 'prune'?).", "arena bots"),
    (["--bogus"], "No such option: --bogus", "arena"),
])
def test_a_usage_mistake_is_one_error_line_and_a_hint(command: list[str], told: str,
                                                      helped: str) -> None:
    result = runner.invoke(app, command, prog_name="arena")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"Error: {told}\nTry '{helped} --help'.\n"


def test_an_option_without_its_value_still_names_the_commands_help() -> None:
    # typer's parser gives this error no context; the root's names the command
    result = runner.invoke(app, ["status", "--records"], prog_name="arena")
    assert result.exit_code == 2
    assert result.stderr == ("Error: Option '--records' requires an argument.\n"
                             "Try 'arena status --help'.\n")


def test_a_usage_mistake_quotes_what_was_typed_escaped() -> None:
    result = runner.invoke(app, ["run", "x.yaml", "--\x1b[2Jx"], prog_name="arena")
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "--\\x1b[2Jx" in result.stderr


def test_a_usage_mistake_draws_no_box_on_a_terminals_stderr() -> None:
    """Through the console script's own entry point, where typer draws its rich panels."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "80", "FORCE_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "run", "tournaments/swiss.yaml",
         "--budget-games", "4"], capture_output=True, text=True, env=env, cwd=root,
        timeout=60, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert not any("\u2500" <= char <= "\u257f" for char in done.stderr), done.stderr
    assert done.stderr.splitlines() == [
        "Error: No such option: --budget-games (Possible options: --games)",
        "Try 'python -m arena.cli.main run --help'."]


def test_the_run_help_names_every_format_a_spec_may_have() -> None:
    # the league, a format of its own, was missing from the list
    from typing import get_args

    from arena.tournament.spec import TournamentSpec

    formats = get_args(TournamentSpec.model_fields["format"].annotation)
    assert "league" in formats
    result = runner.invoke(app, ["run", "--help"], prog_name="arena", env={"COLUMNS": "200"})
    assert result.exit_code == 0
    first = " ".join(result.output.split("Stop and resume")[0].split())
    assert all(name in first for name in formats), first
