"""A Swiss's leaderboard ranked by rating says that it is not the Swiss standings, the
tournament's result, and whom those put first: a class reading `arena leaderboard`, the run's
closing board or its site took the rating's first row for the winner (a class of 25 ranked
its 6th by points first). Under the terminal's board, and on the site's leaderboard page,
whole on a phone's screen as on a desktop's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import class_db
import pytest
from chromium import CHROMIUM, DRIVER, MISSING
from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def _said(db: Path) -> str:
    """The line, its leader the first of `arena status`'s standings (the Swiss scoring's own
    order, not the leaderboard's)."""
    status = runner.invoke(app, ["status", class_db.NAME, "--db", str(db), "-f", "json"])
    leader = json.loads(status.output)["standings"][0]["bot"].split("@")[0]
    options = class_db.OPTIONS.get([name for name, _ in class_db.BOTS].index(leader))
    if options:  # the board labels a bot entered with options with them
        leader += f" ({', '.join(f'{k}={v}' for k, v in sorted(options.items()))})"
    return ("Ranked by rating, not as the Swiss standings (the tournament's result), which rank "
            f"by points, then Buchholz: {leader} first (arena leaderboard {class_db.NAME} "
            "--sort points).")


def test_the_terminals_board_names_the_standings_first(class_path: Path) -> None:
    board = runner.invoke(app, ["leaderboard", class_db.NAME, "--db", str(class_path)])
    assert board.exit_code == 0, board.output
    assert board.output.splitlines()[-1] == _said(class_path)
    by_points = runner.invoke(app, ["leaderboard", class_db.NAME, "--db", str(class_path),
                                    "--sort", "points"])
    assert "Swiss standings" not in by_points.output  # that board is the standings


@pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
@pytest.mark.parametrize("width", [1280, 390])
def test_the_sites_board_names_the_standings_first(browser: Any, class_board: str,
                                                   class_path: Path, width: int) -> None:
    try:
        browser.set_window_size(width, 900)
        browser.get("about:blank")
        browser.get(class_board)
        note = browser.find_element("css selector", "#standings-note")
        assert note.is_displayed() and note.text == _said(class_path)
        assert browser.execute_script(
            "const r = document.querySelector('#standings-note').getBoundingClientRect();"
            "return r.left >= 0 && r.right <= document.documentElement.clientWidth")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    finally:
        browser.set_window_size(1280, 800)


@pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
def test_the_sites_points_column_sorts_as_the_standings(browser: Any, class_board: str,
                                                        class_path: Path) -> None:
    """Sorted down by points, bots of equal points kept the board's rating order: a reader
    sorting the board to see the standings saw a tie's lower Buchholz first. Now the order
    `arena leaderboard --sort points` gives, down to its last tie-break."""
    board = runner.invoke(app, ["leaderboard", class_db.NAME, "--db", str(class_path),
                                "--sort", "points", "-f", "json"])
    standings = [row["bot"] for row in json.loads(board.output)["bots"]]
    browser.get("about:blank")
    browser.get(class_board)
    points = next(th for th in browser.find_elements("css selector", "#leaderboard thead th")
                  if th.text == "points")
    points.click()  # up: the fewest points first
    points.click()  # down: the standings
    assert points.get_attribute("aria-sort") == "descending"
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#leaderboard tbody td.name')]"
        ".map(c => c.getAttribute('data-value'))")
    assert shown == standings
