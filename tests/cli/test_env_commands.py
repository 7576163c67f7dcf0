"""What ``arena env prune`` says when there is nothing to remove."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def test_prune_with_every_environment_in_use_says_there_is_nothing_to_remove(
        tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    env = {"ARENA_ENV_CACHE": str(tmp_path / "envs"), "ARENA_BOTS_DIR": str(tmp_path / "bots")}
    for args in (["env", "prune", "--dry-run"], ["env", "prune"]):
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
        assert result.stdout == "No environment is unused: nothing to remove.\n"
