"""Every card effect of the table (the Gods have their staged examples in test_rulings_play.py):
what it does to the zones, who is asked, who sees what, and the same effect resolving from
a trap or from a God's forced discard."""

from __future__ import annotations

import pytest
from engine_scenario import act, build_state, events_of, hand, hold_turn, names, pile_top

from arena.engine.effects import EFFECTS, PALAESTRON_TEXT

OPPONENTS = ["Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
             "Agari-2 Agari-3 Agari-4 Agari-5 Agari-6"]


def stage(card: str, **kwargs: object):  # type: ignore[no-untyped-def]
    """Seat 0 holds ``card`` and Sophoi-2..5; seats 1 and 2 hold Umbrae and Agari."""
    kwargs.setdefault("pile_top", "Fate-1 Fate-2 Fate-3 Fate-4")
    return build_state([f"{card} Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5", *OPPONENTS],
                       **kwargs)  # type: ignore[arg-type]


def test_agari_raid_forces_a_discard_of_the_targets_choice() -> None:
    state = stage("Agari-1")
    act(state, "turn", 0, action="play", card="Agari-1")
    act(state, "target", 0, seat=2)
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (2, "discard")
    assert [o["card"] for o in decision.options] == names(state.hands[2])
    act(state, "discard", 2, card="Agari-6")
    assert names(state.discard_graveyard) == ["Agari-6"]
    assert hand(state, 2) == ["Agari-2", "Agari-3", "Agari-4", "Agari-5", "Fate-1"]
    assert hand(state, 0) == ["Fate-2", "Sophoi-2", "Sophoi-3", "Sophoi-4", "Sophoi-5"]
    # a forced discard is revealed: everyone sees the card
    for seat in range(3):
        assert {"type": "forced_discard", "seat": 2, "card": "Agari-6", "source": "Agari-1",
                "turn": 0} in state.events_for(seat)


def test_umbrae_spy_looks_at_a_hand_and_changes_nothing() -> None:
    state = stage("Umbrae-6")
    act(state, "turn", 0, action="play", card="Umbrae-6")
    act(state, "target", 0, seat=1)
    assert hand(state, 1) == OPPONENTS[0].split()
    peeks = [[e for e in state.events_for(s) if e["type"] == "peek"] for s in range(3)]
    assert peeks[0][0]["cards"] == OPPONENTS[0].split()
    assert "cards" not in peeks[1][0] and "cards" not in peeks[2][0]


def test_arcoi_snipe_destroys_a_chosen_trap() -> None:
    state = stage("Arcoi-1", traps={1: [("Arcoi-2", 0, 0)], 2: [("Arcoi-3", 0, 0),
                                                                 ("Arcoi-4", 0, 0)]})
    act(state, "turn", 0, action="play", card="Arcoi-1")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "target")
    # traps are chosen by place, never by their hidden face
    assert decision.options == ({"seat": 1, "slot": 0}, {"seat": 2, "slot": 0},
                                {"seat": 2, "slot": 1})
    act(state, "target", 0, seat=2, slot=1)
    assert names(t.card for t in state.traps[2]) == ["Arcoi-3"]
    assert names(state.discard_graveyard) == ["Arcoi-4"]
    # the card that destroyed it is told, as every effect's line tells its card
    assert events_of(state, "trap_destroyed") == [
        {"type": "trap_destroyed", "seat": 2, "card": "Arcoi-4", "slot": 1, "turn": 0,
         "source": "Arcoi-1"}]


@pytest.mark.parametrize("god", ["God-6", "God-7"])
def test_apollo_and_zeus_name_themselves_on_each_trap_they_destroy(god: str) -> None:
    state = stage(god, traps={1: [("Arcoi-2", 0, 0), ("Fate-4", 0, 0)]})
    act(state, "turn", 0, action="play", card=god)
    act(state, "target", 0, seat=1)
    assert [(e["card"], e["source"]) for e in events_of(state, "trap_destroyed")] == [
        ("Arcoi-2", god), ("Fate-4", god)]


@pytest.mark.parametrize("face", ["God-6", "God-7", "Arcoi-1"])
def test_the_gist_of_a_card_that_destroys_traps_says_so(face: str) -> None:
    # E12: Apollo, Zeus and Arcoi destroy traps, the Palaestron alone clears them; the few
    # words arena play shows beside the card use the word the game's telling uses
    gist = EFFECTS[face].gist
    assert "destroy" in gist and "clear" not in gist


