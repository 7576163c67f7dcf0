"""The fixed-size vector observation: one seat's :class:`Observation` as numbers.

Built from the engine's observation (what the kit's bots get, never the hidden state), so
it holds only what the seat may see. Seats are relative (block ``k`` is the seat ``k`` places
after yours), as in the action space. The environments and the learned bot both call
:func:`encode`: the bot runs in the sandbox with the kit, which ships this module, so the
features a policy was trained on are the features it plays with.

Layout (offset, size; counts are per card face, copies of a card count 2):

=================  ====  ==========================================================
block              size  what
=================  ====  ==========================================================
``HAND``             41  own hand, count per face
``TRAPS``            86  own trap slots 0 and 1: face one-hot, turns left / 3, ready
``REVEALED``        205  revealed cards of each seat (relative), count per face
``EFFECT_GY``        41  Effect Graveyard, count per face
``DISCARD_GY``       41  Discard Graveyard, count per face
``SEATS``            20  per relative seat: at the table, hand size / 5, traps / 2,
                         is the active seat
``KIND``              9  the decision asked (one-hot, ``DECISION_KINDS`` order); zeros
                         when the seat is not asked
``FROM_SEAT``         5  the seat a card choice is about (Hermes, Ares), relative
``PLAYERS``           4  table size 2..5, one-hot
``CATEGORY``          9  the Desmos category of the own hand (when it has at most 5
                         counting cards)
``RULES``             4  house rules not at their default reading (kinds,
                         dealt_palaestron, reclaim, trap_windows)
``PROGRESS``          4  draw pile / 52, round / rounds, turns left for the table /
                         turns of the game, showdown phase
=================  ====  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from arena.engine.cards import DECK_SIZE, FACE_OF, PALAESTRON
from arena.engine.decision import DECISION_KINDS
from arena.engine.desmos import EVALUATORS
from arena.engine.houserules import DEFAULT_RULES, RULE_CHOICES, HouseRules
from arena.engine.observation import Observation
from arena.engine.rulebook import MAX_TRAPS, TRAP_LIFETIME
from arena.rl.actions import FACES, MAX_SEATS

__all__ = ["BLOCKS", "OBS_SIZE", "encode"]

_TRAP_WIDTH: Final = FACES + 2
_SEAT_WIDTH: Final = 4
_CATEGORIES: Final = 9

#: (name, size) of each block, in order.
BLOCKS: Final[tuple[tuple[str, int], ...]] = (
    ("HAND", FACES),
    ("TRAPS", MAX_TRAPS * _TRAP_WIDTH),
    ("REVEALED", MAX_SEATS * FACES),
    ("EFFECT_GY", FACES),
    ("DISCARD_GY", FACES),
    ("SEATS", MAX_SEATS * _SEAT_WIDTH),
    ("KIND", len(DECISION_KINDS)),
    ("FROM_SEAT", MAX_SEATS),
    ("PLAYERS", 4),
    ("CATEGORY", _CATEGORIES),
    ("RULES", len(RULE_CHOICES)),
    ("PROGRESS", 4),
)


def _offsets() -> dict[str, int]:
    out, at = {}, 0
    for name, size in BLOCKS:
        out[name] = at
        at += size
    return out


OFFSET: Final[dict[str, int]] = _offsets()
#: Length of the vector.
OBS_SIZE: Final = sum(size for _, size in BLOCKS)

_HAND: Final = OFFSET["HAND"]
_TRAPS: Final = OFFSET["TRAPS"]
_REVEALED: Final = OFFSET["REVEALED"]
_EFFECT: Final = OFFSET["EFFECT_GY"]
_DISCARD: Final = OFFSET["DISCARD_GY"]
_SEATS: Final = OFFSET["SEATS"]
_KIND: Final = OFFSET["KIND"]
_FROM: Final = OFFSET["FROM_SEAT"]
_PLAYERS: Final = OFFSET["PLAYERS"]
_CATEGORY: Final = OFFSET["CATEGORY"]
_RULES: Final = OFFSET["RULES"]
_PROGRESS: Final = OFFSET["PROGRESS"]
_KIND_INDEX: Final[dict[str, int]] = {kind: i for i, kind in enumerate(DECISION_KINDS)}
_RULE_NAMES: Final = tuple(RULE_CHOICES)


def _card_counts(at: int, cards: Any) -> list[int]:
    return [at + FACE_OF[card] for card in cards]


def _hot(obs: Observation, kind: str | None, context: Mapping[str, Any] | None,
         rules: HouseRules) -> list[int]:
    """The indices set to one (a repeated index counts again)."""
    seat = obs.seat
    n = len(obs.players)
    hot = _card_counts(_HAND, obs.hand_ids)
    for slot, (card, _, _) in enumerate(obs.trap_cards):
        hot.append(_TRAPS + slot * _TRAP_WIDTH + FACE_OF[card])
    revealed = obs.revealed_ids
    for k in range(n):
        cards = revealed[(seat + k) % n]
        if cards:
            hot += _card_counts(_REVEALED + k * FACES, cards)
    hot += _card_counts(_EFFECT, obs.effect_graveyard_ids)
    hot += _card_counts(_DISCARD, obs.discard_graveyard_ids)
    hot += [_SEATS + k * _SEAT_WIDTH for k in range(n)]
    hot.append(_SEATS + ((obs.active_seat - seat) % n) * _SEAT_WIDTH + 3)
    if kind is not None:
        hot.append(_KIND + _KIND_INDEX[kind])
    if context:
        from_seat = context.get("from_seat")
        if isinstance(from_seat, int):
            hot.append(_FROM + (from_seat - seat) % n)
    hot.append(_PLAYERS + n - 2)
    counting = [card for card in obs.hand_ids if card != PALAESTRON]
    if len(counting) <= 5:
        hot.append(_CATEGORY + EVALUATORS[rules.kinds](counting)[0])
    if rules is not DEFAULT_RULES:
        for i, name in enumerate(_RULE_NAMES):
            if getattr(rules, name) != RULE_CHOICES[name][0]:
                hot.append(_RULES + i)
    return hot


def _scalars(obs: Observation) -> tuple[list[int], list[float]]:
    """The entries that are not counts: where they go and their values."""
    seat = obs.seat
    n = len(obs.players)
    where: list[int] = []
    values: list[float] = []
    for slot, (_, left, ready) in enumerate(obs.trap_cards):
        at = _TRAPS + slot * _TRAP_WIDTH + FACES
        where += (at, at + 1)
        values += (left / TRAP_LIFETIME, 1.0 if ready else 0.0)
    sizes = obs.hand_sizes
    traps = obs.trap_counts
    for k in range(n):
        other = (seat + k) % n
        at = _SEATS + k * _SEAT_WIDTH
        where += (at + 1, at + 2)
        values += (sizes[other] / 5.0, traps[other] / MAX_TRAPS)
    total = max(obs.rounds * n, 1)
    where += (_PROGRESS, _PROGRESS + 1, _PROGRESS + 2, _PROGRESS + 3)
    values += (obs.draw_pile / DECK_SIZE, obs.round / obs.rounds,
               max(total - obs.turn, 0) / total, 1.0 if obs.phase == "showdown" else 0.0)
    return where, values


def encode(obs: Observation, kind: str | None = None,
           context: Mapping[str, Any] | None = None,
           rules: HouseRules = DEFAULT_RULES) -> np.ndarray:
    """The vector (``float32``, :data:`OBS_SIZE`) of ``obs``; ``kind`` and ``context`` are
    the decision asked of the seat (None when it is not asked)."""
    where = _hot(obs, kind, context, rules)
    weights = [1.0] * len(where)
    extra, values = _scalars(obs)
    where += extra
    weights += values
    # one numpy call builds the whole vector: counts and values are sums of weights
    return np.bincount(where, weights, OBS_SIZE).astype(np.float32)
