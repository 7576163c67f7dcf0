"""Each hand's size and revealed cards as a seat's events tell them: always those its
observation shows."""

from __future__ import annotations

import random

import pytest

from arena.engine import GameConfig, new_game
from arena.engine.houserules import HouseRules
from arena.play.hidden_cards import HiddenCards


@pytest.mark.parametrize("seed", range(30))
def test_the_hands_kept_from_a_seats_events_are_those_its_observation_shows(
        seed: int) -> None:
    players = 2 + seed % 4
    rules = HouseRules.from_json({"dealt_palaestron": "redeal"} if seed % 3 == 2 else
                                 {"reclaim": "strict"} if seed % 3 == 1 else {})
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players, rules=rules))
    rng = random.Random(seed)
    hands = [HiddenCards(seat) for seat in range(players)]
    told = [0] * players
    steps = 0
    while True:
        for seat in range(players):
            events = state.events_for(seat, told[seat])
            told[seat] += len(events)
            for event in events:
                hands[seat].follow(event)
            if not state.is_over:
                view = state.observe(seat)
                assert hands[seat].sizes == list(view.hand_sizes), (seed, seat, steps)
                for other, cards in enumerate(view.revealed):
                    if other not in hands[seat].unsure:
                        assert sorted(hands[seat].revealed[other]) == sorted(cards), (
                            seed, seat, steps)
                        assert hands[seat].hidden(other) == view.hand_sizes[other] - len(cards)
                assert sorted(hands[seat].mine) == sorted(view.hand), (seed, seat, steps)
        if state.is_over:
            break
        state.apply(rng.randrange(len(state.decision.options)))
        steps += 1
