"""The fixed-size vector observation: one seat's :class:`Observation` as numbers.

Built from the engine's observation (what the kit's bots get, never the hidden state), so
it holds only what the seat may see. Seats are relative (block ``k`` is the seat ``k`` places
after yours), as in the action space. :func:`encode` is the reference: the learned bot calls
it (it runs in the sandbox with the kit, which ships this module), and the environments'
faster :class:`arena.rl.encoder.Encoder` is held to it byte for byte by the tests, so the
features a policy was trained on are the features it plays with.

Layout (offset, size; counts are per card face: two copies of a card count 2):

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
``FROM_SEAT``         5  the other seat the decision is about (``context.from_seat``:
                         a card taken from or given to it, its effect asking),
                         relative
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

from array import array
from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from arena.engine.cards import DECK_SIZE, FACE_OF, PALAESTRON
from arena.engine.decision import DECISION_KINDS
from arena.engine.desmos import CODE, CODE_FAMILY, EVALUATORS
from arena.engine.houserules import DEFAULT_RULES, RULE_CHOICES, HouseRules
from arena.engine.observation import Observation
from arena.engine.rulebook import MAX_TRAPS, TRAP_LIFETIME
from arena.rl.actions import FACES, MAX_SEATS

__all__ = ["BLOCKS", "OBS_SIZE", "OFFSET", "SIGNATURE_CODES", "encode", "hand_category",
           "table_template"]

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


def _face_index(at: int) -> tuple[int, ...]:
    """Where each card id counts in a block of faces starting at ``at``."""
    return tuple(at + face for face in FACE_OF)


_IN_HAND: Final = _face_index(_HAND)
_IN_TRAP: Final = tuple(_face_index(_TRAPS + slot * _TRAP_WIDTH) for slot in range(MAX_TRAPS))
_IN_REVEALED: Final = tuple(_face_index(_REVEALED + k * FACES) for k in range(MAX_SEATS))
_IN_EFFECT: Final = _face_index(_EFFECT)
_IN_DISCARD: Final = _face_index(_DISCARD)


def _cards(vec: array, obs: Observation, rules: HouseRules) -> None:
    """The card counts: own hand and traps, revealed cards, graveyards; the hand's Desmos."""
    seat = obs.seat
    n = len(obs.players)
    hand = obs.hand_ids
    for card in hand:
        vec[_IN_HAND[card]] += 1.0
    for slot, (card, left, ready) in enumerate(obs.trap_cards):
        vec[_IN_TRAP[slot][card]] = 1.0
        at = _TRAPS + slot * _TRAP_WIDTH + FACES
        vec[at] = left / TRAP_LIFETIME
        vec[at + 1] = 1.0 if ready else 0.0
    revealed = obs.revealed_ids
    for k in range(n):
        cards = revealed[(seat + k) % n]
        if cards:
            where = _IN_REVEALED[k]
            for card in cards:
                vec[where[card]] += 1.0
    for card in obs.effect_graveyard_ids:
        vec[_IN_EFFECT[card]] += 1.0
    for card in obs.discard_graveyard_ids:
        vec[_IN_DISCARD[card]] += 1.0
    category = hand_category(hand, rules.kinds)
    if category is not None:
        vec[_CATEGORY + category] = 1.0


#: Each reading of the kinds: its per-card signature codes, and the categories met so far by
#: signature (the environments' encoder reads the codes too).
SIGNATURE_CODES: Final[dict[str, tuple[int, ...]]] = {"type": CODE, "family": CODE_FAMILY}
_CATEGORIES_SEEN: Final[dict[str, dict[int, int]]] = {"type": {}, "family": {}}


def hand_category(hand: tuple[int, ...], kinds: str) -> int | None:
    """The Desmos category of a hand of at most five counting cards (None for more).

    Remembered by the hand's signature (the sum of the evaluator's per-card codes: its kind
    and rank counts, which fix its value): a four-card hand, common between a play and its
    draw, is otherwise solved afresh each time."""
    if len(hand) > 5:
        counting = [card for card in hand if card != PALAESTRON]
        return EVALUATORS[kinds](counting)[0] if len(counting) <= 5 else None
    codes = SIGNATURE_CODES[kinds]
    signature = 0
    for card in hand:
        signature += codes[card]
    seen = _CATEGORIES_SEEN[kinds]
    category = seen.get(signature)
    if category is None:
        counting = [card for card in hand if card != PALAESTRON]
        category = seen[signature] = EVALUATORS[kinds](counting)[0]
    return category


def table_template(players: int, rules: HouseRules) -> array:
    """The entries fixed for a whole game: the seats at the table, its size, its rules."""
    vec = array("f", bytes(4 * OBS_SIZE))
    for k in range(players):
        vec[_SEATS + k * _SEAT_WIDTH] = 1.0
    vec[_PLAYERS + players - 2] = 1.0
    for i, name in enumerate(_RULE_NAMES):
        if getattr(rules, name) != RULE_CHOICES[name][0]:
            vec[_RULES + i] = 1.0
    return vec


_TEMPLATES: Final[dict[tuple[int, HouseRules], array]] = {}


def _table(vec: array, obs: Observation, kind: str | None,
           context: Mapping[str, Any] | None, rules: HouseRules) -> None:
    """The seats, the decision and the game's progress."""
    seat = obs.seat
    n = len(obs.players)
    sizes = obs.hand_sizes
    traps = obs.trap_counts
    for k in range(n):
        other = (seat + k) % n
        at = _SEATS + k * _SEAT_WIDTH
        vec[at + 1] = sizes[other] / 5.0
        vec[at + 2] = traps[other] / MAX_TRAPS
    vec[_SEATS + ((obs.active_seat - seat) % n) * _SEAT_WIDTH + 3] = 1.0
    if kind is not None:
        vec[_KIND + _KIND_INDEX[kind]] = 1.0
    if context:
        from_seat = context.get("from_seat")
        if isinstance(from_seat, int):
            vec[_FROM + (from_seat - seat) % n] = 1.0
    total = max(obs.rounds * n, 1)
    vec[_PROGRESS] = obs.draw_pile / DECK_SIZE
    vec[_PROGRESS + 1] = obs.round / obs.rounds
    vec[_PROGRESS + 2] = max(total - obs.turn, 0) / total
    vec[_PROGRESS + 3] = 1.0 if obs.phase == "showdown" else 0.0


def encode(obs: Observation, kind: str | None = None,
           context: Mapping[str, Any] | None = None,
           rules: HouseRules = DEFAULT_RULES) -> np.ndarray:
    """The vector (``float32``, :data:`OBS_SIZE`) of ``obs``; ``kind`` and ``context`` are
    the decision asked of the seat (None when it is not asked)."""
    # filled in a plain array (a Python float store is far cheaper than a numpy one), then
    # handed to numpy without a copy
    key = (len(obs.players), rules)
    template = _TEMPLATES.get(key)
    if template is None:
        template = _TEMPLATES[key] = table_template(*key)
    vec = array("f", template)
    _cards(vec, obs, rules)
    _table(vec, obs, kind, context, rules)
    return np.frombuffer(vec, dtype=np.float32)
