"""A class's Swiss of forty student bots (class_db.py: long names, options, failures) as a
teacher opens it in a real browser: the leaderboard fits a laptop's screen and a phone shows
rank, bot, score and failures first, every value still on the page; the rating chart's names
stay apart. Screenshots at 1366, 1600 and 390 px go where test_browser.py puts its own."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import class_db
import pytest
from chromium import CHROMIUM, DRIVER, MISSING

from arena.rating.board_view import leaderboard_json
from arena.rating.leaderboard import build_leaderboard

pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", REPO / "results" / "screenshots" / "web"))


def open_at(driver: Any, address: str, width: int) -> None:
    driver.set_window_size(width, 900)
    driver.get("about:blank")
    driver.get(address)


def shoot(driver: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def rows_by_heading(driver: Any) -> list[dict[str, str]]:
    """Each leaderboard row as heading: the cell's value (its data-value, else its text)."""
    return driver.execute_script(
        "const t = document.querySelector('#leaderboard');"
        "const heads = Array.from(t.tHead.rows[0].cells).map(c => c.textContent.trim());"
        "return Array.from(t.tBodies[0].rows).map(r => Object.fromEntries(Array.from(r.cells)"
        ".map((c, i) => [heads[i], c.getAttribute('data-value') ?? c.textContent.trim()])))")


def in_view(driver: Any) -> list[str]:
    """The leaderboard's headings a reader sees without scrolling: inside its box and the
    window."""
    return driver.execute_script(
        "const box = document.querySelector('#leaderboard').parentElement"
        ".getBoundingClientRect(), right = Math.min(box.right, innerWidth);"
        "return Array.from(document.querySelectorAll('#leaderboard thead th')).filter("
        "c => c.offsetParent !== null && c.getBoundingClientRect().right <= right + 1)"
        ".map(c => c.textContent.trim())")


def failures_past_view(driver: Any) -> float:
    """How far the leaderboard's rightmost failures cell (heading included) reaches past
    what a reader sees of the board (its box, within the window): 0 or less when in view."""
    return driver.execute_script(
        "const t = document.querySelector('#leaderboard');"
        "const box = t.parentElement.getBoundingClientRect();"
        "const i = Array.from(t.tHead.rows[0].cells).findIndex("
        "c => c.textContent.trim() === 'failures');"
        "return Math.max(...Array.from(t.rows).map(r => r.cells[i].getBoundingClientRect()"
        ".right)) - Math.min(box.right, innerWidth)")


def test_every_value_of_the_leaderboard_is_on_the_page(browser: Any, class_board: str,
                                                       class_path: Path) -> None:
    open_at(browser, class_board, 1366)
    shown = rows_by_heading(browser)
    expected = leaderboard_json(build_leaderboard(class_path, class_db.NAME))["bots"]
    assert len(shown) == len(expected) == 40
    for row, want in zip(shown, expected):
        assert row["rank"] == str(want["rank"]) and row["bot"] == want["bot"]
        assert row["mu-3sigma"] == str(want["conservative"])
        assert row["buchholz"] == str(want["buchholz"])
        failures = ", ".join(f"{k} {n}" for k, n in want["failures"].items())
        assert row["failures"].startswith(failures)
        if want["forfeits"]:
            assert f"{want['forfeits']} forfeit" in row["failures"]
    assert sum(bool(r["failures"]) for r in shown) > 20  # the class's many failures


@pytest.mark.parametrize("width", [1366, 1600])
def test_a_laptop_sees_the_whole_leaderboard(browser: Any, class_board: str,
                                             width: int) -> None:
    """At 1366 and 1600 px the failures column, the one a teacher needs, was past the right
    edge of the leaderboard's box: the board's box was 1240 px at most, its cells did not
    wrap, and the Swiss columns and a bot's options made it wider."""
    try:
        open_at(browser, class_board, width)
        assert failures_past_view(browser) <= 0
        headings = browser.execute_script(
            "return Array.from(document.querySelectorAll('#leaderboard thead th'))"
            ".map(c => c.textContent.trim())")
        assert in_view(browser) == headings  # every column, none scrolled out of view
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        shoot(browser, f"class-leaderboard-{width}")
    finally:
        browser.set_window_size(1280, 800)


def test_a_phone_sees_rank_bot_score_and_failures_first(browser: Any,
                                                        class_board: str) -> None:
    try:
        open_at(browser, class_board, 390)
        assert in_view(browser)[:4] == ["rank", "bot", "mu-3sigma", "failures"]
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        shoot(browser, "class-leaderboard-390")
    finally:
        browser.set_window_size(1280, 800)


