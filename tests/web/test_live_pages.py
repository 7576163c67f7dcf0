"""Every page of a tournament in play, served by ``arena serve``, keeps a spectator up to date
in a real browser: the head-to-head reloads as games land, as the leaderboard and the rounds
do, and the games list, whose filters and pages a reload would undo, says when games have
landed since it was loaded and offers to reload; a tournament without games yet says so; an
address that finds nothing, or a page that cannot be read now, is a page that leads back (and
tries again)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING

from arena.web.server import make_server

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason=MISSING)


def text_of(browser: Any, element_id: str) -> str:
    """The element's shown text, read in one script (a reload leaves no stale reference)."""
    return str(browser.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.innerText : '';",
        element_id))


def shoot(browser: Any, name: str) -> None:
    screenshots = Path(os.environ.get("ARENA_SCREENSHOTS", "results/screenshots/web"))
    screenshots.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(screenshots / name))


def footer(browser: Any) -> str:
    return str(browser.execute_script(
        "const f = document.querySelector('footer'); return f ? f.innerText : '';"))


@pytest.fixture()
def running(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A tournament in play (5 of 9 games), served: its database and its pages' address."""
    import threading

    db = site_db.build(tmp_path / "arena.db", state="running", rounds=1)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield db, f"http://127.0.0.1:{server.server_port}/t/{site_db.NAME}/"
    finally:
        server.shutdown()
        server.server_close()


def test_head_to_head_reloads_as_games_land(browser: Any, running: tuple[Path, str]) -> None:
    """The head-to-head of a tournament in play stayed as loaded, with no word that it would."""
    from selenium.webdriver.support.ui import WebDriverWait

    db, pages = running
    browser.get(f"{pages}h2h.html")
    assert "5 of 9 games" in footer(browser)
    assert text_of(browser, "live") == "live: refreshes as games land"
    site_db.land_a_game(db)
    WebDriverWait(browser, 30).until(lambda b: "6 of 9 games" in footer(b))


def test_the_games_list_says_when_games_have_landed(browser: Any,
                                                     running: tuple[Path, str]) -> None:
    """The games list of a tournament in play stayed as loaded without saying so: a spectator
    watched it for games that never came. It keeps the reader's filters and says what it
    misses, with a button to reload."""
    import json
    import urllib.request

    from selenium.webdriver.support.ui import Select, WebDriverWait

    db, pages = running
    browser.get(f"{pages}games.html")
    assert text_of(browser, "live") == "live: says when more games land"
    reload_button = browser.find_element("id", "live-reload")
    assert not reload_button.is_displayed()
    Select(browser.find_element("name", "round")).select_by_visible_text("1")
    browser.execute_script("window.notReloaded = true")
    site_db.land_a_game(db)
    WebDriverWait(browser, 30).until(lambda b: "moved on" in text_of(b, "live"))
    with urllib.request.urlopen(f"{pages}api/progress.json") as answer:
        now = json.load(answer)
    assert text_of(browser, "live") == ("the tournament has moved on since this list was "
                                        f"loaded ({now['games']} games, {now['state']})")
    assert browser.execute_script("return window.notReloaded === true")
    assert browser.find_element("id", "live-reload").is_displayed()
    shoot(browser, "games-live.png")
    browser.find_element("id", "live-reload").click()
    WebDriverWait(browser, 30).until(lambda b: "6 of 9 games" in footer(b))
    assert "round=1" in browser.current_url  # the filters chosen are kept
    assert text_of(browser, "live") == "live: says when more games land"


def test_a_finished_tournaments_games_list_says_nothing_of_updates(browser: Any,
                                                                   cup_served: str) -> None:
    browser.get(f"{cup_served}t/{site_db.NAME}/games.html")
    assert browser.find_elements("id", "live") == []
    assert browser.find_elements("id", "live-reload") == []


def test_a_live_page_says_when_its_updates_are_on_hold(browser: Any,
                                                       running: tuple[Path, str]) -> None:
    """With the database gone (or locked, or the server stopped) the page kept saying "live:
    refreshes as games land" while nothing could come: it says why its updates are on hold,
    and that they are live again once the database is back."""
    from selenium.webdriver.support.ui import WebDriverWait

    db, pages = running
    browser.get(f"{pages}index.html")
    assert text_of(browser, "live") == "live: refreshes as games land"
    away = db.with_name("away.db")
    db.rename(away)
    WebDriverWait(browser, 30).until(lambda b: "on hold" in text_of(b, "live"))
    assert text_of(browser, "live").startswith(
        "live updates on hold: the results database arena.db cannot be read now "
        "(the server's terminal says why)")
    browser.execute_script("document.querySelector('footer').scrollIntoView()")
    shoot(browser, "live-on-hold.png")
    away.rename(db)
    WebDriverWait(browser, 30).until(
        lambda b: text_of(b, "live") == "live: refreshes as games land")


def test_a_tournament_without_games_yet_draws_no_empty_chart(browser: Any,
                                                             tmp_path: Path) -> None:
    """Before its first game a tournament's leaderboard drew an empty chart: axes of games 0 to
    1 in fifths, no line, and every name piled up at its top left. It says there are no rated
    games yet."""
    import threading

    db = site_db.build(tmp_path / "arena.db", state="running", rounds=0)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_port}/t/{site_db.NAME}/index.html")
        assert "0 of 9" in text_of(browser, "progress")
        assert browser.find_elements("css selector", "svg.chart") == []
        assert browser.find_elements("css selector", ".legend") == []
        chart = browser.find_element("css selector", "section[aria-labelledby=chart-h]")
        assert chart.text == "Rating over games\nNo rated games yet."
        browser.execute_script("arguments[0].scrollIntoView()", chart)
        shoot(browser, "no-games-yet.png")
    finally:
        server.shutdown()
        server.server_close()


