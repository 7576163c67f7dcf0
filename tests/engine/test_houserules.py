"""House rules (RULES.md, "House rules"): each reading checked, validated, recorded, replayed."""

from __future__ import annotations

import itertools
import json
import random
import re
from dataclasses import fields

import pytest
from engine_scenario import act, build_state, events_of, names
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.engine.actions import card_options
from arena.engine.cards import PALAESTRON, parse_cards
from arena.engine.config import rounds_for
from arena.engine.desmos import (
    CODE_FAMILY,
    KEY_FAMILY,
    Category,
    census,
    evaluate,
    evaluate_family,
    evaluate_naive,
)
from arena.engine.houserules import RULE_CHOICES, RULE_HELP, HouseRules, parse_rule
from arena.engine.record import replay_one
from arena.engine.state import State
from arena.engine.turn import start_turn
from arena.errors import ReplayError, RulesError

C = Category


# ---------------------------------------------------------------------------- validation
def test_the_defaults_are_the_first_reading_of_each_rule() -> None:
    assert HouseRules().to_json() == {name: choices[0] for name, choices in RULE_CHOICES.items()}
    assert HouseRules().is_default and HouseRules().describe() == "default house rules"
    assert HouseRules(kinds="family").describe() == "house rules: kinds=family"


def test_every_rule_has_a_field_and_a_help_line_for_each_reading() -> None:
    # the three declarations of a rule are written by hand: one forgotten is a KeyError
    # in `arena rules --house`, or a rule no game can be given
    assert [f.name for f in fields(HouseRules)] == list(RULE_CHOICES) == list(RULE_HELP)
    for name, choices in RULE_CHOICES.items():
        assert list(RULE_HELP[name]) == list(choices), name


@pytest.mark.parametrize("data, message", [
    ({"kind": "family"}, "no house rule 'kind' (did you mean 'kinds'?): the house rules are "
                         "kinds, dealt_palaestron"),
    ({"colour": "red"}, "no house rule 'colour': the house rules are kinds, dealt_palaestron"),
    ({"kinds": "families"}, "house rule kinds must be one of type, family, not 'families' "
                            "(did you mean 'family'?)"),
    ({"kinds": "tribe"}, "house rule kinds must be one of type, family, not 'tribe'"),
    ({"reclaim": 1}, "house rule reclaim must be one of today, strict, not 1"),
    ("kinds=family", "house rules must be a mapping of NAME: VALUE"),
])
def test_bad_rules_are_refused_in_one_line(data: object, message: str) -> None:
    with pytest.raises(RulesError, match="^" + re.escape(message)) as error:
        HouseRules.from_json(data)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)


def test_a_rule_on_the_command_line_is_name_equals_value() -> None:
    assert parse_rule(" kinds = family ") == ("kinds", "family")
    for bad in ("kinds", "kinds=", "=family", "kinds=tribe"):
        with pytest.raises(RulesError):
            parse_rule(bad)


def test_a_config_takes_a_mapping_and_records_its_rules() -> None:
    config = GameConfig(players=("a", "b"), rules={"kinds": "family"})  # type: ignore[arg-type]
    assert config.rules == HouseRules(kinds="family")
    assert GameConfig.from_json(config.to_json()) == config
    assert config.to_json()["rules"] == {**HouseRules().to_json(), "kinds": "family"}


@pytest.mark.parametrize("rules", [{name: choices[1]} for name, choices in RULE_CHOICES.items()]
                         + [{name: choices[1] for name, choices in RULE_CHOICES.items()}])
def test_games_under_every_reading_replay_from_their_record(rules: dict[str, str]) -> None:
    for players in (2, 5):
        for seed in range(6):
            config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                rules=rules)  # type: ignore[arg-type]
            state = play_game(config, [RandomAgent(seed + i) for i in range(players)])
            record = json.loads(json.dumps(state.record()))
            assert record["config"]["rules"] == config.rules.to_json()
            replay_one(record)


