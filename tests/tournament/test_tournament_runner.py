"""End to end through the real sandboxed referee: determinism across worker counts, resume
after SIGKILL of a real ``arena run`` process, Ctrl-C, changed specs, status, duplicate seats.

The bots are deterministic (greedy, collector and the fixture bots here), so results can be
compared game for game. Specs are tiny; no assertion reads the wall clock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import StoreError
from arena.registry import resolve
from arena.tournament.runner import RunSummary, mismatch_lines, resume_hint, run_tournament
from arena.tournament.spec import load_spec
from arena.tournament.status import _progress, failure_summary
from arena.tournament.store import wait_for_games

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "bots"
BOTS = ["greedy", "collector", str(FIXTURES / "hashed.py"), str(FIXTURES / "last.py"),
        str(FIXTURES / "first.py")]
LIMITS = {"decision_ms": 3000, "time_bank_ms": 30000, "startup_ms": 30000}
runner = CliRunner()


def write_spec(path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {
        "name": "swiss-e2e", "format": "swiss", "bots": BOTS, "players_per_game": 2,
        "rounds": 3, "games_per_match": 3, "seed": 11, "event_date": "2026-11-29",
        "limits": LIMITS, "results": str(db),
    }
    data.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def signature(db: Path, name: str) -> dict[str, Any]:
    """Everything that must not depend on workers or interruptions (ids mapped to keys)."""
    conn = sqlite3.connect(str(db))
    try:
        keys = {r[0]: f"{r[1]}@{r[2]}" for r in conn.execute("SELECT id, name, version FROM bots")}
        tid = conn.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
        games = [
            (r[0], [keys[b] for b in json.loads(r[1])], json.loads(r[2]), r[3], r[4], r[5],
             json.loads(r[6]))
            for r in conn.execute(
                "SELECT id, seats_json, placements_json, starting_seat, seed, decisions, "
                "desmos_json FROM games WHERE tournament_id = ? "
                "ORDER BY round, table_index, game_index", (tid,))]
        tables = [(r[0], r[1], [keys[b] for b in json.loads(r[2])], r[3]) for r in conn.execute(
            "SELECT round, table_index, seats_json, seed FROM tables WHERE tournament_id = ? "
            "ORDER BY round, table_index", (tid,))]
        byes = [(r[0], keys[r[1]]) for r in conn.execute(
            "SELECT round, bot_id FROM byes WHERE tournament_id = ? ORDER BY round, bot_id",
            (tid,))]
        records = conn.execute("SELECT COUNT(*) FROM records WHERE tournament_id = ?",
                               (tid,)).fetchone()[0]
        distinct = conn.execute("SELECT COUNT(DISTINCT id) FROM games WHERE tournament_id = ?",
                                (tid,)).fetchone()[0]
    finally:
        conn.close()
    assert records == len(games) == distinct
    return {"games": games, "tables": tables, "byes": byes}


def _terminal_sigint() -> None:
    """SIGINT as in a terminal, whatever the test run inherited: a job started in the
    background (``cmd &`` in a script, as CI runners may) ignores it, and a Python started
    that way keeps ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def arena_run(spec: Path, *extra: str) -> subprocess.Popen[str]:
    """A real ``arena run`` process (``python -m arena.cli.main``) in its own session."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "run", str(spec), "--no-progress", *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_terminal_sigint)


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pids: set[int], timeout: float = 30.0) -> set[int]:
    deadline = time.monotonic() + timeout
    left = set(pids)
    while left and time.monotonic() < deadline:
        left = {p for p in left if alive(p)}
        time.sleep(0.1)
    return left


@pytest.fixture(autouse=True)
def _repo_cwd() -> Any:
    old = Path.cwd()
    os.chdir(REPO)
    yield None
    os.chdir(old)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunSummary]:
    """The uninterrupted run with 2 workers that every other run is compared with."""
    old = Path.cwd()
    os.chdir(REPO)
    try:
        tmp = tmp_path_factory.mktemp("reference")
        db = tmp / "arena.db"
        summary = run_tournament(load_spec(write_spec(tmp / "spec.yaml", db)), 2,
                                 progress=False)
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


def test_results_do_not_depend_on_the_number_of_workers(
    reference: tuple[Path, RunSummary], tmp_path: Path
) -> None:
    db = tmp_path / "one.db"
    summary = run_tournament(load_spec(write_spec(tmp_path / "spec.yaml", db)), 1,
                             progress=False)
    assert summary.games_recorded == 18 and not summary.mismatches
    assert signature(db, "swiss-e2e") == signature(reference[0], "swiss-e2e")


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
        assert "state stopped (the run was killed; run the spec again to resume)" in after.output
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


def test_changed_spec_is_refused_and_fresh_starts_anew(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    small = {"name": "tiny", "format": "round_robin", "bots": BOTS[:2], "rounds": 1,
             "games_per_match": 1}
    spec = write_spec(tmp_path / "spec.yaml", db, **small)
    said = io.StringIO()
    first = run_tournament(load_spec(spec), 1, progress=False,
                           console=Console(file=said, width=300))
    assert first.games_recorded == 1
    assert said.getvalue().splitlines()[0] == f"New results database: {db}"
    said = io.StringIO()
    again = run_tournament(load_spec(spec), 1, progress=False,
                           console=Console(file=said, width=300))
    assert again.games_recorded == 0 and again.games_before == 1
    assert "New results database" not in said.getvalue()
    changed = write_spec(tmp_path / "changed.yaml", db, **{**small, "seed": 12})
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(changed), 1, progress=False)
    old_hash = load_spec(spec).spec_hash()
    new_hash = load_spec(changed).spec_hash()
    assert str(info.value) == (
        f"tournament 'tiny' exists with a different spec (hash {old_hash}, this spec "
        f"{new_hash}: seed changed); use --fresh to start anew, or rename it")
    result = runner.invoke(app, ["run", str(changed), "--no-progress"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {info.value}\n"
    shown = io.StringIO()
    fresh = run_tournament(load_spec(changed), 1, fresh=True, progress=False,
                           console=Console(file=shown, width=200))
    assert fresh.games_recorded == 1 and fresh.games_before == 0
    assert shown.getvalue().splitlines()[0] == (
        "--fresh: dropping the stored tournament 'tiny' (1 game recorded)")
    conn = sqlite3.connect(str(db))
    assert conn.execute("SELECT seed FROM tournaments WHERE name = 'tiny'").fetchone()[0] == 12
    assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    conn.close()


@pytest.mark.parametrize("bots, change", [
    (["collector", "greedy", "random"],
     "the same bots in another order: the order sets the seats and the schedule"),
    (["greedy", {"bot": "collector", "options": {"depth": 3}}, "random"],
     "collector options {} -> {depth: 3}"),
    (["greedy", "collector", "heuristic"], "random@{random} left; heuristic@{heuristic} joined"),
    (["random", "greedy", {"bot": "collector", "options": {"depth": 3}}],
     "collector options {} -> {depth: 3}; the others in another order"),
    (["greedy", "collector"], "random@{random} left"),
    (["heuristic", "collector", "greedy"],
     "random@{random} left; heuristic@{heuristic} joined; the others in another order"),
])
def test_a_changed_entry_list_is_told_in_words(tmp_path: Path, bots: list[Any],
                                               change: str) -> None:
    from arena.registry import resolve
    from arena.tournament.runner import _open_tournament
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    base = {"name": "tiny", "format": "round_robin", "rounds": 1, "games_per_match": 1}
    with Store(db) as store:
        _open_tournament(store, load_spec(write_spec(
            tmp_path / "a.yaml", db, bots=["greedy", "collector", "random"], **base)), False)
        with pytest.raises(StoreError) as info:
            _open_tournament(store, load_spec(write_spec(tmp_path / "b.yaml", db, bots=bots,
                                                         **base)), False)
    for name in ("random", "heuristic"):
        change = change.replace(f"{{{name}}}", resolve(name).version)
    assert f"entrants changed ({change})); use --fresh" in str(info.value)


def test_a_tournament_from_before_tau_defaulted_to_0_names_the_value_to_resume_with(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    small = {"name": "tiny", "format": "round_robin", "bots": BOTS[:2], "rounds": 1,
             "games_per_match": 1}
    old_tau = 25 / 3 / 100  # trueskill's own default, the arena's before
    old = write_spec(tmp_path / "old.yaml", db, **small, rating={"tau": old_tau})
    run_tournament(load_spec(old), 1, progress=False)
    today = write_spec(tmp_path / "spec.yaml", db, **small)
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(today), 1, progress=False)
    assert (f"rating changed (tau 0.08333 -> 0); tau now defaults to 0 (bots do not drift): "
            f"set rating.tau: {old_tau!r} in the spec to resume with the old value); "
            "use --fresh") in str(info.value)
    again = write_spec(tmp_path / "again.yaml", db, **small, rating={"tau": old_tau})
    assert run_tournament(load_spec(again), 1, progress=False).games_before == 1
    other = write_spec(tmp_path / "other.yaml", db, **small, rating={"tau": old_tau, "mu": 30})
    with pytest.raises(StoreError, match=r"rating changed \(beta 4.167 -> 5, mu 25 -> 30, "
                                         r"sigma 8.333 -> 10\)\); use --fresh"):
        run_tournament(load_spec(other), 1, progress=False)


def test_four_player_duplicate_rotates_every_seat_over_one_deal(tmp_path: Path) -> None:
    db = tmp_path / "four.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="four", format="round_robin",
                      bots=BOTS[:4], players_per_game=4, rounds=1, games_per_match=1,
                      duplicate=True)
    summary = run_tournament(load_spec(spec), 2, progress=False)
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
    summary = run_tournament(load_spec(spec), 2, progress=False)
    assert summary.games_recorded == 3 * 2 * 4
    full = signature(db, "dup")
    with Store(db) as store:
        tid = store.tournament("dup").id
        games = {(g.table_index, g.game_index): g for g in store.games(tid)}
        hands = {}
        for key, game in games.items():
            events = store.record(game.id)["events"]
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
    again = run_tournament(load_spec(spec), 2, progress=False)
    assert again.games_recorded == 3 and not again.mismatches
    assert signature(db, "dup") == full


def test_a_ladder_mixes_table_sizes_in_one_rating(tmp_path: Path) -> None:
    """players_per_game: [2, 4] plays every pair and every 4-table in the same cycle, each
    group on its own deal, into one leaderboard."""
    db = tmp_path / "mixed.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="mixed", format="round_robin",
                      bots=BOTS[:4], players_per_game=[2, 4], rounds=1, games_per_match=1,
                      duplicate=True)
    summary = run_tournament(load_spec(spec), 2, progress=False)
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
        summary = run_tournament(load_spec(spec), 2, progress=False, trial=False)
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
    assert reasons[0].endswith("ValueError: ismcts: unknown option 'iteration' (known: ms, "
                               "wall_ms, iterations, exploration, bias, width, margin, "
                               "model_from)")
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
    assert [_progress(done, planned) for done, planned in [(359, 360), (360, 360), (1, 3),
                                                            (0, 0)]] == [
        "359/360 (99%)", "360/360 (100%)", "1/3 (33%)", "0/0 (0%)"]


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
    run_tournament(load_spec(spec_file), 1, progress=False)
    seed, games = stored()
    assert seed >= 2**20 and len(games) == 2  # drawn from 63 bits: not a guessable number
    status = runner.invoke(app, ["status", "secret", "--db", str(db)])
    assert f"seed {seed} (drawn: the spec gives none)" in status.stdout  # finished: shown
    from arena.tournament.status import shown_seed

    assert shown_seed(seed, {"seed": None}, "running") == \
        "seed drawn, secret until the tournament finishes"  # status output gets shown around
    assert shown_seed(7, {"seed": 7}, "running") == "seed 7"  # written in the spec anyway
    run_tournament(load_spec(spec_file), 1, progress=False)  # resumes: nothing new
    assert stored() == (seed, games)
    run_tournament(load_spec(spec_file), 1, fresh=True, progress=False)
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
    summary = run_tournament(load_spec(spec), 2, progress=False)
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


def test_check_starts_every_entry_and_plays_nothing(tmp_path: Path) -> None:
    db = tmp_path / "check.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="check",
                      bots=["greedy", str(FIXTURES / "first.py"),
                            str(FIXTURES / "no_start.py")])
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"Spec from {spec}: swiss 'check', 3 entries, tables of 2, "
                               "3 round(s), ")
    assert lines[1].startswith("warning: seed 11 is short")  # fixture bots are no samples
    assert lines[2] == f"Results: {db}, not created yet"
    assert lines[4].startswith("  ok    greedy@") and lines[5].startswith("  ok    first@")
    assert lines[6].startswith("  FAIL  no_start@") and lines[6].endswith(
        ": exited before answering 'hello' (exit code 2); last log line: ImportError: No "
        "module named 'numpy' (deliberately)")
    assert lines[7] == "1 of 3 entries does not start."
    assert not db.exists(), "--check plays and stores nothing"
    good = write_spec(tmp_path / "good.yaml", db, name="check", bots=BOTS[:2], seed=2**62)
    result = runner.invoke(app, ["run", str(good), "--check"])
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == (
        "All 2 entries start: ready to run."), result.output
    run_tournament(load_spec(good), 1, progress=False, trial=False,
                   console=Console(file=io.StringIO()))
    result = runner.invoke(app, ["run", str(good), "--check"])
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == (
        "All 2 entries start; the stored tournament is finished: arena run has nothing left "
        "to play (--fresh plays it anew)."), result.output
    changed = write_spec(tmp_path / "good.yaml", db, name="check", bots=BOTS[:2], seed=2**62,
                         games_per_match=1)
    result = runner.invoke(app, ["run", str(changed), "--check"])
    lines = result.stdout.splitlines()
    assert result.exit_code == 1 and lines[1].startswith(
        f"Results: {db}, holds 'check': ") and ", with another spec (hash " in lines[1]
    assert lines[-1] == ("All 2 entries start, but arena run refuses the stored tournament's "
                         "other spec (--fresh starts anew).")


def test_check_of_a_drawn_seed_says_whether_it_is_drawn_yet(tmp_path: Path) -> None:
    """Once the tournament is stored its seed is drawn and kept: --check no longer says a
    seed will be drawn (which read as if a resume would deal other games)."""
    db = tmp_path / "drawn.db"
    spec = tmp_path / "drawn.yaml"
    spec.write_text(yaml.safe_dump({"name": "drawn", "format": "round_robin", "bots": BOTS[:2],
                                    "games_per_match": 1, "limits": LIMITS,
                                    "results": str(db)}))
    first = runner.invoke(app, ["run", str(spec), "--check"]).stdout.splitlines()[0]
    assert first.endswith("games planned; seed drawn when it starts")
    run_tournament(load_spec(spec), 1, progress=False, trial=False,
                   console=Console(file=io.StringIO()))
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.stdout.splitlines()[0].endswith(
        "games planned; seed drawn at its start, kept with the results"), result.output


def test_arena_db_names_the_database_a_run_writes(tmp_path: Path) -> None:
    """As it names the one the reading commands read; --db still comes first."""
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "spec.db", name="env", bots=BOTS[:2],
                      seed=2**62)
    result = runner.invoke(app, ["run", str(spec), "--check"],
                           env={"ARENA_DB": str(tmp_path / "env.db")})
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1] == f"Results: {tmp_path / 'env.db'}, not created yet"
    result = runner.invoke(app, ["run", str(spec), "--check", "--db", str(tmp_path / "x.db")],
                           env={"ARENA_DB": str(tmp_path / "env.db")})
    assert result.stdout.splitlines()[1] == f"Results: {tmp_path / 'x.db'}, not created yet"


def test_an_entry_that_does_not_start_is_named_before_the_games(tmp_path: Path) -> None:
    """A new tournament is refused before anything is stored (--no-trial plays it, the entry
    forfeiting); a resumed one goes on with a warning (its games so far are kept)."""
    from arena.tournament.runner import _trial_warnings

    db = tmp_path / "warn.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="warn", rounds=1, games_per_match=1,
                      format="round_robin", bots=["greedy", str(FIXTURES / "first.py"),
                                                  str(FIXTURES / "no_start.py")])
    result = runner.invoke(app, ["run", str(spec), "--no-progress"])
    assert result.exit_code == 1 and not db.exists()
    error = result.output.splitlines()[-1]
    assert error.startswith("Error: 1 of 3 entries do not start (a trial run before the "
                            "games): no_start@")
    assert error.endswith("Fix them or take them out of the spec; --no-trial plays anyway, "
                          "each of their games a forfeit")
    summary = run_tournament(load_spec(spec), 1, progress=False, trial=False,
                             console=Console(file=io.StringIO()))
    assert summary.state == "finished" and summary.games_recorded == 3
    [warning] = _trial_warnings(load_spec(spec), 2, resuming=True)
    assert warning.startswith("no_start@") and warning.endswith(
        "each of its games from here on will be a forfeit")


def test_slow_starters_are_tried_a_few_at_a_time_and_again_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight bots that take most of their start-up time each would all miss it if started
    at once on two cores: the trial starts as many at once as the run's workers, and an
    entry that missed its time is tried again alone before it counts as not starting."""
    from arena.tournament import preflight

    batches: list[int] = []
    tries: dict[str, int] = {}

    def start_together(bots: list[Any], limits: Any, launcher: Any) -> list[str | None]:
        batches.append(len(bots))
        out: list[str | None] = []
        for bot in bots:
            tries[bot.name] = tries.get(bot.name, 0) + 1
            late = len(bots) > 1 and bot.name == "b3"  # slow when crowded, fine alone
            out.append("no 'ready' within 2500 ms" if late else None)
        return out

    monkeypatch.setattr(preflight, "_start_together", start_together)
    greedy = resolve(REPO / "bots" / "greedy.py")
    bots = [dataclasses.replace(greedy, name=f"b{i}", version=f"v{i}") for i in range(8)]
    trials = preflight.trial_starts(bots, {}, parallel=3, launcher=lambda *a: None)
    assert batches == [3, 3, 2, 1] and tries["b3"] == 2
    assert [t.failure for t in trials] == [None] * 8


