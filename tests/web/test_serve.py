"""``arena serve``: the report's pages from the database, read only and live, and nothing else
reachable."""

from __future__ import annotations

import hashlib
import http.client
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import site_db

from arena.web.server import make_server


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A running tournament (drawn seed, round 1 played) served on a free port."""
    db = site_db.build(tmp_path / "arena.db", state="running", drawn_seed=True, rounds=1)
    server = make_server(db, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield db, server.server_port
    finally:
        server.shutdown()
        server.server_close()


def get(port: int, path: str, method: str = "GET") -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path)  # sent as written: no client-side normalising of ".."
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def test_the_pages_are_served(served: tuple[Path, int]) -> None:
    _, port = served
    status, home = get(port, "/")
    assert status == 200 and 'href="t/cup/index.html"' in home
    for page in ("index.html", "h2h.html", "rounds.html", "games.html", "static/site.css",
                 "static/replay.js", "games/r1-t0-g0.html"):
        assert get(port, f"/t/cup/{page}")[0] == 200, page
    assert get(port, "/t/cup/")[0] == 200


def test_standings_refresh_as_games_land(served: tuple[Path, int]) -> None:
    db, port = served
    # stored as running with no run holding it: shown as stopped, as arena status shows it
    assert json.loads(get(port, "/t/cup/api/progress.json")[1]) == {"games": 5,
                                                                     "state": "stopped"}
    conn = sqlite3.connect(db)
    with conn:  # a game landing: a copy of one under a new id
        conn.execute("INSERT INTO games SELECT 'cup/r2/t0/g0', tournament_id, 2, 0, 0, seed, "
                     "seats_json, starting_seat, placements_json, desmos_json, ascension, "
                     "tiebreak, failures_json, forfeits_json, decisions, duration_s, "
                     "record_path, created_at, latency_json FROM games WHERE id = 'cup/r1/t0/g0'")
    conn.close()
    assert json.loads(get(port, "/t/cup/api/progress.json")[1])["games"] == 6
    assert "6 of 9" in get(port, "/t/cup/index.html")[1]


def test_a_drawn_seed_is_not_shown_before_the_end(served: tuple[Path, int]) -> None:
    _, port = served
    for page in ("index.html", "rounds.html", "games.html", "h2h.html"):
        assert "987654321" not in get(port, f"/t/cup/{page}")[1]
    assert "drawn, secret until the tournament finishes" in get(port, "/t/cup/index.html")[1]


@pytest.mark.parametrize("path", [
    "/static/../site.py", "/static/..%2fsite.py", "/t/cup/static/../../web/site.py",
    "/t/cup/../../../../etc/passwd", "/t/cup/games/..%2f..%2fdata.html",
    "/t/cup/games/r1-t0-g0.html/../../../etc/passwd", "/t/nope/index.html",
    "/t/cup/games/r9-t0-g0.html", "/etc/passwd", "/t/cup/templates/base.html",
])
def test_nothing_else_is_reachable(served: tuple[Path, int], path: str) -> None:
    status, body = get(served[1], path)
    assert status == 404
    assert "root:" not in body and "import" not in body


def test_read_only(served: tuple[Path, int]) -> None:
    db, port = served
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert get(port, "/t/cup/index.html", "POST")[0] == 405
    assert get(port, "/t/cup/index.html", "DELETE")[0] == 405
    for page in ("index.html", "games/r1-t0-g1.html", "api/progress.json"):
        get(port, f"/t/cup/{page}")
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_bound_to_the_loopback_address_by_default(tmp_path: Path) -> None:
    server = make_server(site_db.build(tmp_path / "a.db", rounds=1), port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()
