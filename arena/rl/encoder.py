"""The environments' hot path: the same vector, mask and action indices as
:func:`arena.rl.features.encode` and :func:`arena.rl.actions.decision_actions`, built faster.

:func:`~arena.rl.features.encode` is the reference (the documented layout, and what the
learned bot calls in the sandbox); an :class:`Encoder` gives exactly its vector for the games
of one table size and house rules, with the index tables of every seat worked out once, so a
step does only the stores. Compiled with the engine when installed (arena/native.py), so it is
written for mypyc: typed locals and tables, and the objects every generic store passes made
once. :class:`ActionIndex` remembers the action index of each option
object the engine hands out (it hands out the same option dicts again and again). The tests
hold both to the reference on many games.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from arena.engine.cards import DECK_SIZE, FACE_OF, PALAESTRON, Kind
from arena.engine.decision import DECISION_KINDS, Decision, Option
from arena.engine.desmos import HAND_SIZE, KIND_BITS, MAX_RANK, RANK_BASE, value_of_signature
from arena.engine.houserules import HouseRules
from arena.engine.observation import Observation
from arena.engine.rulebook import MAX_TRAPS, TRAP_LIFETIME
from arena.rl.actions import FACES, decision_actions
from arena.rl.features import OBS_SIZE, OFFSET, SIGNATURE_CODES, table_template

__all__ = ["ActionIndex", "Encoder"]

_TRAP_WIDTH: Final = FACES + 2
_SEAT_WIDTH: Final = 4
_CATEGORY: Final = OFFSET["CATEGORY"]
_PROGRESS: Final = OFFSET["PROGRESS"]
_FROM: Final = OFFSET["FROM_SEAT"]
_KIND_AT: Final[dict[str, int]] = {
    kind: OFFSET["KIND"] + i for i, kind in enumerate(DECISION_KINDS)}
_FLOAT32: Final = np.dtype(np.float32)  # a dtype given as such skips numpy's conversion


def _faces_at(at: int) -> tuple[int, ...]:
    """Where each card id counts in a block of faces starting at ``at``."""
    return tuple(at + face for face in FACE_OF)


_IN_HAND: Final = _faces_at(OFFSET["HAND"])
_IN_EFFECT: Final = _faces_at(OFFSET["EFFECT_GY"])
_IN_DISCARD: Final = _faces_at(OFFSET["DISCARD_GY"])
#: per trap slot: where each card id goes, and where its turns left and readiness go
_IN_TRAP: Final = tuple(_faces_at(OFFSET["TRAPS"] + slot * _TRAP_WIDTH)
                        for slot in range(MAX_TRAPS))
_TRAP_AT: Final = tuple(OFFSET["TRAPS"] + slot * _TRAP_WIDTH + FACES for slot in range(MAX_TRAPS))


class Encoder:
    """:func:`~arena.rl.features.encode` for the games of ``players`` seats under ``rules``
    (an observation of another table size is not for it)."""

    def __init__(self, players: int, rules: HouseRules) -> None:
        self.players = players
        self.rules = rules
        self._template = table_template(players, rules).tobytes()
        self._codes = SIGNATURE_CODES[rules.kinds]
        seats = range(players)

        def relative(seat: int, at: int, width: int) -> tuple[int, ...]:
            # indexed by the absolute seat: the entry of its block, seen from ``seat``
            return tuple(at + ((other - seat) % players) * width for other in seats)

        revealed = OFFSET["REVEALED"]
        self._revealed = tuple(
            tuple(_faces_at(at) for at in relative(seat, revealed, FACES)) for seat in seats)
        self._sizes = tuple(relative(seat, OFFSET["SEATS"] + 1, _SEAT_WIDTH) for seat in seats)
        self._active = tuple(relative(seat, OFFSET["SEATS"] + 3, _SEAT_WIDTH) for seat in seats)
        self._counts = [0] * OBS_SIZE  # zeros between the calls of _count

    def __reduce__(self) -> tuple[type[Encoder], tuple[int, HouseRules]]:
        # a copy is built afresh: its tables follow from the table size and rules
        return Encoder, (self.players, self.rules)

    def encode(self, obs: Observation, kind: str | None = None,
               context: Mapping[str, Any] | None = None) -> np.ndarray:
        """The vector of ``obs`` (as :func:`~arena.rl.features.encode` with this encoder's
        rules); ``kind`` and ``context`` are the decision asked of the seat, if any."""
        return np.frombuffer(self.fill(obs, kind, context), _FLOAT32)

    def fill(self, obs: Observation, kind: str | None = None,
             context: Mapping[str, Any] | None = None) -> bytearray:
        """:meth:`encode`'s vector: its ``float32`` entries in a buffer numpy wraps."""
        buf = bytearray(self._template)
        # a float32 view stores a Python float at a fraction of an array's cost per store
        vec: Any = memoryview(buf).cast("f")
        seat = obs.seat
        hand = obs.hand_ids
        counts = self._counts
        _count_tuple(vec, counts, _IN_HAND, hand)
        if obs.trap_cards:
            _traps(vec, obs.trap_cards)
        revealed = obs.revealed_ids
        blocks = self._revealed[seat]
        for other in range(self.players):
            cards = revealed[other]
            if cards:
                _count_tuple(vec, counts, blocks[other], cards)
        _count_list(vec, counts, _IN_EFFECT, obs.effect_graveyard_ids)
        _count_list(vec, counts, _IN_DISCARD, obs.discard_graveyard_ids)
        category = self._category(hand)
        if category >= 0:
            vec[_AT[_CATEGORY + category]] = _ONE
        sizes = self._sizes[seat]
        hand_sizes = obs.hand_sizes
        trap_counts = obs.trap_counts
        for other in range(self.players):
            at = sizes[other]
            vec[_AT[at]] = _FIFTHS[hand_sizes[other]]
            vec[_AT[at + 1]] = _TRAP_SHARE[trap_counts[other]]
        vec[_AT[self._active[seat][obs.active_seat]]] = _ONE
        if kind is not None:
            vec[_AT[_KIND_AT[kind]]] = _ONE
        if context:
            from_seat = context.get("from_seat")
            if isinstance(from_seat, int):
                vec[_AT[_FROM + (from_seat - seat) % self.players]] = _ONE
        rounds = obs.rounds
        total = max(rounds * self.players, 1)
        vec[_AT[_PROGRESS]] = _PILE_SHARE[obs.draw_pile]
        vec[_AT[_PROGRESS + 1]] = obs.round / rounds
        vec[_AT[_PROGRESS + 2]] = max(total - obs.turn, 0) / total
        if obs.phase == "showdown":
            vec[_AT[_PROGRESS + 3]] = _ONE
        return buf

    def _category(self, hand: tuple[int, ...]) -> int:
        """The hand's Desmos category (-1: none), as
        :func:`~arena.rl.features.hand_category` gives it: the value of its counting cards'
        signature (the Palaestron never counts)."""
        codes = self._codes
        signature = 0
        counting = 0
        for card in hand:
            if card != PALAESTRON:
                signature += codes[card]
                counting += 1
        if counting > _HAND_SIZE:
            return -1
        reduced = _reduced(signature)
        found = _CATEGORY_OF.get(reduced)
        if found is None:
            found = _CATEGORY_OF[reduced] = value_of_signature(signature)[0]
        return found


