"""A card going face down, set as a trap or put on the draw pile (Phoenix; given for a top
card by Athena, Sophoi or a Crown), is named to the other seats exactly when it was revealed
before it moved (RULES.md E23): every seat saw it, so the others' half of the event says
where it went; a hidden card is never named to them."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine_scenario import act, build_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import turn
from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.state import State

OPPONENTS = ["Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
             "Agari-2 Agari-3 Agari-4 Agari-5 Agari-6"]
#: the event of each way a card of the hand goes face down, and its field naming the card
NAMING_FIELD = {"set_trap": "card", "return_to_pile": "card", "pile_exchange": "gave"}
#: the effects whose `give` puts a card of the hand on the draw pile
PILE_SOURCES = ("Beast-5", "God-4", "Sophoi-", "Crown")


def _staged(card: str, revealed: str, **kwargs: Any) -> State:
    """Seat 0 holds ``card``, Sophoi-2..5 with ``revealed`` revealed; its turn is asked."""
    state = build_state([f"{card} Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", *OPPONENTS],
                        start=False, **kwargs)
    state.revealed[0].add(next(c for c in state.hands[0] if NOTATION[c] == revealed))
    state.push(turn.start_turn)
    state.run()
    return state


def _told(state: State, kind: str) -> list[list[dict[str, Any]]]:
    return [[e for e in state.events_for(seat) if e["type"] == kind] for seat in range(3)]


def test_a_revealed_card_set_as_a_trap_is_named_to_the_others() -> None:
    state = _staged("Beast-1", "Sophoi-3")
    act(state, "turn", 0, action="trap", card="Sophoi-3")
    told = _told(state, "set_trap")
    for seat in range(3):
        assert told[seat] == [{"type": "set_trap", "seat": 0, "card": "Sophoi-3", "turn": 0}]
    assert all(not revealed for revealed in state.observe(1).revealed)


def test_a_hidden_card_set_as_a_trap_beside_a_revealed_one_is_not_named() -> None:
    state = _staged("Beast-1", "Sophoi-3")
    act(state, "turn", 0, action="trap", card="Sophoi-4")
    told = _told(state, "set_trap")
    assert told[0] == [{"type": "set_trap", "seat": 0, "card": "Sophoi-4", "turn": 0}]
    for seat in (1, 2):
        assert told[seat] == [{"type": "set_trap", "seat": 0, "turn": 0}]


def test_a_revealed_card_put_back_by_phoenix_is_named_to_the_others() -> None:
    state = _staged("Beast-5", "Sophoi-2", pile_top="God-7 Fate-3")
    act(state, "turn", 0, action="play", card="Beast-5")
    act(state, "give", 0, card="Sophoi-2")
    for seat in range(3):
        assert _told(state, "return_to_pile")[seat] == [
            {"type": "return_to_pile", "seat": 0, "source": "Beast-5", "card": "Sophoi-2",
             "turn": 0}]


def test_a_revealed_card_given_for_a_top_card_is_named_to_the_others() -> None:
    state = _staged("Crown", "Sophoi-5", pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="Crown")
    act(state, "card", 0, card="Fate-1")
    act(state, "give", 0, card="Sophoi-5")
    told = _told(state, "pile_exchange")
    assert told[0] == [{"type": "pile_exchange", "seat": 0, "source": "Crown",
                        "took": "Fate-1", "gave": "Sophoi-5", "turn": 0}]
    for seat in (1, 2):
        assert told[seat] == [{"type": "pile_exchange", "seat": 0, "source": "Crown",
                               "gave": "Sophoi-5", "turn": 0}]


def _moving_face_down(state: State) -> tuple[str, int] | None:
    """The event the pending decision's choices make and the seat it is of, when each choice
    sends a card of the hand face down (a trap set, a card given to the draw pile)."""
    decision = state.decision
    assert decision is not None
    if decision.kind == "give" and str(decision.context.get("source")).startswith(
            PILE_SOURCES):
        kind = "return_to_pile" if decision.context["source"] == "Beast-5" else "pile_exchange"
        return kind, decision.seat
    return None


def _steered(state: State, rng: random.Random) -> int:
    """A random choice, leaning towards revealing cards and sending revealed ones face down."""
    decision = state.decision
    assert decision is not None
    options = decision.options
    revealed = {NOTATION[c] for c in state.revealed[decision.seat]}
    lean = [i for i, option in enumerate(options)
            if option.get("action") == "trap" and option.get("card") in revealed
            or decision.kind == "turn" and str(option.get("card")).startswith(
                ("Arcoi-", "Fate-3", "Beast-5", "God-4", "Sophoi-", "Crown"))
            or decision.kind == "give" and option.get("card") in revealed]
    if lean and rng.random() < 0.7:
        return rng.choice(lean)
    return rng.randrange(len(options))


def _check_game(seed: int, players: int) -> Counter[str]:
    """Play a steered game; at each card sent face down, the others' half names it exactly
    when it was revealed. Returns how many of each kind were met, named or not."""
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players))
    rng = random.Random(seed)
    met: Counter[str] = Counter()
    while state.decision is not None:
        index = _steered(state, rng)
        payload = state._payloads[index]
        option = state.decision.options[index]
        moving = _moving_face_down(state)
        if option.get("action") == "trap":
            moving = "set_trap", state.decision.seat
        # the card the choice sends (a trap's payload is its card offset past the deck)
        card = payload - turn._SET_TRAP if option.get("action") == "trap" else payload
        was_revealed = moving is not None and card in state.revealed[moving[1]]
        logged = len(state.log)
        state.apply(index)
        if moving is None:
            continue
        kind, seat = moving
        field = NAMING_FIELD[kind]
        halves = [(to, e) for to, e in state.log[logged:] if e["type"] == kind]
        (to, private), (others, public) = halves[:2]
        assert (to, others) == (seat, ~seat), halves
        assert private[field] == option["card"]
        if was_revealed:
            assert public.get(field) == option["card"], (public, option)
        else:
            assert field not in public, (public, option)
        met[f"{kind} {'revealed' if was_revealed else 'hidden'}"] += 1
    return met


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_a_card_going_face_down_is_named_to_the_others_only_if_it_was_revealed(
        seed: int, players: int) -> None:
    _check_game(seed, players)


def test_the_steered_games_send_revealed_and_hidden_cards_face_down_every_way() -> None:
    met: Counter[str] = Counter()
    for seed in range(30):
        met += _check_game(seed, 2 + seed % 4)
    for kind in NAMING_FIELD:
        assert met[f"{kind} revealed"] and met[f"{kind} hidden"], met
