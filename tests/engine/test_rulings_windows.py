"""The trigger windows of E10 ("May be triggered any time by the player who set them"): the
start of a turn and a declared play as before, and a triggered trap, a drawn Palaestron, a
God fired by a forced discard and the end of the last turn; the house rule
``trap_windows=turn_and_play`` keeps only the first two. Windows ask only players holding a
triggerable trap."""

from __future__ import annotations

import random

import pytest
from engine_scenario import act, build_state, events_of, hold_turn, names
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameConfig, new_game
from arena.engine.config import rounds_for
from arena.engine.state import State

THREE = ["Agari-1 Agari-2 Umbrae-1 Fate-3 Beast-3",
         "Umbrae-2 Umbrae-3 Arcoi-1 Fate-4 Beast-4",
         "Sophoi-1 Sophoi-2 Arcoi-2 Fate-5 Beast-5"]
OLD = {"trap_windows": "turn_and_play"}


def windows_asked(state: State) -> list[tuple[int, str]]:
    decision = state.decision
    assert decision is not None
    return [(decision.seat, decision.context["window"])] if decision.kind == "trigger" else []


def test_a_drawn_palaestron_opens_a_window_before_its_steps() -> None:
    # seat 1 holds an Umbrae trap the Palaestron would clear; seat 0 draws the Palaestron
    state = build_state(THREE, traps={1: ["Umbrae-4"]}, pile_top="Palaestron Fate-1")
    act(state, "trigger", 1, trap=None)  # the start of seat 0's turn
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-3")
    assert events_of(state, "palaestron")
    # before any forced discard: seat 1 may spring its trap
    assert windows_asked(state) == [(1, "palaestron")]
    assert not events_of(state, "forced_discard")
    act(state, "trigger", 1, trap="Umbrae-4")
    act(state, "target", 1, seat=0)  # Umbrae: a look at seat 0's hand
    assert [e["window"] for e in events_of(state, "trap_triggered")] == ["palaestron"]
    assert events_of(state, "peek")
    assert not events_of(state, "trap_cleared")


def test_without_the_new_windows_the_palaestron_clears_the_trap_unasked() -> None:
    state = build_state(THREE, traps={1: ["Umbrae-4"]}, pile_top="Palaestron Fate-1",
                        rules=OLD)
    act(state, "trigger", 1, trap=None)
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-3")
    assert state.decision is not None and state.decision.kind == "discard"
    while state.decision is not None and state.decision.kind in ("discard", "reveal"):
        act(state)
    assert [e["card"] for e in events_of(state, "trap_cleared")] == ["Umbrae-4"]


def test_a_trap_set_in_the_last_turn_may_be_triggered_before_the_showdown() -> None:
    n = 3
    state = build_state(THREE, round=rounds_for(n), active=n - 1)
    act(state, "turn", 2, action="trap", card="Fate-5")
    act(state, "swap", 2)
    # after the last turn: the window before the showdown, for the trap just set
    assert windows_asked(state) == [(2, "showdown")]
    act(state, "trigger", 2, trap="Fate-5")  # Nemesis: an exchange with an opponent
    act(state, "target", 2, seat=0)
    act(state, "give", 0)
    act(state, "give", 2)
    assert [e["window"] for e in events_of(state, "trap_triggered")] == ["showdown"]
    assert state.result is not None and events_of(state, "showdown")


def test_without_the_new_windows_the_last_trap_is_never_used() -> None:
    state = build_state(THREE, round=rounds_for(3), active=2, rules=OLD)
    act(state, "turn", 2, action="trap", card="Fate-5")
    act(state, "swap", 2)
    assert state.result is not None and not events_of(state, "trap_triggered")


def test_a_trap_may_answer_a_trap_before_it_resolves() -> None:
    # seat 0 springs Zeus on seat 1 at the start of its turn; seat 1 answers with its own
    # trap before Zeus destroys it; seat 2 has no trap and is not asked
    state = build_state(THREE, traps={0: ["God-7"], 1: ["Fate-4"]},
                        discard_graveyard="Agari-3")
    assert windows_asked(state) == [(0, "turn_start")]
    act(state, "trigger", 0, trap="God-7")
    assert windows_asked(state) == [(1, "answer")]
    act(state, "trigger", 1, trap="Fate-4")  # Tyche: Agari-3 from the Discard Graveyard
    act(state, "give", 1, card="Beast-4")
    assert [(e["seat"], e["window"]) for e in events_of(state, "trap_triggered")] == [
        (0, "turn_start"), (1, "answer")]
    # the answer resolved first; then Zeus strikes (target, two forced discards)
    assert "Agari-3" in names(state.hands[1])
    act(state, "target", 0, seat=1)
    assert not events_of(state, "trap_destroyed")  # seat 1's trap was already used