def test_arcoi_without_traps_makes_an_opponent_reveal() -> None:
    state = stage("Arcoi-1")
    act(state, "turn", 0, action="play", card="Arcoi-1")
    act(state, "target", 0, seat=1)
    act(state, "reveal", 1, card="Umbrae-3")
    assert names(state.revealed[1]) == ["Umbrae-3"]
    assert state.observe(2).revealed[1] == ["Umbrae-3"]


@pytest.mark.parametrize("card, depth", [("Sophoi-1", 2), ("Crown", 1)])
def test_sophoi_and_crown_look_at_the_top_and_may_exchange(card: str, depth: int) -> None:
    state = stage(card)
    act(state, "turn", 0, action="play", card=card)
    looked = [e for e in state.events_for(0) if e["type"] == "look"][-1]
    assert looked["cards"] == ["Fate-1", "Fate-2"][:depth]
    assert [e for e in state.events_for(1) if e["type"] == "look"][-1]["count"] == depth
    decision = state.decision
    assert decision is not None and decision.options[0] == {"card": None}  # pass first
    act(state, "card", 0, card=f"Fate-{depth}")
    act(state, "give", 0, card="Sophoi-5")
    # Sophoi-5 took the place of the card taken; then the play's draw took the top
    if depth == 2:
        assert hand(state, 0) == ["Fate-1", "Fate-2", "Sophoi-2", "Sophoi-3", "Sophoi-4"]
        assert pile_top(state, 2) == ["Sophoi-5", "Fate-3"]
    else:
        assert hand(state, 0) == ["Fate-1", "Sophoi-2", "Sophoi-3", "Sophoi-4", "Sophoi-5"]
        assert pile_top(state, 2) == ["Fate-2", "Fate-3"]


@pytest.mark.parametrize("card", ["God-4", "Sophoi-1", "Crown"])
def test_a_pile_exchange_tells_its_player_both_cards_and_the_others_neither(card: str) -> None:
    """Its player's own feed said only "exchanges a card with the draw pile", so arena play's
    review and arena game could not say which card, though the player knows both."""
    state = stage(card)
    act(state, "turn", 0, action="play", card=card)
    act(state, "card", 0, card="Fate-1")
    act(state, "give", 0, card="Sophoi-5")
    told = [[e for e in state.events_for(seat) if e["type"] == "pile_exchange"]
            for seat in range(3)]
    assert told[0] == [{"type": "pile_exchange", "seat": 0, "source": card, "took": "Fate-1",
                        "gave": "Sophoi-5", "turn": 0}]
    for seat in (1, 2):
        assert told[seat] == [{"type": "pile_exchange", "seat": 0, "source": card, "turn": 0}]


def test_phoenix_tells_its_player_the_card_put_back_and_the_others_not() -> None:
    state = stage("Beast-5", pile_top="God-7 Fate-3")
    act(state, "turn", 0, action="play", card="Beast-5")
    act(state, "give", 0, card="Sophoi-2")
    told = [[e for e in state.events_for(seat) if e["type"] == "return_to_pile"]
            for seat in range(3)]
    assert told[0] == [{"type": "return_to_pile", "seat": 0, "source": "Beast-5",
                        "card": "Sophoi-2", "turn": 0}]
    for seat in (1, 2):
        assert told[seat] == [{"type": "return_to_pile", "seat": 0, "source": "Beast-5",
                               "turn": 0}]


@pytest.mark.parametrize("depth", [1, 2])
def test_e26_sophoi_on_two_copies_offers_each_copy(depth: int) -> None:
    # The card given takes the taken card's place, so the copies are two moves: the top copy
    # gets the card given back with the play's own draw, the second copy brings both Fate-3.
    state = stage("Sophoi-1", pile_top="Fate-3 Fate-3 Fate-1")
    act(state, "turn", 0, action="play", card="Sophoi-1")
    decision = state.decision
    assert decision is not None and decision.options == (
        {"card": None}, {"card": "Fate-3"}, {"card": "Fate-3", "depth": 2})
    state.apply(depth)
    act(state, "give", 0, card="Sophoi-5")
    if depth == 1:
        assert hand(state, 0) == ["Fate-3", "Sophoi-2", "Sophoi-3", "Sophoi-4", "Sophoi-5"]
        assert pile_top(state, 2) == ["Fate-3", "Fate-1"]
    else:
        assert hand(state, 0) == ["Fate-3", "Fate-3", "Sophoi-2", "Sophoi-3", "Sophoi-4"]
        assert pile_top(state, 2) == ["Sophoi-5", "Fate-1"]
    # its player is told which copy it took, as its option named it
    exchanged = [e for e in state.events_for(0) if e["type"] == "pile_exchange"]
    assert exchanged[0].get("depth") == (2 if depth == 2 else None)
    assert all("depth" not in e for e in state.events_for(1) if e["type"] == "pile_exchange")


