"""A command bot (a program that speaks the protocol itself) cannot be an in-process
opponent: the Gymnasium environment refuses it in one line, never by
importing its program as Python."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")

from arena.errors import BotError  # noqa: E402
from arena.rl.gym_env import PalaestraEnv  # noqa: E402
from arena.rl.opponents import load_opponent  # noqa: E402

NODE_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "node_bot"
REFUSED = "bot node_bot is a command bot: only Python module bots run in-process"


def test_a_command_bot_is_refused_as_an_opponent_in_one_line() -> None:
    with pytest.raises(BotError) as refused:
        load_opponent(NODE_BOT)
    assert str(refused.value) == REFUSED
    with pytest.raises(BotError) as refused:
        PalaestraEnv([str(NODE_BOT)])
    assert str(refused.value) == REFUSED