def test_a_tournament_without_games_yet_lists_none(browser: Any, tmp_path: Path) -> None:
    """Before its first game the games page drew the list's head alone, with "0 of 0 games
    shown" and a hint to swipe a table with nothing in it: it says there are no games yet."""
    import threading

    db = site_db.build(tmp_path / "arena.db", state="running", rounds=0)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.set_window_size(390, 800)
        browser.get(f"http://127.0.0.1:{server.server_port}/t/{site_db.NAME}/games.html")
        assert browser.find_elements("id", "games") == []
        assert browser.find_elements("id", "filters") == []
        games = browser.find_element("css selector", "section[aria-labelledby=games-h]")
        assert games.text == "Games\nNo games yet."
        assert text_of(browser, "live") == "live: says when more games land"
        shoot(browser, "no-games-yet-list.png")
    finally:
        browser.set_window_size(1280, 800)
        server.shutdown()
        server.server_close()


def test_an_address_that_finds_nothing_leads_back(browser: Any,
                                                  running: tuple[Path, str]) -> None:
    """A mistyped address, or a link to a tournament since deleted, showed the bare words "not
    found", with no way on: the page says what was not found and links to the tournaments."""
    _, pages = running
    root = pages.split("/t/")[0] + "/"
    browser.get(f"{root}t/nope/index.html")
    main = browser.find_element("id", "main")
    assert main.text.startswith("Not found\nno tournament named 'nope'")
    shoot(browser, "not-found.png")
    browser.find_element("link text", "All tournaments").click()
    assert browser.current_url == root
    assert browser.find_element("link text", site_db.NAME).get_attribute("href") == (
        f"{pages}index.html")


def test_a_page_that_cannot_be_read_now_tries_again(browser: Any,
                                                    running: tuple[Path, str]) -> None:
    """With the database locked by another program or gone, a page asked showed the reason as
    bare text and stayed so: it says so as a page, and comes back by itself once the
    tournament can be read again."""
    from selenium.webdriver.support.ui import WebDriverWait

    db, pages = running
    away = db.with_name("away.db")
    db.rename(away)
    browser.get(f"{pages}rounds.html")
    main = browser.find_element("id", "main")
    assert main.text.startswith("Cannot be read now\nthe results database arena.db cannot be "
                                "read now (the server's terminal says why)\n")
    assert "tries again every 10 seconds" in main.text
    shoot(browser, "cannot-be-read-now.png")
    away.rename(db)
    WebDriverWait(browser, 40).until(
        lambda b: "5 of 9 games" in footer(b))


