"""How many hidden cards each hand holds, as one seat's events tell it between its decisions:
each hand's size and its revealed cards (public), and the seat's own hand card by card.

A card leaving a hand face up (played, discarded) is its revealed copy where it has one; a
card going where the others cannot see it (a trap, the pile, another hand) is a hidden copy,
and is named to the others only when it was revealed (RULES.md E20, E23). A card arriving in
a hand is hidden there. A card given to this seat (or taken by it) is named to it whether it
was revealed or not: where its giver had it revealed and may have held a hidden copy too,
that hand's hidden cards are not known until the seat's next decision shows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.engine import Observation

__all__ = ["HiddenCards"]

#: Events that take a card out of the hand of their ``seat`` face up: the key naming it.
_FACE_UP_OUT = {"play": "card", "discard": "card", "forced_discard": "card",
                "graveyard_exchange": "gave"}
#: Events that take a card of their ``seat`` where the others cannot see it: the key naming
#: it (to the others only when it was revealed).
_HIDDEN_OUT = {"set_trap": "card", "return_to_pile": "card", "pile_exchange": "gave"}
#: Events that bring a card into the hand of their ``seat``: the key naming it (to it).
_IN = {"draw": "card", "graveyard_exchange": "took", "pile_exchange": "took"}


class HiddenCards:
    """Per seat, its hand's size and revealed cards; the own seat's hand by card."""

    def __init__(self, me: int) -> None:
        self.me = me
        self.sizes: list[int] = []
        self.revealed: list[list[str]] = []
        self.mine: list[str] = []
        #: the seats whose hidden cards are not known since the last decision
        self.unsure: set[int] = set()
        #: whether a turn has begun: a Palaestron before one was dealt, and leaves a hand
        self.started = False

    def hidden(self, seat: int) -> int | None:
        """The hidden cards in ``seat``'s hand; None when not known."""
        if seat in self.unsure or not 0 <= seat < len(self.sizes):
            return None
        return self.sizes[seat] - len(self.revealed[seat])

    def set_from(self, view: Observation) -> None:
        """The hands as the seat is shown them at a decision."""
        self.sizes = list(view.hand_sizes)
        self.revealed = [list(cards) for cards in view.revealed]
        self.mine = list(view.hand)
        self.unsure = set()

    def follow(self, event: Mapping[str, Any]) -> None:
        """Move the cards ``event`` moves in or out of a hand, or reveals."""
        kind = str(event.get("type"))
        seat = event.get("seat")
        if kind == "game_start":
            players = len(event.get("players", []))
            self.sizes, self.revealed, self.mine = [5] * players, [[] for _ in range(players)], []
            self.started, self.unsure = False, set()
            return
        if not isinstance(seat, int) or not 0 <= seat < len(self.sizes):
            return
        self._follow(kind, seat, event)

    def _follow(self, kind: str, seat: int, event: Mapping[str, Any]) -> None:
        target = event.get("target")
        if kind == "turn_start":
            self.started = True
        elif kind == "deal" and seat == self.me:
            self.mine = [str(card) for card in event.get("cards", [])]
        elif kind == "palaestron" and not self.started:  # the dealt one leaves the hand
            self._out(seat, "Palaestron", face_up=True)
        elif kind == "reveal":
            self.revealed[seat].append(str(event.get("card")))
        elif kind == "reveal_hand":
            self.revealed[seat] = [str(card) for card in event.get("cards", [])]
        elif kind in ("give", "exchange") and isinstance(target, int) \
                and 0 <= target < len(self.sizes):
            whole = self.me in (seat, target)  # told the cards whether revealed or not
            gave = event.get("card" if kind == "give" else "gave")
            self._out(seat, gave, face_up=False, whole=whole)
            self._in(target, gave)
            if kind == "exchange":
                took = event.get("took")
                self._out(target, took, face_up=False, whole=whole)
                self._in(seat, took)
            return
        if kind in _FACE_UP_OUT:
            self._out(seat, event.get(_FACE_UP_OUT[kind]), face_up=True)
        elif kind in _HIDDEN_OUT:
            self._out(seat, event.get(_HIDDEN_OUT[kind]), face_up=False)
        if kind in _IN:
            self._in(seat, event.get(_IN[kind]))

    def _out(self, seat: int, card: Any, face_up: bool, whole: bool = False) -> None:
        self.sizes[seat] -= 1
        revealed = self.revealed[seat]
        if seat == self.me and isinstance(card, str):
            hidden_copy = self.mine.count(card) > revealed.count(card)
            if card in self.mine:
                self.mine.remove(card)
            moved_revealed = card in revealed and (face_up or not hidden_copy)
        else:  # named to the others going face down only when it was revealed
            moved_revealed = isinstance(card, str) and card in revealed
            if moved_revealed and whole and not face_up:  # or a hidden copy of it went
                self.unsure.add(seat)
        if moved_revealed:
            revealed.remove(card)

    def _in(self, seat: int, card: Any) -> None:
        self.sizes[seat] += 1
        if seat == self.me and isinstance(card, str):
            self.mine.append(card)
