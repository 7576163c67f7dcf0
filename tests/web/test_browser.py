"""The site in a real browser (Debian's Chromium, driven by Selenium through chromedriver):
from file:// and from arena serve, the leaderboard's rows are the JSON leaderboard's, no page
logs an error, and a replay steps from the first decision to the showdown showing the
replayed table at every step; one seat's view shows only what that seat was shown; a league
served live shows its newest versions and every version on request, as the JSON leaderboard.

Screenshots of the leaderboard, a replay mid-game, head-to-head and a league go to
results/screenshots/web/ (or $ARENA_SCREENSHOTS) for people to look at.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING, contrast

from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.narration import event_lines
from arena.engine.state import State
from arena.rating.board_view import leaderboard_json
from arena.rating.leaderboard import build_leaderboard
from arena.tournament.game_records import game_record
from arena.tournament.store import Store
from arena.web.data import game_slug
from arena.web.server import make_server

pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", REPO / "results" / "screenshots" / "web"))
REPLAYED = "cup/r2/t0/g0"  # the three-player table


@pytest.fixture(scope="module")
def served(cup_served: str) -> str:
    return f"{cup_served}t/cup/"


def errors(driver: Any) -> list[dict[str, Any]]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def shoot(driver: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def widening(driver: Any, width: int) -> list[str]:
    """The elements that reach past ``width`` (tag, id or classes, their right edge), the
    viewport's width, the page's load state and its stylesheets applied: what a failed width
    check names, so that its cause can be read."""
    return driver.execute_script(
        "const w = arguments[0]; return [`viewport ${window.innerWidth}`, "
        "`${document.readyState}, ${document.styleSheets.length} stylesheets`].concat("
        "Array.from(document.querySelectorAll('body *')).filter("
        "e => e.getBoundingClientRect().right > w + 1).slice(0, 8).map("
        "e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}"
        "${e.classList.length ? '.' + Array.from(e.classList).join('.') : ''} "
        "${Math.round(e.getBoundingClientRect().right)}`))", width)


def leaderboard_rows(driver: Any) -> list[list[str]]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#leaderboard tbody tr')).map("
        "r => Array.from(r.cells).map(c => c.getAttribute('data-value') ?? c.textContent.trim()))")


def expected_rows(db: Path) -> list[list[str]]:
    rows = []
    for row in leaderboard_json(build_leaderboard(db, "cup"))["bots"]:
        failures = ", ".join(f"{k} {n}" for k, n in row["failures"].items())
        rows.append([str(row["rank"]), row["bot"], row["version"], str(row["mu"]),
                     str(row["sigma"]), str(row["conservative"]), failures,
                     str(row["games"]), str(row["wins"]), str(row["win_pct"]),
                     str(row["mean_placement"]), str(row["points"]), str(row["byes"]),
                     str(row["buchholz"]), row["note"]])
    return without_empty_columns(rows)


def without_empty_columns(rows: list[list[str]]) -> list[list[str]]:
    """The page leaves out the note column (the last) and the failures column (the seventh,
    after the score) when no row has one, as the terminal's table does."""
    for index in (-1, 6):  # the note first: dropping it leaves the failures where they were
        if rows and not any(row[index] for row in rows):
            rows = [row[:index] + row[index:][1:] for row in rows]
    return rows


def check_pages(driver: Any, base: str, db: Path, shots: bool) -> None:
    driver.get(base + "index.html")
    assert leaderboard_rows(driver) == expected_rows(db)
    if shots:
        shoot(driver, "leaderboard")
    for page in ("h2h.html", "rounds.html", "games.html", "games/r1-t0-g1.html"):
        driver.get(base + page)
        if shots and page == "h2h.html":
            shoot(driver, "head-to-head")
    assert errors(driver) == []


def test_the_report_from_file(browser: Any, cup_site: Path, cup_db: Path) -> None:
    check_pages(browser, cup_site.as_uri() + "/", cup_db, shots=True)


def test_the_report_from_arena_serve(browser: Any, served: str, cup_db: Path) -> None:
    check_pages(browser, served, cup_db, shots=False)


def test_the_pages_keep_to_the_servers_policy(browser: Any, served: str) -> None:
    """Served, a page may run only the site's own script files: every page works under that
    policy (the browser reports each refusal as an error), and the games list's filters,
    which a person may "submit" with Enter, neither run an inline handler nor leave the
    page."""
    from selenium.webdriver.support.ui import WebDriverWait

    def filtered(driver: Any) -> bool:
        return len(driver.find_elements("css selector", "#games tbody tr:not([hidden])")) == 2

    browser.get(served + "../../")
    assert browser.find_element("css selector", "main a").text == "cup"
    for page in ("index.html", "h2h.html", "rounds.html", "games/r1-t0-g1.html"):
        browser.get(served + page)
    browser.get(served + "games.html?size=3")
    WebDriverWait(browser, 30).until(filtered)
    browser.execute_script("document.getElementById('filters').requestSubmit()")
    assert browser.current_url == served + "games.html?size=3" and filtered(browser)
    assert errors(browser) == []


@pytest.mark.parametrize("page", ["index.html", "games.html", "games/r1-t0-g1.html", "one file"])
def test_a_page_keeps_its_policy_wherever_it_is_opened(browser: Any, cup_site: Path,
                                                       cup_db: Path, tmp_path: Path,
                                                       page: str) -> None:
    """A report's folder is hosted by whatever web server a class has, or opened from disk,
    and ``arena game --html`` writes one file: each page carries its own policy, so a script
    that markup slipped past the escaping would add does not run, while the page's own
    scripts (in the one file, written into it) do."""
    from arena.web.data import read_records
    from arena.web.site import game_page

    if page == "one file":
        record = next(r for _, r in read_records(cup_db, "cup", only="cup/r1/t0/g1"))
        path = tmp_path / "game.html"
        path.write_text(game_page(record, "cup/r1/t0/g1", root="", inline=True, back=None))
    else:
        path = cup_site / page
    browser.get("about:blank")
    browser.get(path.as_uri())
    browser.execute_script("var s = document.createElement('script');"
                           "s.textContent = 'document.body.dataset.owned = 1';"
                           "document.body.appendChild(s)")
    assert browser.execute_script("return document.body.dataset.owned") is None
    if page.startswith("games/") or page == "one file":
        assert browser.find_element("id", "where").text.startswith("step 1 of ")
    logged = errors(browser)  # the browser's log is read once: reading empties it
    assert len(logged) == 1 and "violates the following Content Security Policy" in \
        logged[0]["message"] and "inline script" in logged[0]["message"]


