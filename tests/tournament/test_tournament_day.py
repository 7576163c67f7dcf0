"""The day a tournament's games count as played (rulings 12 and 13): one day whatever the
machine's time zone, fixed when the tournament is created and kept when it resumes later."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tournament_fixtures import _repo_cwd, write_spec  # noqa: F401 - _repo_cwd: autouse

from arena.tournament import opening
from arena.tournament.game_records import game_record
from arena.tournament.opening import open_tournament
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec
from arena.tournament.store import Store

#: UTC+14 and UTC-12: 26 hours apart, so their calendars never show the same day.
FAR_ZONES = ("Pacific/Kiritimati", "Etc/GMT+12")


@contextmanager
def time_zone(name: str) -> Iterator[None]:
    """The process's local time zone set to ``name`` (what ``TZ`` does to a fresh process)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


def dated_bot(directory: Path, name: str, last_read_page: dt.date) -> str:
    path = directory / f"{name}.py"
    path.write_text(
        "from arena.sdk import Bot, Request\n\n\n"
        f"class Dated(Bot):\n    name = {name!r}\n"
        f"    last_read_page = {last_read_page.isoformat()!r}\n\n"
        "    def act(self, request: Request) -> int:\n        return 0\n")
    return str(path)


def test_a_spec_without_event_date_gets_the_same_day_in_every_time_zone(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db, event_date=None))
    before = dt.datetime.now(dt.timezone.utc).date()
    days = []
    with Store(db) as store:
        for zone in FAR_ZONES:
            with time_zone(zone):
                days.append(open_tournament(store, spec, fresh=True).event_date)
    if dt.datetime.now(dt.timezone.utc).date() != before:
        pytest.skip("UTC midnight passed between the two zones")
    assert days == [before, before]


def test_a_tournament_resumed_on_a_later_day_plays_its_first_day(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first_day = dt.date(2030, 6, 1)
    # read on the first day's eve / the next day: which one starts depends on the day
    bots = [dated_bot(tmp_path, "eve", first_day - dt.timedelta(days=1)),
            dated_bot(tmp_path, "next", first_day + dt.timedelta(days=1))]
    db = tmp_path / "arena.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db, event_date=None, bots=bots,
                                format="round_robin", rounds=1, games_per_match=1))
    monkeypatch.setattr(opening, "utc_today", lambda: first_day)
    with Store(db) as store:
        assert open_tournament(store, spec, fresh=False).event_date == first_day
    monkeypatch.setattr(opening, "utc_today", lambda: first_day + dt.timedelta(days=2))
    assert run_tournament(load_spec(spec.source), 1).games_recorded == 1
    with Store(db) as store:
        (game,), = store.conn.execute("SELECT game_id FROM records").fetchall()
        config = game_record(store, game)["config"]
    # on the first day "next" read in the future, which counts as never: "eve" starts
    assert (config["event_date"], config["starting_seat"]) == (first_day.isoformat(), 0)


def test_a_stored_tournament_without_its_day_counts_the_day_it_was_created(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db))
    with Store(db) as store:
        open_tournament(store, spec, fresh=False)
        with store.transaction() as conn:
            conn.execute("UPDATE tournaments SET event_date = NULL, "
                         "created_at = '2030-01-02T23:30:00+00:00'")
        assert store.require(spec.name).event_date == dt.date(2030, 1, 2)