def test_a_field_where_fewer_than_two_entries_start_is_refused_before_storing(
        tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    broken = tmp_path / "broken.py"
    broken.write_text((FIXTURES / "no_start.py").read_text())
    spec = write_spec(tmp_path / "spec.yaml", db, name="none",
                      bots=[str(FIXTURES / "first.py"), str(FIXTURES / "no_start.py"),
                            str(broken)])
    result = runner.invoke(app, ["run", str(spec), "--no-progress"])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].startswith(
        "Error: no game can be played: 1 of 3 entries start in a trial run; no_start@")
    assert not db.exists(), "refused before anything is stored"


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
    assert run_tournament(load_spec(spec), 1, progress=False).state == "finished"
    source.write_text(source.read_text() + "\n# a new version\n")
    new = submit(source, name="mine", check=passing, update=True)
    with pytest.raises(StoreError) as info:
        run_tournament(load_spec(spec), 1, progress=False)
    assert (f"(mine@{old.version} -> mine@{new.version}; to go on with the version it started "
            f"with, enter it as mine@{old.version})") in str(info.value)
    pinned = write_spec(tmp_path / "pinned.yaml", db, name="upd",
                        bots=[f"mine@{old.version}", greedy], format="round_robin",
                        rounds=1, games_per_match=1)
    summary = run_tournament(load_spec(pinned), 1, progress=False)
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
    summary = run_tournament(load_spec(spec), 1, progress=False,
                             console=Console(file=io.StringIO()))
    assert summary.state == "finished" and summary.games_recorded == 1