def test_the_game_list_filters(browser: Any, cup_site: Path) -> None:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import Select, WebDriverWait

    shown = "return Array.from(document.querySelectorAll('#games tbody tr')).filter(r => " \
            "!r.hidden).map(r => r.cells[0].textContent)"

    def shows(expected: list[str] | int) -> None:
        """The list comes to show ``expected`` (ids, or how many): a busy machine's browser
        may hand the page back before its script has filtered it."""
        def now() -> list[str]:
            return list(browser.execute_script(shown))
        try:
            WebDriverWait(browser, 30).until(lambda b: (len(now()) if isinstance(expected, int)
                                                        else now()) == expected)
        except TimeoutException:
            pass
        assert (len(now()) if isinstance(expected, int) else now()) == expected

    browser.get((cup_site / "games.html").as_uri())
    shows(9)
    Select(browser.find_element("name", "size")).select_by_visible_text("3")
    shows(["r2-t0-g0", "r2-t0-g1"])
    browser.get((cup_site / "games.html").as_uri() + "?failure=timeout")
    shows(["r1-t0-g1"])
    browser.get((cup_site / "index.html").as_uri())
    browser.find_element("link text", "gamma").click()  # the leaderboard's link to its games
    shows(["r1-t1-g0", "r1-t1-g1", "r2-t0-g0", "r2-t0-g1"])
    # the rounds page's link to one table: the table filter shows, and can be cleared
    browser.get((cup_site / "games.html").as_uri() + "?round=1&table=1")
    shows(["r1-t1-g0", "r1-t1-g1"])
    table = Select(browser.find_element("name", "table"))
    assert table.first_selected_option.text == "1"
    table.select_by_visible_text("any")
    shows(5)  # round 1's five games
    # and the filters chosen are in the address, to share or come back to
    assert browser.execute_script("return location.search") == "?round=1"
    assert errors(browser) == []


