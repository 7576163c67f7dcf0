"""Property test: the kit's search knows what its own seat was told, and nothing else.

At every decision of random games under every house rule, each seat's :class:`Tracker`, fed
that seat's events alone, (b) never rules out the truth: every card it places (in a hand, a
trap's slot, a place of the draw pile) is there; and (a) every determinisation the seat's
view samples agrees with the true state on all the seat knows: its hand and traps, both
graveyards in order, each trap's age, and each card the tracker places, a card it knows only
the whereabouts of within them. Exact places, so an off-by-one in a depth fails."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from told_windows import leaning_face_down as _leaning_face_down
from told_windows import names as _names
from told_windows import told_windows as _told_windows
from told_windows import within as _within

from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.houserules import RULE_CHOICES, HouseRules
from arena.engine.state import State
from arena.sdk.search import SearchView, Tracker, Whereabouts

house_rules = st.builds(HouseRules, **{name: st.sampled_from(choices)
                                       for name, choices in RULE_CHOICES.items()})

#: effects whose play tells the player cards of the draw pile or traps, or moves a card there
_PILE_CARDS = ("God-4", "Sophoi-", "Crown", "Fate-2", "Beast-")


def _steered(state: State, rng: random.Random) -> int:
    """Random choices, playing a card that tells of the pile when one is offered."""
    decision = state.decision
    assert decision is not None
    options = decision.options
    if decision.kind == "turn" and rng.random() < 0.6:
        telling = [i for i, option in enumerate(options)
                   if str(option.get("card", "")).startswith(_PILE_CARDS)]
        if telling:
            return rng.choice(telling)
    return rng.randrange(len(options))


def _games(seed: int, players: int, rules: HouseRules) -> Iterator[tuple[State, list[Tracker]]]:
    """Each decision of a game, with every seat's tracker fed that seat's feed up to it."""
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players, rules=rules))
    trackers = [Tracker() for _ in range(players)]
    for seat, tracker in enumerate(trackers):
        tracker.reset(seat)
    rng = random.Random(seed)
    while state.decision is not None:
        for seat, tracker in enumerate(trackers):
            for event in state.events_for(seat, len(tracker.events)):
                tracker.add(event)
            tracker.catch_up(seat)
        yield state, trackers
        state.apply(_steered(state, rng))


def _check_allows_truth(truth: State, seat: int, tracker: Tracker) -> int:
    """What the tracker claims is true; returns how many placed cards it claims."""
    assert tracker.pile is not None and len(tracker.pile) == len(truth.draw_pile), seat
    claims = 0
    for place, name in enumerate(tracker.pile):
        if name is not None:
            assert NOTATION[truth.draw_pile[place]] == name, (seat, place, tracker.pile)
            claims += 1
    for other in range(truth.n):
        if other == seat:
            continue
        revealed = [NOTATION[card] for card in truth.revealed[other]]
        unrevealed = _names(truth.hands[other]) - Counter(revealed)
        assert not tracker.beyond_revealed(other, revealed) - unrevealed, (seat, other)
        slots = tracker.traps.get(other, [])
        assert len(slots) == len(truth.traps[other]), (seat, other)
        for trap, name in zip(truth.traps[other], slots):
            assert name is None or NOTATION[trap.card] == name, (seat, other, slots)
    for where in tracker.whereabouts:
        assert where.card in _within(truth, where.pile, where.hands), (seat, where)
        claims += 1
    return claims


def _check_sample_agrees(truth: State, view: SearchView, sample: State) -> None:
    seat, tracker = view.seat, view.tracker
    assert _names(sample.hands[seat]) == _names(truth.hands[seat])
    assert [NOTATION[t.card] for t in sample.traps[seat]] == \
        [NOTATION[t.card] for t in truth.traps[seat]]
    for zone in ("effect_graveyard", "discard_graveyard"):
        assert [NOTATION[c] for c in getattr(sample, zone)] == \
            [NOTATION[c] for c in getattr(truth, zone)], zone
    assert sorted(sample.all_cards()) == list(range(52))
    assert tracker.pile is not None
    for place, name in enumerate(tracker.pile):
        if name is not None:
            assert NOTATION[sample.draw_pile[place]] == name, (place, tracker.pile)
    for other in range(truth.n):
        if other == seat:  # own traps: the observation tells their expiry and readiness
            assert [(t.owner_turns, t.set_turn < sample.turn) for t in sample.traps[seat]] == \
                [(t.owner_turns, t.set_turn < truth.turn) for t in truth.traps[seat]]
            continue
        assert [(t.set_turn, t.owner_turns) for t in sample.traps[other]] == \
            [(t.set_turn, t.owner_turns) for t in truth.traps[other]]
        assert _names(sample.revealed[other]) == _names(truth.revealed[other])
        assert not Counter(view.known_hand(other)) - _names(sample.hands[other]), other
        for trap, name in zip(sample.traps[other], tracker.traps.get(other, [])):
            assert name is None or NOTATION[trap.card] == name, other
    for where in view.whereabouts():
        assert where.card in _within(sample, where.pile, where.hands), where


def _check_game(seed: int, players: int, rules: HouseRules) -> int:
    claims = 0
    for truth, trackers in _games(seed, players, rules):
        for seat, tracker in enumerate(trackers):
            claims += _check_allows_truth(truth, seat, tracker)
        decision = truth.decision
        assert decision is not None
        if decision.kind in ("turn", "swap"):
            seat = decision.seat
            view = SearchView(truth.observe_json(seat), trackers[seat].events, decision.kind,
                              list(decision.options), trackers[seat], rules=rules)
            for k in range(2):
                _check_sample_agrees(truth, view, view.sample_state(seed + k))
    return claims


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5), rules=house_rules)
def test_the_kit_never_rules_out_the_truth_and_samples_what_it_was_told(
        seed: int, players: int, rules: HouseRules) -> None:
    _check_game(seed, players, rules)


def test_the_pile_knowledge_is_used_in_most_games() -> None:
    """The property above is not vacuous: seats do place cards of the pile."""
    claims = sum(_check_game(seed, 2 + seed % 4, HouseRules()) for seed in range(6))
    assert claims > 50


def _own_turn_swaps(seeds: range, players: int) -> Iterator[tuple[State, SearchView, list[Any]]]:
    """Each seat's swap decisions, with its view and its feed's events of this turn."""
    for seed in seeds:
        for truth, trackers in _games(seed, players, HouseRules()):
            decision = truth.decision
            assert decision is not None
            if decision.kind != "swap":
                continue
            seat = decision.seat
            view = SearchView(truth.observe_json(seat), trackers[seat].events, "swap",
                              list(decision.options), trackers[seat])
            yield truth, view, [e for e in trackers[seat].events if e["turn"] == truth.turn]


def test_a_card_the_seat_put_on_the_pile_or_gave_at_a_depth_is_there_in_every_sample() -> None:
    """Phoenix's card goes on top; a card given for one of the top cards (Athena, Sophoi, a
    Crown) takes that card's place, at the depth counted from the look the seat was told."""
    checked = Counter[str]()
    for truth, view, this_turn in _own_turn_swaps(range(40), 3):
        placed: dict[int, str] = {}  # depth from the top: card
        looked: list[str] = []
        for event in this_turn:
            if event["type"] == "look" and "cards" in event:
                looked = event["cards"]
            elif event["type"] == "return_to_pile" and "card" in event:
                placed = {1: event["card"]}
                checked["returned"] += 1
            elif event["type"] == "pile_exchange" and "took" in event:
                depth = event.get("depth", looked.index(event["took"]) + 1)
                placed = {depth: event["gave"]}
                checked[f"given at depth {depth}"] += 1
            elif event["type"] in ("draw", "burn"):  # the play's own draw comes after
                placed = {depth - 1: name for depth, name in placed.items() if depth > 1}
            elif event["type"] in ("reshuffle", "updraft", "pile_bottomed", "palaestron"):
                placed = {}
        for depth, name in placed.items():
            assert NOTATION[truth.draw_pile[-depth]] == name  # the test reads the feed right
            for k in range(4):
                assert NOTATION[view.sample_state(k).draw_pile[-depth]] == name, (depth, k)
            checked[f"kept at depth {depth}"] += 1
    assert checked["kept at depth 1"] > 10 and checked["kept at depth 2"], checked


