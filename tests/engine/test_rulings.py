"""One named test per ruling of issue 2 (test_ruling_NN_...), each through the real engine.

Scenarios are staged with the builder of conftest.py (exact hands, traps, graveyards and pile
top) and driven decision by decision, so every test states the situation and the outcome a
player relies on.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import Counter
from typing import Any

import pytest
from engine_scenario import (
    act,
    build_state,
    events_of,
    final_showdown,
    hand,
    hold_turn,
    names,
    pile_top,
    play_defaults,
)

from arena.engine import (
    EFFECTS,
    FirstOptionAgent,
    GameConfig,
    RandomAgent,
    effect_of,
    new_game,
    play_game,
)
from arena.engine.cards import (
    BEAST_NAMES,
    DECK,
    FATE_NAMES,
    GOD_NAMES,
    NOTATION,
    PALAESTRON,
    Card,
    Kind,
    parse_cards,
)
from arena.engine.config import rounds_for
from arena.engine.showdown import RPS_THROW_CAP
from arena.engine.start import first_starting_seat, next_starting_seat
from arena.engine.turn import start_turn
from arena.errors import CardError, RulesError

# ============================================================================ ruling 1


def test_ruling_01_cards_and_notation() -> None:
    counts = Counter(NOTATION)
    assert len(DECK) == 52 and sum(counts.values()) == 52
    expected = {f"God-{r}": 1 for r in range(1, 8)}
    expected |= {f"Agari-{r}": 1 for r in range(1, 7)}
    expected |= {f"Umbrae-{r}": 1 for r in range(1, 7)}
    expected |= {f"Arcoi-{r}": 1 for r in range(1, 6)}
    expected |= {f"Sophoi-{r}": 1 for r in range(1, 6)}
    expected |= {f"Fate-{r}": 2 for r in range(1, 6)}
    expected |= {f"Beast-{r}": 2 for r in range(1, 6)}
    expected |= {"Crown": 2, "Palaestron": 1}
    assert dict(counts) == expected
    # family sizes of the rulebook's component list
    kinds = Counter(card.kind for card in DECK)
    assert kinds[Kind.GOD] == 7 and kinds[Kind.FATE] == 10 and kinds[Kind.BEAST] == 10
    assert kinds[Kind.AGARI] + kinds[Kind.UMBRAE] + kinds[Kind.ARCOI] + kinds[Kind.SOPHOI] == 22
    # rank = number; seven distinct named Gods, five Fate types, five Beast elements
    assert all(card.rank == int(card.notation().split("-")[1])
               for card in DECK if "-" in card.notation())
    assert len(set(GOD_NAMES)) == 7 and len(set(FATE_NAMES)) == 5 and len(set(BEAST_NAMES)) == 5
    assert [Card.parse(f"God-{r}").name for r in range(1, 8)] == list(GOD_NAMES)
    # parse and print round-trip, for every face and for the whole deck at once
    for text in counts:
        assert Card.parse(text).notation() == text == str(Card.parse(text))
    ids = parse_cards(" ".join(NOTATION))
    assert sorted(ids) == list(range(52))
    assert names(ids) == list(NOTATION)


def test_ruling_01_copies_get_distinct_ids() -> None:
    a, b = parse_cards("Fate-3, Fate-3")
    assert a != b and NOTATION[a] == NOTATION[b] == "Fate-3"
    c1, c2 = parse_cards(["Crown", "crown"])
    assert c1 != c2 and {NOTATION[c1], NOTATION[c2]} == {"Crown"}
    assert names(parse_cards("god-3 AGARI-6")) == ["God-3", "Agari-6"]


@pytest.mark.parametrize("text", ["God-0", "God-8", "Agari-7", "Umbrae-0", "Arcoi-6",
                                  "Sophoi-6", "Fate-6", "Beast-0", "Crown-1", "Palaestron-1",
                                  "Dragon-1", "God", "God-x", ""])
def test_ruling_01_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(CardError):
        Card.parse(text)


@pytest.mark.parametrize("hand_text", ["God-1 God-1", "Fate-2 Fate-2 Fate-2",
                                       "Crown Crown Crown", "Palaestron Palaestron"])
def test_ruling_01_too_many_copies_are_refused(hand_text: str) -> None:
    with pytest.raises(CardError, match="too many copies"):
        parse_cards(hand_text)


def test_ruling_01_games_speak_notation() -> None:
    state = play_game(GameConfig(players=("a", "b", "c"), seed=11),
                      [RandomAgent(1), RandomAgent(2), RandomAgent(3)])
    mentioned = [e["card"] for _, e in state.log if isinstance(e.get("card"), str)]
    mentioned += [c for _, e in state.log for c in e.get("cards", []) if isinstance(c, str)]
    assert mentioned
    for text in mentioned:
        assert Card.parse(text).notation() == text


# ============================================================================ ruling 2


def test_ruling_02_kinds() -> None:
    # Agari and Umbrae are two kinds: Two Pair, not a "Class" Quartet (which would win here).
    state = final_showdown(["Agari-1 Agari-2 Umbrae-3 Umbrae-4 Beast-1",
                            "Fate-1 Fate-2 Fate-3 Beast-2 Beast-3"])
    assert state.result is not None
    assert state.result.desmos == ["Two Pair", "Full Domain"]
    assert state.result.placements == [2, 1]


def test_ruling_02_five_different_kinds_is_a_high_hand() -> None:
    # one card of each Class plus a Fate: five kinds, so no Straight of "Classes"
    state = final_showdown(["Agari-1 Umbrae-2 Arcoi-3 Sophoi-4 Fate-5",
                            "Beast-1 Beast-2 Fate-1 Agari-3 Umbrae-4"])
    assert state.result is not None
    assert state.result.desmos == ["High Hand", "Pair"]
    assert state.result.placements == [2, 1]


def test_ruling_02_unused_crowns_are_a_kind_of_their_own() -> None:
    from arena.engine.desmos import evaluate

    # Two Crowns with a natural Triplet: best is one Crown joining (Quartet), the other left
    # alone as a one-card Crown group (tier 4) -> key 5 5 5 4 | 4.
    value = evaluate(parse_cards("God-1 God-2 God-3 Crown Crown"))
    assert value == (7, (5, 5, 5, 4, 4))


# ============================================================================ ruling 3

SHAPES = [
    # (winner's hand, its category, loser's hand, its category)
    ("God-1 God-2 God-3 God-4 Beast-1", "Quartet",
     "Agari-1 Agari-2 Agari-3 Fate-1 Fate-2", "Full Domain"),
    ("Fate-1 Fate-2 Fate-3 Beast-1 Beast-2", "Full Domain",
     "God-4 Agari-4 Umbrae-4 Sophoi-4 Beast-4", "Rank Flush"),
    ("Agari-2 Umbrae-2 Arcoi-2 Fate-2 Beast-2", "Rank Flush",
     "Umbrae-1 Umbrae-3 Umbrae-4 Umbrae-5 Umbrae-6", "Straight"),
    ("Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", "Straight",
     "God-1 God-2 God-3 Agari-1 Fate-2", "Triplet"),
    ("Beast-1 Beast-2 Beast-3 Fate-1 Agari-1", "Triplet",
     "God-1 God-2 Agari-2 Agari-3 Fate-3", "Two Pair"),
    ("Beast-1 Beast-2 Fate-1 Fate-2 Agari-3", "Two Pair",
     "God-1 God-2 Umbrae-1 Fate-3 Beast-4", "Pair"),
    ("Beast-1 Beast-2 Fate-1 Agari-3 Umbrae-4", "Pair",
     "God-1 Agari-2 Umbrae-3 Arcoi-4 Sophoi-5", "High Hand"),
    # a hand scores the highest category it satisfies: Two Pair AND Rank Flush -> Rank Flush
    ("Fate-1 Fate-1 Beast-1 Beast-1 Agari-1", "Rank Flush",
     "Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5 Umbrae-6", "Straight"),
]


@pytest.mark.parametrize("winner_seat", [0, 1])
@pytest.mark.parametrize("better, better_cat, worse, worse_cat", SHAPES,
                         ids=[f"{s[1]}>{s[3]}" for s in SHAPES])
def test_ruling_03_categories_are_exact_shapes(better: str, better_cat: str, worse: str,
                                               worse_cat: str, winner_seat: int) -> None:
    hands = [better, worse] if winner_seat == 0 else [worse, better]
    state = final_showdown(hands)
    assert state.result is not None
    expected_desmos = [better_cat, worse_cat] if winner_seat == 0 else [worse_cat, better_cat]
    assert state.result.desmos == expected_desmos
    assert state.result.placements[winner_seat] == 1
    assert state.result.placements[1 - winner_seat] == 2
    assert state.result.tiebreak == "none"


# ============================================================================ ruling 4


def test_ruling_04_crowns() -> None:
    # Crown joins the Agari: a Quartet beats the Gods' Full Domain (a Triplet without it).
    state = final_showdown(["Crown Agari-1 Agari-2 Agari-3 Fate-1",
                            "God-5 God-6 God-7 Fate-2 Fate-3"])
    assert state.result is not None
    assert state.result.desmos == ["Quartet", "Full Domain"]
    assert state.result.placements == [1, 2]


def test_ruling_04_crown_stands_for_a_rank() -> None:
    state = final_showdown(["Crown Agari-3 Umbrae-3 Fate-3 Beast-3",
                            "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"])
    assert state.result is not None
    assert state.result.desmos == ["Rank Flush", "Straight"]
    assert state.result.placements == [1, 2]


def test_ruling_04_crown_never_counts_toward_the_ascension() -> None:
    state = build_state(["God-1 God-2 God-3 God-4 Beast-1",
                         "Agari-1 Agari-2 Agari-3 Agari-4 Agari-5"], pile_top="Crown")
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-1")
    assert hand(state, 0) == ["Crown", "God-1", "God-2", "God-3", "God-4"]
    assert not state.is_over and state.decision is not None
    assert not events_of(state, "ascension")
    assert (state.decision.seat, state.decision.kind) == (1, "turn")
    play_defaults(state)
    assert state.result is not None
    assert state.result.ascension is False
    assert state.result.desmos[0] == "Quartet"


# ============================================================================ ruling 5


def test_ruling_05_ties() -> None:
    # Four Pairs: of Gods, of a Class, of Fates, of Beasts -> placed in that order.
    state = final_showdown(["God-1 God-2 Agari-1 Fate-1 Beast-1",
                            "Umbrae-1 Umbrae-2 God-3 Fate-2 Beast-2",
                            "Fate-3 Fate-4 God-4 Agari-2 Beast-3",
                            "Beast-4 Beast-5 God-5 Agari-3 Fate-5"])
    assert state.result is not None
    assert state.result.desmos == ["Pair"] * 4
    assert state.result.placements == [1, 2, 3, 4]
    assert state.result.keys[0][1] == [5, 5, 3, 2, 1]
    assert state.result.keys[1][1] == [3, 3, 5, 2, 1]


def test_ruling_05_a_crown_has_tier_four_whatever_it_stands_for() -> None:
    # Crown + God-1 is a Pair of "Gods" with tiers 5 4; a natural God Pair (5 5) beats it.
    state = final_showdown(["God-1 Crown Agari-2 Fate-3 Beast-4",
                            "God-2 God-3 Agari-3 Fate-4 Beast-5"])
    assert state.result is not None
    assert state.result.desmos == ["Pair", "Pair"]
    assert state.result.keys[0][1] == [5, 4, 3, 2, 1]
    assert state.result.placements == [2, 1]


def test_ruling_05_rank_numbers_do_not_break_ties() -> None:
    # Seats 0 and 1: Pairs with the same tiers but very different rank numbers share 2nd.
    state = final_showdown(["Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4",
                            "Umbrae-1 Umbrae-2 Arcoi-1 Fate-1 Beast-2",
                            "God-1 God-2 Sophoi-1 Sophoi-2 Fate-3",
                            "God-3 Agari-1 Umbrae-3 Arcoi-2 Beast-1"])
    assert state.result is not None
    assert state.result.desmos == ["Pair", "Pair", "Two Pair", "High Hand"]
    assert state.result.keys[0] == state.result.keys[1]
    assert state.result.placements == [2, 2, 1, 4]
    assert state.result.tiebreak == "none"


def test_ruling_05_equal_first_place_goes_to_the_tiebreak() -> None:
    state = final_showdown(["Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4",
                            "Umbrae-1 Umbrae-2 Arcoi-1 Fate-1 Beast-2"])
    assert state.decision is not None and state.decision.kind == "rps"
    assert not state.is_over


# ============================================================================ ruling 6

THREE = ["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
         "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"]


def test_ruling_06_graveyards() -> None:
    state = build_state(THREE, pile_top="Fate-1 Fate-2 Fate-3 Fate-4")
    # a played card goes to the Effect Graveyard; a swapped card to the Discard Graveyard
    act(state, "turn", 0, action="play", card="Beast-2")  # Hippocamp: look, no choice
    act(state, "swap", 0, swap="Beast-1")
    assert names(state.effect_graveyard) == ["Beast-2"]
    assert names(state.discard_graveyard) == ["Beast-1"]
    assert hand(state, 0) == ["Agari-1", "Agari-2", "Agari-3", "Fate-1", "Fate-2"]
    # a forced discard of a non-God goes to the Discard Graveyard, the player draws back
    act(state, "turn", 1, action="play", card="Umbrae-1")
    act(state, "target", 1, seat=0)
    act(state, "swap", 1)
    hold_turn(state, 2)
    act(state, "turn", 0, action="play", card="Agari-1")
    act(state, "target", 0, seat=1)
    act(state, "discard", 1, card="Umbrae-2")
    forced = events_of(state, "forced_discard")[-1]
    assert forced == {"type": "forced_discard", "seat": 1, "card": "Umbrae-2",
                      "source": "Agari-1", "turn": 3}
    assert names(state.discard_graveyard) == ["Beast-1", "Umbrae-2"]
    assert names(state.effect_graveyard) == ["Beast-2", "Umbrae-1", "Agari-1"]
    assert len(state.hands[1]) == 5


def test_ruling_06_a_god_forced_discard_fires_and_goes_to_the_effect_graveyard() -> None:
    hands = ["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
             "God-4 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
             "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"]
    state = build_state(hands, pile_top="Fate-1 Fate-2 Fate-3 Fate-4 Fate-5")
    act(state, "turn", 0, action="play", card="Agari-1")
    act(state, "target", 0, seat=1)
    act(state, "discard", 1, card="God-4")
    # Athena fires for the discarder: seat 1 looks at the top three and may exchange
    assert state.decision is not None
    assert (state.decision.seat, state.decision.kind) == (1, "card")
    assert [o["card"] for o in state.decision.options] == [None, "Fate-1", "Fate-2", "Fate-3"]
    assert events_of(state, "effect")[-1] == {"type": "effect", "seat": 1, "card": "God-4",
                                              "how": "discarded", "turn": 0}
    act(state, "card", 1, card="Fate-3")
    act(state, "give", 1, card="Umbrae-5")
    assert "God-4" in names(state.effect_graveyard)
    assert "God-4" not in names(state.discard_graveyard)
    # after the effect, the discarder draws back to five (the new top, Fate-1), then the
    # Raid's player draws (Fate-2); Umbrae-5 now lies where Fate-3 was
    assert hand(state, 1) == ["Fate-1", "Fate-3", "Umbrae-2", "Umbrae-3", "Umbrae-4"]
    assert "Fate-2" in hand(state, 0)
    assert pile_top(state, 2) == ["Umbrae-5", "Fate-4"]


def test_ruling_06_hades_and_tyche_take_only_from_the_discard_graveyard() -> None:
    hands = ["God-2 Fate-4 Agari-3 Beast-1 Beast-2",
             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"]
    state = build_state(hands, effect_graveyard="God-7 Crown", discard_graveyard="Fate-2 Agari-6",
                        pile_top="Sophoi-1 Sophoi-2 Sophoi-3")
    act(state, "turn", 0, action="play", card="God-2")
    assert state.decision is not None
    assert [o["card"] for o in state.decision.options] == [None, "Fate-2", "Agari-6"]
    act(state, "card", 0, card="Agari-6")
    act(state, "give", 0, card="Beast-1")
    assert names(state.discard_graveyard) == ["Fate-2", "Beast-1"]
    act(state, "swap", 0)
    hold_turn(state, 1)
    # Tyche: the top of the DISCARD graveyard (Beast-1), never the Effect Graveyard's God-2
    assert names(state.effect_graveyard)[-1] == "God-2"
    act(state, "turn", 0, action="play", card="Fate-4")
    assert state.decision is not None and state.decision.kind == "give"
    assert "Beast-1" in state.decision.context["why"]
    act(state, "give", 0, card="Beast-2")
    assert "Beast-1" in hand(state, 0)
    assert names(state.discard_graveyard) == ["Fate-2", "Beast-2"]
    assert "God-7" in names(state.effect_graveyard)


@pytest.mark.parametrize("seed", [3, 4])
def test_ruling_06_an_empty_pile_reshuffles_both_graveyards_with_the_seed(seed: int) -> None:
    # everything not in a hand lies in the graveyards; the pile is empty
    hands = ["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"]
    state = build_state(hands, effect_graveyard="God-1 God-2", rest_to="discard_graveyard",
                        seed=seed)
    assert state.draw_pile == [] and len(state.effect_graveyard) == 2
    beast1 = state.hands[0][3]
    # the swapped Beast-1 goes to the Discard Graveyard first; then the draw finds the pile
    # empty and rebuilds it from both graveyards, shuffled by the game's seeded generator
    expected = state.effect_graveyard + state.discard_graveyard + [beast1]
    random.Random(seed).shuffle(expected)
    assert expected[-1] != PALAESTRON, "pick a seed that does not draw the Palaestron"
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-1")
    assert events_of(state, "reshuffle") == [{"type": "reshuffle", "cards": 43, "turn": 0}]
    assert state.effect_graveyard == [] and state.discard_graveyard == []
    drawn = expected.pop()
    assert state.draw_pile == expected
    assert drawn in state.hands[0] and len(state.hands[0]) == 5


def test_ruling_06_reshuffle_order_depends_on_the_seed() -> None:
    piles = []
    for seed in (3, 4):
        state = build_state(["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
                             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"],
                            rest_to="discard_graveyard", seed=seed)
        act(state, "turn", 0, action="hold")
        act(state, "swap", 0, swap="Beast-1")
        piles.append(list(state.draw_pile))
    assert piles[0] != piles[1]
    assert sorted(piles[0]) != [] and len(piles[0]) == len(piles[1])


# ============================================================================ ruling 7


def test_ruling_07_turns() -> None:
    state = build_state(THREE, pile_top="Fate-1 Fate-2 Fate-3 Fate-4")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "turn")
    # exactly one of Hold / Play / Set a Trap: hold first (the safe default), no swap option
    assert decision.options[0] == {"action": "hold"}
    actions = Counter(o["action"] for o in decision.options)
    assert actions == {"hold": 1, "play": 5, "trap": 5}
    act(state, "turn", 0, action="play", card="Beast-2")
    # ... then only the optional swap, never a second action
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "swap")
    assert decision.options[0] == {"swap": None}
    act(state, "swap", 0, swap="Agari-1")
    assert state.turn_log[-1] == {"round": 1, "seat": 0, "action": "play", "card": "Beast-2",
                                  "swap": True, "hand_size_after": 5, "traps_after": [0, 0, 0]}
    assert [len(h) for h in state.hands] == [5, 5, 5]
    # the next seat in order ("clockwise") acts next
    assert state.decision is not None and (state.decision.seat, state.decision.kind) == (1, "turn")
    act(state, "turn", 1, action="trap", card="Umbrae-5")
    act(state, "swap", 1)
    assert state.turn_log[-1]["action"] == "trap" and state.turn_log[-1]["swap"] is False
    assert state.turn_log[-1]["traps_after"] == [0, 1, 0]
    assert [len(h) for h in state.hands] == [5, 5, 5]


def test_ruling_07_a_third_trap_is_refused() -> None:
    state = build_state(THREE, traps={0: [("Arcoi-1", 0, 0), ("Arcoi-2", 0, 0)],
                                      1: [("Arcoi-3", 0, 0)]})
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "turn")
    assert {o["action"] for o in decision.options} == {"hold", "play"}
    hold_turn(state, 0)
    # both arenas' traps are triggerable from this turn on: windows in seat order from seat 1
    act(state, "trigger", 1, trap=None)
    act(state, "trigger", 0, trap=None)
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (1, "turn")
    assert "trap" in {o["action"] for o in decision.options}  # one trap: a second is fine


@pytest.mark.parametrize("players, rounds", [(2, 5), (3, 5), (4, 4), (5, 3)])
def test_ruling_07_rounds_by_player_count(players: int, rounds: int) -> None:
    assert rounds_for(players) == rounds
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=5,
                        starting_seat=players - 1)
    state = play_game(config, [FirstOptionAgent()] * players)
    assert state.rounds == rounds and state.record()["rounds"] == rounds
    assert len(state.turn_log) == rounds * players
    assert [t["round"] for t in state.turn_log] == [r for r in range(1, rounds + 1)
                                                     for _ in range(players)]
    order = [(players - 1 + k) % players for k in range(players)]
    assert [t["seat"] for t in state.turn_log] == order * rounds
    assert all(t["hand_size_after"] == 5 for t in state.turn_log)


@pytest.mark.parametrize("players", [0, 1, 6, 7])
def test_ruling_07_other_player_counts_are_refused(players: int) -> None:
    with pytest.raises(RulesError, match="2 to 5 players"):
        GameConfig(players=tuple(f"p{i}" for i in range(players)))
    with pytest.raises(RulesError):
        rounds_for(players)


# ============================================================================ ruling 8

FAMILY_FACES = {
    "God": [f"God-{r}" for r in range(1, 8)],
    "Fate": [f"Fate-{r}" for r in range(1, 6)],
    "Beast": [f"Beast-{r}" for r in range(1, 6)],
}


def test_ruling_08_card_effects() -> None:
    # every face but the Palaestron has an entry; the Palaestron is not a play effect
    assert set(EFFECTS) == set(NOTATION) - {"Palaestron"}
    with pytest.raises(KeyError):
        effect_of(PALAESTRON)
    for cid, text in enumerate(NOTATION):
        if cid != PALAESTRON:
            assert effect_of(cid) is EFFECTS[text] and EFFECTS[text].face == text
    # each God, Fate type and Beast element has its own text and name
    for faces in FAMILY_FACES.values():
        assert len({EFFECTS[f].text for f in faces}) == len(faces)
        assert len({EFFECTS[f].name for f in faces}) == len(faces)
    # each Class has one text for all its ranks, distinct from the other Classes
    class_texts = {}
    for kind, top in (("Agari", 6), ("Umbrae", 6), ("Arcoi", 5), ("Sophoi", 5)):
        texts = {EFFECTS[f"{kind}-{r}"].text for r in range(1, top + 1)}
        assert len(texts) == 1
        class_texts[kind] = texts.pop()
    assert len(set(class_texts.values())) == 4
    # and no two families share a text: 7 Gods + 5 Fates + 5 Beasts + 4 Classes + Crown
    assert len({e.text for e in EFFECTS.values()}) == 22
    assert all(e.text.strip() and e.name.strip() for e in EFFECTS.values())


# Every effect choice is a decision of the right player: (card played by seat 0, traps staged?,
# the (seat, kind) decisions expected in order when each answers its LAST option).
CHOICES = [
    ("God-1", False, [(0, "target"), (0, "card"), (0, "give")]),
    ("God-2", False, [(0, "card"), (0, "give")]),
    ("God-3", False, [(1, "discard"), (2, "discard")]),
    ("God-4", False, [(0, "card"), (0, "give")]),
    ("God-5", False, [(0, "target"), (0, "card")]),
    ("God-6", False, [(0, "target")]),
    ("God-7", False, [(0, "target"), (2, "discard"), (2, "discard")]),
    ("Agari-1", False, [(0, "target"), (2, "discard")]),
    ("Umbrae-6", False, [(0, "target")]),
    ("Arcoi-1", True, [(0, "target")]),
    ("Arcoi-1", False, [(0, "target"), (2, "reveal")]),
    ("Sophoi-1", False, [(0, "card"), (0, "give")]),
    ("Crown", False, [(0, "card"), (0, "give")]),
    ("Fate-1", False, [(0, "discard")]),
    ("Fate-2", False, [(0, "card")]),
    ("Fate-3", False, [(0, "target"), (2, "reveal")]),
    ("Fate-4", False, [(0, "give")]),
    ("Fate-5", False, [(0, "target"), (2, "give"), (0, "give")]),
    ("Beast-1", False, []),
    ("Beast-2", False, []),
    ("Beast-3", True, [(0, "target")]),
    ("Beast-4", False, []),
    ("Beast-5", False, [(0, "give")]),
]


@pytest.mark.parametrize("card, with_traps, expected", CHOICES,
                         ids=[f"{c}{'+traps' if t else ''}" for c, t, _ in CHOICES])
def test_ruling_08_every_effect_choice_is_its_players_decision(
        card: str, with_traps: bool, expected: list[tuple[int, str]]) -> None:
    hands = [f"{card} Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5",
             "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
             "Agari-2 Agari-3 Agari-4 Agari-5 Agari-6"]
    # staged traps were "set this turn", so no trigger window interferes
    traps = {1: [("Arcoi-2", 0, 0)], 2: [("Arcoi-3", 0, 0)]} if with_traps else None
    state = build_state(hands, traps=traps, discard_graveyard="Beast-5 Arcoi-4",
                        effect_graveyard="Arcoi-5", pile_top="Crown Beast-4 Fate-5 Fate-1")
    act(state, "turn", 0, action="play", card=card)
    asked = []
    while state.decision is not None and state.decision.kind != "swap":
        decision = state.decision
        assert decision.context.get("why"), f"{decision!r} says why it is asked"
        assert len(decision.options) >= 2, "a single option is no choice"
        asked.append((decision.seat, decision.kind))
        state.apply(len(decision.options) - 1)
    assert asked == expected
    assert state.decision is not None and state.decision.seat == 0
    assert card in names(state.effect_graveyard)
    assert state.card_count() == 52


# ---------------------------------------------------------------- staged example per God
GODS_HANDS = ["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
              "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
              "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"]


def _with(card: str) -> list[str]:
    return [GODS_HANDS[0].replace("Agari-1", card), *GODS_HANDS[1:]]


def test_ruling_08_hermes_trades_with_a_peeked_hand() -> None:
    state = build_state(_with("God-1"), pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="God-1")
    act(state, "target", 0, seat=1)
    peek = state.feeds[0][-1]
    assert peek["type"] == "peek" and peek["cards"] == hand(state, 1)
    assert "cards" not in state.feeds[2][-1]  # the others only see that it happened
    act(state, "card", 0, card="Umbrae-3")
    act(state, "give", 0, card="Beast-1")
    act(state, "swap", 0)
    assert hand(state, 0) == ["Agari-2", "Agari-3", "Beast-2", "Fate-1", "Umbrae-3"]
    assert hand(state, 1) == ["Beast-1", "Umbrae-1", "Umbrae-2", "Umbrae-4", "Umbrae-5"]
    assert names(state.effect_graveyard) == ["God-1"]


def test_ruling_08_hades_takes_from_the_discard_graveyard() -> None:
    state = build_state(_with("God-2"), discard_graveyard="Fate-3 God-6",
                        effect_graveyard="God-7", pile_top="Fate-1")
    act(state, "turn", 0, action="play", card="God-2")
    act(state, "card", 0, card="God-6")
    act(state, "give", 0, card="Beast-1")
    act(state, "swap", 0)
    assert hand(state, 0) == ["Agari-2", "Agari-3", "Beast-2", "Fate-1", "God-6"]
    assert names(state.discard_graveyard) == ["Fate-3", "Beast-1"]
    assert names(state.effect_graveyard) == ["God-7", "God-2"]


def test_ruling_08_poseidon_makes_every_opponent_discard_in_seat_order() -> None:
    state = build_state(_with("God-3"), pile_top="Fate-1 Fate-2 Fate-3")
    act(state, "turn", 0, action="play", card="God-3")
    act(state, "discard", 1, card="Umbrae-4")
    act(state, "discard", 2, card="Sophoi-2")
    act(state, "swap", 0)
    assert names(state.discard_graveyard) == ["Umbrae-4", "Sophoi-2"]
    assert "Fate-1" in hand(state, 1) and "Fate-2" in hand(state, 2) and "Fate-3" in hand(state, 0)
    assert [e["seat"] for e in events_of(state, "forced_discard")] == [1, 2]
    assert [len(h) for h in state.hands] == [5, 5, 5]


def test_ruling_08_athena_looks_at_three_and_exchanges() -> None:
    state = build_state(_with("God-4"), pile_top="Fate-1 Fate-2 Fate-3 Fate-4")
    act(state, "turn", 0, action="play", card="God-4")
    look = state.feeds[0][-1]
    assert look["type"] == "look" and look["cards"] == ["Fate-1", "Fate-2", "Fate-3"]
    assert state.feeds[1][-1] == {"type": "look", "seat": 0, "source": "God-4",
                                  "zone": "draw_pile", "count": 3, "turn": 0}
    act(state, "card", 0, card="Fate-2")
    act(state, "give", 0, card="Beast-1")
    # Beast-1 took Fate-2's place; then the play's draw took the top, Fate-1
    assert pile_top(state, 3) == ["Beast-1", "Fate-3", "Fate-4"]
    assert hand(state, 0) == ["Agari-2", "Agari-3", "Beast-2", "Fate-1", "Fate-2"]


def test_ruling_08_ares_chooses_the_card_an_opponent_discards() -> None:
    state = build_state(_with("God-5"), pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="God-5")
    act(state, "target", 0, seat=2)
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "card")
    assert [o["card"] for o in decision.options] == names(state.hands[2])
    act(state, "card", 0, card="Sophoi-5")
    assert events_of(state, "forced_discard")[-1]["seat"] == 2
    assert names(state.discard_graveyard) == ["Sophoi-5"]
    assert hand(state, 2) == ["Fate-1", "Sophoi-1", "Sophoi-2", "Sophoi-3", "Sophoi-4"]


def test_ruling_08_apollo_reveals_a_hand_and_clears_its_traps() -> None:
    state = build_state(_with("God-6"), traps={1: [("Arcoi-1", 0, 0), ("Arcoi-2", 0, 0)]},
                        pile_top="Fate-1")
    act(state, "turn", 0, action="play", card="God-6")
    act(state, "target", 0, seat=1)
    assert state.revealed[1] == set(state.hands[1])
    assert state.traps[1] == []
    assert names(state.discard_graveyard) == ["Arcoi-1", "Arcoi-2"]
    view = state.observe(2)
    assert sorted(view.revealed[1]) == hand(state, 1)


def test_ruling_08_zeus_clears_traps_then_two_forced_discards() -> None:
    state = build_state(_with("God-7"), traps={2: [("Arcoi-1", 0, 0)]},
                        pile_top="Fate-1 Fate-2 Fate-3")
    act(state, "turn", 0, action="play", card="God-7")
    act(state, "target", 0, seat=2)
    assert state.traps[2] == [] and names(state.discard_graveyard) == ["Arcoi-1"]
    act(state, "discard", 2, card="Sophoi-1")
    act(state, "discard", 2, card="Sophoi-2")
    assert names(state.discard_graveyard) == ["Arcoi-1", "Sophoi-1", "Sophoi-2"]
    assert hand(state, 2) == ["Fate-1", "Fate-2", "Sophoi-3", "Sophoi-4", "Sophoi-5"]


# ============================================================================ ruling 9


def test_ruling_09_traps() -> None:
    # seat 1 holds a triggerable Agari trap; seat 2 has none
    state = build_state(THREE, traps={1: ["Agari-4"]}, pile_top="Fate-1 Fate-2 Fate-3")
    # window at the start of a turn (another seat's turn): offered to the holder only
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (1, "trigger")
    assert decision.context["window"] == "turn_start"
    assert decision.options == ({"trap": None}, {"trap": "Agari-4", "slot": 0})
    act(state, "trigger", 1, trap=None)
    # window when another player declares a play, before it resolves
    act(state, "turn", 0, action="play", card="Beast-2")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (1, "trigger")
    assert decision.context["window"] == "declare"
    assert not [e for e in events_of(state, "effect") if e["card"] == "Beast-2"]
    act(state, "trigger", 1, trap="Agari-4")
    # the trap's effect resolves for its owner (Raid: seat 1 picks who discards) ...
    act(state, "target", 1, seat=0)
    act(state, "discard", 0, card="Agari-3")
    # ... it goes to the Effect Graveyard, then the declared play resolves
    act(state, "swap", 0)
    assert names(state.effect_graveyard) == ["Agari-4", "Beast-2"]
    kinds = [e["type"] for _, e in state.log if e["type"] in ("trap_triggered", "effect")]
    assert kinds == ["trap_triggered", "effect", "effect"]
    assert state.traps[1] == []
    assert [len(h) for h in state.hands] == [5, 5, 5]


def test_ruling_09_windows_are_offered_only_to_holders_of_a_triggerable_trap() -> None:
    # seat 2's trap counts as set in this very turn: not yet triggerable; nobody else has one
    state = build_state(THREE, traps={2: [("Agari-4", 0, -1)]},
                        pile_top="Fate-1 Fate-2 Fate-3 Fate-4")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "turn")
    act(state, "turn", 0, action="play", card="Beast-2")  # no window: nobody may trigger
    assert state.decision is not None and state.decision.kind == "swap"
    act(state, "swap", 0)
    # from the next turn on it is triggerable: at the turn start, by seat 2 alone ...
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (2, "trigger")
    act(state, "trigger", 2, trap=None)
    # ... and when seat 1 declares a play, again seat 2 alone (seat 0 holds no trap)
    act(state, "turn", 1, action="play", card="Umbrae-1")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (2, "trigger")
    assert decision.context["window"] == "declare"
    act(state, "trigger", 2, trap=None)
    act(state, "target", 1, seat=0)
    asked = {(d_seat, kind) for d_seat, kind, _ in state.choices}
    assert (0, "trigger") not in asked and (1, "trigger") not in asked


def test_ruling_09_a_trap_is_not_triggerable_in_the_turn_it_was_set() -> None:
    state = build_state(THREE, pile_top="Fate-1 Fate-2 Fate-3")
    act(state, "turn", 0, action="trap", card="Agari-1")
    view = state.observe(0)
    assert view.traps == [{"card": "Agari-1", "turns_left": 3, "triggerable": False}]
    act(state, "swap", 0)
    # the very next turn start opens a window for it
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "trigger")
    assert state.observe(0).traps[0]["triggerable"] is True


def test_ruling_09_traps_expire_at_the_end_of_the_owners_second_turn_after() -> None:
    state = build_state(["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
                         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"],
                        pile_top="Fate-1 Fate-2 Fate-3 Fate-4")
    act(state, "turn", 0, action="trap", card="Agari-1")
    act(state, "swap", 0)
    lefts = []
    for _ in range(2):  # seat 1, then seat 0's first turn after: the trap stays
        hold_turn(state)
        lefts.append(state.observe(0).traps[0]["turns_left"] if state.traps[0] else None)
    assert lefts == [2, 1] and len(state.traps[0]) == 1
    assert state.turn_log[-1]["traps_after"] == [1, 0]
    hold_turn(state, 1)
    assert state.observe(0).traps[0]["turns_left"] == 1
    hold_turn(state, 0)  # the owner's second turn after setting: it expires at its end
    assert state.traps[0] == []
    assert state.turn_log[-1]["traps_after"] == [0, 0]
    assert names(state.discard_graveyard) == ["Agari-1"]
    expired = events_of(state, "trap_expired")
    assert expired == [{"type": "trap_expired", "seat": 0, "card": "Agari-1", "slot": 0,
                        "turn": 4}]


def test_ruling_09_staged_trap_expiry_counts_owner_turns_only() -> None:
    # 3 players, trap of seat 2 set in its previous turn: it survives seat 2's next turn and
    # expires at the end of the one after, whatever the other seats do in between
    state = build_state(THREE, traps={2: ["Agari-4"]})
    seen = []
    while state.turn < 9:
        while state.decision is not None and state.decision.kind == "trigger":
            act(state, "trigger", trap=None)
        hold_turn(state)
        seen.append((state.turn_log[-1]["seat"], state.turn_log[-1]["traps_after"][2]))
    assert seen == [(0, 1), (1, 1), (2, 1), (0, 1), (1, 1), (2, 0), (0, 0), (1, 0), (2, 0)]


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
    asked = []
    while state.decision is not None and state.decision.kind in ("discard", "reveal"):
        asked.append((state.decision.seat, state.decision.kind))
        state.apply(0)
    assert asked == [(1, "discard"), (1, "reveal"), (2, "discard"), (2, "reveal"),
                     (0, "discard"), (0, "reveal")]
    # seat 1 drew the replacement (Fate-4) after everyone; then seat 0's Raid drew (Fate-5)
    assert "Fate-4" in hand(state, 1) and "Fate-5" in hand(state, 0)
    assert state.decision is not None and (state.decision.seat, state.decision.kind) == (0, "swap")
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert names(state.effect_graveyard) == ["Palaestron", "Agari-1"]


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
    asked = []
    while state.decision is not None and state.decision.kind in ("discard", "reveal"):
        decision = state.decision
        asked.append((decision.seat, decision.kind))
        # the holder discards from 4 cards (the Palaestron never entered the hand)
        if decision.kind == "discard" and decision.seat == holder and len(asked) == 1:
            assert len(state.hands[holder]) == 4
        state.apply(0)
    # God effects fired by forced discards may ask more; the Palaestron's own steps come
    # in seat order from its holder
    own = [a for a in asked if a[1] in ("discard", "reveal")]
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
    # seat 1's date is the most recent but lies outside the 365 days before the event
    books = (dt.date(2026, 1, 1), late)
    state = final_showdown([PAIR_A, PAIR_B], last_book_finished=books)
    assert state.result is not None
    assert state.result.tiebreak == "book" and state.result.placements == [1, 2]


def test_ruling_12_book_dates_within_the_year_count_from_365_days_before() -> None:
    # interpretation: "within the year" includes the event day and the day 365 days before it
    state = final_showdown([PAIR_A, PAIR_B],
                           last_book_finished=(None, dt.date(2025, 11, 29)))
    assert state.result is not None
    assert state.result.tiebreak == "book" and state.result.placements == [2, 1]
    state = final_showdown([PAIR_A, PAIR_B],
                           last_book_finished=(dt.date(2026, 11, 29), dt.date(2026, 11, 28)))
    assert state.result is not None and state.result.placements == [1, 2]


def test_ruling_12_rock_paper_scissors_eliminates_losers() -> None:
    # no dates (and equal dates) leave three tied players to sudden-death RPS
    same = dt.date(2026, 5, 5)
    state = final_showdown([PAIR_A, PAIR_B, PAIR_C, WEAK],
                           last_book_finished=(same, same, same, None))
    asked = []
    for throw in ("rock", "rock", "scissors"):
        decision = state.decision
        assert decision is not None and decision.kind == "rps"
        assert decision.options == ({"throw": "rock"}, {"throw": "paper"},
                                    {"throw": "scissors"})
        asked.append(decision.seat)
        act(state, "rps", throw=throw)
    assert asked == [0, 1, 2]
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
