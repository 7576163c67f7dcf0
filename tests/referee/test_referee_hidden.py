"""Property: nothing the referee sends a bot holds another seat's hidden card.

Every message to every seat is captured at the moment it is sent and checked against the
engine's true state at that moment (the game is paused while the referee writes):

* an ``act``'s observation is exactly the seat's own hand and traps plus public zones (both
  graveyards, revealed cards) and counts, and names no other card;
* every card named in an ``act``'s options or context is visible to the seat now (own hand or
  traps, public zones, the card being resolved) or was named to it in an earlier event (a peek
  or look granted by an effect);
* the events a seat receives are exactly the log entries addressed to everyone, to it, or to
  everyone but someone else, in order, once each (never another seat's private event);
* ``game_start`` and ``game_end`` name no card at all, and after an Ascension neither the
  ``game_end`` message nor its event tells the category of a hand the seat was not shown.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referee_fakes import FAST, FakeConnection, fake_spec
from staged_ascension import ascending_at_once, trap_a_non_god

from arena.engine import NOTATION, GameConfig, State, new_game
from arena.referee import games as games_module
from arena.referee.match import MatchRequest, play_match

CARDS = frozenset(NOTATION)


def card_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if value in CARDS:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from card_strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_strings(item)


def visible_to(to: int | None, seat: int) -> bool:
    return to is None or to == seat or (to < 0 and ~to != seat)


def seen(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """An Ascension's game_end shows the categories of the seat's own and the ascender's
    hands only: no other hand was shown."""
    if event["type"] != "game_end" or not event["ascension"]:
        return event
    return {**event, "desmos": [category if s == seat or event["placements"][s] == 1 else None
                                for s, category in enumerate(event["desmos"])]}


class Watcher:
    """Checks each message to ``seat`` against the live engine state when it is sent."""

    def __init__(self, seat: int, states: list[State], rng: random.Random) -> None:
        self.seat = seat
        self.states = states
        self.rng = rng
        self.events: list[dict[str, Any]] = []
        self.told: set[str] = set()
        self.checked = 0

    def __call__(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in ("game_start", "game_end"):
            assert not list(card_strings(message)), message
            if kind == "game_start":
                self.events = []
                self.told = set()
            else:
                self.check_events(complete=True)
        elif kind == "event":
            self.events.append(message["event"])
            self.told.update(card_strings(message["event"]))
        elif kind == "act":
            self.check_act(message)

    @property
    def state(self) -> State:
        return self.states[-1]

    def check_events(self, complete: bool = False) -> None:
        expected = [seen(event, self.seat) for to, event in self.state.log
                    if visible_to(to, self.seat)]
        expected = json.loads(json.dumps(expected))
        if complete:
            assert self.events == expected
        else:
            assert self.events == expected[: len(self.events)]

    def check_act(self, message: dict[str, Any]) -> None:
        state, seat = self.state, self.seat
        decision = state.decision
        assert decision is not None and decision.seat == seat
        self.check_events()
        obs = message["observation"]
        own_hand = sorted(NOTATION[c] for c in state.hands[seat])
        assert sorted(obs["hand"]) == own_hand
        assert sorted(t["card"] for t in obs["traps"]) == sorted(
            NOTATION[t.card] for t in state.traps[seat])
        assert obs["effect_graveyard"] == [NOTATION[c] for c in state.effect_graveyard]
        assert obs["discard_graveyard"] == [NOTATION[c] for c in state.discard_graveyard]
        assert [sorted(r) for r in obs["revealed"]] == [
            sorted(NOTATION[c] for c in r) for r in state.revealed]
        assert obs["hand_sizes"] == [len(h) for h in state.hands]
        accounted = {"hand", "traps", "effect_graveyard", "discard_graveyard", "revealed"}
        stray = list(card_strings({k: v for k, v in obs.items() if k not in accounted}))
        assert not stray, f"observation names cards outside its zones: {stray}"
        visible = set(own_hand) | {NOTATION[t.card] for t in state.traps[seat]}
        visible |= {NOTATION[c] for c in state.effect_graveyard + state.discard_graveyard}
        visible |= {NOTATION[c] for c in state.limbo}
        visible |= {NOTATION[c] for r in state.revealed for c in r}
        for name in card_strings([message["legal"], message.get("context", {})]):
            assert name in visible or name in self.told, (
                f"seat {seat} is offered {name} it has never been shown: {message}")
        self.checked += 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5), games=st.integers(1, 2))
def test_no_message_holds_another_seats_hidden_card(seed: int, players: int,
                                                     games: int) -> None:
    states: list[State] = []
    rng = random.Random(seed)
    watchers = [Watcher(seat, states, random.Random(seed + seat)) for seat in range(players)]

    def capture(config: GameConfig) -> State:
        states.append(new_game(config))
        return states[-1]

    def launcher(command: Any, workdir: Any, limits: Any) -> FakeConnection:
        watcher = watchers[int(command[0])]
        return FakeConnection(respond=lambda m: watcher.rng.randrange(len(m["legal"])),
                              on_message=watcher)

    bots = []
    for seat in range(players):
        spec = fake_spec(f"bot{seat}")
        object.__setattr__(spec, "command", (str(seat),))
        bots.append(spec)
    original = games_module.new_game
    games_module.new_game = capture  # type: ignore[assignment]
    try:
        outcome = play_match(MatchRequest(bots=bots, games=games, seed=rng.randrange(10**6),
                                          limits=FAST, launcher=launcher,
                                          event_date=dt.date(2026, 11, 29)))
    finally:
        games_module.new_game = original  # type: ignore[assignment]
    assert len(outcome.games) == games
    assert sum(w.checked for w in watchers) == sum(g.decisions for g in outcome.games)


def test_an_ascension_does_not_tell_the_bots_the_hidden_hands_categories() -> None:
    # The Ascension ends the game without a showdown: each seat saw its own hand and the
    # ascender's five Gods, and no other hand (RULES.md E31)
    players = 3
    connections: list[FakeConnection] = []

    def launcher(command: Any, workdir: Any, limits: Any) -> FakeConnection:
        connections.append(FakeConnection(respond=lambda m: trap_a_non_god(m["legal"])))
        return connections[-1]

    states: list[State] = []

    def staged(config: GameConfig) -> State:
        states.append(ascending_at_once(config))
        return states[-1]

    original = games_module.new_game
    games_module.new_game = staged  # type: ignore[assignment]
    try:
        outcome = play_match(MatchRequest(
            bots=[fake_spec(f"bot{seat}") for seat in range(players)], games=1, seed=5,
            limits=FAST, launcher=launcher, event_date=dt.date(2026, 11, 29)))
    finally:
        games_module.new_game = original  # type: ignore[assignment]
    game = outcome.games[0]
    assert game.ascension
    ascender = game.placements.index(1)
    assert all(category is not None for category in game.desmos)  # the record keeps them all
    seats = {conn.sent[1]["seat"]: conn for conn in connections}  # from its game_start
    for seat, conn in seats.items():
        shown = [game.desmos[s] if s in (seat, ascender) else None for s in range(players)]
        ends = [m for m in conn.sent if m["type"] == "game_end"]
        end_events = [m["event"] for m in conn.sent
                      if m["type"] == "event" and m["event"]["type"] == "game_end"]
        assert [end["desmos"] for end in ends + end_events] == [shown, shown], seat
