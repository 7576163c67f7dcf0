"""``arena check-bot`` says how far its games are once they take a while: a bot thinking near
its limit took most of a minute over them with no line between the metadata's and the
decisions'."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.referee.check import check_bot
from arena.sandbox import probe

BOTS = Path(__file__).resolve().parents[2] / "bots"

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")


def test_check_bot_says_how_far_its_games_are_once_they_take_a_while(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot thinking 900 ms a decision takes most of a minute over the check's games, which
    printed nothing from the metadata's line to the decisions' line."""
    from arena.cli import bot_commands
    from arena.referee.check import CheckItem, CheckReport

    def slow_check(bot: object, **kw: Any) -> CheckReport:
        for played, seconds in ((1, 1.5), (2, 24.6), (3, 36.0), (4, 47.2)):
            kw["on_game"](played, 4, seconds)
        report = CheckReport("my-slow", "0123456789ab")
        report.add(CheckItem("decisions", True, "49 decisions in 4 games"))
        return report

    monkeypatch.setattr(bot_commands, "check_bot", slow_check)
    result = runner.invoke(app, ["check-bot", "slow.py"])
    assert result.exit_code == 0
    # not before the games have gone on a while, nor after the last: its line follows
    assert result.stderr.splitlines() == ["played 2 of 4 games (25 s)...",
                                          "played 3 of 4 games (36 s)..."]


@needs_sandbox
def test_the_check_tells_each_game_it_goes_on_from(tmp_path: Path) -> None:
    told: list[tuple[int, int]] = []
    report = check_bot(str(BOTS / "random.py"), games=2,
                       on_game=lambda played, games, _: told.append((played, games)))
    assert report.ok and told == [(1, 2), (2, 2)]


def test_submit_says_how_far_its_check_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """arena submit runs the same check and printed nothing until it was over."""
    from arena.cli import bot_commands
    from arena.referee.check import CheckItem, CheckReport

    def slow_check(bot: object, **kw: Any) -> CheckReport:
        kw["on_wait"]("my-slow", "a 'turn' decision", 11_000)
        kw["on_game"](2, 4, 25.0)
        report = CheckReport("my-slow", "0123456789ab")
        report.add(CheckItem("decisions", True, "49 decisions in 4 games"))
        return report

    monkeypatch.setattr(bot_commands, "check_bot", slow_check)
    bot = tmp_path / "slow.py"
    bot.write_text((BOTS / "random.py").read_text())
    result = runner.invoke(app, ["submit", str(bot), "--name", "my-slow"],
                           env={"ARENA_BOTS_DIR": str(tmp_path / "bots")})
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "waiting for my-slow to answer a 'turn' decision (limit 11 s)...",
        "played 2 of 4 games (25 s)..."]