def test_e32_a_declared_play_makes_its_choices_as_it_resolves_after_its_window() -> None:
    # seat 0 declares Arcoi while seat 1's trap is the only one to hit: nothing is chosen
    # yet, seat 1 springs that trap in answer, and the Arcoi, finding no trap left, makes an
    # opponent reveal a card, the opponent chosen only now
    state = build_state(["Arcoi-3 Agari-1 Umbrae-1 Fate-3 Beast-3", THREE[1], THREE[2]],
                        traps={1: ["Beast-2"]})
    act(state, "trigger", 1, trap=None)  # the start of seat 0's turn
    act(state, "turn", 0, action="play", card="Arcoi-3")
    assert windows_asked(state) == [(1, "declare")]
    act(state, "trigger", 1, trap="Beast-2")  # Hippocamp: a look, no choice
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "target")
    assert decision.options == ({"seat": 1}, {"seat": 2})  # seats, not traps: none is left
    act(state, "target", 0, seat=2)
    act(state, "reveal", 2, card="Fate-5")
    assert not events_of(state, "trap_destroyed")
    assert [(e["seat"], e["card"]) for e in events_of(state, "reveal")] == [(2, "Fate-5")]


def test_without_the_new_windows_a_trap_cannot_answer_a_trap() -> None:
    state = build_state(THREE, traps={0: ["God-7"], 1: ["Fate-4"]}, rules=OLD)
    act(state, "trigger", 0, trap="God-7")
    act(state, "target", 0, seat=1)
    assert [e["card"] for e in events_of(state, "trap_destroyed")] == ["Fate-4"]


def raid_a_zeus(rules: dict[str, str] | None) -> State:
    """Seat 0 raids seat 1, who discards Zeus; seat 2 holds a trap Zeus may destroy."""
    state = build_state(["Agari-1 Agari-2 Umbrae-1 Fate-3 Beast-3",
                         "God-7 Umbrae-3 Arcoi-1 Fate-4 Beast-4", THREE[2]],
                        traps={2: ["Umbrae-4"]}, rules=rules)
    act(state, "trigger", 2, trap=None)  # the start of seat 0's turn
    act(state, "turn", 0, action="play", card="Agari-1")
    act(state, "trigger", 2, trap=None)  # the play declared
    act(state, "target", 0, seat=1)
    act(state, "discard", 1, card="God-7")
    return state


def test_a_god_fired_by_a_forced_discard_opens_a_window_to_its_opponents() -> None:
    state = raid_a_zeus(None)
    # Zeus is shown and about to resolve for seat 1: seat 2 may spring its trap first
    assert windows_asked(state) == [(2, "discarded")]
    assert not [e for e in events_of(state, "effect") if e["card"] == "God-7"]
    act(state, "trigger", 2, trap="Umbrae-4")
    act(state, "target", 2, seat=1)  # Umbrae: a look at seat 1's hand
    assert [e["window"] for e in events_of(state, "trap_triggered")] == ["discarded"]
    act(state, "target", 1, seat=2)  # then Zeus strikes: no trap left to destroy
    assert not events_of(state, "trap_destroyed")


def test_without_the_new_windows_a_discarded_god_resolves_unanswered() -> None:
    state = raid_a_zeus(OLD)
    act(state, "target", 1, seat=2)
    assert [e["card"] for e in events_of(state, "trap_destroyed")] == ["Umbrae-4"]


