"""Another seat trades one of several top cards of the pile this seat knew: what is kept.

Each card the seat knew there is at its place or in the trader's hand, and only one of them
left (exactly one where it knew every card looked at). The tracker keeps that; a sample
deals it so, each layout that allows it as likely as another (checked against every layout
of a small case), and the games' truth never contradicts it. Only the seat's own feed."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from told_windows import names, within

from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.state import State
from arena.sdk.known_places import _deal_rest, _matchings, _windows
from arena.sdk.search import SearchView, Tracker, Whereabouts
from arena.sdk.tracker import Exchange


def _fed(tracker: Tracker, *events: dict[str, Any]) -> Tracker:
    for event in events:
        tracker.add(event)
    tracker.catch_up(tracker.seat)
    return tracker


def _one_of_three_traded(*after: dict[str, Any]) -> Tracker:
    """Seat 0 saw God-1, Fate-1 and Beast-1 on top; seat 1 traded one of the three; then
    ``after``."""
    tracker = Tracker()
    tracker.reset(0)
    return _fed(tracker, {"type": "game_start", "players": ["a", "b"]},
                {"type": "look", "seat": 0, "cards": ["God-1", "Fate-1", "Beast-1"]},
                {"type": "look", "seat": 1, "count": 3},
                {"type": "pile_exchange", "seat": 1}, *after)


def test_cards_known_on_top_stay_known_when_another_seat_trades_one_of_them() -> None:
    tracker = _one_of_three_traded()
    assert tracker.whereabouts == [Whereabouts("Beast-1", [39], [1]),
                                   Whereabouts("Fate-1", [40], [1]),
                                   Whereabouts("God-1", [41], [1])]
    (exchange,) = tracker.live_exchanges()
    assert exchange.exact and exchange.seat == 1 and exchange.places == [39, 40, 41]
    _fed(tracker, {"type": "draw", "seat": 1})  # the top, or the card traded for it
    assert tracker.whereabouts == [Whereabouts("Beast-1", [39], [1]),
                                   Whereabouts("Fate-1", [40], [1])]
    (rest,) = tracker.live_exchanges()  # still at most one of them in the hand
    assert not rest.exact and rest.places == [39, 40]
    _fed(tracker, {"type": "look", "seat": 0, "cards": ["Fate-2"]})  # Fate-1 went too?
    assert not tracker.live_exchanges()


def test_a_place_that_shows_another_card_names_the_card_traded_and_the_others_stayed() -> None:
    tracker = _one_of_three_traded(  # the top was traded
        {"type": "draw", "seat": 0, "card": "Agari-1"})
    assert tracker.beyond_revealed(1, []) == {"God-1": 1}
    assert tracker.pile is not None and tracker.pile[39:] == ["Beast-1", "Fate-1"]
    assert tracker.whereabouts == [] and tracker.exchanges == []


def test_a_top_card_gone_unseen_names_no_card_traded() -> None:
    """A burn that does not name its card (another referee's feed): the top is not seen, so
    it tells nothing of which card was traded, and God-1 may have been burned (it was taken
    for a card known in the hand)."""
    tracker = _one_of_three_traded({"type": "burn", "seat": 0})
    assert tracker.pile is not None and tracker.pile[39:] == [None, None]
    assert [where.card for where in tracker.whereabouts] == ["Beast-1", "Fate-1"]
    assert tracker.beyond_revealed(1, []) == {}
    (rest,) = tracker.live_exchanges()
    assert not rest.exact and rest.places == [39, 40]


def test_a_partial_look_keeps_at_most_one_of_the_cards_in_the_hand() -> None:
    tracker = Tracker()
    tracker.reset(0)
    _fed(tracker, {"type": "game_start", "players": ["a", "b", "c"]},
         {"type": "look", "seat": 0, "cards": ["God-1", "Fate-1"]},
         {"type": "look", "seat": 2, "count": 3},
         {"type": "pile_exchange", "seat": 2, "gave": "God-5"})
    assert Whereabouts("God-5", [34, 35, 36]) in tracker.whereabouts
    (exchange,) = tracker.live_exchanges()
    assert not exchange.exact and exchange.places == [35, 36]
    _fed(tracker, {"type": "set_trap", "seat": 2})  # a hidden card left that hand
    assert tracker.whereabouts == [Whereabouts("God-5", [34, 35, 36])]
    assert not tracker.live_exchanges()


def test_a_lachesis_move_keeps_the_exchange_at_its_cards_new_places() -> None:
    tracker = _one_of_three_traded(  # Lachesis: the top card to the bottom
        {"type": "look", "seat": 1, "count": 1}, {"type": "pile_bottomed"})
    assert tracker.whereabouts == [Whereabouts("Beast-1", [40], [1]),
                                   Whereabouts("Fate-1", [41], [1]),
                                   Whereabouts("God-1", [0], [1])]
    (exchange,) = tracker.live_exchanges()
    assert exchange.exact and exchange.places == [40, 41, 0]
    _fed(tracker, {"type": "draw", "seat": 1})  # Fate-1, now on top, or another card
    (rest,) = tracker.live_exchanges()
    assert not rest.exact and rest.places == [40, 0]


def _pile_claims(truth: State, tracker: Tracker) -> None:
    """Each card the tracker places on the pile is there in the truth."""
    assert tracker.pile is not None and len(tracker.pile) == len(truth.draw_pile)
    for place, name in enumerate(tracker.pile):
        assert name is None or NOTATION[truth.draw_pile[place]] == name, (place, name)


def _choice(state: State, phase: str, sophoi: str, pick: int) -> tuple[int | None, str]:
    """Seat 1 sets a Sophoi trap, seat 0 plays Athena trading none, seat 1 springs the trap
    and trades the ``pick``-th way, seat 0 sets a trap (drawing the top); option 0 else."""
    decision = state.decision
    assert decision is not None
    options, seat = decision.options, decision.seat
    wanted = {("start", 1, "turn"): ("trapped", {"action": "trap", "card": sophoi}),
              ("trapped", 0, "turn"): ("athena", {"action": "play", "card": "God-4"})}
    step = wanted.get((phase, seat, decision.kind))
    if step is not None:
        return next((i for i, o in enumerate(options) if o == step[1]), None), step[0]
    if phase == "athena" and decision.kind == "card":
        return 0, "looked"
    if phase == "looked" and seat == 1 and decision.kind == "trigger" and len(options) > 1:
        return 1, "sprung"
    if phase == "sprung" and decision.kind == "card":
        return 1 + pick % (len(options) - 1), "traded"
    if phase == "traded" and seat == 0 and decision.kind == "turn":
        return next(i for i, o in enumerate(options) if o.get("action") == "trap"), "drew"
    return 0, phase


def _athena_then_a_sophoi_trap(seed: int, pick: int) -> tuple[set[str], set[str]] | None:
    """The cards of the exchanges seat 0's tracker keeps before its draw, and those it knows
    on the pile after, in a game played as :func:`_choice` says (its pile checked against
    the truth at every decision); None where the deal does not allow that game."""
    state = new_game(GameConfig(players=("a", "b"), seed=seed))
    sophoi = [NOTATION[card] for card in state.hands[1] if NOTATION[card].startswith("Sophoi")]
    if not sophoi:
        return None
    tracker, phase, traded = Tracker(), "start", set()
    tracker.reset(0)
    while state.decision is not None and phase != "drew":
        _fed(tracker, *state.events_for(0, len(tracker.events)))
        _pile_claims(state, tracker)
        traded = {m.card for exchange in tracker.live_exchanges() for m in exchange.members}
        choice, phase = _choice(state, phase, sophoi[0], pick)
        if choice is None:
            return None
        state.apply(choice)
    _fed(tracker, *state.events_for(0, len(tracker.events)))
    _pile_claims(state, tracker)
    known = {name for name in tracker.pile or () if name is not None}
    return (traded, known) if phase == "drew" else None


def test_a_traded_card_drawn_as_another_tells_the_card_beside_it_stayed() -> None:
    """Seat 0 knew the two top cards; seat 1 traded one of them. Where seat 0 then draws
    another card from the top, the top card was the one traded: the other stayed, and seat
    0 knows it at its place (it was at its place or in that hand)."""
    played = [cards for seed in range(400) for pick in (0, 1, 2, 3)
              if (cards := _athena_then_a_sophoi_trap(seed, pick)) is not None]
    assert sum(1 for traded, _ in played if traded) > 20
    assert any(traded & known for traded, known in played)


# ---------------------------------------------------------------- the sampler, every layout
HAND = [(1, "hand", 0), (1, "hand", 1)]
PILE = [(-1, "pile", 0), (-1, "pile", 1), (-1, "pile", 2)]
# God-1 and Fate-1 were known at pile places 1 and 2; a second Fate-1 is unseen
CARDS = [0, 29, 30, 39, 7]


def _layouts(exact: bool) -> set[tuple[str, ...]]:
    """Every deal of CARDS over HAND + PILE that the exchange allows, by faces (which copy
    of Fate-1 lies where tells nothing)."""
    windows = [("God-1", [*HAND, PILE[1]], 0), ("Fate-1", [*HAND, PILE[2]], 0)]
    allowed = set()
    for cards in itertools.permutations(CARDS):
        deal = dict(zip(HAND + PILE, cards))
        if _matchings(deal, windows, [exact]):
            allowed.add(tuple(NOTATION[card] for card in cards))
    return allowed


def _sampled(exact: bool, draws: int) -> Counter[tuple[str, ...]]:
    rng = random.Random(7)
    pool: dict[str, list[int]] = {}
    for card in CARDS:
        pool.setdefault(NOTATION[card], []).append(card)
    windows = [("God-1", [*HAND, PILE[1]]), ("Fate-1", [*HAND, PILE[2]])]
    seen: Counter[tuple[str, ...]] = Counter()
    for _ in range(draws):
        deal = _deal_rest(HAND + PILE, {}, pool, windows, [([0, 1], exact)], rng)
        assert deal is not None
        seen[tuple(NOTATION[deal[place]] for place in HAND + PILE)] += 1
    return seen


def test_a_sample_deals_every_layout_the_exchange_allows_and_no_other_equally_often() -> None:
    for exact in (True, False):
        allowed, seen = _layouts(exact), _sampled(exact, 6000)
        assert set(seen) == allowed, exact
        expected = 6000 / len(allowed)
        assert all(0.7 * expected < count < 1.3 * expected for count in seen.values()), \
            (exact, expected, sorted(seen.values()))


def test_exactly_one_layouts_are_fewer_than_at_most_one() -> None:
    # the two readings differ: every card at its place is allowed only at most one
    exact, loose = _layouts(True), _layouts(False)
    assert exact < loose
    assert any(faces[3:] == ("God-1", "Fate-1") for faces in loose - exact)


# After a Lachesis move: a pile of three, God-1 on top and Fate-1 under it when seat 1 traded
# one of the two; then the top card went to the bottom, so God-1's place is 0, Fate-1's is 2.
LACHESIS_FEED = [{"type": "game_start", "players": ["a", "b"]},
                 {"type": "reshuffle", "cards": 3},
                 {"type": "look", "seat": 0, "cards": ["God-1", "Fate-1"]},
                 {"type": "look", "seat": 1, "count": 2},
                 {"type": "pile_exchange", "seat": 1},
                 {"type": "look", "seat": 1, "count": 1},
                 {"type": "pile_bottomed"}]


def _lachesis_layouts() -> set[tuple[str, ...]]:
    """Every deal of CARDS over HAND + PILE, by faces, where God-1 is at place 0 and Fate-1
    at place 2 but for one of them, which is in seat 1's hand (read from the rule, not the
    sampler)."""
    allowed = set()
    for cards in itertools.permutations(CARDS):
        faces = tuple(NOTATION[card] for card in cards)
        hand, pile = faces[:2], faces[2:]
        if "God-1" in hand and pile[2] == "Fate-1" or "Fate-1" in hand and pile[0] == "God-1":
            allowed.add(faces)
    return allowed


def test_after_a_lachesis_move_a_sample_deals_every_allowed_layout_equally_often() -> None:
    tracker = Tracker()
    tracker.reset(0)
    _fed(tracker, *LACHESIS_FEED)
    state = new_game(GameConfig(players=("a", "b"), seed=1))
    state.draw_pile = state.draw_pile[:len(PILE)]  # only its size is read
    windows, groups = _windows(state, tracker, HAND + PILE, {})
    pool: dict[str, list[int]] = {}
    for card in CARDS:
        pool.setdefault(NOTATION[card], []).append(card)
    rng, seen = random.Random(7), Counter[tuple[str, ...]]()
    for _ in range(6000):
        deal = _deal_rest(HAND + PILE, {}, pool, windows, groups, rng)
        assert deal is not None
        seen[tuple(NOTATION[deal[place]] for place in HAND + PILE)] += 1
    allowed = _lachesis_layouts()
    assert set(seen) == allowed
    expected = 6000 / len(allowed)
    assert all(0.7 * expected < count < 1.3 * expected for count in seen.values()), \
        (expected, sorted(seen.values()))


# ---------------------------------------------------------------- random games
def _leaning_to_look(state: State, rng: random.Random) -> int:
    """Random choices, leaning towards cards that look at the pile and trade with it, and
    towards Lachesis moving the top card to the bottom (the places renumber)."""
    decision = state.decision
    assert decision is not None
    lean = [i for i, option in enumerate(decision.options)
            if decision.kind == "turn" and option.get("action") == "play"
            and str(option.get("card")).startswith(("God-4", "Sophoi-", "Crown", "Fate-2"))
            or decision.kind == "card" and (option.get("card") or option.get("bottom"))]
    if lean and rng.random() < 0.8:
        return rng.choice(lean)
    return rng.randrange(len(decision.options))


def _left_places(state: State, exchange: Exchange) -> int:
    """How many of the exchange's cards are not at their place of the pile."""
    return sum(1 for member, place in zip(exchange.members, exchange.places)
               if NOTATION[state.draw_pile[place]] != member.card)