@pytest.mark.parametrize("depth, left", [(1, ["Fate-3", "Beast-4", "Sophoi-5"]),
                                         (3, ["Beast-4", "Fate-3", "Sophoi-5"])])
def test_e26_hades_offers_each_copy_the_graveyard_order_tells_apart(
        depth: int, left: list[str]) -> None:
    # A later Griffin puts the top card back on the pile and uncovers the one below it.
    state = stage("God-2", discard_graveyard="Fate-3 Beast-4 Fate-3", pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="God-2")
    decision = state.decision
    assert decision is not None and decision.options == (
        {"card": None}, {"card": "Fate-3", "depth": 3}, {"card": "Beast-4"}, {"card": "Fate-3"})
    state.apply(decision.options.index({"card": "Fate-3", "depth": 3} if depth == 3
                                       else {"card": "Fate-3"}))
    act(state, "give", 0, card="Sophoi-5")
    assert names(state.discard_graveyard) == left
    # which copy left is public, as the options were: the graveyard's order can be followed
    told = {"type": "graveyard_exchange", "seat": 0, "source": "God-2", "took": "Fate-3",
            "gave": "Sophoi-5", "turn": 0, **({"depth": 3} if depth == 3 else {})}
    for seat in range(3):
        assert [e for e in state.events_for(seat) if e["type"] == "graveyard_exchange"] == [told]


def test_e26_copies_side_by_side_in_the_discard_graveyard_are_one_option() -> None:
    # Either copy leaves the same cards in the same order: no choice to make (E20).
    state = stage("God-2", discard_graveyard="Beast-4 Fate-3 Fate-3", pile_top="Fate-1 Fate-2")
    act(state, "turn", 0, action="play", card="God-2")
    decision = state.decision
    assert decision is not None
    assert decision.options == ({"card": None}, {"card": "Beast-4"}, {"card": "Fate-3"})


def test_e26_side_by_side_copies_under_strict_reclaim_give_the_copy_not_used() -> None:
    # reclaim=strict: a card seat 0 used for an effect never counts in its Desmos, so of two
    # copies that are one option the one it takes is the one it did not use
    state = stage("God-2", discard_graveyard="Beast-4 Fate-3 Fate-3", pile_top="Fate-1 Fate-2",
                  rules={"reclaim": "strict"})
    lower, upper = state.discard_graveyard[1:]
    state.used[0].add(upper)
    act(state, "turn", 0, action="play", card="God-2")
    act(state, "card", 0, card="Fate-3")
    act(state, "give", 0, card="Sophoi-5")
    assert lower in state.hands[0] and upper in state.discard_graveyard


def _after_take(card: str, option: dict[str, object], **zones: str) -> tuple[object, ...]:
    """The hand and the zone's order after ``card`` takes ``option`` and gives Sophoi-5."""
    state = stage(card, **zones)  # type: ignore[arg-type]
    act(state, "turn", 0, action="play", card=card)
    decision = state.decision
    assert decision is not None
    state.apply(decision.options.index(option))
    act(state, "give", 0, card="Sophoi-5")
    return tuple(hand(state, 0)), tuple(names(state.discard_graveyard)), tuple(pile_top(state, 4))


@pytest.mark.parametrize("card, zone, size", [("God-4", "pile_top", 3), ("Sophoi-1", "pile_top", 2),
                                              ("God-2", "discard_graveyard", 4)])
