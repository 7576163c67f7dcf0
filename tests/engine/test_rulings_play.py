"""Rulings 6-9 of RULES.md (graveyards, turns, card effects, traps): one named test per
ruling (test_ruling_NN_...), each through the real engine.

Scenarios are staged with the builder of conftest.py (exact hands, traps, graveyards and pile
top) and driven decision by decision, so every test states the situation and the outcome a
player relies on.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from engine_scenario import (
    act,
    asked,
    build_state,
    events_of,
    hand,
    hold_turn,
    names,
    pile_top,
)

from arena.engine import (
    EFFECTS,
    FirstOptionAgent,
    GameConfig,
    effect_of,
    play_game,
)
from arena.engine.cards import (
    NOTATION,
    PALAESTRON,
)
from arena.engine.config import rounds_for
from arena.errors import RulesError

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


def test_e01_after_a_reshuffle_an_effect_may_take_a_used_card_from_the_pile() -> None:
    """What Ruling 6 holds is the Effect Graveyard: no effect takes a card out of it. Once
    the reshuffle has put its cards in the pile (E1), they are pile cards like any other, and
    an effect that takes from the pile (here Sophoi) may take one into a hand."""
    hands = ["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
             "Sophoi-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5"]
    state = build_state(hands, pile_top="Beast-3", rest_to="effect_graveyard", seed=2)
    used = set(state.effect_graveyard)  # every card here had its effect resolve
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-1")  # draws the pile's last card: the reshuffle
    assert state.effect_graveyard == [] and used <= set(state.draw_pile)
    act(state, "turn", 1, action="play", card="Sophoi-1")
    top = state.draw_pile[-2:][::-1]
    assert all(card in used for card in top)
    act(state, "card", 1, card=names(top[:1])[0])
    act(state, "give", 1, card="Umbrae-5")
    assert top[0] in state.hands[1]


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


def test_e07_a_hand_mid_turn_may_hold_fewer_than_four_cards() -> None:
    # Seat 0 plays (4 cards); seat 1's Raid answers the play, so seat 0 discards (3) and
    # draws back the Palaestron, whose discard takes a God (2): the God's effect asks seat 0
    # with two cards in hand, before any draw back (E17). The turn still ends at five.
    state = build_state(["Umbrae-1 Arcoi-1 God-5 Beast-1 Beast-2",
                         "Agari-1 Agari-2 Sophoi-3 Fate-2 Fate-3"],
                        traps={1: ["Agari-5"]}, pile_top="Palaestron Fate-1 Fate-4 Fate-5")
    act(state, "trigger", 1, trap=None)
    act(state, "turn", 0, action="play", card="Umbrae-1")
    act(state, "trigger", 1, trap="Agari-5")
    act(state, "discard", 0, card="Arcoi-1")
    act(state, "discard", 0, card="God-5")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "card")
    assert decision.context["why"] == "the card they must discard"
    assert [len(h) for h in state.hands] == [2, 5]
    act(state, "card", 0, card="Fate-2")
    while state.decision is not None and state.decision.kind != "swap":
        state.apply(0)
    act(state, "swap", 0, swap=None)
    assert state.turn_log[-1]["hand_size_after"] == 5
    assert [len(h) for h in state.hands] == [5, 5]


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


# E29: "they give you a card of their choice, then you give them a card of your choice"
NEMESIS = ["Fate-5 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5",
           "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
           "Agari-2 Agari-3 Agari-4 Agari-5 Agari-6"]


def test_e29_nemesis_gives_from_a_hand_that_holds_the_card_received() -> None:
    state = build_state(NEMESIS, pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="Fate-5")
    act(state, "target", 0, seat=1)
    act(state, "give", 1, card="Umbrae-2")
    # the gift has arrived before its receiver chooses what to give
    assert hand(state, 0) == ["Sophoi-2", "Sophoi-3", "Sophoi-4", "Sophoi-5", "Umbrae-2"]
    assert len(state.hands[1]) == 4
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "give")
    assert {"card": "Umbrae-2"} in decision.options
    act(state, "give", 0, card="Umbrae-2")  # giving it back is a legal choice
    assert hand(state, 1) == NEMESIS[1].split()
    assert hand(state, 0) == ["Fate-1", "Sophoi-2", "Sophoi-3", "Sophoi-4", "Sophoi-5"]


def test_e29_a_nemesis_from_a_trap_gives_from_six_cards() -> None:
    state = build_state(["Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", *NEMESIS[1:]],
                        traps={0: ["Fate-5"]}, pile_top="Fate-1 Fate-2")
    act(state, "trigger", 0, trap="Fate-5")
    act(state, "target", 0, seat=2)
    act(state, "give", 2, card="Agari-4")
    assert len(state.hands[0]) == 6 and asked(state) == (0, "give")
    act(state, "give", 0, card="Sophoi-1")
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert "Sophoi-1" in hand(state, 2) and "Agari-4" in hand(state, 0)


def test_e29_a_god_received_may_make_five_gods_before_the_give() -> None:
    state = build_state(["Fate-5 God-1 God-2 God-3 God-4", NEMESIS[1],
                         "God-5 Agari-3 Agari-4 Agari-5 Agari-6"], pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="Fate-5")
    act(state, "target", 0, seat=2)
    act(state, "give", 2, card="God-5")
    # four Gods and the one received: The Ascension, before anything is given back
    assert state.result is not None and state.result.ascension
    assert state.result.placements[0] == 1
    assert hand(state, 0) == ["God-1", "God-2", "God-3", "God-4", "God-5"]


def test_e29_of_a_revealed_copy_and_the_copy_received_the_hidden_one_goes() -> None:
    # seat 0's Fate-3 is revealed; seat 1 gives it the other Fate-3, hidden (E20)
    state = build_state(["Fate-5 Fate-3 Sophoi-3 Sophoi-4 Sophoi-5",
                         "Fate-3 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5", NEMESIS[2]],
                        pile_top="Fate-1 Fate-2")
    shown = state.hands[0][1]
    state.revealed[0].add(shown)
    act(state, "turn", 0, action="play", card="Fate-5")
    act(state, "target", 0, seat=1)
    act(state, "give", 1, card="Fate-3")
    received = state.hands[0][-1]
    act(state, "give", 0, card="Fate-3")
    assert shown in state.hands[0] and state.revealed[0] == {shown}  # still shown
    assert received in state.hands[1]
    for seat in (1, 2):  # nobody is told which Fate-3 went: the one left is the one shown
        gives = [e for e in state.events_for(seat) if e["type"] == "give"]
        assert [e.get("card") for e in gives] == (["Fate-3", "Fate-3"] if seat == 1
                                                  else [None, None])


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
