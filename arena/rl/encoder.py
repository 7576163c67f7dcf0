"""The environments' hot path: the same vector, mask and action indices as
:func:`arena.rl.features.encode` and :func:`arena.rl.actions.decision_actions`, built faster.

:func:`~arena.rl.features.encode` is the reference (the documented layout, and what the
learned bot calls in the sandbox); an :class:`Encoder` gives exactly its vector for the games
of one table size and house rules, with the index tables of every seat worked out once, so a
step does only the stores. :class:`ActionIndex` remembers the action index of each option
object the engine hands out (it hands out the same option dicts again and again). The tests
hold both to the reference on many games.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from arena.engine.cards import DECK_SIZE, FACE_OF
from arena.engine.decision import DECISION_KINDS, Decision, Option
from arena.engine.desmos import EVALUATORS
from arena.engine.houserules import HouseRules
from arena.engine.observation import Observation
from arena.engine.rulebook import MAX_TRAPS, TRAP_LIFETIME
from arena.rl.actions import FACES, decision_actions
from arena.rl.features import OFFSET, hand_category, table_template

__all__ = ["ActionIndex", "Encoder"]

_TRAP_WIDTH: Final = FACES + 2
_SEAT_WIDTH: Final = 4
_CATEGORY: Final = OFFSET["CATEGORY"]
_PROGRESS: Final = OFFSET["PROGRESS"]
_FROM: Final = OFFSET["FROM_SEAT"]
_KIND_AT: Final[dict[str, int]] = {
    kind: OFFSET["KIND"] + i for i, kind in enumerate(DECISION_KINDS)}
_FLOAT32: Final = np.dtype(np.float32)  # a dtype given as such skips numpy's conversion
#: The hand size a Desmos holds.
_DESMOS: Final = 5


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
        self._template = table_template(players, rules)
        self._kinds = rules.kinds
        self._evaluate = EVALUATORS[rules.kinds]
        seats = range(players)

        def relative(seat: int, at: int, width: int) -> tuple[int, ...]:
            # indexed by the absolute seat: the entry of its block, seen from ``seat``
            return tuple(at + ((other - seat) % players) * width for other in seats)

        revealed = OFFSET["REVEALED"]
        self._revealed = tuple(
            tuple(_faces_at(at) for at in relative(seat, revealed, FACES)) for seat in seats)
        self._sizes = tuple(relative(seat, OFFSET["SEATS"] + 1, _SEAT_WIDTH) for seat in seats)
        self._active = tuple(relative(seat, OFFSET["SEATS"] + 3, _SEAT_WIDTH) for seat in seats)

    def encode(self, obs: Observation, kind: str | None = None,
               context: Mapping[str, Any] | None = None) -> np.ndarray:
        """The vector of ``obs`` (as :func:`~arena.rl.features.encode` with this encoder's
        rules); ``kind`` and ``context`` are the decision asked of the seat, if any."""
        vec = array("f", self._template)
        seat = obs.seat
        hand = obs.hand_ids
        where: tuple[int, ...] = _IN_HAND
        for card in hand:
            vec[where[card]] += 1.0
        if obs.trap_cards:
            for slot, (card, left, ready) in enumerate(obs.trap_cards):
                vec[_IN_TRAP[slot][card]] = 1.0
                at = _TRAP_AT[slot]
                vec[at] = left / TRAP_LIFETIME
                vec[at + 1] = 1.0 if ready else 0.0
        for where, cards in zip(self._revealed[seat], obs.revealed_ids):
            for card in cards:
                vec[where[card]] += 1.0
        where = _IN_EFFECT
        for card in obs.effect_graveyard_ids:
            vec[where[card]] += 1.0
        where = _IN_DISCARD
        for card in obs.discard_graveyard_ids:
            vec[where[card]] += 1.0
        if len(hand) == _DESMOS:  # the common case: the engine's evaluator remembers it
            vec[_CATEGORY + self._evaluate(hand)[0]] = 1.0
        else:
            category = hand_category(hand, self._kinds)
            if category is not None:
                vec[_CATEGORY + category] = 1.0
        for at, size, traps in zip(self._sizes[seat], obs.hand_sizes, obs.trap_counts):
            vec[at] = size / 5.0
            vec[at + 1] = traps / MAX_TRAPS
        vec[self._active[seat][obs.active_seat]] = 1.0
        if kind is not None:
            vec[_KIND_AT[kind]] = 1.0
        if context:
            from_seat = context.get("from_seat")
            if isinstance(from_seat, int):
                vec[_FROM + (from_seat - seat) % self.players] = 1.0
        total = max(obs.rounds * self.players, 1)
        vec[_PROGRESS] = obs.draw_pile / DECK_SIZE
        vec[_PROGRESS + 1] = obs.round / obs.rounds
        vec[_PROGRESS + 2] = max(total - obs.turn, 0) / total
        if obs.phase == "showdown":
            vec[_PROGRESS + 3] = 1.0
        return np.frombuffer(vec, _FLOAT32)


#: How many options an :class:`ActionIndex` remembers before it starts afresh (the engine's
#: own option dicts number a few hundred; anything beyond is options built on the fly).
_REMEMBERED: Final = 4096


class ActionIndex:
    """:func:`~arena.rl.actions.decision_actions` for a table of ``players`` seats, each
    option's index remembered by the option object's id, per seat asked. The objects are
    kept alive alongside, so an id in the table cannot be another object's."""

    def __init__(self, players: int) -> None:
        self.players = players
        self._known: list[dict[int, int]] = [{} for _ in range(players)]
        self._kept: list[Option] = []

    def __reduce__(self) -> tuple[type[ActionIndex], tuple[int]]:
        # a copy or a pickle starts with an empty memory: ids mean nothing in another
        # process, and a copy's options would not be the objects the ids name
        return ActionIndex, (self.players,)

    def __call__(self, decision: Decision) -> list[int]:
        known = self._known[decision.seat]
        try:
            return [known[id(option)] for option in decision.options]
        except KeyError:
            return self._learn(decision, known)

    def _learn(self, decision: Decision, known: dict[int, int]) -> list[int]:
        if len(self._kept) >= _REMEMBERED:
            for table in self._known:
                table.clear()
            self._kept.clear()
        actions = decision_actions(decision, self.players)
        for option, action in zip(decision.options, actions):
            if id(option) not in known:
                known[id(option)] = action
                self._kept.append(option)
        return actions
