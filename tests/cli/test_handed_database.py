"""A results database someone handed over (a class contest's shared ``.db``, one edited by
hand) never passed the arena's entry, where a bot's text is escaped: its names, failure
details and tournament names reach the terminal escaped all the same."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_store_builder import GameSpec, StoreBuilder  # noqa: E402

from arena.cli.main import app  # noqa: E402

runner = CliRunner()
CUP = "cup\x1b]0;retitled\x07"


@pytest.fixture
def handed_db(tmp_path: Path) -> Path:
    path = tmp_path / "handed.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament(CUP, [("al\x1b[2Jice", "v1"), ("bob\u202e", "v1")])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1], failures=[
        {"seat": 0, "bot": "al\x1b[2Jice@v1", "type": "crash", "detail": "x\x1b]0;pwned\x07",
         "game": 0}]))
    builder.close()
    return path


@pytest.mark.parametrize("args", [["leaderboard", CUP], ["leaderboard", CUP, "-f", "json"],
                                  ["h2h", CUP], ["results", CUP],
                                  ["status", CUP], ["status", CUP, "--failures"]],
                         ids=lambda args: " ".join(a for a in args if a != CUP))
def test_a_handed_databases_text_reaches_the_terminal_escaped(handed_db: Path,
                                                               args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--db", str(handed_db)], color=True)
    assert result.exit_code == 0, result.output
    said = result.stdout + result.stderr
    assert not [c for c in said if c in "\x1b\x07\u202e"], said
    assert "al\\x1b[2Jice" in said or "al\\u001b[2Jice" in said  # (json's own escape)
