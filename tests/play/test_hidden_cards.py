"""Each hand's size and revealed cards as a seat's events tell them: always those its
observation shows."""

from __future__ import annotations

import pytest
from play_script import news_each_step, random_table

from arena.engine.houserules import HouseRules
from arena.play.hidden_cards import HiddenCards


@pytest.mark.parametrize("seed", range(30))
def test_the_hands_kept_from_a_seats_events_are_those_its_observation_shows(
        seed: int) -> None:
    rules = HouseRules.from_json({"dealt_palaestron": "redeal"} if seed % 3 == 2 else
                                 {"reclaim": "strict"} if seed % 3 == 1 else {})
    state = random_table(2 + seed % 4, seed, rules)
    hands = [HiddenCards(seat) for seat in range(state.n)]
    for step, news in enumerate(news_each_step(state, seed)):
        for seat, events in enumerate(news):
            for event in events:
                hands[seat].follow(event)
            if state.is_over:
                continue
            view = state.observe(seat)
            assert hands[seat].sizes == list(view.hand_sizes), (seed, seat, step)
            for other, cards in enumerate(view.revealed):
                if other not in hands[seat].unsure:
                    assert sorted(hands[seat].revealed[other]) == sorted(cards), (seed, step)
                    assert hands[seat].hidden(other) == view.hand_sizes[other] - len(cards)
            assert sorted(hands[seat].mine) == sorted(view.hand), (seed, seat, step)