def test_the_failures_follow_the_bot_and_failure_filters(browser: Any, cup_site: Path) -> None:
    """A leaderboard's failure count links to its bot's games: the failures above them are
    that bot's too (a class's page listed every other bot's first, 200 of them)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    listed = "return [Array.from(document.querySelectorAll('ul.failures li')).filter(li => " \
             "!li.hidden).length, document.getElementById('failures-shown').textContent]"

    def shows(count: int, note: str) -> None:
        try:
            WebDriverWait(browser, 30).until(
                lambda b: b.execute_script(listed) == [count, note])
        except TimeoutException:
            pass
        assert browser.execute_script(listed) == [count, note]

    page = (cup_site / "games.html").as_uri()
    browser.get(page + "?bot=beta%40v1&failure=timeout")
    shows(1, "1 of the 1 failures listed match the filters below.")
    browser.get(page + "?bot=alpha%40v1")
    shows(0, "None of the 1 failures listed match the filters below.")
    # and the games are those where the bot itself failed so, not its table's other bots
    rows = "return Array.from(document.querySelectorAll('#games tbody tr')).map(r => " \
           "r.cells[0].textContent)"
    browser.get(page + "?bot=alpha%40v1&failure=timeout")
    shows(0, "None of the 1 failures listed match the filters below.")
    assert browser.execute_script(rows) == []
    browser.get(page + "?bot=beta%40v1&failure=timeout")
    shows(1, "1 of the 1 failures listed match the filters below.")
    assert browser.execute_script(rows) == ["r1-t0-g1"]
    browser.get(page)
    shows(1, "")
    assert errors(browser) == []


def test_a_link_to_a_bot_not_in_the_tournament_says_so(browser: Any, cup_site: Path) -> None:
    """A stale link (a bot since renamed, another tournament's key) left the Bot select blank
    and listed every game as if filtered: the link's bot stays chosen, no game matches it, and
    a line says that no bot of that key is in this tournament; choosing "any" lists them all."""
    from selenium.webdriver.support.ui import Select

    browser.get((cup_site / "games.html").as_uri() + "?bot=gone%40v9")
    said = "No bot \u2068gone@v9\u2069 is in this tournament: no games match (choose " \
           "\u201cany\u201d to see them all)."
    assert text_of(browser, "stale-filter") == said
    assert browser.execute_script("return document.forms.filters.bot.value") == "gone@v9"
    assert browser.find_elements("css selector", "#games tbody tr") == []
    assert text_of(browser, "shown") == "0 of 9 games shown"
    shoot(browser, "games-stale-bot")
    Select(browser.find_element("name", "bot")).select_by_value("")
    assert text_of(browser, "stale-filter") == ""
    assert text_of(browser, "shown") == "9 of 9 games shown"
    assert errors(browser) == []


def test_a_long_game_list_draws_a_page_at_a_time(browser: Any, cup_db: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A big tournament's list draws its games a page at a time (here 4 of the cup's 9), its
    filters search them all, and a reader without scripts gets the first page as HTML."""
    import arena.web.site
    from arena.web.site import write_site

    monkeypatch.setattr(arena.web.site, "GAMES_SHOWN", 4)
    write_site(cup_db, site_db.NAME, tmp_path, jobs=1)
    page = (tmp_path / "games.html").as_uri()
    rows = "return Array.from(document.querySelectorAll('#games tbody tr')).map(" \
           "r => Array.from(r.cells).map(c => c.textContent.trim()))"
    state = "return [document.getElementById('shown').textContent, " \
            "document.querySelector('p.more').hidden, " \
            "document.getElementById('more-games').textContent]"
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(page)
        as_html = browser.execute_script(rows)
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get(page)
    drawn = browser.execute_script(rows)
    assert [row[0] for row in drawn] == ["r1-t0-g0", "r1-t0-g1", "r1-t0-g2", "r1-t1-g0"]
    assert drawn == as_html  # the script draws a row as the page's HTML has it
    assert browser.execute_script(state) == ["4 of 9 games shown", False, "Show 4 more"]
    browser.find_element("id", "more-games").click()
    assert browser.execute_script(state) == ["8 of 9 games shown", False, "Show the last 1"]
    browser.find_element("id", "more-games").click()
    assert len(browser.execute_script(rows)) == 9
    assert browser.execute_script(state)[:2] == ["9 of 9 games shown", True]
    # a filter searches every game, not the rows drawn; its matches are drawn a page at a time
    browser.get(page + "?size=3")
    assert [row[0] for row in browser.execute_script(rows)] == ["r2-t0-g0", "r2-t0-g1"]
    browser.get(page + "?round=1")
    assert browser.execute_script(state) == ["4 of 5 matching games shown (9 in all)", False,
                                             "Show the last 1"]
    assert errors(browser) == []
    html = (tmp_path / "games.html").read_text()
    assert "The first 4 of 9 games; the rest of the list and its filters need JavaScript." in html


def test_the_leaderboard_sorts_by_mouse_and_keyboard(browser: Any, cup_site: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    browser.get((cup_site / "index.html").as_uri())
    ranks = "return Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(" \
            "r => r.cells[0].textContent)"
    assert browser.execute_script(ranks) == ["1", "2", "3", "4"]
    heading = browser.find_elements("css selector", "#leaderboard thead th")[0]
    assert heading.get_attribute("aria-sort") == "ascending"  # the order it opens in, said
    heading.click()  # descending
    assert browser.execute_script(ranks) == ["4", "3", "2", "1"]
    assert heading.get_attribute("aria-sort") == "descending"
    heading.send_keys(Keys.ENTER)  # ascending: as it was
    assert browser.execute_script(ranks) == ["1", "2", "3", "4"]


def text_of(browser: Any, element_id: str) -> str:
    """The element's shown text, read in one script: a page that re-renders between a lookup
    and a read (a refresh) leaves no stale reference to fail on."""
    return str(browser.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.innerText : '';",
        element_id))


def test_standings_refresh_as_games_land(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    db = site_db.build(tmp_path / "arena.db", state="running", rounds=1)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/t/cup/index.html")
        assert browser.find_element("id", "progress").text.startswith("5 of 9")
        site_db.land_a_game(db)  # a game lands
        WebDriverWait(browser, 60).until(lambda b: text_of(b, "progress").startswith("6 of 9"))
        assert errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


def test_a_finished_tournament_says_nothing_of_live_updates_yet_reloads_when_resumed(
        browser: Any, tmp_path: Path) -> None:
    """A finished tournament's pages said "live: refreshes as games land" and offered to pause
    updates that no game would bring; they still reload when a resumed run adds games."""

    from selenium.webdriver.support.ui import WebDriverWait

    db = site_db.build(tmp_path / "arena.db", state="finished", rounds=1)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/t/cup/index.html")
        assert browser.find_elements("id", "live") == []
        assert browser.find_elements("id", "live-pause") == []
        assert "finished" in browser.find_element("css selector", "footer").text
        site_db.land_a_game(db)  # a game lands
        WebDriverWait(browser, 60).until(lambda b: text_of(b, "progress").startswith("6 of 9"))
        assert errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


def test_live_updates_pause_for_a_reader_at_work(browser: Any, tmp_path: Path) -> None:
    """The page reloaded whenever games landed, taking the keyboard's focus back to its top
    every few seconds while a tournament ran: a reader can pause it, is told what they miss,
    and resuming shows it."""
    import json
    import urllib.request

    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    db = site_db.build(tmp_path / "arena.db", state="running", rounds=1)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/t/cup/index.html")
        pause = browser.find_element("id", "live-pause")
        pause.send_keys(Keys.ENTER)
        assert text_of(browser, "live") == "live updates paused"
        assert pause.text == "Resume updates"
        browser.execute_script("window.notReloaded = true")
        site_db.land_a_game(db)  # a game lands
        WebDriverWait(browser, 60).until(lambda b: "moved on" in text_of(b, "live"))
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/t/cup/api/"
                                    "progress.json") as answer:
            now = json.load(answer)
        assert text_of(browser, "live") == ("live updates paused; the tournament has moved on "
                                            f"({now['games']} games, {now['state']}): resume "
                                            "to see it")
        assert browser.execute_script("return window.notReloaded === true")
        assert browser.execute_script("return document.activeElement.id") == "live-pause"
        assert text_of(browser, "progress").startswith("5 of 9")
        browser.find_element("id", "live-pause").send_keys(Keys.ENTER)
        WebDriverWait(browser, 60).until(lambda b: text_of(b, "progress").startswith("6 of 9"))
        assert text_of(browser, "live") == "live: refreshes as games land"
        assert errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


def test_a_paused_leagues_note_gives_its_budget_as_the_footer_does(
        browser: Any, tmp_path: Path) -> None:
    """The footer said "9 games (budget 9 spent)" while the note of a paused page said the
    league had moved on to "9 games" alone."""
    import sqlite3

    import league_db
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    db = league_db.build(tmp_path / "arena.db", budget=9, state="running")
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/t/ladder/index.html")
        browser.find_element("id", "live-pause").send_keys(Keys.ENTER)
        with sqlite3.connect(db) as conn:  # a game lands: a copy of one under a new id
            conn.execute(
                "INSERT INTO games SELECT 'ladder/r5/t0/g0', tournament_id, 5, 0, 0, seed, "
                "seats_json, starting_seat, placements_json, desmos_json, ascension, tiebreak, "
                "failures_json, forfeits_json, decisions, duration_s, record_path, created_at, "
                "latency_json FROM games WHERE id = 'ladder/r4/t0/g0'")
        WebDriverWait(browser, 60).until(lambda b: "moved on" in text_of(b, "live"))
        state = browser.find_element("css selector", "body").get_attribute("data-state")
        assert text_of(browser, "live") == ("live updates paused; the tournament has moved on "
                                            f"(9 games, budget 9 spent, {state}): resume to "
                                            "see it")
        browser.find_element("id", "live-pause").send_keys(Keys.ENTER)
        WebDriverWait(browser, 60).until(
            lambda b: "9 games (budget 9 spent)" in b.find_element("css selector",
                                                                   "footer").text)
        assert errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


# -- the replay ---------------------------------------------------------------------------------
def tables(record: dict[str, Any]) -> list[State]:
    """Copies of the replayed game at each decision and at the end (the expected tables)."""
    state = new_game(GameConfig.from_json(record["config"]))
    seen = []
    for _, _, index in record["choices"]:
        seen.append(table_of(state))
        state.apply(index)
    seen.append(table_of(state))
    return seen


def table_of(state: State) -> Any:
    return {"hands": [[NOTATION[c] for c in hand] for hand in state.hands],
            "views": [state.observe_json(seat) for seat in range(state.n)],
            "decision": None if state.decision is None else state.decision.seat,
            "showdown": state.phase == "showdown" or (state.result is not None
                                                      and not state.result.ascension)}


_DOM = """
const seats = Array.from(document.querySelectorAll('#seats .seat')).map(s => ({
  hand: Array.from(s.querySelectorAll('.hand .card')).map(c => c.getAttribute('data-card')),
  traps: Array.from(s.querySelectorAll('.traps .card')).map(c => c.getAttribute('data-card'))}));
return {step: Number(document.getElementById('table').getAttribute('data-step')), seats,
        options: document.querySelectorAll('#decision .options li').length,
        lines: document.getElementById('new-lines').textContent,
        showdown: !document.getElementById('showdown-box').hidden};
"""


@pytest.fixture(scope="module")
def record(cup_db: Path) -> dict[str, Any]:
    with Store(cup_db, create=False, read_only=True) as store:
        return game_record(store, REPLAYED)


def test_stepping_a_replay_shows_the_replayed_table(browser: Any, cup_site: Path,
                                                    record: dict[str, Any]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    expected = tables(record)
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri())
    ActionChains(browser).send_keys(Keys.HOME).perform()
    for number, table in enumerate(expected):
        dom = browser.execute_script(_DOM)
        assert dom["step"] == number
        assert [seat["hand"] for seat in dom["seats"]] == table["hands"], f"step {number}"
        if number == len(expected) // 2:
            shoot(browser, "replay-mid-game")
        if number == len(expected) - 1:
            break
        if number % 2:  # the buttons and the keyboard, in turn
            browser.find_element("id", "next").click()
        else:
            ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    dom = browser.execute_script(_DOM)
    assert dom["showdown"] and not browser.find_element("id", "next").is_enabled()
    showdown = browser.find_element("id", "showdown").text
    for category in record["result"]["desmos"]:
        assert category in showdown
    assert "First place: " in showdown
    ActionChains(browser).send_keys(Keys.HOME).perform()
    assert browser.execute_script(_DOM)["step"] == 0
    browser.find_element("id", "to-showdown").click()
    assert browser.execute_script(_DOM)["step"] == len(expected) - 1
    ActionChains(browser).send_keys("2").perform()
    step = browser.execute_script(_DOM)["step"]
    assert browser.execute_script(f"return JSON.parse(document.getElementById('game-data')"
                                  f".textContent).steps[{step}].round") == 2
    from selenium.webdriver.support.ui import WebDriverWait

    browser.find_element("id", "play").click()
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(_DOM)["step"] > step + 1)
    browser.find_element("id", "play").click()  # pause
    paused = browser.execute_script(_DOM)["step"]
    assert browser.find_element("id", "play").text.endswith("play")
    assert browser.execute_script(_DOM)["step"] == paused
    ActionChains(browser).send_keys("v").perform()  # the next view: seat 0's
    assert browser.find_element("id", "table").get_attribute("data-view") == "0"
    assert browser.find_element("id", "view").get_attribute("value") == "0"
    assert errors(browser) == []


