"""axe-core in the real browser on every kind of page: the tournament's pages (leaderboard,
head-to-head, rounds, games), a league's, `arena serve`'s list of tournaments and live pages,
a class of forty bots' leaderboard, and replays of two-, three- and four-player games at their
first step, mid-game, in one seat's view and at the showdown, at a desktop's width and a
phone's. A serious or critical violation fails, as does a heading that skips a level.

axe-core is not fetched here: `.ci/setup-system` installs the version `.ci/package-lock.json`
pins from npm into `.ci/node_modules` (or `$ARENA_AXE_JS` names an axe.min.js); without it, or
without Chromium, these tests skip and say why. The keyboard's tests here need Chromium alone."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING, contrast

from arena.web.site import game_page

REPO = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("ARENA_AXE_JS")
           or REPO / ".ci" / "node_modules" / "axe-core" / "axe.min.js")
pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
needs_axe = pytest.mark.skipif(not AXE.is_file(), reason=f"axe-core is not installed at {AXE}: "
                               "bash .ci/setup-system installs it (npm ci --prefix .ci)")
FAILING = {"serious", "critical"}
#: moderate, but a screen reader's list of headings is how its user finds a page's parts
ALSO_FAILING = {"heading-order"}


@pytest.fixture(scope="module")
def home(cup_served: str) -> str:
    return cup_served


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


@needs_axe
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page", SITE_PAGES)
def test_a_tournaments_pages(browser: Any, cup_site: Path, page: str, width: int) -> None:
    browser.set_window_size(width, 800)
    try:
        show(browser, (cup_site / page).as_uri())
        assert problems(browser) == []
    finally:
        browser.set_window_size(1280, 800)


@needs_axe
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


@needs_axe
@pytest.mark.parametrize(("step", "view"), [(25, "all"), (25, "2"), (999, "all")])
def test_a_four_player_replay_in_one_file(browser: Any, four_player_page: Path, step: int,
                                          view: str) -> None:
    show(browser, four_player_page.as_uri(), step, view)
    assert problems(browser) == []


@needs_axe
@pytest.mark.parametrize("width", [1366, 390])
def test_a_class_of_forty(browser: Any, class_board: str, width: int) -> None:
    """The leaderboard of forty bots, and its chart's legend of buttons, one picked."""
    browser.set_window_size(width, 800)
    try:
        show(browser, class_board)
        browser.execute_script(
            "document.querySelector('.legend li:nth-last-child(2) .pick').click()")
        assert problems(browser) == []
    finally:
        browser.set_window_size(1280, 800)


@needs_axe
@pytest.mark.parametrize("page", SITE_PAGES)
def test_a_leagues_pages(browser: Any, league_site: Path, page: str) -> None:
    show(browser, (league_site / page).as_uri())
    # every version too, as the page shows it on request
    browser.execute_script("const v = document.getElementById('versions');"
                           "if (v) { v.hidden = false; v.open = true; }")
    assert problems(browser) == []


@needs_axe
@pytest.mark.parametrize("page", ["", "t/cup/index.html", "t/cup/rounds.html",
                                  "t/cup/games.html", "t/nope/index.html"])
def test_the_pages_arena_serve_shows(browser: Any, home: str, page: str) -> None:
    """Its list of tournaments, the live pages with their pause button, and its page of an
    address that finds nothing."""
    show(browser, home + page)
    assert problems(browser) == []


def focus_on(driver: Any, target: str, most: int = 30) -> None:
    """Tab from where the focus is until ``target`` (a CSS selector) has it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    for _ in range(most):
        if driver.execute_script("return document.activeElement.matches(arguments[0])", target):
            return
        ActionChains(driver).send_keys(Keys.TAB).perform()
    raise AssertionError(f"Tab never reached {target}")


def press(driver: Any, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def where(driver: Any) -> int:
    return int(driver.find_element("id", "table").get_attribute("data-step"))


def focus_ring(driver: Any) -> tuple[str, float]:
    """The focused element's outline: its style and width in pixels."""
    style, width = driver.execute_script(
        "const s = getComputedStyle(document.activeElement);"
        "return [s.outlineStyle, s.outlineWidth];")
    return style, float(width.removesuffix("px"))


def test_the_replay_from_the_keyboard_alone(browser: Any, cup_site: Path) -> None:
    """Tab reaches every control, each shows where the focus is, Enter and Space press it;
    Space on the game's header line opens it (it started the replay playing instead)."""
    from selenium.webdriver.common.keys import Keys

    show(browser, (cup_site / "games" / "r2-t0-g0.html").as_uri())
    last = browser.execute_script(
        "return JSON.parse(document.getElementById('game-data').textContent).steps.length - 1")
    focus_on(browser, ".header-lines summary")
    press(browser, Keys.SPACE)
    assert browser.execute_script("return document.querySelector('.header-lines').open")
    assert browser.find_element("id", "play").get_attribute("aria-label") == "Play"
    focus_on(browser, "#play")
    assert focus_ring(browser)[0] != "none" and focus_ring(browser)[1] >= 2
    press(browser, Keys.SPACE)
    assert browser.find_element("id", "play").get_attribute("aria-label") == "Pause"
    press(browser, Keys.ENTER)
    assert browser.find_element("id", "play").get_attribute("aria-label") == "Play"
    focus_on(browser, "#next")
    before = where(browser)
    press(browser, Keys.ENTER)
    press(browser, Keys.SPACE)
    assert where(browser) == before + 2
    focus_on(browser, "#rounds button[data-round='3']")
    assert focus_ring(browser)[0] != "none"
    press(browser, Keys.ENTER)
    assert browser.execute_script(
        "const d = JSON.parse(document.getElementById('game-data').textContent);"
        "const at = Number(document.getElementById('table').dataset.step);"
        "return d.steps[at].round === 3 && d.steps[at - 1].round === 2")
    focus_on(browser, "#to-showdown")
    press(browser, Keys.ENTER)
    assert where(browser) == last
    focus_on(browser, "#view")
    press(browser, Keys.ARROW_DOWN)  # the select's own key: the next view, no step
    assert browser.find_element("id", "table").get_attribute("data-view") == "0"
    assert where(browser) == last
    focus_on(browser, "#lines")  # the narration scrolls: the keyboard reaches it too
    assert focus_ring(browser)[0] != "none"
    press(browser, Keys.HOME)
    assert where(browser) == 0


