"""Under the house rule ``reclaim=strict``, the cards a seat used for an effect: dead for its
Desmos for the rest of the game (RULES.md, the strict reading, and E35).

The rules have the holder know its dead copies (E35: it gives up the copy it used and keeps
the one that counts), but its observation names no copy, so they are kept here from what the
seat was shown: its own ``effect`` events name the face used, and the observations before
and after tell which of its copies that was (a played copy lands in the Effect Graveyard,
the other stays in hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.engine import NOTATION, Observation
from arena.engine.effects import FIRED_BY_FORCED_DISCARD

__all__ = ["UsedCards"]


class UsedCards:
    """The card ids the seat ``seat`` used this game, kept between its decisions: each sets
    the cards it holds (:meth:`set_from`), and its events say which face it used."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.ids: set[int] = set()
        #: the seat's hand and traps at its last decision, by id
        self.hand: tuple[int, ...] = ()
        self.traps: tuple[int, ...] = ()
        #: by face, the cards held when a card of it left to take effect (played, triggered,
        #: a God discarded): the hand or traps of the decision before
        self.left: dict[str, tuple[int, ...]] = {}
        #: the faces used since the last decision, with the cards they left from
        self.pending: list[tuple[str, tuple[int, ...]]] = []

    def follow(self, event: Mapping[str, Any]) -> None:
        """Note a face ``event`` says the seat used; a new game forgets the last one's."""
        kind = event.get("type")
        if kind == "game_start":
            self.ids, self.hand, self.traps, self.left, self.pending = set(), (), (), {}, []
        elif event.get("seat") != self.seat:
            return
        face = str(event.get("card"))
        if kind == "play" or (kind == "forced_discard" and face in FIRED_BY_FORCED_DISCARD):
            self.left[face] = self.hand
        elif kind == "trap_triggered":
            self.left[face] = self.traps
        elif kind == "effect":
            self.pending.append((face, self.left.pop(face, self.hand)))

    def set_from(self, view: Observation) -> None:
        """Which copies the faces used since the last decision were, then the cards held now."""
        held = (*view.hand_ids, *(card for card, _, _ in view.trap_cards))
        unsettled = []
        for face, before in self.pending:
            copies = [c for c in before if NOTATION[c] == face]
            if len(copies) > 1:  # both copies were held: the one used left, to the graveyard
                gone = [c for c in copies if c not in held]
                copies = gone if len(gone) == 1 else [
                    c for c in gone if c in view.effect_graveyard_ids]
                if not copies:  # both left, the one used not yet in the graveyard: mid-effect
                    unsettled.append((face, before))
            self.ids.update([c for c in copies if c not in self.ids][:1])
        self.pending = unsettled
        self.hand = view.hand_ids
        self.traps = tuple(card for card, _, _ in view.trap_cards)

    def dead(self, view: Observation) -> frozenset[int]:
        """The cards of the seat's hand in ``view`` that do not count in its Desmos."""
        return frozenset(card for card in view.hand_ids if card in self.ids)