def test_a_finished_game_is_nobodys_turn(browser: Any, cup_site: Path,
                                         record: dict[str, Any]) -> None:
    """The last step marked the seat after the last turn (or the starter) as on turn."""
    turn = ("return Array.from(document.querySelectorAll('#seats .seat')).filter("
            "s => s.classList.contains('active') || s.querySelector('.tag:not(.deciding)'))"
            ".map(s => Number(s.getAttribute('data-seat')))")
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get("about:blank")
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri() + "#step=1")
    try:  # the page's script shows the step from the address once it has run
        WebDriverWait(browser, 30).until(lambda b: b.execute_script(turn))
    except TimeoutException:
        pass  # the assertion below says what was on turn instead
    assert browser.execute_script(turn) == [record["starting_seat"]]
    browser.find_element("id", "last").click()
    assert browser.find_element("id", "decision").text == "The game is over."
    assert browser.execute_script(turn) == []
    assert errors(browser) == []


def test_one_seats_view_shows_only_what_it_was_shown(browser: Any, cup_site: Path,
                                                      record: dict[str, Any]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    seat = 1
    expected = tables(record)
    assert expected[-1]["showdown"]  # the game ends at a showdown, whose hands are public
    browser.get("about:blank")  # a new page load, not a move within the last one
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri() + "#view=1")
    told = "\n".join(event_lines(record, seat))
    shown_lines = []
    for number, table in enumerate(expected):
        dom = browser.execute_script(_DOM)
        assert dom["step"] == number
        view = table["views"][seat]
        for other, panel in enumerate(dom["seats"]):
            if other == seat:
                assert panel["hand"] == view["hand"]
                assert panel["traps"] == [trap["card"] for trap in view["traps"]]
                continue
            face_up = [card for card in panel["hand"] if card]
            # from the showdown on every hand is public, as the showdown's table below shows
            public = table["hands"][other] if table["showdown"] else view["revealed"][other]
            assert sorted(face_up) == sorted(public), f"step {number}"
            assert len(panel["hand"]) == view["hand_sizes"][other]
            assert panel["traps"] == [""] * view["trap_counts"][other]
        if table["decision"] is not None and table["decision"] != seat:
            assert dom["options"] == 0  # another seat's options would show its hand
        if dom["lines"]:
            shown_lines.append(dom["lines"])
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    # the seat's own feed, as arena game --seat tells it (each name isolated on the page)
    assert "\n".join(shown_lines).replace("\u2068", "").replace("\u2069", "") == told
    assert errors(browser) == []


def test_a_forfeited_seats_view_keeps_the_table_it_left(browser: Any, tmp_path: Path) -> None:
    """Its narration stopped at its forfeit, but its view went on showing the table change
    (graveyards, hand sizes, its own hand played by the referee's defaults), the decisions
    and, at the end, the other seats' categories and places it was never sent."""
    import random

    from arena.cli.report_commands import write_game_html

    state = new_game(GameConfig(players=("ann", "ben", "cy"), seed=21, starting_seat=0))
    rng = random.Random(21)
    for _ in range(14):
        state.apply(rng.randrange(len(state.decision.options)))
    state.forfeit(1, "crash")
    while state.decision is not None:
        state.apply(0 if state.decision.seat == 1 else
                    rng.randrange(len(state.decision.options)))
    record = state.record()
    page = tmp_path / "left.html"
    write_game_html("left", record, page)
    expected = tables(record)  # 14 decisions answered before the forfeit: it is told at step 15
    left = 14
    browser.get("about:blank")
    browser.get(page.as_uri() + "#view=1&step=1")
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    center = "return [document.getElementById('draw').textContent, " \
             "document.getElementById('discard-gy').textContent]"
    for number in range(len(expected)):
        dom = browser.execute_script(_DOM)
        assert dom["step"] == number
        shown = expected[min(number, left)]["views"][1]
        assert [seat["hand"] for seat in dom["seats"]][1] == shown["hand"], f"step {number}"
        assert [len(seat["hand"]) for seat in dom["seats"]] == [
            len(shown["hand"]) if s == 1 else shown["hand_sizes"][s] for s in range(3)]
        decision = browser.find_element("id", "decision").text
        if number < left:
            assert "forfeited" not in decision
        else:
            assert decision == ("ben forfeited (crash) at step 15 and was shown nothing "
                                "more: this view keeps the table as it left it.")
            if number == left:
                frozen = browser.execute_script(center)
            assert browser.execute_script(center) == frozen
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    showdown = browser.find_element("id", "showdown").text
    assert showdown.startswith("ben forfeited (crash) at step 15")
    assert not any(category in showdown for category in record["result"]["desmos"])
    browser.find_element("id", "view").send_keys("all")  # the whole game is still there
    assert "First place: " in browser.find_element("id", "showdown").text
    assert errors(browser) == []


def test_another_seats_decision_is_shown_without_its_reason(browser: Any,
                                                          tmp_path: Path) -> None:
    """A decision's reason may name a card only its seat has seen (Hermes: "give a card in
    exchange for" the card taken from another hand): a third seat's view showed it."""
    import random

    from arena.cli.report_commands import write_game_html

    state = new_game(GameConfig(players=("ann", "ben", "cy"), seed=1, starting_seat=0))
    rng = random.Random(1)
    step = taken_from = None
    while state.decision is not None:
        decision = state.decision
        if step is None and str(decision.context.get("why")).startswith("give a card in ex"):
            step, why = len(state.choices), str(decision.context["why"])
            asker = decision.seat
        elif step is None:
            taken_from = decision.context.get("from_seat")
        state.apply(rng.randrange(len(decision.options)))
    assert step is not None and isinstance(taken_from, int), "the game has no Hermes exchange"
    third = ({0, 1, 2} - {asker, taken_from}).pop()
    page = tmp_path / "hermes.html"
    write_game_html("hermes", state.record(), page)
    card = why.rsplit(" ", 1)[1]
    for view, told in ((third, False), (asker, True), ("all", True)):
        browser.get("about:blank")
        browser.get(page.as_uri() + f"#step={step + 1}&view={view}")
        shown = browser.find_element("id", "decision").text
        assert shown.startswith(f"{('ann', 'ben', 'cy')[asker]} chooses: give")
        assert (card in shown) == told, (view, shown)
    assert errors(browser) == []


@pytest.mark.parametrize("where", ["file", "served"])
def test_a_bots_crash_message_cannot_take_over_the_replay(browser: Any, cup_site: Path,
                                                          served: str, where: str) -> None:
    """A bot writes its own crash message, and a game's replay shows it: markup in it (a
    "</script>", a "<!--<script>" that would turn the rest of the page into script text, an
    image with a handler) stays text, and the viewer still steps through the game."""
    slug = game_slug(site_db.FAILING_GAME)
    browser.get("about:blank")
    browser.get((cup_site / "games" / f"{slug}.html").as_uri() if where == "file"
                else f"{served}games/{slug}.html")
    assert browser.title != "owned" and not browser.find_elements("css selector", "img[src=x]")
    assert browser.find_element("id", "where").text.startswith("step 1 of ")
    failures = browser.find_element("css selector", "ul.failures").text
    assert "decision took 1.2 s" + site_db.HOSTILE in failures
    data = browser.execute_script(
        "return JSON.parse(document.getElementById('game-data').textContent).failures")
    assert [f["detail"] for f in data] == ["decision took 1.2 s" + site_db.HOSTILE]
    assert errors(browser) == []


