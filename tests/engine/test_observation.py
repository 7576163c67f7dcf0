"""Observations: what one seat may know (its hand and traps, public counts, revealed cards,
graveyards, the pile's size, round and seat to act, its own event feed), never another
seat's hidden card, and a snapshot that later play does not change."""

from __future__ import annotations

import json

from engine_scenario import act, build_state, hand, hold_turn, names
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.engine.observation import Observation

THREE = ["Agari-1 Agari-2 Agari-3 Beast-1 Beast-2",
         "Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
         "Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5"]


def _all_strings(obj: object) -> set[str]:
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(obj)
    return found


def test_an_observation_holds_the_seats_view() -> None:
    # round 3 of seats 2, 0, 1: seat 1 set a trap in each of its two turns so far
    state = build_state(THREE, traps={1: [("Arcoi-1", 2, 0), ("Arcoi-2", 5, 1)]},
                        effect_graveyard="God-7", discard_graveyard="Fate-5 Crown",
                        round=3, starting_seat=2, active=0)
    decision = state.decision
    assert decision is not None and (decision.seat, decision.kind) == (1, "trigger")
    act(state, "trigger", 1, trap=None)
    state.revealed[2].add(state.hands[2][0])
    view = state.observe(1)
    data = view.to_json(include_events=False)
    assert data == {
        "seat": 1,
        "players": ["north", "east", "south"],
        "round": 3,
        "rounds": 5,
        "turn": 7,
        "active_seat": 0,
        "phase": "play",
        "hand": ["Umbrae-1", "Umbrae-2", "Umbrae-3", "Umbrae-4", "Umbrae-5"],
        "traps": [{"card": "Arcoi-1", "turns_left": 1, "triggerable": True},
                  {"card": "Arcoi-2", "turns_left": 2, "triggerable": True}],
        "hand_sizes": [5, 5, 5],
        "trap_counts": [0, 2, 0],
        "revealed": [[], [], ["Sophoi-1"]],
        "effect_graveyard": ["God-7"],
        "discard_graveyard": ["Fate-5", "Crown"],
        "draw_pile": 52 - 15 - 2 - 3,
    }
    # others see the counts of seat 1's traps, never their cards
    other = state.observe(0).to_json(include_events=True)
    assert other["trap_counts"] == [0, 2, 0] and other["traps"] == []
    assert not {"Arcoi-1", "Arcoi-2", "Umbrae-1", "Sophoi-2"} & _all_strings(other)
    assert "Sophoi-1" in _all_strings(other)  # revealed: public
    json.dumps(state.observe(2).to_json())


def test_private_events_reach_only_their_seat() -> None:
    state = build_state(THREE, pile_top="Fate-1 Fate-2 Fate-3")
    act(state, "turn", 0, action="trap", card="Agari-1")
    act(state, "swap", 0)
    mine = state.observe(0).events
    theirs = state.observe(1).events
    assert {"type": "set_trap", "seat": 0, "card": "Agari-1", "turn": 0} in mine
    assert {"type": "draw", "seat": 0, "card": "Fate-1", "turn": 0} in mine
    assert {"type": "set_trap", "seat": 0, "turn": 0} in theirs
    assert {"type": "draw", "seat": 0, "turn": 0} in theirs
    assert not {"Agari-1", "Fate-1"} & _all_strings(state.observe(1).to_json())
    assert not {"Agari-1", "Fate-1"} & _all_strings(state.observe(2).to_json())
    # a peek shows the hand to the viewer only; the others (the target too) see that it happened
    act(state, "trigger", 0, trap=None)
    act(state, "turn", 1, action="play", card="Umbrae-1")
    act(state, "trigger", 0, trap=None)  # the declare window
    act(state, "target", 1, seat=2)
    peeks = [[e for e in state.events_for(seat) if e["type"] == "peek"] for seat in range(3)]
    assert peeks[1] == [{"type": "peek", "seat": 1, "target": 2, "source": "Umbrae-1",
                         "cards": names(state.hands[2]), "turn": 1}]
    for seat in (0, 2):
        assert peeks[seat] == [{"type": "peek", "seat": 1, "target": 2, "source": "Umbrae-1",
                                "turn": 1}]