#: The Desmos category by reduced signature (a few hundred: far fewer than signatures).
_CATEGORY_OF: Final[dict[int, int]] = {}
_CROWN_COUNT: Final = 3 * int(Kind.CROWN)
# the engine's constants, held as this module's own (a name read from a module that is not
# compiled is a dict lookup at every use)
_HAND_SIZE: Final[int] = HAND_SIZE
_RANK_BASE: Final[int] = RANK_BASE
_KIND_BITS: Final[int] = KIND_BITS
_MAX_RANK: Final[int] = MAX_RANK


def _reduced(signature: int) -> int:
    """What :func:`~arena.engine.desmos.value_of_signature` reduces a signature to (its kind
    counts, and the common rank of a possible Rank Flush), worked out natively."""
    rank_part = signature >> _RANK_BASE
    naturals = 0
    for rank in range(_MAX_RANK):
        naturals += (rank_part >> (3 * rank)) & 7
    common = 0
    kind_part = signature & _KIND_BITS
    if naturals and naturals + (kind_part >> _CROWN_COUNT) == _HAND_SIZE:
        for rank in range(_MAX_RANK):
            if (rank_part >> (3 * rank)) & 7 == naturals:
                common = rank + 1
                break
    return kind_part | (common << _RANK_BASE)


#: Python objects made once: every store into the vector is a generic one, which would box
#: a native index or number afresh at each store.
_AT: Final[tuple[object, ...]] = tuple(range(OBS_SIZE))
_COUNT: Final[tuple[object, ...]] = tuple(float(n) for n in range(len(FACE_OF) + 1))
_ONE: Final[object] = _COUNT[1]
_FIFTHS: Final[tuple[object, ...]] = tuple(n / 5.0 for n in range(DECK_SIZE + 1))
_TRAP_SHARE: Final[tuple[object, ...]] = tuple(n / MAX_TRAPS for n in range(MAX_TRAPS + 1))
_PILE_SHARE: Final[tuple[object, ...]] = tuple(n / DECK_SIZE for n in range(DECK_SIZE + 1))
_TURNS_LEFT: Final[tuple[object, ...]] = tuple(n / TRAP_LIFETIME
                                               for n in range(TRAP_LIFETIME + 1))