def test_a_record_of_the_rules_before_house_rules_is_refused_naming_its_version() -> None:
    state = play_game(GameConfig(players=("a", "b"), seed=1), [RandomAgent(1), RandomAgent(2)])
    record = json.loads(json.dumps(state.record()))
    record["format"] = "palaestra-record/2"
    with pytest.raises(ReplayError, match="palaestra-record/2.*palaestra-record/7"):
        replay_one(record)


# ---------------------------------------------------------------------------- kinds
def test_family_census() -> None:
    counts = census("family")
    assert sum(counts.values()) == 2_349_060
    assert counts == {
        C.ASCENSION: 21, C.QUARTET: 348_159, C.FULL_DOMAIN: 312_567, C.RANK_FLUSH: 1_665,
        C.STRAIGHT: 26_838, C.TRIPLET: 713_420, C.TWO_PAIR: 569_450, C.PAIR: 376_940,
        C.HIGH_HAND: 0}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, PALAESTRON - 1), min_size=0, max_size=5, unique=True))
def test_family_evaluation_agrees_with_the_naive_oracle(cards: list[int]) -> None:
    assert evaluate_family(cards) == evaluate_naive(cards, "family")


def test_family_keys_identify_signatures_for_every_hand() -> None:
    seen: dict[int, int] = {}
    for size in range(6):
        for hand in itertools.combinations(range(PALAESTRON), size):
            key = sum(KEY_FAMILY[c] for c in hand)
            signature = sum(CODE_FAMILY[c] for c in hand)
            assert seen.setdefault(key, signature) == signature, hand


def test_family_groups_the_classes() -> None:
    hand = parse_cards("Agari-5 Umbrae-6 Sophoi-4 Fate-5 Beast-4")
    assert evaluate(hand)[0] == C.HIGH_HAND
    assert evaluate_family(hand)[0] == C.TRIPLET
    straight = parse_cards("Agari-1 Umbrae-2 Arcoi-3 Sophoi-4 Agari-6")
    assert evaluate_family(straight)[0] == C.STRAIGHT


@pytest.mark.parametrize("kinds, placements", [("type", [2, 1]), ("family", [1, 2])])
def test_the_showdown_uses_the_kinds_of_the_game(kinds: str, placements: list[int]) -> None:
    # seat 0: three Classes of three types (a Pair of Fates under type, a Full Domain under
    # family); seat 1: a Triplet of Umbrae
    hands = ["Agari-1 Umbrae-1 Arcoi-1 Fate-1 Fate-2", "Umbrae-2 Umbrae-3 Umbrae-4 God-1 Beast-1"]
    state = build_state(hands, round=rounds_for(2), active=1, rules={"kinds": kinds},
                        pile_top="Beast-2 Beast-3")
    act(state, "turn", 1, action="hold")
    act(state, "swap", 1)
    assert state.result is not None and state.result.placements == placements


# ---------------------------------------------------------------------------- dealt Palaestron
@pytest.mark.parametrize("reading", ["play", "redeal"])
def test_a_dealt_palaestron_is_played_or_redealt(reading: str) -> None:
    config = GameConfig(players=("a", "b"), seed=10,  # seed 10 deals the Palaestron
                        rules={"dealt_palaestron": reading})  # type: ignore[arg-type]
    state = new_game(config)
    kinds = [e["type"] for _, e in state.log]
    if reading == "play":
        assert "palaestron" in kinds and "palaestron_redealt" not in kinds
        return
    assert "palaestron_redealt" in kinds and "palaestron" not in kinds
    assert PALAESTRON in state.draw_pile and [len(h) for h in state.hands] == [5, 5]
    assert not events_of(state, "forced_discard")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_redeal_keeps_every_card_in_play(seed: int, players: int) -> None:
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                        rules={"dealt_palaestron": "redeal"})  # type: ignore[arg-type]
    state = new_game(config)
    assert sorted(state.all_cards()) == list(range(52))
    assert not any(e["type"] == "palaestron" for _, e in state.log)
    assert all(len(h) == 5 for h in state.hands)


