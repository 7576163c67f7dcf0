"""In-process agents: anything that picks an option index for a decision.

The built-in random agent is here; bots over the line protocol implement the same contract
on the other side of a pipe (``arena.sdk``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from arena.engine.config import GameConfig
from arena.engine.decision import Decision
from arena.engine.game import new_game
from arena.engine.observation import Observation
from arena.engine.state import State

__all__ = ["Agent", "FirstOptionAgent", "RandomAgent", "play_game"]


class Agent(Protocol):
    """Returns the index of the chosen option in ``decision.options``.

    An agent may also define ``game_over(state, seat)``: :func:`play_game` calls it once the
    game is over, so an agent that follows the game (a kit bot's ``on_game_end``) sees its
    end; and ``reads_events = False`` when it never reads ``observation.events`` (its
    observations then leave the feed out, which costs a third of building one)."""

    def choose(self, decision: Decision, observation: Observation) -> int: ...


class RandomAgent:
    """Uniformly random legal choices, from its own seed."""

    reads_events = False

    def __init__(self, seed: int = 0) -> None:
        self._random = random.Random(seed).random

    def choose(self, decision: Decision, observation: Observation) -> int:
        return int(self._random() * len(decision.options))


class FirstOptionAgent:
    """Always the safe default (option 0): what a forfeited seat plays."""

    reads_events = False

    def choose(self, decision: Decision, observation: Observation) -> int:
        return 0


def play_game(config: GameConfig, agents: Sequence[Agent]) -> State:
    """Play a whole game in-process, each seat asking its agent; returns the finished state."""
    if len(agents) != len(config.players):
        raise ValueError("one agent per player")
    state = new_game(config)
    events = [bool(getattr(agent, "reads_events", True)) for agent in agents]
    while state.decision is not None:
        decision = state.decision
        seat = decision.seat
        state.apply(agents[seat].choose(decision, state.observe(seat, events[seat])))
    for seat, agent in enumerate(agents):
        over = getattr(agent, "game_over", None)
        if over is not None:
            over(state, seat)
    return state
