"""What ``arena env prune`` says when there is nothing to remove, or a bots directory
that is not one."""

from __future__ import annotations

import json
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


def test_a_bots_dir_that_is_no_directory_is_refused_and_nothing_is_pruned(
        tmp_path: Path) -> None:
    """A mistyped --bots-dir named no bot, so prune took every environment as unused."""
    built = tmp_path / "envs" / "0123456789abcdef"
    built.mkdir(parents=True)
    (built / "arena-env.json").write_text(json.dumps({
        "python": "/usr/bin/python3", "python_version": "3.11.2", "requirements": ["numpy"],
        "frozen": ["numpy==2.0.0"], "built": "2026-12-01T00:00:00Z"}))
    (tmp_path / "afile").write_text("")
    env = {"ARENA_ENV_CACHE": str(tmp_path / "envs")}
    for where, problem in ((tmp_path / "bots-typo", "does not exist"),
                           (tmp_path / "afile", "is a file")):
        for args in (["env", "prune"], ["env", "list"]):
            result = runner.invoke(app, [*args, "--bots-dir", str(where)], env=env)
            assert result.exit_code == 2, result.output
            said = "".join(result.stderr.replace("│", "").split())  # the box wraps the path
            told = f"Invalid value for '--bots-dir': dir '{where}' {problem}."
            assert "".join(told.split()) in said
    assert (built / "arena-env.json").is_file()
