"""One seat's view of a game: everything it may know, nothing it may not.

An observation holds the seat's own hand and traps, the public state (hand and trap counts,
revealed cards, both graveyards, the draw pile's size, round and turn) and the seat's own
event feed. It never holds another seat's hidden card: the hidden cards a seat has seen
(peeks, exchanges) reach it only through its private events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine.cards import NOTATION
from arena.engine.state import State

__all__ = ["Observation"]


@dataclass(frozen=True, slots=True)
class Observation:
    """A frozen snapshot for one seat; card lists are in notation (``"God-3"``)."""

    seat: int
    players: tuple[str, ...]
    round: int
    rounds: int
    turn: int
    active_seat: int
    phase: str
    hand_ids: tuple[int, ...]
    trap_cards: tuple[tuple[int, int, bool], ...]  # (card id, own turns left, triggerable)
    hand_sizes: tuple[int, ...]
    trap_counts: tuple[int, ...]
    revealed_ids: tuple[tuple[int, ...], ...]
    effect_graveyard_ids: tuple[int, ...]
    discard_graveyard_ids: tuple[int, ...]
    draw_pile: int
    _feed: list[dict[str, Any]]
    _feed_len: int

    @classmethod
    def of(cls, state: State, seat: int) -> Observation:
        turns_done = state.own_turns[seat]
        return cls(
            seat,
            state.players,
            state.round,
            state.rounds,
            state.turn,
            state.active,
            state.phase,
            tuple(state.hands[seat]),
            tuple((t.card, 3 - (turns_done - t.owner_turns), t.set_turn < state.turn)
                  for t in state.traps[seat]),
            tuple(len(h) for h in state.hands),
            tuple(len(t) for t in state.traps),
            tuple(tuple(r) for r in state.revealed),
            tuple(state.effect_graveyard),
            tuple(state.discard_graveyard),
            len(state.draw_pile),
            state.feeds[seat],
            len(state.feeds[seat]),
        )

    # -- notation views -------------------------------------------------------------
    @property
    def hand(self) -> list[str]:
        return [NOTATION[c] for c in self.hand_ids]

    @property
    def traps(self) -> list[dict[str, Any]]:
        return [{"card": NOTATION[c], "turns_left": left, "triggerable": ready}
                for c, left, ready in self.trap_cards]

    @property
    def revealed(self) -> list[list[str]]:
        return [[NOTATION[c] for c in cards] for cards in self.revealed_ids]

    @property
    def effect_graveyard(self) -> list[str]:
        return [NOTATION[c] for c in self.effect_graveyard_ids]

    @property
    def discard_graveyard(self) -> list[str]:
        return [NOTATION[c] for c in self.discard_graveyard_ids]

    @property
    def events(self) -> list[dict[str, Any]]:
        """The seat's own event feed up to this observation."""
        return self._feed[: self._feed_len]

    def to_json(self, include_events: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "seat": self.seat,
            "players": list(self.players),
            "round": self.round,
            "rounds": self.rounds,
            "turn": self.turn,
            "active_seat": self.active_seat,
            "phase": self.phase,
            "hand": self.hand,
            "traps": self.traps,
            "hand_sizes": list(self.hand_sizes),
            "trap_counts": list(self.trap_counts),
            "revealed": self.revealed,
            "effect_graveyard": self.effect_graveyard,
            "discard_graveyard": self.discard_graveyard,
            "draw_pile": self.draw_pile,
        }
        if include_events:
            data["events"] = self.events
        return data