def test_e26_every_option_is_distinct_legal_and_a_different_move(
        card: str, zone: str, size: int) -> None:
    # Every place of two copies among the cards a player may take: the options are distinct,
    # each is legal, and no two lead to the same game (else they would be one option, E20).
    fillers = ["Beast-1", "Beast-2", "Beast-3"]
    for first in range(size):
        for second in range(first + 1, size):
            cards = fillers[:size - 2]
            for at in (first, second):
                cards.insert(at, "Fate-3")
            zones = {zone: " ".join(cards)}
            if zone == "discard_graveyard":
                zones["pile_top"] = "Fate-1 Fate-2"
            state = stage(card, **zones)
            act(state, "turn", 0, action="play", card=card)
            decision = state.decision
            assert decision is not None and decision.kind == "card"
            options = [dict(o) for o in decision.options[1:]]
            assert len({repr(sorted(o.items())) for o in options}) == len(options)
            ends = {_after_take(card, option, **zones) for option in options}
            assert len(ends) == len(options), (cards, options)
            copies = 1 if zone == "discard_graveyard" and second == first + 1 else 2
            assert sum(o["card"] == "Fate-3" for o in options) == copies, (cards, options)


def test_sophoi_pass_changes_nothing() -> None:
    state = stage("Sophoi-1")
    act(state, "turn", 0, action="play", card="Sophoi-1")
    act(state, "card", 0, card=None)
    assert state.decision is not None and state.decision.kind == "swap"
    assert pile_top(state, 3) == ["Fate-2", "Fate-3", "Fate-4"]
    assert "Fate-1" in hand(state, 0)


def test_clotho_draws_then_discards_without_a_god_effect() -> None:
    state = stage("Fate-1", pile_top="God-3 Fate-2 Fate-3")
    act(state, "turn", 0, action="play", card="Fate-1")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "discard")
    assert "God-3" in [o["card"] for o in decision.options]
    act(state, "discard", 0, card="God-3")
    # a chosen discard is not a forced discard: Poseidon does not fire, no one else discards
    assert state.decision is not None and (state.decision.seat, state.decision.kind) == (0, "swap")
    assert names(state.discard_graveyard) == ["God-3"]
    assert not events_of(state, "forced_discard")
    assert hand(state, 0) == ["Fate-2", "Sophoi-2", "Sophoi-3", "Sophoi-4", "Sophoi-5"]


@pytest.mark.parametrize("to_bottom", [False, True])
def test_lachesis_may_move_the_top_card_to_the_bottom(to_bottom: bool) -> None:
    state = stage("Fate-2", pile_top="God-7 Fate-3 Fate-4")
    act(state, "turn", 0, action="play", card="Fate-2")
    decision = state.decision
    assert decision is not None and decision.options == ({"bottom": None}, {"bottom": "God-7"})
    act(state, "card", 0, bottom="God-7" if to_bottom else None)
    if to_bottom:
        assert names(state.draw_pile[:1]) == ["God-7"]
        assert "Fate-3" in hand(state, 0)
    else:
        assert "God-7" in hand(state, 0)


def test_atropos_makes_an_opponent_reveal_a_card_of_their_choice() -> None:
    state = stage("Fate-3")
    act(state, "turn", 0, action="play", card="Fate-3")
    act(state, "target", 0, seat=2)
    act(state, "reveal", 2, card="Agari-4")
    assert names(state.revealed[2]) == ["Agari-4"]
    for seat in range(3):
        assert state.observe(seat).revealed == [[], [], ["Agari-4"]]


def test_tyche_exchanges_for_the_top_of_the_discard_graveyard() -> None:
    state = stage("Fate-4", discard_graveyard="God-5 Crown")
    act(state, "turn", 0, action="play", card="Fate-4")
    decision = state.decision
    assert decision is not None and decision.options[0] == {"card": None}  # optional
    act(state, "give", 0, card="Sophoi-2")
    assert "Crown" in hand(state, 0)
    assert names(state.discard_graveyard) == ["God-5", "Sophoi-2"]
    assert events_of(state, "graveyard_exchange")[0]["took"] == "Crown"


def test_tyche_may_pass() -> None:
    state = stage("Fate-4", discard_graveyard="God-5 Crown")
    act(state, "turn", 0, action="play", card="Fate-4")
    act(state, "give", 0, card=None)
    assert names(state.discard_graveyard) == ["God-5", "Crown"]


