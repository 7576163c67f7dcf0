"""A card's effect resolved in a fresh game up to its first decision, as the engine asks it:
tests of what reads a decision (``arena play``'s screen, the kit's policy) take the engine's
own decision, whose words are the engine's of the day, not a copy of them."""

from __future__ import annotations

from arena.engine import GameConfig, new_game
from arena.engine.cards import card_id
from arena.engine.decision import Decision
from arena.engine.effects import push_effect
from arena.engine.state import State

#: The seat whose effect asks, in the game :func:`asked_by` deals.
ASKER = 0
PLAYERS = ("alice", "bob", "carol")


def asked_by(face: str) -> tuple[State, Decision]:
    """The game and the first decision ``face``'s effect asks seat :data:`ASKER`, at the
    game's start (no trap set yet)."""
    state = new_game(GameConfig(players=PLAYERS, seed=4, starting_seat=ASKER))
    state.decision = None
    push_effect(state, card_id(face), ASKER, "played")
    state.run()
    assert state.decision is not None and state.decision.seat == ASKER
    return state, state.decision


def reworded(decision: Decision) -> Decision:
    """``decision`` with other words for why it is asked, as effects.py may come to say."""
    return Decision(decision.seat, decision.kind, decision.options,
                    {**decision.context, "why": "choose an opponent"})
