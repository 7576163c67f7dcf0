"""What a beginner reads of an ``act()`` that returns no index (the option itself, its action's
name, nothing): what was returned, where ``act`` is, and what to return instead, not the
protocol's words for the line the kit sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe
from arena.sdk import Bot, Request
from arena.sdk.bot import not_an_index

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")

TURN = [{"action": "hold"}, {"action": "play", "card": "God-3"},
        {"action": "trap", "card": "God-3"}]


def _decisions_line(tmp_path: Path, name: str, answer: str) -> str:
    bot = tmp_path / f"{name}.py"
    bot.write_text("from arena.sdk import Bot\n\n\nclass Sloppy(Bot):\n"
                   f"    name = '{name}'\n\n    def act(self, request):\n"
                   f"        if request.kind == 'turn':\n            return {answer}\n"
                   "        return 0\n")
    result = runner.invoke(app, ["check-bot", str(bot), "--games", "1"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 1, result.output
    return next(line for line in result.stdout.splitlines() if "decisions" in line)


@needs_sandbox
def test_an_actions_name_returned_is_told_to_be_the_options_index(tmp_path: Path) -> None:
    assert _decisions_line(tmp_path, "named", "'hold'") == (
        "✗ decisions: 4 failures in 1 game: protocol_error 4 (e.g. act() (named.py line 7) "
        "returned 'hold' (str), not an int index into request.legal: return the option's "
        "index (0 here); sent as no choice (a strike)); it forfeited the game (more than 3 "
        "strikes)")


@needs_sandbox
def test_a_forgotten_return_is_told_to_return_an_index(tmp_path: Path) -> None:
    assert _decisions_line(tmp_path, "silent", "None") == (
        "✗ decisions: 4 failures in 1 game: protocol_error 4 (e.g. act() (silent.py line 7) "
        "returned None (NoneType), not an int index into request.legal: every way through "
        "act() must end in 'return INDEX'; sent as no choice (a strike)); it forfeited the "
        "game (more than 3 strikes)")


class Returner(Bot):
    def act(self, request: Request) -> int:
        return 0


def test_the_note_names_the_option_an_answer_is_or_names() -> None:
    place = f"act() ({Path(__file__).name} line {Returner.act.__code__.co_firstlineno})"
    told = {choice: not_an_index(Returner(), choice, TURN).removeprefix(place)
            for choice in ("hold", "God-3", "pass")}
    assert told == {
        "hold": " returned 'hold' (str), not an int index into request.legal: return the "
                "option's index (0 here)",
        "God-3": " returned 'God-3' (str), not an int index into request.legal: return the "
                 "index of the option you mean (1, 2)",
        "pass": " returned 'pass' (str), not an int index into request.legal: return an int "
                "from 0 to 2"}
    assert not_an_index(Returner(), dict(TURN[2]), TURN).endswith(
        "returned {'action': 'trap', 'card': 'God-3'} (dict), not an int index into "
        "request.legal: return the option's index (2 here)")
    assert not_an_index(Returner(), 2.0, TURN).endswith(
        "returned 2.0 (float), not an int index into request.legal: return an int from 0 to 2")
