"""``arena export`` carries each seat's points as the standings count them beside the engine's
placements, which give every seat of a game all of them forfeited a shared first place."""

from __future__ import annotations

import json
from pathlib import Path

from tournament_fixtures import two_bots_games
from typer.testing import CliRunner

from arena.cli.main import app
from arena.tournament.export import EXPORT_SCHEMA_VERSION

runner = CliRunner()


def _stored(db: Path) -> None:
    """Three games of a and b: played out, one forfeited by a, and one neither started."""
    games = [([2, 1], {}), ([2, 1], {"0": "crash"}),
             ([1, 1], {"0": "startup_failure", "1": "startup_failure"})]
    two_bots_games(db, [(placements, [], forfeits) for placements, forfeits in games])


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
