"""A ``ready`` flag is on only as JSON ``true`` (docs/PROTOCOL.md, "Where a timed-out bot was
stuck"): SIGUSR1 ends a program that does not catch it, so a bot that wrote anything else is
never sent it."""

from __future__ import annotations

import pytest
from referee_fakes import FAST, FakeConnection, FakeLauncher

from arena.engine import GameConfig, new_game
from arena.protocol import messages
from arena.referee.client import BotClient

OBSERVATION = new_game(GameConfig(players=("a", "b"), seed=1, starting_seat=0)).observe(
    0, events=False).to_json(include_events=False)
DUMP = ('Current thread 0x00007f0c3a1b2740 (most recent call first):\n'
        '  File "/bot/bot.py", line 11 in act\n')


@pytest.mark.parametrize("said", [b"1", b'"true"', b'"false"', b"[true]"])
def test_a_stack_dump_said_other_than_true_costs_the_bot_no_signal(said: bytes) -> None:
    ready = b'{"type":"ready","name":"c-bot","stack_dump":%s}\n' % said
    conn = FakeConnection(respond=lambda m: None, stack=DUMP, ready=ready)
    client = BotClient(["fake"], ".", FAST, name="c-bot", key="c-bot@0",
                       launcher=FakeLauncher(lambda: conn))
    assert client.start() is None
    assert client.begin_game(messages.game_start(0, 0, ["a", "b"], 0, 5)) is None
    result = client.act("turn", OBSERVATION, [{"action": "hold"}, {"action": "pass"}],
                        {"round": 1})
    assert result.failure is not None and result.failure.detail == "no answer within 200 ms"
    assert conn.stack_dumps == 0
