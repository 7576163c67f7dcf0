"""What the kit's :class:`Tracker` keeps of the draw pile from public moves: a card that
Griffin lifts from the Discard Graveyard is known on top of the pile, and a search view
knows it in the hand of the seat that draws it, rather than among the cards it cannot place."""

from __future__ import annotations

from arena.engine import determinize
from arena.engine.cards import DECK_SIZE, NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.rulebook import HAND_SIZE
from arena.engine.state import State
from arena.sdk.search import SearchView, Tracker


def test_a_card_lifted_onto_the_pile_is_known_on_its_top() -> None:
    tracker = Tracker()
    tracker.reset(0)
    for event in ({"type": "game_start", "players": ["a", "b"]},
                  {"type": "updraft", "seat": 1, "card": "God-1"}):
        tracker.add(event)
    pile = tracker.pile
    assert pile is not None and len(pile) == DECK_SIZE - 2 * HAND_SIZE + 1
    assert pile[-1] == "God-1" and pile.count(None) == len(pile) - 1


def _unseen_by_observation(state: State) -> list[str]:
    """The cards seat 0's observation alone cannot place (its events left out)."""
    return [NOTATION[card] for card in determinize.unseen_cards(state.observe(0))]


def _after_an_updraft(seed: int) -> tuple[State, str] | None:
    """A game played by first options, Griffin whenever it can be played, up to seat 0's
    first decision after seat 1 lifted a card (then drew it: the top card, unseen by seat 0)."""
    state = new_game(GameConfig(players=("a", "b"), seed=seed))
    while state.decision is not None:
        lifted = [event for event in state.events_for(0)
                  if event["type"] == "updraft" and event["seat"] == 1]
        if lifted and state.decision.seat == 0:
            return state, lifted[-1]["card"]
        griffin = [i for i, option in enumerate(state.decision.options)
                   if option.get("action") == "play" and option.get("card") == "Beast-4"]
        state.apply(griffin[0] if griffin else 0)
    return None


def test_a_lifted_card_another_seat_draws_is_known_in_its_hand() -> None:
    found = next(found for seed in range(100) if (found := _after_an_updraft(seed)) is not None)
    state, card = found
    assert card in [NOTATION[c] for c in state.hands[1]]  # the test reads the game right
    decision = state.decision
    assert decision is not None
    view = SearchView(state.observe_json(0), state.events_for(0), decision.kind,
                      decision.options, context=decision.context)
    assert card in view.known_hand(1)
    assert view.unseen_cards().count(card) == _unseen_by_observation(state).count(card) - 1

