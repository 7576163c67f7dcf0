"""A Swiss where two bots never start (RULES.md E28): through ``arena run``, their games
against each other score nothing, their mean place is last, they win nothing, and those games
are not rated."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from arena.cli.main import app
from arena.sandbox import probe

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")

#: a misspelt option: the sample bot refuses it as it starts, every game
NEVER_STARTS = {"iteration": 6}


@needs_sandbox
def test_two_bots_that_never_start_score_nothing(tmp_path: Path) -> None:
    db = tmp_path / "class.db"
    spec = tmp_path / "class.yaml"
    spec.write_text(yaml.safe_dump({
        "name": "class", "format": "swiss", "players_per_game": 2, "rounds": 2,
        "games_per_match": 2, "seed": 5, "event_date": "2026-11-29", "results": str(db),
        "bots": ["greedy", "collector",
                 {"bot": "ismcts", "name": "syntax", "options": NEVER_STARTS},
                 {"bot": "ismcts", "name": "missing", "options": NEVER_STARTS}]}))
    run = runner.invoke(app, ["run", str(spec), "--no-trial", "--no-progress"])
    assert run.exit_code == 0, run.output
    # round 1 pairs the two that never start: both forfeit both games, 0 - 0
    pairings = runner.invoke(app, ["pairings", "class", "--round", "1", "--db", str(db)])
    assert "syntax (0)               missing (0)              0 - 0     2/2" in pairings.stdout
    board = runner.invoke(app, ["leaderboard", "class", "--db", str(db), "--sort", "points",
                                "--columns", "rank,bot,games,wins,win %,mean place,points,"
                                "buchholz"])
    assert board.exit_code == 0, board.output
    assert board.stdout.splitlines()[:7] == [
        "Leaderboard: class (swiss, finished), 8 games, 6 of them rated (the other 2: every "
        "seat forfeited, or one bot held every seat); sorted by points, "
        "then Buchholz",
        "  rank  bot                      games    wins    win %    mean place    points    "
        "buchholz",
        "------  ---------------------  -------  ------  -------  ------------  --------  "
        "----------",
        "     1  greedy                       4       3     75.0          1.25      3.00        "
        "3.00",
        "     2  collector                    4       3     75.0          1.25      3.00        "
        "3.00",
        "     3  syntax (iteration=6)         4       0      0.0          2.00      0.00        "
        "3.00",
        "     4  missing (iteration=6)        4       0      0.0          2.00      0.00        "
        "3.00",
    ]
    h2h = runner.invoke(app, ["h2h", "class", "--db", str(db), "-f", "json"])
    met = {(pair["a"], pair["b"]) for pair in yaml.safe_load(h2h.stdout)["pairs"]}
    assert not any(a.startswith("syntax@") and b.startswith("missing@") for a, b in met)
