"""Rulebook sentences that had enforcing code but no test that failed when that code broke,
each named by the sentence it holds the engine to (RULES.md quotes every sentence).

Scenarios are staged with the builder of conftest.py and driven decision by decision.
"""

from __future__ import annotations

import random

import pytest
from engine_scenario import act, asked, build_state, events_of, final_showdown, hand, names
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.engine.cards import DECK_SIZE, NOTATION, PALAESTRON, parse_cards
from arena.engine.config import GameConfig
from arena.engine.state import State
from arena.engine.turn import begin_game, start_turn

GODS = [f"God-{rank}" for rank in range(1, 8)]


def _untouched_but_for_the_discard(state: State, god: str, before: list[list[str]]) -> None:
    """Nothing fired: no effect, no forced discard, the other hands and every trap as they
    were, and the God face up on top of the Discard Graveyard."""
    assert [e for e in events_of(state, "effect") if e["card"] == god] == []
    assert events_of(state, "forced_discard") == []
    assert [hand(state, seat) for seat in range(1, state.n)] == before[1:]
    assert [len(traps) for traps in state.traps] == [0, 1, 1]
    assert names(state.discard_graveyard)[-1] == god


def _three_with(god: str) -> State:
    hands = [f"{god} Fate-4 Agari-1 Beast-1 Beast-2",
             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
             "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"]
    # a trap in each opponent's Arena, set this turn so that no window asks about it: an
    # Apollo or a Zeus would destroy it if it fired
    return build_state(hands, traps={1: [("Fate-2", 0, 0)], 2: [("Beast-3", 0, 0)]},
                       discard_graveyard="Agari-6", pile_top="Arcoi-1 Arcoi-2 Arcoi-3")


@pytest.mark.parametrize("god", GODS)
def test_e06_a_god_swapped_away_fires_nothing(god: str) -> None:
    # "Only God cards trigger their effect when discarded" under "When a rule forces a
    # discard": a swap is the player's own choice (E6), so the God goes without its effect
    state = _three_with(god)
    before = [hand(state, seat) for seat in range(state.n)]
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap=god)
    _untouched_but_for_the_discard(state, god, before)
    assert hand(state, 0) == sorted(["Fate-4", "Agari-1", "Beast-1", "Beast-2", "Arcoi-1"])
    assert [NOTATION[c] for c in state.effect_graveyard] == []


@pytest.mark.parametrize("god", GODS)
def test_e06_a_god_given_up_to_tyche_fires_nothing(god: str) -> None:
    # Tyche's exchange puts the God on the Discard Graveyard by its player's choice (E6)
    state = _three_with(god)
    before = [hand(state, seat) for seat in range(state.n)]
    act(state, "turn", 0, action="play", card="Fate-4")
    act(state, "give", 0, card=god)
    _untouched_but_for_the_discard(state, god, before)
    assert "Agari-6" in hand(state, 0)
    assert names(state.effect_graveyard) == ["Fate-4"]


# ---------------------------------------------------------------------------- showdown
PAIR_A = "Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4"
PAIR_B = "Umbrae-1 Umbrae-2 Arcoi-1 Fate-1 Beast-2"
PAIR_C = "Umbrae-3 Umbrae-4 Arcoi-2 Fate-2 Beast-3"
SHAPES = ("rock", "paper", "scissors")
WINS_OVER = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


def _still_in(throws: tuple[str, ...]) -> list[int]:
    """The rulebook's sudden death read as Ruling 12 does: two shapes thrown, the winning
    shape's throwers stay in; one shape or all three, everyone throws again."""
    shapes = set(throws)
    if len(shapes) != 2:
        return list(range(len(throws)))
    winning = next(s for s in shapes if WINS_OVER[s] in shapes)
    return [seat for seat, thrown in enumerate(throws) if thrown == winning]


