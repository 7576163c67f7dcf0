"""Bots' names of any direction on the site, in a real browser: a right-to-left name (Hebrew,
Arabic) keeps the words beside it in their order, and a name with a tall stack of combining
marks (a tournament stored before the rule of names) stays in its own row. Screenshots at
1366 and 390 px go where test_browser.py puts its own."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import site_db
from chromium import CHROMIUM, DRIVER, MISSING

pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)
REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", REPO / "results" / "screenshots" / "web"))
HEBREW, ARABIC = site_db.RTL_NAMES[0][0], site_db.RTL_NAMES[1][0]

#: Where the words just before and just after ``name`` in ``element``'s text are drawn, as
#: [before's right, name's left, name's right, after's left], each null when there is no such
#: word on the name's line: a name that reorders its neighbours draws one on its wrong side.
_SIDES = r"""
const [element, name] = arguments, text = element.textContent;
const start = text.indexOf(name), end = start + name.length;
if (start < 0) { return null; }
function at(offset) {
  const walk = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let seen = 0;
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    if (offset < seen + node.length) { return [node, offset - seen]; }
    seen += node.length;
  }
}
function box(from, to) {
  const range = document.createRange(), a = at(from), b = at(to - 1);
  range.setStart(a[0], a[1]); range.setEnd(b[0], b[1] + 1);
  return range.getBoundingClientRect();
}
const own = box(start, end), sameLine = b => b.top < own.bottom && own.top < b.bottom;
let before = start - 1, after = end;
while (before >= 0 && /\s/.test(text[before])) { before--; }
while (after < text.length && /\s/.test(text[after])) { after++; }
const left = before >= 0 ? box(before, before + 1) : null;
const right = after < text.length ? box(after, after + 1) : null;
return [left && sameLine(left) ? left.right : null, own.left, own.right,
        right && sameLine(right) ? right.left : null];
"""

#: Where each page shows a name beside other words
PLACES = {"index.html": ["#leaderboard td.name", ".legend li"],
          "rounds.html": ["table.round td"], "h2h.html": ["#h2h th"],
          "games.html": ["ul.failures li", "#games tbody td"],
          "games/r1-t0-g1.html": ["#seats h3", "#decision .who", "ul.failures li",
                                  "details.header-lines pre", "#lines"]}


@pytest.fixture(scope="module")
def names_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cup, its entrants named in Hebrew, in Arabic, with a tall stack of marks, and
    delta, as a tournament stored before the rule of names may hold them."""
    from arena.web.site import write_site

    where = tmp_path_factory.mktemp("names")
    site_db.build(where / "names.db", bots=site_db.RTL_NAMES)
    write_site(where / "names.db", site_db.NAME, where / "site", jobs=1)
    return where / "site"


def open_at(driver: Any, address: str, width: int) -> None:
    driver.set_window_size(width, 900)
    driver.get("about:blank")
    driver.get(address)


def misplaced(driver: Any, page: str) -> list[str]:
    """Each place on the page where a word beside a right-to-left name is drawn on its
    wrong side."""
    wrong = []
    for selector in PLACES[page]:
        for element in driver.find_elements("css selector", selector):
            for name in (HEBREW, ARABIC):
                sides = driver.execute_script(_SIDES, element, name)
                if sides is None:
                    continue
                before, left, right, after = sides
                if (before is not None and before > left + 1) or (
                        after is not None and after < right - 1):
                    wrong.append(f"{selector}: {element.text!r}")
    return wrong


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("page", list(PLACES))
def test_a_right_to_left_name_keeps_the_words_beside_it_in_order(
        browser: Any, names_site: Path, page: str, width: int) -> None:
    """A Hebrew or Arabic name took the number after it ("2.0" of a table's points) and the
    name after it (the bot's version) to its left, as right-to-left text: the pages put no
    isolation around names."""
    try:
        open_at(browser, (names_site / page).as_uri() + ("#step=9" if "/" in page else ""),
                width)
        browser.execute_script(  # a replay's header lines, which tell the seats' places
            "document.querySelectorAll('details').forEach(d => { d.open = true; })")
        shown = sum(name in browser.find_element("tag name", "body").text
                    for name in (HEBREW, ARABIC))
        assert shown, page
        assert misplaced(browser, page) == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SHOTS / f"names-{page.replace('/', '-')[:-5]}-{width}.png"))
    finally:
        browser.set_window_size(1280, 800)


#: Replaces the tall name's text (in its <bdi>, or its link before there was one) with its
#: letters alone, marks dropped
_WITHOUT_MARKS = r"""
for (const node of document.querySelectorAll(arguments[0])) {
  const isolated = node.querySelectorAll('bdi');
  for (const name of isolated.length ? isolated : [node]) {
    if (name.textContent.includes(arguments[1])) {
      name.textContent = name.textContent.normalize('NFD').replace(/\p{M}/gu, '');
    }
  }
}
"""


@pytest.mark.parametrize(("page", "rows", "names"), [
    ("index.html", "#leaderboard tbody tr", "#leaderboard td.name a"),
    ("games.html", "#games tbody tr", "#games .seat-entry"),
    ("rounds.html", "table.round tbody tr", "table.round td"),
])
def test_a_tall_stack_of_marks_stays_in_its_row(browser: Any, names_site: Path, page: str,
                                                rows: str, names: str) -> None:
    """A name with forty combining marks was drawn up over the rows above it, over other
    bots' names: each row looks the same whether or not a name below it has its marks."""
    from selenium.webdriver.support.ui import WebDriverWait

    open_at(browser, (names_site / page).as_uri(), 1366)
    # the games list is drawn by its script: its rows are the ones it drew
    WebDriverWait(browser, 10).until(lambda b: b.execute_script(
        "return document.readyState === 'complete'"))
    tall = site_db.TALL
    texts = [row.text for row in browser.find_elements("css selector", rows)]
    above = [i for i, (row, below) in enumerate(zip(texts, texts[1:]))
             if tall in below and tall not in row]
    assert above, page

    def shots() -> list[bytes]:
        found = browser.find_elements("css selector", rows)
        return [found[i].screenshot_as_png for i in above]

    before = shots()
    browser.execute_script(_WITHOUT_MARKS, names, "alg")
    assert not any(tall in row.text for row in browser.find_elements("css selector", rows))
    assert shots() == before
