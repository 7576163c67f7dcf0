"""The leaderboard page's figures read as ``arena leaderboard`` prints them: mu, sigma and
mu-3sigma to two places, win % to one, mean place and points to two (its sorting reads the
full values; this is what a reader sees)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import site_db

from arena.rating.board_view import leaderboard_json
from arena.rating.leaderboard import build_leaderboard
from arena.web.data import load_tournament
from arena.web.site import render_page


def _cells(row: str) -> list[str]:
    """A table row's cells as text, their markup left out."""
    return [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def test_each_rows_figures_are_rounded_as_the_terminals_table(cup_db: Path) -> None:
    page = render_page(load_tournament(cup_db, site_db.NAME), "index.html")
    board = page.split('<table id="leaderboard"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr data-key="([^"]*)"[^>]*>(.*?)</tr>', board, re.S)
    expected = leaderboard_json(build_leaderboard(cup_db, site_db.NAME))["bots"]
    assert [key for key, _ in rows] == [row["key"] for row in expected]
    for (_, row), bot in zip(rows, expected, strict=True):
        cells = _cells(row)
        assert cells[:6] == [str(bot["rank"]), bot["bot"], bot["version"], f"{bot['mu']:.2f}",
                             f"{bot['sigma']:.2f}", f"{bot['conservative']:.2f}"]
        # the failures column, where shown, sits between the rating and the games
        assert cells[-7:-2] == [str(bot["games"]), str(bot["wins"]), f"{bot['win_pct']:.1f}",
                                f"{bot['mean_placement']:.2f}", f"{bot['points']:.2f}"]
