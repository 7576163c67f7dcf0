"""The other seats' traps as one seat knows them: face down, but a card set as a trap while it
was revealed is named to every seat (RULES.md E23), and a Basilisk shows its player the
traps it looks at. Kept by slot from the seat's own events, as each trap leaves by its slot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["KnownTraps"]

#: The events that take a trap out of an Arena, each naming its slot.
_LEAVING = ("trap_triggered", "trap_destroyed", "trap_expired", "trap_cleared")


class KnownTraps:
    """Per seat, its traps in slot order: the card where this seat knows it, else None."""

    def __init__(self) -> None:
        self.slots: list[list[str | None]] = []

    def follow(self, event: Mapping[str, Any]) -> None:
        """Place, name or take away the trap ``event`` tells of."""
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "game_start":
            self.slots = [[] for _ in event.get("players", [])]
        elif kind == "peek_traps" and "cards" in event:  # a Basilisk's, told to its player
            self._set(event.get("target"), [str(card) for card in event["cards"]])
        elif not isinstance(seat, int) or not 0 <= seat < len(self.slots):
            return
        elif kind == "set_trap":
            card = event.get("card")
            self.slots[seat].append(None if card is None else str(card))
        elif kind in _LEAVING:
            slot = event.get("slot", 0)
            if isinstance(slot, int) and 0 <= slot < len(self.slots[seat]):
                self.slots[seat].pop(slot)

    def _set(self, seat: Any, cards: list[str]) -> None:
        if isinstance(seat, int) and 0 <= seat < len(self.slots):
            self.slots[seat] = list(cards)

    def of(self, seat: int, count: int) -> Sequence[str | None]:
        """The ``count`` traps of ``seat`` (its observation's count), each known or None."""
        known = self.slots[seat] if 0 <= seat < len(self.slots) else []
        return known if len(known) == count else [None] * count
