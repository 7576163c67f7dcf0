"""The counts behind "why an effect came to nothing": always those the seat is shown."""

from __future__ import annotations

import random

import pytest

from arena.engine import GameConfig, new_game
from arena.play.idle_effects import PublicCounts, why_idle


@pytest.mark.parametrize("seed", range(24))
def test_the_counts_kept_from_a_seats_events_are_those_its_observation_shows(
        seed: int) -> None:
    players = 2 + seed % 4
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players))
    rng = random.Random(seed)
    counts = [PublicCounts() for _ in range(players)]
    told = [0] * players
    steps = 0
    while True:
        for seat in range(players):
            events = state.events_for(seat, told[seat])
            told[seat] += len(events)
            for event in events:
                counts[seat].follow(event)
            if not state.is_over:
                view = state.observe(seat)
                assert (counts[seat].graveyard, counts[seat].traps) == (
                    len(view.discard_graveyard_ids), list(view.trap_counts)), steps
        if state.is_over:
            break
        state.apply(rng.randrange(len(state.decision.options)))
        steps += 1


def test_only_an_effect_with_nothing_to_act_on_is_explained() -> None:
    assert why_idle("God-2", 0, 3) is not None
    assert why_idle("God-2", 1, 0) is None
    assert why_idle("Beast-3", 0, 0) is not None
    assert why_idle("Beast-3", 0, 1) is None
    assert why_idle("God-3", 0, 0) is None
