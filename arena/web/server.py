"""``arena serve``: the report's pages rendered per request from the results database.

Read only: every page is computed by the same reading functions as ``arena report``, which
never write. Only a fixed set of addresses answers (the home page, a stored tournament's
pages, its games' replays by id, the shipped static files by name), so no request names a
file on disk: nothing outside the package and the database can be reached.
"""

from __future__ import annotations

import errno
import io
import ipaddress
import json
import logging
import re
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from arena.errors import (
    ArenaError,
    DamagedRecordError,
    ReplayError,
    StoreError,
    TournamentNotFoundError,
)
from arena.rating.trueskill_rating import RatingMemo
from arena.web.data import (
    TournamentData,
    game_row,
    load_tournament,
    progress,
    read_records,
    tournament_names,
)
from arena.web.site import (
    PAGE_POLICY,
    PAGES,
    environment,
    game_page,
    render_page,
    static_files,
    stored_row_page,
    unreadable_reason,
)

__all__ = ["SECURITY_HEADERS", "make_server"]

log = logging.getLogger("arena.web")

_GAME = re.compile(r"^r\d+-t\d+-g\d+$")
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".html": "text/html; charset=utf-8", ".json": "application/json"}
#: Sent with every answer: the pages' own policy (which each page also holds), and no
#: framing by another site (which only a header can forbid).
SECURITY_HEADERS = {
    "Content-Security-Policy": f"{PAGE_POLICY}; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class _Handler(BaseHTTPRequestHandler):
    """Answers GET and HEAD for the site's addresses; anything else is 404 or 405. A database
    that cannot be read now (locked, gone) is 503; a request that names the server by another
    host than the loopback one it listens on is 421 (a web page the user visits must not
    read a tournament through a name of its own that resolves here)."""

    server: _SiteServer
    server_version = "arena-serve"
    #: Seconds a connection may stay silent: an idle client does not keep a thread forever.
    timeout = 30
    #: Seconds a request's line and headers may take to arrive whole: a client that sends a
    #: byte now and then, each within :attr:`timeout`, would otherwise hold its thread for ever.
    head_deadline = 30

    def setup(self) -> None:
        super().setup()
        self.rfile = io.BufferedReader(_Deadline(self.connection, self.head_deadline,
                                                 self.timeout))

    def version_string(self) -> str:
        return self.server_version  # no interpreter version told to whoever asks

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass  # quiet: the command's output is its one line saying where it serves

    def do_HEAD(self) -> None:
        self.do_GET()

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        self.connection.settimeout(self.timeout)  # the head is in: the answer's own time
        if self.request_version == "HTTP/0.9":
            # the base class answers HTTP/0.9 with the body alone: no policy headers, no
            # status; no browser speaks it, so it is refused, with headers
            self.request_version = "HTTP/1.0"
            self.send_error(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED, "HTTP/0.9 is not served")
            return False
        return True

    def end_headers(self) -> None:
        # here rather than in _send: the base class's own answers (a malformed request, a
        # line too long) carry them too
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        super().end_headers()

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        # the base class answers a method without a do_ handler 501, a server error: any
        # method but GET and HEAD (POST, OPTIONS, TRACE, WebDAV's) is the client's, refused
        if code == HTTPStatus.NOT_IMPLEMENTED:
            self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"read-only\n", ".txt",
                       headers={"Allow": "GET, HEAD"})
            return
        super().send_error(code, message, explain)

    def do_GET(self) -> None:
        if not self.server.answers_to(self.headers.get("Host")):
            self._send(HTTPStatus.MISDIRECTED_REQUEST,
                       b"this server answers to its loopback address only\n", ".txt")
            return
        path, query = _target(self.path)
        try:
            status, body, kind = self._route(path)
        except _Moved as moved:
            query = f"?{query}" if query else ""
            self._send(HTTPStatus.MOVED_PERMANENTLY, b"", ".txt",
                       headers={"Location": moved.location + query})
            return
        except TournamentNotFoundError as exc:
            status, body, kind = HTTPStatus.NOT_FOUND, self._reason(exc), ".txt"
        except StoreError as exc:
            status, body, kind = HTTPStatus.SERVICE_UNAVAILABLE, self._reason(exc), ".txt"
        except ArenaError as exc:
            status, body, kind = HTTPStatus.INTERNAL_SERVER_ERROR, self._reason(exc), ".txt"
        except Exception as exc:  # a bug: one line on the console, not a dropped connection
            log.error("arena serve: %s: %s: %s", self.path, type(exc).__name__, exc)
            status, body, kind = (HTTPStatus.INTERNAL_SERVER_ERROR,
                                  b"internal error (said on the server's console)\n", ".txt")
        if status == HTTPStatus.OK:
            self.server.read_again(_scope(path))
        if kind == ".txt" and status in _PAGE_ERRORS and _page_asked(path):
            body, kind = _error_page(status, body.decode().strip()), ".html"
        self._send(status, body, kind)

    def _reason(self, exc: ArenaError) -> bytes:
        """Why a page cannot be shown, as its reader is told it: the database's file name
        only, as the first page names it, since the whole reason names the operator's paths
        and the files beside the database, and a reader on this machine may be another
        user (a class's shared server). The operator reads the whole reason on the server's
        terminal; readers are told it too when the server was started to (``--full-errors``)."""
        if self.server.full_errors:
            return f"{exc}\n".encode()
        self.server.tell_operator(str(exc), _scope(_target(self.path)[0]))
        name = Path(self.server.db).name
        if isinstance(exc, TournamentNotFoundError):
            return f"no such tournament in {name}\n".encode()
        if isinstance(exc, StoreError):
            return (f"the results database {name} cannot be read now (the server's "
                    "terminal says why)\n").encode()
        return b"this page cannot be shown (the server's terminal says why)\n"

    def _send(self, status: int, body: bytes, kind: str,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", _TYPES.get(kind, "text/plain; charset=utf-8"))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _route(self, path: str) -> tuple[int, bytes, str]:
        """The answer to ``path`` (as asked, percent-encoded); a page asked by another
        spelling than its own (``/t/cup``, a slash after it, doubled or encoded slashes)
        moves to its own, where its relative links resolve."""
        # each segment decoded on its own first: a handed database's tournament name may
        # hold a slash, which its links carry encoded; else an encoded slash separates
        parts = [unquote(p) for p in path.split("/") if p]
        status, body, kind = self._answer(parts)
        if status == HTTPStatus.NOT_FOUND:
            parts = [p for p in unquote(path).split("/") if p]
            status, body, kind = self._answer(parts)
        folder = not parts or (len(parts) == 2 and parts[0] == "t")
        own = "/" + "/".join(quote(p, safe="") for p in parts) + ("/" if folder and parts
                                                                   else "")
        if status == HTTPStatus.OK and path != own:
            raise _Moved(own)
        return status, body, kind

    def _answer(self, parts: list[str]) -> tuple[int, bytes, str]:
        db = self.server.db
        if not parts:
            names = tournament_names(db)
            page = environment().get_template("home.html").render(
                # its name, not its path: the site may be served to others (--host)
                names=[(n, quote(n, safe=""), _standing(db, n)) for n in names],
                db=Path(db).name)
            return HTTPStatus.OK, page.encode(), ".html"
        static = dict(static_files())
        if parts[0] == "static" and len(parts) == 2 and parts[1] in static:
            return HTTPStatus.OK, static[parts[1]], Path(parts[1]).suffix
        if parts[0] != "t" or len(parts) < 2:
            return HTTPStatus.NOT_FOUND, b"not found\n", ".txt"
        if parts[1] not in tournament_names(db):
            return HTTPStatus.NOT_FOUND, f"no tournament named {parts[1]!r} here\n".encode(), ".txt"
        name, rest = parts[1], parts[2:] or ["index.html"]
        if rest[0] == "static" and len(rest) == 2 and rest[1] in static:
            return HTTPStatus.OK, static[rest[1]], Path(rest[1]).suffix
        if len(rest) == 1 and rest[0] in dict(PAGES):
            return HTTPStatus.OK, self.server.page(name, rest[0]), ".html"
        if rest == ["api", "progress.json"]:
            return HTTPStatus.OK, json.dumps(progress(db, name)).encode(), ".json"
        if len(rest) == 2 and rest[0] == "games" and rest[1].endswith(".html") \
                and _GAME.match(rest[1][:-5]):
            game_id = f"{name}/{rest[1][:-5].replace('-', '/')}"
            shown = _game_page(db, name, game_id)
            if shown is not None:
                return HTTPStatus.OK, shown.encode(), ".html"
        return HTTPStatus.NOT_FOUND, b"not found\n", ".txt"


def _standing(db: Path, name: str) -> dict[str, Any] | None:
    """A tournament's state and games, as the list of tournaments shows them; ``None`` for one
    whose row cannot be read (its own pages say why: the others' stay listed)."""
    try:
        return progress(db, name)
    except ArenaError:
        return None


#: The refusals a person's browser is shown as a page: what was not found, or why the
#: tournament cannot be read now (a page that tries again: a lock is let go, a database
#: put back), each with a way back to the tournaments.
_PAGE_ERRORS = {HTTPStatus.NOT_FOUND: ("Not found", 0),
                HTTPStatus.SERVICE_UNAVAILABLE: ("Cannot be read now", 10)}


def _page_asked(path: str) -> bool:
    """Whether ``path`` asks for a page rather than what pages load (their data, scripts and
    style), which keep their one line of text."""
    return not unquote(path).rstrip("/").endswith((".json", ".js", ".css"))


def _error_page(status: int, reason: str) -> bytes:
    heading, retry = _PAGE_ERRORS[HTTPStatus(status)]
    if reason == "not found":
        reason = "Nothing is at this address."
    return environment().get_template("error.html").render(
        heading=heading, reason=reason, retry=retry).encode()


def _game_page(db: Path, name: str, game_id: str) -> str | None:
    """A stored game's page (``None``: no such game); one whose stored record cannot be read
    or told shows what its stored row holds, as ``arena report`` writes it."""
    try:
        for _, record in read_records(db, name, only=game_id):
            return game_page(record, game_id)
    except (DamagedRecordError, ReplayError) as exc:
        return stored_row_page(game_row(db, game_id), game_id, unreadable_reason(exc)).html
    return None


class _Moved(Exception):
    """A page asked by another spelling than its own (a tournament's folder without its
    closing slash, a page with one): its links are relative to its folder, and would resolve
    in another (no style, no script, pages not found)."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


#: Connections one address may hold at once by default: a browser opens six at most.
CONNECTIONS_PER_ADDRESS = 32


class _SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    def __init__(self, address: tuple[str, int], db: Path, full_errors: bool,
                 connections_per_address: int = CONNECTIONS_PER_ADDRESS) -> None:
        self.db = db
        #: Connections one address may hold open at once: each holds a thread, and one reader
        #: opening thousands would starve the server's user of threads and memory.
        self.connections_per_address = connections_per_address
        #: Whether readers are told a failure's whole reason, not only the server's terminal.
        self.full_errors = full_errors
        self._lock = threading.Lock()
        self._connections: dict[str, int] = {}
        self._cache: dict[str, tuple[dict[str, Any], TournamentData]] = {}
        #: One reader per tournament at a time: the requests that come meanwhile (a page's
        #: several tabs, a crowd at a live final) wait for its data instead of each reading
        #: and rating the tournament again.
        self._loading: dict[str, threading.Lock] = {}
        self._ratings = RatingMemo()  # a reload rates only the games that landed since
        #: Each page as last rendered, with the data it was rendered from (the games list of a
        #: big tournament takes a good part of a second to render, and is asked for again)
        self._pages: dict[tuple[str, str], tuple[TournamentData, bytes]] = {}
        #: The reason last logged for a reader, and where it was refused (the list, a
        #: tournament's pages): logged again only once a page there was read meanwhile.
        self._last_told = ("", "")
        super().__init__(address, _Handler)

    @property
    def local_only(self) -> bool:
        """Whether it listens on a loopback address only (no other machine reaches it)."""
        return _loopback(str(self.server_address[0]))

    def answers_to(self, host: str | None) -> bool:
        """Whether a request naming ``host`` (its Host header) is answered: any, unless the
        server listens on a loopback address only; then only a loopback name, in any case
        and with or without the root's dot (``LOCALHOST.`` names what ``localhost`` does)."""
        if not self.local_only or host is None:
            return True
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        name = name.removesuffix(".").lower()
        return _loopback(name.strip("[]"))

    def tell_operator(self, reason: str, scope: str) -> None:
        """Logs why a reader was refused a page in ``scope`` (see :func:`_scope`), once
        until the reason changes or a page there is read (a page that cannot be read tries
        again every 10 s)."""
        with self._lock:
            if reason == self._last_told[0]:
                return
            self._last_told = (reason, scope)
        log.warning("arena serve: %s (readers are told only the database's file name; "
                    "arena serve --full-errors tells them why)", reason)

    def read_again(self, scope: str) -> None:
        """A page in ``scope`` was read: a refusal there in the words last logged is news
        again (not a page elsewhere: a healthy tournament's readers would log a broken one's
        refusal at every retry)."""
        with self._lock:
            if self._last_told[1] == scope:
                self._last_told = ("", "")

    def process_request(self, request: Any, client_address: Any) -> None:
        address = str(client_address[0])
        with self._lock:
            held = self._connections.get(address, 0)
            if held < self.connections_per_address:
                self._connections[address] = held + 1
        if held >= self.connections_per_address:
            _refuse_crowd(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread to let the connection go (the base closes it)
            self._let_go(address)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._let_go(str(client_address[0]))

    def _let_go(self, address: str) -> None:
        """One connection of ``address`` has ended: room for another."""
        with self._lock:
            left = self._connections.pop(address, 1) - 1
            if left:
                self._connections[address] = left

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that went away mid-answer (a closed tab) is no error of the server's
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def tournament(self, name: str) -> TournamentData:
        """A tournament's data, read again only when games have landed or its state changed
        (reading it rates every game its stored rating history does not hold)."""
        now = progress(self.db, name)
        with self._lock:
            loading = self._loading.setdefault(name, threading.Lock())
        with loading:
            with self._lock:
                cached = self._cache.get(name)
            if cached is not None and cached[0] == now:
                return cached[1]
            data = load_tournament(self.db, name, self._ratings)
            with self._lock:
                self._cache[name] = (now, data)
            return data

    def page(self, name: str, page: str) -> bytes:
        """One of the site's pages of a tournament, rendered again only when its data was
        read again."""
        data = self.tournament(name)
        with self._lock:
            cached = self._pages.get((name, page))
        if cached is not None and cached[0] is data:
            return cached[1]
        body = render_page(data, page, live=True).encode()
        with self._lock:
            self._pages[(name, page)] = (data, body)
        return body


class _Deadline(io.RawIOBase):
    """A connection's bytes as its request's head is read, each wait no longer than
    ``idle`` seconds and all of them within ``seconds`` of the connection's start."""

    def __init__(self, connection: socket.socket, seconds: float, idle: float) -> None:
        self._connection = connection
        self._until = time.monotonic() + seconds
        self._idle = idle

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._until - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self._connection.settimeout(min(left, self._idle))
        return self._connection.recv_into(buffer)


#: The answer to a connection past its address's share.
_CROWD = b"too many connections from your address at once\n"


def _refuse_crowd(request: socket.socket) -> None:
    """Tell a connection past its address's share why it is closed, without waiting for it
    (its request is not read: the thread it would take is what is refused)."""
    head = "".join(f"{name}: {value}\r\n" for name, value in {
        **SECURITY_HEADERS, "Content-Type": "text/plain; charset=utf-8",
        "Content-Length": str(len(_CROWD)), "Cache-Control": "no-store",
        "Connection": "close"}.items())
    try:
        request.setblocking(False)
        request.send(f"HTTP/1.0 429 Too Many Requests\r\n{head}\r\n".encode() + _CROWD)
    except OSError:
        pass  # a client that cannot take it now is not waited for


def _target(target: str) -> tuple[str, str]:
    """A request's path, still percent-encoded, and its query: ``//t/cup/`` is a path, where
    :func:`urllib.parse.urlsplit` would read a host ``t`` in it."""
    if target.startswith("/"):
        path, _, query = target.partition("?")
        return path, query
    address = urlsplit(target)  # the absolute form, http://host/path, as a proxy is sent
    return address.path, address.query


def _scope(path: str) -> str:
    """Where a request's path (percent-encoded) asks: a tournament's pages (``/t/cup``), the
    list of tournaments (``/``) or the site's own files (``/static``)."""
    parts = [p for p in path.split("/") if p]
    return "/" + "/".join(parts[:2] if parts[:1] == ["t"] else parts[:1])


def _loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    # a dual-stack listener sees an IPv4 client as ::ffff:127.0.0.1
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def make_server(db: str | Path, host: str = "127.0.0.1", port: int = 8000,
                full_errors: bool = False,
                connections_per_address: int = CONNECTIONS_PER_ADDRESS) -> _SiteServer:
    """A server of ``db``'s site, bound and ready (``serve_forever`` runs it); with
    ``full_errors``, its readers are told why a page cannot be shown, paths included; one
    address holds at most ``connections_per_address`` connections at once. Raises
    :class:`ArenaError` for a database it cannot read or a port it cannot have."""
    tournament_names(db)  # a missing or foreign database: said now, not at the first request
    try:
        return _SiteServer((host, port), Path(db), full_errors, connections_per_address)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ArenaError(f"port {port} on {host} is in use (choose another with --port, "
                             "or --port 0 for any free one)") from None
        raise ArenaError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
