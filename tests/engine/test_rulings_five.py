"""The rules whose text names players, played at five seats (RULES.md): "choose an opponent",
"every opponent, in seat order", exchanges between two hands seen by three onlookers, traps of
several opponents in one window, the Palaestron for each player, ties at the showdown, the
loser who starts the next game.

Seat 3 acts in round 1 (seat 0 started), so "in seat order after you" wraps around the table:
4, 0, 1, 2. Each test stages its situation with the builder of conftest.py.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from engine_scenario import (
    act,
    asked,
    build_state,
    events_of,
    final_showdown,
    hand,
    hold_turn,
    names,
    palaestron_steps,
)

from arena.engine.start import next_starting_seat
from arena.engine.state import State

FIVE = ["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
        "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
        "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5",
        "Arcoi-1 Arcoi-2 Arcoi-3 Arcoi-4 Arcoi-5",
        "Fate-1 Fate-2 Fate-3 Fate-4 Fate-5"]
ACTIVE = 3
AFTER_ACTIVE = [4, 0, 1, 2]
PILE = "Beast-3 Beast-4 Beast-3 Beast-4 Agari-6 God-2"


def five(card: str | None = None, **kwargs: Any) -> State:
    """Seat 3's turn in round 1 of a five-player game; ``card`` replaces its Arcoi-5."""
    hands = list(FIVE)
    if card is not None:
        hands[ACTIVE] = hands[ACTIVE].replace("Arcoi-5", card)
    kwargs.setdefault("pile_top", PILE)
    return build_state(hands, active=ACTIVE, **kwargs)


def pass_windows(state: State) -> list[tuple[int, str]]:
    """Pass every pending trigger decision; the (seat, window) of each, in order."""
    seen = []
    while state.decision is not None and state.decision.kind == "trigger":
        seen.append((state.decision.seat, state.decision.context["window"]))
        act(state, "trigger", trap=None)
    return seen


# ---------------------------------------------------------------- "choose an opponent"
@pytest.mark.parametrize("card", ["God-1", "God-5", "God-6", "God-7", "Agari-4", "Umbrae-6",
                                  "Arcoi-5", "Fate-3", "Fate-5"])
def test_choose_an_opponent_offers_every_opponent_in_seat_order_after_the_player(
        card: str) -> None:
    state = five(card, pile_top="Crown Beast-3")
    act(state, "turn", ACTIVE, action="play", card=card)
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (ACTIVE, "target")
    assert list(decision.options) == [{"seat": s} for s in AFTER_ACTIVE]


def test_poseidon_every_opponent_discards_in_seat_order_after_the_player_around_the_table(
) -> None:
    state = five("God-3", pile_top="Beast-3 Beast-4 Beast-5 Crown Agari-4")
    act(state, "turn", ACTIVE, action="play", card="God-3")
    order = []
    for seat, card in zip(AFTER_ACTIVE, ["Fate-1", "Agari-1", "Umbrae-1", "Sophoi-1"]):
        order.append(asked(state))
        # the one before has drawn back already: every hand is whole but the one asked
        assert [len(h) for h in state.hands] == [5, 5, 5, 4, 5]
        act(state, "discard", seat, card=card)
    assert order == [(s, "discard") for s in AFTER_ACTIVE]
    assert names(state.discard_graveyard) == ["Fate-1", "Agari-1", "Umbrae-1", "Sophoi-1"]
    # each drew back the next card in turn; the play's own draw came last
    assert "Beast-3" in hand(state, 4) and "Beast-4" in hand(state, 0)
    assert "Beast-5" in hand(state, 1) and "Crown" in hand(state, 2)
    assert "Agari-4" in hand(state, ACTIVE)


def test_poseidon_a_god_discarded_fires_before_the_next_opponent_discards() -> None:
    hands = list(FIVE)
    hands[0] = "God-6 Agari-2 Agari-3 Beast-1 Beast-2"
    hands[ACTIVE] = hands[ACTIVE].replace("Arcoi-5", "God-3")
    state = build_state(hands, active=ACTIVE, pile_top=PILE)
    act(state, "turn", ACTIVE, action="play", card="God-3")
    act(state, "discard", 4, card="Fate-1")
    act(state, "discard", 0, card="God-6")
    # Apollo fires for seat 0, whose opponents are 1, 2, 3, 4: seat 1 has not discarded yet
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "target")
    assert list(decision.options) == [{"seat": s} for s in (1, 2, 3, 4)]
    act(state, "target", 0, seat=1)
    assert state.revealed[1] == set(state.hands[1])
    assert asked(state) == (1, "discard")


