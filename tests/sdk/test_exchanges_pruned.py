"""The tracker drops an exchange that can no longer constrain anything (fewer than two of its
cards still at their places, the trading seat among their hands), so a long game's samples
do not read it again, and dropping it never changes what a sample may deal: feeds of looks,
trades, draws, burns, Lachesis moves, peeks, hidden cards set and reshuffles, read by a
tracker that prunes and one that keeps every exchange, give the samplers the same windows
and groups."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.rulebook import HAND_SIZE
from arena.sdk.known_places import Place, _windows
from arena.sdk.tracker import Exchange, Tracker, Whereabouts

FACES = ["God-1", "God-2", "Fate-1", "Beast-1", "Agari-1"]
MOVES = ["look", "look", "trade", "trade", "draw", "draw", "bottom", "burn", "trap", "peek",
         "reshuffle"]


class KeepsEveryExchange(Tracker):
    """The tracker as it was before pruning: every exchange stays in ``exchanges``."""

    def _prune_exchanges(self) -> None:
        pass


def _look(draw: st.DrawFn, count: int) -> dict[str, Any]:
    return {"type": "look", "seat": 0,
            "cards": draw(st.lists(st.sampled_from(FACES), min_size=count, max_size=count))}


@st.composite
def feeds(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A feed seat 0 could be told: other seats trade with top cards it looked at."""
    players = draw(st.integers(2, 4))
    events: list[dict[str, Any]] = [{"type": "game_start",
                                     "players": [f"p{seat}" for seat in range(players)]}]
    size = 52 - HAND_SIZE * players
    other = st.integers(1, players - 1)
    for move in draw(st.lists(st.sampled_from(MOVES), min_size=4, max_size=40)):
        seat = draw(st.integers(0, players - 1))
        count = min(size, draw(st.integers(1, 3)))
        if move == "reshuffle":
            size = draw(st.integers(4, 30))
            events.append({"type": "reshuffle", "cards": size})
        elif move == "trap":
            events.append({"type": "set_trap", "seat": draw(other)})
        elif move == "peek":
            events.append({"type": "peek", "seat": 0, "target": draw(other),
                           "cards": draw(st.lists(st.sampled_from(FACES), min_size=5,
                                                  max_size=5))})
        elif size == 0:
            continue
        elif move == "look":
            events.append(_look(draw, count))
        elif move == "trade" and count > 1:
            trader = draw(other)
            if draw(st.booleans()):  # it looked at them just before
                events.append(_look(draw, count))
            events += [{"type": "look", "seat": trader, "count": count},
                       {"type": "pile_exchange", "seat": trader,
                        "gave": draw(st.none() | st.sampled_from(FACES))}]
        elif move == "bottom":
            events += [{"type": "look", "seat": 1, "count": 1}, {"type": "pile_bottomed"}]
        elif move in ("draw", "burn"):
            seen = move == "burn" or seat == 0
            events.append({"type": move, "seat": seat} | (
                {"card": draw(st.sampled_from(FACES))} if seen else {}))
            size -= 1
    return events


def _dealt_within(tracker: Tracker, players: int) -> Any:
    """What a sample of the tracker's game deals within places: its windows and groups."""
    state = new_game(GameConfig(players=tuple(f"p{seat}" for seat in range(players)), seed=1))
    state.draw_pile = [0] * len(tracker.pile or ())  # only its size is read
    places: list[Place] = [(-1, "pile", place) for place in range(len(state.draw_pile))]
    places += [(seat, "hand", index) for seat in range(1, players) for index in range(HAND_SIZE)]
    return _windows(state, tracker, places, {})


#: Seat 2 trades one of two copies seat 0 saw, seat 1 then one of the same two places, and
#: seat 0 sees seat 1's hand: seat 1 took the card seat 2 gave, so exactly one copy is in
#: seat 2's hand again, and the exchange, blurred by seat 1's trade, holds again.
BLURRED = [{"type": "game_start", "players": ["p0", "p1", "p2"]},
           {"type": "look", "seat": 0, "cards": ["God-1", "God-1"]},
           {"type": "look", "seat": 2, "count": 2},
           {"type": "pile_exchange", "seat": 2, "gave": None},
           {"type": "look", "seat": 1, "count": 2},
           {"type": "pile_exchange", "seat": 1, "gave": None},
           {"type": "peek", "seat": 0, "target": 1, "cards": ["God-2"] * 5}]


@settings(max_examples=150, deadline=None)
@given(feed=feeds())
@example(feed=BLURRED)
def test_pruning_drops_dead_exchanges_and_never_changes_what_a_sample_deals(
        feed: list[dict[str, Any]]) -> None:
    pruned, kept = Tracker(), KeepsEveryExchange()
    players = len(feed[0]["players"])
    for tracker in (pruned, kept):
        tracker.reset(0)
    for event in feed:
        for tracker in (pruned, kept):
            tracker.add(event)
            tracker.catch_up(0)
        assert all(exchange.may_hold(pruned.whereabouts) for exchange in pruned.exchanges)
        assert pruned.live_exchanges() == kept.live_exchanges()
        assert _dealt_within(pruned, players) == _dealt_within(kept, players)


def test_a_traded_card_drawn_drops_the_exchange_of_two() -> None:
    tracker = Tracker()
    tracker.reset(0)
    for event in [{"type": "game_start", "players": ["a", "b"]},
                  {"type": "look", "seat": 0, "cards": ["God-1", "Fate-1"]},
                  {"type": "look", "seat": 1, "count": 2},
                  {"type": "pile_exchange", "seat": 1},
                  {"type": "draw", "seat": 0, "card": "Agari-1"}]:  # God-1 was traded
        tracker.add(event)
    tracker.catch_up(0)
    assert tracker.exchanges == []


def test_an_exchange_another_trade_blurred_holds_again_once_that_hand_is_seen() -> None:
    tracker = Tracker()
    tracker.reset(0)
    for event in BLURRED[:-1]:
        tracker.add(event)
    assert tracker.live_exchanges() == []  # seat 1 may have taken a copy
    tracker.add(BLURRED[-1])
    copies = [Whereabouts("God-1", [place], [2]) for place in (35, 36)]
    assert tracker.live_exchanges() == [Exchange(2, copies, [35, 36], exact=True)]
