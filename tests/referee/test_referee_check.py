"""The compliance checklist with scripted bots (the CLI tests run it on real sandboxed bots)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from referee_fakes import FAST, FakeConnection, FakeLauncher, random_responder

from arena.referee.check import CheckItem, _decisions_item, _forfeited, check_bot
from arena.referee.client import BotDiagnostics
from arena.referee.hints import NO_READY_HINT
from arena.registry import BotSpec
from arena.sandbox import Limits

SPEC = BotSpec(name="fake", version="abcdef012345", path=Path("."), command=("fake",))


def check(factory: Any, games: int = 4) -> Any:
    return check_bot(SPEC, games=games, limits=FAST, launcher=FakeLauncher(factory))


def titles(report: Any) -> list[tuple[str, bool]]:
    return [(item.title, item.ok) for item in report.items]


def test_a_compliant_bot_passes_every_check() -> None:
    report = check(lambda: FakeConnection(respond=random_responder(1)))
    assert report.ok and report.failures() == []
    assert titles(report) == [("handshake", True), ("metadata", True), ("decisions", True),
                              ("game boundaries", True), ("clean exit", True)]
    assert report.items[1].detail == "name 'fake'; last_read_page 2026-01-01"
    assert "in 4 games (2, 3, 4 and 5 players), all legal and in time" in report.items[2].detail
    assert re.fullmatch(r"✓ handshake: answered 'hello' with 'ready' in \d+ ms \(limit 500 ms\)",
                        report.lines()[0])


def test_each_item_is_told_as_it_is_decided() -> None:
    """The CLI prints each line as it comes: a hanging bot's check takes a while."""
    told: list[tuple[str, int, str]] = []

    def on_item(report: Any, item: CheckItem) -> None:
        told.append((item.title, len(report.items), report.sandbox_level))

    report = check_bot(SPEC, games=2, limits=FAST, on_item=on_item,
                       launcher=FakeLauncher(lambda: FakeConnection(respond=random_responder(1))))
    assert told == [(item.title, n, "fake") for n, item in enumerate(report.items, 1)]


def test_a_bot_that_never_answers_hello_fails_at_the_handshake_only() -> None:
    report = check(lambda: FakeConnection(ready=None))
    assert titles(report) == [("handshake", False)]
    assert report.failures() == ["handshake: no 'ready' within 500 ms" + NO_READY_HINT]


def test_bad_metadata_dates_are_reported() -> None:
    ready = b'{"type":"ready","name":"x","last_read_page":"last tuesday"}\n'
    report = check(lambda: FakeConnection(ready=ready), games=1)
    assert ("metadata", False) in titles(report)
    assert report.items[1].detail == ("last_read_page 'last tuesday' is not an ISO date "
                                      "(YYYY-MM-DD)")


def test_misbehaviour_is_summarised_with_distinct_examples() -> None:
    report = check(lambda: FakeConnection(respond=lambda m: 99), games=2)
    decisions = report.items[2]
    assert not decisions.ok
    assert decisions.detail.startswith("8 failures in 2 games: illegal_choice 8 (e.g. choice 99 is "
                                       "outside the ")
    assert decisions.detail.count("choice 99") == 3  # three distinct examples at most
    # each game forfeited past the strikes: said, or 8 failures read as 8 defaults played
    assert decisions.detail.endswith("; it forfeited both games (more than 3 strikes in "
                                     "each); the bot was restarted once after them")
    # The forfeit stopped the process: said once, not again as a "game boundaries" fault.
    assert [title for title, _ in titles(report)] == [
        "handshake", "metadata", "decisions", "clean exit"]
    assert ("clean exit", True) in titles(report)


def test_one_game_is_served_as_the_game_not_all_1_game() -> None:
    report = check(lambda: FakeConnection(respond=random_responder(1)), games=1)
    assert report.items[3].line() == "✓ game boundaries: one process served the game"


