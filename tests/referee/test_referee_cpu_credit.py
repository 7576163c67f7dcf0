"""A stopped bot inside a long system call runs on, on the CPU of the bot asked next
(docs/SANDBOX.md, "CPU fairness"): where they share that CPU, the bot asked is credited the
CPU the stopped ones used during its turn, its deadline moved on by as much. Driven here by
scripted CPU readings (no process, no clock); tests/sandbox reads a real bot's."""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import Any

import pytest
from referee_fakes import FAST, FakeConnection, FakeLauncher

from arena.engine import GameConfig, new_game
from arena.protocol import messages
from arena.referee.client import BotClient
from arena.referee.cpu_turn import CpuTurn, Deadline
from arena.sandbox import Limits

START = messages.game_start(0, 0, ["a", "b"], 0, 5)
OBSERVATION = new_game(GameConfig(players=("a", "b"), seed=1, starting_seat=0)).observe(
    0, events=False).to_json(include_events=False)
LEGAL = [{"action": "hold"}, {"action": "play", "card": "God-1"}]
#: What stopping a bot may take of its CPU without it being credited (0.5 ms).
STOPPING_S = 0.0005


def table(turn: CpuTurn, *conns: FakeConnection, limits: Limits = FAST,
          now: Callable[[], float] = monotonic) -> list[BotClient]:
    """A client per fake bot, started, in a game, sharing ``turn`` (and the time source
    ``now``)."""
    clients = []
    for number, conn in enumerate(conns):
        client = BotClient(["fake"], ".", limits, name=f"bot{number}",
                           launcher=FakeLauncher([conn]), turn=turn, now=now)
        assert client.start() is None and client.begin_game(START) is None
        clients.append(client)
    return clients


def act(client: BotClient) -> Any:
    return client.act("turn", OBSERVATION, LEGAL)


def test_a_bot_asked_is_credited_the_cpu_a_stopped_bot_ran_on_with() -> None:
    """The other bot, stopped inside a system call, used 20.5 ms of the shared CPU during the
    turn: an answer 20 ms past the limit is in time, and the author reads why."""
    other, asked = FakeConnection(), FakeConnection(respond=lambda m: 1)
    first, second = table(CpuTurn(shares_cpu=True), other, asked)
    assert act(first).failure is None
    other.cpu_readings, asked.late = [0.0205], 1
    result = act(second)
    assert (result.choice, result.failure) == (1, None)
    assert other.cpu_reads == 1  # read past the deadline only: it was just stopped
    assert ("arena: act 0: 20.0 ms added to its time: other bots of the table ran on"
            in second.log_since_last())


def test_bots_on_separate_cpus_are_not_credited() -> None:
    """On CPUs of their own the stopped bot took nothing from the one asked: a partner's run
    on would be thinking time given away. Nothing is even read."""
    other, asked = FakeConnection(), FakeConnection(respond=lambda m: 1)
    first, second = table(CpuTurn(shares_cpu=False), other, asked)
    act(first)
    other.cpu_readings, asked.late = [0.0205], 1
    result = act(second)
    assert result.failure is not None
    assert result.failure.detail == "no answer within 200 ms"
    assert other.cpu_reads == 0 and "arena:" not in second.log_since_last()


def test_the_credit_is_at_most_the_decisions_own_budget() -> None:
    other, asked = FakeConnection(), FakeConnection(respond=lambda m: 1)
    first, second = table(CpuTurn(shares_cpu=True), other, asked)
    act(first)
    other.cpu_readings, asked.late = [5.0], 1000
    result = act(second)
    assert result.failure is not None
    assert result.failure.detail == ("no answer within 200 ms; 200.0 ms more were given for "
                                      "the CPU other bots took from it")


def test_what_stopping_takes_is_not_credited() -> None:
    other, asked = FakeConnection(), FakeConnection(respond=lambda m: 1)
    first, second = table(CpuTurn(shares_cpu=True), other, asked)
    act(first)
    other.cpu_readings, asked.late = [STOPPING_S], 1
    assert act(second).failure is not None


