"""Rulings 10-13 of RULES.md (the Palaestron, the Ascension, the showdown, the starting
player) and E20 (copies): one named test per ruling, each through the real engine.

Scenarios are staged with the builder of conftest.py and driven decision by decision, so every
test states the situation and the outcome a player relies on.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
import re
from pathlib import Path
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
    play_defaults,
)

from arena.engine import (
    FirstOptionAgent,
    GameConfig,
    new_game,
    play_game,
)
from arena.engine.actions import card_options
from arena.engine.cards import (
    NOTATION,
    PALAESTRON,
    parse_cards,
)
from arena.engine.config import rounds_for
from arena.engine.desmos import Value, evaluate
from arena.engine.showdown import RPS_THROW_CAP, book_tiebreak, showdown
from arena.engine.start import first_starting_seat, next_starting_seat
from arena.engine.turn import start_turn

ROOT = Path(__file__).resolve().parents[2]

# ============================================================================ ruling 10


def test_ruling_10_palaestron() -> None:
    state = build_state(["Agari-1 Agari-2 Agari-3 Agari-4 Beast-1",
                         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
                         "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"],
                        traps={1: [("Arcoi-1", 0, 0)], 2: [("Arcoi-2", 0, 0), ("Arcoi-3", 0, 0)]},
                        pile_top="Palaestron Fate-1 Fate-2 Fate-3 Fate-4 Fate-5")
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-1")  # draws the Palaestron: it is played at once
    assert events_of(state, "palaestron") == [{"type": "palaestron", "seat": 0, "turn": 0}]
    # for each player in seat order from its player: forced discard, draw, reveal
    act(state, "discard", 0, card="Agari-1")
    assert "Fate-1" in hand(state, 0)
    act(state, "reveal", 0, card="Fate-1")
    act(state, "discard", 1, card="Umbrae-1")
    act(state, "reveal", 1, card="Umbrae-2")
    act(state, "discard", 2, card="Sophoi-1")
    assert state.traps[2], "traps are cleared only after every player's turn at it"
    act(state, "reveal", 2, card="Fate-3")
    # then all traps go to the Discard Graveyard, the Palaestron to the Effect Graveyard,
    # and its player draws a replacement
    assert [len(t) for t in state.traps] == [0, 0, 0]
    assert names(state.discard_graveyard) == ["Beast-1", "Agari-1", "Umbrae-1", "Sophoi-1",
                                              "Arcoi-1", "Arcoi-2", "Arcoi-3"]
    assert names(state.effect_graveyard) == ["Palaestron"]
    assert hand(state, 0) == ["Agari-2", "Agari-3", "Agari-4", "Fate-1", "Fate-4"]
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert [sorted(names(r)) for r in state.revealed] == [["Fate-1"], ["Umbrae-2"], ["Fate-3"]]
    assert state.turn_log[-1]["swap"] is True and state.turn_log[-1]["traps_after"] == [0, 0, 0]
    # the revealed cards are public: every seat sees them ...
    for seat in range(3):
        assert state.observe(seat).revealed == [["Fate-1"], ["Umbrae-2"], ["Fate-3"]]
    # ... until they leave that hand
    act(state, "turn", 1, action="play", card="Umbrae-2")
    act(state, "target", 1, seat=2)
    act(state, "swap", 1)
    assert state.observe(0).revealed == [["Fate-1"], [], ["Fate-3"]]


def test_ruling_10_a_god_discarded_to_the_palaestron_fires() -> None:
    state = build_state(["Agari-1 Agari-2 Agari-3 Agari-4 Beast-1",
                         "God-3 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"],
                        pile_top="Palaestron Fate-1 Fate-2 Fate-3 Fate-4 Fate-5")
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-1")
    act(state, "discard", 0, card="Agari-1")
    act(state, "reveal", 0, card="Fate-1")
    act(state, "discard", 1, card="God-3")  # Poseidon fires for seat 1: seat 0 discards
    act(state, "discard", 0, card="Agari-2")
    act(state, "reveal", 1, card="Umbrae-5")
    assert names(state.effect_graveyard) == ["God-3", "Palaestron"]
    assert [len(h) for h in state.hands] == [5, 5]


def test_ruling_10_the_palaestron_runs_from_the_seat_that_drew_it() -> None:
    # seat 1 draws it back after a forced discard in seat 0's turn: seat order from seat 1
    state = build_state(["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
                         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
                         "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"],
                        pile_top="Palaestron Fate-1 Fate-2 Fate-3 Fate-4 Fate-5")
    act(state, "turn", 0, action="play", card="Agari-1")
    act(state, "target", 0, seat=1)
    act(state, "discard", 1, card="Umbrae-1")
    assert events_of(state, "palaestron") == [{"type": "palaestron", "seat": 1, "turn": 0}]
    assert palaestron_steps(state) == [(1, "discard"), (1, "reveal"), (2, "discard"),
                                       (2, "reveal"), (0, "discard"), (0, "reveal")]
    # seat 1 drew the replacement (Fate-4) after everyone; then seat 0's Raid drew (Fate-5)
    assert "Fate-4" in hand(state, 1) and "Fate-5" in hand(state, 0)
    assert asked(state) == (0, "swap")
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert names(state.effect_graveyard) == ["Palaestron", "Agari-1"]


def test_e25_the_palaestron_clears_the_arenas_from_its_drawer_each_oldest_first() -> None:
    # seat 1 draws it: the discards run from seat 1, and so do the traps, Arena by Arena, so
    # seat 0's trap (the last Arena in that order) is the new top of the Discard Graveyard
    state = build_state(["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
                         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
                         "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"],
                        traps={0: ["Arcoi-1"], 1: ["Arcoi-2"], 2: ["Fate-3", "Beast-3"]},
                        pile_top="Palaestron Fate-1 Fate-2 Fate-4 Fate-5 Beast-4",
                        rules={"trap_windows": "turn_and_play"}, active=1)
    act(state, "trigger", 1, trap=None)
    act(state, "trigger", 2, trap=None)
    act(state, "trigger", 0, trap=None)
    act(state, "turn", 1, action="play", card="Umbrae-1")
    act(state, "trigger", 2, trap=None)
    act(state, "trigger", 0, trap=None)
    act(state, "target", 1, seat=0)
    palaestron_steps(state)
    cleared = [(e["seat"], e["card"]) for e in events_of(state, "trap_cleared")]
    assert cleared == [(1, "Arcoi-2"), (2, "Fate-3"), (2, "Beast-3"), (0, "Arcoi-1")]
    assert names(state.discard_graveyard)[-1] == "Arcoi-1"


@pytest.mark.parametrize("god", ["God-6", "God-7"])
def test_e25_apollo_and_zeus_destroy_the_oldest_trap_first(god: str) -> None:
    state = build_state([f"{god} Agari-2 Agari-3 Beast-1 Beast-2",
                         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"],
                        traps={1: [("Fate-3", -2, 0), ("Beast-3", -1, 0)]},
                        pile_top="Fate-1 Fate-2 Fate-4 Fate-5 Beast-4",
                        rules={"trap_windows": "turn_and_play"})
    act(state, "trigger", 1, trap=None)
    act(state, "turn", 0, action="play", card=god)
    act(state, "trigger", 1, trap=None)
    destroyed = [(e["card"], e["slot"]) for e in events_of(state, "trap_destroyed")]
    assert destroyed == [("Fate-3", 0), ("Beast-3", 0)]
    assert names(state.discard_graveyard)[:2] == ["Fate-3", "Beast-3"]


def test_ruling_10_a_reveal_shows_a_card_not_yet_revealed() -> None:
    # seat 1's Umbrae-1..3 are public already: its Palaestron reveal offers only the others;
    # seat 2's whole hand is public: it has nothing left to reveal and is not asked
    state = build_state(["Agari-1 Agari-2 Agari-3 Agari-4 Beast-1",
                         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
                         "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"],
                        pile_top="Palaestron Fate-1 Fate-2 Fate-3 Fate-4 Fate-5")
    state.revealed[1].update(state.hands[1][:3])
    state.revealed[2].update(state.hands[2])
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-1")
    act(state, "discard", 0, card="Agari-1")
    act(state, "reveal", 0, card="Agari-2")
    act(state, "discard", 1, card="Umbrae-5")  # Fate-2 comes in, hidden
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (1, "reveal")
    assert [o["card"] for o in decision.options] == ["Umbrae-4", "Fate-2"]
    act(state, "reveal", 1, card="Fate-2")
    act(state, "discard", 2, card="Sophoi-1")  # Fate-3 comes in: the only hidden card
    # a single hidden card is no choice: it is revealed without asking
    assert sorted(names(state.revealed[2])) == hand(state, 2)
    assert "Fate-3" in names(state.revealed[2])
    assert not (state.decision is not None and state.decision.kind == "reveal")


def _seed_with_palaestron_in_the_deal(players: int) -> int:
    for seed in range(500):
        state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
        if events_of(state, "palaestron"):
            return seed
    raise AssertionError("no seed deals the Palaestron")  # pragma: no cover


@pytest.mark.parametrize("players", [2, 5])
def test_ruling_10_palaestron_in_the_deal(players: int) -> None:
    seed = _seed_with_palaestron_in_the_deal(players)
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
    holder = events_of(state, "palaestron")[0]["seat"]
    assert not events_of(state, "turn_start"), "it resolves before the first turn"
    order = [(holder + k) % players for k in range(players)]
    steps = []
    while state.decision is not None and state.decision.kind in ("discard", "reveal"):
        decision = state.decision
        steps.append((decision.seat, decision.kind))
        # the holder discards from 4 cards (the Palaestron never entered the hand)
        if decision.kind == "discard" and decision.seat == holder and len(steps) == 1:
            assert len(state.hands[holder]) == 4
        state.apply(0)
    # God effects fired by forced discards may ask more; the Palaestron's own steps come
    # in seat order from its holder
    own = [a for a in steps if a[1] in ("discard", "reveal")]
    firsts = [seat for seat, kind in own if kind == "reveal"]
    assert firsts == order
    assert PALAESTRON in state.effect_graveyard
    assert [len(h) for h in state.hands] == [5] * players
    assert all(PALAESTRON not in h for h in state.hands)
    play_defaults(state)
    assert state.result is not None


def test_ruling_10_no_effect_takes_the_palaestron_into_a_hand() -> None:
    hands = ["God-2 Fate-4 Crown Beast-4 Beast-1",
             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"]
    # Hades: the Palaestron in the Discard Graveyard (burned there by a Salamander) is no option
    state = build_state(hands, discard_graveyard="Agari-6 Palaestron", pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="God-2")
    assert state.decision is not None
    assert [o["card"] for o in state.decision.options] == [None, "Agari-6"]
    # Tyche: the Palaestron on top of the Discard Graveyard: nothing to exchange, no decision
    state = build_state(hands, discard_graveyard="Agari-6 Palaestron", pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="Fate-4")
    assert state.decision is not None and state.decision.kind == "swap"
    # Crown: the top of the pile is the Palaestron: it cannot be taken; the play's draw then
    # draws it, and it is played at once
    state = build_state(hands, pile_top="Palaestron Fate-1 Fate-2 Fate-3")
    act(state, "turn", 0, action="play", card="Crown")
    # the pass alone, asked all the same: only its player saw why (E21)
    assert state.decision is not None and list(state.decision.options) == [{"card": None}]
    act(state, "card", 0)
    assert events_of(state, "palaestron")
    assert state.decision is not None and state.decision.kind == "discard"
    # Griffin: lifts the Palaestron from the Discard Graveyard onto the pile: drawn = played
    state = build_state(hands, discard_graveyard="Agari-6 Palaestron", pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="Beast-4")
    assert events_of(state, "palaestron") and PALAESTRON in state.limbo
    play_defaults(state)
    assert all(PALAESTRON not in h for h in state.hands)


def test_ruling_10_the_palaestron_is_never_held_or_offered() -> None:
    for seed in range(40):
        players = 2 + seed % 4
        state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
        agent = random.Random(seed)
        while state.decision is not None:
            assert all(PALAESTRON not in h for h in state.hands)
            # it may be named (Lachesis moves a looked-at top card) but never taken or held
            offered = [o for o in state.decision.options if "bottom" not in o]
            assert "Palaestron" not in json.dumps(offered)
            state.apply(agent.randrange(len(state.decision.options)))
        assert state.result is not None and "Palaestron" not in json.dumps(
            [e for _, e in state.log if e["type"] == "showdown"])


# ============================================================================ ruling 11


def test_ruling_11_the_ascension() -> None:
    state = build_state(["God-1 God-2 God-3 God-4 Beast-2",
                         "Agari-1 Agari-2 Agari-3 Agari-4 Fate-1",
                         "Beast-1 Fate-2 Umbrae-1 Arcoi-1 Sophoi-2"],
                        pile_top="God-5 Fate-3")
    act(state, "turn", 0, action="play", card="Beast-2")
    # drawing the fifth God ends the game at once: no swap, no further turn
    assert state.is_over and state.decision is None
    assert state.result is not None
    assert state.result.ascension is True and state.result.tiebreak == "ascension"
    assert state.result.desmos == ["The Ascension", "Quartet", "High Hand"]
    assert state.result.placements == [1, 2, 3]
    assert events_of(state, "ascension")[0]["seat"] == 0
    assert state.turn_log == []


def test_ruling_11_the_ascension_shows_the_hand_in_card_order() -> None:
    # the God just drawn last would otherwise be the last card shown (E23)
    state = build_state(["God-6 God-2 God-4 God-3 Beast-2",
                         "Agari-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"],
                        pile_top="God-1 Fate-2 Fate-3")
    act(state, "turn", 0, action="play", card="Beast-2")
    assert events_of(state, "ascension")[0]["hand"] == ["God-1", "God-2", "God-3", "God-4",
                                                         "God-6"]


def test_ruling_11_ascension_outside_ones_own_turn() -> None:
    # seat 1 reaches five Gods by drawing back after a forced discard in seat 0's turn
    state = build_state(["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
                         "God-1 God-2 God-3 God-4 Beast-3",
                         "Umbrae-1 Umbrae-2 Umbrae-3 Fate-1 Fate-2"],
                        pile_top="God-5 Fate-3")
    act(state, "turn", 0, action="play", card="Agari-1")
    act(state, "target", 0, seat=1)
    act(state, "discard", 1, card="Beast-3")
    assert state.result is not None and state.result.ascension is True
    assert state.result.placements[1] == 1
    # the others are placed by their current Desmos (seat 0 holds only four cards here:
    # its Raid resolved but it has not drawn yet)
    assert len(state.hands[0]) == 4
    assert state.result.desmos == ["Two Pair", "The Ascension", "Full Domain"]
    assert state.result.placements == [3, 1, 2]


@pytest.mark.parametrize("trap, answer", [("Fate-1", ("discard", "Beast-1")),
                                          ("Beast-5", ("give", "Beast-1"))])
def test_ruling_11_five_gods_left_from_six_cards_ascend(trap: str,
                                                        answer: tuple[str, str]) -> None:
    # A Clotho / Phoenix trap with five cards in hand draws to six (four Gods, a Beast and
    # the fifth God); putting the Beast away leaves five natural Gods: that is The Ascension,
    # checked after the resolution, not only when a God enters a hand.
    state = build_state(["God-1 God-2 God-3 God-4 Beast-1",
                         "Agari-1 Agari-2 Agari-3 Agari-4 Fate-2"],
                        traps={0: [trap]}, pile_top="God-5 Fate-3 Fate-4")
    act(state, "trigger", 0, trap=trap)
    assert len(state.hands[0]) == 6
    kind, card = answer
    act(state, kind, 0, card=card)
    assert state.is_over and state.decision is None
    assert state.result is not None
    assert state.result.ascension is True and state.result.tiebreak == "ascension"
    assert state.result.placements == [1, 2]
    assert state.result.desmos == ["The Ascension", "Quartet"]


def test_ruling_11_others_with_equal_desmos_share_a_placement() -> None:
    state = build_state(["God-1 God-2 God-3 God-4 Beast-2",
                         "Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4",
                         "Umbrae-1 Umbrae-2 Arcoi-1 Fate-1 Beast-3"],
                        pile_top="God-5")
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-2")
    assert state.result is not None
    assert state.result.placements == [1, 2, 2]


# ============================================================================ ruling 12

PAIR_A = "Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4"
PAIR_B = "Umbrae-1 Umbrae-2 Arcoi-1 Fate-1 Beast-2"
PAIR_C = "Umbrae-3 Umbrae-4 Arcoi-2 Fate-2 Beast-3"
WEAK = "God-3 Agari-1 Umbrae-5 Arcoi-3 Beast-1"  # High Hand


def test_ruling_12_showdown() -> None:
    books = (dt.date(2026, 1, 1), dt.date(2026, 6, 1), dt.date(2026, 11, 1))
    state = final_showdown([PAIR_A, PAIR_B, WEAK], last_book_finished=books)
    assert state.result is not None
    # seat 2 read most recently, but it is not among the tied
    assert state.result.tiebreak == "book"
    assert state.result.placements == [2, 1, 3]


@pytest.mark.parametrize("late", [dt.date(2025, 11, 28), dt.date(2026, 11, 30),
                                  dt.date(2027, 1, 1)])
def test_ruling_12_book_dates_outside_the_year_are_ignored(late: dt.date) -> None:
    # seat 1's date is the most recent but lies outside the year before the event
    books = (dt.date(2026, 1, 1), late)
    state = final_showdown([PAIR_A, PAIR_B], last_book_finished=books)
    assert state.result is not None
    assert state.result.tiebreak == "book" and state.result.placements == [1, 2]


def test_ruling_12_book_dates_count_from_365_days_before_the_event_date() -> None:
    # "within the 365 days before the event date": the event day and 365 days before it count
    state = final_showdown([PAIR_A, PAIR_B],
                           last_book_finished=(None, dt.date(2025, 11, 29)))
    assert state.result is not None
    assert state.result.tiebreak == "book" and state.result.placements == [2, 1]
    state = final_showdown([PAIR_A, PAIR_B],
                           last_book_finished=(dt.date(2026, 11, 29), dt.date(2026, 11, 28)))
    assert state.result is not None and state.result.placements == [1, 2]


@pytest.mark.parametrize("event, first_day", [
    (dt.date(2028, 3, 1), dt.date(2027, 3, 2)),    # the span holds 29 February
    (dt.date(2027, 3, 1), dt.date(2026, 3, 1)),
    (dt.date(2028, 2, 29), dt.date(2027, 3, 1)),
    (dt.date(2029, 2, 28), dt.date(2028, 2, 29)),
    (dt.date(2026, 11, 29), dt.date(2025, 11, 29)),
])
def test_ruling_12_the_window_starts_365_days_before_the_event(event: dt.date,
                                                               first_day: dt.date) -> None:
    # the first day counts, the day before it does not
    assert book_tiebreak([0, 1], (first_day, None), event) == [0]
    before = first_day - dt.timedelta(days=1)
    assert book_tiebreak([0, 1], (before, None), event) == [0, 1]
    assert book_tiebreak([0, 1], (event, None), event) == [0]
    assert book_tiebreak([0, 1], (event + dt.timedelta(days=1), None), event) == [0, 1]


def test_ruling_12_the_windows_rules_md_counts_are_the_days_that_count() -> None:
    # both ends count: a year of 366 days is a window of 367
    rules = (ROOT / "RULES.md").read_text(encoding="utf-8").replace("\n", " ")
    windows = re.findall(r"from (\d{4}-\d\d-\d\d) to (\d{4}-\d\d-\d\d) \((\d+) days", rules)
    assert windows
    for first, event, days in windows:
        start, end = dt.date.fromisoformat(first), dt.date.fromisoformat(event)
        counted = [start + dt.timedelta(days=n) for n in range(-3, 400)
                   if book_tiebreak([0, 1], (start + dt.timedelta(days=n), None), end) == [0]]
        assert (counted[0], counted[-1], len(counted)) == (start, end, int(days))


def test_ruling_12_rock_paper_scissors_eliminates_losers() -> None:
    # no dates (and equal dates) leave three tied players to sudden-death RPS
    same = dt.date(2026, 5, 5)
    state = final_showdown([PAIR_A, PAIR_B, PAIR_C, WEAK],
                           last_book_finished=(same, same, same, None))
    seats = []
    for throw in ("rock", "rock", "scissors"):
        decision = state.decision
        assert decision is not None and decision.kind == "rps"
        assert decision.options == ({"throw": "rock"}, {"throw": "paper"},
                                    {"throw": "scissors"})
        seats.append(decision.seat)
        act(state, "rps", throw=throw)
    assert seats == [0, 1, 2]
    assert events_of(state, "rps")[-1]["throws"] == {"0": "rock", "1": "rock", "2": "scissors"}
    # seat 2 is eliminated; seats 0 and 1 throw again: a draw, then paper beats rock
    for seat, throw in ((0, "paper"), (1, "paper"), (0, "rock"), (1, "paper")):
        act(state, "rps", seat, throw=throw)
    assert state.result is not None
    assert state.result.tiebreak == "rps"
    assert state.result.placements == [2, 1, 2, 4]
    assert len(events_of(state, "rps")) == 3


def test_ruling_12_a_throw_is_hidden_from_the_other_thrower_until_resolved() -> None:
    state = final_showdown([PAIR_A, PAIR_B])
    act(state, "rps", 0, throw="scissors")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (1, "rps")
    # seat 1 is asked exactly what seat 0 was asked; nothing it sees carries seat 0's throw
    assert decision.context == {"why": "sudden-death Rock-Paper-Scissors", "throw": 1}
    assert "scissors" not in json.dumps(state.observe(1).to_json(include_events=True))
    assert not events_of(state, "rps")
    act(state, "rps", 1, throw="rock")
    assert state.result is not None and state.result.placements == [2, 1]
    assert state.events_for(0)[-2]["throws"] == {"0": "scissors", "1": "rock"}


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_ruling_12_rps_is_capped_at_50_throws_then_a_seeded_lot(seed: int) -> None:
    state = final_showdown([PAIR_A, PAIR_B], seed=seed)
    throws = 0
    while state.decision is not None:
        act(state, "rps", throw="rock")
        throws += 1
    assert throws == 2 * RPS_THROW_CAP == 100
    assert state.result is not None and state.result.tiebreak == "lot"
    # the game's generator was never used before the lot in this staging
    winner = random.Random(seed).choice([0, 1])
    assert state.result.placements[winner] == 1 and state.result.placements[1 - winner] == 2


def test_ruling_12_lot_winners_vary_with_the_seed() -> None:
    winners = set()
    for seed in range(6):
        state = final_showdown([PAIR_A, PAIR_B], seed=seed)
        play_defaults(state)
        assert state.result is not None and state.result.tiebreak == "lot"
        winners.add(state.result.winners[0])
    assert winners == {0, 1}


def test_ruling_12_a_forfeited_seat_is_placed_last() -> None:
    best = "God-1 God-2 God-4 God-5 Fate-1"  # a Quartet
    state = build_state([best, PAIR_A, WEAK], round=5, active=2)
    state.forfeit(0, "timeout")
    hold_turn(state, 2)
    assert state.result is not None
    assert state.result.placements == [3, 1, 2]
    assert state.result.forfeits == {0: "timeout"} and state.result.winners == [1]
    # a forfeited seat never contends in a tie either
    state = build_state([PAIR_A, PAIR_B, WEAK], round=5, active=2)
    state.forfeit(1, "crashed")
    hold_turn(state, 2)
    assert state.result is not None
    assert state.result.tiebreak == "none" and state.result.placements == [1, 3, 2]


def test_ruling_12_a_seat_forfeiting_during_rps_drops_out() -> None:
    # three tied; seat 0 forfeits during the sudden death (a bot crashing on its throw) and
    # plays the safe default, rock; rock "beats" the others' scissors, yet a forfeited seat
    # never contends: its throw is void and seats 1 and 2 settle first place between them
    state = final_showdown([PAIR_A, PAIR_B, PAIR_C])
    state.forfeit(0, "crashed")
    act(state, "rps", 0, throw="rock")
    act(state, "rps", 1, throw="scissors")
    act(state, "rps", 2, throw="scissors")
    assert state.decision is not None, "seats 1 and 2 are still tied: they throw again"
    assert {state.decision.seat} <= {1, 2}
    act(state, "rps", 1, throw="paper")
    act(state, "rps", 2, throw="scissors")
    assert state.result is not None
    assert state.result.placements == [3, 2, 1]
    assert state.result.tiebreak == "rps"


def test_ruling_12_when_every_seat_tied_for_first_forfeits_the_next_tie_is_broken() -> None:
    # seats 0 and 1 tie for first and both forfeit during the sudden death; seats 2 and 3,
    # tied below them, now share the best Desmos of the seats that contend: that tie for
    # first place is broken too, not left as two winners
    weak_too = "God-4 Sophoi-1 Agari-2 Arcoi-4 Beast-5"  # a High Hand with WEAK's tie key
    state = final_showdown([PAIR_A, PAIR_B, WEAK, weak_too])
    state.forfeit(0, "crashed")
    state.forfeit(1, "crashed")
    act(state, "rps", 0, throw="rock")
    act(state, "rps", 1, throw="rock")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (2, "rps")
    act(state, "rps", 2, throw="paper")
    act(state, "rps", 3, throw="rock")
    assert state.result is not None
    assert state.result.placements == [3, 3, 1, 2] and state.result.winners == [2]
    assert state.result.tiebreak == "rps"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_ruling_12_one_winner_whoever_forfeits_during_the_sudden_death(players: int) -> None:
    """Exhaustively over which seats share the best Desmos and which of them forfeit once the
    sudden death starts: while a seat contends, exactly one seat is first, and it contends;
    every forfeited seat is last."""
    high, low = evaluate(parse_cards(PAIR_A)), evaluate(parse_cards(WEAK))
    for pattern in itertools.product((high, low), repeat=players):
        tied = [seat for seat, value in enumerate(pattern) if value == max(pattern)]
        for count in range(len(tied) + 1):
            for quitters in itertools.combinations(tied, count):
                _check_one_winner(list(pattern), set(quitters))


def _check_one_winner(values: list[Value], quitters: set[int]) -> None:
    n = len(values)
    state = build_state([""] * n, round=rounds_for(n), active=n - 1, start=False)
    by_seat = {id(state.hands[seat]): value for seat, value in enumerate(values)}
    state.evaluate = lambda hand: by_seat[id(hand)]  # the staged Desmos of each seat
    state.push(showdown)
    state.run()
    throws = random.Random(len(quitters) * 31 + n)
    while state.decision is not None:
        for seat in quitters:
            state.forfeit(seat, "crashed")
        seat = state.decision.seat
        state.apply(0 if seat in state.forfeits else throws.randrange(3))
    assert state.result is not None
    placements = state.result.placements
    if len(state.forfeits) < n:
        assert placements.count(1) == 1 and len(state.result.winners) == 1, placements
    assert all(placements[seat] == max(placements) for seat in state.forfeits)


# ============================================================================ ruling 13


def test_ruling_13_starting_player() -> None:
    # first game: most recent last_read_page; missing counts as oldest
    reads = [dt.datetime(2026, 11, 1, 9, 0), None, dt.datetime(2026, 11, 1, 21, 30)]
    assert first_starting_seat(reads, seed=1) == 2
    assert first_starting_seat([None, dt.date(1999, 1, 1)], seed=1) == 1
    # a page read after the match's day is no claim: the future wins nothing
    day = dt.date(2026, 11, 29)
    future = [dt.datetime(9999, 12, 31, 23, 59), dt.datetime(2026, 11, 29, 22, 0)]
    assert first_starting_seat(future, seed=1, event_date=day) == 1
    assert first_starting_seat([dt.date(2026, 11, 30), None, dt.date(2026, 1, 1)], seed=1,
                               event_date=day) == 2
    # ties by a seeded lot: deterministic for a seed, only among the tied seats
    tied = [dt.date(2026, 1, 1), dt.date(2026, 3, 3), dt.date(2026, 3, 3), None]
    picks = {first_starting_seat(tied, seed=s) for s in range(30)}
    assert picks == {1, 2}
    assert all(first_starting_seat(tied, seed=s) == first_starting_seat(tied, seed=s)
               for s in range(10))
    # later games: the loser of the previous game
    previous = final_showdown([PAIR_A, "God-1 God-2 Sophoi-1 Sophoi-2 Fate-3", WEAK]).result
    assert previous is not None and previous.placements == [2, 1, 3]
    assert next_starting_seat(previous, seed=9) == 2
    # the starting seat takes the first turn and play goes on in seat order
    config = GameConfig(players=("a", "b", "c"), seed=2, starting_seat=next_starting_seat(
        previous, seed=9))
    state = play_game(config, [FirstOptionAgent()] * 3)
    assert [t["seat"] for t in state.turn_log[:4]] == [2, 0, 1, 2]
    assert state.record()["starting_seat"] == 2


def test_ruling_13_several_losers_draw_lots() -> None:
    previous = final_showdown([PAIR_A, "God-1 God-2 Sophoi-1 Sophoi-2 Fate-3", PAIR_B]).result
    assert previous is not None and previous.placements == [2, 1, 2]
    picks = {next_starting_seat(previous, seed=s) for s in range(30)}
    assert picks == {0, 2}


# ----------------------------------------------------------------------------- E20: copies
def _copies_stage(revealed_first: bool, holder: int = 0,
                  mine: str = "Agari-2 Agari-3 Beast-2") -> tuple[Any, int, int]:
    """Seat ``holder`` holds two Fate-3, one of them revealed (the first or the second in
    hand); seat 0 holds ``mine`` besides."""
    hands = [f"Fate-3 Fate-3 {mine}" if holder == 0 else f"{mine} Fate-5 Fate-4",
             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
             "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"]
    if holder:
        hands[holder] = "Fate-3 Fate-3 " + " ".join(hands[holder].split()[2:])
    state = build_state(hands, pile_top="Fate-1 Fate-2 Beast-1 Beast-3", start=False)
    first, second = [c for c in state.hands[holder] if NOTATION[c] == "Fate-3"]
    shown, hidden = (first, second) if revealed_first else (second, first)
    state.revealed[holder].add(shown)
    state.push(start_turn)
    state.run()
    return state, shown, hidden


@pytest.mark.parametrize("revealed_first", [True, False])
def test_e20_a_trap_is_the_hidden_copy_so_nobody_learns_what_went_face_down(
        revealed_first: bool) -> None:
    state, shown, hidden = _copies_stage(revealed_first)
    act(state, "turn", 0, action="trap", card="Fate-3")
    assert [trap.card for trap in state.traps[0]] == [hidden]
    assert state.revealed[0] == {shown}
    for seat in (1, 2):  # the revealed Fate-3 is still shown: the trap could be anything
        assert state.observe(seat).revealed[0] == ["Fate-3"]


@pytest.mark.parametrize("revealed_first", [True, False])
def test_e20_a_card_played_face_up_is_the_revealed_copy(revealed_first: bool) -> None:
    state, shown, hidden = _copies_stage(revealed_first)
    act(state, "turn", 0, action="play", card="Fate-3")
    assert hidden in state.hands[0] and shown not in state.hands[0]
    assert state.revealed[0] == set()  # the one the others knew of is the one that left


@pytest.mark.parametrize("revealed_first", [True, False])
@pytest.mark.parametrize("holder", [1, 0], ids=["taken", "given"])
def test_e20_a_card_changing_hands_is_the_hidden_copy(revealed_first: bool,
                                                      holder: int) -> None:
    """A card changing hands goes where the others cannot see it: the hidden copy moves (taken
    by Hermes, or given in exchange), the revealed one stays shown, and the exchange tells the
    others nothing new."""
    state, shown, hidden = _copies_stage(revealed_first, holder=holder,
                                         mine="God-1 Agari-2 Beast-2")
    act(state, "turn", 0, action="play", card="God-1")
    act(state, "target", 0, seat=1)
    act(state, "card", 0, card="Fate-3" if holder else "Umbrae-1")
    act(state, "give", 0, card="Agari-2" if holder else "Fate-3")
    assert hidden in state.hands[1 - holder] and shown in state.hands[holder]
    assert state.revealed[holder] == {shown}
    assert "took" not in events_of(state, "exchange")[-1]


def test_e20_card_options_over_every_small_hand() -> None:
    """Exhaustively, over every arrangement of a few cards with two pairs of copies and the
    Palaestron, and every set of them revealed: one option per face, in the order the faces
    first appear, never the Palaestron, and of two copies the one E20 names (the revealed
    copy leaving face up, a hidden copy leaving face down; with no revealed set, the first)."""
    pool = parse_cards("Fate-3 Fate-3 Crown Crown God-1") + [PALAESTRON]
    checked = 0
    for size in range(len(pool) + 1):
        for cards in itertools.permutations(pool, size):
            for shown_count in range(size + 1):
                for shown in itertools.combinations(cards, shown_count):
                    for face_up in (True, False):
                        _check_card_options(list(cards), set(shown), face_up)
                        checked += 1
                _check_card_options(list(cards), None, True)
    assert checked > 10_000


def _check_card_options(cards: list[int], revealed: set[int] | None, face_up: bool) -> None:
    options, payloads = card_options(cards, "card", revealed, face_up)
    faces = list(dict.fromkeys(NOTATION[c] for c in cards if c != PALAESTRON))
    assert options == [{"card": face} for face in faces]
    assert [NOTATION[c] for c in payloads] == faces
    for payload in payloads:
        copies = [c for c in cards if NOTATION[c] == NOTATION[payload]]
        if revealed is None:
            assert payload == copies[0]
        elif any((c in revealed) == face_up for c in copies):
            assert (payload in revealed) == face_up, (cards, revealed, face_up)
