"""A game staged to end by the Ascension at its first move, for the tests of what each seat
is told at such an end (RULES.md E31): no hand but the ascender's is shown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine import GameConfig, State, new_game
from arena.engine.cards import KIND_OF, NOTATION, Kind
from arena.engine.turn import ask_turn_action


def ascending_at_once(config: GameConfig) -> State:
    """A new game whose first player holds four Gods, the fifth on top of the draw pile:
    its first trap (:func:`trap_a_non_god`) draws it, an Ascension before anyone else plays."""
    state = new_game(config)
    assert state.decision is not None and state.decision.kind == "turn"
    seat = state.decision.seat
    gods = [card for card in range(len(NOTATION)) if KIND_OF[card] == Kind.GOD]
    zones = [*state.hands, state.draw_pile]
    slots = [(seat, i) for i in range(4)] + [(len(zones) - 1, len(state.draw_pile) - 1)]
    for god, (zone, at) in zip(gods, slots, strict=False):
        held = next((z, zones[z].index(god)) for z in range(len(zones)) if god in zones[z])
        zones[zone][at], zones[held[0]][held[1]] = god, zones[zone][at]
    assert all(KIND_OF[c] != Kind.PALAESTRON for c in state.hands[seat])
    state.decision = None  # asked again, of the hand it now holds
    state.push(ask_turn_action)
    state.run()
    return state


def trap_a_non_god(options: Sequence[dict[str, Any]]) -> int:
    """The option that sets the hand's one card that is no God as a trap (else 0)."""
    return next((i for i, option in enumerate(options) if option.get("action") == "trap"
                 and not str(option.get("card")).startswith("God")), 0)
