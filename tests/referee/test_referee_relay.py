"""The event relay: each seat gets exactly its own feed, once, in order, as ``event`` lines."""

from __future__ import annotations

import random

import pytest

from arena.engine import GameConfig, new_game
from arena.protocol import messages
from arena.referee.relay import EventRelay


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_seat_gets_its_feed_once_in_order(players: int) -> None:
    """Whatever order the seats ask in, what a seat is handed is the plain builder's lines of
    the events it may see that it has not had yet; at the end, the rest."""
    for seed in range(6):
        rng = random.Random(seed)
        state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
        relay = EventRelay(state)
        cursors = [0] * players
        while state.decision is not None:
            asking = [state.decision.seat] + [rng.randrange(players) for _ in range(2)]
            for seat in asking:
                pending = state.events_for(seat, cursors[seat])
                cursors[seat] += len(pending)
                assert relay.take(seat) == messages.events(pending)
            state.apply(rng.randrange(len(state.decision.options)))
        for seat in range(players):
            assert relay.take(seat) == messages.events(state.events_for(seat, cursors[seat]))
            assert relay.take(seat) == b""
            assert relay.sent[seat] == len(state.feed(seat))


def test_a_private_event_reaches_only_its_seat() -> None:
    state = new_game(GameConfig(players=("a", "b", "c"), seed=1))
    relay = EventRelay(state)
    for seat in range(3):
        relay.take(seat)
    state.emit({"type": "secret", "card": "God-7"}, to=1)
    state.emit({"type": "cover", "card": None}, to=~1)
    mine = relay.take(1)
    assert b"God-7" in mine and b"cover" not in mine
    for seat in (0, 2):
        got = relay.take(seat)
        assert b"God-7" not in got and b"cover" in got
