"""Sampled states for search (arena.engine.determinize): consistent with one seat's view."""

from __future__ import annotations

import random

import pytest

from arena.engine import GameConfig, new_game
from arena.engine.cards import CARD_IDS, Card
from arena.engine.desmos import evaluate_family
from arena.engine.determinize import sample_state
from arena.engine.houserules import HouseRules


def test_trap_ages_survive_a_newer_trap_leaving_first() -> None:
    """When each trap was set is public; after the newer of two traps leaves (triggered or
    sniped by its slot), the older one keeps its age in every sampled state."""
    checked = 0
    for seed in range(400):
        state = new_game(GameConfig(players=("a", "b", "c"), seed=seed))
        rng = random.Random(seed)
        newer_left = False
        while state.decision is not None:
            decision = state.decision
            if newer_left and decision.kind == "turn":
                seat = decision.seat
                for other in range(state.n):
                    if other == seat:
                        continue
                    sample = sample_state(state.observe(seat), seed, "turn")
                    assert [(t.set_turn, t.owner_turns) for t in sample.traps[other]] == \
                        [(t.set_turn, t.owner_turns) for t in state.traps[other]]
                checked += 1
                newer_left = False
            before = [list(traps) for traps in state.traps]
            state.apply(rng.randrange(len(decision.options)))
            for owner, traps in enumerate(before):
                if len(traps) == 2 and traps[0] in state.traps[owner] \
                        and traps[1] not in state.traps[owner]:
                    newer_left = True
    assert checked >= 5, checked


def test_only_the_active_seat_can_be_sampled_at_its_decision() -> None:
    state = new_game(GameConfig(players=("a", "b"), seed=1))
    while state.decision is not None and state.decision.kind != "turn":
        state.apply(0)
    assert state.decision is not None
    other = 1 - state.decision.seat
    with pytest.raises(ValueError, match=rf"this observation is seat {other}'s"):
        sample_state(state.observe(other), 1, "turn")


def test_a_sampled_state_plays_on_under_the_games_house_rules() -> None:
    """Under kinds=family a Class pair is a pair and a sampled game must value it so; under
    trap_windows=turn_and_play it must not open windows the real game never opens."""
    rules = HouseRules(kinds="family", trap_windows="turn_and_play")
    state = new_game(GameConfig(players=("a", "b"), seed=5, rules=rules))
    while state.decision is not None and state.decision.kind != "turn":
        state.apply(0)
    assert state.decision is not None
    sample = sample_state(state.observe(state.decision.seat), 5, "turn", rules)
    assert sample.config.rules == rules
    hand = [CARD_IDS[Card.parse(text)][0]
            for text in ("Agari-1", "Umbrae-2", "Fate-1", "Beast-1", "God-1")]
    assert sample.evaluate(hand) == state.evaluate(hand) == evaluate_family(hand)
    assert not sample.all_windows
    # without them, the defaults
    assert sample_state(state.observe(state.decision.seat), 5).config.rules == HouseRules()
