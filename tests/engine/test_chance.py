"""Chance: the engine's shuffle is random.Random.shuffle, draw for draw, so a seed deals the
same game whichever shuffle ran (and records made before it replay unchanged)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from arena.engine.chance import shuffle


@given(seed=st.integers(min_value=0, max_value=2**64), size=st.integers(min_value=0, max_value=80))
def test_shuffle_is_the_standard_shuffle(seed: int, size: int) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    cards, expected = list(range(size)), list(range(size))
    shuffle(ours, cards)
    theirs.shuffle(expected)
    assert cards == expected
    assert ours.getstate() == theirs.getstate()  # the generator moved on identically


def test_shuffle_keeps_every_card() -> None:
    rng = random.Random(7)
    for size in range(60):
        cards = list(range(size))
        shuffle(rng, cards)
        assert sorted(cards) == list(range(size))