# ---------------------------------------------------------------- exchanges between two hands
def test_an_exchange_between_two_hands_is_told_in_full_only_to_those_two() -> None:
    state = five("God-1")
    act(state, "turn", ACTIVE, action="play", card="God-1")
    act(state, "target", ACTIVE, seat=0)
    act(state, "card", ACTIVE, card="Agari-2")
    act(state, "give", ACTIVE, card="Arcoi-1")
    assert "Agari-2" in hand(state, ACTIVE) and "Arcoi-1" in hand(state, 0)
    for seat in range(5):
        exchanges = [e for e in state.events_for(seat) if e["type"] == "exchange"]
        assert len(exchanges) == 1
        told = {k: exchanges[0].get(k) for k in ("seat", "target", "gave", "took")}
        if seat in (0, ACTIVE):
            assert told == {"seat": ACTIVE, "target": 0, "gave": "Arcoi-1", "took": "Agari-2"}
        else:
            assert told == {"seat": ACTIVE, "target": 0, "gave": None, "took": None}
        peeks = [e for e in state.events_for(seat) if e["type"] == "peek"]
        assert all(("cards" in e) == (seat == ACTIVE) for e in peeks)


@pytest.mark.parametrize("back", ["Agari-2", "Arcoi-1"])
def test_nemesis_gifts_are_told_in_full_only_to_its_two_players(back: str) -> None:
    # seat 0 gives first, then the Nemesis player gives from a hand holding that card (E29):
    # the onlookers learn that a card went each way, and nothing of the two cards
    state = five("Fate-5")
    before = {seat: state.observe(seat).to_json() for seat in (1, 2, 4)}
    act(state, "turn", ACTIVE, action="play", card="Fate-5")
    act(state, "target", ACTIVE, seat=0)
    act(state, "give", 0, card="Agari-2")
    act(state, "give", ACTIVE, card=back)
    assert back in hand(state, 0)
    for seat in range(5):
        gives = [(e["seat"], e["target"], e.get("card")) for e in state.events_for(seat)
                 if e["type"] == "give"]
        if seat in (0, ACTIVE):
            assert gives == [(0, ACTIVE, "Agari-2"), (ACTIVE, 0, back)]
        else:
            assert gives == [(0, ACTIVE, None), (ACTIVE, 0, None)]
            after = state.observe(seat).to_json(include_events=True)
            assert after["revealed"] == before[seat]["revealed"]
            assert "Agari-2" not in str(after) and back not in str(after)


@pytest.mark.parametrize("card", ["Umbrae-6", "God-5"])
def test_a_look_at_a_hand_is_told_in_full_only_to_the_player_who_looks(card: str) -> None:
    state = five(card)
    act(state, "turn", ACTIVE, action="play", card=card)
    act(state, "target", ACTIVE, seat=1)
    for seat in range(5):
        peeks = [e for e in state.events_for(seat) if e["type"] == "peek"]
        assert [(e["seat"], e["target"]) for e in peeks] == [(ACTIVE, 1)]
        assert ("cards" in peeks[0]) == (seat == ACTIVE)


@pytest.mark.parametrize("card", ["Fate-3", "Arcoi-5"])
def test_a_card_revealed_is_shown_to_all_four_others(card: str) -> None:
    state = five(card)
    act(state, "turn", ACTIVE, action="play", card=card)
    act(state, "target", ACTIVE, seat=1)
    act(state, "reveal", 1, card="Umbrae-4")
    for seat in range(5):
        assert state.observe(seat).revealed[1] == ["Umbrae-4"]
        reveals = [e for e in state.events_for(seat) if e["type"] == "reveal"]
        assert [(e["seat"], e["card"]) for e in reveals] == [(1, "Umbrae-4")]


