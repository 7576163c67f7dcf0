"""End to end through the real sandboxed referee: determinism across worker counts, resume
after SIGKILL of a real ``arena run`` process, Ctrl-C, changed specs, status, duplicate seats.

The bots are deterministic (greedy, collector and the fixture bots here), so results can be
compared game for game. Specs are tiny; no assertion reads the wall clock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import signal
import sqlite3
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from store_polling import wait_for_games
from tournament_fixtures import (  # noqa: F401 - _repo_cwd: an autouse fixture
    BOTS,
    FIXTURES,
    REPO,
    _repo_cwd,
    arena_run,
    children,
    runner,
    signature,
    wait_gone,
    write_spec,
)

from arena.bench.inprocess import replay_in_parallel
from arena.bench.tournament import run_tournament_bench
from arena.cli.main import app
from arena.errors import ReplayError, StoreError
from arena.tournament.game_records import game_record
from arena.tournament.planning import games_progress, league_games
from arena.tournament.pool import LocalPool
from arena.tournament.runner import RunSummary, mismatch_lines, resume_hint, run_tournament
from arena.tournament.schedule import derive_seed
from arena.tournament.scoring import compute_standings
from arena.tournament.spec_loading import load_spec
from arena.tournament.standings import swiss_inputs, swiss_standings
from arena.tournament.status import failure_summary
from arena.tournament.store import Store
from arena.tournament.swiss import pair_round


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunSummary]:
    """The uninterrupted run with 2 workers that every other run is compared with."""
    old = Path.cwd()
    os.chdir(REPO)
    try:
        tmp = tmp_path_factory.mktemp("reference")
        db = tmp / "arena.db"
        summary = run_tournament(load_spec(write_spec(tmp / "spec.yaml", db)), 2)
    finally:
        os.chdir(old)
    return db, summary


def test_uninterrupted_swiss_is_complete_and_well_paired(
    reference: tuple[Path, RunSummary]
) -> None:
    db, summary = reference
    assert summary.state == "finished"
    assert summary.games_recorded == summary.games_planned == 3 * 2 * 3
    sig = signature(db, "swiss-e2e")
    assert len(sig["games"]) == 18
    # 5 bots, 3 rounds: no rematch, three different bots had the bye, seats balanced-ish
    pairs = Counter(frozenset(t[2]) for t in sig["tables"])
    assert set(pairs.values()) == {1}
    assert len({bot for _, bot in sig["byes"]}) == 3
    seat0 = Counter(t[2][0] for t in sig["tables"])
    assert max(seat0.values()) <= 2


def test_swiss_seats_are_the_rounds_lot_among_equally_even_seatings(tmp_path: Path) -> None:
    """Each stored round is seated as the pairing seats it with the lot of the tournament's
    seed and that round, from the games stored before it; the seed is one whose first round
    the lot seats otherwise than standings order."""
    standings = compute_standings(4, [])

    def lot_seats(seed: int) -> tuple[tuple[int, ...], ...]:
        return pair_round(standings, [], [], 2, seat_seed=derive_seed(seed, "seats", 1)).tables

    seed = next(s for s in range(100) if lot_seats(s) != pair_round(standings, [], [], 2).tables)
    db = tmp_path / "arena.db"
    spec = write_spec(tmp_path / "spec.yaml", db, bots=BOTS[:4], rounds=2, games_per_match=1,
                      seed=seed)
    assert run_tournament(load_spec(spec), 1).state == "finished"
    with Store(db, create=False, read_only=True) as store:
        row = store.require("swiss-e2e")
        ids = store.entrant_ids(row.id)
        for r in (1, 2):
            played, byes, _, _ = swiss_inputs(store, row, r)
            paired = pair_round(swiss_standings(store, row, before_round=r), played, byes, 2,
                                seat_seed=derive_seed(seed, "seats", r))
            stored = [t.seats for t in store.tables(row.id, r)]
            assert stored == [tuple(ids[e] for e in seats) for seats in paired.tables]


def test_results_do_not_depend_on_the_number_of_workers(
    reference: tuple[Path, RunSummary], tmp_path: Path
) -> None:
    db = tmp_path / "one.db"
    summary = run_tournament(load_spec(write_spec(tmp_path / "spec.yaml", db)), 1)
    assert summary.games_recorded == 18 and not summary.mismatches
    assert signature(db, "swiss-e2e") == signature(reference[0], "swiss-e2e")


def test_a_finished_tournament_run_again_starts_no_worker(
    reference: tuple[Path, RunSummary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is left to play, so no worker is spawned (on Ray, no private Ray started)."""
    db = tmp_path / "done.db"
    db.touch(mode=0o600)  # as the arena makes its databases: private
    with sqlite3.connect(reference[0]) as source, sqlite3.connect(db) as copy:
        source.backup(copy)
    starts: list[int] = []
    monkeypatch.setattr(LocalPool, "start", lambda pool, tables: starts.append(tables))
    summary = run_tournament(load_spec(write_spec(tmp_path / "spec.yaml", db)), 2)
    assert summary.state == "finished" and summary.games_recorded == 0
    assert starts == []


