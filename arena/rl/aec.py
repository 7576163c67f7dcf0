"""The PettingZoo AEC environment: every seat a learner, over the real engine.

Agents are ``player_0`` .. ``player_{n-1}`` (seat order). The agent to act is the seat the
engine asks; an observation is ``{"observation": vector, "action_mask": mask}``
(:mod:`arena.rl.features`, :mod:`arena.rl.actions`); ``infos[agent]`` holds the structured
view the kit's bots get (the observation JSON, the decision and each option's action index).
Rewards come at the end, from the placements (:func:`arena.rl.view.placement_rewards`,
zero-sum). ``render()`` is the game narrated so far (the whole game, every seat's cards).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.houserules import HouseRules
from arena.engine.narration import narrate
from arena.engine.state import State
from arena.errors import IllegalChoiceError, RulesError
from arena.rl.actions import N_ACTIONS
from arena.rl.features import OBS_SIZE
from arena.rl.view import SeatViews, placement_rewards, structured

__all__ = ["PalaestraAEC", "check_setup", "env", "observation_space", "starting_seat"]

#: The largest value of a vector entry (counts of a face: two copies at most).
OBS_HIGH = 2.0
ON_ILLEGAL = ("raise", "default")
NO_GAME = "the environment has no game: call reset() first"


def observation_space() -> spaces.Dict:
    """The observation space of every agent (and of the Gymnasium environment)."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
        "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
    })


def check_setup(players: int, on_illegal: str,
                rules: HouseRules | Mapping[str, str] | None) -> HouseRules:
    """The house rules of an environment's games; bad settings are a :class:`RulesError`."""
    if not 2 <= players <= 5:
        raise RulesError(f"Palaestra is played by 2 to 5 players, not {players}")
    if on_illegal not in ON_ILLEGAL:
        raise RulesError(f"on_illegal must be one of {', '.join(ON_ILLEGAL)}, not {on_illegal!r}")
    return rules if isinstance(rules, HouseRules) else HouseRules.from_json(rules)


def starting_seat(options: Mapping[str, Any] | None, drawn: int) -> int:
    """The starting seat ``reset(options={"starting_seat": k})`` asks for, else ``drawn``;
    not an integer is a :class:`RulesError` (the game's config checks the range)."""
    seat = (options or {}).get("starting_seat")
    if seat is None:
        return drawn
    try:
        return operator.index(seat)  # numpy integers too, never a float cut down
    except TypeError:
        raise RulesError(f"the starting seat must be an integer, not {seat!r}") from None


class PalaestraAEC(AECEnv):  # type: ignore[misc]
    """Palaestra for 2 to 5 agents, each game dealt from the environment's seed.

    ``rules`` are house rules (a :class:`HouseRules` or NAME: VALUE mapping); ``on_illegal``
    says what an action outside the mask does: ``"raise"`` an :class:`IllegalChoiceError`
    (the default) or play the decision's safe default (option 0). ``structured=False``
    leaves the structured view out of ``infos`` (faster). The game's events are logged only
    with a ``render_mode`` (render tells them). ``reset(seed=..., options={"starting_seat":
    k})``: the starting seat is drawn from the seed unless given.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "palaestra_v0",
                                "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: HouseRules | Mapping[str, str] | None = None,
                 render_mode: str | None = None, on_illegal: str = "raise",
                 structured: bool = True) -> None:
        super().__init__()
        self.rules = check_setup(players, on_illegal, rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RulesError(f"render_mode must be ansi (the narrated text), not {render_mode!r}")
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.structured = structured
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.observation_spaces = {a: observation_space() for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._rng = random.Random()
        self.state: State | None = None
        self._actions: list[int] = []
        self._views = SeatViews(players, self.rules)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        n = len(self.possible_agents)
        game_seed = self._rng.getrandbits(63)
        start = starting_seat(options, self._rng.randrange(n))
        config = GameConfig(players=tuple(self.possible_agents), seed=game_seed,
                            starting_seat=start, rules=self.rules,
                            track_events=self.render_mode is not None)
        self.state = new_game(config)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._next()

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _next(self) -> None:
        """Select the seat the engine asks and fill its info (or end the game)."""
        state = self.state
        assert state is not None
        decision = state.decision
        if decision is None:
            self._finish(state)
            return
        seat = decision.seat
        agent = self.agent_selection = self.possible_agents[seat]
        view = self._view = self._views(state, seat)
        self._actions = view[2]
        if self.structured:
            self.infos[agent] = structured(state, seat, self._actions)

    def _finish(self, state: State) -> None:
        result = state.result
        assert result is not None
        rewards = placement_rewards(result.placements)
        for seat, (agent, reward) in enumerate(zip(self.possible_agents, rewards)):
            self.rewards[agent] = reward
            self.terminations[agent] = True
            # the categories the seat saw: an Ascension shows no other hand (RULES.md E31)
            self.infos[agent] = {"placements": list(result.placements),
                                 "desmos": result.desmos_seen_by(seat),
                                 "tiebreak": result.tiebreak}
        self._actions = []

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.state is None:
            raise RulesError(NO_GAME)
        if agent == self.agent_selection and self._actions:
            vector, mask, _ = self._view
        else:
            vector, mask, _ = self._views(self.state, self._seat(agent))
            mask[:] = 0
        return {"observation": vector, "action_mask": mask}

    def step(self, action: int | None) -> None:
        state = self.state
        if state is None:
            raise RulesError(NO_GAME)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            chosen = int(action)  # type: ignore[arg-type]
        except TypeError:  # None and the like: no action, so an illegal one
            chosen = -1
        try:
            index = self._actions.index(chosen)
        except ValueError:
            index = self._illegal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        state.apply(index)
        self._next()
        if state.result is not None:  # rewards come only at the end: nothing to add before
            self._accumulate_rewards()

    def _illegal(self, agent: str, action: object) -> int:
        """The option played for an action outside the mask (or an error)."""
        if self.on_illegal == "raise":
            raise IllegalChoiceError(f"action {action!r} is not legal for {agent} (the "
                                     "action mask shows the legal ones)") from None
        return 0

    def render(self) -> str | None:
        """The game so far, narrated (every seat's cards: a spectator's view); None, with
        Gymnasium's warning, without a ``render_mode``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='ansi' (the narrated text)")
            return None
        if self.state is None:
            return ""
        return "\n".join(narrate(self.state.record()))

    def close(self) -> None:
        self.state = None


def env(players: int = 2, rules: HouseRules | Mapping[str, str] | None = None,
        render_mode: str | None = None, on_illegal: str = "raise",
        structured: bool = True) -> PalaestraAEC:
    """A new :class:`PalaestraAEC` (PettingZoo's usual constructor name)."""
    return PalaestraAEC(players, rules, render_mode, on_illegal, structured)
