"""The rounds page's figures are ``arena pairings``': each table's bots, each one's points and
its games played of planned, a round's byes; here a tournament stopped with a game left
unplayed."""

from __future__ import annotations

import html
import re
import sqlite3
from pathlib import Path

import site_db

from arena.tournament.pairings import round_pairings
from arena.web.data import load_tournament
from arena.web.site import render_page

#: A table's row of the rounds page: its number, its seats (bot and points), games.
_TABLE_ROW = re.compile(r'<tr><td><a href="games\.html\?round=(\d+)&amp;table=\d+">\d+</a>'
                        r'</td>\s*<td>(.*?)</td>\s*<td>(\d+) / (\d+)</td></tr>', re.S)
_SEAT = re.compile(r'<span class="pair"><bdi>(.*?)</bdi> <b>(.*?)</b></span>')


def test_each_table_shows_its_bots_points_and_games_as_arena_pairings(tmp_path: Path) -> None:
    db = site_db.build(tmp_path / "arena.db", state="stopped")
    with sqlite3.connect(db) as conn:  # round 1's first table played 2 of its 3 games
        conn.execute("DELETE FROM records WHERE game_id = 'cup/r1/t0/g2'")
        conn.execute("DELETE FROM games WHERE id = 'cup/r1/t0/g2'")
    conn.close()
    page = render_page(load_tournament(db, site_db.NAME), "rounds.html")
    shown = [(int(rnd), [(html.unescape(bot), float(points)) for bot, points in
                         _SEAT.findall(seats)], int(played), int(planned))
             for rnd, seats, played, planned in _TABLE_ROW.findall(page)]
    expected = [(view.round, [(bot.split("@")[0], round(float(points), 1))
                              for bot, points in zip(board.bots, board.points, strict=True)],
                 board.games_done, board.games_planned)
                for view in round_pairings(db, site_db.NAME)[1] for board in view.boards]
    assert shown == expected
    assert shown[0][2:] == (2, 3)


def test_each_round_shows_its_byes_and_their_points_as_arena_pairings(cup_db: Path) -> None:
    page = render_page(load_tournament(cup_db, site_db.NAME), "rounds.html")
    rounds = re.split(r'<h3 id="round-\d+">', page)[1:]
    shown = [[(html.unescape(bot), float(points)) for bot, points in re.findall(
        r'<tr class="bye"><td>bye</td><td><bdi>(.*?)</bdi> <b>(.*?)</b></td>', part)]
        for part in rounds]
    expected = [[(bot.split("@")[0], round(float(points), 1)) for bot, _, points in view.byes]
                for view in round_pairings(cup_db, site_db.NAME)[1]]
    assert shown == expected and any(shown)
