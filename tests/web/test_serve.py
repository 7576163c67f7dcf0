"""``arena serve``: the report's pages from the database, read only and live, and nothing else
reachable."""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import site_db

from arena.web import server as server_module
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


def get(port: int, path: str, method: str = "GET",
        host: str | None = None) -> tuple[int, str]:
    """Status and body of a request sent as written (no client-side normalising of ".."),
    naming ``host`` in its Host header when given."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, headers={"Host": host} if host is not None else {})
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


def test_a_tournaments_pages_lead_back_to_the_list(served: tuple[Path, int]) -> None:
    """Served, a tournament's pages had no link to the list of the database's tournaments:
    a visitor reached another one only by editing the address."""
    import re
    from urllib.parse import urljoin

    from arena.web.data import load_tournament
    from arena.web.site import render_page

    db, port = served
    for page in ("index.html", "h2h.html", "rounds.html", "games.html"):
        links = dict((label, href) for href, label in re.findall(
            r'<a href="([^"]*)"[^>]*>([^<]*)</a>', get(port, f"/t/cup/{page}")[1]))
        assert urljoin(f"/t/cup/{page}", links["All tournaments"]) == "/", page
    status, home = get(port, "/")
    assert status == 200 and "<h2>Tournaments</h2>" in home
    # a report's folder has no such list: its pages do not link to one
    assert "All tournaments" not in render_page(load_tournament(db, "cup"), "index.html")


def test_a_tournament_asked_without_its_slash_moves_to_it(served: tuple[Path, int]) -> None:
    """/t/cup was answered with the leaderboard, whose relative links then resolved under /t/:
    no style, no script, every page link not found."""
    _, port = served
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/t/cup?bot=beta")
        response = conn.getresponse()
        response.read()
        assert response.status == 301
        assert response.getheader("Location") == "/t/cup/?bot=beta"
    finally:
        conn.close()
    assert get(port, "/t/cup/")[0] == 200
    assert get(port, "/t/nope")[0] == 404  # only a tournament's folder moves


@pytest.mark.parametrize(("asked", "moved"), [
    ("/t/cup/index.html/", "/t/cup/index.html"), ("/t//cup//games.html", "/t/cup/games.html"),
    ("/t/cup/games/r1-t0-g0.html/?x=1", "/t/cup/games/r1-t0-g0.html?x=1"),
    ("/t/cup%2Fh2h.html", "/t/cup/h2h.html"), ("/t/cup//index.html", "/t/cup/index.html"),
    ("/t/cup/static/site.css/", "/t/cup/static/site.css"),
])
def test_a_page_asked_by_another_spelling_moves_to_its_own(served: tuple[Path, int],
                                                           asked: str, moved: str) -> None:
    """A page asked with a slash after it, doubled slashes or an encoded one was answered as
    it stood: its relative links then resolved elsewhere (no style, no script, its links
    not found)."""
    conn = http.client.HTTPConnection("127.0.0.1", served[1], timeout=30)
    try:
        conn.request("GET", asked)
        response = conn.getresponse()
        response.read()
        assert (response.status, response.getheader("Location")) == (301, moved)
    finally:
        conn.close()
    assert get(served[1], moved)[0] == 200
    assert get(served[1], "/t/cup/nope.html/")[0] == 404  # only a page there moves


def test_standings_refresh_as_games_land(served: tuple[Path, int]) -> None:
    db, port = served
    # stored as running with no run holding it: shown as stopped, as arena status shows it
    assert json.loads(get(port, "/t/cup/api/progress.json")[1]) == {"games": 5,
                                                                     "state": "stopped"}
    site_db.land_a_game(db)
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


def test_a_request_naming_another_host_is_refused(served: tuple[Path, int]) -> None:
    """Listening on the loopback address, the server answers only to loopback names: a web
    page the user visits, whose own name resolves to 127.0.0.1 (DNS rebinding), cannot read
    a tournament through it."""
    port = served[1]
    assert get(port, "/t/cup/index.html", host=f"evil.example:{port}") == (
        421, "this server answers to its loopback address only\n")
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "localhost"):
        assert get(port, "/t/cup/index.html", host=host)[0] == 200, host


def test_a_loopback_name_is_answered_in_any_case_and_with_its_root_dot(
        served: tuple[Path, int]) -> None:
    """A host name is case-insensitive and may end in the root's dot (``localhost.`` is the
    same name): a browser sending ``LOCALHOST`` or ``localhost.`` was refused 421. A second
    dot, or a rebinding name in capitals, is still not a loopback name."""
    port = served[1]
    for host in (f"LOCALHOST:{port}", f"Localhost:{port}", f"localhost.:{port}", "LOCALHOST.",
                 f"cup.LocalHost:{port}", f"127.0.0.1.:{port}", f"[::FFFF:127.0.0.1]:{port}"):
        assert get(port, "/t/cup/index.html", host=host)[0] == 200, host
    for host in (f"localhost..:{port}", f"EVIL.example:{port}", f".:{port}"):
        assert get(port, "/t/cup/index.html", host=host) == (
            421, "this server answers to its loopback address only\n"), host


@pytest.mark.parametrize("method", ["POST", "OPTIONS", "TRACE", "PROPFIND", "CONNECT", "get"])
def test_a_refused_method_names_the_allowed_ones(served: tuple[Path, int], method: str) -> None:
    """Any method but GET and HEAD is 405 with the allowed ones: OPTIONS, TRACE and the
    methods of WebDAV were 501, a server error, for a request the client got wrong."""
    conn = http.client.HTTPConnection("127.0.0.1", served[1], timeout=30)
    try:
        conn.request(method, "/t/cup/index.html")
        response = conn.getresponse()
        assert response.status == 405 and response.getheader("Allow") == "GET, HEAD"
    finally:
        conn.close()


def test_a_bug_answers_500_and_is_logged_in_one_line(served: tuple[Path, int],
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """The library reports (a log record, shown as ``error: ...`` by the CLI); the server
    goes on."""
    def broken(self: object, path: str) -> tuple[int, bytes, str]:
        raise RuntimeError("boom")

    monkeypatch.setattr(server_module._Handler, "_route", broken)
    with caplog.at_level("ERROR", logger="arena.web"):
        status, body = get(served[1], "/t/cup/")
    assert (status, body) == (500, "internal error (said on the server's console)\n")
    assert caplog.messages == ["arena serve: /t/cup/: RuntimeError: boom"]


def test_a_client_gone_mid_answer_is_no_error(served: tuple[Path, int],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A closed tab while a page is sent breaks the connection: nothing to report."""
    server = make_server(served[0], "127.0.0.1", 0)
    try:
        for gone in (ConnectionResetError(104, "reset"), BrokenPipeError(32, "pipe")):
            try:
                raise gone
            except OSError:
                server.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
    finally:
        server.server_close()


