"""What the kit promises a bot author in-process: an answer one past the last option (or
below the first) is invalid like any other, a request holds what the referee's ``act`` does,
a bot may change the events and the hand it is handed without changing the game, and a
:class:`BotAgent` begins each game even for a loop that never calls ``game_over``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.protocol import messages
from arena.protocol.schema import SCHEMAS, validate
from arena.sdk import Bot, GameStart, Request
from arena.sdk.local import BotAgent


@pytest.mark.parametrize("past", [0, -1], ids=["one past the last", "-1"])
def test_an_answer_outside_the_options_plays_option_0_and_is_counted(past: int) -> None:
    """One past the last option (the natural slip: a count, not the last index), or -1,
    which is outside ``0 .. len(legal)-1`` for the referee too, never Python's last item."""

    class Outside(Bot):
        def act(self, request: Request) -> int:
            return len(request.legal) if past == 0 else past

    agent = BotAgent(Outside())
    state = play_game(GameConfig(players=("a", "b"), seed=1), [agent, RandomAgent(1)])
    mine = [index for seat, _, index in state.choices if seat == 0]
    assert mine and all(index == 0 for index in mine)
    assert agent.invalid_answers == agent.next_id == len(mine)


def test_a_request_in_process_holds_what_the_referees_act_holds_and_nothing_else() -> None:
    """docs/PROTOCOL.md: the observation holds no history (that came as events); a bot that
    read one in-process would find none in the sandbox."""
    seen: list[Request] = []

    class Looker(Bot):
        def act(self, request: Request) -> int:
            seen.append(request)
            return 0

    play_game(GameConfig(players=("a", "b", "c"), seed=2), [BotAgent(Looker()), RandomAgent(1),
                                                             RandomAgent(2)])
    fields = SCHEMAS["act"]["properties"]["observation"]["required"]
    assert seen and all(sorted(r.observation) == sorted(fields) for r in seen)
    assert all(validate(json.loads(messages.act(r.id, r.kind, r.observation, r.legal, None,
                                                r.context))) == [] for r in seen)


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


def test_a_bot_agent_asked_by_a_loop_of_ones_own_starts_each_game() -> None:
    """A loop that only asks ``choose`` (never ``game_over``) still begins each new game for
    the bot: its start, then that game's events from the first."""
    class Starter(_Keeper):
        def __init__(self) -> None:
            super().__init__()
            self.starts: list[int] = []

        def on_game_start(self, game: GameStart) -> None:
            self.starts.append(game.game)

    bot = Starter()
    agent, other = BotAgent(bot), RandomAgent(0)
    for seed in (3, 4):
        state = new_game(GameConfig(players=("me", "rnd"), seed=seed))
        first_event = len(bot.events)
        while (decision := state.decision) is not None:
            asked = agent if decision.seat == 0 else other
            state.apply(asked.choose(decision, state.observe(decision.seat)))
        assert bot.events[first_event]["type"] == "game_start"
    assert bot.starts == [0, 1]


def test_editing_the_hand_a_request_gives_leaves_its_observation() -> None:
    request = Request(0, "turn", {"hand": ["God-3", "Crown"]}, [])
    request.hand.remove("Crown")
    assert request.hand == request.observation["hand"] == ["God-3", "Crown"]
