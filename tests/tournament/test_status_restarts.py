"""``arena status`` and ``arena run``'s failure line say how many crashes forfeited nothing
(the bot was restarted), so a crash count above the forfeits does not read as a contradiction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tournament_fixtures import two_bots_games
from typer.testing import CliRunner

from arena.cli.main import app
from arena.tournament.status import failure_summary


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
    two_bots_games(db, [([2, 1], failures, forfeits) for failures, forfeits in games])


def test_restarted_crashes_are_counted_apart(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _stored(db)
    assert failure_summary(db, "t") == (
        f"Bot failures in 2 of 2 games (1 forfeit): crash 3 (2 restarted), timeout 1; "
        f"arena status t --db {db} says why")
    status = CliRunner().invoke(app, ["status", "t", "--db", str(db)])
    assert status.exit_code == 0, status.output
    assert "failures: crash 3 (2 restarted), timeout 1" in status.stdout.splitlines()
