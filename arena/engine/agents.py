"""In-process agents, and the one loop that plays games in-process.

An agent picks an option index for a decision; the built-in random agent is here. Bots over
the line protocol implement the same contract on the other side of a pipe (``arena.sdk``).

:func:`play_out` drives a state with a chooser (a function of the state that returns an
option index); :func:`play_game` deals a game and asks one agent per seat, with that seat's
observation, as the referee asks bots over pipes. ``simulate``, the engine bench, the kit's
``BotAgent`` and the kit's search rollouts play through them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from arena.engine.config import GameConfig
from arena.engine.decision import Decision
from arena.engine.game import new_game
from arena.engine.observation import Observation
from arena.engine.state import State

__all__ = ["Agent", "FirstOptionAgent", "RandomAgent", "play_game", "play_out"]


class Agent(Protocol):
    """Returns the index of the chosen option in ``decision.options``.

    An agent may also define ``game_over(state, seat)``: :func:`play_game` calls it once the
    game is over, so an agent that follows the game (a kit bot's ``on_game_end``) sees its
    end; and ``reads_events = False`` when it never reads ``observation.events`` (its
    observations then leave the feed out, the costliest part of building one)."""

    def choose(self, decision: Decision, observation: Observation) -> int: ...


class RandomAgent:
    """Uniformly random legal choices, from its own seed."""

    reads_events = False

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        self._random = self._rng.random

    def choose(self, decision: Decision, observation: Observation) -> int:
        return int(self._random() * len(decision.options))

    def __reduce__(self) -> tuple[Callable[[Any], RandomAgent], tuple[Any]]:
        # the random sequence goes along as its state: a deepcopy would share the bound
        # method's generator, and the copy would draw the original's numbers
        return _random_agent, (self._rng.getstate(),)


def _random_agent(rng_state: Any) -> RandomAgent:
    """A pickled or copied :class:`RandomAgent` again, drawing on from ``rng_state``."""
    agent = RandomAgent()
    agent._rng.setstate(rng_state)
    return agent


class FirstOptionAgent:
    """Always the safe default (option 0): what a forfeited seat plays."""

    reads_events = False

    def choose(self, decision: Decision, observation: Observation) -> int:
        return 0


def play_out(state: State, choose: Callable[[State], int]) -> State:
    """Answer each pending decision of ``state`` with ``choose(state)`` until the game is
    over; returns ``state``."""
    while state.decision is not None:
        state.apply(choose(state))
    return state


def play_game(config: GameConfig, agents: Sequence[Agent]) -> State:
    """Play a whole game in-process, each seat asking its agent; returns the finished state.

    Agents that define ``game_over(state, seat)`` are told, in seat order, once it is over.
    """
    if len(agents) != len(config.players):
        raise ValueError("one agent per player")
    state = play_out(new_game(config), _Seats(agents).choose)
    for seat, agent in enumerate(agents):
        over = getattr(agent, "game_over", None)
        if over is not None:
            over(state, seat)
    return state


class _Seats:
    """Each decision to its seat's agent, with the seat's observation (its events left out
    for an agent whose ``reads_events`` is false)."""

    __slots__ = ("agents", "events")

    def __init__(self, agents: Sequence[Agent]) -> None:
        self.agents = list(agents)
        self.events = [bool(getattr(agent, "reads_events", True)) for agent in agents]

    def choose(self, state: State) -> int:
        decision = state.decision
        assert decision is not None
        seat = decision.seat
        return self.agents[seat].choose(decision, state.observe(seat, self.events[seat]))