def test_a_resumed_run_plays_only_the_tables_with_games_missing(
    reference: tuple[Path, RunSummary], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed as the last round's first table played: the run that resumes plays that table
    alone (from its first game, storing the missing ones), not the finished ones again."""
    db = tmp_path / "killed.db"
    db.touch(mode=0o600)
    with sqlite3.connect(reference[0]) as source, sqlite3.connect(db) as copy:
        source.backup(copy)
        copy.execute("DELETE FROM games WHERE round = 3 AND table_index = 0 AND game_index > 0")
        copy.execute("DELETE FROM records WHERE game_id NOT IN (SELECT id FROM games)")
        copy.execute("UPDATE tables SET finished_at = NULL WHERE round = 3 AND table_index = 0")
        copy.execute("UPDATE tournaments SET state = 'running', finished_at = NULL")
    copy.close()
    played: list[list[tuple[int, int]]] = []
    run = LocalPool.run

    def counted_run(pool: LocalPool, tasks: Any, *args: Any, **kwargs: Any) -> None:
        played.append([(task.round, task.table) for task in tasks])
        run(pool, tasks, *args, **kwargs)

    monkeypatch.setattr(LocalPool, "run", counted_run)
    summary = run_tournament(load_spec(write_spec(tmp_path / "spec.yaml", db)), 2)
    assert (summary.state, summary.games_before, summary.games_recorded) == ("finished", 16, 2)
    assert played == [[(3, 0)]]
    assert signature(db, "swiss-e2e") == signature(reference[0], "swiss-e2e")


def test_games_are_the_same_whether_workers_keep_bot_processes_or_not(
    reference: tuple[Path, RunSummary], tmp_path: Path
) -> None:
    db = tmp_path / "fresh.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db, reuse_bots=False))
    assert spec.spec_hash() == load_spec(write_spec(tmp_path / "on.yaml", db)).spec_hash()
    summary = run_tournament(spec, 2)
    assert summary.games_recorded == 18 and not summary.mismatches
    assert signature(db, "swiss-e2e") == signature(reference[0], "swiss-e2e")
    assert moves(db) == moves(reference[0])
    # 6 tables of 2 bots: every table starts both without reuse, fewer with it
    assert summary.bot_starts == 12 and 0 < reference[1].bot_starts < 12
    # each bot's processes' CPU, told as they end: in their tables, or, kept between
    # tables, as the workers wind down
    keys = sorted(bot.key for bot in spec.entrants)
    for run in (summary, reference[1]):
        assert sorted(run.bot_cpu_s) == keys
        assert all(seconds > 0 for seconds in run.bot_cpu_s.values())


def test_games_are_the_same_with_each_worker_pinned_to_a_cpu(
    reference: tuple[Path, RunSummary], tmp_path: Path
) -> None:
    db = tmp_path / "pinned.db"
    spec = load_spec(write_spec(tmp_path / "spec.yaml", db, pin_workers=True))
    assert spec.pin_workers
    assert spec.spec_hash() == load_spec(write_spec(tmp_path / "off.yaml", db)).spec_hash()
    summary = run_tournament(spec, 2)
    assert summary.games_recorded == 18 and not summary.mismatches
    assert signature(db, "swiss-e2e") == signature(reference[0], "swiss-e2e")
    assert moves(db) == moves(reference[0])


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to tell apart")
@pytest.mark.parametrize("pinned", [True, False])
def test_a_pinned_workers_bots_run_on_its_one_cpu(tmp_path: Path, pinned: bool) -> None:
    """one_cpu starts only where it sees a single CPU: with pin_workers every game is played;
    without, it cannot start (its forfeits say why), and the run goes on."""
    db = tmp_path / "cpu.db"
    spec = write_spec(tmp_path / "cpu.yaml", db, name="cpus", format="round_robin",
                      bots=[str(FIXTURES / "one_cpu.py"), str(FIXTURES / "first.py")],
                      rounds=1, games_per_match=2, pin_workers=pinned)
    # no trial start: it runs in the unpinned parent, where one_cpu cannot start
    summary = run_tournament(load_spec(spec), 2, trial=False)
    assert summary.games_recorded == 2
    with Store(db, read_only=True) as store:
        failures = [f for g in store.games(store.require("cpus").id) for f in g.failures]
    if pinned:
        assert failures == []
    else:
        assert [f["type"] for f in failures] == ["startup_failure"] * 2
        assert "not on one of its own" in failures[0]["detail"]


def moves(db: Path) -> dict[str, Any]:
    """Every game's choices, by game id."""
    with Store(db, read_only=True) as store:
        row = store.require("swiss-e2e")
        return {g.id: game_record(store, g.id)["choices"] for g in store.games(row.id)}


def test_resume_after_sigkill_records_every_game_exactly_once(
    reference: tuple[Path, RunSummary], tmp_path: Path
) -> None:
    db = tmp_path / "killed.db"
    spec = write_spec(tmp_path / "spec.yaml", db)
    for at_least in (4, 10):  # killed in round 1, resumed, killed again in round 2
        process = arena_run(spec, "--workers", "2")
        try:
            seen = wait_for_games(db, "swiss-e2e", at_least, timeout=120)
            assert seen >= at_least, process.stderr.read() if process.stderr else ""
            # stopped first: the runner records the games, so none lands while we look
            os.kill(process.pid, signal.SIGSTOP)
            live = runner.invoke(app, ["status", "swiss-e2e", "--db", str(db)])
            assert f"state running (pid {process.pid})" in live.output
            workers = children(process.pid)
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        assert process.returncode == -signal.SIGKILL
        assert workers and not wait_gone(workers), "workers must die with the runner"
        recorded = len(signature(db, "swiss-e2e")["games"])
        assert at_least <= recorded < 18
        after = runner.invoke(app, ["status", "swiss-e2e", "--db", str(db)])
        assert ("state stopped (its run ended before finishing; run the spec again to "
                "resume)") in after.output
        assert f"resume with: arena run {spec} --db {db}" in after.output
        # every other view agrees that the run is not running any more
        listed = runner.invoke(app, ["tournaments", "--db", str(db), "--format", "json"])
        assert [t["state"] for t in json.loads(listed.stdout)["tournaments"]] == ["stopped"]
        board = runner.invoke(app, ["leaderboard", "--db", str(db), "--format", "json"])
        assert json.loads(board.stdout)["tournament"]["state"] == "stopped"
    process = arena_run(spec, "--workers", "2")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert "swiss-e2e: 18/18 games recorded" in out
    assert signature(db, "swiss-e2e") == signature(reference[0], "swiss-e2e")


def test_the_resume_hint_names_the_database_when_it_is_not_the_specs(tmp_path: Path,
                                                                   monkeypatch) -> None:
    spec = load_spec(write_spec(tmp_path / "spec.yaml", tmp_path / "own.db"))
    monkeypatch.chdir(tmp_path)
    assert resume_hint(spec, tmp_path / "own.db") == "arena run spec.yaml"
    assert resume_hint(spec, tmp_path / "other.db") == "arena run spec.yaml --db other.db"
    monkeypatch.chdir("/")
    assert resume_hint(spec, tmp_path / "other.db") == (
        f"arena run {tmp_path / 'spec.yaml'} --db {tmp_path / 'other.db'}")


@pytest.mark.parametrize("how, code, last", [
    ("ctrl-c", 130, "Interrupted."),  # what a terminal's Ctrl-C does: SIGINT to the group
    ("sigterm", 143, "Terminated."),  # what a service manager's stop does: SIGTERM to it
    # an impatient user: the second Ctrl-C lands while the first one's cleanup runs (or
    # before or after it; whenever it lands, the stop must look the same)
    ("ctrl-c twice", 130, "Interrupted."),
])
def test_ctrl_c_or_sigterm_stops_cleanly_and_says_how_to_resume(
        tmp_path: Path, how: str, code: int, last: str) -> None:
    db = tmp_path / "ctrlc.db"
    spec = write_spec(tmp_path / "spec.yaml", db)
    process = arena_run(spec, "--workers", "2")
    try:
        assert wait_for_games(db, "swiss-e2e", 2, timeout=120) >= 2
        workers = children(process.pid)
        if how.startswith("ctrl-c"):
            os.killpg(process.pid, signal.SIGINT)
            if how == "ctrl-c twice":
                time.sleep(0.05)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGINT)
        else:
            os.kill(process.pid, signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == code, err
    assert f"Resume with: arena run {spec}" in err
    assert err.rstrip().endswith(last)
    assert "Traceback" not in err
    assert not wait_gone(workers)
    conn = sqlite3.connect(str(db))
    state = conn.execute("SELECT state FROM tournaments").fetchone()[0]
    conn.close()
    assert state == "interrupted"


def test_four_player_duplicate_rotates_every_seat_over_one_deal(tmp_path: Path) -> None:
    db = tmp_path / "four.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="four", format="round_robin",
                      bots=BOTS[:4], players_per_game=4, rounds=1, games_per_match=1,
                      duplicate=True)
    summary = run_tournament(load_spec(spec), 2)
    assert summary.games_recorded == 4
    sig = signature(db, "four")
    assert len({t[3] for t in sig["tables"]}) == 1  # one deal: one match seed
    assert len({g[4] for g in sig["games"]}) == 1  # hence one game seed
    seats = Counter((bot, seat) for t in sig["tables"] for seat, bot in enumerate(t[2]))
    assert set(seats.values()) == {1} and len(seats) == 16


