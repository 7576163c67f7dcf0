"""axe-core in the real browser on every kind of page: the tournament's pages (leaderboard,
head-to-head, rounds, games), a league's, the list of tournaments `arena serve` shows first,
and replays of two-, three- and four-player games at their first step, mid-game, in one seat's
view and at the showdown, at a desktop's width and a phone's. A serious or critical violation
fails, as does a heading that skips a level.

axe-core is not fetched here: `.ci/setup-system` installs the version `.ci/package-lock.json`
pins from npm into `.ci/node_modules` (or `$ARENA_AXE_JS` names an axe.min.js); without it, or
without Chromium, these tests skip and say why."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING, chromium

from arena.web.server import make_server
from arena.web.site import game_page

REPO = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("ARENA_AXE_JS")
           or REPO / ".ci" / "node_modules" / "axe-core" / "axe.min.js")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING),
    pytest.mark.skipif(not AXE.is_file(), reason=f"axe-core is not installed at {AXE}: "
                       "bash .ci/setup-system installs it (npm ci --prefix .ci)"),
]
FAILING = {"serious", "critical"}
#: moderate, but a screen reader's list of headings is how its user finds a page's parts
ALSO_FAILING = {"heading-order"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def home(cup_db: Path) -> Iterator[str]:
    server = make_server(cup_db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def four_player_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A four-player game's page as `arena game --html` writes it: one file."""
    names = ["ann", "ben", "cy", "dee"]
    record = site_db._record(names, [f"{n}@v1" for n in names], 41, "four/r1/t0", 0, [])
    page = tmp_path_factory.mktemp("four") / "game.html"
    page.write_text(game_page(record, "four/r1/t0/g0", root="", inline=True, back=None))
    return page


def problems(driver: Any) -> list[str]:
    """What axe finds on the page shown now that fails here, one line each."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document).then(r => done(r.violations)).catch(e => done(String(e)));")
    assert isinstance(found, list), found  # axe's own error
    return [f"{v['impact']} {v['id']}: {v['help']} at "
            + ", ".join(str(node["target"]) for node in v["nodes"][:5])
            for v in found if v["impact"] in FAILING or v["id"] in ALSO_FAILING]


def show(driver: Any, address: str, step: int | None = None, view: str = "all") -> None:
    driver.get("about:blank")
    driver.get(address)
    if step is not None:  # the replay follows a place typed into its address
        driver.execute_script("location.hash = arguments[0]", f"#step={step}&view={view}")


SITE_PAGES = ["index.html", "h2h.html", "rounds.html", "games.html"]
REPLAYS = [("r1-t0-g1", None, "all"),  # two players, a failure, the first step
           ("r2-t0-g0", 30, "all"),    # three players, mid-game
           ("r2-t0-g0", 30, "1"),      # one seat's view: the others' cards face down
           ("r2-t0-g0", 999, "all")]   # the showdown


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page", SITE_PAGES)
def test_a_tournaments_pages(browser: Any, cup_site: Path, page: str, width: int) -> None:
    browser.set_window_size(width, 800)
    try:
        show(browser, (cup_site / page).as_uri())
        assert problems(browser) == []
    finally:
        browser.set_window_size(1280, 800)


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize(("slug", "step", "view"), REPLAYS)
def test_a_replay(browser: Any, cup_site: Path, slug: str, step: int | None, view: str,
                  width: int) -> None:
    browser.set_window_size(width, 800)
    try:
        show(browser, (cup_site / "games" / f"{slug}.html").as_uri(), step, view)
        assert problems(browser) == []
    finally:
        browser.set_window_size(1280, 800)


@pytest.mark.parametrize(("step", "view"), [(25, "all"), (25, "2"), (999, "all")])
def test_a_four_player_replay_in_one_file(browser: Any, four_player_page: Path, step: int,
                                          view: str) -> None:
    show(browser, four_player_page.as_uri(), step, view)
    assert problems(browser) == []


@pytest.mark.parametrize("page", SITE_PAGES)
def test_a_leagues_pages(browser: Any, league_site: Path, page: str) -> None:
    show(browser, (league_site / page).as_uri())
    # every version too, as the page shows it on request
    browser.execute_script("const v = document.getElementById('versions');"
                           "if (v) { v.hidden = false; v.open = true; }")
    assert problems(browser) == []


def test_the_list_of_tournaments(browser: Any, home: str) -> None:
    show(browser, home)
    assert problems(browser) == []
