"""Bot processes kept between matches (arena.referee.keeper), with scripted bots: a clean
process serves the next match of its bot and hears exactly what a fresh one would; any
failure, a bot that offers no rematch, or one that does not answer the new ``hello`` gets a
fresh process; every count of a match starts afresh."""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Callable
from typing import Any

from referee_fakes import FAST, FakeConnection, fake_spec, random_responder

from arena.referee.keeper import MAX_IDLE, BotKeeper
from arena.referee.match import MatchOutcome, MatchRequest, play_match
from arena.sandbox import Limits

REMATCH = b'{"type":"ready","name":"fake","rematch":true,"last_read_page":"2026-01-01"}\n'


class Launcher:
    """Fake bots by name (the spec's command), every connection made remembered."""

    def __init__(self, factories: dict[str, Callable[[], FakeConnection]]) -> None:
        self.factories = factories
        self.made: dict[str, list[FakeConnection]] = {name: [] for name in factories}

    def __call__(self, command: Any, workdir: Any, limits: Any) -> FakeConnection:
        conn = self.factories[command[0]]()
        self.made[command[0]].append(conn)
        return conn


def honest(seed: int, ready: bytes | None = REMATCH) -> Callable[[], FakeConnection]:
    """A bot that draws its choices from each game's ``bot_seed`` (as kit bots do), so its
    games do not depend on what its process played before."""

    def make() -> FakeConnection:
        rng = random.Random(seed)

        def reseed(message: dict[str, Any]) -> None:
            if message["type"] == "game_start":
                rng.seed(message["bot_seed"] + seed)

        return FakeConnection(respond=lambda m: rng.randrange(len(m["legal"])), ready=ready,
                              on_message=reseed)

    return make


def match(launcher: Launcher, names: list[str], keeper: BotKeeper | None, *, seed: int = 1,
          games: int = 2, limits: Limits = FAST, **request: Any) -> MatchOutcome:
    bots = []
    for name in names:
        spec = fake_spec(name)
        object.__setattr__(spec, "command", (name,))
        bots.append(spec)
    return play_match(MatchRequest(bots=bots, games=games, seed=seed, limits=limits,
                                   launcher=launcher, event_date=dt.date(2026, 11, 29),
                                   keeper=keeper, **request))


def games_of(outcome: MatchOutcome) -> list[Any]:
    return [(g.placements, g.record["choices"], g.failures) for g in outcome.games]


def test_a_clean_bot_plays_the_next_match_in_the_same_process_and_the_same_games() -> None:
    fresh = Launcher({"a": honest(1), "b": honest(2), "c": honest(3)})
    expected = [match(fresh, ["a", "b"], None, seed=1), match(fresh, ["a", "c"], None, seed=2)]
    kept = Launcher({"a": honest(1), "b": honest(2), "c": honest(3)})
    keeper = BotKeeper()
    got = [match(kept, ["a", "b"], keeper, seed=1), match(kept, ["a", "c"], keeper, seed=2)]
    assert [games_of(o) for o in got] == [games_of(o) for o in expected]
    assert len(kept.made["a"]) == 1 and len(fresh.made["a"]) == 2
    (a,) = kept.made["a"]
    assert [m["type"] for m in a.sent].count("hello") == 2 and "bye" not in (
        m["type"] for m in a.sent)
    assert a.paused  # kept between matches without CPU
    assert got[1].bots[0]["starts"] == 0 and got[1].bots[1]["starts"] == 1
    assert keeper.stats() == {"reused": 1, "kept": 4, "idle": 3}
    keeper.close()
    assert len(keeper) == 0 and all(c.closed for conns in kept.made.values() for c in conns)


