"""``arena run --check`` of a stored league starts what its run would start: the active
versions, not those the league refused or retired (whose failure to start would say the run
cannot go ahead when it can), and names those it leaves out, with why."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tournament_fixtures import FIXTURES, PassedCheck, bots_dir_for, league_spec, runner

from arena.cli.main import app
from arena.registry import submit
from arena.tournament.events import Progress
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")


def _league(tmp_path: Path, db: Path, **fields: Any) -> Path:
    return league_spec(tmp_path, db, 6, **fields)


def test_the_check_of_a_stored_league_starts_its_active_versions_only(
        tmp_path: Path, registry: Path) -> None:
    db = tmp_path / "a.db"
    broken: list[str] = []

    def submit_broken(event: object) -> None:
        if isinstance(event, Progress) and event.done >= 2 and not broken:
            broken.append(submit(FIXTURES / "no_start.py", "broken", registry,
                                 check=lambda spec: PassedCheck()).version)

    run_tournament(load_spec(_league(tmp_path, db)), 1, report=submit_broken,
                   vetter=lambda bot, scope: "failed the compliance check: no start"
                   if bot.name == "broken" else None)
    conn = sqlite3.connect(str(db))
    with conn:  # stopped, as arena league stop leaves it
        conn.execute("UPDATE tournaments SET state = 'stopped'")
    conn.close()
    retired = runner.invoke(app, ["league", "retire", "ladder", "hashed", "--db", str(db)])
    assert retired.exit_code == 0, retired.output
    newer = tmp_path / "last.py"
    newer.write_text((FIXTURES / "last.py").read_text() + "\n# v2\n")
    fresh = submit(newer, "last", registry, check=lambda spec: PassedCheck(), update=True)
    checked = runner.invoke(app, ["run", str(_league(tmp_path, db)), "--check"],
                            terminal_width=400)
    assert checked.exit_code == 0, checked.output
    lines = checked.stdout.splitlines()
    assert not any("FAIL" in line for line in lines), checked.stdout
    assert (f"  --    broken@{broken[0]}: not started: refused by the league at table 2 "
            "(failed the compliance check: no start)") in lines
    assert any(line.startswith("  --    hashed@") and line.endswith(
        ": not started: retired from the league (by the organiser after table 3)")
        for line in lines), checked.stdout
    assert (f"  new   last@{fresh.version}: vetted from the league's next poll on, entered at "
            "the first poll after its vet (the compliance check, then a trial start)") in lines
    assert lines[-1] == "The 1 active entry starts (3 others above not started): ready to run."


def test_the_check_of_a_finished_league_with_a_raised_budget_says_it_goes_on(
        tmp_path: Path, registry: Path) -> None:
    """The budget is outside a league's hash: raised, the run goes on from where the league
    finished, which the check must not call nothing left to play."""
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db)), 1, vetter=lambda bot, scope: None)
    same = runner.invoke(app, ["run", str(_league(tmp_path, db)), "--check"],
                         terminal_width=400)
    assert same.exit_code == 0, same.output
    assert "arena run has nothing left to play" in same.stdout.splitlines()[-1]
    raised = runner.invoke(app, ["run", str(_league(tmp_path, db, budget={"games": 10})),
                                 "--check"], terminal_width=400)
    assert raised.exit_code == 0, raised.output
    lines = raised.stdout.splitlines()
    assert (f"Results: {db}, holds 'ladder': 6 games (budget 6 spent), finished; its budget "
            "raised to 10 games, a run goes on") in lines
    assert lines[-1].endswith(": ready to run."), raised.stdout
    unbounded = runner.invoke(app, ["run", str(_league(tmp_path, db, budget=None)), "--check"],
                              terminal_width=400)
    assert (f"Results: {db}, holds 'ladder': 6 games (budget 6 spent), finished; without a "
            "budget now, a run goes on") in unbounded.stdout.splitlines()


def test_a_run_of_a_league_whose_budget_is_spent_says_how_to_go_on(
        tmp_path: Path, registry: Path) -> None:
    """Run again after an update of a bot, a spent league plays nothing: the run says why
    and what plays on, where the numbers alone (0 this run) left a newcomer guessing."""
    db = tmp_path / "a.db"
    spec = _league(tmp_path, db)
    run_tournament(load_spec(spec), 1, vetter=lambda bot, scope: None)
    again = runner.invoke(app, ["run", str(spec), "--no-progress", "--no-trial"],
                          terminal_width=400)
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines()[-1] == (
        f"Nothing played: the league's budget of 6 games is spent. Raise 'budget' in {spec} "
        "and run it again to go on (new versions of its bots enter then; docs/LEAGUE.md).")


@pytest.mark.parametrize("width", [60, 120])
def test_pairings_help_says_a_league_has_none(width: int) -> None:
    """The refusal and the docs said so; the help, where a user looks first, did not."""
    shown = runner.invoke(app, ["pairings", "--help"], terminal_width=width)
    assert shown.exit_code == 0, shown.output
    words = " ".join(shown.stdout.replace("│", " ").split())
    assert ("Not for a league, which has no rounds: it chooses one table at a time (arena "
            "report NAME -o DIR lists its tables, arena status NAME its entries, arena game "
            "NAME/r1/t0/g0 its first game).") in words


def test_pairings_of_a_league_say_it_has_no_rounds(tmp_path: Path, registry: Path) -> None:
    """A league stores each table as a round of its own: shown as Swiss rounds, its first
    table alone came out as 'round 1 of 1', the rest of its games unseen."""
    db = tmp_path / "a.db"
    run_tournament(load_spec(_league(tmp_path, db)), 1, vetter=lambda bot, scope: None)
    for args in ([], ["--round", "1"], ["--format", "json"]):
        shown = runner.invoke(app, ["pairings", "ladder", "--db", str(db), *args])
        assert shown.exit_code == 1, shown.output
        assert shown.output == (
            "Error: 'ladder' is a league: it has no rounds, it chooses one table at a time "
            "(arena report ladder -o DIR lists its tables; arena status ladder its entries; "
            "arena game ladder/r1/t0/g0 its first game)\n")


def test_the_check_in_json_plans_a_league_no_games_and_names_its_budget(
        tmp_path: Path, registry: Path) -> None:
    """As ``arena status --format json``: a league's budget is where a run stops, not the
    games it plans, so a script reads it apart and computes no share of it."""
    spec = _league(tmp_path, tmp_path / "a.db", budget={"games": 10})
    checked = runner.invoke(app, ["run", str(spec), "--check", "--no-trial", "-f", "json"])
    assert checked.exit_code == 0, checked.output
    data = json.loads(checked.stdout)
    assert (data["games_planned"], data["budget_games"]) == (None, 10)
