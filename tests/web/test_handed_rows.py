"""A results database handed over (a class contest's shared ``.db``, one edited by hand or
half restored) whose rows hold values of another type than the arena writes: the site, the
report and the reading commands say which row in one line, never a traceback (nor a 500
from ``arena serve``)."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import StoreError
from arena.web.data import load_tournament
from arena.web.site import PAGES, render_page


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return site_db.build(tmp_path_factory.mktemp("handed") / "cup.db")


#: (table, column, value as SQL, what the one line names)
DAMAGE = [
    ("games", "round", "'x'", "round"), ("games", "table_index", "'[1]'", "table"),
    ("games", "game_index", "'x'", "game index"), ("games", "seed", "'x'", "seed"),
    ("games", "desmos_json", "'[1'", "desmos_json"), ("games", "desmos_json", "7", "desmos_json"),
    ("games", "failures_json", "'null'", "failures_json"),
    ("games", "failures_json", "X'FF'", "failures_json"),
    ("games", "decisions", "'x'", "decisions"),
    ("games", "forfeits_json", "'{\"x\": \"crash\"}'", "forfeits_json"),
    ("tables", "round", "'x'", "round"), ("tables", "round", "NULL", "round"),
    ("tables", "seats_json", "'[1'", "seats"), ("tables", "seats_json", "NULL", "seats"),
    ("tables", "seats_json", "'[null]'", "seats"), ("tables", "seats_json", "'7'", "seats"),
    ("tournaments", "games_planned", "'x'", "games_planned"),
]


@pytest.mark.parametrize(("table", "column", "value", "named"), DAMAGE,
                         ids=[f"{t}.{c}={v}" for t, c, v, _ in DAMAGE])
def test_a_row_of_another_type_is_one_line(cup: Path, tmp_path: Path, table: str,
                                           column: str, value: str, named: str) -> None:
    db = tmp_path / "cup.db"
    shutil.copy(cup, db)
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE {table} SET {column} = {value} "  # noqa: S608 (the test's own)
                     f"WHERE rowid = (SELECT min(rowid) FROM {table})")
    with pytest.raises(StoreError, match=named):
        data = load_tournament(db, site_db.NAME)
        for page, _ in PAGES:
            render_page(data, page)
    result = CliRunner().invoke(app, ["report", site_db.NAME, "--db", str(db),
                                      "-o", str(tmp_path / "site")])
    assert result.exit_code == 1 and result.exception is None or \
        isinstance(result.exception, SystemExit), result.exception
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert named in result.stderr


@pytest.mark.parametrize("failure", ['{"type": "crash", "detail": "gone"}',
                                     '{"type": "crash", "detail": "gone", "seat": 7}',
                                     '{"type": "crash", "detail": "gone", "seat": true}'])
def test_a_failure_of_no_seat_of_the_game_is_listed_as_nobodys(cup: Path, tmp_path: Path,
                                                               failure: str) -> None:
    """A failure naming no bot and no seat of its game (a records file made elsewhere, a
    hand edit) is listed under "?", as ``arena status`` lists it: the games page was a
    traceback."""
    db = tmp_path / "cup.db"
    shutil.copy(cup, db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET failures_json = ? WHERE id = ?",
                     (f"[{failure}]", f"{site_db.NAME}/r1/t0/g0"))
    page = render_page(load_tournament(db, site_db.NAME), "games.html")
    assert '<a href="games/r1-t0-g0.html">cup/r1/t0/g0</a>: <bdi>?</bdi> (seat ?) ' \
           "<b>crash</b>: gone</li>" in page


def test_a_tournament_name_of_controls_is_shown_escaped(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A handed database's tournament name never passed the rule of names: a right-to-left
    override in it (with no pop) reversed the rest of every line that showed it, a failure's
    game id and everything after it. Shown escaped, as every reading command prints it."""
    from arena.web.data import read_records
    from arena.web.site import environment, game_page

    name = "cup\u202e\x1b"
    monkeypatch.setattr(site_db, "NAME", name)
    monkeypatch.setattr(site_db, "FAILING_GAME", f"{name}/r1/t0/g1")
    db = site_db.build(tmp_path / "cup.db")
    data = load_tournament(db, name)
    pages = [render_page(data, page) for page, _ in PAGES]
    pages += [game_page(record, game) for game, record in read_records(db, name)][:2]
    pages.append(environment().get_template("home.html").render(
        names=[(name, "x", {"state": "finished", "games": 9})], db=""))
    for page in pages:  # (a replay's data keeps the id as stored: its script shows none)
        shown = re.sub(r'<script type="application/json".*?</script>', "", page, flags=re.S)
        assert "\u202e" not in shown and "\x1b" not in shown
    assert "cup\\u202e\\x1b/r1/t0/g1</a>: " in pages[3]


@pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
def test_a_bots_name_of_controls_is_shown_escaped(browser: Any, tmp_path: Path) -> None:
    """A handed database's bot names never passed the rule of names either: an override in
    one drew it as another name ("\\u202eevil" as "live") in the tables and the replay's seats,
    while the chart and the narration showed it escaped. Every page's text now shows it so."""
    from selenium.webdriver.support.ui import WebDriverWait

    from arena.web.site import write_site

    bots = [("\u202eevil\x1b", "v1"), ("beta", "v1"), ("gamma", "v1"), ("delta", "v1")]
    site_db.build(tmp_path / "cup.db", bots=bots)
    write_site(tmp_path / "cup.db", site_db.NAME, tmp_path / "site", jobs=1)
    for page in ("index.html", "h2h.html", "rounds.html", "games.html", "games/r1-t0-g0.html"):
        browser.get("about:blank")
        browser.get((tmp_path / "site" / page).as_uri())
        if page.startswith("games"):  # the list and the replay are drawn by their scripts
            WebDriverWait(browser, 30).until(lambda b: "beta" in b.find_element(
                "tag name", "main").text and "\\u202eevil\\x1b" in b.find_element(
                "tag name", "main").text)
        text = browser.execute_script("return document.body.innerText")
        assert "\u202e" not in text and "\x1b" not in text, page
        assert "\\u202eevil\\x1b" in text, page
