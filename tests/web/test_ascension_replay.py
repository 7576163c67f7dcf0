"""In headless Chromium: after an Ascension only the ascender's hand is shown (RULES.md E31),
so a seat's view of a replay shows at the end its own hand and the ascender's, the others'
face down; the whole game's view shows every hand."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from chromium import CHROMIUM, DRIVER, MISSING

from arena.cli.report_commands import write_game_html
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.state import State

pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)

_SHOWDOWN = """
return Array.from(document.querySelectorAll('#showdown tbody tr')).map(
  r => Array.from(r.querySelectorAll('.cards li')).filter(c => c.getAttribute('data-card')).length);
"""


def _god(card: Any) -> bool:
    return isinstance(card, str) and card.startswith("God-")


def _keeping_gods(state: State, rng: random.Random) -> int:
    """An option that keeps the seat's Gods and draws for more: a non-God set as a trap, a
    non-God swapped, discarded or given away, a God taken."""
    decision = state.decision
    assert decision is not None
    kind, options = decision.kind, decision.options
    wanted = {
        "turn": [i for i, o in enumerate(options)
                 if o.get("action") == "trap" and not _god(o.get("card"))],
        "swap": [i for i, o in enumerate(options) if o.get("swap") and not _god(o["swap"])],
        "card": [i for i, o in enumerate(options) if _god(o.get("card"))],
        **{k: [i for i, o in enumerate(options) if not _god(o.get("card"))]
           for k in ("discard", "give", "reveal")},
    }.get(kind, [])
    return rng.choice(wanted) if wanted else rng.randrange(len(options))


def _ascended() -> dict[str, Any]:
    """The first game of three, found by playing, that ends by an Ascension."""
    for seed in range(300):
        state = new_game(GameConfig(players=("ann", "ben", "cy"), seed=seed, starting_seat=0))
        rng = random.Random(seed)
        while state.decision is not None:
            state.apply(_keeping_gods(state, rng))
        if state.result is not None and state.result.ascension:
            return state.record()
    pytest.fail("no game of 300 ended by an Ascension")


def test_a_seats_view_shows_no_hand_but_its_own_and_the_ascenders(browser: Any,
                                                                  tmp_path: Path) -> None:
    record = _ascended()
    ascender = record["result"]["placements"].index(1)
    viewer = (ascender + 1) % 3
    page = tmp_path / "ascension.html"
    write_game_html("ascension", record, page)
    last = len(record["choices"]) + 1
    for view, shown in ((str(viewer), {viewer, ascender}), ("all", {0, 1, 2})):
        browser.get("about:blank")
        browser.get(page.as_uri() + f"#view={view}&step={last}")
        face_up = browser.execute_script(_SHOWDOWN)
        assert [bool(n) for n in face_up] == [seat in shown for seat in range(3)], view