def test_forfeits_are_counted_with_their_causes() -> None:
    assert _forfeited([], 4, 3) == ""
    assert _forfeited(["crash"], 1, 3) == "; it forfeited the game (crash)"
    assert _forfeited(["timeout"], 4, 3) == "; it forfeited 1 of 4 games (more than 3 strikes)"
    assert _forfeited(["timeout", "illegal_choice", "crash"], 4, 1) == (
        "; it forfeited 3 of 4 games (more than 1 strike in 2, crash in 1)")


def _timed(*latencies_ms: float) -> CheckItem:
    diag = BotDiagnostics("fake", "fake@1", latencies=[ms / 1000 for ms in latencies_ms])
    client = SimpleNamespace(diagnostics=diag)
    return _decisions_item(client, [], len(latencies_ms), 1, Limits(), [2])  # type: ignore


def test_a_bot_that_lives_on_its_time_bank_fails_the_decisions_check() -> None:
    """The check's games are short enough for the 10 s bank to carry a bot whose every
    decision overruns; a full game would not."""
    slow = _timed(1600, 1601, 1602)
    assert not slow.ok
    assert slow.detail == ("the median decision takes 1601 ms, over the limit of 1000 ms: "
                           "only the time bank (10000 ms a game) carried the check's short "
                           "games, and a longer game runs out of it")
    some = _timed(5, 1500, 6)
    assert some.ok and some.detail.endswith(
        "(median 6.00 ms, max 1500.0 ms; limit 1000 ms); 1 of them over the limit, paid from "
        "the time bank (10000 ms a game)")
    assert _timed(5, 1000, 6).ok and "over the limit" not in _timed(5, 1000, 6).detail


def test_a_bot_that_ignores_bye_fails_the_clean_exit() -> None:
    report = check(lambda: FakeConnection(exit_on_bye=False), games=1)
    assert report.items[-1].line() == "✗ clean exit: still running 100 ms after 'bye'; killed"
    assert report.failures() == ["clean exit: still running 100 ms after 'bye'; killed"]


def test_a_bot_killed_after_bye_while_in_a_timed_out_decision_is_told_why() -> None:
    # a bot in an endless loop failed "clean exit" too, as if it ignored 'bye'
    stuck = check(lambda: FakeConnection(respond=lambda m: None, exit_on_bye=False), games=1)
    assert stuck.items[-1].line() == (
        "✗ clean exit: still running 100 ms after 'bye'; killed (likely still in the decision "
        "that timed out, above: a bot reads 'bye' only once it is done with it)")
    deaf = check(lambda: FakeConnection(exit_on_bye=False), games=1)
    assert deaf.items[-1].line() == "✗ clean exit: still running 100 ms after 'bye'; killed"


def test_a_bot_that_fails_on_its_way_out_is_told_what_it_logged() -> None:
    """An exit code other than 0 after 'bye' (the last game's on_game_end raised, say) quotes
    the bot's last error, as the other failures do."""
    def failing(message: dict[str, Any]) -> None:
        if message["type"] == "bye":
            conn.log += "KeyError: 5\n"
            conn.closed, conn.exit_code = True, 1

    conn = FakeConnection(exit_on_bye=False, on_message=failing)
    report = check_bot(SPEC, games=1, limits=FAST, launcher=FakeLauncher([conn]))
    assert report.items[-1].line() == ("✗ clean exit: exit code 1 after 'bye' (expected code "
                                       "0); last log line: KeyError: 5")


def test_a_bot_that_times_out_a_game_away_is_not_played_the_other_games() -> None:
    """A student's endless loop waits out its time bank and strikes in each game: the check
    stops after the first game forfeited so, instead of keeping its author a minute."""
    asked: list[int] = []

    def stuck(message: dict[str, Any]) -> None:
        asked.append(message["id"])

    report = check(lambda: FakeConnection(respond=stuck))
    decisions = next(item for item in report.items if item.title == "decisions")
    assert not decisions.ok
    assert decisions.detail.startswith(f"{FAST.max_strikes + 1} failures in 1 game: timeout ")
    assert decisions.detail.endswith(
        "; the other 3 games of the check were not played: each would wait out its time again")
    assert len(asked) == FAST.max_strikes + 1