@pytest.mark.parametrize("throws", [(a, b, c) for a in SHAPES for b in SHAPES for c in SHAPES])
def test_ruling_12_sudden_death_over_every_throw_of_three(throws: tuple[str, ...]) -> None:
    # "If none: sudden-death Rock-Paper-Scissors", every throw of three tied seats
    state = final_showdown([PAIR_A, PAIR_B, PAIR_C])
    for seat, throw in enumerate(throws):
        act(state, "rps", seat, throw=throw)
    still_in = _still_in(throws)
    if len(still_in) == 1:
        assert state.result is not None and state.result.tiebreak == "rps"
        assert state.result.placements == [1 if s == still_in[0] else 2 for s in range(3)]
        return
    # another throw, asked of exactly the seats still in: the first of them wins it
    asked_next = []
    while state.decision is not None:
        asked_next.append(asked(state)[0])
        act(state, "rps", throw="rock" if len(asked_next) == 1 else "scissors")
    assert asked_next == still_in
    assert state.result is not None
    assert state.result.placements == [1 if s == still_in[0] else 2 for s in range(3)]


def test_only_cards_in_hand_count_at_the_showdown() -> None:
    # "Only cards in hand count": seat 0's Gods in its Arena and the graveyards' Gods do
    # not lift its High Hand over seat 1's Pair
    state = final_showdown(["Agari-1 Sophoi-1 Arcoi-3 Fate-3 Beast-1", PAIR_B],
                           traps={0: ["God-1", "God-2"]}, effect_graveyard="God-3 God-4",
                           discard_graveyard="God-5 God-6")
    act(state, "trigger", 0, trap=None)  # the showdown window: seat 0 keeps its traps
    assert [len(traps) for traps in state.traps] == [2, 0]  # passed in the showdown window
    assert state.result is not None
    assert state.result.desmos == ["High Hand", "Pair"]
    assert state.result.placements == [2, 1]


# ---------------------------------------------------------------------------- the deal
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5), start=st.integers(0, 4),
       reading=st.sampled_from(["play", "redeal"]))
def test_e02_the_deal_goes_one_card_at_a_time_round_the_table_from_the_starting_seat(
        seed: int, players: int, start: int, reading: str) -> None:
    # "Shuffle the full deck. Deal 5 cards to each player. Place the rest face-down as the
    # draw pile." E2 deals one card at a time in seat order from the starting player;
    # dealt_palaestron=redeal deals its holder "the next card in its place (the deal goes on
    # in the same order, one card later)". The shuffle is Random(seed).shuffle (chance.py).
    start %= players
    deck = list(range(DECK_SIZE))
    random.Random(seed).shuffle(deck)
    drawn_in_order = deck[::-1]  # the top of the pile is the end of the list
    dealt = 5 * players
    palaestron_dealt = drawn_in_order.index(PALAESTRON) < dealt
    assume(reading == "redeal" or not palaestron_dealt)  # played, it changes the hands
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                        starting_seat=start, rules={"dealt_palaestron": reading})
    state = State(config)
    state.push(begin_game)
    state.run()
    cards = [c for c in drawn_in_order if c != PALAESTRON]
    for seat in range(players):
        nth = (seat - start) % players  # how many seats are dealt before it in a round
        assert sorted(state.hands[seat]) == sorted(cards[nth:dealt:players])
    rest = [c for c in reversed(state.draw_pile) if c != PALAESTRON]
    assert rest == cards[dealt:]  # the rest, in order: no card has been drawn yet


# ---------------------------------------------------------------------------- house rules
@pytest.mark.parametrize("reading, ascends", [("today", True), ("strict", False)])
def test_strict_reclaim_five_gods_with_one_used_do_not_ascend(reading: str,
                                                              ascends: bool) -> None:
    # reclaim=strict: "five Gods including a God they used are not The Ascension". Seat 0
    # used God-1 earlier (staged: only strict games keep track); its swap draws the fifth God
    state = build_state(["God-1 God-2 God-3 God-4 Fate-1",
                         "Agari-1 Agari-2 Agari-3 Agari-4 Fate-2"],
                        pile_top="God-5 Fate-3", rules={"reclaim": reading}, start=False)
    if reading == "strict":
        state.used[0].update(parse_cards("God-1"))
    state.push(start_turn)
    state.run()
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Fate-1")
    assert hand(state, 0) == ["God-1", "God-2", "God-3", "God-4", "God-5"]
    assert state.is_over is ascends
    assert bool(events_of(state, "ascension")) is ascends
    if not ascends:  # the game goes on: seat 1's turn
        assert asked(state) == (1, "turn")