def _read_told(tracker: Tracker, event: dict[str, Any]) -> str | None:
    """Feed ``event`` to ``tracker``; where it names another seat's revealed card going face
    down, check that the tracker placed it and kept what it knew of that hand, and say how."""
    seat, kind = event.get("seat"), event["type"]
    named = event.get("gave" if kind == "pile_exchange" else "card")
    told = kind in ("set_trap", "return_to_pile", "pile_exchange") and seat != tracker.seat \
        and named is not None
    before = Counter(tracker.known.get(seat, Counter()))
    looked_at_one = tracker._looked == 1
    tracker.add(event)
    tracker.catch_up(tracker.seat)
    if not told:
        return None
    assert before - Counter([named]) <= tracker.known.get(seat, Counter()), (before, event)
    if kind == "set_trap":
        assert tracker.traps[seat][-1] == named, (tracker.traps, event)
        return kind
    if kind == "pile_exchange" and not looked_at_one:
        return None  # one of the top cards looked at: which place, the others are not told
    assert tracker.pile is not None and tracker.pile[-1] == named, (tracker.pile, event)
    return kind


def _check_told_game(seed: int, players: int) -> Counter[str]:
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players))
    trackers = [Tracker() for _ in range(players)]
    for seat, tracker in enumerate(trackers):
        tracker.reset(seat)
    rng = random.Random(seed)
    placed: Counter[str] = Counter()
    while state.decision is not None:
        for seat, tracker in enumerate(trackers):
            for event in state.events_for(seat, len(tracker.events)):
                placed[_read_told(tracker, event)] += 1
            _check_allows_truth(state, seat, tracker)
            placed["whereabouts"] += len(tracker.whereabouts)
        state.apply(_leaning_face_down(state, rng))
    del placed[None]
    return placed


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_the_kit_places_a_revealed_card_another_seat_sends_face_down(seed: int,
                                                                      players: int) -> None:
    """Its trap's card, or the pile's top where it went (Phoenix; given for the one card a
    Crown looked at), is known to every other seat; and what they knew of that hand but
    the card is kept. Never beyond the truth."""
    _check_told_game(seed, players)