def test_an_exchange_names_no_hidden_card_to_third_seats() -> None:
    # Hermes takes a REVEALED card (Umbrae-1) and gives a hidden one (Agari-3): a third seat
    # may learn where the public card went, never what the hidden card is.
    hands = ["God-1 Agari-3 Beast-1 Beast-2 Beast-3", THREE[1], THREE[2]]
    state = build_state(hands, pile_top="Fate-1 Fate-2")
    state.revealed[1].add(state.hands[1][0])
    act(state, "turn", 0, action="play", card="God-1")
    act(state, "target", 0, seat=1)
    act(state, "card", 0, card="Umbrae-1")
    act(state, "give", 0, card="Agari-3")
    assert "Agari-3" in hand(state, 1) and "Umbrae-1" in hand(state, 0)
    # the two players of the exchange know both cards
    for seat in (0, 1):
        exchange = [e for e in state.events_for(seat) if e["type"] == "exchange"][-1]
        assert (exchange["gave"], exchange["took"]) == ("Agari-3", "Umbrae-1")
    third = state.observe(2).to_json(include_events=True)
    assert "Agari-3" not in _all_strings(third)
    assert [e for e in state.events_for(2) if e["type"] == "exchange"] == [
        {"type": "exchange", "seat": 0, "target": 1, "source": "God-1", "took": "Umbrae-1",
         "turn": 0}]


def test_nemesis_gifts_stay_between_its_players() -> None:
    hands = ["Fate-5 Agari-3 Beast-1 Beast-2 Beast-3", THREE[1], THREE[2]]
    state = build_state(hands, pile_top="Fate-1 Fate-2")
    state.revealed[0].add(state.hands[0][1])  # Agari-3 was revealed earlier
    act(state, "turn", 0, action="play", card="Fate-5")
    act(state, "target", 0, seat=1)
    act(state, "give", 1, card="Umbrae-4")
    act(state, "give", 0, card="Agari-3")
    assert "Umbrae-4" in hand(state, 0) and "Agari-3" in hand(state, 1)
    strings = _all_strings(state.observe(2).to_json(include_events=True))
    assert "Umbrae-4" not in strings  # seat 1's hidden card, now seat 0's: never shown to 2
    # the revealed card is named to seat 2 as it leaves, and hidden again in seat 1's hand
    assert [e.get("card") for e in state.events_for(2) if e["type"] == "give"] == [
        None, "Agari-3"]
    assert state.observe(2).revealed == [[], [], []]


def test_an_observation_is_a_snapshot() -> None:
    state = build_state(THREE, discard_graveyard="Fate-3 Fate-4",
                        pile_top="Fate-1 Fate-2 Fate-3 Fate-5")
    before = state.observe(0)
    frozen = json.dumps(before.to_json(include_events=True))
    # play on: the hand, graveyards, pile and events all change
    act(state, "turn", 0, action="play", card="Beast-1")  # Salamander burns the top card
    act(state, "swap", 0, swap="Agari-1")
    hold_turn(state, 1)
    assert json.dumps(before.to_json(include_events=True)) == frozen
    after = state.observe(0)
    assert after.discard_graveyard == ["Fate-3", "Fate-4", "Fate-1", "Agari-1"]
    assert len(after.events) > len(before.events)
    assert after.events[: len(before.events)] == before.events


def test_a_snapshot_survives_a_card_leaving_the_discard_graveyard() -> None:
    hands = ["Fate-4 Agari-1 Beast-1 Beast-2 Beast-3", THREE[1], THREE[2]]
    state = build_state(hands, discard_graveyard="God-6 Crown", pile_top="Fate-1")
    before = state.observe(2)
    act(state, "turn", 0, action="play", card="Fate-4")  # Tyche takes the Crown
    act(state, "give", 0, card="Beast-3")
    assert names(state.discard_graveyard) == ["God-6", "Beast-3"]
    assert before.discard_graveyard == ["God-6", "Crown"]
    assert state.observe(2).discard_graveyard == ["God-6", "Beast-3"]


def test_events_for_pages_through_the_feed() -> None:
    state = play_game(GameConfig(players=("a", "b", "c"), seed=4),
                      [RandomAgent(4), RandomAgent(5), RandomAgent(6)])
    for seat in range(3):
        feed = state.events_for(seat)
        assert feed and feed == state.observe(seat).events
        assert state.events_for(seat, 10) == feed[10:]
        assert state.events_for(seat, len(feed)) == []
        # each seat's feed is the log filtered by audience
        expected = [e for to, e in state.log
                    if to is None or to == seat or (to < 0 and ~to != seat)]
        assert feed == expected