def test_redeal_shuffles_the_palaestron_back_at_a_place_drawn_from_the_seed() -> None:
    # dealt_palaestron=redeal: "the Palaestron goes back into the draw pile at a place drawn
    # from the game's seed": the same seed, the same place; over seeds, places all over it
    def place(seed: int) -> int | None:
        config = GameConfig(players=("a", "b", "c", "d"), seed=seed,
                            rules={"dealt_palaestron": "redeal"})
        state = State(config)
        state.push(begin_game)
        state.run()
        if not events_of(state, "palaestron_redealt"):
            return None
        return state.draw_pile[::-1].index(PALAESTRON)  # 0: the next card drawn
    places = [p for p in map(place, range(60)) if p is not None]
    assert len(places) >= 10 and places == [p for p in map(place, range(60)) if p is not None]
    assert len(set(places)) > len(places) // 2 and max(places) > 10


# ---------------------------------------------------------------------------- copies
def _two_copies_one_shown(revealed_first: bool) -> tuple[State, int, int]:
    """Seat 0 holds two Fate-3, one of them revealed (the first or the second in hand)."""
    hands = ["Fate-3 Fate-3 Fate-1 Agari-3 Beast-2",
             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"]
    state = build_state(hands, pile_top="Arcoi-1 Arcoi-2 Arcoi-3", start=False)
    first, second = [c for c in state.hands[0] if NOTATION[c] == "Fate-3"]
    shown, hidden = (first, second) if revealed_first else (second, first)
    state.revealed[0].add(shown)
    state.push(start_turn)
    state.run()
    return state, shown, hidden


@pytest.mark.parametrize("revealed_first", [True, False])
@pytest.mark.parametrize("how", ["swap", "clotho"])
def test_e20_a_card_discarded_face_up_is_the_revealed_copy(how: str,
                                                           revealed_first: bool) -> None:
    # E20: a card leaving the hand face up (swapped away, discarded) is the revealed copy,
    # so the others learn nothing new: the copy still in hand stays hidden
    state, shown, hidden = _two_copies_one_shown(revealed_first)
    if how == "swap":
        act(state, "turn", 0, action="hold")
        act(state, "swap", 0, swap="Fate-3")
    else:
        act(state, "turn", 0, action="play", card="Fate-1")
        act(state, "discard", 0, card="Fate-3")
    assert hidden in state.hands[0] and shown in state.discard_graveyard
    assert state.revealed[0] == set()


# ---------------------------------------------------------------------------- the Ascension
@pytest.mark.parametrize("forfeited", [False, True])
def test_e18_a_forfeited_seat_drawing_its_fifth_god_does_not_ascend(forfeited: bool) -> None:
    # "The Ascension — 5 Gods. Instant victory." E18: a forfeited seat is never a contender,
    # so five Gods coming into its hand (its draw back after a Raid) end nothing
    state = build_state(["Fate-1 God-1 God-2 God-3 God-4",
                         "Agari-1 Umbrae-1 Umbrae-2 Umbrae-3 Beast-1"],
                        active=1, pile_top="God-5 Fate-3", start=False)
    if forfeited:
        state.forfeit(0, "crashed")
    state.push(start_turn)
    state.run()
    act(state, "turn", 1, action="play", card="Agari-1")
    act(state, "discard", 0, card="Fate-1")
    assert hand(state, 0) == ["God-1", "God-2", "God-3", "God-4", "God-5"]
    assert state.is_over is not forfeited
    assert bool(events_of(state, "ascension")) is not forfeited
