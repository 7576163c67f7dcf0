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


def _told(monkeypatch: pytest.MonkeyPatch, progress: tuple[tuple[int, float], ...]) -> list[str]:
    """What arena check-bot prints on stderr for a check whose games report ``progress``
    (games played, seconds) out of 4, its notice after the games have gone on 2 s."""
    from arena.cli import bot_commands
    from arena.referee.check import CheckItem, CheckReport

    def slow_check(bot: object, **kw: Any) -> CheckReport:
        assert kw["game_notice_s"] == 2.0
        for played, seconds in progress:
            kw["on_game"](played, 4, seconds)
        report = CheckReport("my-slow", "0123456789ab")
        report.add(CheckItem("decisions", True, "49 decisions in 4 games"))
        return report

    monkeypatch.setattr(bot_commands, "check_bot", slow_check)
    result = runner.invoke(app, ["check-bot", "slow.py"])
    assert result.exit_code == 0
    return result.stderr.splitlines()


def test_check_bot_says_how_far_its_games_are_once_they_take_a_while(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot thinking 900 ms a decision takes most of a minute over the check's games, which
    printed nothing from the metadata's line to the decisions' line."""
    # not before the games have gone on a while, nor after the last: its line follows
    assert _told(monkeypatch, ((1, 1.5), (2, 24.6), (3, 36.0), (4, 47.2))) == [
        "played 2 of 4 games (25 s)...", "played 3 of 4 games (36 s)..."]


def test_check_bot_says_its_first_game_is_under_way_once_it_takes_a_while(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow bot's first game took about 13 s with no line: the check tells it once it has
    gone on the notice's 2 s, and the games played after it as before."""
    assert _told(monkeypatch, ((0, 2.1), (1, 13.2), (2, 24.6), (4, 47.2))) == [
        "game 1 of 4 under way (2 s)...", "played 1 of 4 games (13 s)...",
        "played 2 of 4 games (25 s)..."]


@needs_sandbox
def test_the_check_tells_each_game_it_goes_on_from(tmp_path: Path) -> None:
    told: list[tuple[int, int]] = []
    report = check_bot(str(BOTS / "random.py"), games=2,
                       on_game=lambda played, games, _: told.append((played, games)))
    assert report.ok and told == [(1, 2), (2, 2)]


@needs_sandbox
def test_the_check_tells_once_that_its_first_game_goes_on(tmp_path: Path) -> None:
    """Its notice passed (none here), the first game is told once as under way, from the
    game's own events, before any game is told as played."""
    told: list[tuple[int, int]] = []
    report = check_bot(str(BOTS / "random.py"), games=2, game_notice_s=0.0,
                       on_game=lambda played, games, _: told.append((played, games)))
    assert report.ok and told == [(0, 2), (1, 2), (2, 2)]


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
