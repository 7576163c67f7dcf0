"""A kit name imported from the wrong place says where it is."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe

needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")

SAMPLE_STATE = ("cannot import name 'sample_state' from 'arena.sdk.search': it is a method of "
                "SearchView: in a SearchBot, view = self.view(request), then "
                "view.sample_state(seed)")


@needs_sandbox
def test_a_bot_importing_sample_state_from_the_module_is_told_where_it_is(
        tmp_path: Path) -> None:
    """The failure report of a bot that imported ``sample_state`` from arena.sdk.search said
    only Python's "cannot import name": nothing pointed at ``SearchView``."""
    bot = tmp_path / "mine.py"
    bot.write_text("from arena.sdk import Bot, Request\n"
                   "from arena.sdk.search import sample_state\n\n\n"
                   "class Mine(Bot):\n"
                   "    def act(self, request: Request) -> int:\n"
                   "        return 0\n")
    result = CliRunner().invoke(app, ["match", str(bot), "random", "--games", "1"])
    assert f"ImportError: {SAMPLE_STATE} (at mine.py line 2, in <module>)" in result.stdout


@pytest.mark.parametrize(("module", "name", "said"), [
    ("arena.sdk.search", "sample_state", SAMPLE_STATE),
    ("arena.sdk.search", "known_hand", "cannot import name 'known_hand' from "
     "'arena.sdk.search': it is a method of SearchView: in a SearchBot, view = "
     "self.view(request), then view.known_hand(seat)"),
    ("arena.sdk", "SearchBot", "cannot import name 'SearchBot' from 'arena.sdk': it is in "
     "arena.sdk.search: from arena.sdk.search import SearchBot"),
    ("arena.sdk", "BotAgent", "cannot import name 'BotAgent' from 'arena.sdk': it is in "
     "arena.sdk.local: from arena.sdk.local import BotAgent"),
])
def test_a_misplaced_kit_name_is_an_import_error_naming_its_place(
        module: str, name: str, said: str) -> None:
    with pytest.raises(ImportError) as raised:
        exec(f"from {module} import {name}", {})
    assert str(raised.value) == said


def test_other_missing_names_stay_attribute_errors_and_submodules_import() -> None:
    """``hasattr`` and ``from arena.sdk import local`` rely on a missing name being an
    AttributeError."""
    for module in ("arena.sdk", "arena.sdk.search"):
        assert not hasattr(importlib.import_module(module), "no_such_name")
    namespace: dict[str, object] = {}
    exec("from arena.sdk import local, tracker", namespace)
    assert namespace["local"] is importlib.import_module("arena.sdk.local")
