"""Palaestra as an OpenSpiel game (``pyspiel``), so OpenSpiel's algorithms run on it.

``import arena.rl.openspiel`` registers the game ``"palaestra"``; then
``pyspiel.load_game("palaestra", {"players": 3, "seed": 7})``, with a parameter per house rule
as the other environments take ``rules=`` (``{"trap_windows": "turn_and_play"}``, or
``"palaestra(players=3,trap_windows=turn_and_play)"``; RULES.md, "House rules"). Actions are
the fixed action space (:mod:`arena.rl.actions`), legal actions the decision's options;
observations the vector of :mod:`arena.rl.features` (the tensor) and the observation JSON (the
string), the seat's own view only; the information state a string of everything the seat
was told (:mod:`arena.rl.infostate`), from which ISMCTS resamples the hidden cards. The
shuffles happen inside the engine: the game is declared ``SAMPLED_STOCHASTIC`` (no chance
nodes), each new initial state dealt from the game's seed in turn. Returns are the
placement rewards (zero-sum). :class:`ArenaBot` plays an arena bot as an OpenSpiel bot, so
OpenSpiel's algorithms can be measured against the arena's; :func:`ismcts_bot` is
OpenSpiel's Python ISMCTS bot as ``evaluate_bots`` can play it.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np
import pyspiel

from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.houserules import RULE_CHOICES, HouseRules
from arena.engine.state import State
from arena.errors import IllegalChoiceError, RulesError
from arena.rl.actions import ACTION_NAMES, N_ACTIONS, decision_actions, option_of
from arena.rl.features import OBS_SIZE
from arena.rl.infostate import Journal, SeatMemory, resample
from arena.rl.opponents import Opponent, load_opponent
from arena.rl.view import placement_rewards, seat_view
from arena.sdk.bot import Bot
from arena.sdk.local import BotAgent

__all__ = ["ArenaBot", "PalaestraGame", "PalaestraState", "ismcts_bot"]

#: An upper bound on decisions in a game (a long Rock-Paper-Scissors sudden death included).
MAX_GAME_LENGTH = 1000

GAME_TYPE = pyspiel.GameType(
    short_name="palaestra",
    long_name="Palaestra",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    # a string parameter per house rule, at its default reading (OpenSpiel's parameters are
    # flat: a nested "rules" mapping would not pass through its game strings)
    parameter_specification={"players": 2, "seed": 0,
                             **{name: choices[0] for name, choices in RULE_CHOICES.items()}},
)


class PalaestraGame(pyspiel.Game):  # type: ignore[misc]
    """The game: ``players`` seats (2 to 5), deals drawn from ``seed``, played under the
    house rules the parameters name (each at its default unless given)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**GAME_TYPE.parameter_specification, **(params or {})}
        players = int(params["players"])
        if not GAME_TYPE.min_num_players <= players <= GAME_TYPE.max_num_players:
            # refused here, not at the first deal, where 0 seats fail with randrange's error
            raise RulesError(f"Palaestra is played by 2 to 5 players, not {players}")
        info = pyspiel.GameInfo(num_distinct_actions=N_ACTIONS, max_chance_outcomes=0,
                                num_players=players, min_utility=-1.0, max_utility=1.0,
                                utility_sum=0.0, max_game_length=MAX_GAME_LENGTH)
        # an unknown reading is refused here, naming the readings there are
        self.rules = HouseRules.from_json({name: str(params[name]) for name in RULE_CHOICES})
        super().__init__(GAME_TYPE, info, params)
        self.players = players
        self._deals = random.Random(int(params["seed"]))
        #: (seed, starting seat) of deals handed out and given back unplayed, next first
        self._returned: list[tuple[int, int]] = []

    def new_initial_state(self) -> PalaestraState:
        if self._returned:
            seed, start = self._returned.pop()
        else:
            seed = self._deals.getrandbits(63)
            start = self._deals.randrange(self.players)
        # no events until a seat's information state is first asked (PalaestraState.journal)
        config = GameConfig(players=tuple(f"p{i}" for i in range(self.players)), seed=seed,
                            starting_seat=start, track_events=False, rules=self.rules)
        return PalaestraState(self, config)

    def give_back(self, config: GameConfig) -> None:
        """A deal that was never played: the next :meth:`new_initial_state` deals it."""
        self._returned.append((config.seed, config.starting_seat))

    def __reduce__(self) -> tuple[Any, ...]:
        # OpenSpiel pickles a game by Serialize, which asks a sampled-stochastic game for its
        # random generator's state, and a Python game cannot give it: pickle (and deepcopy)
        # the parameters and where the sequence of deals is instead
        return _game_at, (self.get_parameters(), self._deals.getstate(), list(self._returned))

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> Observer | InfoStateObserver:
        """The seat's own view now, or with perfect recall its information state (a string
        only); any other kind is refused: the view holds the seat's hand, so it is no
        public observation."""
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("palaestra offers only the seat's own view (public and private "
                             "cards; with perfect recall, its information state): no "
                             "public-only, private-only or all-seat observation "
                             "(docs/LEARNING.md, OpenSpiel)")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return InfoStateObserver()
        return Observer()