def test_bots_without_games_are_named_under_the_chart(browser: Any, tmp_path: Path) -> None:
    """A running tournament's chart drew each bot without games yet as a lone point at game 0,
    its name piled with the others' at the chart's top-left corner: such a bot has no line,
    and a line under the chart names it."""
    import threading

    bots = [*site_db.BOTS, ("epsilon", "v1"), ("zeta", "v1")]  # seated in no round
    db = site_db.build(tmp_path / "arena.db", state="running", rounds=1, bots=bots)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for width in (1280, 390):
            browser.set_window_size(width, 900)
            browser.get(f"http://127.0.0.1:{server.server_port}/t/{site_db.NAME}/index.html")
            drawn = browser.execute_script(
                "return Array.from(document.querySelectorAll('svg.chart g.bot'))"
                ".map(g => g.getAttribute('data-bot')).sort()")
            assert drawn == sorted(f"{n}@{v}" for n, v in site_db.BOTS)
            names = browser.execute_script(
                "return Array.from(document.querySelectorAll('svg.chart .end-label'))"
                ".map(t => t.querySelector('title').textContent)")
            assert not {"epsilon", "zeta"} & set(names)
            assert text_of(browser, "not-yet") == (
                "Not yet played, so not on the chart: epsilon, zeta")
            browser.execute_script("document.getElementById('chart-h').scrollIntoView()")
            shoot(browser, f"chart-not-yet-played-{width}.png")
    finally:
        browser.set_window_size(1280, 800)
        server.shutdown()
        server.server_close()


_IN_VIEW = ("const e = document.getElementById(arguments[0]), r = e.getBoundingClientRect();"
            "return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;")


_BELOW_THE_BAR = ("const e = document.getElementById(arguments[0]).getBoundingClientRect(),"
                  " bar = document.getElementById('live-alert').getBoundingClientRect();"
                  "return [Math.round(e.top), Math.round(bar.bottom)];")


