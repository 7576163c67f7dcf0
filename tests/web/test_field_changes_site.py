"""A Swiss whose organiser withdrew a bot and entered one late (docs/TOURNAMENTS.md,
"Changing a Swiss under way") says so on the pages a spectator reads a bot's results on, in
the words ``arena status`` and ``arena leaderboard`` put under their tables, whole on a
phone's screen as on a desktop's."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING

from arena.web.server import make_server

pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
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


def test_the_withdrawn_and_late_bots_are_named_on_every_page_of_their_results(
        browser: Any, tmp_path: Path) -> None:
    db = site_db.build(tmp_path / "arena.db",
                       spec_fields={"withdrawn": {"gamma": 3}, "joined": {"delta": 2}})
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for width in (1280, 390):
            browser.set_window_size(width, 800)
            for page in PAGES:
                browser.get(f"http://127.0.0.1:{server.server_port}/t/cup/{page}")
                lines = _field_lines(browser)
                assert [line["text"] for line in lines] == SAID, (width, page)
                assert [line["names"] for line in lines] == [["gamma"], ["delta"]]
                assert all(line["inside"] for line in lines), (width, page)
    finally:
        browser.set_window_size(1280, 800)
        server.shutdown()
        server.server_close()


def test_a_swiss_whose_field_never_changed_says_nothing_of_it(browser: Any,
                                                              cup_served: str) -> None:
    for page in PAGES:
        browser.get(f"{cup_served}t/cup/{page}")
        assert _field_lines(browser) == [], page