def test_nemesis_takes_a_card_of_the_targets_choice_and_gives_one_back() -> None:
    state = stage("Fate-5")
    act(state, "turn", 0, action="play", card="Fate-5")
    act(state, "target", 0, seat=1)
    act(state, "give", 1, card="Umbrae-2")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "give")
    act(state, "give", 0, card="Sophoi-3")
    assert "Umbrae-2" in hand(state, 0) and "Sophoi-3" in hand(state, 1)
    assert [len(h) for h in state.hands] == [5, 5, 5]


def test_salamander_burns_the_top_of_the_pile() -> None:
    state = stage("Beast-1", pile_top="God-7 Fate-3")
    act(state, "turn", 0, action="play", card="Beast-1")
    assert names(state.discard_graveyard) == ["God-7"]
    assert events_of(state, "burn")[0]["card"] == "God-7"
    assert "Fate-3" in hand(state, 0)


def test_hippocamp_shows_the_top_card_to_its_player_only() -> None:
    state = stage("Beast-2", pile_top="God-7 Fate-3")
    act(state, "turn", 0, action="play", card="Beast-2")
    assert [e["cards"] for e in state.events_for(0) if e["type"] == "look"] == [["God-7"]]
    assert all("cards" not in e for e in state.events_for(1) if e["type"] == "look")
    assert "God-7" in hand(state, 0)  # the play's draw takes it


def test_basilisk_looks_at_the_traps_of_an_opponent_who_has_some() -> None:
    state = stage("Beast-3", traps={2: [("Arcoi-3", 0, 0)]})
    act(state, "turn", 0, action="play", card="Beast-3")
    # only seat 2 has traps: no choice to make
    looks = [e for e in state.events_for(0) if e["type"] == "peek_traps"]
    assert looks == [{"type": "peek_traps", "seat": 0, "target": 2, "source": "Beast-3",
                      "cards": ["Arcoi-3"], "turn": 0}]
    assert all("cards" not in e for e in state.events_for(2) if e["type"] == "peek_traps")
    assert len(state.traps[2]) == 1


def test_basilisk_with_no_trap_anywhere_does_nothing() -> None:
    state = stage("Beast-3")
    act(state, "turn", 0, action="play", card="Beast-3")
    assert state.decision is not None and state.decision.kind == "swap"
    assert not events_of(state, "peek_traps")


def test_griffin_lifts_the_discard_top_onto_the_pile() -> None:
    state = stage("Beast-4", discard_graveyard="Fate-5 God-6")
    act(state, "turn", 0, action="play", card="Beast-4")
    assert names(state.discard_graveyard) == ["Fate-5"]
    assert "God-6" in hand(state, 0)  # it was on top when the play's draw came


def test_phoenix_draws_then_returns_a_card_to_the_top() -> None:
    state = stage("Beast-5", pile_top="God-7 Fate-3")
    act(state, "turn", 0, action="play", card="Beast-5")
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (0, "give")
    assert "God-7" in [o["card"] for o in decision.options]
    act(state, "give", 0, card="Sophoi-2")
    # Sophoi-2 went on top, and the play's draw took it straight back
    assert hand(state, 0) == ["God-7", "Sophoi-2", "Sophoi-3", "Sophoi-4", "Sophoi-5"]
    assert pile_top(state) == ["Fate-3"]


def test_a_triggered_trap_resolves_for_its_owner() -> None:
    state = build_state(["Agari-1 Sophoi-2 Sophoi-3 Beast-1 Beast-2", *OPPONENTS],
                        traps={1: ["Fate-3"]}, pile_top="Fate-1 Fate-2")
    act(state, "trigger", 1, trap="Fate-3")
    assert events_of(state, "effect") == [{"type": "effect", "seat": 1, "card": "Fate-3",
                                           "how": "trap", "turn": 0}]
    act(state, "target", 1, seat=0)
    act(state, "reveal", 0, card="Sophoi-2")
    assert names(state.effect_graveyard) == ["Fate-3"]
    assert names(state.revealed[0]) == ["Sophoi-2"]
    # then the turn goes on as usual
    assert state.decision is not None and (state.decision.seat, state.decision.kind) == (0, "turn")


def test_a_trap_effect_has_the_same_text_as_the_play_effect() -> None:
    # one table: a card does the same thing played or triggered (effect_of is per face)
    assert {e.face for e in EFFECTS.values()} == set(EFFECTS)
    assert "Palaestron" not in EFFECTS and "forced discard" in PALAESTRON_TEXT