# ---------------------------------------------------------------------------- reclaim
@pytest.mark.parametrize("reading, placements", [("today", [2, 1]), ("strict", [1, 2])])
def test_strict_reclaim_a_used_card_drawn_back_does_not_count(reading: str,
                                                              placements: list[int]) -> None:
    # seat 1 used Agari-4 for its effect earlier (staged); the last turn's swap draws it back
    hands = ["Umbrae-1 Umbrae-2 Umbrae-3 Fate-1 Beast-1", "Agari-1 Agari-2 Agari-3 Fate-2 Beast-2"]
    state = build_state(hands, round=rounds_for(2), active=1, rules={"reclaim": reading},
                        pile_top="Agari-4", start=False)
    state.used[1].update(parse_cards("Agari-4"))  # the same physical card: one copy exists
    state.push(start_turn)
    state.run()
    act(state, "turn", 1, action="hold")
    act(state, "swap", 1, swap="Beast-2")
    assert "Agari-4" in names(state.hands[1])
    assert state.result is not None and state.result.placements == placements
    # today: seat 1's Quartet of Agari wins; strict: Agari-4 is dead, and seat 1's four
    # counting cards (a Triplet, key 3 3 3 2) lose to seat 0's Triplet (key 3 3 3 2 1)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 5))
def test_strict_reclaim_tracks_each_card_its_seat_used(seed: int, players: int) -> None:
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                        rules={"reclaim": "strict"})  # type: ignore[arg-type]
    state = new_game(config)
    choose = random.Random(seed)
    while state.decision is not None:
        state.apply(choose.randrange(len(state.decision.options)))
    used: list[set[str]] = [set() for _ in range(players)]
    for _, event in state.log:
        if event["type"] == "effect" and event["card"] != "Palaestron":
            used[event["seat"]].add(event["card"])
    assert [{names([c])[0] for c in u} for u in state.used] == used
    assert state.result is not None
    assert state.result.keys == [
        [v[0], list(v[1])] for v in
        (evaluate([c for c in hand if c not in u]) for hand, u in zip(state.hands, state.used))]


@pytest.mark.parametrize("trap, kind", [("Fate-1", "discard"), ("Beast-5", "give")])
def test_strict_reclaim_five_gods_left_when_the_used_god_leaves_six_cards_ascend(
        trap: str, kind: str) -> None:
    # Seat 0 holds five Gods, one of them (God-1) used earlier (staged), so not The
    # Ascension. A Clotho / Phoenix trap draws the sixth God; putting the used God away leaves
    # five Gods it never used: that hand became five natural Gods (E19), as when a non-God
    # leaves a six-card hand.
    state = build_state(["God-1 God-2 God-3 God-4 God-5",
                         "Agari-1 Agari-2 Agari-3 Agari-4 Fate-2"],
                        traps={0: [trap]}, pile_top="God-6 Fate-3 Fate-4",
                        rules={"reclaim": "strict"}, start=False)
    state.used[0].update(parse_cards("God-1"))
    state.push(start_turn)
    state.run()
    act(state, "trigger", 0, trap=trap)
    assert len(state.hands[0]) == 6 and not state.is_over
    act(state, kind, 0, card="God-1")
    assert state.is_over and state.decision is None
    assert state.result is not None
    assert state.result.ascension is True and state.result.placements == [1, 2]
    assert events_of(state, "ascension")[0]["hand"] == ["God-2", "God-3", "God-4", "God-5",
                                                         "God-6"]


def _strict_with_a_used_copy(hands: list[str], holder: int, used_first: bool,
                             user: int | None = None) -> tuple[State, int, int]:
    """A strict game whose seat ``holder`` holds both Fate-3 copies, one of them (the first
    or the second in its hand's order) used earlier by seat ``user`` (default: the holder),
    run to its first decision: (state, used copy, counting copy)."""
    state = build_state(hands, rules={"reclaim": "strict"}, start=False)
    first, second = [c for c in state.hands[holder] if names([c]) == ["Fate-3"]]
    used, counting = (first, second) if used_first else (second, first)
    state.used[holder if user is None else user].add(used)
    state.push(start_turn)
    state.run()
    return state, used, counting


