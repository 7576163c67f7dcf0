"""An in-process seat (a person at the table) among sandboxed bots: the bots cannot tell it
from a bot, and it is told exactly its own seat's events."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from referee_fakes import FAST, FakeConnection, fake_spec, random_responder

from arena.engine import Decision, Observation
from arena.engine.narration import seat_feed
from arena.errors import RulesError
from arena.referee.match import LocalSeat, MatchRequest, play_match


class Launcher:
    """Fake bots by the command's name: ``0``, ``1``, ... each with its own random seed."""

    def __init__(self) -> None:
        self.made: dict[int, FakeConnection] = {}

    def __call__(self, command: Any, workdir: Any, limits: Any) -> FakeConnection:
        index = int(command[0])
        # No reading date: the first starting seat is then drawn among all seats, as it is
        # with a local seat (which has none).
        self.made[index] = FakeConnection(respond=random_responder(index),
                                          ready=b'{"type":"ready","name":"fake"}\n')
        return self.made[index]


class Chooser:
    """Chooses as the fake bot seeded alike would (the same random draws)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, decision: Decision, observation: Observation) -> int:
        return self.rng.randrange(len(decision.options))


def _spec(index: int) -> Any:
    spec = fake_spec(f"bot{index}")
    object.__setattr__(spec, "command", (str(index),))
    return spec


def _request(launcher: Launcher, bots: list[int], **kw: Any) -> MatchRequest:
    return MatchRequest(bots=[_spec(i) for i in bots], games=2, seed=5, limits=FAST,
                        launcher=launcher, event_date=dt.date(2026, 11, 29), **kw)


def _messages(conn: FakeConnection) -> list[dict[str, Any]]:
    return [m for m in conn.sent if m["type"] != "hello"]


def test_bots_are_sent_the_same_whether_a_bot_or_a_local_seat_sits_beside_them() -> None:
    all_bots = Launcher()
    bot_match = play_match(_request(all_bots, [0, 1, 2]))
    with_local = Launcher()
    watched: list[dict[str, Any]] = []
    seat = LocalSeat(Chooser(0), "bot0", key="person:bot0", watch=watched.extend)
    local_match = play_match(_request(with_local, [1, 2], local={0: seat}))
    for index in (1, 2):
        assert _messages(with_local.made[index]) == _messages(all_bots.made[index])
    assert [g.placements for g in local_match.games] == [g.placements
                                                          for g in bot_match.games]
    assert local_match.seats[0] == "person:bot0"
    assert [b["seat"] for b in local_match.bots] == [1, 2]
    assert [g.record["referee"]["seats"][0] for g in local_match.games] == ["person:bot0"] * 2
    # The watcher was told exactly the seat's feed of each game, in order, once.
    feeds = [event for game in local_match.games
             for event in seat_feed(game.record["events"], 0)[0]]
    assert watched == [{k: v for k, v in e.items() if k != "to"} for e in feeds]


@pytest.mark.parametrize("local", [1, 2])
def test_a_person_in_a_later_seat_is_told_that_seats_feed_only(local: int) -> None:
    """Seat 0's private events (its draws, its hand) never reach a person sitting
    elsewhere: the watcher gets its own seat's feed, as a bot in that seat would."""
    watched: list[dict[str, Any]] = []
    seat = LocalSeat(Chooser(0), "me", watch=watched.extend)
    bots = [i for i in range(3) if i != local]
    outcome = play_match(_request(Launcher(), bots, local={local: seat}))
    feeds = [event for game in outcome.games
             for event in seat_feed(game.record["events"], local)[0]]
    assert watched == [{k: v for k, v in e.items() if k != "to"} for e in feeds]


def test_a_person_is_told_a_bots_strike_by_its_type_never_its_detail() -> None:
    """The detail may quote the bot's log (its thinking, its hand): the person at the table
    learns only that the bot struck, and how."""
    told: list[tuple[int, str]] = []
    seat = LocalSeat(Chooser(0), "me", struck=lambda at, failure, _: told.append((at, failure)))
    bot = _spec(1)
    request = MatchRequest(
        bots=[bot], games=1, seed=5, limits=FAST, local={0: seat},
        launcher=lambda *_: FakeConnection(respond=lambda m: b"my hand: God-5, Crown\n"),
        event_date=dt.date(2026, 11, 29))
    play_match(request)
    assert told and set(told) == {(1, "protocol_error")}


def test_the_watcher_gets_copies() -> None:
    def spoil(events: list[dict[str, Any]]) -> None:
        for event in events:
            event["type"] = "spoiled"

    seat = LocalSeat(Chooser(0), "me", watch=spoil)
    outcome = play_match(_request(Launcher(), [1], local={0: seat}))
    assert all(e["type"] != "spoiled" for g in outcome.games for e in g.record["events"])


@pytest.mark.parametrize(("bots", "local", "message"), [
    ([1, 2, 3, 4, 5], {0}, "a match needs 2 to 5 players, got 6"),
    ([1], {3}, "a seat at a table of 2 is one of 0-1"),
])
def test_local_seats_count_among_the_players(bots: list[int], local: set[int],
                                             message: str) -> None:
    seats = {s: LocalSeat(Chooser(0), "me") for s in local}
    with pytest.raises(RulesError, match=message):
        play_match(_request(Launcher(), bots, local=seats))


@pytest.mark.parametrize("local", [0, 1, 2])  # one seat alone could be the lot's pick
def test_a_local_seat_that_read_a_page_last_starts_the_first_game(local: int) -> None:
    seat = LocalSeat(Chooser(0), "me", metadata={"last_read_page": "2026-11-29T08:00"})
    outcome = play_match(_request(Launcher(), [1, 2], local={local: seat}))
    assert outcome.games[0].starting_seat == local
