"""Run a kit bot in-process, as an engine agent: fast experiments and tests without pipes.

``BotAgent(bot)`` implements :class:`arena.engine.agents.Agent`, so
``arena.engine.play_game(config, [BotAgent(GreedyBot()), RandomAgent(1)])`` plays a kit bot
as the referee would ask it: each game reseeds ``bot.rng`` and calls ``on_game_start``, the
seat's events arrive through ``on_event`` (each once, in order) before each ``act`` with the
same request fields (``request.id`` as the referee numbers its ``act``s: from 0, counted over
every game the agent plays, as over a match), and ``on_game_end`` follows the game's last
events; ``rules`` (the games' house rules) reach ``game_start`` as the referee sends them.
Only the sandbox, the clock and the strikes are missing (``request.time_ms`` is None): an
answer that is not a legal index plays option 0, is logged and is counted in
:attr:`BotAgent.invalid_answers`.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine.decision import Decision
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.observation import Observation, seat_events
from arena.engine.state import State
from arena.sdk.bot import Bot, GameEnd, GameStart, Request, as_index, was_configured
from arena.sdk.hooks import check_hooks

__all__ = ["BotAgent"]

#: Invalid answers an agent logs; later ones are only counted (a long experiment stays quiet).
_LOGGED_INVALID = 3


class BotAgent:
    """An engine agent that asks a kit :class:`Bot`; ``seed`` derives each game's
    ``bot_seed`` (the same seed replays the bot's random choices), unless ``bot_seeds`` gives
    them game by game; ``first_game`` is the number ``on_game_start`` is told for its first
    game (a game of a match replayed alone keeps its index there). ``options`` go to
    ``bot.configure`` at once, as a tournament entry's options reach it in ``hello`` (a
    ``ValueError`` for a bad one is raised here). Without ``options`` a bot already
    configured (``configure`` called on it, an override's too:
    :func:`~arena.sdk.bot.was_configured`) keeps its settings; one never configured gets
    ``configure({})`` once, as the sandboxed kit calls it before the first game. ``rules``
    are the house rules of the games it plays (an agent sees only observations, which do not
    name them). A hook the kit could not call with its argument (``def act(self)``) is
    refused here, as the runner refuses it at start-up: a
    :class:`~arena.errors.BotLoadError` naming its line and what to write."""

    def __init__(self, bot: Bot, seed: int = 0, options: Mapping[str, Any] | None = None,
                 bot_seeds: Sequence[int] | None = None,
                 rules: HouseRules = DEFAULT_RULES, first_game: int = 0) -> None:
        check_hooks(bot)
        if options is not None or not was_configured(bot):
            bot.configure(dict(options or {}))
        self.bot = bot
        self.seed = seed
        self.rules = rules
        #: The bot_seed of each game in turn, when given (a record's ``referee.bot_seeds``
        #: entry for the seat replays a sandboxed game's random choices in-process).
        self.bot_seeds = list(bot_seeds) if bot_seeds is not None else None
        #: Answers that were not an index into ``legal`` (option 0 was played instead).
        self.invalid_answers = 0
        #: What ``act`` returned last, as it returned it (an invalid one included).
        self.last_answer: Any = None
        self.first_game = first_game
        #: The ``id`` of the next request: the referee counts a bot's ``act`` ids over its
        #: match from 0, so one agent playing a match's games in turn sees the same ids
        #: (set it to go on from an id, as a game of a match replayed alone does).
        self.next_id = 0
        self._games = 0
        self._first: dict[str, Any] | None = None  # the current game's first event
        self._playing = False  # between on_game_start and game_over
        self._seen = 0
        self._listens = type(bot).on_event is not Bot.on_event

    def choose(self, decision: Decision, observation: Observation) -> int:
        events = seat_events(observation)  # the feed itself: its first event tells the game
        self._follow(observation.seat, list(observation.players), observation.rounds, events)
        request = Request(self.next_id, decision.kind, observation.to_json(include_events=False),
                          list(decision.options), None, dict(decision.context),
                          observation.seat)
        self.next_id += 1
        choice = self.last_answer = self.bot.act(request)
        index = as_index(choice)  # as the runner reads it
        if index is not None and 0 <= index < len(decision.options):
            return index
        self.invalid_answers += 1
        if self.invalid_answers <= _LOGGED_INVALID:
            more = (" (further ones are only counted in invalid_answers)"
                    if self.invalid_answers == _LOGGED_INVALID else "")
            self.bot.log(f"[BotAgent] act() returned {choice!r:.60} ({type(choice).__name__}), "
                         f"not an index into the {len(decision.options)} legal options: "
                         f"option 0 played (the referee would count a strike){more}")
        return 0

    def game_over(self, state: State, seat: int) -> None:
        """The game is over (:func:`arena.engine.play_game` calls it): the seat's last
        events, then ``on_game_end``."""
        self._follow(seat, list(state.players), state.rounds, state.events_for(seat))
        result = state.result
        if result is not None:
            game = self.first_game + self._games - 1
            desmos = result.desmos_seen_by(seat)  # as the referee sends it (E31)
            raw = {"type": "game_end", "game": game, "placements": list(result.placements),
                   "desmos": list(desmos), "ascension": bool(result.ascension),
                   "tiebreak": result.tiebreak,
                   "forfeits": {str(s): r for s, r in sorted(result.forfeits.items())},
                   "standing_places": result.standing_places}
            self.bot.on_game_end(GameEnd(
                game=game, placements=list(result.placements), desmos=desmos,
                ascension=result.ascension, tiebreak=result.tiebreak,
                forfeits=dict(result.forfeits), raw=raw,
                standing_places=result.standing_places))
        self._first = None
        self._playing = False

    def _follow(self, seat: int, players: list[str], rounds: int,
                events: list[dict[str, Any]]) -> None:
        """Catch up with the game: start it if it is new (or was never asked, when it ends),
        then hand over the events not delivered yet."""
        if not self._playing or (events and events[0] is not self._first):
            self._begin(seat, players, rounds, events)
        self._deliver(events)

    def _begin(self, seat: int, players: list[str], rounds: int,
               events: list[dict[str, Any]]) -> None:
        played = self._games
        game = self.first_game + played
        self._games += 1
        self._first = events[0] if events else None
        self._playing = True
        self._seen = 0
        if self.bot_seeds is not None and played < len(self.bot_seeds):
            bot_seed = int(self.bot_seeds[played])
        else:
            bot_seed = random.Random(f"palaestra-local:{self.seed}:{game}").getrandbits(63)
        self.bot.seed(bot_seed)
        start = events[0] if events and events[0].get("type") == "game_start" else {}
        starting = int(start.get("starting_seat", 0))
        raw = {"type": "game_start", "game": game, "seat": seat, "players": players,
               "starting_seat": starting, "rounds": rounds, "bot_seed": bot_seed}
        if not self.rules.is_default:  # as the referee's game_start: only rules off default
            raw["rules"] = self.rules.to_json()
        self.bot.on_game_start(GameStart(
            game=game, seat=seat, players=players, starting_seat=starting, rounds=rounds,
            raw=raw, bot_seed=bot_seed))

    def _deliver(self, events: list[dict[str, Any]]) -> None:
        """The events not delivered yet, as copies (a bot may keep or change what it gets;
        the game's own log must not change)."""
        if self._listens:
            for event in events[self._seen:]:
                self.bot.on_event(copy.deepcopy(event))
        self._seen = len(events)
