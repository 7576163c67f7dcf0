"""The Palaestra rules engine: cards, Desmos, effects, turns, observations and records.

Imports nothing from the protocol, sandbox, tournament or CLI layers. Most modules run
compiled (mypyc); ``arena/native.py`` lists them and never lets a stale build run.

Inside, modules import downward only, every import at the top (tests/engine/test_layout.py
holds it): the data (``rulebook``, ``cards``, ``decision``, ``houserules``, ``config``,
``desmos``, ``observation``, ``result``, and ``chance``, the seeded random actor) < ``state``
< the rules (``actions`` < ``effects`` and ``showdown`` < ``turn``) < ``game`` < what plays
and reads games (``start``, who starts one; ``agents``, ``record``, ``determinize``,
``narration``, ``rules_text``, ``simulate``).

    >>> from arena.engine import GameConfig, RandomAgent, play_game
    >>> state = play_game(GameConfig(players=("a", "b"), seed=1), [RandomAgent(1), RandomAgent(2)])
    >>> state.result.placements in ([1, 2], [2, 1], [1, 1])
    True
"""

from arena.engine.agents import Agent, FirstOptionAgent, RandomAgent, play_game, play_out
from arena.engine.cards import DECK, NOTATION, Card, Kind, parse_cards
from arena.engine.config import GameConfig, rounds_for
from arena.engine.decision import DECISION_KINDS, Decision, Option
from arena.engine.desmos import Category, Desmos, evaluate
from arena.engine.effects import EFFECTS, Effect, effect_of
from arena.engine.game import new_game
from arena.engine.observation import Observation
from arena.engine.record import build_record, replay
from arena.engine.result import GameResult, standing_places
from arena.engine.start import first_contenders, first_starting_seat, next_starting_seat
from arena.engine.state import State

__all__ = [
    "DECISION_KINDS",
    "DECK",
    "EFFECTS",
    "NOTATION",
    "Agent",
    "Card",
    "Category",
    "Decision",
    "Desmos",
    "Effect",
    "FirstOptionAgent",
    "GameConfig",
    "GameResult",
    "Kind",
    "Observation",
    "Option",
    "RandomAgent",
    "State",
    "build_record",
    "effect_of",
    "evaluate",
    "first_contenders",
    "first_starting_seat",
    "new_game",
    "next_starting_seat",
    "parse_cards",
    "play_game",
    "play_out",
    "replay",
    "rounds_for",
    "standing_places",
]
