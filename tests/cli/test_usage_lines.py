"""Every command's usage line names its arguments as the README and the help texts do:
upper case (``TOURNAMENT``, ``BOTS``, ``PATH``), never the Python parameter's name."""

from __future__ import annotations

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
    assert result.output.splitlines()[0] == f"Usage: arena {usage}"
