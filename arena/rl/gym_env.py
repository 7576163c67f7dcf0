"""The Gymnasium environment: one learner seat, the other seats played in-process by bots.

The opponents are kit bots (a name from ``bots/`` or the bots directory, or an
:class:`arena.sdk.Bot`) or in-process engine agents (anything with ``choose(decision,
observation)``), asked exactly as :func:`arena.engine.play_game` asks them. A step is the
learner's answer to one decision; the opponents then play until the learner is asked again
or the game ends. The reward is the learner's placement reward at the end (0 before).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from arena.engine.agents import Agent
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.houserules import HouseRules
from arena.engine.narration import narrate
from arena.engine.state import State
from arena.errors import IllegalChoiceError, RulesError
from arena.rl.actions import N_ACTIONS, option_of
from arena.rl.aec import check_setup, observation_space, starting_seat
from arena.rl.opponents import Opponent, load_opponent
from arena.rl.view import SeatViews, placement_rewards, structured
from arena.sdk.bot import Bot
from arena.sdk.local import BotAgent

__all__ = ["ENV_ID", "PalaestraEnv"]

#: The environment's Gymnasium id: ``gymnasium.make(ENV_ID, opponents=[...])``.
ENV_ID = "arena/Palaestra-v0"

Obs = dict[str, np.ndarray]


class PalaestraEnv(gymnasium.Env):  # type: ignore[misc]
    """Palaestra for one learner against ``opponents`` (one per other seat).

    ``learner_seat`` fixes the learner's seat (None: drawn from the seed every episode, so
    it plays every seat); the starting seat is drawn too. ``on_illegal``: an action outside
    the mask plays the safe default (option 0, ``info["illegal"]`` says so) with
    ``"default"`` (the default, as Gymnasium's checker sends any action), or raises with
    ``"raise"``. ``reset(seed=..., options={"starting_seat": k})``: the starting seat is drawn
    from the seed unless given. ``reset`` returns only a game in which the learner is asked:
    a deal the opponents end first is replaced by the next of the environment's sequence.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}

    def __init__(self, opponents: Sequence[Opponent] = ("greedy",),
                 rules: HouseRules | Mapping[str, str] | None = None,
                 learner_seat: int | None = None, render_mode: str | None = None,
                 on_illegal: str = "default") -> None:
        self.players = len(opponents) + 1
        self.rules = check_setup(self.players, on_illegal, rules)
        if learner_seat is not None and not 0 <= learner_seat < self.players:
            raise RulesError(f"learner seat {learner_seat} is not a seat of a "
                                     f"{self.players}-player game")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # Gymnasium's own way: a mode not offered is warned of, not refused, since
            # libraries ask for one by default (Stable-Baselines3's make_vec_env: rgb_array)
            gymnasium.logger.warn(f"render_mode {render_mode!r} is not offered, only 'ansi' "
                                  "(the narrated text): the environment renders nothing")
            render_mode = None
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.learner_seat = learner_seat
        self.opponents = [load_opponent(o) for o in opponents]
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._rng = random.Random()
        self.state: State | None = None
        self.seat = 0
        self._agents: list[Agent | None] = []
        self._actions: list[int] = []
        self._views = SeatViews(self.players, self.rules)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        # a deal the opponents end before the learner is asked (an Ascension in their first
        # turns) has no step to take, and reset cannot say an episode is over: deal the next
        while True:
            obs, info = self._deal(options)
            if self.state is not None and self.state.decision is not None:
                return obs, info

    def _deal(self, options: dict[str, Any] | None) -> tuple[Obs, dict[str, Any]]:
        """A new game from the environment's random sequence, played up to the learner."""
        n = self.players
        game_seed = self._rng.getrandbits(63)
        start = starting_seat(options, self._rng.randrange(n))
        seat = self._rng.randrange(n) if self.learner_seat is None else self.learner_seat
        self.seat = seat
        # a kit bot's random choices replay from the episode's seed (an engine agent keeps
        # its own randomness)
        self._agents = [None if s == seat else self._agent(self.opponents[(s - seat - 1) % n])
                        for s in range(n)]
        names = tuple("learner" if s == seat else f"seat{s}" for s in range(n))
        config = GameConfig(players=names, seed=game_seed, starting_seat=start,
                            rules=self.rules)
        self.state = new_game(config)
        return self._advance({})

    def _agent(self, opponent: Bot | Agent) -> Agent:
        if isinstance(opponent, Bot):
            return BotAgent(opponent, seed=self._rng.getrandbits(63), rules=self.rules)
        return opponent

    def _advance(self, info: dict[str, Any]) -> tuple[Obs, dict[str, Any]]:
        """Let the opponents play until the learner is asked or the game ends."""
        state = self.state
        assert state is not None
        agents = self._agents
        while state.decision is not None and state.decision.seat != self.seat:
            decision = state.decision
            agent = agents[decision.seat]
            assert agent is not None
            events = getattr(agent, "reads_events", True)
            state.apply(agent.choose(decision, state.observe(decision.seat, events)))
        vector, mask, self._actions = self._views(state, self.seat)
        info.update(structured(state, self.seat, self._actions))
        info["seat"] = self.seat
        if state.result is not None:
            for s, agent in enumerate(agents):
                over = getattr(agent, "game_over", None)
                if over is not None:
                    over(state, s)
            result = state.result
            # the categories the learner's seat saw: an Ascension shows no other hand (E31)
            info.update(placements=list(result.placements),
                        desmos=result.desmos_seen_by(self.seat), tiebreak=result.tiebreak)
        return {"observation": vector, "action_mask": mask}, info

    def step(self, action: int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        state = self.state
        if state is None or state.decision is None:
            raise IllegalChoiceError("the episode is over: call reset()")
        info: dict[str, Any] = {}
        try:
            index = option_of(self._actions, int(action))
        except IllegalChoiceError:
            if self.on_illegal == "raise":
                raise
            index = 0
            info["illegal"] = True
        state.apply(index)
        obs, info = self._advance(info)
        result = state.result
        if result is None:
            return obs, 0.0, False, False, info
        return obs, placement_rewards(result.placements)[self.seat], True, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's pending decision, as booleans: the observation's
        mask, asked of the environment by maskable learners (sb3-contrib's ``MaskablePPO``);
        all False before ``reset`` and once the episode is over."""
        mask = np.zeros(N_ACTIONS, bool)
        if self.state is not None and self.state.decision is not None:
            mask[self._actions] = True
        return mask

    def render(self) -> str | None:
        """The game so far, narrated as the learner's seat saw it; None, with Gymnasium's
        warning, without a ``render_mode``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode='ansi' (the narrated text)")
            return None
        if self.state is None:
            return ""
        return "\n".join(narrate(self.state.record(), self.seat))


# registered, so that ``gymnasium.make`` and the libraries that make environments by id build
# it, and its spec lets Gymnasium's checker try each render mode
gymnasium.register(id=ENV_ID, entry_point=f"{__name__}:PalaestraEnv")