_READY: Final[tuple[object, object]] = (0.0, 1.0)


def _count_tuple(vec: Any, counts: list[int], where: tuple[int, ...],
                 cards: tuple[int, ...]) -> None:
    """Count ``cards`` into the entries ``where`` says. Counted in ``counts`` (all zeros
    between calls) and each entry stored, never read back: reading a float32 entry makes a
    new float, the costliest part of a store."""
    try:
        for card in cards:
            at = where[card]
            n = counts[at] + 1
            counts[at] = n
            vec[_AT[at]] = _COUNT[n]
    finally:
        for card in cards:
            counts[where[card]] = 0


def _count_list(vec: Any, counts: list[int], where: tuple[int, ...], cards: list[int]) -> None:
    """:func:`_count_tuple` for a list (a separate copy: a native loop needs one type)."""
    try:
        for card in cards:
            at = where[card]
            n = counts[at] + 1
            counts[at] = n
            vec[_AT[at]] = _COUNT[n]
    finally:
        for card in cards:
            counts[where[card]] = 0


def _traps(vec: Any, traps: tuple[tuple[int, int, bool], ...]) -> None:
    slot = 0
    for card, left, ready in traps:
        vec[_AT[_IN_TRAP[slot][card]]] = _ONE
        at = _TRAP_AT[slot]
        vec[_AT[at]] = _TURNS_LEFT[left] if 0 <= left <= TRAP_LIFETIME else left / TRAP_LIFETIME
        vec[_AT[at + 1]] = _READY[ready]
        slot += 1


#: How many options an :class:`ActionIndex` remembers before it starts afresh (the engine's
#: own option dicts number a few hundred; anything beyond is options built on the fly).
_REMEMBERED: Final = 4096


class ActionIndex:
    """:func:`~arena.rl.actions.decision_actions` for a table of ``players`` seats, each
    option's index remembered by the option object's id, per seat asked. The objects are
    kept alive alongside, so an id in the table cannot be another object's; past
    ``remembered`` objects, it starts afresh."""

    def __init__(self, players: int, remembered: int = _REMEMBERED) -> None:
        self.players = players
        self.remembered = remembered
        self._known: list[dict[int, int]] = [{} for _ in range(players)]
        self._kept: list[Option] = []

    def __reduce__(self) -> tuple[type[ActionIndex], tuple[int, int]]:
        # a copy or a pickle starts with an empty memory: ids mean nothing in another
        # process, and a copy's options would not be the objects the ids name
        return ActionIndex, (self.players, self.remembered)

    def __call__(self, decision: Decision) -> list[int]:
        known = self._known[decision.seat]
        try:
            return [known[id(option)] for option in decision.options]
        except KeyError:
            return self._learn(decision, known)

    def _learn(self, decision: Decision, known: dict[int, int]) -> list[int]:
        if len(self._kept) >= self.remembered:
            for table in self._known:
                table.clear()
            self._kept.clear()
        actions = decision_actions(decision, self.players)
        for option, action in zip(decision.options, actions):
            if id(option) not in known:
                known[id(option)] = action
                self._kept.append(option)
        return actions