def test_requests_at_once_read_a_tournament_once(served: tuple[Path, int],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Several requests for a tournament whose data is not read yet: one reads and rates it,
    the others wait for that (each reading it alone multiplied a big tournament's wait)."""
    import arena.web.server as server_module

    callers = 4
    asked = threading.Semaphore(0)
    loads: list[str] = []
    real_progress, real_load = server_module.progress, server_module.load_tournament

    def counted_progress(db: Path, name: str) -> dict[str, object]:
        asked.release()
        return real_progress(db, name)

    def slow_load(db: Path, name: str, memo: object) -> object:
        loads.append(name)
        for _ in range(callers):  # every caller has asked before the data is ready
            assert asked.acquire(timeout=60)
        return real_load(db, name, memo)

    monkeypatch.setattr(server_module, "progress", counted_progress)
    monkeypatch.setattr(server_module, "load_tournament", slow_load)
    server = make_server(served[0], "127.0.0.1", 0)
    try:
        got: list[object] = []
        threads = [threading.Thread(target=lambda: got.append(server.tournament("cup")))
                   for _ in range(callers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert loads == ["cup"] and len(got) == callers
        assert all(data is got[0] for data in got)
    finally:
        server.server_close()


def test_a_page_asked_again_is_rendered_once_until_games_land(
        served: tuple[Path, int], monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.web.server as server_module

    db, port = served
    rendered: list[str] = []
    real_render = server_module.render_page

    def counted(data: object, page: str, live: bool = False) -> str:
        rendered.append(page)
        return real_render(data, page, live=live)  # type: ignore[arg-type]

    monkeypatch.setattr(server_module, "render_page", counted)
    first = get(port, "/t/cup/games.html")
    assert get(port, "/t/cup/games.html") == first and rendered == ["games.html"]
    conn = sqlite3.connect(db)
    with conn:  # its state changes, as when a game lands: the page is new
        conn.execute("UPDATE tournaments SET state = 'finished'")
    conn.close()
    assert get(port, "/t/cup/games.html")[0] == 200 and rendered == ["games.html"] * 2


def test_a_tournament_stored_under_older_rules_is_served_whole(older_cup_db: Path) -> None:
    """An old game's page answered 500 with the replay's refusal: every page answers, and
    the game's shows what its record holds under the line saying why it does not replay."""
    server = make_server(older_cup_db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_port
        for page in ("index.html", "h2h.html", "rounds.html", "games.html"):
            assert get(port, f"/t/cup/{page}")[0] == 200, page
        status, game = get(port, "/t/cup/games/r2-t0-g0.html")
    finally:
        server.shutdown()
        server.server_close()
    assert status == 200
    assert ("The step-by-step replay needs the rules this game was played under "
            "(palaestra-record/5); this arena plays palaestra-record/7, so the game is shown "
            "as recorded.") in game
    assert "alpha" in game and "gamma" in game and "delta" in game  # the three-player table


def test_a_stored_record_that_does_not_replay_is_served_as_recorded(
        served: tuple[Path, int]) -> None:
    """A record of today's rules whose replay fails answered 500: its page shows what it
    holds under the replay's reason."""
    import html

    db, port = served
    site_db.damage(db, "cup/r1/t0/g0")
    status, game = get(port, "/t/cup/games/r1-t0-g0.html")
    assert status == 200
    assert ("This record of today's rules does not replay, so the game is shown as recorded; "
            "the replay says: choice 0: the record does not replay here (arena replay says "
            "where it differs).") in html.unescape(game)
    assert "game-data" not in game and "alpha" in game and "beta" in game
    assert get(port, "/t/cup/games/r1-t0-g1.html")[0] == 200


@pytest.mark.parametrize("how", sorted(site_db.BREAKS))
def test_a_stored_record_that_cannot_be_read_is_served_from_its_row(
        served: tuple[Path, int], how: str) -> None:
    """A blob that does not decompress or parse answered 503 for its game's page: every page
    is served, the game's own from its stored row under one line saying why."""
    import html

    db, port = served
    site_db.break_record(db, "cup/r1/t0/g2", how)
    status, game = get(port, "/t/cup/games/r1-t0-g2.html")
    assert status == 200
    assert (f"Its stored record is damaged ({site_db.BREAKS[how]}), so the game is shown as "
            "far as its stored row goes: its bots, places and failures.") in html.unescape(game)
    assert "alpha" in game and "beta" in game and "1st" in game and "2nd" in game
    for page in ("/t/cup/", "/t/cup/games.html", "/t/cup/h2h.html", "/t/cup/rounds.html",
                 "/t/cup/games/r1-t0-g1.html"):
        assert get(port, page)[0] == 200, page


def headers(port: int, request: bytes) -> dict[str, str]:
    """The headers of the answer to ``request``, sent as written (a malformed one too)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := conn.recv(65536)):
            answer += chunk
    lines = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    return {name.lower(): value.strip() for name, _, value in (line.partition(":")
                                                                for line in lines)}


@pytest.mark.parametrize("request_line", [
    b"GET / HTTP/1.1", b"GET /t/cup/index.html HTTP/1.1",
    b"GET /t/cup/games/r1-t0-g0.html HTTP/1.1",
    b"GET /t/cup/static/site.js HTTP/1.1", b"GET /t/cup/api/progress.json HTTP/1.1",
    b"GET /t/nope/ HTTP/1.1", b"POST /t/cup/ HTTP/1.1", b"GET /t/cup HTTP/1.1",
    b"GET / HTTP/1.1\r\nX: " + b"a" * 70000,
], ids=["home", "page", "replay", "script", "progress", "not found", "refused method", "moved",
        "header too long"])
def test_every_answer_confines_what_a_page_may_run(served: tuple[Path, int],
                                                   request_line: bytes) -> None:
    """Every answer, a page, a script, a refusal or the standard library's own for a
    malformed request, says what a page may load: only the site's own scripts (no inline
    script, so markup a bot's text slipped past escaping could not run), nothing from
    elsewhere, in no other site's frame, and its type as sent."""
    got = headers(served[1], request_line + b"\r\nHost: 127.0.0.1\r\n\r\n")
    policy = dict((directive.strip().split(" ", 1) + [""])[:2]
                  for directive in got["content-security-policy"].split(";"))
    assert policy["default-src"] == "'none'" and "'self'" in policy["script-src"].split()
    assert "'unsafe-inline'" not in policy["script-src"]
    assert policy["frame-ancestors"] == "'none'" and policy["base-uri"] == "'none'"
    assert got["x-content-type-options"] == "nosniff"
    assert got["referrer-policy"] == "no-referrer"


def test_an_http_0_9_request_is_refused_with_headers(served: tuple[Path, int]) -> None:
    """A request of HTTP/0.9 (a line without a version) was answered with the page alone, as
    that version has no headers: no policy came with it. No browser speaks it: refused."""
    with socket.create_connection(("127.0.0.1", served[1]), timeout=30) as conn:
        conn.sendall(b"GET /t/cup/index.html\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.0 505 ")
    assert b"\r\nContent-Security-Policy: default-src 'none'" in answer
    assert b"alpha" not in answer  # nothing of the page


def test_the_site_tells_no_path_and_no_interpreter_version(served: tuple[Path, int]) -> None:
    """Served to others (``--host``), the home page showed the database's whole path and the
    Server header the Python version: the database's name and the program's are enough."""
    db, port = served
    _, home = get(port, "/")
    assert f"In {db.name}, read live." in home and str(db.parent) not in home
    got = headers(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert got["server"] == "arena-serve"


def test_a_handed_tournament_named_with_a_slash_is_served(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A handed database's tournament name never passed the rule of names and may hold a
    slash: the home page listed it, but its link (the slash encoded) was read as two folders
    and every page of it was 404."""
    name = "club/cup"
    monkeypatch.setattr(site_db, "NAME", name)
    monkeypatch.setattr(site_db, "FAILING_GAME", f"{name}/r1/t0/g1")
    db = site_db.build(tmp_path / "arena.db", rounds=1)
    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_port
        status, home = get(port, "/")
        assert status == 200 and 'href="t/club%2Fcup/index.html"' in home
        for page in ("index.html", "games.html", "static/site.css", "games/r1-t0-g0.html"):
            assert get(port, f"/t/club%2Fcup/{page}")[0] == 200, page
        status, board = get(port, "/t/club%2Fcup/index.html")
        assert "alpha" in board and 'href="static/site.css"' in board
        assert get(port, "/t/club%2Fcup")[0] == 301  # its folder, as any tournament's
        assert get(port, "/t/club/cup/index.html")[0] == 404  # two folders: no such name
    finally:
        server.shutdown()
        server.server_close()


def test_a_remote_readers_refusal_is_logged_again_after_a_recovery(
        served: tuple[Path, int], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Told once while the same reason lasts (a refused page tries again every 10 s), and
    again when it comes back after the tournament was read: a second outage in the same words
    went untold."""
    db, port = served
    monkeypatch.setattr(server_module, "_loopback", lambda host: False)  # every reader remote
    away = db.with_name("away.db")
    told = (f"arena serve: no results database at {db}", "(readers are told only the")
    with caplog.at_level("WARNING", logger="arena.web"):
        for step in ("gone", "gone", "back", "gone", "gone"):
            if step == "gone" and db.exists():
                db.rename(away)
            if step == "back":
                away.rename(db)
            status, _ = get(port, "/t/cup/rounds.html")
            assert status == (200 if step == "back" else 503), step
    logged = [m for m in caplog.messages if m.startswith(told[0])]
    assert len(logged) == 2 and all(told[1] in m for m in logged), caplog.messages


@pytest.mark.parametrize("full_errors", [False, True])
def test_a_reader_on_this_machine_is_told_the_file_name_only_unless_asked(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, full_errors: bool) -> None:
    """A reader on the server's own machine was told why a page could not be read, the
    database's full path and the databases beside it included: on a shared machine (a
    class's server) that reader may be another user. Only --full-errors tells readers so;
    the server's terminal is told either way."""
    db = site_db.build(tmp_path / "arena.db", state="running", rounds=1)
    server = make_server(db, "127.0.0.1", 0, full_errors=full_errors)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        db.rename(db.with_name("away.db"))
        with caplog.at_level("WARNING", logger="arena.web"):
            status, body = get(server.server_port, "/t/cup/api/progress.json")
        assert status == 503
        if full_errors:
            assert body.startswith(f"no results database at {db} (beside it: ")
            assert "away.db" in body
        else:
            assert body == ("the results database arena.db cannot be read now (the server's "
                            "terminal says why)\n")
            assert [m for m in caplog.messages if m.startswith(
                f"arena serve: no results database at {db} (beside it: ")]
    finally:
        server.shutdown()
        server.server_close()