def test_a_god_discarded_by_ares_fires_for_the_discarder() -> None:
    state = build_state(["God-5 Agari-2 Agari-3 Beast-1 Beast-2",
                         "God-3 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
                         "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"],
                        pile_top="Fate-1 Fate-2 Fate-3 Fate-4")
    act(state, "turn", 0, action="play", card="God-5")
    act(state, "target", 0, seat=1)
    act(state, "card", 0, card="God-3")
    # Poseidon fires for seat 1: its opponents (2, then 0) discard
    act(state, "discard", 2, card="Sophoi-1")
    act(state, "discard", 0, card="Beast-1")
    effects = [(e["seat"], e["card"], e["how"]) for e in events_of(state, "effect")]
    assert effects == [(0, "God-5", "played"), (1, "God-3", "discarded")]
    act(state, "swap", 0)
    assert names(state.effect_graveyard) == ["God-3", "God-5"]
    assert [len(h) for h in state.hands] == [5, 5, 5]


@pytest.mark.parametrize("card", ["Beast-1", "Beast-2", "Fate-2", "Crown", "Sophoi-1",
                                  "God-4"])
def test_the_draw_that_empties_the_pile_rebuilds_it_for_the_effects_on_the_pile(
        card: str) -> None:
    # E4: the pile holds one card, every other card lies in the Effect Graveyard
    state = build_state([f"{card} Beast-3 Fate-3 Fate-4 Arcoi-5", *OPPONENTS],
                        pile_top="Agari-1", rest_to="effect_graveyard", seed=1)
    assert len(state.draw_pile) == 1
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-3")
    # the swap's draw took the last card: the pile was rebuilt from both graveyards at once,
    # the swapped Beast-3 with them
    assert len(events_of(state, "reshuffle")) == 1
    assert state.effect_graveyard == [] and state.discard_graveyard == []
    assert len(state.draw_pile) == 52 - 15
    hold_turn(state, 1)
    hold_turn(state, 2)
    act(state, "turn", 0, action="play", card=card)
    # the effect acted on the rebuilt pile: a look or a burn
    assert events_of(state, "look") or events_of(state, "burn")
    assert state.card_count() == 52


def test_a_burn_that_empties_the_pile_puts_the_burned_card_in_the_new_pile() -> None:
    state = build_state(["Beast-1 Beast-3 Fate-3 Fate-4 Arcoi-5", *OPPONENTS],
                        pile_top="Agari-1", rest_to="effect_graveyard", seed=1)
    act(state, "turn", 0, action="play", card="Beast-1")
    # the burn landed Agari-1 in the Discard Graveyard, the pile was rebuilt at once with it;
    # the played Salamander was still resolving (limbo) and went to the Effect Graveyard after
    assert [e["card"] for e in events_of(state, "burn")] == ["Agari-1"]
    assert len(events_of(state, "reshuffle")) == 1
    assert "Agari-1" in names(state.draw_pile) + hand(state, 0)
    assert names(state.effect_graveyard) == ["Beast-1"]
    assert state.discard_graveyard == []


def test_a_palaestron_drawn_as_the_last_card_is_told_before_the_reshuffle_it_causes() -> None:
    # E4: the draw took the pile's last card, the Palaestron; the pile was rebuilt at once,
    # before its steps, but the Palaestron came from the old pile, not the new one
    state = build_state(["Beast-3 Beast-4 Fate-3 Fate-4 Arcoi-5", *OPPONENTS],
                        pile_top="Palaestron", rest_to="effect_graveyard", seed=1)
    act(state, "turn", 0, action="hold")
    act(state, "swap", 0, swap="Beast-3")
    told = [e["type"] for _, e in state.log if e["type"] in ("palaestron", "reshuffle")]
    assert told == ["palaestron", "reshuffle"]
    # the new pile holds every card of both graveyards, the swapped Beast-3 among them
    assert events_of(state, "reshuffle")[0]["cards"] == 52 - 14 - 1
    assert state.decision is not None and state.decision.kind == "discard"


def test_hades_and_tyche_with_an_empty_discard_graveyard_do_nothing() -> None:
    for card in ("God-2", "Fate-4"):
        state = stage(card)
        act(state, "turn", 0, action="play", card=card)
        assert state.decision is not None and state.decision.kind == "swap"
        assert not events_of(state, "graveyard_exchange")
