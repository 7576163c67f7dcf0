"""Sampled states for search (arena.engine.determinize): consistent with one seat's view."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from arena.engine import GameConfig, new_game
from arena.engine.cards import CARD_IDS, PALAESTRON, Card
from arena.engine.desmos import evaluate_family
from arena.engine.determinize import sample_state, unseen_cards
from arena.engine.houserules import HouseRules
from arena.engine.state import State


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


def _first_turn(players: tuple[str, ...], seed: int) -> State:
    state = new_game(GameConfig(players=players, seed=seed))
    while state.decision is not None and state.decision.kind != "turn":
        state.apply(0)
    assert state.decision is not None
    return state


def test_a_hidden_palaestron_lies_anywhere_in_the_sampled_pile() -> None:
    """The seat knows nothing of where an unseen Palaestron lies, so samples put it anywhere
    in the pile: always on top, every searched game would draw it next."""
    for seed in range(20):
        state = _first_turn(("a", "b"), seed)
        observation = state.observe(state.active)
        if PALAESTRON in unseen_cards(observation):
            break
    else:
        raise AssertionError("no seed hides the Palaestron at the first turn")
    places = [sample_state(observation, s).draw_pile.index(PALAESTRON) for s in range(40)]
    top = observation.draw_pile - 1  # the top of the pile is the end of the list
    assert len(set(places)) > 10 and places.count(top) < 10, places


def _turn_samples(seeds: range) -> Iterator[tuple[State, State]]:
    """(the true game, a sample of the active seat's view) at every turn decision of random
    three-seat games, one game a seed."""
    for seed in seeds:
        state = new_game(GameConfig(players=("a", "b", "c"), seed=seed))
        rng = random.Random(seed)
        while state.decision is not None:
            decision = state.decision
            if decision.kind == "turn":
                yield state, sample_state(state.observe(decision.seat), seed)
            state.apply(rng.randrange(len(decision.options)))


def test_the_seats_own_revealed_cards_stay_revealed_in_every_sample() -> None:
    """A sampled game knows the seat's revealed cards as shown, as the real game does: a
    reveal there offers only the others (E16), and the copy that moves is the hidden one
    (E20)."""
    checked = 0
    for state, sample in _turn_samples(range(60)):
        seat = state.active
        assert sample.revealed[seat] == state.revealed[seat]
        checked += bool(state.revealed[seat])
    assert checked >= 20, checked


def test_a_sampled_game_stands_at_the_real_games_round_and_turn() -> None:
    """A search plays the rounds left: a sample a round off would end its games a round
    early or late."""
    checked = 0
    for state, sample in _turn_samples(range(6)):
        assert (sample.round, sample.turn, sample.turn_in_round, sample.active) == \
            (state.round, state.turn, state.turn_in_round, state.active)
        checked += 1
    assert checked >= 30, checked