def label_boxes(driver: Any) -> list[dict[str, Any]]:
    """The rating chart's names drawn now: each one's text and box on the screen."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.chart .end-label')).filter("
        "t => getComputedStyle(t).display !== 'none' && getComputedStyle(t).visibility"
        " !== 'hidden').map(t => { const b = t.getBoundingClientRect();"
        " return {name: t.textContent, top: b.top, bottom: b.bottom, left: b.left,"
        " right: b.right}; })")


def overlapping(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(a["name"], b["name"]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if a["left"] < b["right"] and b["left"] < a["right"]
            and a["top"] < b["bottom"] and b["top"] < a["bottom"]]


@pytest.mark.parametrize("width", [1366, 390])
def test_the_rating_charts_names_stay_apart_at_forty(browser: Any, class_board: str,
                                                     width: int) -> None:
    """Forty names at the lines' ends were squeezed a few pixels apart, each over the next:
    unreadable. The names drawn do not touch, and are a readable size."""
    try:
        open_at(browser, class_board, width)
        chart = browser.find_element("css selector", "svg.chart")
        browser.execute_script("arguments[0].scrollIntoView()", chart)
        boxes = label_boxes(browser)
        assert boxes and overlapping(boxes) == []
        if width == 1366:
            assert min(b["bottom"] - b["top"] for b in boxes) >= 12
        SHOTS.mkdir(parents=True, exist_ok=True)
        chart.screenshot(str(SHOTS / f"class-chart-{width}.png"))
    finally:
        browser.set_window_size(1280, 800)


def test_any_line_of_the_forty_is_named_on_request(browser: Any, class_board: str) -> None:
    """Only the top ten lines are named at their ends: focusing (or pressing) a legend entry
    names its line, and the keyboard reaches every entry."""
    try:
        open_at(browser, class_board, 1366)
        picks = browser.find_elements("css selector", ".legend .pick")
        assert len(picks) == 40
        named = {b["name"] for b in label_boxes(browser)}
        last = picks[-1]
        assert not any(name.startswith(last.get_attribute("data-bot").split("@")[0])
                       for name in named)
        browser.execute_script("arguments[0].focus()", last)
        shown = [b["name"] for b in label_boxes(browser)]
        assert len(shown) == len(named) + 1
        bot = last.get_attribute("data-bot").split("@")[0]
        assert any(name.startswith(bot) for name in shown)  # its title, then its short name
        last.click()
        browser.execute_script("document.activeElement.blur()")
        assert last.get_attribute("aria-pressed") == "true"
        assert len(label_boxes(browser)) == len(named) + 1  # kept once pressed
        shoot(browser, "class-chart-picked-1366")
    finally:
        browser.set_window_size(1280, 800)


def drawn_names(driver: Any) -> list[dict[str, Any]]:
    """The rating chart's names drawn now: each one's whole name (its tooltip), the text
    drawn (isolation marks left out), its right edge and the chart's inner right edge."""
    return driver.execute_script(
        "const svg = document.querySelector('svg.chart'), box = svg.getBoundingClientRect();"
        "const edge = box.left + svg.clientLeft + svg.clientWidth;"
        "return Array.from(svg.querySelectorAll('.end-label')).filter("
        "t => getComputedStyle(t).display !== 'none').map(t => ({"
        " whole: t.querySelector('title').textContent,"
        " drawn: t.lastChild.data.replace(/[\\u2068\\u2069]/g, ''),"
        " right: t.getBoundingClientRect().right, edge: edge}))")


@pytest.mark.parametrize("width", [1366, 390])
def test_a_lines_name_fits_the_chart_with_an_ellipsis_where_cut(browser: Any, class_board: str,
                                                               width: int) -> None:
    """A phone drew a picked line's name as a wide screen does, fourteen letters, in its
    larger type: past the chart's right edge, cut off mid-letter; and at both widths the
    longest of the names at the lines' ends ran a few pixels past it, their ellipsis cut.
    Each name drawn ends inside the chart, and a cut one ends in an ellipsis."""
    try:
        open_at(browser, class_board, width)
        picks = browser.find_elements("css selector", ".legend .pick")
        browser.execute_script("arguments[0].focus()", picks[-1])
        names = drawn_names(browser)
        assert len(names) == (5 if width == 390 else 10) + 1  # the top ones, the picked one
        assert names[-1]["whole"] == picks[-1].text
        # whole under the chart, where a phone's reader sees it
        assert browser.find_element("id", "picked-name").text == picks[-1].text
        picks[1].click()  # tapped: kept
        assert browser.find_element("id", "picked-name").text == picks[1].text
        for name in names:
            assert name["right"] <= name["edge"], name
            if name["drawn"] != name["whole"]:
                assert name["drawn"].endswith("\u2026"), name
                assert name["whole"].startswith(name["drawn"][:-1]), name
        chart = browser.find_element("css selector", "svg.chart")
        browser.execute_script("arguments[0].scrollIntoView()", chart)
        SHOTS.mkdir(parents=True, exist_ok=True)
        chart.screenshot(str(SHOTS / f"class-chart-picked-{width}.png"))
    finally:
        browser.set_window_size(1280, 800)