def test_bots_names_cannot_take_over_the_pages(browser: Any, tmp_path: Path) -> None:
    """A bot entered by its path names itself, and every page shows the name: markup in it
    stays text on every page, in the replay's every view, and the pages still work."""
    from selenium.webdriver.support.ui import WebDriverWait

    from arena.web.site import write_site

    site_db.build(tmp_path / "hostile.db", bots=site_db.HOSTILE_NAMES)
    write_site(tmp_path / "hostile.db", site_db.NAME, tmp_path / "site", jobs=1)
    for page in ("index.html", "h2h.html", "rounds.html", "games.html", "games/r2-t0-g0.html"):
        browser.get("about:blank")
        browser.get((tmp_path / "site" / page).as_uri())
        if page.startswith("games/"):
            for view in ("all", "0", "1", "2"):
                browser.execute_script("location.hash = arguments[0]", f"step=9&view={view}")
                WebDriverWait(browser, 10).until(
                    lambda b, v=view: b.find_element("id", "table").get_attribute(
                        "data-view") == v)
            assert browser.find_element("id", "where").text.startswith("step 9 of ")
        assert browser.title.startswith("cup"), page
        assert not browser.find_elements("css selector", "img[src=x]"), page
        assert site_db.HOSTILE_NAMES[0][0] in browser.find_element("tag name", "main").text
    assert errors(browser) == []


def test_the_replay_at_phone_width(browser: Any, cup_site: Path) -> None:
    browser.set_window_size(390, 844)
    try:
        browser.get("about:blank")
        browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri() + "#step=8")
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390  # nothing wider than the screen: no sideways scrolling
        shoot(browser, "replay-phone")
    finally:
        browser.set_window_size(1280, 800)



@pytest.mark.parametrize("slug", ["r1-t0-g1", "r2-t0-g0"])
def test_the_showdown_fits_a_phone(browser: Any, cup_site: Path, slug: str) -> None:
    """At 390 px the showdown's table was wider than the screen: the page scrolled sideways
    and the place column was cut off."""
    browser.set_window_size(390, 844)
    try:
        browser.get("about:blank")
        browser.get((cup_site / "games" / f"{slug}.html").as_uri() + "#step=999")
        assert not browser.find_element("id", "showdown-box").get_attribute("hidden")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        right = browser.execute_script(
            "return Math.max(...Array.from(document.querySelectorAll('.showdown-table th'))"
            ".map(c => c.getBoundingClientRect().right))")
        assert right <= browser.execute_script("return document.documentElement.clientWidth")
        browser.execute_script("document.getElementById('showdown-h').scrollIntoView()")
        shoot(browser, f"replay-showdown-phone-{slug}")
        assert errors(browser) == []
    finally:
        browser.set_window_size(1280, 800)

def shown_headings(driver: Any, table: str) -> list[str]:
    """The headings of ``table`` a reader sees without scrolling it sideways."""
    return driver.execute_script(
        "const box = document.querySelector(arguments[0]).parentElement.getBoundingClientRect();"
        "return Array.from(document.querySelectorAll(arguments[0] + ' thead th')).filter("
        "c => c.offsetParent !== null && c.getBoundingClientRect().right <= box.right + 1)"
        ".map(c => c.textContent.trim())", table)


def scroll_hints(driver: Any) -> list[tuple[bool, bool]]:
    """For each scrolling box of the page: whether its table is wider than it, and whether the
    line above it says so."""
    return [tuple(pair) for pair in driver.execute_script(
        "return Array.from(document.querySelectorAll('main .scroll')).map(b => ["
        "b.scrollWidth > b.clientWidth + 1, !!b.previousElementSibling &&"
        " b.previousElementSibling.matches('.scroll-hint') &&"
        " b.previousElementSibling.offsetParent !== null])")]


def test_the_leaderboard_on_a_phone_shows_the_rank_the_bot_and_its_score_first(
        browser: Any, cup_site: Path, cup_db: Path) -> None:
    """At 390 px only rank, bot, version and mu were in view: the score the board is ranked
    by (mu-3sigma) hid behind a sideways scroll inside the table, and nothing said it
    scrolled."""
    browser.set_window_size(390, 844)
    try:
        browser.get("about:blank")
        browser.get((cup_site / "index.html").as_uri())
        assert shown_headings(browser, "#leaderboard")[:3] == ["rank", "bot", "mu-3sigma"]
        assert browser.find_element("css selector", "#board-h ~ .narrow-only").is_displayed()
        assert scroll_hints(browser) == [(True, True)]
        # the hidden columns' cells are still there, for the sort and a wider window
        assert leaderboard_rows(browser) == expected_rows(cup_db)
        shoot(browser, "leaderboard-phone")
        for page in ("h2h.html", "games.html"):  # their tables scroll too, and say so
            browser.get((cup_site / page).as_uri())
            assert scroll_hints(browser) == [(True, True)], page
            shoot(browser, f"{page[:-5]}-phone")
        assert errors(browser) == []
    finally:
        browser.set_window_size(1280, 800)


def test_the_leaderboard_at_desktop_width_shows_every_column_and_no_scroll_hint(
        browser: Any, cup_site: Path) -> None:
    browser.get("about:blank")
    browser.get((cup_site / "index.html").as_uri())
    assert shown_headings(browser, "#leaderboard")[:6] == [
        "rank", "bot", "version", "mu", "sigma", "mu-3sigma"]
    assert not browser.find_element("css selector", "#board-h ~ .narrow-only").is_displayed()
    assert scroll_hints(browser) == [(False, False)]


@pytest.fixture(scope="module")
def long_names_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from arena.web.site import write_site

    where = tmp_path_factory.mktemp("long")
    site_db.build(where / "long.db", bots=site_db.LONG_NAMES)
    write_site(where / "long.db", site_db.NAME, where / "site", jobs=1)
    return where / "site"


@pytest.mark.parametrize("width", [1280, 390])
def test_long_bot_names_wrap_instead_of_widening_the_pages(browser: Any, long_names_site: Path,
                                                           width: int) -> None:
    """Names as long as a spec allows: no page is wider than the screen, and at desktop width
    the leaderboard and head-to-head tables fit it whole (their every column in view)."""
    browser.set_window_size(width, 844)
    try:
        for page in ("index.html", "h2h.html", "games.html", "games/r2-t0-g0.html"):
            browser.get("about:blank")
            browser.get((long_names_site / page).as_uri() + ("#step=8" if "/" in page else ""))
            assert browser.execute_script(
                "return document.documentElement.scrollWidth") <= width, \
                (page, widening(browser, width))
            if width == 1280 and page in ("index.html", "h2h.html"):
                assert browser.execute_script(
                    "const t = document.querySelector('main table');"
                    "return t.scrollWidth <= t.parentElement.clientWidth"), page
            shoot(browser, f"long-names-{page.replace('/', '-')[:-5]}-{width}")
        assert errors(browser) == []
    finally:
        browser.set_window_size(1280, 800)


