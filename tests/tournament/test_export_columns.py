"""``arena export`` writes each stored game's every column as the store holds it: the line
another tool reads (docs/RECORDS.md, "Exported games")."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli.main import app
from arena.tournament.game_records import compress_record
from arena.tournament.store import Store

runner = CliRunner()

#: A game whose every field differs from the others and from a default: a swapped or dropped
#: column shows.
RECORD: dict[str, Any] = {"seed": 77, "result": {"placements": [1, 2], "desmos": ["Run", "Pair"],
                                                 "ascension": True, "tiebreak": "desmos"}}
ROW: dict[str, Any] = {
    "id": "cup/r2/t1/g3", "round": 2, "table_index": 1, "game_index": 3, "seed": 77,
    "seats": [2, 1], "starting_seat": 1, "placements": [1, 2], "desmos": ["Run", "Pair"],
    "ascension": True, "tiebreak": "desmos",
    "failures": [{"seat": 1, "bot": "zoé@v2", "type": "timeout", "detail": "slow"}],
    "forfeits": {}, "decisions": 17, "duration_s": 0.25, "latency": [{}, {}]}


def _cup(store: Store, games: int, first: str = "zoé@v2") -> int:
    """A round robin 'cup' of ``first`` and b@v1 planning ``games``: its id."""
    name, version = first.split("@")
    return store.create_tournament(
        name="cup", spec_hash="abc", spec_json={}, format="round_robin", players_per_game=2,
        seed=1, event_date=dt.date(2026, 11, 29), rounds=2, games_planned=games,
        spec_path=None, bots=[(name, version, "bots/one.py", {}), ("b", "v1", "bots/b.py", {})]
    ).id


def _stored(db: Path) -> None:
    with Store(db) as store:
        store.record_game(_cup(store, 1), ROW, compress_record(RECORD))


def test_an_exported_line_holds_every_column_of_its_game(tmp_path: Path) -> None:
    db, out = tmp_path / "arena.db", tmp_path / "games.jsonl"
    _stored(db)
    result = runner.invoke(app, ["export", "cup", "-o", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert result.stderr == f"Wrote 1 game of cup to {out}\n"
    [line] = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(line) == {
        "schema_version": 1, "tournament": "cup", "game_id": "cup/r2/t1/g3", "round": 2,
        "table": 1, "game": 3, "seed": 77, "seats": ["b@v1", "zoé@v2"], "starting_seat": 1,
        "placements": [1, 2], "desmos": ["Run", "Pair"], "ascension": True,
        "tiebreak": "desmos", "forfeits": {}, "points": [1.0, 0.0],
        "failures": ROW["failures"], "decisions": 17, "duration_s": 0.25, "record": RECORD}
    # UTF-8 as it is, not \u escapes: a reader greps the file for a bot's name
    assert '"seats":["b@v1","zoé@v2"]' in line


def test_an_export_whose_every_record_is_damaged_is_refused_and_writes_nothing(
        tmp_path: Path) -> None:
    db, out = tmp_path / "arena.db", tmp_path / "games.jsonl"
    _stored(db)
    with Store(db) as store:
        store.conn.execute("UPDATE records SET record = ?", (b"not a compressed record",))
    damaged = ("Error: game cup/r2/t1/g3: its stored record is damaged (Error -3 while "
               "decompressing data: incorrect header check)\n")
    result = runner.invoke(app, ["export", "cup", "-o", str(out), "--db", str(db)])
    assert (result.exit_code, result.stderr) == (1, damaged)
    assert not out.exists()
    result = runner.invoke(app, ["status", "cup", "--records", str(out), "--db", str(db)])
    assert (result.exit_code, result.stderr) == (1, damaged)
    assert not out.exists()


def test_export_and_status_records_keep_play_order_past_game_9(tmp_path: Path) -> None:
    """g10 sorts before g2 as text: the files go by round, table and game, as played."""
    db, out, records = tmp_path / "arena.db", tmp_path / "games.jsonl", tmp_path / "r.jsonl"
    with Store(db) as store:
        cup = _cup(store, 12, "a@v1")
        for index in range(12):
            store.record_game(cup, {**ROW, "id": f"cup/r1/t0/g{index}", "round": 1,
                                       "table_index": 0, "game_index": index, "seats": [1, 2]},
                              compress_record({"game": index}))
    assert runner.invoke(app, ["export", "cup", "-o", str(out), "--db", str(db)]).exit_code == 0
    assert [json.loads(line)["game"] for line in out.read_text().splitlines()] == list(range(12))
    result = runner.invoke(app, ["status", "cup", "--records", str(records), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in records.read_text().splitlines()] == [
        {"game": index} for index in range(12)]