def _game_at(params: dict[str, Any], deals: Any,
             returned: list[tuple[int, int]]) -> PalaestraGame:
    """The game of ``params`` that deals on from the point ``deals`` and ``returned`` tell."""
    game = PalaestraGame(params)
    game._deals.setstate(deals)
    game._returned = list(returned)
    return game


class PalaestraState(pyspiel.State):  # type: ignore[misc]
    """A game in progress: the engine's state, asked through OpenSpiel's API."""

    def __init__(self, game: PalaestraGame, deal: GameConfig | State) -> None:
        super().__init__(game)
        # the engine's state, or the deal it is made from when first asked for: OpenSpiel's
        # clone() starts from a new initial state only to overwrite it, and dealing one took
        # about half of every clone
        self._engine: State | GameConfig = deal
        #: what happened, from which each seat's information state is told when asked;
        #: none until one is first asked: plain play logs no events
        self._journal: Journal | None = None

    @property
    def state(self) -> State:
        """The engine's state of this game."""
        engine = self._engine
        if isinstance(engine, GameConfig):
            engine = new_game(engine)
            super().__setattr__("_engine", engine)
        return engine

    @property
    def journal(self) -> Journal:
        """What happened in this game, for every seat's information state. Begun when first
        asked, by a replay of the game's choices from its deal that logs every event; from
        then on the engine logs its events and each action adds to the journal."""
        journal = self._journal
        if journal is None:
            engine = self.state
            replay = new_game(replace(engine.config, track_events=True))
            journal = Journal.start(replay)
            for seat, _, index in engine.choices:
                decision = replay.decision
                assert decision is not None  # the game's own choices replay it
                replay.apply(index)
                journal = journal.after(replay, seat, decision_actions(decision, replay.n)[index])
            engine.track_events = True
            super().__setattr__("_journal", journal)
        return journal

    def information_key(self, player: int) -> str:
        """Seat ``player``'s information state: a key of everything it was told, in order
        (its events and the decisions it was asked, with its choices), and nothing else."""
        return self.memory(player).key()

    def memory(self, player: int) -> SeatMemory:
        """Everything seat ``player`` was told, in order."""
        return self.journal.memory(player)

    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Any) -> PalaestraState:
        """A state seat ``player_id`` cannot tell from this one (the same information
        state), its hidden cards drawn from what the seat was told, at random from
        ``probability_sampler`` (OpenSpiel's: a call gives a number in [0, 1)). The seat
        must be the one asked, as in OpenSpiel's ISMCTS."""
        engine = self.state
        memory = self.memory(player_id)
        seed = int(float(probability_sampler()) * 2 ** 53)
        sampled = PalaestraState(self.get_game(), resample(engine, player_id, memory, seed))
        others = [SeatMemory.fresh(seat, "resampled: " + json.dumps(
            sampled.state.observe_json(seat), sort_keys=True)) for seat in range(engine.n)]
        others[player_id] = memory
        sampled._journal = Journal(None, engine.n, None, list(others))
        return sampled

    def __setattr__(self, name: str, value: Any) -> None:
        # OpenSpiel's clone() sets each attribute of its new initial state to a copy of the
        # original's: that new state's deal was never played, so it goes back to the game,
        # and clones do not shift the seed's sequence of deals
        old = self.__dict__.get("_engine") if name == "_engine" else None
        if isinstance(old, GameConfig) or (old is not None and old is not value
                                           and not old.choices):
            self.get_game().give_back(old if isinstance(old, GameConfig) else old.config)
        super().__setattr__(name, value)

    def current_player(self) -> int:
        decision = self.state.decision
        return pyspiel.PlayerId.TERMINAL if decision is None else decision.seat

    def _legal_actions(self, player: int) -> list[int]:
        decision = self.state.decision
        if decision is None or decision.seat != player:
            return []
        return sorted(decision_actions(decision, self.state.n))

    def _apply_action(self, action: int) -> None:
        engine = self.state
        index = option_of(self._actions_asked(), action)
        decision = engine.decision
        assert decision is not None  # refused above: the game is over
        engine.apply(index)
        journal = self._journal
        if journal is not None:
            # past __setattr__, which watches the engine's state only: this runs every action
            super().__setattr__("_journal", journal.after(engine, decision.seat, action))

    def apply_action_with_legality_check(self, action: int) -> None:
        # OpenSpiel's own check fails on an illegal action trying to serialize the game
        # (GetRNGState unimplemented) before it says what was illegal
        option_of(self._actions_asked(), action)
        self.apply_action(action)

    def _actions_asked(self) -> list[int]:
        decision = self.state.decision
        if decision is None:
            raise IllegalChoiceError("the game is over: no action applies (is_terminal())")
        return decision_actions(decision, self.state.n)

    def _action_to_string(self, player: int, action: int) -> str:
        return f"p{player}: {ACTION_NAMES[action]}"

    def is_terminal(self) -> bool:
        return self.state.result is not None

    def returns(self) -> list[float]:
        result = self.state.result
        if result is None:
            return [0.0] * self.state.n
        return placement_rewards(result.placements)

    def __deepcopy__(self, memo: dict[int, Any]) -> PalaestraState:
        # OpenSpiel's clone: it keeps the history and move number, and copies the engine's
        # state with the engine's own copy (its continuations are functions, not data)
        clone: PalaestraState = self.clone()
        return clone

    def __reduce__(self) -> tuple[Any, ...]:
        # as the game's: OpenSpiel would pickle the game with the state, by Serialize
        return _state_of, (self.get_game(), self.serialize())

    def __str__(self) -> str:
        return repr(self.state)