@pytest.mark.parametrize("width", [1280, 390])
def test_long_bot_names_wrap_in_the_rounds_tables(browser: Any, long_names_site: Path,
                                                  width: int) -> None:
    """At phone width the rounds page's tables ran past their box: the names cut off, the
    games column out of view behind a sideways scroll."""
    browser.set_window_size(width, 844)
    try:
        browser.get("about:blank")
        browser.get((long_names_site / "rounds.html").as_uri())
        assert browser.execute_script(
            "return Array.from(document.querySelectorAll('main table')).every("
            "t => t.scrollWidth <= t.parentElement.clientWidth)"), widening(browser, width)
        shoot(browser, f"long-names-rounds-{width}")
        assert errors(browser) == []
    finally:
        browser.set_window_size(1280, 800)


def test_long_bot_names_in_a_replays_options_wrap(browser: Any, long_names_site: Path) -> None:
    """A decision naming a seat ("GreedyWithAn...ForL (seat 1)") ran past a phone's screen
    edge at every step that offered it: the page scrolled sideways."""
    browser.set_window_size(390, 844)
    try:
        browser.get("about:blank")
        browser.get((long_names_site / "games" / "r2-t0-g0.html").as_uri())
        steps = browser.execute_script(
            "return JSON.parse(document.getElementById('game-data').textContent).steps.length")
        wide = []
        for step in range(1, steps + 1):
            browser.execute_script(f"location.hash = '#step={step}&view=all'")
            if browser.execute_script("return document.documentElement.scrollWidth") > 390:
                wide.append(step)
        assert wide == []
        browser.execute_script("location.hash = '#step=12&view=all'")
        browser.execute_script("document.getElementById('decision-h').scrollIntoView()")
        shoot(browser, "long-names-replay-options-390")
        assert errors(browser) == []
    finally:
        browser.set_window_size(1280, 800)


def test_a_replay_follows_a_step_typed_into_its_address(browser: Any, cup_site: Path) -> None:
    page = (cup_site / "games" / "r2-t0-g0.html").as_uri()
    browser.get("about:blank")
    browser.get(page + "#step=12&view=1")
    assert browser.find_element("id", "where").text.startswith("step 12 of ")
    browser.execute_script("location.hash = '#step=5&view=all'")
    assert browser.find_element("id", "where").text.startswith("step 5 of ")
    assert browser.find_element("id", "view").get_attribute("value") == "all"
    assert errors(browser) == []



def test_a_copy_named_by_its_place_can_be_found_in_the_graveyard(browser: Any,
                                                                 tmp_path: Path) -> None:
    """Hades offered "Fate-1 (8th from the top)" beside "Fate-1 (nearest the top)", but the
    page did not say which end of the Discard Graveyard it draws as the top (the last)."""
    import random

    from arena.cli.report_commands import write_game_html

    state = new_game(GameConfig(players=("p0", "p1"), seed=63, starting_seat=1))
    rng = random.Random(63)  # tests/web/test_replay_data.py's played(2, 63, None)
    while state.decision is not None:
        state.apply(rng.randrange(len(state.decision.options)))
    page = tmp_path / "hades.html"
    write_game_html("hades", state.record(), page)
    browser.get("about:blank")
    browser.get(page.as_uri() + "#step=36")
    options = [li.text for li in browser.find_elements("css selector", "#decision .options li")]
    assert options[1].startswith("Fate-1 (8th from the top)")
    assert options[5] == "Fate-1 (nearest the top)"
    heading = browser.find_element("id", "discard-gy-h").text
    assert heading == "Discard graveyard (top last)"
    pile = [li.get_attribute("data-card")
            for li in browser.find_elements("css selector", "#discard-gy .card")]
    assert pile[-8] == pile[-4] == "Fate-1" and "Fate-1" not in pile[-3:]  # 8th, 4th from the top
    shoot(browser, "replay-graveyard-copies")
    assert errors(browser) == []


def test_a_replay_without_scripts_says_it_needs_them(browser: Any, cup_site: Path) -> None:
    """With scripts off a replay was an empty table, buttons that did nothing and a blank
    decision, with no word why."""
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get("about:blank")
        browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri())
        note = browser.find_element("id", "no-script")
        assert note.is_displayed() and "JavaScript" in note.text and "arena game" in note.text
        for dead in ("first", "next", "table", "decision"):
            assert not browser.find_element("id", dead).is_displayed(), dead
        assert browser.find_element("css selector", ".header-lines").is_displayed()
        shoot(browser, "replay-no-script")
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    browser.get("about:blank")
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri())
    assert not browser.find_elements("id", "no-script")  # scripts on: no note
    assert browser.find_element("id", "next").is_displayed()
    assert errors(browser) == []


def test_a_traps_colour_bar_is_whole(browser: Any, cup_site: Path) -> None:
    """A trap's dashed outline cut its card's colour bar into two blue dashes."""
    browser.get("about:blank")
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri())
    step = browser.execute_script(
        "return JSON.parse(document.getElementById('game-data').textContent).steps"
        ".findIndex(s => s.traps.some(t => t.length > 0))")
    assert step >= 0  # this game sets a trap
    browser.execute_script(f"location.hash = '#step={step + 1}&view=all'")
    trap = browser.find_element("css selector", "#seats .traps .card.trap")
    assert trap.value_of_css_property("border-left-style") == "solid"
    assert trap.value_of_css_property("border-top-style") == "dashed"  # still a trap's outline
    assert errors(browser) == []


def test_the_skip_link_keeps_the_step(browser: Any, cup_site: Path) -> None:
    """"Skip to the table" wrote #table into the address, which the replay read as an address
    without a step: it went back to the first decision."""
    browser.get("about:blank")
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri() + "#step=12&view=1")
    skip = browser.find_element("css selector", "a.skip")
    browser.execute_script("arguments[0].focus()", skip)
    skip.click()
    assert browser.find_element("id", "where").text.startswith("step 12 of ")
    assert browser.find_element("id", "view").get_attribute("value") == "1"
    assert browser.execute_script("return document.activeElement.id") == "table"
    assert errors(browser) == []


@pytest.mark.parametrize("width", [1280, 390])
def test_the_skip_link_shows_the_table_below_the_controls(browser: Any, cup_site: Path,
                                                          width: int) -> None:
    """At phone width "Skip to the table" scrolled the table to the top of the screen, under
    the controls that stay there: the first seat was hidden behind them."""
    browser.set_window_size(width, 844)
    try:
        browser.get("about:blank")
        browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri() + "#step=12")
        skip = browser.find_element("css selector", "a.skip")
        browser.execute_script("arguments[0].focus()", skip)
        skip.click()
        controls, table = browser.execute_script(
            "return [document.querySelector('.controls').getBoundingClientRect().bottom,"
            " document.getElementById('table').getBoundingClientRect().top]")
        assert table >= controls - 1
        shoot(browser, f"replay-skipped-to-table-{width}")
    finally:
        browser.set_window_size(1280, 800)