def test_skip_to_content_lands_below_the_bar_at_the_top(
        browser: Any, running: tuple[Path, str]) -> None:
    """The bar at the top of the window (updates on hold) covered the lines a jump brings to
    the top: "Skip to content" from far down the page left the content's first lines under
    it."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    db, pages = running
    browser.set_window_size(390, 500)
    browser.get(f"{pages}games.html")
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    away = db.with_name("away.db")
    db.rename(away)
    try:
        WebDriverWait(browser, 30).until(lambda b: text_of(b, "live-alert-text"))
        skip = browser.find_element("css selector", "a.skip")
        browser.execute_script("arguments[0].focus()", skip)
        skip.send_keys(Keys.ENTER)
        WebDriverWait(browser, 10).until(
            lambda b: b.execute_script("return location.hash") == "#main")
        top, bar_bottom = browser.execute_script(_BELOW_THE_BAR, "main")
        assert bar_bottom > 0 and top >= bar_bottom, (top, bar_bottom)
        shoot(browser, "skip-below-the-bar-390.png")
    finally:
        away.rename(db)
    browser.set_window_size(1280, 800)


def test_a_reader_high_on_a_long_page_is_told_updates_are_on_hold(
        browser: Any, running: tuple[Path, str]) -> None:
    """The note that updates are on hold, or that the list is behind, was in the footer only,
    thousands of pixels below a reader at the top of a big field's leaderboard: it shows at
    the top of the window too, wherever the reader is, told politely to a screen reader, its
    button waiting (the keyboard's focus stays where it was)."""
    from selenium.webdriver.support.ui import WebDriverWait

    db, pages = running
    for width in (1280, 390):
        browser.set_window_size(width, 500)
        browser.get(f"{pages}index.html")
        alert = browser.find_element("id", "live-alert-text")
        assert alert.get_attribute("aria-live") == "polite"
        assert not browser.execute_script(_IN_VIEW, "live-alert")  # nothing to say: no room
        assert not browser.execute_script(_IN_VIEW, "live")  # the footer, below the window
        browser.execute_script("window.scrollTo(0, 300)")
        away = db.with_name("away.db")
        db.rename(away)
        try:
            WebDriverWait(browser, 30).until(lambda b: text_of(b, "live-alert-text"))
            assert text_of(browser, "live-alert-text") == text_of(browser, "live")
            assert text_of(browser, "live-alert-text").startswith(
                "live updates on hold: the results database arena.db cannot be read now "
                "(the server's terminal says why)")
            assert browser.execute_script(_IN_VIEW, "live-alert")
            assert browser.execute_script("return document.activeElement === document.body")
            assert not browser.find_element("id", "live-alert-act").is_displayed()
            shoot(browser, f"on-hold-at-the-top-{width}.png")
        finally:
            away.rename(db)
        WebDriverWait(browser, 30).until(lambda b: not text_of(b, "live-alert-text"))
        assert not browser.execute_script(_IN_VIEW, "live-alert")
    browser.set_window_size(390, 500)
    browser.get(f"{pages}games.html")
    browser.execute_script("window.scrollTo(0, 200)")
    site_db.land_a_game(db)
    WebDriverWait(browser, 30).until(lambda b: "moved on" in text_of(b, "live-alert-text"))
    assert text_of(browser, "live-alert-text") == text_of(browser, "live")
    assert browser.execute_script(_IN_VIEW, "live-alert")
    act = browser.find_element("id", "live-alert-act")
    assert act.text == "Reload" and act.is_displayed()
    shoot(browser, "moved-on-at-the-top-390.png")
    browser.execute_script("window.notReloaded = true")
    act.click()
    WebDriverWait(browser, 30).until(
        lambda b: b.execute_script("return window.notReloaded === undefined"))
    assert "6 of 9 games" in footer(browser)
    browser.set_window_size(1280, 800)


def _own_address() -> str:
    """This machine's address on its network (not a loopback one), or a skip without one."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))  # no packet is sent: the route picks the address
            address = str(probe.getsockname()[0])
        except OSError:
            address = ""
    if not address or address.startswith("127."):
        pytest.skip("this machine has no address but the loopback one")
    return address


def test_a_remote_reader_is_told_the_file_name_only(browser: Any, tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """Served with --host, a page that cannot be read now told every other machine the
    database's full path, the paths of the databases beside it and the CLI's advice on --db,
    where the first page names only its file: another machine is told the file name, and so
    is a reader on this one (another user, on a shared machine); the server's terminal is
    told the whole reason."""
    import threading

    db = site_db.build(tmp_path / "arena.db", state="running", rounds=1)
    server = make_server(db, "0.0.0.0", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        away = db.with_name("away.db")
        db.rename(away)
        remote = f"http://{_own_address()}:{server.server_port}/t/{site_db.NAME}/"
        browser.get(f"{remote}rounds.html")
        main = browser.find_element("id", "main").text
        assert main.startswith("Cannot be read now\nthe results database arena.db cannot be "
                               "read now (the server's terminal says why)\n")
        assert str(tmp_path) not in main and "away.db" not in main and "--db" not in main
        shoot(browser, "cannot-be-read-now-remote.png")
        assert any(f"no results database at {db}" in r.getMessage() for r in caplog.records)
        browser.get(f"http://127.0.0.1:{server.server_port}/t/{site_db.NAME}/rounds.html")
        assert browser.find_element("id", "main").text == main
    finally:
        server.shutdown()
        server.server_close()


def test_the_list_of_tournaments_says_how_far_each_stands(browser: Any,
                                                          running: tuple[Path, str]) -> None:
    """The first page listed the tournaments by name alone: a spectator could not tell the one
    in play from the ones long finished, nor one without games yet."""
    import json
    import urllib.request

    _, pages = running
    with urllib.request.urlopen(f"{pages}api/progress.json") as answer:
        now = json.load(answer)
    browser.get(pages.split("/t/")[0] + "/")
    items = browser.find_elements("css selector", "#main li")
    assert [item.text for item in items] == [f"{site_db.NAME}: {now['state']}, "
                                             f"{now['games']} games"]
    shoot(browser, "tournaments.png")
