"""The kit's policy knows which effect asks it to choose an opponent by the card the decision
is for (its context's ``source``), not by the engine's words for why it is asked: reworded
in effects.py, a look at a hand went to the strongest known hand instead of the least
known one, and no test failed."""

from __future__ import annotations

import random

import pytest
from effect_asks import ASKER, asked_by, reworded

from arena.engine.cards import NOTATION
from arena.sdk.policy import knowing_choice


@pytest.mark.parametrize(("face", "least_known"), [
    ("Umbrae-1", True), ("Fate-3", True), ("Arcoi-2", True), ("God-1", False),
    ("God-5", False)])
def test_a_look_goes_to_the_least_known_hand_whatever_its_words(face: str,
                                                                least_known: bool) -> None:
    state, asked = asked_by(face)
    decision = reworded(asked)
    known = {1: [NOTATION[card] for card in state.hands[1]], 2: []}
    chosen = knowing_choice(state.observe(ASKER), decision.kind, list(decision.options),
                            dict(decision.context), lambda seat: known.get(seat, []),
                            random.Random(0))
    # seat 2, of whose hand nothing is known, for a look; seat 1's known hand to strike
    assert decision.options[chosen]["seat"] == (2 if least_known else 1)