def test_a_kept_bot_hears_exactly_what_a_fresh_process_would_hear() -> None:
    """No other table's game, nor anything of its own earlier match, reaches it after the new
    ``hello``: the lines it reads are those a fresh process reads (act ids aside, which stay
    unique over the process)."""
    fresh = Launcher({"a": honest(1), "b": honest(2), "c": honest(3)})
    match(fresh, ["b", "c"], None, seed=2)
    match(fresh, ["c", "a"], None, seed=3)
    kept = Launcher({"a": honest(1), "b": honest(2), "c": honest(3)})
    keeper = BotKeeper()
    match(kept, ["a", "b"], keeper, seed=1)
    match(kept, ["b", "c"], keeper, seed=2)  # a table a does not play: it waits, stopped
    match(kept, ["c", "a"], keeper, seed=3)
    keeper.close()

    def second_match(conn: FakeConnection) -> list[dict[str, Any]]:
        hellos = [i for i, m in enumerate(conn.sent) if m["type"] == "hello"]
        return [{k: v for k, v in m.items() if k != "id"} for m in conn.sent[hellos[-1]:]
                if m["type"] != "bye"]

    (a,) = kept.made["a"]
    assert second_match(a) == second_match(fresh.made["a"][-1])
    assert all("b" not in m.get("players", ["a"]) for m in second_match(a))


def test_any_failure_in_a_match_gives_the_bot_a_fresh_process_for_the_next() -> None:
    answers = iter([None] + [0] * 10_000)  # one timeout (a strike, not a forfeit), then fine
    slow = Launcher({"a": lambda: FakeConnection(respond=lambda m: next(answers),
                                                 ready=REMATCH),
                     "b": honest(2)})
    keeper = BotKeeper()
    first = match(slow, ["a", "b"], keeper)
    assert first.bots[0]["timeouts"] == 1
    assert slow.made["a"][0].closed and not slow.made["b"][0].closed
    second = match(slow, ["a", "b"], keeper, seed=2)
    assert len(slow.made["a"]) == 2 and len(slow.made["b"]) == 1
    assert second.bots[0]["starts"] == 1 and second.bots[0]["timeouts"] == 0
    keeper.close()


def test_a_bot_that_offers_no_rematch_starts_afresh_for_every_match() -> None:
    plain = Launcher({"a": lambda: FakeConnection(respond=random_responder(1)),
                      "b": honest(2)})
    keeper = BotKeeper()
    match(plain, ["a", "b"], keeper)
    match(plain, ["a", "b"], keeper, seed=2)
    assert len(plain.made["a"]) == 2 and len(plain.made["b"]) == 1
    assert [m["type"] for m in plain.made["a"][0].sent][-1] == "bye"
    keeper.close()


class Forgetful(FakeConnection):
    """Answers the first ``hello`` only."""

    def send(self, data: bytes) -> bool:
        if b'"type":"hello"' in data and any(m["type"] == "hello" for m in self.sent):
            self.ready = None
        return super().send(data)


def test_a_kept_process_that_does_not_answer_the_new_hello_is_replaced_at_no_cost() -> None:
    launcher = Launcher({"a": lambda: Forgetful(respond=random_responder(1), ready=REMATCH),
                         "b": honest(2)})
    keeper = BotKeeper()
    match(launcher, ["a", "b"], keeper)
    second = match(launcher, ["a", "b"], keeper, seed=2)
    assert len(launcher.made["a"]) == 2 and launcher.made["a"][0].killed
    assert all(g.failures == [] for g in second.games)
    assert second.bots[0]["failures"] == {} and second.bots[0]["starts"] == 1
    keeper.close()


def test_the_time_bank_and_every_count_start_afresh_in_a_kept_process() -> None:
    limits = Limits(decision_ms=20, time_bank_ms=1000, startup_ms=500, bye_grace_ms=100,
                    max_strikes=3)
    budgets: list[int] = []

    def spend(message: dict[str, Any]) -> int:
        budgets.append(message["time_ms"])
        if len(budgets) == 1:
            time.sleep(0.1)  # past decision_ms: paid from the bank, no failure
        return 0

    launcher = Launcher({"a": lambda: FakeConnection(respond=spend, ready=REMATCH),
                         "b": honest(2)})
    keeper = BotKeeper()
    first = match(launcher, ["a", "b"], keeper, games=1, limits=limits)
    assert first.bots[0]["failures"] == {} and budgets[1] < budgets[0] == 1020
    spent = len(budgets)
    second = match(launcher, ["a", "b"], keeper, games=1, limits=limits, seed=2)
    assert len(launcher.made["a"]) == 1
    assert budgets[spent] == 1020  # the whole bank again
    assert second.bots[0]["decisions"] == len(budgets) - spent  # this match's count only
    keeper.close()