@pytest.mark.parametrize("used_first", [True, False])
@pytest.mark.parametrize("action", ["swap", "play", "trap"])
def test_e35_strict_reclaim_the_copy_a_seat_gives_up_is_the_one_it_used(
        action: str, used_first: bool) -> None:
    # "a card you used for an effect does not count in your Desmos": of two Fate-3 in hand,
    # the one played, set or swapped away is the dead copy, wherever it lies in the hand
    hands = ["Fate-3 Fate-3 Crown Agari-1 Agari-2", "Beast-1 Beast-2 Beast-3 Fate-1 Fate-2"]
    state, used, counting = _strict_with_a_used_copy(hands, 0, used_first)
    if action == "swap":
        act(state, "turn", 0, action="hold")
        act(state, "swap", 0, swap="Fate-3")
    else:
        act(state, "turn", 0, action=action, card="Fate-3")
    assert counting in state.hands[0] and used not in state.hands[0]


@pytest.mark.parametrize("dead_first", [True, False])
def test_e35_card_options_moves_first_the_copies_named_whatever_is_revealed(
        dead_first: bool) -> None:
    # the keyword says what it does: of two copies of one face, the one it names is the one
    # that moves, even where E20 alone would move the revealed other one
    first, second = parse_cards("Fate-3 Fate-3")
    dead, counting = (first, second) if dead_first else (second, first)
    options, payloads = card_options([first, second, *parse_cards("Crown")], "card",
                                     revealed={counting}, moves_first={dead})
    assert [option["card"] for option in options] == ["Fate-3", "Crown"]
    assert payloads[0] == dead


@pytest.mark.parametrize("used_first", [True, False])
def test_e35_strict_reclaim_a_forced_discard_gives_up_the_used_copy(used_first: bool) -> None:
    hands = ["Agari-1 Umbrae-1 Umbrae-2 Arcoi-1 Arcoi-2", "Fate-3 Fate-3 Crown Beast-1 Beast-2"]
    state, used, counting = _strict_with_a_used_copy(hands, 1, used_first)
    act(state, "turn", 0, action="play", card="Agari-1")
    act(state, "discard", 1, card="Fate-3")
    assert counting in state.hands[1] and used not in state.hands[1]


@pytest.mark.parametrize("used_first", [True, False])
def test_e35_strict_reclaim_ares_sacks_the_copy_that_counts(used_first: bool) -> None:
    hands = ["God-5 Umbrae-1 Umbrae-2 Arcoi-1 Arcoi-2", "Fate-3 Fate-3 Crown Beast-1 Beast-2"]
    state, used, counting = _strict_with_a_used_copy(hands, 1, used_first)
    act(state, "turn", 0, action="play", card="God-5")
    act(state, "card", 0, card="Fate-3")
    assert used in state.hands[1] and counting not in state.hands[1]


@pytest.mark.parametrize("used_first", [True, False])
def test_e35_strict_reclaim_hermes_takes_a_copy_that_counts_for_its_taker(
        used_first: bool) -> None:
    # seat 0 used one Fate-3 earlier; seat 1 holds both: the copy seat 0 takes counts for it
    hands = ["God-1 Umbrae-1 Umbrae-2 Arcoi-1 Arcoi-2", "Fate-3 Fate-3 Crown Beast-1 Beast-2"]
    state, used, counting = _strict_with_a_used_copy(hands, 1, used_first, user=0)
    act(state, "turn", 0, action="play", card="God-1")
    act(state, "card", 0, card="Fate-3")
    act(state, "give", 0, card="Umbrae-1")
    assert counting in state.hands[0] and used in state.hands[1]
