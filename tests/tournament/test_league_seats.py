"""A league without duplicate seats each table from its bots' seat history, as a Swiss does."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import bots_dir_for, write_spec

from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _league(tmp_path: Path, db: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {"name": "ladder", "format": "league", "bots": ["*"],
                            "games_per_match": 1, "duplicate": False, "seed": 5,
                            "budget": {"games": 24}}
    data.update(fields)
    path = write_spec(tmp_path / f"{db.stem}.yaml", db, **data)
    path.write_text(path.read_text().replace("rounds: 3\n", ""))
    return path


def _seatings(db: Path) -> list[list[int]]:
    conn = sqlite3.connect(str(db))
    try:
        return [json.loads(r[0]) for r in conn.execute(
            "SELECT seats_json FROM tables ORDER BY round, table_index")]
    finally:
        conn.close()


def test_each_pair_of_a_league_without_duplicate_sits_both_ways_within_one(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db)), 1, vetter=lambda bot, scope: None)
    seatings = [tuple(seats) for seats in _seatings(db)]
    assert len(seatings) == 24
    orders = Counter(seatings)
    pairs = {tuple(sorted(seats)) for seats in seatings}
    assert len(pairs) == 3  # every pair met, and more than once
    for a, b in pairs:
        assert orders[(a, b)] + orders[(b, a)] > 2
        assert abs(orders[(a, b)] - orders[(b, a)]) <= 1, orders
