"""``arena bots``: the list of registered bots, on a pipe and on a terminal."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

BOTS = Path(__file__).resolve().parents[2] / "bots"

runner = CliRunner()


def _bots_dir(root: Path) -> Path:
    """A bots directory: a module bot named 'short' and a directory bot whose bot.yaml gives
    its own version as 1.10."""
    shutil.copy(BOTS / "greedy.py", root / "short.py")
    mine = root / "mine"
    mine.mkdir()
    shutil.copy(BOTS / "greedy.py", mine / "bot.py")
    (mine / "bot.yaml").write_text('name: mine\nmodule: bot.py\n'
                                   'metadata: {author: me, version: "1.10"}\n')
    return root


def test_the_list_shows_each_cell_as_written(tmp_path: Path) -> None:
    # an own version 1.10 was read as a number and shown 1.1
    result = runner.invoke(app, ["bots"], env={"ARENA_BOTS_DIR": str(_bots_dir(tmp_path))})
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and lines[0].split() == [
        "name", "version", "kind", "author", "own", "version", "file"]
    assert lines[2].split()[2:] == ["module", "me", "1.10", "mine"], result.stdout
