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
