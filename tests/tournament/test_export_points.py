"""``arena export`` carries each seat's points as the standings count them beside the engine's
placements, which give every seat of a game all of them forfeited a shared first place."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.tournament.export import EXPORT_SCHEMA_VERSION
from arena.tournament.game_records import compress_record
from arena.tournament.store import Store

runner = CliRunner()


def _stored(db: Path) -> None:
    """Three games of a and b: played out, one forfeited by a, and one neither started."""
    games = [([2, 1], {}), ([2, 1], {"0": "crash"}),
             ([1, 1], {"0": "startup_failure", "1": "startup_failure"})]
    with Store(db) as store:
        row = store.create_tournament(
            name="t", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=3, spec_path=None,
            bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {})])
        for index, (placements, forfeits) in enumerate(games):
            store.record_game(row.id, {
                "id": f"t/r1/t0/g{index}", "round": 1, "table_index": 0, "game_index": index,
                "seed": 5, "seats": [1, 2], "starting_seat": 0, "placements": placements,
                "desmos": ["Pair", "Pair"], "ascension": False, "tiebreak": "",
                "failures": [], "forfeits": forfeits, "decisions": 31, "duration_s": 0.01,
                "latency": [{}, {}]}, compress_record({}))


def test_an_export_scores_a_forfeit_nothing_as_the_results_do(tmp_path: Path) -> None:
    db, out = tmp_path / "arena.db", tmp_path / "games.jsonl"
    _stored(db)
    result = runner.invoke(app, ["export", "t", "-o", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(g["placements"], g["points"]) for g in lines] == [
        ([2, 1], [0.0, 1.0]), ([2, 1], [0.0, 1.0]), ([1, 1], [0.0, 0.0])]
    assert {g["schema_version"] for g in lines} == {EXPORT_SCHEMA_VERSION} == {1}  # additive
    results = runner.invoke(app, ["results", "t", "--db", str(db)])
    assert [g["points"] for g in json.loads(results.stdout)["games"]] == \
        [g["points"] for g in lines]
