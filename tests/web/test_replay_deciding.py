"""In headless Chromium: at each step of a replay the seat whose decision it is is tagged
``deciding`` (in every view: who decides is public, what it may choose is not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chromium import CHROMIUM, DRIVER, MISSING

from arena.tournament.game_records import game_record
from arena.tournament.store import Store

pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason=MISSING)

_DECIDING = """
return Array.from(document.querySelectorAll('#seats .seat')).map(
  s => s.querySelectorAll('.tag.deciding').length);
"""


@pytest.mark.parametrize("view", ["all", "1"])
def test_the_seat_deciding_is_tagged_at_every_step(browser: Any, cup_site: Path, cup_db: Path,
                                                   view: str) -> None:
    with Store(cup_db, create=False, read_only=True) as store:
        record = game_record(store, "cup/r2/t0/g0")
    for step, (seat, _, _) in enumerate(record["choices"][:6], start=1):
        browser.get("about:blank")
        browser.get((cup_site / "games" / "r2-t0-g0.html").as_uri()
                    + f"#view={view}&step={step}")
        tagged = browser.execute_script(_DECIDING)
        assert tagged == [int(other == seat) for other in range(3)], step