def test_observations_round_trip_through_json() -> None:
    state = new_game(GameConfig(players=("a", "b"), seed=9))
    view = state.observe(state.decision.seat if state.decision else 0)
    data = json.loads(json.dumps(view.to_json(include_events=True)))
    rebuilt = Observation.from_json(data)
    assert rebuilt.to_json(include_events=True) == data


def test_an_observation_holds_no_other_seats_events_even_privately() -> None:
    """In-process agents get the Observation object itself: nothing reachable from it, not
    even private attributes, may hold another seat's private event (the deal, say)."""
    state = new_game(GameConfig(players=("a", "b"), seed=3))
    theirs = [event for to, event in state.log if to == 1]
    assert theirs  # seat 1's private deal
    view = state.observe(0)
    names = [n for n in dir(view) if not n.startswith("__")]
    reachable = [value for value in (getattr(view, n) for n in names) if not callable(value)]
    assert any(isinstance(value, list) and state.events_for(0)[0] in value
               for value in reachable)  # the feed is reachable, so the search below can see
    for event in theirs:
        assert not any(value is event or (isinstance(value, list) and any(
            item is event or item == event or (isinstance(item, tuple) and event in item)
            for item in value)) for value in reachable)
    assert view.events == state.events_for(0)


def test_events_handed_out_are_copies_the_record_does_not_change() -> None:
    state = new_game(GameConfig(players=("a", "b"), seed=3))
    before = json.dumps(state.events_for(0))
    events = state.observe(0).events
    events[0]["type"] = "tampered"
    for event in events:
        for value in event.values():
            if isinstance(value, list):
                value.append("Crown")
    assert json.dumps(state.events_for(0)) == before


def test_a_seat_outside_the_game_is_refused() -> None:
    import pytest

    state = new_game(GameConfig(players=("a", "b"), seed=3))
    for seat in (-1, 2, 7):
        with pytest.raises(IndexError, match=rf"^no seat {seat}: the game has seats 0-1$"):
            state.observe(seat)
        with pytest.raises(IndexError, match=rf"^no seat {seat}: "):
            state.events_for(seat)


def _in_card_order(cards: list[str]) -> bool:
    from arena.engine.cards import parse_cards

    return parse_cards(" ".join(cards)) == sorted(parse_cards(" ".join(cards)))


def test_a_hand_shown_to_others_is_in_card_order_not_arrival_order() -> None:
    # A hand keeps its cards in the order they arrived: shown in that order, a peek after a
    # hidden exchange would point at the card the exchange gave (the newest one).
    hands = ["God-1 Agari-3 Beast-1 Beast-2 Beast-3", THREE[1], "God-5 " + THREE[2][9:]]
    state = build_state(hands, pile_top="Fate-1 Fate-2 Fate-3 Fate-4")
    act(state, "turn", 0, action="play", card="God-1")
    act(state, "target", 0, seat=1)
    act(state, "card", 0, card="Umbrae-3")
    act(state, "give", 0, card="Agari-3")
    act(state, "swap", 0)
    hold_turn(state, 1)
    act(state, "turn", 2, action="play", card="God-5")  # Ares: seat 2 sees seat 1's hand
    act(state, "target", 2, seat=1)
    peek = [e for e in state.events_for(2) if e["type"] == "peek"][-1]
    assert peek["cards"] == ["Agari-3", "Umbrae-1", "Umbrae-2", "Umbrae-4", "Umbrae-5"]
    assert state.decision is not None and state.decision.kind == "card"
    assert [o["card"] for o in state.decision.options] == peek["cards"]


