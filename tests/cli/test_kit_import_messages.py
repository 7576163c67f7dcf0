"""A name a bot imports from a kit module that lacks it (``from arena.sdk import BotBase``):
the failure says what the module offers, and the name it most likely misspells, where Python
(before 3.12) says only that it cannot import it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.referee.hints import traceback_tail
from arena.sandbox import probe

runner = CliRunner()


def _hint(tmp_path: Path, line: str) -> str:
    bot = tmp_path / "typo.py"
    bot.write_text("")
    log = ('Traceback (most recent call last):\n  File "/b/typo.py", line 1, in <module>\n'
           f"    from arena.sdk import x\n{line}\n")
    return traceback_tail(log, "/b", bot, look_beside=False)[-1]


def test_a_kit_name_in_another_case_is_offered_with_what_the_module_offers(
        tmp_path: Path) -> None:
    kit = "(/tmp/arena-kit-1-x/arena/sdk/__init__.py)"
    assert _hint(tmp_path, f"ImportError: cannot import name 'bot' from 'arena.sdk' {kit}") == (
        "hint: did you mean 'Bot'? arena.sdk offers Bot, GameEnd, GameStart, Request")
    assert _hint(tmp_path, f"ImportError: cannot import name 'BotBase' from 'arena.sdk' {kit}"
                 ) == "hint: arena.sdk offers Bot, GameEnd, GameStart, Request"
    assert _hint(tmp_path, "ImportError: cannot import name 'Searchbot' from "
                 "'arena.sdk.search' (/k/arena/sdk/search.py)").startswith(
        "hint: did you mean 'SearchBot'? arena.sdk.search offers SEARCHABLE_KINDS, SearchBot, ")
    # the kit's own words already say where the name is; another package's are not the kit's
    for line in ("ImportError: cannot import name 'SearchBot' from 'arena.sdk': it is in "
                 "arena.sdk.search: from arena.sdk.search import SearchBot",
                 "ImportError: cannot import name 'x' from 'os' (/usr/lib/os.py)"):
        assert not _hint(tmp_path, line).startswith("hint:")


def test_a_class_derived_from_the_kits_module_is_told_to_derive_from_bot(
        tmp_path: Path) -> None:
    """``from arena.sdk import bot`` imports the module: ``class MyBot(bot)`` then fails with
    Python's words about a module's arguments, which name nothing the author wrote."""
    told = ("hint: a class derives from a module, not from a class (from arena.sdk import bot "
            "imports the kit's module bot): write from arena.sdk import Bot and class "
            "MyBot(Bot)")
    for line in ("TypeError: module() takes at most 2 arguments (3 given)",
                 "TypeError: module.__init__() takes at most 2 arguments (3 given)"):
        assert _hint(tmp_path, line) == told


@pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
def test_check_bot_says_what_the_kit_offers(tmp_path: Path) -> None:
    bot = tmp_path / "wrong.py"
    bot.write_text("from arena.sdk import BotBase\n\n\nclass MyBot(BotBase):\n"
                   "    def act(self, request):\n        return 0\n")
    result = runner.invoke(app, ["check-bot", str(bot), "--games", "1"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[-2:] == ["    hint: arena.sdk offers Bot, GameEnd, GameStart, Request",
                          "FAIL: 1 of 1 checks failed."]
