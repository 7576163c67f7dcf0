"""A Swiss whose organiser withdrew a bot and entered one late (docs/TOURNAMENTS.md,
"Changing a Swiss under way") says so on the pages a spectator reads a bot's results on, in
the words ``arena status`` and ``arena leaderboard`` put under their tables, whole on a
phone's screen as on a desktop's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING
from typer.testing import CliRunner

from arena.cli.main import app

needs_chromium = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
runner = CliRunner()
#: The leaderboard, the rounds (where the withdrawn bot's tables stop) and its games.
PAGES = ("index.html", "rounds.html", "games.html?bot=gamma%40v1")
SAID = ["Withdrawn: gamma from round 3 (its games count; not paired from that round on)",
        "Joined late: delta in round 2 (no points for the rounds before)"]


def _field_lines(browser: Any) -> list[dict[str, Any]]:
    """Each line naming the field's changes: its text, the names isolated in it, and
    whether it lies whole within the window's width."""
    return list(browser.execute_script(
        "return [...document.querySelectorAll('.field-change')].map(e => ({"
        "text: e.innerText, names: [...e.querySelectorAll('bdi')].map(b => b.textContent),"
        "inside: e.getBoundingClientRect().left >= 0"
        " && e.getBoundingClientRect().right <= document.documentElement.clientWidth}))"))


@pytest.fixture(scope="module")
def changed_cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``arena serve`` of a Swiss that withdrew gamma and entered delta late: its address."""
    db = site_db.build(tmp_path_factory.mktemp("changed") / "arena.db",
                       spec_fields={"withdrawn": {"gamma": 3}, "joined": {"delta": 2}})
    with site_db.served(db) as root:
        yield f"{root}t/cup/"


@needs_chromium
def test_the_withdrawn_and_late_bots_are_named_on_every_page_of_their_results(
        browser: Any, changed_cup: str) -> None:
    try:
        for width in (1280, 390):
            browser.set_window_size(width, 800)
            for page in PAGES:
                browser.get(f"{changed_cup}{page}")
                lines = _field_lines(browser)
                assert [line["text"] for line in lines] == SAID, (width, page)
                assert [line["names"] for line in lines] == [["gamma"], ["delta"]]
                assert all(line["inside"] for line in lines), (width, page)
    finally:
        browser.set_window_size(1280, 800)


def _note_column(browser: Any) -> dict[str, Any]:
    """The leaderboard's note column (its heading, then its cells) as a reader sees it:
    the text and the edges of each, the edges of the board's box within the window, how
    far the box scrolls and how wide the page is."""
    return dict(browser.execute_script(
        "const t = document.querySelector('#leaderboard'), box = t.parentElement;"
        "const seen = box.getBoundingClientRect();"
        "return {cells: [...t.rows].map(r => r.lastElementChild).map(c => ({text: c.innerText,"
        " left: c.getBoundingClientRect().left, right: c.getBoundingClientRect().right})),"
        " left: seen.left, right: Math.min(seen.right, document.documentElement.clientWidth),"
        " scrolls: box.scrollWidth - box.clientWidth,"
        " page: document.documentElement.scrollWidth - document.documentElement.clientWidth}"))


@needs_chromium
def test_the_leaderboards_note_is_read_whole_on_a_laptop_and_scrolled_to_on_a_phone(
        browser: Any, changed_cup: str) -> None:
    """At 1280 px the board, a note column last, fits its box: the note was cut there. At
    390 px the board scrolls within its box, not the page, to the note."""
    notes = ["note", "", "joined in round 2", "", "withdrawn from round 3"]
    try:
        browser.get(f"{changed_cup}index.html")
        laptop = _note_column(browser)
        assert [" ".join(cell["text"].split()) for cell in laptop["cells"]] == notes
        assert laptop["scrolls"] <= 1 and laptop["page"] <= 0
        assert all(cell["right"] <= laptop["right"] + 1 for cell in laptop["cells"]), laptop
        browser.set_window_size(390, 800)
        browser.get(f"{changed_cup}index.html")
        phone = _note_column(browser)
        assert phone["page"] <= 0 and phone["scrolls"] > 0
        browser.execute_script("const box = document.querySelector('#leaderboard')"
                               ".parentElement; box.scrollLeft = box.scrollWidth")
        scrolled = _note_column(browser)
        assert all(scrolled["left"] - 1 <= cell["left"] and cell["right"] <= scrolled["right"] + 1
                   for cell in scrolled["cells"]), scrolled
    finally:
        browser.set_window_size(1280, 800)


@needs_chromium
def test_a_swiss_whose_field_never_changed_says_nothing_of_it(browser: Any,
                                                              cup_served: str) -> None:
    for page in PAGES:
        browser.get(f"{cup_served}t/cup/{page}")
        assert _field_lines(browser) == [], page


@pytest.fixture(scope="module")
def joining_cup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cup after round 2, late entered to join in round 3: it has played nothing."""
    bots = [*site_db.BOTS, ("late", "v1")]
    return site_db.build(tmp_path_factory.mktemp("joining") / "arena.db", rounds=2,
                         bots=bots, state="running",
                         spec_fields={"joined": {"late": 3},
                                      "entrants": [f"{n}@{v}" for n, v in bots]})


def test_a_late_entrant_yet_to_play_shows_no_buchholz_in_status_and_leaderboard(
        joining_cup: Path) -> None:
    """Its Buchholz, virtual opponents for rounds it was never in, read as if it had played
    strong bots: status and the leaderboard showed 5.00 before its first round, as for a
    bot with no game they show none."""
    db = ["--db", str(joining_cup)]
    status = runner.invoke(app, ["status", "cup", *db])
    assert "     5  late@v1      0.00        -              0       0\n" in status.output
    rows = json.loads(runner.invoke(app, ["status", "cup", *db, "-f", "json"]).output)
    assert {row["bot"]: row["buchholz"] for row in rows["standings"]}["late@v1"] is None
    board = runner.invoke(app, ["leaderboard", "cup", *db])
    assert ("     5  late          0.00        0       0      0.00       0        -\n"
            in board.output)
    rows = json.loads(runner.invoke(app, ["leaderboard", "cup", *db, "-f", "json"]).output)
    assert {row["bot"]: row["buchholz"] for row in rows["bots"]}["late"] is None
    standings = json.loads(runner.invoke(app, ["status", "cup", *db, "-f", "json"]).output)
    ranked = json.loads(runner.invoke(app, ["leaderboard", "cup", *db, "--sort", "points",
                                            "-f", "json"]).output)
    assert [row["bot"] for row in ranked["bots"]] == [
        row["bot"].split("@")[0] for row in standings["standings"]]


@needs_chromium
def test_a_late_entrant_yet_to_play_shows_no_buchholz_on_the_site(browser: Any,
                                                                   joining_cup: Path) -> None:
    with site_db.served(joining_cup) as root:
        browser.get(f"{root}t/cup/index.html")
        cells = browser.execute_script(
            "const t = document.querySelector('#leaderboard');"
            "const i = [...t.tHead.rows[0].cells].findIndex(c => c.innerText === 'buchholz');"
            "return Object.fromEntries([...t.tBodies[0].rows].map(r => ["
            "r.querySelector('.name bdi').textContent, r.cells[i].innerText.trim()]));")
    assert cells["late"] == ""
    assert cells["gamma"] != ""