def test_a_revealed_hand_in_the_observation_does_not_tell_which_card_an_exchange_gave() -> None:
    # Seat 2 (Hermes) gives seat 1 Beast-1 or Agari-1, whichever seat 1 lacks; seat 0 then
    # reveals seat 1's hand (Apollo). Seat 1 holds the same five cards either way, so seat 0's
    # view must be the same: a set's own order could follow the order the cards arrived.
    views = []
    for gift, other in (("Beast-1", "Agari-1"), ("Agari-1", "Beast-1")):
        state = build_state(["God-6 Umbrae-1 Umbrae-2 Umbrae-3 Umbrae-4",
                             f"Arcoi-3 Agari-2 Agari-6 {other} Umbrae-6",
                             f"God-1 {gift} Sophoi-1 Sophoi-2 Umbrae-5"],
                            active=2, starting_seat=2)
        act(state, "turn", 2, action="play", card="God-1")
        act(state, "target", 2, seat=1)
        act(state, "card", 2, card="Umbrae-6")
        act(state, "give", 2, card=gift)
        act(state, "swap", 2)
        act(state, "turn", 0, action="play", card="God-6")
        act(state, "target", 0, seat=1)
        views.append((state.observe(0, False).revealed, state.observe_json(0)["revealed"]))
    assert views[0] == views[1]
    assert views[0][0][1] == ["Agari-1", "Agari-2", "Agari-6", "Arcoi-3", "Beast-1"]


def test_every_hand_shown_to_others_in_random_games_is_in_card_order() -> None:
    shown = 0
    for seed in range(150):
        players = tuple(f"p{i}" for i in range(2 + seed % 4))
        state = play_game(GameConfig(players=players, seed=seed),
                          [RandomAgent(seed * 7 + i) for i in range(len(players))])
        for _, event in state.log:
            lists = ([event["cards"]] if event["type"] in ("peek", "reveal_hand")
                     and "cards" in event else event["hands"] if event["type"] == "showdown"
                     else [event["hand"]] if event["type"] == "ascension" else [])
            for cards in lists:
                shown += 1
                assert _in_card_order(cards), (seed, event)
    assert shown > 150


def test_the_referees_observation_json_is_the_snapshots_json() -> None:
    """The referee builds each ``act``'s observation straight from the state; at every
    decision of random games at every table size, for every seat, it is exactly the JSON of
    the snapshot a bot could rebuild (traps, reveals and graveyards included)."""
    checked = 0
    for players in (2, 3, 4, 5):
        for game in range(12):
            config = GameConfig(players=tuple(f"p{s}" for s in range(players)),
                                seed=game * 97 + players)
            state = new_game(config)
            agents = [RandomAgent(game * 11 + s) for s in range(players)]
            while state.decision is not None:
                for seat in range(players):
                    direct = state.observe_json(seat)
                    assert all(_in_card_order(cards) for cards in direct["revealed"])
                    assert direct == state.observe(seat, False).to_json(include_events=False)
                    # the same bytes on the wire too: key order and value types match
                    assert json.dumps(direct) == json.dumps(
                        state.observe(seat, False).to_json(include_events=False))
                    checked += 1
                decision = state.decision
                state.apply(agents[decision.seat].choose(decision,
                                                         state.observe(decision.seat)))
    assert checked > 5000


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_the_cards_of_a_look_or_a_peek_reach_only_the_seat_that_looked(players: int,
                                                                        seed: int) -> None:
    """A look at the draw pile (Sophoi, a Crown, Lachesis, a Hippocamp), a peek at a hand or
    at traps names its cards to the seat that looked; the others are told it happened, a look
    with how many cards (RULES.md E23)."""
    state = play_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed),
                      [RandomAgent(seed + i) for i in range(players)])
    for seat in range(players):
        for event in state.events_for(seat):
            if event["type"] not in ("look", "peek", "peek_traps"):
                continue
            if "cards" in event:
                assert event["seat"] == seat, event
                continue
            assert event["seat"] != seat, event
            if event["type"] == "look":
                told = [e for e in state.events_for(event["seat"]) if e["type"] == "look"
                        and e["turn"] == event["turn"] and e["source"] == event["source"]]
                assert event["count"] in [len(e["cards"]) for e in told], (event, told)


def test_random_games_look_at_the_pile_often_enough_to_test() -> None:
    looks = 0
    for seed in range(20):
        state = play_game(GameConfig(players=("a", "b", "c"), seed=seed),
                          [RandomAgent(seed + i) for i in range(3)])
        looks += sum(1 for to, event in state.log if event["type"] == "look" and to is not None
                     and to >= 0)
    assert looks >= 20, looks