def test_the_steered_games_place_revealed_cards_every_way() -> None:
    placed: Counter[str] = Counter()
    for seed in range(30):
        placed += _check_told_game(seed, 2 + seed % 4)
    assert placed["set_trap"] and placed["return_to_pile"] and placed["pile_exchange"], placed
    assert placed["whereabouts"], placed


def test_a_card_the_seat_knows_on_the_pile_is_known_in_the_hand_that_draws_it() -> None:
    tracker = Tracker()
    tracker.reset(0)
    for event in ({"type": "game_start", "players": ["a", "b"]},
                  {"type": "turn_start", "seat": 0},
                  {"type": "play", "seat": 0, "card": "Beast-5"},
                  {"type": "draw", "seat": 0, "card": "Fate-1"},
                  {"type": "return_to_pile", "seat": 0, "card": "God-3"},
                  {"type": "turn_start", "seat": 1},
                  {"type": "play", "seat": 1, "card": "Beast-1"},
                  {"type": "burn", "seat": 1, "card": "God-3"}):
        tracker.add(event)
    tracker.catch_up(0)
    assert tracker.beyond_revealed(1, []) == Counter()  # burned, not drawn
    for event in ({"type": "return_to_pile", "seat": 0, "card": "God-7"},
                  {"type": "draw", "seat": 1}):
        tracker.add(event)
    tracker.catch_up(0)
    assert tracker.beyond_revealed(1, []) == Counter({"God-7": 1})


def test_a_trap_seen_with_basilisk_keeps_its_slot_as_traps_before_it_leave() -> None:
    tracker = Tracker()
    tracker.reset(0)
    for event in ({"type": "game_start", "players": ["a", "b"]},
                  {"type": "set_trap", "seat": 1},
                  {"type": "set_trap", "seat": 1},
                  {"type": "peek_traps", "seat": 0, "target": 1, "cards": ["God-1", "Fate-4"]},
                  {"type": "trap_expired", "seat": 1, "card": "God-1", "slot": 0},
                  {"type": "set_trap", "seat": 1}):
        tracker.add(event)
    tracker.catch_up(0)
    assert tracker.traps[1] == ["Fate-4", None]


