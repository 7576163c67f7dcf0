"""Why a card's effect comes to nothing, on grounds every seat can see.

An effect that finds nothing to act on ends without an event of its own (Hades with an empty
Discard Graveyard, Basilisk with no opponent's trap, Atropos with every opponent's hand
revealed), so a person read only "God-2 takes effect for alice" and then silence. The reasons
here are public: the Discard Graveyard's size, each Arena's trap count and each hand's size
and revealed cards, which every seat is shown. An effect that comes to nothing by a
choice (a pass) is not explained: another seat's choice is its own.

What each effect needs to do anything is the engine's fact, its row's ``Effect.needs`` (tested
against its resolver); only the words that tell a person it is missing are here. An effect
that looks at the draw pile needs nothing: the pile is rebuilt from both graveyards the moment
it empties (RULES.md E4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.engine import EFFECTS, Observation
from arena.engine.effects import FIRED_BY_FORCED_DISCARD, Need
from arena.play.hidden_cards import HiddenCards

__all__ = ["PublicCounts", "idle_notes", "reveal_targets", "why_idle"]

#: What a person reads when an effect finds none of its needs (the engine's ``Effect.needs``):
#: the words after the effect is told, and the short note on an option.
_LACKING: Mapping[tuple[Need, ...], tuple[str, str]] = {
    (Need.DISCARD_GRAVEYARD_CARD,): ("the Discard Graveyard is empty: nothing to take",
                                     "nothing in the graveyard to take"),
    (Need.OPPONENT_TRAP,): ("no opponent has a trap: nothing to look at",
                            "no opponent has a trap"),
    # a reveal shows a card not yet revealed (E16)
    (Need.OPPONENT_HIDDEN_CARD,): ("every opponent's hand is revealed already: nothing left "
                                   "to reveal", "every opponent's hand is revealed"),
    (Need.OPPONENT_TRAP, Need.OPPONENT_HIDDEN_CARD): (
        "no opponent has a trap, and every opponent's hand is revealed already: nothing to "
        "destroy or reveal", "no trap to destroy, every opponent's hand revealed"),
}
#: The words of a card that moves the graveyard's card rather than taking it (Griffin).
_LACKING_OF_FACE: Mapping[str, tuple[str, str]] = {
    "Beast-4": ("the Discard Graveyard is empty: no card goes on the pile",
                "nothing in the graveyard to move"),
}


def why_idle(face: str, graveyard: int, opponents_traps: int,
             opponents_hidden: int | None = None) -> tuple[str, str] | None:
    """Why ``face``'s effect comes to nothing with ``graveyard`` cards in the Discard
    Graveyard, ``opponents_traps`` traps in its player's opponents' Arenas and
    ``opponents_hidden`` hidden cards in their hands (None: not known): the words after the
    effect is told, and the short note on an option; None when it does something."""
    effect = EFFECTS.get(face)
    if effect is None or not effect.needs:
        return None
    found = {Need.DISCARD_GRAVEYARD_CARD: graveyard, Need.OPPONENT_TRAP: opponents_traps,
             Need.OPPONENT_HIDDEN_CARD: opponents_hidden}
    if any(found[need] != 0 for need in effect.needs):  # not known: it may act
        return None
    return _LACKING_OF_FACE.get(face) or _LACKING[effect.needs]


def idle_notes(view: Observation) -> dict[str, str]:
    """The note of every card whose effect would come to nothing if the seat of ``view``
    played it now, by face."""
    traps = sum(count for seat, count in enumerate(view.trap_counts) if seat != view.seat)
    hidden = sum(size - len(view.revealed_ids[seat])
                 for seat, size in enumerate(view.hand_sizes) if seat != view.seat)
    notes: dict[str, str] = {}
    for face in EFFECTS:
        reason = why_idle(face, len(view.discard_graveyard_ids), traps, hidden)
        if reason is not None:
            notes[face] = reason[1]
    return notes



def reveal_targets(view: Observation) -> dict[int, str]:
    """The note of every opponent a reveal would show nothing of now (its hand is all
    revealed), by seat: where the seat of ``view`` chooses who reveals a card."""
    return {seat: "their hand is all revealed: nothing to reveal"
            for seat, size in enumerate(view.hand_sizes)
            if seat != view.seat and size == len(view.revealed_ids[seat])}


class PublicCounts:
    """The Discard Graveyard's size, each Arena's trap count and each hand's hidden cards as
    the events of seat ``seat`` tell them, kept between its decisions (each of which sets
    them from its observation)."""

    def __init__(self, seat: int = 0) -> None:
        self.graveyard = 0
        self.traps: list[int] = []
        self.hands = HiddenCards(seat)

    def set_from(self, view: Observation) -> None:
        """The counts the seat is shown at a decision."""
        self.graveyard = len(view.discard_graveyard_ids)
        self.traps = list(view.trap_counts)
        self.hands.set_from(view)

    def opponents_hidden(self, seat: int) -> int | None:
        """The hidden cards in every hand but ``seat``'s (None: not known)."""
        counts = [self.hands.hidden(other) for other in range(len(self.hands.sizes))
                  if other != seat]
        return None if None in counts else sum(c for c in counts if c is not None)

    def opponents_traps(self, seat: int) -> int:
        """The traps in every Arena but ``seat``'s."""
        return sum(count for other, count in enumerate(self.traps) if other != seat)

    def follow(self, event: Mapping[str, Any]) -> None:
        """Count what ``event`` moved into or out of the Discard Graveyard and the Arenas."""
        self.hands.follow(event)
        kind = str(event.get("type"))
        seat = event.get("seat")
        if kind == "game_start":
            self.graveyard = 0
            self.traps = [0] * len(event.get("players", []))
        elif kind == "reshuffle":  # both graveyards become the new pile
            self.graveyard = 0
        elif kind in ("discard", "burn") or (
                kind == "forced_discard" and event.get("card") not in FIRED_BY_FORCED_DISCARD):
            self.graveyard += 1  # a card that fires goes to the Effect Graveyard
        elif kind == "updraft":
            self.graveyard -= 1
        elif kind in ("trap_destroyed", "trap_cleared", "trap_expired"):
            self.graveyard += 1
            self._trap(seat, -1)
        elif kind == "trap_triggered":
            self._trap(seat, -1)
        elif kind == "set_trap":
            self._trap(seat, 1)

    def _trap(self, seat: Any, change: int) -> None:
        if isinstance(seat, int) and 0 <= seat < len(self.traps):
            self.traps[seat] = max(0, self.traps[seat] + change)

    def note(self, event: Mapping[str, Any]) -> str | None:
        """Why the effect ``event`` tells comes to nothing, if it does on public grounds."""
        seat = event.get("seat")
        if event.get("type") != "effect" or not isinstance(seat, int):
            return None
        reason = why_idle(str(event.get("card")), self.graveyard, self.opponents_traps(seat),
                          self.opponents_hidden(seat))
        return None if reason is None else reason[0]
