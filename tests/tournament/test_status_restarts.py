"""``arena status`` and ``arena run``'s failure line say how many crashes forfeited nothing
(the bot was restarted), so a crash count above the forfeits does not read as a contradiction."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli.main import app
from arena.tournament.game_records import compress_record
from arena.tournament.status import failure_summary
from arena.tournament.store import Store


def _crash(detail: str, seat: int = 0) -> dict[str, Any]:
    return {"type": "crash", "detail": detail, "seat": seat, "bot": "a@v1", "game": 0,
            "decision": None, "round": None, "kind": None}


def _stored(db: Path) -> None:
    """Two games of bot a: in the first, a crash before its first answer (restarted and asked
    again) and one that forfeited; in the second, a crash between games and a timeout."""
    games = [
        ([_crash("exited before its first answer of the game (exit code 1); restarted and "
                 "asked again"), _crash("exited with exit code 1")], {"0": "crash"}),
        ([_crash("exited between games (exit code 1)"),
          {**_crash("no answer within 1000 ms"), "type": "timeout"}], {}),
    ]
    with Store(db) as store:
        row = store.create_tournament(
            name="t", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=2, spec_path=None,
            bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {})])
        for index, (failures, forfeits) in enumerate(games):
            store.record_game(row.id, {
                "id": f"t/r1/t0/g{index}", "round": 1, "table_index": 0, "game_index": index,
                "seed": 5, "seats": [1, 2], "starting_seat": 0, "placements": [2, 1],
                "desmos": ["Pair", "Pair"], "ascension": False, "tiebreak": "",
                "failures": failures, "forfeits": forfeits, "decisions": 31,
                "duration_s": 0.01, "latency": [{}, {}]}, compress_record({}))


def test_restarted_crashes_are_counted_apart(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    assert failure_summary(db, "t") == (
        f"Bot failures in 2 of 2 games (1 forfeit): crash 3 (2 restarted), timeout 1; "
        f"arena status t --db {db} says why")
    status = CliRunner().invoke(app, ["status", "t", "--db", str(db)])
    assert status.exit_code == 0, status.output
    assert "failures: crash 3 (2 restarted), timeout 1" in status.stdout.splitlines()