def test_the_bank_pays_only_for_time_the_bot_took_itself() -> None:
    """An answer 300 ms past the limit, 100 ms of which the stopped bot took: the bank pays
    200 ms."""
    clock = [100.0]

    def slow(message: dict[str, Any]) -> int:
        clock[0] += 0.5
        return 0

    other, asked = FakeConnection(), FakeConnection(respond=slow)
    first, second = table(CpuTurn(shares_cpu=True), other, asked,
                          limits=FAST.replace(decision_ms=200, time_bank_ms=1000),
                          now=lambda: clock[0])
    act(first)
    other.cpu_readings = [0.1 + STOPPING_S]
    assert act(second).failure is None
    assert second.clock.bank == pytest.approx(1.0 - 0.2)


def test_a_turn_counts_each_stopped_bot_from_its_start() -> None:
    """Three bots: the one stopped a turn earlier ran on 30 ms during that turn (another
    bot's loss) and 10 ms during this one; the one just stopped 2 ms. Only this turn's CPU
    is credited, and only once."""
    earlier, just, asked = FakeConnection(), FakeConnection(), FakeConnection()
    turn = CpuTurn(shares_cpu=True)
    for conn in (earlier, just, asked):
        turn.rest(conn)
    turn.give(earlier)
    turn.give(just)
    earlier.cpu_readings = [0.030, 0.040]  # read as the turn begins, then past the deadline
    just.cpu_readings = [0.002]
    turn.give(asked)
    wait = Deadline(asked, at=0.0, budget=1.0)
    assert wait.move_on(turn)
    assert wait.at == wait.credited == pytest.approx(0.010 + 0.002 - 2 * STOPPING_S)
    assert not wait.move_on(turn)
    turn.give(asked)  # asked again in a row: the same turn, nothing credited twice
    assert turn.credit(asked, 1.0) == 0.0


def test_a_deadline_moves_on_by_a_millisecond_at_least() -> None:
    """Smaller steps would have the referee poll in a loop while a stopped bot runs on: 0.8
    ms waits, and is credited once it is 1.5 ms."""
    other, asked = FakeConnection(), FakeConnection()
    turn = CpuTurn(shares_cpu=True)
    turn.rest(other)
    turn.give(other)
    turn.give(asked)
    other.cpu_readings = [STOPPING_S + 0.0008, STOPPING_S + 0.0015]
    assert turn.credit(asked, 1.0) == 0.0
    assert turn.credit(asked, 1.0) == pytest.approx(0.0015)


def test_a_decision_is_credited_only_what_was_taken_during_it() -> None:
    """A bot that idles through the first decision of its turn while a partner, stopped,
    runs on 300 ms, then thinks past the next one's limit: that decision is credited only
    the 5 ms taken during it (what ran while it idled took nothing it wanted), not the 300."""
    other, asked = FakeConnection(), FakeConnection()
    turn = CpuTurn(shares_cpu=True)
    turn.rest(other)
    turn.give(other)
    turn.give(asked)
    other.cpu_readings = [0.300, 0.305]  # as its next decision begins, then past its limit
    turn.stop_other(asked)  # its next decision, in a row, as BotClient.act asks it
    turn.give(asked)
    wait = Deadline(asked, at=0.0, budget=1.0)
    assert wait.move_on(turn)
    assert wait.credited == pytest.approx(0.005)


def test_a_bot_asked_twice_in_a_row_is_credited_only_its_second_decisions_share() -> None:
    """Through the client, as a match asks: the partner, stopped, ran on 300 ms while the
    bot idled after its first answer, then 5 ms during its second decision, which the bot
    answers past its limit: 5 ms are added to its time, not the 300 it never wanted."""
    other, asked = FakeConnection(), FakeConnection(respond=lambda m: 1)
    partner, bot = table(CpuTurn(shares_cpu=True), other, asked)
    act(partner)
    assert act(bot).failure is None
    other.cpu_readings, asked.late = [0.300, 0.305], 1
    result = act(bot)
    assert (result.choice, result.failure) == (1, None)
    assert "arena: act 1: 5.0 ms added to its time" in bot.log_since_last()