def test_stepping_to_an_end_by_keyboard_keeps_the_focus_in_the_controls(
        browser: Any, cup_site: Path) -> None:
    """Enter on the forward button at the last step but one disabled the button under the
    focus: the focus fell back to the page, and the next Tab started again from its top."""
    from selenium.webdriver.common.keys import Keys

    focused = "return document.activeElement.id"
    browser.get("about:blank")
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri() + "#step=76")
    browser.find_element("id", "next").send_keys(Keys.ENTER)  # step 77
    browser.find_element("id", "next").send_keys(Keys.ENTER)  # the showdown: next is disabled
    assert browser.find_element("id", "where").text.startswith("step 78 of 78")
    assert browser.execute_script(focused) == "prev"
    browser.find_element("id", "first").send_keys(Keys.ENTER)  # to step 1: first is disabled
    assert browser.find_element("id", "where").text.startswith("step 1 of ")
    assert browser.execute_script(focused) == "next"
    assert errors(browser) == []


_COLOURS = """
const out = {};
for (const [name, selector] of Object.entries(arguments[0])) {
  const e = document.querySelector(selector);
  if (!e) { continue; }
  let b = e, bg = 'rgba(0, 0, 0, 0)';
  while (b && (bg = getComputedStyle(b).backgroundColor) === 'rgba(0, 0, 0, 0)') {
    b = b.parentElement;
  }
  out[name] = [getComputedStyle(e).color, b ? bg : 'rgb(255, 255, 255)'];
}
return out;
"""


def test_small_coloured_text_is_readable(browser: Any, cup_site: Path, tmp_path: Path) -> None:
    """The live note (green on grey), a trap's turns left and the "deciding" tag (orange), and
    the "chosen" mark (blue on light blue) were below WCAG AA's 4.5:1 for text this small."""
    browser.get("about:blank")
    browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri())
    step = browser.execute_script(
        "return JSON.parse(document.getElementById('game-data').textContent).steps"
        ".findIndex(s => s.traps.some(t => t.length > 0))")
    browser.execute_script(f"location.hash = '#step={step + 1}&view=all'")
    colours = browser.execute_script(_COLOURS, {
        "turns left": "#seats .traps .card.trap .left", "deciding": ".seat .tag.deciding",
        "chosen": "#decision .options .mark"})
    # the live note is on the pages of a tournament not finished (here one stopped)
    server = make_server(site_db.build(tmp_path / "arena.db", state="running", rounds=1),
                         "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/t/cup/index.html")
        colours.update(browser.execute_script(_COLOURS, {"live": "#live"}))
    finally:
        server.shutdown()
        server.server_close()
    assert sorted(colours) == ["chosen", "deciding", "live", "turns left"]
    for name, (foreground, background) in colours.items():
        assert contrast(foreground, background) >= 4.5, (name, foreground, background)
    assert errors(browser) == []

# -- a league -----------------------------------------------------------------------------------
def board_rows(driver: Any, table: str) -> list[list[str]]:
    return driver.execute_script(
        f"return Array.from(document.querySelectorAll('#{table} tbody tr')).map("
        "r => Array.from(r.cells).map(c => c.getAttribute('data-value') ?? c.textContent.trim()))")


def json_rows(db: Path, *more: str) -> list[list[str]]:
    """``arena leaderboard ladder --format json``'s rows as the page shows them (a league is
    not Swiss: no byes nor Buchholz)."""
    import json

    from typer.testing import CliRunner

    from arena.cli.main import app

    result = CliRunner().invoke(app, ["leaderboard", "ladder", "--db", str(db), "--format",
                                      "json", *more])
    rows = []
    for row in json.loads(result.stdout)["bots"]:
        failures = ", ".join(f"{k} {n}" for k, n in row["failures"].items())
        rows.append([str(row["rank"]), row["bot"], row["version"], str(row["mu"]),
                     str(row["sigma"]), str(row["conservative"]), failures,
                     str(row["games"]), str(row["wins"]), str(row["win_pct"]),
                     str(row["mean_placement"]), str(row["points"]), row["note"]])
    return without_empty_columns(rows)


def test_a_league_served_live(browser: Any, league_path: Path, tmp_path: Path) -> None:
    import sqlite3

    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    db = tmp_path / "arena.db"
    db.write_bytes(league_path.read_bytes())
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/t/ladder/"
    try:
        browser.get(base + "index.html")
        assert board_rows(browser, "leaderboard") == json_rows(db)  # the newest versions
        every = browser.find_element("id", "leaderboard-all")
        assert not every.is_displayed()
        summary = browser.find_element("css selector", "#versions summary")
        summary.send_keys(Keys.ENTER)  # the keyboard opens every version
        assert every.is_displayed()
        assert board_rows(browser, "leaderboard-all") == json_rows(db, "--all-versions")
        assert len(board_rows(browser, "leaderboard-all")) == 4
        browser.execute_script("document.getElementById('board-h').scrollIntoView()")
        shoot(browser, "league")
        for page in ("rounds.html", "h2h.html", "games.html", "games/r3-t0-g0.html"):
            browser.get(base + page)
            if page == "rounds.html":
                shoot(browser, "league-tables")
        browser.get(base + "index.html")
        assert browser.find_element("id", "progress").text == "8 games"
        with sqlite3.connect(db) as conn:  # a game lands: a copy of one under a new id
            conn.execute(
                "INSERT INTO games SELECT 'ladder/r5/t0/g0', tournament_id, 5, 0, 0, seed, "
                "seats_json, starting_seat, placements_json, desmos_json, ascension, "
                "tiebreak, failures_json, forfeits_json, decisions, duration_s, record_path, "
                "created_at, latency_json FROM games WHERE id = 'ladder/r4/t0/g0'")
        WebDriverWait(browser, 60).until(lambda b: text_of(b, "progress") == "9 games")
        assert board_rows(browser, "leaderboard") == json_rows(db)
        assert errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


