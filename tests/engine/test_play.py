"""The in-process game loop: play_out answers decisions with a chooser until the game is
over; play_game asks one agent per seat and tells the agents that follow the game its end."""

from __future__ import annotations

import random

import pytest

from arena.engine import (
    Decision,
    FirstOptionAgent,
    GameConfig,
    GameResult,
    Observation,
    RandomAgent,
    State,
    new_game,
    play_game,
    play_out,
)


def test_play_out_plays_the_same_game_as_play_game_with_the_same_choices() -> None:
    config = GameConfig(players=("a", "b", "c"), seed=11)
    agents = [RandomAgent(1), RandomAgent(2), RandomAgent(3)]
    by_agents = play_game(config, agents)
    rngs = [random.Random(1).random, random.Random(2).random, random.Random(3).random]

    def choose(state: State) -> int:
        decision = state.decision
        assert decision is not None
        return int(rngs[decision.seat]() * len(decision.options))

    state = new_game(config)
    assert play_out(state, choose) is state
    assert state.is_over and state.decision is None
    assert state.record() == by_agents.record()


def test_play_out_of_a_finished_game_asks_nothing() -> None:
    state = play_game(GameConfig(players=("a", "b"), seed=2), [FirstOptionAgent()] * 2)

    def never(_state: State) -> int:
        raise AssertionError("a finished game has no decision")

    assert play_out(state, never) is state


class _Follower:
    """Records what it was asked and when it was told the game is over."""

    def __init__(self, log: list[tuple[str, int]]) -> None:
        self.log = log

    def choose(self, decision: Decision, observation: Observation) -> int:
        assert observation.seat == decision.seat
        self.log.append(("choose", decision.seat))
        return 0

    def game_over(self, state: State, seat: int) -> None:
        assert state.is_over
        self.log.append(("over", seat))


def test_play_game_tells_each_following_agent_the_end_in_seat_order() -> None:
    log: list[tuple[str, int]] = []
    play_game(GameConfig(players=("a", "b", "c"), seed=5),
              [_Follower(log), FirstOptionAgent(), _Follower(log)])
    assert log[-2:] == [("over", 0), ("over", 2)]
    assert ("over", 0) not in log[:-2]
    assert {seat for what, seat in log if what == "choose"} <= {0, 2}


def test_play_game_wants_one_agent_per_player() -> None:
    with pytest.raises(ValueError, match="one agent per player"):
        play_game(GameConfig(players=("a", "b", "c"), seed=5), [FirstOptionAgent()] * 2)


def test_a_game_result_prints_readably() -> None:
    """``play_game`` returns the finished State; its result prints its fields, not an id."""
    state = play_game(GameConfig(players=("a", "b"), seed=7), [RandomAgent(1), RandomAgent(2)])
    assert isinstance(state, State)
    assert repr(state.result) == str(state.result) == (
        "GameResult(placements=[2, 1], desmos=['Pair', 'Triplet'], tiebreak='none')")
    result = GameResult([2, 1], ["Pair", "Pair"], True, "rps", {0: "crash"}, [])
    assert repr(result) == ("GameResult(placements=[2, 1], desmos=['Pair', 'Pair'], "
                            "ascension=True, tiebreak='rps', forfeits={0: 'crash'})")
