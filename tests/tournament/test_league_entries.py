"""Who a league's entries are: the spec's shell-style patterns (``?`` and ``[...]`` as well as
``*``) over the registered names, a bot retired before the league's first table said so, and
a retirement refused naming the bot's newest version."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from tournament_fixtures import bots_dir_for, runner

from arena.cli.main import app
from arena.tournament.league_spec import expand_patterns
from arena.tournament.league_store import ENTRIES
from arena.tournament.store import Store


def test_every_shell_pattern_of_a_leagues_bots_matches_the_registered_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bots_dir_for(tmp_path, monkeypatch, "first", "last", "hashed")
    assert expand_patterns(["f?rst", "[hl]*", "greedy"]) == ["first", "hashed", "last",
                                                             "greedy"]


def _league_before_its_first_table(db: Path) -> int:
    """A league 'ladder' of a, b and c, entered by its first run, which stopped before it
    chose a table; its id."""
    with Store(db) as store:
        row = store.create_tournament(
            name="ladder", spec_hash="abc", spec_json={}, format="league",
            players_per_game=2, seed=1, event_date=dt.date(2026, 12, 6), rounds=0,
            games_planned=0, spec_path=None,
            bots=[(bot, "v1", f"bots/{bot}.py", {}) for bot in "abc"])
        with store.transaction() as conn:
            conn.execute(ENTRIES)
            for seq, (bot_id,) in enumerate(conn.execute(
                    "SELECT bot_id FROM tournament_bots WHERE tournament_id = ? "
                    "ORDER BY entry_index", (row.id,)).fetchall()):
                conn.execute("INSERT INTO league_entries VALUES (?, ?, ?, ?, 'active', '', 1)",
                             (row.id, seq, f"{'abc'[seq]}@v1", bot_id))
    return row.id


def test_a_bot_retired_before_the_first_table_is_said_so(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    _league_before_its_first_table(db)
    retired = runner.invoke(app, ["league", "retire", "ladder", "a", "--db", str(db)])
    assert retired.exit_code == 0, retired.output
    assert retired.stdout == ("a@v1 retires from league 'ladder': by the organiser before the "
                              "first table; the league plays on without it when run again\n")
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert "a@v1: entered at table 1, retired: by the organiser before the first table" in status


def test_retiring_a_bot_none_of_whose_versions_plays_names_its_newest(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    league_id = _league_before_its_first_table(db)
    with Store(db) as store, store.transaction() as conn:  # a@v1 retired, a@v2 then refused
        conn.execute("UPDATE league_entries SET state = 'retired', reason = 'by the organiser' "
                     "WHERE bot_key = 'a@v1'")
        conn.execute("INSERT INTO league_entries VALUES (?, 3, 'a@v2', NULL, 'refused', "
                     "'does not start', 2)", (league_id,))
    refused = runner.invoke(app, ["league", "retire", "ladder", "a", "--db", str(db)])
    assert refused.exit_code == 1
    assert refused.stderr == ("Error: a@v2 is not playing in league 'ladder' (it is refused; "
                              "arena status ladder lists the entries)\n")
