"""The throw played for a bot whose answer at Rock-Paper-Scissors cannot be used (RULES.md
E34): a lot from the game's seed and the throw's place, never Rock every time."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from referee_fakes import FAST, FakeConnection, Response, fake_spec

from arena.engine import Decision, GameConfig, Observation, new_game
from arena.engine.record import replay
from arena.referee.match import GameOutcome, LocalSeat, MatchRequest, play_match
from arena.referee.seeds import played_for, throw_lot

#: Match seeds whose first game ties when both bots play option 0 everywhere but the throw.
TIED = (112, 124, 387, 459, 662)


def _at_a_throw(answer: Response) -> Callable[[dict[str, Any]], Response]:
    """Option 0 everywhere, ``answer`` at a throw."""
    return lambda message: answer if message.get("decision") == "rps" else 0


def _play(seed: int, answer: Response) -> GameOutcome:
    """One game: bot0 answers ``answer`` at its throws, bot1 throws Rock."""
    made = {"0": _at_a_throw(answer), "1": _at_a_throw(0)}
    bots = []
    for seat in range(2):
        spec = fake_spec(f"bot{seat}")
        object.__setattr__(spec, "command", (str(seat),))
        bots.append(spec)
    request = MatchRequest(bots=bots, games=1, seed=seed, limits=FAST,
                           launcher=lambda command, *_: FakeConnection(respond=made[command[0]]),
                           event_date=dt.date(2026, 11, 29))
    return play_match(request).games[0]


def _struck_throws(game: GameOutcome) -> list[tuple[int, int]]:
    """Where bot0 threw in the record (the choice's place) and the throw played."""
    return [(at, index) for at, (seat, kind, index) in enumerate(game.record["choices"])
            if kind == "rps" and seat == 0]


@pytest.mark.parametrize("answer", [99, None, b"not json\n"],
                         ids=["illegal_choice", "timeout", "protocol_error"])
def test_a_struck_throw_is_a_lot_from_the_games_seed_not_rock(answer: Response) -> None:
    played: list[int] = []
    for seed in TIED:
        game = _play(seed, answer)
        throws = _struck_throws(game)
        assert throws, f"seed {seed} no longer ties: pick another"
        assert game.failures and {f["seat"] for f in game.failures} == {0}
        lot_seed = game.record["config"]["seed"]
        assert [index for _, index in throws] == [throw_lot(lot_seed, at, 3) for at, _ in throws]
        played += [index for _, index in throws]
        replay(game.record)  # the record holds the throw played: it replays
    # Rock every time would let the seat asked next beat it
    assert len(set(played)) == 3


def test_the_throw_of_a_seat_that_forfeits_at_it_is_a_lot_too() -> None:
    played = []
    for seed in TIED:
        game = _play(seed, "crash")
        assert game.forfeits == {0: "crash"}
        ((at, index),) = _struck_throws(game)
        assert index == throw_lot(game.record["config"]["seed"], at, 3)
        played.append(index)
    assert set(played) != {0}


class _Away:
    """A person at the table whose clock runs out at every throw (option 0 otherwise)."""

    def __init__(self) -> None:
        self.kind = ""

    def choose(self, decision: Decision, observation: Observation) -> int:
        self.kind = decision.kind
        return 0

    def gave_none(self) -> bool:
        return self.kind == "rps"


def test_a_local_seat_that_gives_no_throw_gets_the_lot_too() -> None:
    # a person whose clock ran out at a throw had Rock played: the bot asked next saw the
    # whole clock pass, and could throw Paper
    played = []
    for seed in TIED:
        away = _Away()
        seat = LocalSeat(away, "person", gave_none=away.gave_none)
        bot = fake_spec("bot")
        object.__setattr__(bot, "command", ("1",))
        request = MatchRequest(bots=[bot], games=1, seed=seed, limits=FAST, local={0: seat},
                               launcher=lambda *_: FakeConnection(),
                               event_date=dt.date(2026, 11, 29))
        (game,) = play_match(request).games
        throws = _struck_throws(game)
        assert throws, f"seed {seed} no longer ties: pick another"
        lot_seed = game.record["config"]["seed"]
        assert [index for _, index in throws] == [throw_lot(lot_seed, at, 3) for at, _ in throws]
        played += [index for _, index in throws]
    assert set(played) != {0}


def test_played_for_is_option_0_where_a_safe_default_exists() -> None:
    state = new_game(GameConfig(players=("a", "b"), seed=3))
    assert state.decision is not None and state.decision.kind != "rps"
    assert played_for(state) == 0


def test_the_same_seed_plays_the_same_games_move_for_move() -> None:
    for seed in TIED[:2]:
        first, second = _play(seed, None), _play(seed, None)
        assert first.record["choices"] == second.record["choices"]
        assert first.placements == second.placements


class _Watching:
    """A person at the table who plays option 0 and notes what it is told: the throws
    shown, and a bot's strikes at a throw."""

    def __init__(self) -> None:
        self.shown = 0
        self.told: list[tuple[int, int]] = []  # (throws shown so far, strikes told so far)

    def choose(self, decision: Decision, observation: Observation) -> int:
        return 0

    def watch(self, events: list[dict[str, Any]]) -> None:
        self.shown += sum(event.get("type") == "rps" for event in events)

    def struck(self, seat: int, failure: str, decision: Decision) -> None:
        if decision.kind == "rps":
            self.told.append((self.shown, len(self.told) + 1))


def test_a_person_learns_of_a_bots_struck_throw_only_once_the_throws_are_shown() -> None:
    """That the bot's throw was struck (so drawn by lot) is news of its throw: told before
    the person throws, or before the throws are shown, it would tell what the bot threw."""
    told = []
    for seed in TIED:
        person = _Watching()
        seat = LocalSeat(person, "person", watch=person.watch, struck=person.struck)
        bot = fake_spec("bot")
        object.__setattr__(bot, "command", ("1",))
        request = MatchRequest(bots=[bot], games=1, seed=seed, limits=FAST, local={0: seat},
                               launcher=lambda *_: FakeConnection(respond=_at_a_throw(99)),
                               event_date=dt.date(2026, 11, 29))
        play_match(request)
        assert all(shown >= strikes for shown, strikes in person.told), (seed, person.told)
        told += person.told
    assert told, "no bot struck at a throw: pick other seeds"


def test_each_throw_of_a_game_draws_its_own_lot() -> None:
    """A lot fixed for the whole game would let a rival who saw one struck throw of a bot
    beat all its next ones in that game (a throw-off repeats on a tie)."""
    for seed in TIED:
        assert {throw_lot(seed, at, 3) for at in range(30)} == {0, 1, 2}