def _state_of(game: PalaestraGame, serialized: str) -> PalaestraState:
    state: PalaestraState = game.deserialize_state(serialized)
    return state


class Observer:
    """OpenSpiel's observer of a seat: the vector (``tensor``) and the observation JSON."""

    def __init__(self) -> None:
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: PalaestraState, player: int) -> None:
        self.tensor[:] = seat_view(state.state, player, state.state.config.rules)[0]

    def string_from(self, state: PalaestraState, player: int) -> str:
        return json.dumps(state.state.observe_json(player), sort_keys=True)


class InfoStateObserver:
    """OpenSpiel's observer of a seat with perfect recall: its information state as a string
    (:meth:`PalaestraState.information_key`). No tensor: what a seat is told grows with the
    game (up to a thousand decisions, each with its events), so no fixed size holds it
    whole, and a cut one would not be a perfect recall (docs/LEARNING.md, OpenSpiel)."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict = {"info_state": self.tensor}

    def set_from(self, state: PalaestraState, player: int) -> None:
        raise ValueError("palaestra offers its information state as a string only: what a "
                         "seat is told grows with the game, no fixed-size tensor holds it "
                         "(docs/LEARNING.md, OpenSpiel)")

    def string_from(self, state: PalaestraState, player: int) -> str:
        return state.information_key(player)


class ArenaBot(pyspiel.Bot):  # type: ignore[misc]
    """An arena bot as an OpenSpiel bot of seat ``player``, for ``evaluate_bots`` and any
    loop that asks ``bot.step(state)``: a bot's name or path, a kit :class:`Bot` or an engine
    agent, as the Gymnasium environment takes its opponents (in-process, not sandboxed: only
    bots you trust). ``seed`` seeds a kit bot's random choices, as ``BotAgent`` does."""

    def __init__(self, game: PalaestraGame, player: int, bot: Opponent, seed: int = 0) -> None:
        super().__init__()
        loaded = load_opponent(bot)
        self.player = player
        self.agent = (BotAgent(loaded, seed=seed, rules=game.rules) if isinstance(loaded, Bot)
                      else loaded)
        self._followed: State | None = None

    def restart_at(self, state: PalaestraState) -> None:
        self._followed = None

    def inform_action(self, state: PalaestraState, player_id: int, action: int) -> None:
        """Another seat's ``action`` in ``state`` (before it applies): followed at once, so
        a game's last action, whoever makes it, ends the game for the bot too."""
        self._follow_action(state, action)

    def step(self, state: PalaestraState) -> int:
        followed = self._follow(state.state)
        decision = followed.decision
        if decision is None or decision.seat != self.player:
            now = "the game is over" if decision is None else f"seat {decision.seat} is asked"
            raise IllegalChoiceError(f"the bot of seat {self.player} was asked to act: {now}")
        index = self.agent.choose(decision, followed.observe(self.player))
        action = decision_actions(decision, followed.n)[index]
        self._follow_action(state, action)
        return action

    def _follow_action(self, state: PalaestraState, action: int) -> None:
        """``action`` played in the followed game; at its end the agent is told the game is
        over (a kit bot's ``on_game_end``), as ``play_game`` tells it, so a bot that learns
        between games plays the next one as it would there."""
        followed = self._follow(state.state)
        decision = followed.decision
        if decision is None:
            return
        followed.apply(option_of(decision_actions(decision, followed.n), action))
        game_over = getattr(self.agent, "game_over", None)
        if followed.decision is None and game_over is not None:
            game_over(followed, self.player)

    def _follow(self, game: State) -> State:
        """The game played again with its events: the OpenSpiel game keeps none (a clone
        would copy them), and a bot reads its seat's feed as the referee sends it."""
        followed = self._followed
        config = replace(game.config, track_events=True)
        done = len(followed.choices) if followed is not None else 0
        if (followed is None or followed.config != config
                or followed.choices != game.choices[:done]):
            followed, done = new_game(config), 0
        for _, _, index in game.choices[done:]:
            followed.apply(index)
        self._followed = followed
        return followed


def ismcts_bot(game: PalaestraGame, evaluator: Any, uct_c: float, max_simulations: int,
               **options: Any) -> pyspiel.Bot:
    """OpenSpiel's Python ``ISMCTSBot``, made with its own arguments (``random_state=``,
    ``max_world_samples=``, ...), that ``evaluate_bots`` can play: that bot has no
    ``restart_at``, which ``evaluate_bots`` calls before a game; here it resets the bot,
    which searches each decision afresh from resampled states anyway."""
    return _restartable_ismcts()(game, evaluator, uct_c, max_simulations, **options)


@cache
def _restartable_ismcts() -> type:
    # imported when asked for: the game itself needs only pyspiel
    from open_spiel.python.algorithms import ismcts

    class RestartableISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
        """``ISMCTSBot`` with a ``restart_at``: a reset."""

        def restart_at(self, state: Any) -> None:
            self.reset()

    return RestartableISMCTSBot


pyspiel.register_game(GAME_TYPE, PalaestraGame)
