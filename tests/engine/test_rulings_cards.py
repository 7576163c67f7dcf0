"""Rulings 1-5 of RULES.md (cards and notation, kinds, categories, Crowns, ties): one named
test per ruling (test_ruling_NN_...), each through the real engine.

Scenarios are staged with the builder of conftest.py and driven decision by decision, so every
test states the situation and the outcome a player relies on.
"""

from __future__ import annotations

from collections import Counter

import pytest
from engine_scenario import (
    act,
    build_state,
    events_of,
    final_showdown,
    hand,
    names,
    play_defaults,
)

from arena.engine import (
    GameConfig,
    RandomAgent,
    play_game,
)
from arena.engine.cards import (
    BEAST_NAMES,
    DECK,
    FATE_NAMES,
    GOD_NAMES,
    NOTATION,
    Card,
    Kind,
    parse_cards,
)
from arena.errors import CardError

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


def test_e33_a_crown_leads_the_group_it_joins() -> None:
    # Two Quartets. Seat 0's four are three Beasts and a Crown, seat 1's four natural Agari:
    # the Crown's tier 4, whatever it stands for, leads its group's tiers, read highest
    # first, so 4 1 1 1 beats 3 3 3 3 although Beasts rank below Classes.
    state = final_showdown(["Beast-1 Beast-2 Beast-3 Crown Fate-1",
                            "Agari-1 Agari-2 Agari-3 Agari-4 God-1"])
    assert state.result is not None
    assert state.result.desmos == ["Quartet", "Quartet"]
    assert state.result.keys[0][1] == [4, 1, 1, 1, 2]
    assert state.result.keys[1][1] == [3, 3, 3, 3, 5]
    assert state.result.placements == [1, 2]


def test_e30_a_rank_flush_ties_on_its_tiers_highest_first() -> None:
    # Two Rank Flushes. Seat 0 holds a God, seat 1 a pair of Fates but no God: "Ties: God >
    # Crown > Class > Fate > Beast" reads the cards, best first, since kinds make no group in a
    # Rank Flush (ruling 2). Grouped by kind, seat 0's pair of Beasts (1 1 5 3 2) came first
    # and lost to seat 1's pair of Fates (2 2 3 3 3).
    state = final_showdown(["God-3 Agari-3 Fate-3 Beast-3 Beast-3",
                            "Agari-4 Umbrae-4 Arcoi-4 Fate-4 Fate-4"])
    assert state.result is not None
    assert state.result.desmos == ["Rank Flush", "Rank Flush"]
    assert state.result.keys[0][1] == [5, 3, 2, 1, 1]
    assert state.result.keys[1][1] == [3, 3, 3, 2, 2]
    assert state.result.placements == [1, 2]


def test_e30_a_crown_in_a_rank_flush_counts_its_tier_in_order() -> None:
    # The Crown stands for a rank-2 card (E13); whichever, it is read as a 4 among the tiers.
    state = final_showdown(["Crown Agari-2 Fate-2 Beast-2 Beast-2",
                            "Umbrae-2 Arcoi-2 Sophoi-2 Fate-2 Beast-1"])
    assert state.result is not None
    assert state.result.desmos[0] == "Rank Flush"
    assert state.result.keys[0][1] == [4, 3, 2, 1, 1]


def test_ruling_05_equal_first_place_goes_to_the_tiebreak() -> None:
    state = final_showdown(["Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4",
                            "Umbrae-1 Umbrae-2 Arcoi-1 Fate-1 Beast-2"])
    assert state.decision is not None and state.decision.kind == "rps"
    assert not state.is_over
