"""What a league's tables are made of: each table its own deal from the league's seed, the
table sizes of a list taken in turn from the first, a batch's tables each chosen after the
ones before it, the ratings the league chooses from the
same as its leaderboard's, a budget of minutes counted from the run's start, a stop request
left by a run no longer alive not stopping the next run; and what a new version retires: its
own bot's older version only, each said retired at the table of the version after it."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from tournament_fixtures import FIXTURES, PassedCheck, bots_dir_for, league_spec, runner

from arena.cli.main import app
from arena.rating.leaderboard import build_leaderboard
from arena.registry import submit
from arena.tournament import league
from arena.tournament.events import Progress
from arena.tournament.league_store import stop_path
from arena.tournament.matchmaking import FieldState
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _run(spec: Path) -> str:
    return run_tournament(load_spec(spec), 1, vetter=lambda bot, scope: None).state


def _tables(db: Path) -> list[tuple[int, int, list[int], int]]:
    """Every stored seating: its table's number, its index, its seats and its deal's seed."""
    conn = sqlite3.connect(str(db))
    try:
        return [(r[0], r[1], json.loads(r[2]), r[3]) for r in conn.execute(
            "SELECT round, table_index, seats_json, seed FROM tables "
            "ORDER BY round, table_index")]
    finally:
        conn.close()


def test_each_table_is_its_own_deal_and_the_same_seed_deals_the_same(
        tmp_path: Path, registry: Path) -> None:
    seeds = []
    for db in (tmp_path / "a.db", tmp_path / "b.db"):
        _run(league_spec(tmp_path, db, 8))
        by_table: dict[int, set[int]] = {}
        for number, _, _, seed in _tables(db):
            by_table.setdefault(number, set()).add(seed)
        # the seatings of a table replay one deal; no two tables share it
        assert len(by_table) == 4 and all(len(deal) == 1 for deal in by_table.values())
        seeds.append([deal.pop() for _, deal in sorted(by_table.items())])
        assert len(set(seeds[-1])) == 4
    assert seeds[0] == seeds[1]


def test_the_table_sizes_of_a_list_are_taken_in_turn_from_the_first(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    # a table of 2 is played in 2 seatings, one of 3 in 3: 2 + 3 + 2 + 3 games
    _run(league_spec(tmp_path, db, 10, players_per_game=[2, 3]))
    sizes = {number: len(seats) for number, _, seats, _ in _tables(db)}
    assert [sizes[n] for n in sorted(sizes)] == [2, 3, 2, 3]


def test_a_stop_request_left_by_a_run_no_longer_alive_does_not_stop_the_next_run(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    spec = league_spec(tmp_path, db, 8)
    assert _run(spec) == "finished"
    # asked to stop, then killed before it looked: the request is left behind
    stop_path(db, "ladder").touch()
    assert _run(league_spec(tmp_path, db, 16)) == "finished"
    shown = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    assert "tables played: 8\n" in shown.stdout


def test_the_league_chooses_from_the_ratings_its_leaderboard_shows(
        tmp_path: Path, registry: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "a.db"
    compared: list[int] = []
    choose = league.next_table

    def next_table(state: FieldState, k: int, seed: int, number: int) -> tuple[int, ...]:
        board = build_leaderboard(db, "ladder")
        ids = _bot_ids(db)
        for row in board.rows:
            if row.games:
                rating = state.ratings[ids[row.key]]
                assert (rating.mu, rating.sigma) == pytest.approx((row.mu, row.sigma)), row.key
                compared.append(number)
        return choose(state, k, seed, number)

    monkeypatch.setattr(league, "next_table", next_table)
    _run(league_spec(tmp_path, db, 12))
    assert max(compared) == 6  # up to the last table, with every game before it rated


def _bot_ids(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(str(db))
    try:
        return {f"{r[1]}@{r[2]}": r[0] for r in conn.execute("SELECT id, name, version FROM bots")}
    finally:
        conn.close()


def test_a_new_version_retires_only_its_own_bot_not_one_whose_name_it_begins(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    submit(FIXTURES / "last.py", "firstly", registry, check=lambda spec: PassedCheck())
    source = tmp_path / "first_v2.py"
    source.write_text((FIXTURES / "first.py").read_text() + "\n# v2\n")
    submitted: list[str] = []

    def report(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 4 and not submitted:
            submitted.append(submit(source, "first", registry, check=lambda spec: PassedCheck(),
                                    update=True).version)

    run_tournament(load_spec(league_spec(tmp_path, db, 16)), 1, report=report,
                   vetter=lambda bot, scope: None)
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert f"first@{submitted[0]}: active since table 3" in status
    assert status.count(": active since table 1") == 3, status  # firstly, hashed, last


def _status_lines(db: Path, prefix: str) -> list[str]:
    shown = runner.invoke(app, ["status", "ladder", "--db", str(db)])
    return [line.strip() for line in shown.stdout.splitlines()
            if line.strip().startswith(prefix)]


def test_each_retired_version_is_said_retired_at_the_table_of_the_version_after_it(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    versions: list[str] = []

    def report(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 4 * (len(versions) + 1):
            source = tmp_path / f"first_v{len(versions) + 2}.py"
            source.write_text((FIXTURES / "first.py").read_text() + f"\n# {source.name}\n")
            versions.append(submit(source, "first", registry, check=lambda spec: PassedCheck(),
                                   update=True).version)

    run_tournament(load_spec(league_spec(tmp_path, db, 12)), 1, report=report,
                   vetter=lambda bot, scope: None)
    lines = _status_lines(db, "first@")
    assert len(lines) == 3, lines
    # submitted after tables 2 and 4: the versions enter at tables 3 and 5
    assert lines[0].endswith(": entered at table 1, retired at table 3"), lines
    assert lines[1] == f"first@{versions[0]}: entered at table 3, retired at table 5"
    assert lines[2] == f"first@{versions[1]}: active since table 5"


def test_a_budget_of_minutes_stops_the_run_once_that_many_minutes_passed(
        tmp_path: Path, registry: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The league's clock is moved on by the games (half a minute after table 1, a minute and
    a half after table 2), so the test does not depend on how fast they are played."""
    ahead = [0.0]
    monkeypatch.setattr(league, "time", SimpleNamespace(
        monotonic=lambda: time.monotonic() + ahead[0]))

    def report(event: object) -> None:
        if isinstance(event, Progress):
            ahead[0] = {2: 30.0, 4: 90.0}.get(event.done, ahead[0])

    summary = run_tournament(load_spec(league_spec(tmp_path, tmp_path / "a.db", None,
                                                   budget={"minutes": 1})),
                             1, report=report, vetter=lambda bot, scope: None)
    assert (summary.state, summary.games_done) == ("finished", 4)


def test_a_batch_counts_its_tables_chosen_before_as_played(
        tmp_path: Path, registry: Path) -> None:
    """Three newcomers at tables of two, two tables at once: the second table of the first
    batch seats the newcomer the first left out, rather than choosing as if nothing were
    chosen yet (the first table again)."""
    db = tmp_path / "a.db"
    _run(league_spec(tmp_path, db, 4, tables_at_once=2))
    tables = {number: sorted(seats) for number, index, seats, _ in _tables(db) if index == 0}
    assert sorted(tables) == [1, 2]
    assert tables[1] != tables[2] and set(tables[1]) | set(tables[2]) == set(_bot_ids(db).values())
