"""``arena serve`` on a class network: a reader who holds connections open (sending a byte
now and then, or opening many) cannot hold the server's threads."""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import site_db

from arena.web import server as server_module
from arena.web.server import make_server


@pytest.fixture
def crowd_server(tmp_path: Path) -> Iterator[server_module._SiteServer]:
    """A finished tournament served on a free port."""
    db = site_db.build(tmp_path / "arena.db", rounds=1)
    server = make_server(db, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _closed_by_server(conn: socket.socket, wait: float) -> bool:
    """Whether the server closed ``conn`` (it reads as ended) within ``wait`` seconds."""
    readable, _, _ = select.select([conn], [], [], wait)
    if not readable:
        return False
    try:
        return conn.recv(65536) == b""
    except ConnectionResetError:
        return True


def test_a_request_trickled_in_is_cut_at_its_deadline(
        crowd_server: server_module._SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A header line every half second, each well within the 30 s a connection may stay
    silent, kept a connection (and its thread) for as long as the client liked: the whole
    request must now arrive within its deadline, and the connection is closed unanswered."""
    monkeypatch.setattr(server_module._Handler, "head_deadline", 2, raising=False)
    with socket.create_connection(("127.0.0.1", crowd_server.server_port), timeout=30) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        closed = False
        for _ in range(60):  # up to 30 s of trickling, many times the deadline
            try:
                conn.sendall(b"X-Slow: a\r\n")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            if _closed_by_server(conn, 0.5):
                closed = True
                break
    assert closed


def _answer(conn: socket.socket) -> bytes:
    answer = b""
    while chunk := conn.recv(65536):
        answer += chunk
    return answer


def test_one_address_holds_at_most_its_share_of_connections(
        crowd_server: server_module._SiteServer) -> None:
    """Connections held open without a request each kept a thread, any number of them: one
    reader could open thousands. Past its share, an address is told so at once and closed;
    the connections it let go make room again."""
    crowd_server.connections_per_address = 3
    port = crowd_server.server_port
    held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(3)]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as extra:
            refused = _answer(extra)
        head, _, body = refused.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 429 Too Many Requests\r\n")
        assert b"\r\nContent-Security-Policy: default-src 'none'" in head
        assert body == b"too many connections from your address at once\n"
    finally:
        for conn in held:
            conn.close()
    for _ in range(100):  # the threads of the closed connections end as they notice
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = _answer(conn)
        if not answer.startswith(b"HTTP/1.0 429 "):
            break
        select.select([], [], [], 0.1)
    assert answer.startswith(b"HTTP/1.0 200 OK\r\n")


def test_a_connection_whose_thread_did_not_start_gives_its_place_back(
        crowd_server: server_module._SiteServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A connection the server could not start a thread for (the system out of threads) stayed
    counted against its address: enough of them, and the address was refused for good."""
    import socketserver

    real = socketserver.ThreadingMixIn.process_request
    failed: list[bool] = []

    def first_fails(self: socketserver.ThreadingMixIn, request: socket.socket,
                    address: tuple[str, int]) -> None:
        if not failed:
            failed.append(True)
            raise RuntimeError("can't start new thread")
        real(self, request, address)

    monkeypatch.setattr(socketserver.ThreadingMixIn, "process_request", first_fails)
    crowd_server.connections_per_address = 1
    port = crowd_server.server_port
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        assert _answer(conn) == b""  # closed unanswered: no thread to answer it
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _answer(conn).startswith(b"HTTP/1.0 200 OK\r\n")
    assert "can't start new thread" in capsys.readouterr().err  # the server's own report


def test_an_organiser_behind_a_proxy_raises_the_share(tmp_path: Path) -> None:
    """Behind a reverse proxy every reader comes from the proxy's address: ``arena serve
    --connections-per-address N`` sets the share (here lowered to 1, to see it hold), and
    without it the share is the server's default."""
    import os
    import re
    import subprocess
    import sys

    from typer.main import get_command

    from arena.cli.main import app

    serve = get_command(app).commands["serve"]  # type: ignore[attr-defined]
    option = next(p for p in serve.params if p.name == "connections_per_address")
    assert option.default == server_module.CONNECTIONS_PER_ADDRESS

    db = site_db.build(tmp_path / "arena.db", rounds=1)
    repo = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "serve", "--port", "0", "--db", str(db),
         "--connections-per-address", "1"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(repo)})
    try:
        assert process.stdout is not None
        match = re.search(r":(\d+)/ ", process.stdout.readline())
        assert match
        port = int(match.group(1))
        with socket.create_connection(("127.0.0.1", port), timeout=30):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as extra:
                assert _answer(extra).startswith(b"HTTP/1.0 429 Too Many Requests\r\n")
    finally:
        process.terminate()
        process.wait(timeout=60)
