"""The compliance checklist with scripted bots (the CLI tests run it on real sandboxed bots)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee_fakes import FAST, FakeConnection, FakeLauncher, random_responder

from arena.referee.check import check_bot
from arena.registry import BotSpec

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
    assert report.lines()[0] == "✓ handshake: answered 'hello' with 'ready' within 500 ms"


def test_a_bot_that_never_answers_hello_fails_at_the_handshake_only() -> None:
    report = check(lambda: FakeConnection(ready=None))
    assert titles(report) == [("handshake", False)]
    assert report.failures() == ["handshake: no 'ready' within 500 ms"]


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
    assert decisions.detail.startswith("8 illegal_choice in 2 games (e.g. choice 99 is "
                                       "outside the ")
    assert decisions.detail.count("choice 99") == 3  # three distinct examples at most
    assert ("game boundaries", False) in titles(report)
    assert ("clean exit", True) in titles(report)


def test_a_bot_that_ignores_bye_fails_the_clean_exit() -> None:
    report = check(lambda: FakeConnection(exit_on_bye=False), games=1)
    assert report.items[-1].line() == "✗ clean exit: still running 100 ms after 'bye'; killed"
    assert report.failures() == ["clean exit: still running 100 ms after 'bye'; killed"]
