"""What an in-process :class:`BotAgent` promises a bot author beyond the runner's protocol:
an answer one past the last option is invalid like any other, and a bot may change the
events it is handed without changing the game."""

from __future__ import annotations

from typing import Any

from arena.engine import GameConfig, RandomAgent, play_game
from arena.sdk import Bot, Request
from arena.sdk.local import BotAgent


def test_an_answer_one_past_the_last_option_plays_option_0_and_is_counted() -> None:
    class OffByOne(Bot):
        def act(self, request: Request) -> int:
            return len(request.legal)  # the natural slip: a count, not the last index

    agent = BotAgent(OffByOne())
    state = play_game(GameConfig(players=("a", "b"), seed=1), [agent, RandomAgent(1)])
    mine = [index for seat, _, index in state.choices if seat == 0]
    assert mine and all(index == 0 for index in mine)
    assert agent.invalid_answers == agent.next_id == len(mine)


class _Keeper(Bot):
    """Keeps every event it is handed, and plays at random from its seeded rng."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def on_event(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def act(self, request: Request) -> int:
        return self.rng.randrange(len(request.legal))


class _Scribbler(_Keeper):
    """Writes over every event it is handed, as a bot may (they are its own copies)."""

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(dict(event))
        event.clear()
        event["type"] = "scribbled"


def test_a_bot_that_edits_its_events_changes_neither_the_game_nor_its_record() -> None:
    def game(bot: _Keeper) -> tuple[list[Any], list[dict[str, Any]]]:
        state = play_game(GameConfig(players=("me", "rnd"), seed=8),
                          [BotAgent(bot, seed=2), RandomAgent(8)])
        return state.choices, state.events_for(0)

    plain, scribbler = _Keeper(), _Scribbler()
    choices, events = game(plain)
    assert game(scribbler) == (choices, events)
    assert scribbler.events == plain.events == events
