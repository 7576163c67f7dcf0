"""The head-to-head page's cells are ``arena h2h``'s: in the row's bot's place against the
column's bot, its rate, 95% interval and games met in."""

from __future__ import annotations

import html
import re
from pathlib import Path

import site_db

from arena.rating.h2h import build_h2h, h2h_json
from arena.web.data import load_tournament
from arena.web.site import render_page

_CELL = re.compile(r'<td style="[^"]*" data-a="([^"]*)" data-b="([^"]*)" title="[^"]*">'
                   r'<span class="rate">(\d+)%</span> <span class="ci">\((\d+)-(\d+)\)</span> '
                   r'<span class="n">n=(\d+)</span></td>|<td class="none"')


def test_each_cell_is_the_rows_bot_against_the_columns_as_arena_h2h(cup_db: Path) -> None:
    page = render_page(load_tournament(cup_db, site_db.NAME), "h2h.html")
    h2h = h2h_json(build_h2h(cup_db, site_db.NAME))
    pairs = {(p["a"], p["b"]): p for p in h2h["pairs"]}
    heads = [html.unescape(name) for name in re.findall(
        r'<th scope="col"><bdi>(.*?)</bdi></th>', page)]
    assert heads == [key.split("@")[0] for key in h2h["bots"]]
    rows = page.split('<tr><th scope="row">')[1:]
    assert len(rows) == len(h2h["bots"])
    met = 0
    for row_bot, row in zip(h2h["bots"], rows, strict=True):
        assert row.startswith(f"<bdi>{row_bot.split('@')[0]}</bdi></th>")
        for column_bot, cell in zip(h2h["bots"], _CELL.findall(row), strict=True):
            pair = pairs.get((row_bot, column_bot))
            if pair is None:
                assert cell[0] == "", (row_bot, column_bot)
                continue
            met += 1
            assert cell == (row_bot, column_bot, str(round(100 * pair["win_rate"])),
                            str(round(100 * pair["low"])), str(round(100 * pair["high"])),
                            str(pair["games"]))
    assert met == len(pairs)