def test_duplicate_tables_of_a_deal_replay_its_boards_and_resume_as_one(tmp_path: Path
                                                                         ) -> None:
    """The seatings of a deal are one match: each game of the second seating is the first
    seating's board (same cards by seat, same starting seat) with the bots swapped, and the
    first seating alone follows "the loser starts". A run cut mid-deal resumes to the same
    games."""
    from arena.tournament.store import Store

    db = tmp_path / "dup.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="dup", format="round_robin",
                      bots=BOTS[:3], rounds=1, games_per_match=4, duplicate=True)
    summary = run_tournament(load_spec(spec), 2)
    assert summary.games_recorded == 3 * 2 * 4
    full = signature(db, "dup")
    with Store(db) as store:
        tid = store.tournament("dup").id
        games = {(g.table_index, g.game_index): g for g in store.games(tid)}
        hands = {}
        for key, game in games.items():
            events = game_record(store, game.id)["events"]
            hands[key] = [e["cards"] for e in sorted(
                (e for e in events if e["type"] == "deal"), key=lambda e: e["seat"])]
    tables = {t[1]: t for t in full["tables"]}
    for first in range(0, 6, 2):  # tables 2d and 2d+1 are deal d's two seatings
        assert tables[first][2] == tables[first + 1][2][::-1]
        for g in range(4):
            board, replay = games[(first, g)], games[(first + 1, g)]
            assert board.seed == replay.seed
            assert replay.starting_seat == board.starting_seat
            assert hands[(first + 1, g)] == hands[(first, g)]
            if g:
                before = games[(first, g - 1)].placements
                assert before[board.starting_seat] == max(before)
    # cut the run after the first seating's game 2 and before the second seating's
    conn = sqlite3.connect(str(db))
    with conn:
        cut = [r[0] for r in conn.execute(
            "SELECT id FROM games WHERE tournament_id = ? AND table_index IN (0, 1) AND "
            "(table_index = 1 AND game_index >= 2 OR table_index = 0 AND game_index = 3)",
            (tid,))]
        assert len(cut) == 3
        conn.executemany("DELETE FROM games WHERE id = ?", [(c,) for c in cut])
        conn.executemany("DELETE FROM records WHERE game_id = ?", [(c,) for c in cut])
        conn.execute("UPDATE tables SET finished_at = NULL WHERE tournament_id = ?", (tid,))
        conn.execute("UPDATE tournaments SET state = 'interrupted' WHERE id = ?", (tid,))
    conn.close()
    again = run_tournament(load_spec(spec), 2)
    assert again.games_recorded == 3 and not again.mismatches
    assert signature(db, "dup") == full