def test_an_old_process_is_not_kept_for_its_cpu_limit_and_few_wait_at_once() -> None:
    launcher = Launcher({"a": honest(1), "b": honest(2)})
    later = BotKeeper(cpus=2, clock=lambda: time.monotonic() + FAST.cpu_seconds)
    match(launcher, ["a", "b"], later)
    assert len(later) == 0 and all(c.closed for conns in launcher.made.values() for c in conns)
    names = {f"x{i}": honest(i) for i in range(MAX_IDLE + 2)}
    many = Launcher(names)
    keeper = BotKeeper()
    for i in range(0, MAX_IDLE + 2, 2):
        match(many, [f"x{i}", f"x{i + 1}"], keeper)
    assert len(keeper) == MAX_IDLE
    assert many.made["x0"][0].closed and not many.made[f"x{MAX_IDLE + 1}"][0].closed
    keeper.close()


def dealt(conn: FakeConnection) -> list[list[str]]:
    """The hands a fake bot process was dealt, game by game (the ``deal`` events to it)."""
    return [m["event"]["cards"] for m in conn.sent
            if m["type"] == "event" and m["event"]["type"] == "deal"]


def test_no_process_is_dealt_a_deal_twice_kept_or_in_a_duplicate_replay() -> None:
    """A process that played a deal knows the cards of its seat there: were it dealt the
    deal again from another seat (a duplicate replay, or a deal book's deal at the next
    table) it would know an opponent's hand. Each seating has processes of its own, and a
    kept process is only taken for a match whose deals it was never dealt."""
    launcher = Launcher({"a": honest(1), "b": honest(2), "c": honest(3)})
    keeper = BotKeeper()
    book = (11, 12)
    played = [match(launcher, ["a", "b"], keeper, deal_seeds=book, games=4, duplicate=True)]
    assert [g.seed for g in played[0].games] == [11, 11, 12, 12]
    assert len(launcher.made["a"]) == 2 and len(keeper) == 4  # a process per seating, kept
    played.append(match(launcher, ["a", "c"], keeper, deal_seeds=book, games=4,
                        duplicate=True))
    assert len(launcher.made["a"]) == 4, "the book's deals again: fresh processes"
    played.append(match(launcher, ["a", "b"], keeper, deal_seeds=(13, 14), games=4,
                        duplicate=True))
    assert len(launcher.made["a"]) == 4 and keeper.reused == 4  # new deals: kept ones serve
    deal_of = {tuple(sorted(e["cards"])): game.seed for outcome in played
               for game in outcome.games for e in game.record["events"] if e["type"] == "deal"}
    for conn in launcher.made["a"] + launcher.made["b"] + launcher.made["c"]:
        deals = [deal_of[tuple(sorted(hand))] for hand in dealt(conn)]
        assert deals and len(deals) == len(set(deals)), f"a deal dealt twice: {deals}"
    keeper.close()


def test_a_match_under_other_limits_gets_a_fresh_process_told_them() -> None:
    """A kept process plays under the limits of the match it was started for: a match with a
    longer decision time starts the bot afresh, and its ``hello`` and clock carry the new
    limits."""
    launcher = Launcher({"a": honest(1), "b": honest(2)})
    keeper = BotKeeper()
    longer = FAST.replace(decision_ms=300)
    match(launcher, ["a", "b"], keeper)
    outcome = match(launcher, ["a", "b"], keeper, seed=2, limits=longer)
    keeper.close()
    assert [len(conns) for conns in launcher.made.values()] == [2, 2]
    hellos = [m for m in launcher.made["a"][1].sent if m["type"] == "hello"]
    assert [h["limits"]["decision_ms"] for h in hellos] == [300]
    assert outcome.limits["decision_ms"] == 300
