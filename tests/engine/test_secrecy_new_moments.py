"""What each seat learns at two moments, over random 2-5 seat games steered into them:
Nemesis's two gifts (RULES.md E29) and the trigger window a God fired by a forced discard
opens (E10). A seat is never told a card hidden from it, and is
told all it may know: its own cards, and both cards of a gift it took part in.

Every route by which a seat's view is produced is read: its observation and event feed (the
protocol's ``act`` and ``event`` lines), the kit's tracker and determinisations, the record
told for that seat and the replay's seat view (the learning environments' views of the same
moments: tests/rl/test_secrecy.py).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine_scenario import act, asked, build_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.common.printable import isolated
from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.narration import event_lines
from arena.engine.state import State
from arena.sdk.search import SearchView, Tracker
from arena.web.replay import build_replay

NAMES = ("north", "east", "south", "west", "centre")
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _faces(cards: Any) -> Counter[str]:
    return Counter(NOTATION[c] for c in cards)


def _hidden_faces(state: State) -> list[Counter[str]]:
    return [_faces(hand) - _faces(revealed)
            for hand, revealed in zip(state.hands, state.revealed)]


def _steered(decision: Any, rng: random.Random) -> int:
    """A random legal choice, leaning towards the two moments: Nemesis played, traps set and
    sprung, a God given up when a discard is forced."""
    options = decision.options
    if decision.kind == "trigger" and decision.context.get("window") != "discarded":
        return 0 if rng.random() < 0.9 else rng.randrange(len(options))  # keep it for one
    lean = {"turn": lambda o: o.get("card") == "Fate-5" or o.get("action") == "trap",
            "trigger": lambda o: o.get("trap") is not None,
            "discard": lambda o: str(o.get("card", "")).startswith("God-")}.get(decision.kind)
    if lean is not None and rng.random() < 0.7:
        leaning = [i for i, option in enumerate(options) if lean(option)]
        if leaning:
            return rng.choice(leaning)
    return rng.randrange(len(options))


def _check_gifts(state: State, start: int, hidden: list[Counter[str]]) -> int:
    """The ``give`` events logged from ``start``: the two players are told the card, each other
    seat is told it exactly when it was revealed in the giver's hand (``hidden``: each hand's
    hidden faces before them). Returns how many gifts there were."""
    gifts = 0
    log = state.log
    for at in range(start, len(log)):
        to, event = log[at]
        if event["type"] != "give" or to != event["seat"]:
            continue
        gifts += 1
        giver, receiver, face = event["seat"], event["target"], event["card"]
        public = hidden[giver][face] == 0  # the hidden copy goes first (E20)
        if not public:
            hidden[giver][face] -= 1
        hidden[receiver][face] += 1  # hidden again in its new hand (E23)
        told = {seat: [e for t, e in log[at:at + state.n + 1]
                       if e["type"] == "give" and e["seat"] == giver and (t == seat)]
                for seat in range(state.n)}
        for seat in range(state.n):
            assert len(told[seat]) == 1, (seat, told)
            named = told[seat][0].get("card")
            if seat in (giver, receiver):
                assert named == face
            else:
                assert named == (face if public else None), (seat, event, public)
    return gifts


def _check_observations(state: State) -> None:
    """Every seat's observation holds its own cards in full and of the others only what is
    public; a trigger window offers a seat its own traps only."""
    revealed = [sorted(NOTATION[c] for c in cards) for cards in state.revealed]
    for seat in range(state.n):
        data = state.observe_json(seat)
        assert Counter(data["hand"]) == _faces(state.hands[seat])
        assert [t["card"] for t in data["traps"]] == [NOTATION[t.card]
                                                       for t in state.traps[seat]]
        assert [sorted(cards) for cards in data["revealed"]] == revealed
        assert data["hand_sizes"] == [len(h) for h in state.hands]
    decision = state.decision
    if decision is not None and decision.kind == "trigger":
        own = {NOTATION[t.card] for t in state.traps[decision.seat]}
        assert all(o["trap"] is None or o["trap"] in own for o in decision.options)


def _check_tracker(state: State, trackers: list[Tracker], cursors: list[int]) -> None:
    """The kit's view of every seat never claims a card a hand does not hold; at a turn or
    swap, its determinisations deal what it knows where it knows it."""
    decision = state.decision
    assert decision is not None
    for seat in range(state.n):
        pending = state.events_for(seat, cursors[seat])
        cursors[seat] += len(pending)
        for event in pending:
            trackers[seat].add(event)
        asked_here = seat == decision.seat and decision.kind in ("turn", "swap")
        view = SearchView(state.observe_json(seat), trackers[seat].events,
                          decision.kind if asked_here else "card",
                          list(decision.options) if asked_here else [], trackers[seat])
        sample = view.sample_state(len(trackers[seat].events)) if asked_here else None
        for other in range(state.n):
            if other == seat:
                continue
            known = Counter(view.known_hand(other))
            assert not known - _faces(state.hands[other]), "the kit claims a card not held"
            if sample is not None:
                assert not known - _faces(sample.hands[other]), "a known card dealt elsewhere"


def _check_told(state: State) -> None:
    """The record told for a seat (``arena game --seat``, the replay's seat view) is what the
    seat was told as the game went."""
    record = state.record()
    replay = build_replay(record)
    # the page isolates each name (a right-to-left one keeps the words beside it in order)
    named = {**record, "players": [isolated(name) for name in record["players"]]}
    for seat in range(state.n):
        live = [{key: value for key, value in e.items()} for e in state.events_for(seat)]
        recorded = [{k: v for k, v in e.items() if k != "to"} for e in record["events"]
                    if e["to"] == "all" or e["to"] == seat
                    or (isinstance(e["to"], str) and e["to"] != f"all_but:{seat}")]
        assert recorded == live
        told = [line for step in replay["steps"]
                for line in (step["seat_lines"][seat] if step["seat_lines"][seat] is not None
                             else step["lines"])]
        assert [line.strip() for line in told if line.strip() != "Deal"] == [
            line.strip() for line in event_lines(named, seat) if line.strip() != "Deal"]


@SETTINGS
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_no_seat_learns_a_hidden_card_at_a_gift_or_a_discarded_gods_window(
        players: int, seed: int) -> None:
    state = new_game(GameConfig(players=NAMES[:players], seed=seed))
    rng = random.Random(seed)
    trackers = [Tracker() for _ in range(players)]
    cursors = [0] * players
    for tracker, seat in zip(trackers, range(players)):
        tracker.reset(seat)
    gifts = 0
    while state.decision is not None:
        _check_observations(state)
        _check_tracker(state, trackers, cursors)
        hidden, start = _hidden_faces(state), len(state.log)
        state.apply(_steered(state.decision, rng))
        gifts += _check_gifts(state, start, hidden)
    _check_observations(state)
    _check_told(state)


def test_the_steered_games_meet_both_moments() -> None:
    # the property above means something only if its games hold gifts and discarded windows
    gifts = windows = 0
    for seed in range(40):
        state = new_game(GameConfig(players=NAMES[:2 + seed % 4], seed=seed))
        rng = random.Random(seed)
        while state.decision is not None:
            decision = state.decision
            windows += decision.kind == "trigger" and \
                decision.context.get("window") == "discarded"
            state.apply(_steered(decision, rng))
        gifts += sum(1 for to, e in state.log if e["type"] == "give" and to == e["seat"])
    assert gifts >= 20 and windows >= 3, (gifts, windows)


def test_a_card_handed_beside_a_revealed_copy_is_dealt_there_as_a_second_copy() -> None:
    # seat 0 shows a Fate-3; seat 1 gives it the other one with Nemesis (hidden there, E23)
    # and gets Sophoi-3 back (E29): seat 1 knows seat 0 holds both copies, so its kit says so
    # and every world it samples deals both to seat 0
    state = build_state(["Fate-5 Fate-3 Sophoi-3 Sophoi-4 Sophoi-5",
                         "Fate-3 Umbrae-2 Umbrae-3 Umbrae-4 Umbrae-5",
                         "Agari-2 Agari-3 Agari-4 Agari-5 Agari-6"], pile_top="Fate-1 Fate-2")
    state.revealed[0].add(state.hands[0][1])
    act(state, "turn", 0, action="play", card="Fate-5")
    act(state, "target", 0, seat=1)
    act(state, "give", 1, card="Fate-3")
    act(state, "give", 0, card="Sophoi-3")
    while state.decision is not None and state.decision.kind != "turn":
        state.apply(0)
    assert asked(state) == (1, "turn") and state.decision is not None
    view = SearchView(state.observe_json(1), state.events_for(1), "turn",
                      list(state.decision.options))
    assert view.known_hand(0) == ["Fate-3", "Fate-3"]
    for seed in range(5):
        assert _faces(view.sample_state(seed).hands[0])["Fate-3"] == 2
    # seat 2 was told neither card: it knows only the revealed copy
    onlooker = SearchView(state.observe_json(2), state.events_for(2), "card", [])
    assert onlooker.known_hand(0) == ["Fate-3"]