def test_a_ladder_mixes_table_sizes_in_one_rating(tmp_path: Path) -> None:
    """players_per_game: [2, 4] plays every pair and every 4-table in the same cycle, each
    group on its own deal, into one leaderboard."""
    db = tmp_path / "mixed.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="mixed", format="round_robin",
                      bots=BOTS[:4], players_per_game=[2, 4], rounds=1, games_per_match=1,
                      duplicate=True)
    summary = run_tournament(load_spec(spec), 2)
    assert summary.games_recorded == 6 * 2 + 4  # six pairs from both seats, one 4-table x 4
    sig = signature(db, "mixed")
    sizes = Counter(len(t[2]) for t in sig["tables"])
    assert sizes == {2: 12, 4: 4}
    deals = {len(t[2]): set() for t in sig["tables"]}
    for t in sig["tables"]:
        deals[len(t[2])].add(t[3])
    assert len(deals[2]) == 6 and len(deals[4]) == 1 and not deals[2] & deals[4]
    result = runner.invoke(app, ["leaderboard", "mixed", "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout)
    assert board["games"] == 16
    # each bot: three pairs from both seats, and the 4-table in its four rotations
    assert sorted(row["games"] for row in board["bots"]) == [10, 10, 10, 10]
    status = runner.invoke(app, ["status", "mixed", "--db", str(db)])
    assert "2, 4 per table" in status.stdout
    listed = runner.invoke(app, ["tournaments", "--db", str(db)])
    assert "2, 4" in listed.stdout
    fours = runner.invoke(app, ["h2h", "mixed", "--players", "4", "--db", str(db),
                                "--format", "json"])
    assert fours.exit_code == 0, fours.output
    data = json.loads(fours.stdout)
    assert data["scope"] == "mixed, 4-player tables"
    assert {pair["games"] for pair in data["pairs"]} == {4}  # the 4-table's rotations only


def test_entry_options_reach_the_sandboxed_bot_and_replay_move_for_move(
        tmp_path: Path) -> None:
    """ismcts entered with an iteration budget plays the same games on every run; a typo in
    an option is the bot's start-up failure, quoted, and the tournament goes on."""
    bots = ["greedy", {"bot": "ismcts", "options": {"iterations": 6}},
            {"bot": "ismcts", "name": "typo", "options": {"iteration": 6}}]
    sigs = []
    for run in ("one", "two"):
        db = tmp_path / f"{run}.db"
        spec = write_spec(tmp_path / f"{run}.yaml", db, name="tuned", format="round_robin",
                          bots=bots, rounds=1, games_per_match=1, duplicate=True)
        # played despite the typo (no trial start, which would refuse it): its forfeits
        # and their reason are what is checked below
        summary = run_tournament(load_spec(spec), 2, trial=False)
        assert summary.games_recorded == 6
        sigs.append(signature(db, "tuned"))
    assert sigs[0] == sigs[1]
    conn = sqlite3.connect(str(tmp_path / "one.db"))
    try:
        versions = dict(conn.execute("SELECT name, version FROM bots").fetchall())
        failures = [f for (text,) in conn.execute("SELECT failures_json FROM games")
                    for f in json.loads(text)]
    finally:
        conn.close()
    assert "+o" in versions["ismcts"] and "+o" not in versions["greedy"]
    assert versions["typo"].split("+")[0] == versions["ismcts"].split("+")[0]
    starts = [f for f in failures if f["type"] == "startup_failure"]
    assert starts and all(f["bot"].startswith("typo@") for f in starts)
    assert "ValueError: ismcts: unknown option 'iteration'" in starts[0]["detail"]
    ismcts_games = [g for g in sigs[0]["games"] if any(k.startswith("ismcts@") for k in g[1])]
    assert len(ismcts_games) == 4 and all(g[5] > 0 for g in ismcts_games)
    status = runner.invoke(app, ["status", "tuned", "--db", str(tmp_path / "one.db")])
    bots_line = next(line for line in status.stdout.splitlines() if line.startswith("bots: "))
    assert f"ismcts@{versions['ismcts']} (iterations=6)" in bots_line
    assert f"typo@{versions['typo']} (iteration=6)" in bots_line
    assert f"greedy@{versions['greedy']}," in bots_line
    reasons = [line for line in status.stdout.splitlines() if line.startswith("  typo ")]
    assert len(reasons) == 1 and reasons[0].startswith(
        f"  typo startup_failure, {len(starts)} times (games r1/")
    assert ("ValueError: ismcts: unknown option 'iteration' (known: ms, wall_ms, iterations, "
            "exploration, bias, width, margin, model_from) (at ismcts.py line ") in reasons[0]
    board = runner.invoke(app, ["leaderboard", "tuned", "--db", str(tmp_path / "one.db"),
                                "-f", "json"])
    options = {row["bot"]: row["options"] for row in json.loads(board.stdout)["bots"]}
    assert options == {"greedy": {}, "ismcts": {"iterations": 6}, "typo": {"iteration": 6}}
    table = runner.invoke(app, ["leaderboard", "tuned", "--db", str(tmp_path / "one.db")])
    assert "ismcts (iterations=6)" in table.stdout
    summary = failure_summary(tmp_path / "one.db", "tuned")
    assert summary == (f"Bot failures in {len(starts)} of 6 games ({len(starts)} forfeits): "
                       f"startup_failure {len(starts)}; arena status tuned --db "
                       f"{tmp_path / 'one.db'} says why")
    pointer = [line for line in status.stdout.splitlines()
               if line.startswith("  one of them in full: arena game ")]
    assert len(pointer) == 1
    lines = status.stdout.splitlines()
    assert lines[lines.index(pointer[0]) + 1] == (
        "  (its bot's author replays it in-process with --rerun BOT, docs/BOTS.md)")
    found = re.fullmatch(r"  one of them in full: arena game (\S+) --seat (\d) --db (\S+)",
                         pointer[0])
    assert found is not None and Path(found[3]) == tmp_path / "one.db", pointer
    game_id, seat = found[1], found[2]
    shown = runner.invoke(app, ["game", game_id, "--seat", seat, "--db",
                                str(tmp_path / "one.db")])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert lines[0] == f"Game {game_id}" and lines[1].startswith("Bots: seat 0 ")
    assert f"As seat {seat} (typo) saw it:" in lines
    assert any(line.startswith(f"  seat {seat} typo@{versions['typo']}: startup_failure: ")
               for line in lines)
    log = lines[lines.index(f"Log of seat {seat} (typo@{versions['typo']}):") + 1:]
    assert any("ValueError: ismcts: unknown option 'iteration'" in line for line in log)


def test_status_reports_progress(reference: tuple[Path, RunSummary]) -> None:
    db = reference[0]
    overview = runner.invoke(app, ["status", "--db", str(db)])
    assert overview.exit_code == 0
    assert "swiss-e2e" in overview.output and "18/18 (100%)" in overview.output
    detail = runner.invoke(app, ["status", "swiss-e2e", "--db", str(db)])
    assert detail.exit_code == 0, detail.output
    assert "state finished; games 18/18 (100%)" in detail.output
    assert "buchholz" in detail.output
    missing = runner.invoke(app, ["status", "nope", "--db", str(db)])
    assert missing.exit_code == 1
    assert missing.stderr.startswith("Error: no tournament named 'nope' in ")


def test_progress_says_100_percent_only_when_every_game_is_played() -> None:
    assert [games_progress(done, planned, False)
            for done, planned in [(359, 360), (360, 360), (1, 3), (0, 0)]] == [
        "359/360 (99%)", "360/360 (100%)", "1/3 (33%)", "0"]


def test_a_leagues_games_beside_its_budget_read_the_same_wherever_told() -> None:
    # the line that ends a stopped run, the run's bar and a held spec's note share these
    assert [league_games(done, budget)
            for done, budget in [(504, 400), (400, 400), (12, 400), (12, None), (0, 0),
                                 (1, 4)]] == [
        "504 games (budget 400 spent)", "400 games (budget 400 spent)", "12 games (budget 400)",
        "12 games", "0 games", "1 game (budget 4)"]


def test_status_records_go_only_where_a_file_can_be_written(
        reference: tuple[Path, RunSummary], tmp_path: Path) -> None:
    db = str(reference[0])
    folder = runner.invoke(app, ["status", "swiss-e2e", "--db", db, "--records", str(tmp_path)])
    assert folder.exit_code == 2
    assert f"{tmp_path} is a directory; give a file name" in " ".join(
        folder.output.replace("│", " ").split())
    full = runner.invoke(app, ["status", "swiss-e2e", "--db", db, "--records", "/dev/full"])
    assert full.exit_code == 1
    assert full.stderr == "Error: cannot write game records to /dev/full: No space left on device\n"


def test_exported_records_replay_identically(reference: tuple[Path, RunSummary],
                                             tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = runner.invoke(app, ["status", "swiss-e2e", "--db", str(reference[0]),
                                 "--records", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote 18 game records to {out}" in result.output
    replayed = runner.invoke(app, ["replay", str(out)])
    assert replayed.exit_code == 0, replayed.output
    assert "replayed 18 games: identical" in replayed.output


def test_bench_tournament_reports_both_worker_counts() -> None:
    result = runner.invoke(app, ["bench", "tournament", "--games", "1", "--rounds", "1",
                                 "--store-games", "20", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["workers"] for r in data["runs"]] == [1.0, 2.0]
    assert all(r["games"] == 3.0 and r["games_per_s"] > 0 for r in data["runs"])
    assert data["speedup_2_vs_1"] > 0 and data["store_ms_per_game"] > 0
    # the very same games in-process right after each run, and the run's CPU against theirs
    assert [(x["games"], x["differing"]) for x in data["in_process"]] == [(3, 0), (3, 0)]
    for r, local in zip(data["runs"], data["in_process"], strict=True):
        assert r["in_process_cpu_seconds"] == pytest.approx(local["cpu_seconds"], abs=1e-3)
        assert r["cpu_ratio"] == pytest.approx(r["cpu_seconds"] / r["in_process_cpu_seconds"])
        assert r["wall_ratio"] == pytest.approx(
            r["seconds"] * r["workers"] / r["in_process_cpu_seconds"])
    # where the CPU went: the runner, the referees (the workers themselves), the bots
    for r in data["runs"]:
        assert r["referee_cpu_seconds"] > 0 and r["bots_cpu_seconds"] > 0
        parts = r["parent_cpu_seconds"] + r["referee_cpu_seconds"] + r["bots_cpu_seconds"]
        assert parts == pytest.approx(r["cpu_seconds"])
    # the bots' part by bot: each entrant's processes, within the part, against its agent's
    # share of the in-process replay, whose rest is the engine's
    for r, local in zip(data["runs"], data["in_process"], strict=True):
        assert sorted(r["by_bot"]) == sorted(local["bot_cpu_seconds"]) and len(r["by_bot"]) == 3
        assert all(figures["sandboxed"] > 0 and figures["in_process"] >= 0
                   and figures["in_process"] == local["bot_cpu_seconds"][bot]
                   for bot, figures in r["by_bot"].items())
        assert sum(f["in_process"] for f in r["by_bot"].values()) > 0  # each, to 3 decimals
        assert sum(f["sandboxed"] for f in r["by_bot"].values()) <= r["bots_cpu_seconds"] + 3e-3
        assert local["engine_cpu_seconds"] == pytest.approx(
            local["cpu_seconds"] - sum(local["bot_cpu_seconds"].values()), abs=2e-3)
        assert r["in_process_engine_cpu_seconds"] == pytest.approx(
            local["engine_cpu_seconds"], abs=1e-3)
    # the 2-worker run's games also in-process on 2 CPUs at once: the machine's own speed-up
    one, two = data["runs"]
    assert "machine_speedup" not in one and two["parallel_differing"] == 0
    assert two["machine_speedup"] == pytest.approx(
        two["in_process_cpu_seconds"] / two["parallel_seconds"])
    assert two["parallel_wall_ratio"] == pytest.approx(two["seconds"] / two["parallel_seconds"])
    assert two["parallel_cpu_seconds"] > 0
    assert data["machine_speedups"] == [round(two["machine_speedup"], 3)]


def test_the_games_replay_in_parallel_each_by_one_process(
        reference: tuple[Path, RunSummary]) -> None:
    """The machine's own speed-up is measured on the very games of the run: each played by
    exactly one of the processes, with the placements stored."""
    db, _ = reference
    entrants = list(load_spec(db.parent / "spec.yaml").entrants)
    parallel = replay_in_parallel(db, "swiss-e2e", entrants, 2)
    assert (parallel.processes, parallel.games, parallel.differing) == (2, 18, 0)
    assert parallel.seconds > 0 and parallel.cpu_seconds > 0
    thirds = replay_in_parallel(db, "swiss-e2e", entrants, 3)
    assert (thirds.games, thirds.differing) == (18, 0)


def test_a_parallel_replay_that_cannot_play_says_why(reference: tuple[Path, RunSummary],
                                                     tmp_path: Path) -> None:
    db, _ = reference
    entrants = list(load_spec(db.parent / "spec.yaml").entrants)
    entrants[0] = dataclasses.replace(entrants[0], path=tmp_path / "gone.py")
    with pytest.raises(ReplayError, match=r"^replaying the games in-process failed: \w+Error: "):
        replay_in_parallel(db, "swiss-e2e", entrants, 2)


def test_bench_tournament_repeats_alternate_and_sum_up_by_medians() -> None:
    """On a machine whose speed swings, one run says little: --repeat runs each worker count
    again, every other time in the reverse order, and sums up by medians."""
    args = ["bench", "tournament", "--games", "1", "--rounds", "1", "--store-games", "5",
            "--repeat", "3"]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    runs = data["runs"]
    assert [(r["repeat"], r["workers"]) for r in runs] == [
        (1.0, 1.0), (1.0, 2.0), (2.0, 2.0), (2.0, 1.0), (3.0, 1.0), (3.0, 2.0)]
    assert len(data["in_process"]) == 6 and data["repeat"] == 3
    by_repeat = {(r["repeat"], r["workers"]): r for r in runs}
    speedups = [by_repeat[(k, 2.0)]["games_per_s"] / by_repeat[(k, 1.0)]["games_per_s"]
                for k in (1.0, 2.0, 3.0)]
    assert data["speedups"] == [round(x, 3) for x in speedups]
    assert data["speedup_2_vs_1"] == round(statistics.median(speedups), 3)
    for count in ("1", "2"):
        mine = [r for r in runs if r["workers"] == float(count)]
        for key in ("games_per_s", "cpu_ratio", "wall_ratio"):
            assert data["medians"][count][key] == round(statistics.median(r[key] for r in mine), 3)
    table = runner.invoke(app, args).output
    assert "run 2 of 3, 2 worker(s)" in table and "medians over 3 repeats (range):" in table
    assert "speed-up 2 vs 1 worker: median of 3 repeats (" in table


def test_bench_tournament_plays_a_spec_and_counts_bot_starts(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "unused.db", format="round_robin",
                      bots=["greedy", "collector", "random"], rounds=2, games_per_match=1)
    args = ["bench", "tournament", "--spec", str(spec), "--workers", "1",
            "--store-games", "5", "--format", "json"]
    kept = json.loads(runner.invoke(app, args).stdout)
    fresh = json.loads(runner.invoke(app, [*args, "--fresh-bots"]).stdout)
    assert kept["title"] == "swiss-e2e" and kept["tables"] == 6
    (replay,) = kept["in_process"]
    assert (replay["games"], replay["differing"]) == (6, 0)
    # one worker keeps each of the three bots for all six tables
    assert [r["bot_starts"] for r in kept["runs"]] == [3.0]
    assert [r["bot_starts"] for r in fresh["runs"]] == [12.0]
    assert not (tmp_path / "unused.db").exists()  # results go to a temporary database


def test_bench_tournament_names_a_bot_that_never_started_and_counts_without_cgroups(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three bots, one Swiss round: the one with the bye is named with nothing, sandboxed and
    in-process; the others' processes are counted by what the referee reaps."""
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", "cgroup")
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "unused.db", format="swiss",
                      bots=["greedy", "collector", "random"], rounds=1, games_per_match=1)
    result = run_tournament_bench(spec_file=spec, workers=(1,), store_games=5)
    assert result.tables == 1
    (split,) = result.by_bot
    assert sorted(split) == sorted(bot.key for bot in load_spec(spec).entrants)
    idle = [bot for bot, figures in split.items() if figures["sandboxed"] == 0]
    assert len(idle) == 1 and split[idle[0]]["in_process"] == 0
    assert all(figures["sandboxed"] > 0 and figures["in_process"] > 0
               for bot, figures in split.items() if bot not in idle)
    assert re.search(rf"\n +{re.escape(idle[0])} +sandboxed 0\.00 CPU-s, in-process act "
                     r"0\.00 \(-\)\n", result.render())


def test_many_replay_mismatches_are_counted_after_the_first_few() -> None:
    mismatches = [f"game cup/r1/t{t}/g{g} replayed with placements [1, 2], recorded [2, 1] "
                  "(a bot is not deterministic?); kept the recorded result"
                  for t in (0, 3) for g in range(20)]
    lines = mismatch_lines(mismatches)
    assert lines[:5] == mismatches[:5]
    assert lines[5:] == ["... and 35 more replayed games came out differently, in 2 table(s): "
                         "cup/r1/t0, cup/r1/t3"]
    assert mismatch_lines(mismatches[:3]) == mismatches[:3]


def test_hint_paths_with_spaces_are_quoted(tmp_path: Path, monkeypatch) -> None:
    from arena.tournament.status import resume_command

    folder = tmp_path / "my cup"
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert resume_command(str(folder / "spec one.yaml"), folder / "a b.db") == (
        "arena run 'spec one.yaml' --db 'a b.db'")


def test_a_spec_without_a_seed_gets_a_secret_one_kept_for_resuming(tmp_path: Path) -> None:
    """The seed decides every deal, so a contest keeps it secret: left out of the spec, one
    is drawn at creation and stored; a resumed run keeps it, --fresh draws another."""
    db = tmp_path / "arena.db"
    small = {"name": "secret", "format": "round_robin", "bots": ["greedy", "collector"],
             "rounds": 1, "games_per_match": 2}
    data = yaml.safe_load(write_spec(tmp_path / "s.yaml", db, **small).read_text())
    del data["seed"]
    spec_file = tmp_path / "secret.yaml"
    spec_file.write_text(yaml.safe_dump(data))

    def stored() -> tuple[int, list[int]]:
        conn = sqlite3.connect(str(db))
        try:
            seed = conn.execute("SELECT seed FROM tournaments").fetchone()[0]
            return seed, [r[0] for r in conn.execute("SELECT seed FROM games ORDER BY id")]
        finally:
            conn.close()

    assert load_spec(spec_file).seed is None
    run_tournament(load_spec(spec_file), 1)
    seed, games = stored()
    assert seed >= 2**20 and len(games) == 2  # drawn from 63 bits: not a guessable number
    status = runner.invoke(app, ["status", "secret", "--db", str(db)])
    assert f"seed {seed} (drawn: the spec gives none)" in status.stdout  # finished: shown
    from arena.tournament.status import shown_seed

    assert shown_seed(seed, {"seed": None}, "running") == \
        "seed drawn, secret until the tournament finishes"  # status output gets shown around
    assert shown_seed(7, {"seed": 7}, "running") == "seed 7"  # written in the spec anyway
    run_tournament(load_spec(spec_file), 1)  # resumes: nothing new
    assert stored() == (seed, games)
    run_tournament(load_spec(spec_file), 1, fresh=True)
    again, new_games = stored()
    assert again != seed and new_games != games


def test_swiss_weighs_an_off_size_duplicate_table_like_a_nominal_one(tmp_path: Path) -> None:
    """5 bots at tables of 3, every seating (permutations): the table of 3 plays 6 matches, the
    table of 2 plays 2; a game of the table of 2 counts 3 times, in the pairing's score and in
    the leaderboard's points alike, so both tables hand out the same points."""
    from arena.rating.leaderboard import build_leaderboard

    db = tmp_path / "off.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="off", players_per_game=3, rounds=1,
                      games_per_match=1, duplicate="permutations")
    summary = run_tournament(load_spec(spec), 2)
    assert summary.games_recorded == 6 + 2
    board = build_leaderboard(db, "off")
    sig = signature(db, "off")
    sizes = {bot: len(t[2]) for t in sig["tables"] for bot in t[2]}
    by_size: Counter[int] = Counter()
    for row in board.rows:
        by_size[sizes[row.key]] += row.points
    # a game hands out k/2 points: 6 games of 3 give 9 (3 a bot), 2 games of 2 give 2,
    # counted 3 times: 6 (3 a bot, as at the table of 3; unweighted it was 1)
    assert by_size == {3: 9.0, 2: 6.0}


def test_after_an_update_a_tournament_goes_on_with_the_version_it_started_with(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.registry import submit

    bots_dir = tmp_path / "bots"
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    source = tmp_path / "mine.py"
    source.write_text((FIXTURES / "first.py").read_text())
    passing = lambda spec: type("R", (), {"ok": True})()  # noqa: E731 - a check that passes
    old = submit(source, name="mine", check=passing)
    db = tmp_path / "upd.db"
    greedy = str(REPO / "bots" / "greedy.py")
    spec = write_spec(tmp_path / "spec.yaml", db, name="upd", bots=["mine", greedy],
                      format="round_robin", rounds=1, games_per_match=1)
    assert run_tournament(load_spec(spec), 1).state == "finished"
    source.write_text(source.read_text() + "\n# a new version\n")
    new = submit(source, name="mine", check=passing, update=True)
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(spec), 1)
    assert (f"(mine@{old.version} -> mine@{new.version}; to go on with the version it started "
            f"with, enter it as mine@{old.version})") in str(info.value)
    pinned = write_spec(tmp_path / "pinned.yaml", db, name="upd",
                        bots=[f"mine@{old.version}", greedy], format="round_robin",
                        rounds=1, games_per_match=1)
    summary = run_tournament(load_spec(pinned), 1)
    assert summary.state == "finished" and summary.games_recorded == 0


def test_a_database_killed_before_its_tables_were_made_is_taken_up(tmp_path: Path) -> None:
    """A run killed right after creating the file leaves it empty: the next run (and its
    --check) read it as holding nothing yet."""
    db = tmp_path / "empty.db"
    sqlite3.connect(str(db)).close()
    db.write_bytes(b"")
    spec = write_spec(tmp_path / "spec.yaml", db, name="empty", bots=BOTS[:2], rounds=1,
                      games_per_match=1, seed=2**62)
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.exit_code == 0 and result.stdout.splitlines()[1] == (
        f"Results: {db}, no tournament in it yet (an empty database)"), result.output
    summary = run_tournament(load_spec(spec), 1)
    assert summary.state == "finished" and summary.games_recorded == 1


def test_a_bot_edited_during_a_run_stops_it_before_other_code_plays_under_its_version(
        tmp_path: Path) -> None:
    """The run meets the edit at the next table that seats the bot: one line, and no game
    of the new code is recorded under the old version."""
    from arena.errors import ArenaError
    from arena.tournament.events import Progress

    mine = tmp_path / "mine.py"
    mine.write_text((FIXTURES / "first.py").read_text())
    db = tmp_path / "edit.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="edit", format="round_robin",
                      rounds=1, games_per_match=2, reuse_bots=False,
                      bots=[str(mine), str(REPO / "bots" / "greedy.py"),
                            str(REPO / "bots" / "collector.py")])

    def edit_after_the_first_table(event: object) -> None:
        if isinstance(event, Progress) and event.done == 2 and "# edited" not in mine.read_text():
            mine.write_text(mine.read_text() + "\n# edited\n")

    with pytest.raises(ArenaError) as info:
        run_tournament(load_spec(spec), 1, report=edit_after_the_first_table)
    assert re.fullmatch(r"table r1/t\d: bot first@\w+: its files at .*mine\.py changed or went "
                        r"away since it entered, so it was not seated; put them back to go on, "
                        r"or see docs/TOURNAMENTS\.md for a bot updated mid-tournament",
                        str(info.value)), str(info.value)
    with Store(db) as store:
        row = store.tournament("edit")
        assert row is not None and store.count_games(row.id) == 2


def test_a_tournament_another_process_runs_is_refused_before_any_bot_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second `arena run` of a running tournament says so at once, not after its trial
    start (the lock, taken after it, would refuse it then)."""
    import arena.tournament.preflight as preflight_module

    db = tmp_path / "busy.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="busy", bots=BOTS[:2], rounds=1,
                      games_per_match=1)
    run_tournament(load_spec(spec), 1)
    with sqlite3.connect(db) as conn:  # as a killed run leaves it: a game to play yet
        conn.execute("DELETE FROM records")
        conn.execute("DELETE FROM games")
        conn.execute("UPDATE tournaments SET state = 'interrupted'")

    def no_trial(*args: object, **kwargs: object) -> None:
        raise AssertionError("a bot was started")

    monkeypatch.setattr(preflight_module, "trial_starts", no_trial)
    # --check says what the run would: it started the bots and called the run ready
    for check in ([], ["--check"]):
        with Store(db) as running, running.lock("busy"):
            result = runner.invoke(app, ["run", str(spec), "--no-progress", *check])
        assert result.exit_code == 1
        assert result.stderr == ("Error: tournament 'busy' is being run by another process "
                                 f"(pid {os.getpid()}); wait for it or stop it first\n")
