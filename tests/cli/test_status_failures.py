"""``arena status NAME --failures``: every distinct reason a bot failed, with how often and the
first game and seat of each, where ``arena status NAME`` tells one detail per bot and type."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli.main import app
from arena.referee.failures import after_game
from arena.tournament.game_records import compress_record
from arena.tournament.store import Store

runner = CliRunner()


def _failure(kind: str, detail: str, bot: str = "a@v1", seat: int = 0) -> dict[str, Any]:
    return {"type": kind, "detail": detail, "seat": seat, "bot": bot, "game": 0,
            "decision": None, "round": None, "kind": None}


def _stored(db: Path) -> None:
    """Three games: bot a times out two ways and dies after every game's end (each detail
    naming its game); bot b sends bad JSON once."""
    late = "no answer within 1000 ms"
    silent = "no answer within 1000 ms; 40 bytes arrived without a newline"
    games = [
        [_failure("timeout", late), _failure("crash", "exited between games (exit code 1)"
                                             + after_game(0))],
        [_failure("timeout", silent), _failure("timeout", late),
         _failure("protocol_error", "bad JSON: 'x'", bot="b@v1", seat=1)],
        [_failure("crash", "exited between games (exit code 1)" + after_game(2)),
         _failure("timeout", late)],
    ]
    with Store(db) as store:
        row = store.create_tournament(
            name="t", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=3, spec_path=None,
            bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {}),
                  ("c", "v1", "bots/c.py", {})])
        for index, failures in enumerate(games):
            store.record_game(row.id, {
                "id": f"t/r1/t0/g{index}", "round": 1, "table_index": 0, "game_index": index,
                "seed": 5, "seats": [1, 2], "starting_seat": 0, "placements": [2, 1],
                "desmos": ["Pair", "Pair"], "ascension": False, "tiebreak": "",
                "failures": failures, "forfeits": {}, "decisions": 31, "duration_s": 0.01,
                "latency": [{}, {}]}, compress_record({}))


def _status(db: Path, *args: str) -> Any:
    return runner.invoke(app, ["status", "t", *args, "--db", str(db)])


def test_failures_lists_every_distinct_reason(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    result = _status(db, "--failures")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "failures in t: crash 2 (2 restarted), protocol_error 1, timeout 4",
        "a timeout 3 times (first t/r1/t0/g0, seat 0): no answer within 1000 ms",
        "a timeout once (first t/r1/t0/g1, seat 0): no answer within 1000 ms; 40 bytes arrived "
        "without a newline",
        "a crash 2 times (first t/r1/t0/g0, seat 0): exited between games (exit code 1), after "
        "game 0 of the match ended",
        "b protocol_error once (first t/r1/t0/g1, seat 1): bad JSON: 'x'",
        f"open one: arena game t/r1/t0/g0 --seat 0 --db {db}",
    ]


def test_failures_of_one_bot(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    result = _status(db, "--failures", "--bot", "b@v1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "failures of b@v1 in t: protocol_error 1",
        "b protocol_error once (first t/r1/t0/g1, seat 1): bad JSON: 'x'",
        f"open one: arena game t/r1/t0/g1 --seat 1 --db {db}",
    ]
    assert _status(db, "--failures", "--bot", "c").stdout == "no bot failures of c in t\n"
    unknown = _status(db, "--failures", "--bot", "zed")
    assert unknown.exit_code == 1
    assert unknown.output == "Error: no bot named 'zed' in tournament 't' (its bots: a, b, c)\n"
    alone = _status(db, "--bot", "a")
    assert alone.exit_code == 2
    assert "--bot goes with --failures" in alone.output


def test_status_points_to_the_reasons_it_leaves_out(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    result = _status(db)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "  a timeout, 4 times (games r1/t0/g0, r1/t0/g1, r1/t0/g2): no answer within 1000 ms "\
        "(and 1 other detail)" in lines
    assert f"  every reason, with how often: arena status t --failures --db {db}" in lines


def test_failures_name_the_bots_files_as_their_author_knows_them(tmp_path: Path) -> None:
    """Paths into the bot's sandboxed copy (``/bot/`` under bubblewrap, the box's temporary
    directory on the host without it) are told relative to the bot's directory in the status
    text, its ``--failures`` and its json alike; nothing is looked up on the host."""
    db = tmp_path / "arena.db"
    detail = ("exited mid-game (exit code 1); FileNotFoundError: [Errno 2] No such file or "
              "directory: '/bot/rival/book.json' (at /tmp/arena-box-77-ab/bot/helper.py)")
    told = ("exited mid-game (exit code 1); FileNotFoundError: [Errno 2] No such file or "
            "directory: 'rival/book.json' (at helper.py)")
    with Store(db) as store:
        row = store.create_tournament(
            name="t", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None,
            bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {})])
        store.record_game(row.id, {
            "id": "t/r1/t0/g0", "round": 1, "table_index": 0, "game_index": 0, "seed": 5,
            "seats": [1, 2], "starting_seat": 0, "placements": [2, 1],
            "desmos": ["Pair", "Pair"], "ascension": False, "tiebreak": "",
            "failures": [_failure("crash", detail)], "forfeits": {"0": "crash"},
            "decisions": 3, "duration_s": 0.01, "latency": [{}, {}]}, compress_record({}))
    assert f"  a crash (game r1/t0/g0): {told}" in _status(db).stdout.splitlines()
    assert f"a crash once (first t/r1/t0/g0, seat 0): {told}" in _status(
        db, "--failures").stdout.splitlines()
    reasons = json.loads(_status(db, "--failures", "--format", "json").stdout)
    assert [r["detail"] for r in reasons["failure_reasons"]] == [told]
    detailed = json.loads(_status(db, "--format", "json").stdout)
    assert [r["detail"] for r in detailed["failure_reasons"]] == [told]
    results = runner.invoke(app, ["results", "t", "--db", str(db), "--format", "json"])
    assert [f["detail"] for f in json.loads(results.stdout)["games"][0]["failures"]] == [told]
    rows = runner.invoke(app, ["results", "t", "--db", str(db), "--format", "csv"]).stdout
    assert "rival/book.json" in rows and "/bot/" not in rows and "arena-box" not in rows
