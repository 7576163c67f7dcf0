"""What a decision an effect asks says of itself (``Decision.context``): the card whose effect
asks (``source``) and the other seat the choice is about (``from_seat``: whose hand a card is
taken from, who receives a card given, whose effect makes a seat discard or reveal). Nothing
in the options tells them: at a Nemesis sprung from a trap, the seat that receives a card is
neither the seat asked nor the active seat."""

from __future__ import annotations

from typing import Any

import pytest
from engine_scenario import act, build_state

from arena.engine.state import State

OPPONENTS = ["Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
             "Agari-2 Agari-3 Agari-4 Agari-5 Agari-6"]
PILE = "Fate-1 Fate-2 Fate-4 Beast-1"


def _played(card: str) -> State:
    state = build_state([f"{card} Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", *OPPONENTS],
                        pile_top=PILE)
    act(state, "turn", 0, action="play", card=card)
    return state


def _sprung(card: str) -> State:
    """Seat 1 springs ``card`` from its trap at the start of seat 0's turn."""
    state = build_state(["Beast-2 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", *OPPONENTS],
                        traps={1: [card]}, pile_top=PILE)
    act(state, "trigger", 1, trap=card)
    return state


def _nemesis_played_target_gives() -> State:
    state = _played("Fate-5")
    act(state, "target", 0, seat=1)
    return state


def _nemesis_played_returns() -> State:
    state = _nemesis_played_target_gives()
    act(state, "give", 1, card="Umbrae-2")
    return state


def _nemesis_sprung_target_gives() -> State:
    state = _sprung("Fate-5")
    act(state, "target", 1, seat=2)
    return state


def _nemesis_sprung_returns() -> State:
    state = _nemesis_sprung_target_gives()
    act(state, "give", 2, card="Agari-3")
    return state


def _hermes_gives() -> State:
    state = _played("God-1")
    act(state, "target", 0, seat=2)
    act(state, "card", 0, card="Agari-4")
    return state


def _raid_discards() -> State:
    state = _sprung("Agari-1")
    act(state, "target", 1, seat=2)
    return state


def _zeus_discards() -> State:
    state = _played("God-7")
    act(state, "target", 0, seat=1)
    return state


def _cut_reveals() -> State:
    state = _sprung("Fate-3")
    act(state, "target", 1, seat=0)
    return state


def _arcoi_reveals() -> State:
    state = _played("Arcoi-1")
    act(state, "target", 0, seat=2)
    return state


#: (the decision reached, who is asked, its kind, its source, its from_seat)
TABLE: list[tuple[Any, int, str, str, int]] = [
    (_nemesis_played_target_gives, 1, "give", "Fate-5", 0),
    (_nemesis_played_returns, 0, "give", "Fate-5", 1),
    (_nemesis_sprung_target_gives, 2, "give", "Fate-5", 1),
    (_nemesis_sprung_returns, 1, "give", "Fate-5", 2),
    (_hermes_gives, 0, "give", "God-1", 2),
    (lambda: _played("God-3"), 1, "discard", "God-3", 0),
    (_zeus_discards, 1, "discard", "God-7", 0),
    (_raid_discards, 2, "discard", "Agari-1", 1),
    (_cut_reveals, 0, "reveal", "Fate-3", 1),
    (_arcoi_reveals, 2, "reveal", "Arcoi-1", 0),
]


@pytest.mark.parametrize(("reach", "seat", "kind", "source", "from_seat"), TABLE,
                         ids=[row[0].__name__.strip("_") if row[0].__name__ != "<lambda>"
                              else "poseidon_discards" for row in TABLE])
def test_a_decision_asked_about_another_seat_names_the_card_and_that_seat(
        reach: Any, seat: int, kind: str, source: str, from_seat: int) -> None:
    state = reach()
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (seat, kind)
    assert decision.context["source"] == source
    assert decision.context["from_seat"] == from_seat


def _pass_triggers(state: State) -> None:
    while state.decision is not None and state.decision.kind == "trigger":
        act(state, "trigger", trap=None)


@pytest.mark.parametrize("card", ["God-1", "God-5", "God-6", "God-7", "Agari-1", "Umbrae-6",
                                  "Arcoi-1", "Fate-3", "Fate-5", "Beast-3"])
def test_every_choice_of_an_effect_names_its_card(card: str) -> None:
    """The first choice each effect asks (a target, a card) names the card, as its forced
    discards and reveals always did."""
    state = build_state([f"{card} Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", *OPPONENTS],
                        pile_top=PILE, traps={1: ["Beast-1"], 2: ["Beast-4"]})
    _pass_triggers(state)
    act(state, "turn", 0, action="play", card=card)
    _pass_triggers(state)
    decision = state.decision
    assert decision is not None and decision.kind != "swap"
    assert decision.context["source"] == card


def test_the_palaestrons_steps_name_it_and_no_seat() -> None:
    state = build_state(["Beast-2 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", *OPPONENTS],
                        pile_top="Palaestron Fate-1 Fate-2 Fate-3 Fate-4")
    act(state, "turn", 0, action="play", card="Beast-2")
    decision = state.decision
    assert decision is not None and decision.kind == "discard"
    assert decision.context == {"why": "forced discard", "source": "Palaestron"}