def test_two_hidden_states_with_the_same_feed_give_the_same_knowledge_and_samples() -> None:
    """Nothing but the seat's own feed and observation reaches the kit: deal the cards the
    seat cannot see otherwise, and its tracker and its samples do not change."""
    compared = 0
    for truth, view, _ in _own_turn_swaps(range(6), 3):
        if not view.tracker.knows_anything():
            continue
        seat = view.seat
        other = truth.clone()
        places = [(s, i) for s in range(other.n) if s != seat
                  for i, card in enumerate(other.hands[s]) if card not in other.revealed[s]]
        cards = [other.hands[s][i] for s, i in places] + other.draw_pile
        random.Random(compared).shuffle(cards)
        for (s, i), card in zip(places, cards):
            other.hands[s][i] = card
        other.draw_pile = cards[len(places):]
        assert other.observe_json(seat) == truth.observe_json(seat)
        tracker = Tracker()
        tracker.reset(seat)
        for event in view.tracker.events:
            tracker.add(event)
        again = SearchView(other.observe_json(seat), tracker.events, "swap", view.legal, tracker)
        assert vars(again.tracker) == vars(view.tracker)
        for k in range(3):
            a, b = view.sample_state(k), again.sample_state(k)
            assert (a.hands, a.draw_pile) == (b.hands, b.draw_pile)
        compared += 1
    assert compared > 10


def test_a_card_given_for_one_of_the_top_cards_is_dealt_only_where_it_may_be() -> None:
    """Athena or Sophoi: the others know the revealed card given is at one of the top places
    the player looked at, or back in the player's hand if they drew from there; a sample
    that deals it anywhere else (another hand, deep in the pile) deals what the seat knows
    is false."""
    checked = Counter[str]()
    for seed_range, players in ((range(0, 60), 2), (range(60, 100), 3)):
        for truth, view, card, places, giver, drew in _told_windows(seed_range, players):
            pile = list(range(len(truth.draw_pile) - places, len(truth.draw_pile)))
            hands = [giver] if drew else []
            assert card in _within(truth, pile, hands)  # the test reads the feed right
            for k in range(6):
                assert card in _within(view.sample_state(k), pile, hands), (card, places, k)
            checked[f"{places} places" + (" or the hand" if hands else "")] += 1
    assert checked["0 places or the hand"] and checked["1 places or the hand"], checked


def _fed(tracker: Tracker, *events: dict[str, Any]) -> Tracker:
    for event in events:
        tracker.add(event)
    tracker.catch_up(tracker.seat)
    return tracker


def test_the_whereabouts_of_a_card_given_to_the_top_cards_follow_the_pile() -> None:
    tracker = Tracker()
    tracker.reset(0)
    _fed(tracker, {"type": "game_start", "players": ["a", "b"]},
         {"type": "look", "seat": 1, "count": 3},
         {"type": "pile_exchange", "seat": 1, "gave": "Fate-1"})
    assert tracker.whereabouts == [Whereabouts("Fate-1", [39, 40, 41])]
    _fed(tracker, {"type": "draw", "seat": 1})  # perhaps the card it gave
    assert tracker.whereabouts == [Whereabouts("Fate-1", [39, 40], [1])]
    _fed(tracker, {"type": "look", "seat": 0, "cards": ["Agari-1"]})  # not at the top
    assert tracker.whereabouts == [Whereabouts("Fate-1", [39], [1])]
    _fed(tracker, {"type": "draw", "seat": 0, "card": "Agari-1"}, {"type": "pile_bottomed"},
         {"type": "updraft", "seat": 1, "card": "God-1"})
    assert tracker.whereabouts == [Whereabouts("Fate-1", [0], [1])]
    _fed(tracker, {"type": "discard", "seat": 1, "card": "Fate-2"},
         {"type": "reshuffle", "cards": 30})  # not in the pile: in the hand
    assert tracker.whereabouts == [] and tracker.beyond_revealed(1, []) == {"Fate-1": 1}


def test_whereabouts_are_forgotten_where_the_card_may_have_left_or_been_seen() -> None:
    start = ({"type": "game_start", "players": ["a", "b", "c"]},
             {"type": "look", "seat": 1, "count": 2},
             {"type": "pile_exchange", "seat": 1, "gave": "Fate-1"},
             {"type": "draw", "seat": 1})
    for then in ({"type": "discard", "seat": 1, "card": "Fate-1"},  # maybe that copy
                 {"type": "set_trap", "seat": 1},  # a hidden card: maybe that one
                 {"type": "draw", "seat": 0, "card": "Fate-1"},
                 {"type": "reveal", "seat": 1, "card": "Fate-1"}):
        tracker = Tracker()
        tracker.reset(0)
        _fed(tracker, *start)
        assert tracker.whereabouts == [Whereabouts("Fate-1", [35], [1])]
        assert _fed(tracker, then).whereabouts == [], then
        assert not tracker.beyond_revealed(1, []), then