_RING = """
const e = document.querySelector(arguments[0]);
e.focus();
let b = e.parentElement, bg = 'rgba(0, 0, 0, 0)';
while (b && (bg = getComputedStyle(b).backgroundColor) === 'rgba(0, 0, 0, 0)') {
  b = b.parentElement;
}
const s = getComputedStyle(e);
return [document.activeElement === e, s.outlineStyle, s.outlineColor, s.boxShadow,
        b ? bg : 'rgb(255, 255, 255)'];
"""


@pytest.mark.parametrize(("page", "target"), [
    ("index.html", "main a"), ("index.html", "#leaderboard th.sort"),
    ("index.html", ".top nav a"), ("games.html", "#filters select"),
    ("games/r2-t0-g0.html", "#next"), ("games/r2-t0-g0.html", ".header-lines summary"),
    ("games/r2-t0-g0.html", "#lines")])
def test_the_focus_ring_stands_out_from_the_page(browser: Any, cup_site: Path, page: str,
                                                 target: str) -> None:
    """The focus ring (orange) had 2.1:1 against the pages' light grey, where WCAG AA asks 3:1
    of what shows a control's state; on the dark header it stood out."""
    show(browser, (cup_site / page).as_uri())
    focused, style, outline, shadow, background = browser.execute_script(_RING, target)
    assert focused and style != "none"
    ring = [outline] + re.findall(r"rgba?\([^)]*\)", shadow if shadow != "none" else "")
    assert max(contrast(colour, background) for colour in ring) >= 3, (ring, background)


@needs_axe
@pytest.mark.parametrize("width", [1280, 390])
def test_a_game_of_older_rules_shown_as_recorded(browser: Any, older_cup_db: Path,
                                                 tmp_path: Path, width: int) -> None:
    from arena.web.site import write_site

    write_site(older_cup_db, "cup", tmp_path, jobs=1)
    browser.set_window_size(width, 800)
    try:
        show(browser, (tmp_path / "games" / "r2-t0-g0.html").as_uri())
        assert problems(browser) == []
    finally:
        browser.set_window_size(1280, 800)


def active_pick(driver: Any) -> str | None:
    """The bot of the legend entry the keyboard's focus is on (None: not on one)."""
    return driver.execute_script(  # type: ignore[no-any-return]
        "const e = document.activeElement;"
        "return e.matches('.legend .pick') ? e.getAttribute('data-bot') : null")


def back(driver: Any) -> None:
    """Shift+Tab."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()


def test_the_charts_legend_is_one_stop_for_the_keyboard(browser: Any, class_board: str) -> None:
    """A class's forty legend entries were forty stops of the Tab key between the chart and
    the rest of the page: the legend is one, the arrow keys move between its entries (naming
    each one's line), Space keeps one, and Tab back returns to the entry last used."""
    from selenium.webdriver.common.keys import Keys

    show(browser, class_board)
    bots = [b.get_attribute("data-bot") for b in
            browser.find_elements("css selector", ".legend .pick")]
    browser.find_element("id", "chart-h").click()  # where Tab starts from
    press(browser, Keys.TAB)
    assert active_pick(browser) == bots[0]
    assert focus_ring(browser)[0] != "none"
    press(browser, Keys.ARROW_RIGHT)
    assert active_pick(browser) == bots[1]
    picked = ("return Array.from(document.querySelectorAll('svg.chart g.picked'),"
              " g => g.dataset.bot)")
    assert browser.execute_script(picked) == [bots[1]]  # its line named and raised
    press(browser, Keys.SPACE)
    pressed = browser.find_element("css selector", ".legend .pick[aria-pressed=true]")
    assert pressed.get_attribute("data-bot") == bots[1]
    press(browser, Keys.END)
    assert active_pick(browser) == bots[-1]
    press(browser, Keys.ARROW_RIGHT)  # round to the first
    assert active_pick(browser) == bots[0]
    press(browser, Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert active_pick(browser) == bots[-2]
    press(browser, Keys.TAB)  # out of the legend in one step
    assert active_pick(browser) is None
    back(browser)
    assert active_pick(browser) == bots[-2]
    assert browser.execute_script(picked) == [bots[-2]]  # named while focused
    back(browser)  # on past the chart in one step
    assert active_pick(browser) is None