# ---------------------------------------------------------------- traps named by seat
def test_arcoi_offers_every_opponents_trap_in_seat_order_after_the_player() -> None:
    traps = {0: ["Agari-4", "Agari-5"], 1: ["Umbrae-6"], 3: ["Crown"], 4: ["Beast-5"]}
    state = five("Arcoi-5", traps=traps, pile_top="Beast-3")
    assert pass_windows(state) == [(3, "turn_start"), (4, "turn_start"), (0, "turn_start"),
                                   (1, "turn_start")]
    act(state, "turn", ACTIVE, action="play", card="Arcoi-5")
    pass_windows(state)  # the declare window: seats 4, 0, 1
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (ACTIVE, "target")
    # never the player's own trap
    assert list(decision.options) == [{"seat": 4, "slot": 0}, {"seat": 0, "slot": 0},
                                      {"seat": 0, "slot": 1}, {"seat": 1, "slot": 0}]
    act(state, "target", ACTIVE, seat=0, slot=1)
    assert names(state.discard_graveyard) == ["Agari-5"]
    assert [len(t) for t in state.traps] == [1, 1, 0, 1, 1]


def test_basilisk_offers_only_the_opponents_who_have_traps() -> None:
    state = five("Beast-3", traps={1: ["Umbrae-6"], 3: ["Crown"], 4: ["Beast-5"]},
                 pile_top="Agari-4")
    pass_windows(state)
    act(state, "turn", ACTIVE, action="play", card="Beast-3")
    pass_windows(state)
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (ACTIVE, "target")
    assert list(decision.options) == [{"seat": 4}, {"seat": 1}]


@pytest.mark.parametrize("card", ["God-6", "God-7"])
def test_apollo_and_zeus_touch_the_traps_of_their_target_only(card: str) -> None:
    traps = {0: ["Agari-4"], 1: ["Umbrae-6"], 4: ["Beast-5"]}
    state = five(card, traps=traps)
    pass_windows(state)
    act(state, "turn", ACTIVE, action="play", card=card)
    pass_windows(state)
    act(state, "target", ACTIVE, seat=1)
    assert [e["seat"] for e in events_of(state, "trap_destroyed")] == [1]
    assert [len(t) for t in state.traps] == [1, 0, 0, 0, 1]


# ---------------------------------------------------------------- trigger windows
def test_a_declared_play_asks_the_opponents_in_seat_order_after_the_player() -> None:
    # every seat holds a trap; the player's own is never offered in its own declare window
    traps = {s: [t] for s, t in enumerate(["Agari-4", "Umbrae-6", "Beast-5", "Crown",
                                           "Agari-5"])}
    state = five(traps=traps)
    assert pass_windows(state) == [(s, "turn_start") for s in (3, 4, 0, 1, 2)]
    act(state, "turn", ACTIVE, action="play", card="Arcoi-1")
    assert pass_windows(state) == [(s, "declare") for s in AFTER_ACTIVE]


def test_e27_one_trap_resolves_before_the_next_seat_in_its_window_is_asked() -> None:
    # seats 4 and 1 hold traps; seat 4 springs Zeus on seat 1 in the declare window: seat 1
    # may answer before Zeus resolves, and is not asked again in the declare window, whose
    # trap Zeus destroyed; seat 0 is asked with Zeus already resolved
    traps = {4: ["God-7"], 0: ["Umbrae-6"], 1: ["Agari-4"]}
    state = five(traps=traps, pile_top="Beast-3 Beast-4 Beast-5 Crown Agari-5")
    pass_windows(state)
    act(state, "turn", ACTIVE, action="play", card="Arcoi-1")
    assert asked(state) == (4, "trigger")
    act(state, "trigger", 4, trap="God-7")
    # the answer window of Zeus: its owner's opponents in seat order after it
    assert pass_windows(state) == [(0, "answer"), (1, "answer")]
    act(state, "target", 4, seat=1)
    act(state, "discard", 1, card="Umbrae-1")
    act(state, "discard", 1, card="Umbrae-2")
    assert [e["card"] for e in events_of(state, "trap_destroyed")] == ["Agari-4"]
    # Zeus has resolved; the declare window goes on with seat 0, then seat 1 has no trap
    assert pass_windows(state) == [(0, "declare")]
    # the Arcoi resolves last, with one trap left to hit: seat 0's, taken unasked (E21)
    assert [e["card"] for e in events_of(state, "trap_destroyed")] == ["Agari-4", "Umbrae-6"]
    assert names(state.effect_graveyard) == ["God-7", "Arcoi-1"]
    assert asked(state) == (ACTIVE, "swap")


