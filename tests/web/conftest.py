"""Fixtures of the site's tests: a small stored Swiss tournament (site_db.py), a class's
Swiss of forty (class_db.py) and a small league (league_db.py), the cup and the class served,
and a headless Chromium."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import class_db  # noqa: E402
import league_db  # noqa: E402
import site_db  # noqa: E402


@pytest.fixture(scope="session")
def cup_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament: 4 bots, 3 rounds, byes, a 3-player table, one failure."""
    return site_db.build(tmp_path_factory.mktemp("cup") / "arena.db")


@pytest.fixture(scope="session")
def older_cup_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tournament stored by an older arena: every record says it was made under
    format 5's rules, which this engine no longer replays."""
    return site_db.build(tmp_path_factory.mktemp("older-cup") / "arena.db",
                         record_format=site_db.OLDER_FORMAT)


@pytest.fixture(scope="session")
def cup_site(cup_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``arena report cup`` written to a folder."""
    from arena.web.site import write_site

    out = tmp_path_factory.mktemp("site")
    write_site(cup_db, site_db.NAME, out, jobs=1)
    return out


@pytest.fixture(scope="session")
def league_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league stopped after 4 tables: a new version of alpha entered at table 3 (alpha@v1
    retired), delta refused, no end planned."""
    return league_db.build(tmp_path_factory.mktemp("league") / "arena.db")


@pytest.fixture(scope="session")
def league_site(league_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``arena report ladder`` written to a folder."""
    from arena.web.site import write_site

    out = tmp_path_factory.mktemp("league-site")
    write_site(league_path, league_db.NAME, out, jobs=1)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for a test module (tests/web/chromium.py)."""
    from chromium import chromium

    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def cup_served(cup_db: Path) -> Iterator[str]:
    """``arena serve`` of the cup's database on a free port: the site's root address."""
    with site_db.served(cup_db) as root:
        yield root


@pytest.fixture(scope="session")
def class_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A class's finished Swiss: forty bots, long names, options, many failures."""
    return class_db.build(tmp_path_factory.mktemp("class") / "arena.db")


@pytest.fixture(scope="module")
def class_board(class_path: Path) -> Iterator[str]:
    """``arena serve`` of the class's database: its leaderboard page's address."""
    with site_db.served(class_path) as root:
        yield f"{root}t/{class_db.NAME}/index.html"