def _hidden_dealt_again(truth: State, seat: int, rng: random.Random) -> State:
    """The truth with every card ``seat`` cannot see dealt again (the same observation)."""
    other = truth.clone()
    places = [(s, i) for s in range(other.n) if s != seat
              for i, card in enumerate(other.hands[s]) if card not in other.revealed[s]]
    cards = [other.hands[s][i] for s, i in places] + other.draw_pile
    rng.shuffle(cards)
    for (s, i), card in zip(places, cards):
        other.hands[s][i] = card
    other.draw_pile = cards[len(places):]
    assert other.observe_json(seat) == truth.observe_json(seat)
    return other


def _check_sample(sample: State, view: SearchView) -> None:
    """Each card the seat knows the whereabouts of is within them, and of each exchange
    that holds, at most one card left its place (exactly one is in the hand)."""
    for where in view.whereabouts():
        assert where.card in within(sample, where.pile, where.hands), where
    for exchange in view.tracker.live_exchanges():
        assert _left_places(sample, exchange) <= 1, exchange
        if exchange.exact:
            hidden = names(sample.hands[exchange.seat]) - names(sample.revealed[exchange.seat])
            assert any(hidden[member.card] for member in exchange.members), exchange


def _check_exchanges(seed: int, players: int) -> int:
    """Play a game; the truth allows every exchange each seat keeps, and the seats' samples
    do too. Returns how many cards the seats knew another seat may have traded."""
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=seed % players))
    trackers = [Tracker() for _ in range(players)]
    for seat, tracker in enumerate(trackers):
        tracker.reset(seat)
    rng, kept = random.Random(seed), 0
    while (decision := state.decision) is not None:
        for seat, tracker in enumerate(trackers):
            for event in state.events_for(seat, len(tracker.events)):
                _fed(tracker, event)
                if event["type"] == "pile_exchange" and event["seat"] != seat:
                    kept += sum(1 for where in tracker.whereabouts
                                if where.hands == [event["seat"]] and len(where.pile) == 1)
            for where in tracker.whereabouts:
                assert where.card in within(state, where.pile, where.hands), (seat, where)
            for exchange in tracker.live_exchanges():  # the truth allows it
                assert _left_places(state, exchange) <= 1, (seat, exchange)
                hidden = names(state.hands[exchange.seat]) - names(
                    state.revealed[exchange.seat])
                assert _left_places(state, exchange) == 0 or any(
                    hidden[m.card] for m in exchange.members), (seat, exchange)
        seat = decision.seat
        view = SearchView(state.observe_json(seat), trackers[seat].events, decision.kind,
                          list(decision.options), trackers[seat])
        if decision.kind in ("turn", "swap") and view.whereabouts():
            other = _hidden_dealt_again(state, seat, random.Random(seed))
            again = SearchView(other.observe_json(seat), list(trackers[seat].events),
                               decision.kind, list(decision.options))
            assert vars(again.tracker) == vars(view.tracker)  # the feed alone
            for k in range(4):
                sample = view.sample_state(seed + k)
                _check_sample(sample, view)
                twin = again.sample_state(seed + k)
                assert (sample.hands, sample.draw_pile) == (twin.hands, twin.draw_pile)
        state.apply(_leaning_to_look(state, rng))
    return kept


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_samples_never_deal_an_exchanged_card_where_it_cannot_be(seed: int,
                                                                 players: int) -> None:
    _check_exchanges(seed, players)


def test_the_games_do_trade_cards_another_seat_knew() -> None:
    assert sum(_check_exchanges(seed, 2 + seed % 2) for seed in range(20)) > 2