def test_the_showdown_window_runs_from_the_starting_seat() -> None:
    # five players play three rounds; the last turn is seat 1's when seat 2 started
    traps = {s: [t] for s, t in enumerate(["Agari-4", "Umbrae-6", "Beast-5", "Crown",
                                           "Agari-5"])}
    state = build_state(FIVE, traps=traps, round=3, starting_seat=2, active=1)
    assert pass_windows(state) == [(s, "turn_start") for s in (1, 2, 3, 4, 0)]
    hold_turn(state, 1)
    # from the starting seat; seat 1's trap, set in its previous turn, is still live
    assert pass_windows(state) == [(s, "showdown") for s in (2, 3, 4, 0, 1)]
    assert state.result is not None


def test_a_trap_expires_after_its_owners_second_turn_whatever_four_others_do() -> None:
    # seat 3 sets a trap in round 1: it lives through round 2 and leaves at the end of its
    # turn in round 3, the last of the game, after the other four seats' turns in between
    state = five()
    act(state, "turn", ACTIVE, action="trap", card="Arcoi-1")
    act(state, "swap", ACTIVE)
    count = []
    while state.result is None and state.turn < 15:
        pass_windows(state)
        hold_turn(state)
        count.append((state.turn_log[-1]["seat"], len(state.traps[ACTIVE])))
    assert count == [(4, 1), (0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (0, 1), (1, 1), (2, 1),
                     (3, 0), (4, 0)]
    assert [e["card"] for e in events_of(state, "trap_expired")] == ["Arcoi-1"]


# ---------------------------------------------------------------- the Palaestron
def test_the_palaestron_at_five_runs_from_its_drawer_around_the_table() -> None:
    traps = {0: ["Agari-4"], 2: ["Beast-5"], 4: ["Umbrae-6"]}
    state = five(traps=traps, pile_top="Palaestron Crown Agari-5 Agari-6 Beast-3 Beast-4 "
                                       "Beast-4")
    pass_windows(state)
    act(state, "turn", ACTIVE, action="hold")
    act(state, "swap", ACTIVE, swap="Arcoi-1")
    assert pass_windows(state) == [(4, "palaestron"), (0, "palaestron"), (2, "palaestron")]
    assert palaestron_steps(state) == [(s, k) for s in (3, 4, 0, 1, 2)
                                       for k in ("discard", "reveal")]
    # the Arenas are cleared from the drawer too: 4, 0, 2
    assert [e["seat"] for e in events_of(state, "trap_cleared")] == [4, 0, 2]
    assert [len(h) for h in state.hands] == [5] * 5
    assert all(len(state.revealed[s]) == 1 for s in range(5))


# ---------------------------------------------------------------- the showdown
PAIR_1 = "Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4"
PAIR_2 = "Umbrae-1 Umbrae-2 Arcoi-1 Fate-1 Beast-2"
PAIR_3 = "Umbrae-3 Umbrae-4 Arcoi-2 Fate-2 Beast-3"
HIGH_1 = "God-3 Agari-1 Umbrae-5 Arcoi-3 Beast-1"
HIGH_2 = "God-4 Agari-2 Umbrae-6 Arcoi-4 Beast-5"


def test_a_three_way_tie_for_first_at_five_players() -> None:
    # three equal Pairs tie for first; the book breaks it among them only (seat 3, a High
    # Hand, read last); the other two tied are placed 2, the equal High Hands share 4
    books = (dt.date(2026, 3, 1), None, dt.date(2026, 5, 1), dt.date(2026, 11, 1),
             dt.date(2026, 1, 1))
    state = final_showdown([PAIR_1, HIGH_1, PAIR_2, HIGH_2, PAIR_3], last_book_finished=books)
    assert state.result is not None
    assert state.result.tiebreak == "book"
    assert state.result.placements == [2, 4, 1, 4, 2]
    # the loser who starts the next game: a lot between the two placed last
    assert {next_starting_seat(state.result, seed=s) for s in range(30)} == {1, 3}


def test_sudden_death_at_five_keeps_only_the_tied_and_the_winning_shape() -> None:
    state = final_showdown([PAIR_1, HIGH_1, PAIR_2, HIGH_2, PAIR_3])
    throws = {0: "rock", 2: "rock", 4: "scissors"}
    for seat in (0, 2, 4):  # only the three tied throw, in seat order
        act(state, "rps", seat, throw=throws[seat])
    for seat, throw in ((0, "paper"), (2, "rock")):
        act(state, "rps", seat, throw=throw)
    assert state.result is not None and state.result.tiebreak == "rps"
    assert state.result.placements == [1, 4, 2, 4, 2]
