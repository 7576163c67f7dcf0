"""A match replays in the sandbox even where a bot's choices follow what its process leaves
to chance by itself: the order in which a set of strings is iterated (the hash seed)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from arena.referee.launch import sandbox_launcher
from arena.referee.match import MatchRequest, play_match
from arena.registry import resolve
from arena.sandbox import SandboxReport, probe

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")

RANDOM = Path(__file__).resolve().parents[2] / "bots" / "random.py"

SET_ORDER_BOT = '''
from arena.sdk import Bot, Request

WORDS = {f"word{i}" for i in range(20)}


class SetOrder(Bot):
    name = "set_order"
    asked = 0

    def act(self, request: Request) -> int:
        self.asked += 1
        word = list(WORDS)[self.asked % len(WORDS)]
        return sorted(WORDS).index(word) % len(request.legal)
'''


def test_a_bot_that_iterates_a_set_of_strings_replays_its_games(
        tmp_path: Path, report: SandboxReport) -> None:
    bot = tmp_path / "set_order.py"
    bot.write_text(SET_ORDER_BOT)
    request = MatchRequest(bots=[resolve(bot), resolve(RANDOM)], games=2, seed=3,
                           launcher=sandbox_launcher(report), event_date=dt.date(2026, 12, 1))
    choices = [[game.record["choices"] for game in play_match(request).games] for _ in range(2)]
    assert choices[0] == choices[1]