def test_a_league_names_the_bots_no_longer_playing(browser: Any, tmp_path: Path) -> None:
    """A bot retired from a league while its page is open: the page reloads, and the bot
    keeps its row, in grey and saying it no longer plays, and the line under the board names
    it as arena leaderboard's does."""
    import league_db
    from selenium.webdriver.support.ui import WebDriverWait
    from typer.testing import CliRunner

    from arena.cli.main import app

    db = league_db.build(tmp_path / "arena.db")
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/t/ladder/index.html")
        assert text_of(browser, "not-playing") == ""
        retired = CliRunner().invoke(app, ["league", "retire", "ladder", "gamma", "--db",
                                           str(db)])
        assert retired.exit_code == 0, retired.stderr
        told = CliRunner().invoke(app, ["leaderboard", "ladder", "--db", str(db)]).stdout
        line = next(line for line in told.splitlines() if "no longer playing" in line)
        WebDriverWait(browser, 60).until(lambda b: text_of(b, "not-playing") == line)
        assert board_rows(browser, "leaderboard") == json_rows(db)
        shown = browser.execute_script(
            "return Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(r => "
            "[r.getAttribute('data-key'), r.cells[1].innerText, "
            "getComputedStyle(r.cells[0]).color])")
        gone = [row for row in shown if row[0] == "gamma@v1"]
        assert gone and gone[0][1] == "gamma\nno longer playing"
        assert {row[2] for row in shown if row[0] != "gamma@v1"} == {"rgb(26, 26, 26)"}
        assert gone[0][2] == "rgb(85, 85, 85)"  # grey, as the retired versions are
        browser.execute_script("document.getElementById('board-h').scrollIntoView()")
        shoot(browser, "league-retired")
        browser.set_window_size(390, 844)
        try:
            browser.execute_script("document.getElementById('board-h').scrollIntoView()")
            shoot(browser, "league-retired-phone")
        finally:
            browser.set_window_size(1280, 800)
        assert errors(browser) == []
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_game_of_older_rules_shows_what_its_record_holds(browser: Any, older_cup_db: Path,
                                                           tmp_path: Path, width: int) -> None:
    """A report of a tournament stored under older rules: the game's page says why there is
    no step-by-step view, and shows the hands its showdown showed, whole at a phone's width."""
    from arena.web.site import write_site

    write_site(older_cup_db, site_db.NAME, tmp_path, jobs=1)
    with Store(older_cup_db, create=False, read_only=True) as store:
        record = game_record(store, REPLAYED)
    [showdown] = [e for e in record["events"] if e["type"] == "showdown"]
    browser.set_window_size(width, 844)
    try:
        browser.get((tmp_path / "games" / f"{game_slug(REPLAYED)}.html").as_uri())
        note = browser.find_element("id", "rules-note")
        assert note.is_displayed()
        assert note.text.startswith("The step-by-step replay needs the rules this game was "
                                    "played under (palaestra-record/5)")
        hands = browser.execute_script(
            "return Array.from(document.querySelectorAll('.showdown-table tbody tr')).map("
            "r => Array.from(r.querySelectorAll('.card')).map(c => c.textContent.trim()))")
        assert hands == showdown["hands"]
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        shoot(browser, f"older-rules-game-{width}")
        assert errors(browser) == []
    finally:
        browser.set_window_size(1280, 800)


def test_a_wrapped_line_of_the_step_is_highlighted_whole(browser: Any, cup_site: Path) -> None:
    """The step's lines were highlighted as inline text: a line wrapped on a phone left its
    end ("[seen by X]") on a second line highlighted only as far as its text went."""
    browser.set_window_size(390, 844)
    measure = (
        "var box = document.getElementById('new-lines'), pre = document.getElementById('lines');"
        "var text = document.createRange(); text.selectNodeContents(box);"
        "var lines = new Set(Array.from(text.getClientRects()).map(r => Math.round(r.top)));"
        "var style = getComputedStyle(pre);"
        "return {told: box.textContent.split('\\n').length, shown: lines.size,"
        " boxes: box.getClientRects().length, width: box.getBoundingClientRect().width,"
        " inner: pre.clientWidth - parseFloat(style.paddingLeft)"
        " - parseFloat(style.paddingRight)};")
    try:
        browser.get("about:blank")
        browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri())
        steps = browser.execute_script(
            "return JSON.parse(document.getElementById('game-data').textContent).steps.length")
        wrapped = []
        for step in range(1, steps + 1):
            browser.execute_script(f"location.hash = '#step={step}&view=all'")
            shown = browser.execute_script(measure)
            if shown["shown"] > shown["told"]:
                wrapped.append(step)
                assert shown["boxes"] == 1, (step, shown)
                assert abs(shown["width"] - shown["inner"]) < 1, (step, shown)
        assert wrapped
        browser.execute_script(f"location.hash = '#step={wrapped[0]}&view=all'")
        browser.execute_script("document.getElementById('narration-h').scrollIntoView()")
        shoot(browser, "replay-wrapped-step-390")
    finally:
        browser.set_window_size(1280, 800)


#: Each line of the narration that a narrow panel wrapped: where its text starts (past its
#: leading spaces) and where its next visual line starts, in pixels.
_WRAPS = """
var pre = document.getElementById('lines'), found = [], node, top = null, text = null;
var walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT), fresh = true;
while ((node = walker.nextNode())) {
  for (var i = 0; i < node.textContent.length; i++) {
    var c = node.textContent[i];
    if (c === '\\n') { fresh = true; continue; }
    var range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
    var rect = range.getClientRects()[0];
    if (!rect || !rect.width) { continue; }
    if (fresh) { fresh = false; text = null; top = Math.round(rect.top); }
    else if (Math.round(rect.top) > top) {
      found.push({text: text, next: rect.left}); top = Math.round(rect.top);
    }
    if (text === null && c !== ' ') { text = rect.left; }
  }
}
return found;
"""


@pytest.mark.parametrize("width", [390, 1280])
def test_a_wrapped_narration_line_goes_on_under_its_text(browser: Any, cup_site: Path,
                                                          width: int) -> None:
    """A line of "What happened" too long for its panel went on at the panel's left edge,
    under the indent that sets a turn's events apart, and read as a line of its own."""
    browser.set_window_size(width, 844)
    try:
        browser.get("about:blank")
        browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri())
        steps = browser.execute_script(
            "return JSON.parse(document.getElementById('game-data').textContent).steps.length")
        browser.execute_script(f"location.hash = '#step={steps}&view=all'")  # the whole game
        wraps = browser.execute_script(_WRAPS)
        assert wraps or width > 390  # a phone wraps some line
        deeper = [w for w in wraps if w["text"] is not None and w["next"] <= w["text"]]
        assert not deeper, (len(wraps), deeper[:3])
        browser.execute_script("document.getElementById('narration-h').scrollIntoView()")
        shoot(browser, f"replay-wrapped-narration-{width}")
    finally:
        browser.set_window_size(1280, 800)


#: Per bot of the rating chart, whether its mu line shows anywhere: a point along it where
#: the page's topmost element is that line (not another bot's drawn over it).
_LINE_SHOWS = """
const chart = document.querySelector('svg.chart');
chart.scrollIntoView();
const shows = {};
for (const g of chart.querySelectorAll('g.bot')) {
  const line = g.querySelector('polyline[stroke-width="2"]'), points = line.points;
  let seen = false;
  for (let i = 0; i + 1 < points.numberOfItems && !seen; i++) {
    const a = points.getItem(i), b = points.getItem(i + 1);
    for (const t of [0.25, 0.5, 0.75]) {
      const p = new DOMPoint(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
        .matrixTransform(line.getScreenCTM());
      const hit = document.elementFromPoint(p.x, p.y);
      if (hit && g.contains(hit)) { seen = true; break; }
    }
  }
  shows[g.getAttribute('data-bot')] = seen;
}
return shows;
"""


@pytest.mark.parametrize(("rounds", "state"), [(1, "running"), (3, "finished")])
def test_every_bots_rating_line_shows_on_the_chart(browser: Any, tmp_path: Path, rounds: int,
                                                    state: str) -> None:
    """After round one the two tables' winners (and losers) rate alike: gamma's line lay
    wholly under beta's, and gamma was on the chart by its name alone."""
    from arena.web.site import write_site

    db = site_db.build(tmp_path / "arena.db", state=state, rounds=rounds)
    write_site(db, site_db.NAME, tmp_path / "site", jobs=1)
    browser.get((tmp_path / "site" / "index.html").as_uri())
    shows = browser.execute_script(_LINE_SHOWS)
    shoot(browser, f"rating-chart-after-round-{rounds}")
    assert shows == {f"{name}@{version}": True for name, version in site_db.BOTS}
    assert errors(browser) == []
