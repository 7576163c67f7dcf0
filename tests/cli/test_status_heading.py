"""``arena status NAME``'s heading: the tournament's format and every table size it mixes, its
seed (said drawn where the spec gave none, shown once it finished) and when it was created and
finished."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.tournament.store import Store


def test_a_finished_tournaments_heading(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with Store(db) as store:
        row = store.create_tournament(
            name="contest", spec_hash="abc", spec_json={"seed": None, "players_per_game": [2, 3]},
            format="round_robin", players_per_game=2, seed=123456789,
            event_date=dt.date(2026, 11, 29), rounds=1, games_planned=0, spec_path=None,
            bots=[("a", "v1", "bots/a.py", {}), ("b", "v1", "bots/b.py", {})])
        store.set_state(row.id, "finished")
    result = CliRunner().invoke(app, ["status", "contest", "--db", str(db)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == ("tournament contest: round_robin, 2, 3 per table, 2 bots, seed 123456789 "
                        "(drawn: the spec gives none), spec hash abc")
    assert re.fullmatch(r"created \S+; finished \S+", lines[2]), lines[2]