class NoTraps:
    """Random legal choices that never set a trap."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, state: State) -> int:
        decision = state.decision
        assert decision is not None
        legal = [i for i, o in enumerate(decision.options) if o.get("action") != "trap"]
        return self.rng.choice(legal)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_games_without_traps_ask_no_more_decisions(seed: int, players: int) -> None:
    games = []
    for rules in (None, OLD):
        config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                            rules=rules)  # type: ignore[arg-type]
        state = new_game(config)
        choose = NoTraps(seed)
        while state.decision is not None:
            state.apply(choose(state))
        assert state.result is not None
        games.append((state.choices, state.result.to_json()))
    assert games[0] == games[1]
    assert not any(kind == "trigger" for _, kind, _ in games[0][0])


@pytest.mark.parametrize("rules", [None, OLD])
def test_a_window_asks_only_seats_with_a_triggerable_trap(rules: dict[str, str] | None
                                                         ) -> None:
    # seat 2's trap counts as set this turn (E9): not triggerable, so seat 2 is not asked
    # when seat 0 declares a play, and seat 1, with no trap, is never asked
    state = build_state(THREE, traps={2: [("Beast-5", 0, 0)]}, rules=rules)
    assert state.decision is not None and state.decision.kind == "turn"
    act(state, "turn", 0, action="play", card="Fate-3")
    assert state.decision is not None and (state.decision.seat, state.decision.kind) == (
        0, "target")
    act(state, "target", 0, seat=1)
    act(state, "reveal", 1)
    act(state, "swap", 0)
    # the next turn: the trap is triggerable now, and only its owner is asked
    assert windows_asked(state) == [(2, "turn_start")]
    act(state, "trigger", 2, trap=None)
    hold_turn(state, 1)


def test_e36_before_the_showdown_a_seat_may_spring_both_its_traps() -> None:
    # "May be triggered any time by the player who set them": the window before the showdown
    # is the last time there is, so a seat holding two live traps may use both (E36)
    n = 3
    state = build_state(THREE, traps={0: ["Umbrae-4", "Fate-3"]}, round=rounds_for(n),
                        active=n - 1)
    act(state, "trigger", 0, trap=None)  # the start of the last turn: kept for the end
    hold_turn(state, 2)
    assert windows_asked(state) == [(0, "showdown")]
    act(state, "trigger", 0, trap="Umbrae-4")
    act(state, "target", 0, seat=1)  # Umbrae: a look at seat 1's hand
    assert windows_asked(state) == [(0, "showdown")]  # asked again, its other trap live
    act(state, "trigger", 0, trap="Fate-3")
    act(state, "target", 0, seat=1)  # Atropos: seat 1 reveals a card
    act(state, "reveal", 1)
    assert [e["card"] for e in events_of(state, "trap_triggered")] == ["Umbrae-4", "Fate-3"]
    assert events_of(state, "showdown")  # no trap left: the hands are shown


def test_e36_a_seat_may_spring_both_its_traps_before_the_palaestron_clears_them() -> None:
    state = build_state(THREE, traps={1: ["Umbrae-4", "Fate-3"]},
                        pile_top="Palaestron Fate-1")
    act(state, "trigger", 1, trap=None)  # the start of seat 0's turn
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-3")
    act(state, "trigger", 1, trap="Umbrae-4")
    act(state, "target", 1, seat=0)
    assert windows_asked(state) == [(1, "palaestron")]
    act(state, "trigger", 1, trap=None)  # a pass ends its turn in the window
    assert state.decision is not None and state.decision.kind == "discard"
    while state.decision is not None and state.decision.kind in ("discard", "reveal"):
        act(state)
    assert [e["card"] for e in events_of(state, "trap_cleared")] == ["Fate-3"]


def test_e36_a_seat_answering_in_the_showdown_window_may_spring_its_other_trap() -> None:
    # seat 1 passed in the showdown window; seat 2's trap then opens an answer window there,
    # after which no window is left: seat 1 answers and is asked again until it passes
    n = 3
    state = build_state(THREE, traps={1: ["Umbrae-4", "Fate-3"], 2: ["Umbrae-5"]},
                        round=rounds_for(n), active=n - 1)
    hold_turn(state, 2)
    assert windows_asked(state) == [(1, "showdown")]
    act(state, "trigger", 1, trap=None)
    act(state, "trigger", 2, trap="Umbrae-5")
    assert windows_asked(state) == [(1, "answer")]
    act(state, "trigger", 1, trap="Umbrae-4")
    act(state, "target", 1, seat=0)
    assert windows_asked(state) == [(1, "answer")]  # before Umbrae-5 resolves
    assert state.decision is not None and state.decision.context["source"] == "Umbrae-5"
    act(state, "trigger", 1, trap="Fate-3")
    act(state, "target", 1, seat=0)
    act(state, "reveal", 0)
    act(state, "target", 2)  # Umbrae-5 resolves last
    assert [e["card"] for e in events_of(state, "trap_triggered")] == [
        "Umbrae-5", "Umbrae-4", "Fate-3"]
    assert events_of(state, "showdown")


def test_e36_a_god_discarded_to_the_palaestron_is_answered_until_its_answerer_passes(
        ) -> None:
    # the Palaestron clears every Arena after its discards: a God one of them fires opens a
    # window with none after it, so seat 1 (which passed in the Palaestron's) may use both
    hands = ["God-6 Agari-2 Umbrae-1 Fate-3 Beast-3", *THREE[1:]]
    state = build_state(hands, traps={1: ["Umbrae-4", "Fate-3"]},
                        pile_top="Palaestron Fate-1")
    act(state, "trigger", 1, trap=None)  # the start of seat 0's turn
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-3")
    act(state, "trigger", 1, trap=None)  # the Palaestron's window
    act(state, "discard", 0, card="God-6")
    assert windows_asked(state) == [(1, "discarded")]
    act(state, "trigger", 1, trap="Umbrae-4")
    act(state, "target", 1, seat=0)
    assert windows_asked(state) == [(1, "discarded")]  # Apollo has not resolved yet
    act(state, "trigger", 1, trap="Fate-3")
    assert [e["card"] for e in events_of(state, "trap_triggered")] == ["Umbrae-4", "Fate-3"]


def test_e36_an_answer_in_an_ordinary_window_still_leaves_the_second_trap_waiting() -> None:
    # at the start of a turn, later windows follow: E8 stands for the answering seat
    state = build_state(THREE, traps={1: ["Umbrae-4", "Fate-3"], 2: ["Umbrae-5"]})
    act(state, "trigger", 1, trap=None)
    act(state, "trigger", 2, trap="Umbrae-5")
    assert windows_asked(state) == [(1, "answer")]
    act(state, "trigger", 1, trap="Umbrae-4")
    act(state, "target", 1, seat=0)
    act(state, "target", 2)
    assert state.decision is not None and state.decision.kind == "turn"


def test_e36_at_the_start_of_a_turn_the_second_trap_still_waits() -> None:
    state = build_state(THREE, traps={0: ["Umbrae-4", "Fate-3"]})
    act(state, "trigger", 0, trap="Umbrae-4")
    act(state, "target", 0, seat=1)
    assert state.decision is not None and state.decision.kind == "turn"
