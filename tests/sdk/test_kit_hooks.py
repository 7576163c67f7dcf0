"""The order in which the kit calls a bot's hooks, as docs/PROTOCOL.md and docs/BOTS.md
promise it."""

from __future__ import annotations

import io
import json
import os
import random

from arena.engine.houserules import HouseRules
from arena.protocol import messages
from arena.sdk import Bot, GameStart, Request
from arena.sdk.serving import serve


def test_self_rng_is_reseeded_with_bot_seed_before_on_game_start() -> None:
    """A bot that draws in on_game_start (a random opening plan) replays move for move only
    if the game's bot_seed is in place by then; a game_start without one (a referee older
    than it) reseeds with 0, so each game still starts the same."""

    class Planner(Bot):
        def __init__(self) -> None:
            self.plans: list[float] = []

        def on_game_start(self, game: GameStart) -> None:
            self.plans.append(self.rng.random())

        def act(self, request: Request) -> int:
            return 0

    bot = Planner()
    read, write = os.pipe()
    lines = [messages.hello(), messages.game_start(0, 0, ["a", "b"], 0, 5, bot_seed=7),
             messages.game_end(0, [1, 2], ["Pair", "Pair"], False, "none"),
             messages.game_start(1, 0, ["a", "b"], 0, 5, bot_seed=2**63 - 1),
             messages.game_start(2, 0, ["a", "b"], 0, 5), messages.bye()]  # an older referee
    assert serve(bot, io.BytesIO(b"".join(lines)), write) == 0
    os.close(write)
    os.close(read)
    assert bot.plans == [random.Random(seed).random() for seed in (7, 2**63 - 1, 0)]


def test_on_game_start_is_told_the_house_rules_and_the_whole_message() -> None:
    """A search that simulates the game needs the rules the referee named (docs/BOTS.md:
    ``game.rules``; ``game.raw`` is the whole ``game_start``)."""
    told: list[GameStart] = []

    class Rules(Bot):
        def on_game_start(self, game: GameStart) -> None:
            told.append(game)

        def act(self, request: Request) -> int:
            return 0

    family = HouseRules(kinds="family")
    start = messages.game_start(0, 1, ["a", "b"], 0, 5, bot_seed=3, rules=family.to_json(),
                                later_field="kept")
    read, write = os.pipe()
    assert serve(Rules(), io.BytesIO(messages.hello() + start + messages.bye()), write) == 0
    os.close(write)
    os.close(read)
    [game] = told
    assert game.rules == family and game.raw == json.loads(start)
