"""The tournament site's pages, rendered with Jinja2, and the static report written to a folder.

One set of pages serves both ``arena report`` (files that open from ``file://``: relative
links, every script and style shipped in ``arena/web/static``, nothing fetched from a network)
and ``arena serve`` (the same pages rendered per request, with a small script that reloads
the standings as games land). A game's replay data is embedded in its own page, so a replay
opens without a request and steps without one; the site grows by one small page per game.
"""

from __future__ import annotations

import base64
import contextlib
import enum
import hashlib
import os
import re
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import orjson
from jinja2 import Environment, PackageLoader, pass_context, select_autoescape
from jinja2.runtime import Context

from arena.common.printable import isolated, printable
from arena.engine.record import other_format
from arena.errors import ArenaError, DamagedRecordError, ReplayError
from arena.rating.games import connect, find_tournament
from arena.rating.h2h import repeated_deals
from arena.tournament.game_records import (
    StoredRecord,
    decompress_record,
    record_blobs,
)
from arena.tournament.store import Store
from arena.web.charts import OKABE_ITO, bot_cue, heat_colour, rating_chart
from arena.web.data import GameRow, TournamentData, game_row, game_slug, load_tournament
from arena.web.recorded import (
    build_recorded,
    build_stored_row,
    damaged_note,
    rules_note,
    stored_row_note,
)
from arena.web.replay import build_replay

__all__ = ["PAGES", "PAGE_POLICY", "GamePage", "GameShown", "SiteSummary", "environment",
           "game_page", "render_game", "render_page", "static_files", "stored_row_page",
           "unreadable_reason", "write_site"]

#: The tournament's pages besides the games: (file, title in the navigation).
PAGES = (("index.html", "Leaderboard"), ("h2h.html", "Head-to-head"),
         ("rounds.html", "Rounds"), ("games.html", "Games"))

#: A league's tables page shows this many of its latest tables (the games page has them all).
RECENT_TABLES = 40

#: The games list draws this many rows at first and at each "show more"; its filters search
#: every game. A browser takes seconds to parse a page of tens of thousands of rows, and
#: milliseconds to read the same games as JSON.
GAMES_SHOWN = 500

#: The games page lists this many failures one by one; the games list's failure filter
#: finds the others (a bot that crashes at every game fails thousands of times).
FAILURES_SHOWN = 200

#: Card kinds and their colours (Okabe-Ito; the card's name is always written on it too).
KIND_COLOURS = {"God": OKABE_ITO[1], "Agari": OKABE_ITO[2], "Umbrae": OKABE_ITO[3],
                "Arcoi": OKABE_ITO[4], "Sophoi": OKABE_ITO[5], "Fate": OKABE_ITO[0],
                "Beast": OKABE_ITO[7], "Crown": OKABE_ITO[6], "Palaestron": "#1a1a1a"}


#: Every page's Content-Security-Policy, written into the page itself, so that it holds
#: wherever the page is opened (a report's folder on any web server, from disk): only the
#: site's own script files run (no inline script or handler: markup a bot's text slipped past
#: the escaping would stay inert) and nothing is loaded from elsewhere. ``file:`` lets a page
#: opened from disk load its folder's scripts in a browser whose ``'self'`` does not cover
#: it; inline styles stay allowed for the card colours and the head-to-head cells, which hold no
#: author's text. ``arena serve`` sends it as a header too.
PAGE_POLICY = ("default-src 'none'; script-src 'self' file:; "
               "style-src 'self' file: 'unsafe-inline'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'none'")


def page_policy(inline_script: str = "") -> str:
    """:data:`PAGE_POLICY`, letting run the one script written into a page (a one-file
    replay's viewer), named by its digest."""
    if not inline_script:
        return PAGE_POLICY
    digest = base64.b64encode(hashlib.sha256(inline_script.encode()).digest()).decode()
    return PAGE_POLICY.replace("script-src 'self' file:",
                               f"script-src 'self' file: 'sha256-{digest}'")


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=PackageLoader("arena.web", "templates"),
                      autoescape=select_autoescape(["html"]), trim_blocks=True,
                      lstrip_blocks=True)
    env.filters["heat"] = heat_colour
    env.filters["cue"] = bot_cue
    env.filters["short"] = _short_key
    env.filters["isolated"] = isolated
    # a handed database's names never passed the rule of names: their controls and bidi
    # overrides are shown escaped, as every reading command prints them
    env.filters["printable"] = printable
    env.filters["pct"] = lambda v: "" if v is None else f"{100 * v:.0f}%"
    env.filters["num"] = lambda v, d=2: "" if v is None else f"{v:.{d}f}"
    env.globals["policy"] = PAGE_POLICY
    return env


@pass_context
def _short_key(context: Context, key: str) -> str:
    data = context.get("t")
    return short_name(data.names if isinstance(data, TournamentData) else {}, key)


def short_name(names: dict[str, str], key: str) -> str:
    """``name@version`` -> ``name`` (the version is in the leaderboard), or ``name@version``
    where the tournament holds two versions of the bot (:attr:`TournamentData.names`)."""
    return printable(names.get(key) or key.rsplit("@", 1)[0])


def listed_games(data: TournamentData, newest_first: bool) -> list[GameRow]:
    """The games in the order the games page lists them: a league's newest first (it plays
    on: its latest games are the ones watched), else in play order."""
    return data.games[::-1] if newest_first else data.games


def games_listing(data: TournamentData, newest_first: bool = False) -> dict[str, Any]:
    """Every game of the list, compact, for the page's script to filter and draw: bots and
    categories once each, a game as ``[slug, round, table, seats (bot indexes), placements,
    categories (indexes), tie-break, failure types, the failures' seats]``, in the order of
    :func:`listed_games`."""
    bots = sorted({key for g in data.games for key in g.seats})
    categories = sorted({c for g in data.games for c in g.desmos})
    bot_index = {key: i for i, key in enumerate(bots)}
    category_index = {c: i for i, c in enumerate(categories)}
    rows = [[g.slug, g.round, g.table, [bot_index[key] for key in g.seats], g.placements,
             [category_index[c] for c in g.desmos], g.tiebreak,
             [f.get("type", "?") for f in g.failures],
             [f.get("seat") if isinstance(f.get("seat"), int) else None for f in g.failures]]
            for g in listed_games(data, newest_first)]
    return {"bots": bots, "labels": [short_name(data.names, key) for key in bots],
            "categories": categories, "rows": rows}


def static_files() -> list[tuple[str, bytes]]:
    """The site's scripts and styles, shipped in the package (``arena/web/static``)."""
    folder = resources.files("arena.web") / "static"
    return sorted((entry.name, entry.read_bytes()) for entry in folder.iterdir()
                  if entry.is_file() and not entry.name.startswith("."))


def _h2h_matrix(data: TournamentData) -> list[dict[str, Any]]:
    pairs = {(p["a"], p["b"]): p for p in data.h2h["pairs"]}
    return [{"bot": a, "cells": [pairs.get((a, b)) if a != b else None
                                 for b in data.h2h["bots"]]} for a in data.h2h["bots"]]


def _pages(data: TournamentData) -> tuple[tuple[str, str], ...]:
    """The navigation: a league has tables, one deal each, rather than rounds."""
    if not data.league:
        return PAGES
    return tuple((file, "Tables" if file == "rounds.html" else label) for file, label in PAGES)


def _context(data: TournamentData, page: str, live: bool) -> dict[str, Any]:
    labels = {row["key"]: data.names.get(row["key"], row["bot"])
              for row in data.leaderboard["bots"]}
    order = [row["key"] for row in data.leaderboard["bots"]]
    pages = _pages(data)
    context: dict[str, Any] = {
        "t": data, "info": data.info, "pages": pages, "page": page, "root": "",
        # pages that reload as games land; the games list, whose filters and drawn pages a
        # reload would undo, only says so
        "live": live and page in ("index.html", "rounds.html", "h2h.html"),
        "telling": live and page == "games.html",
        "served": live,  # arena serve: its list of tournaments is two folders up
        "board": data.leaderboard, "order": order, "labels": labels,
        "all_keys": [row["key"] for row in (data.all_versions or data.leaderboard)["bots"]],
        "title": f"{data.info.name}: {dict(pages).get(page, page)}",
    }
    if page == "index.html":
        context["chart"] = rating_chart(data.history, order, labels)
    elif page == "h2h.html":
        context["matrix"] = _h2h_matrix(data)
        context["repeat_note"] = repeated_deals(
            (p["games"], p["deals"], p["effective"]) for p in data.h2h["pairs"])
    elif page == "rounds.html" and data.league:
        context["recent"] = data.rounds[::-1][:RECENT_TABLES]
    elif page == "games.html":
        games = listed_games(data, data.league)
        context["listing"] = games_listing(data, data.league)
        context["categories"] = context["listing"]["categories"]
        context["first_games"] = games[:GAMES_SHOWN]
        context["step"] = GAMES_SHOWN
        context["sizes"] = sorted({len(g.seats) for g in data.games})
        context["tables"] = sorted({g.table for g in data.games})
        context["failure_types"] = sorted({f.get("type", "?") for g in data.games
                                           for f in g.failures})
        failures = [(g, f) for g in games for f in g.failures]
        context["failures"] = failures[:FAILURES_SHOWN]
        context["failures_left"] = len(failures) - len(context["failures"])
    return context


def render_page(data: TournamentData, page: str, live: bool = False) -> str:
    """One of :data:`PAGES` for a tournament."""
    return environment().get_template(page).render(**_context(data, page, live))


#: JSON escapes for what starts or ends markup: a bot's crash message in a game's data must
#: not end its script block ("</script>") nor turn the rest of the page into script text
#: ("<!--<script>" would swallow the viewer's own script).
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


class GameShown(enum.Enum):
    """How a game's page shows it: replayed step by step, or as recorded: a record of other
    rules than this arena's, or one of its own whose replay fails (damaged, or edited after
    its game); or from its stored row, its stored record unreadable (not zlib, not JSON, not
    a record)."""

    REPLAYED = "replayed"
    OLDER_RULES = "older rules"
    DAMAGED = "damaged"
    UNREADABLE = "unreadable"


class GamePage(NamedTuple):
    """A game's page, how it shows the game, and the line saying why it does not replay it
    (``None`` for a replay)."""

    html: str
    shown: GameShown
    note: str | None = None


def game_page(record: dict[str, Any], title: str, *, root: str = "../", inline: bool = False,
              back: str | None = "../games.html") -> str:
    """A game's replay page (:func:`render_game`)."""
    return render_game(record, title, root=root, inline=inline, back=back).html


def render_game(record: dict[str, Any], title: str, *, root: str = "../", inline: bool = False,
                back: str | None = "../games.html") -> GamePage:
    """A game's replay page, its viewer data embedded, the viewer's script and style linked
    from ``root``static/ (``inline``: written into the page, one self-contained file), and how
    it shows the game. A record that does not replay, of other rules or
    damaged, is shown as recorded (:mod:`arena.web.recorded`) under a line saying why;
    :class:`ReplayError` for one that cannot even be told."""
    static = dict(static_files()) if inline else {}
    recorded = other_format(record)
    if recorded is not None:
        note, shown = rules_note(recorded), GameShown.OLDER_RULES
    else:
        try:
            return GamePage(_replay_page(record, title, root, back, static),
                            GameShown.REPLAYED)
        except ReplayError as exc:
            note, shown = damaged_note(str(exc)), GameShown.DAMAGED
    page = _recorded_page(build_recorded(record, title, note), title, root, back, static)
    return GamePage(page, shown, note)


def stored_row_page(row: dict[str, Any], title: str, reason: str, *, root: str = "../",
                    inline: bool = False, back: str | None = "../games.html") -> GamePage:
    """The page of a game whose stored record cannot be read or told (``reason``): what its
    stored row holds (``row``, :func:`~arena.tournament.game_records.row_record`) under one
    line saying so."""
    static = dict(static_files()) if inline else {}
    page = _recorded_page(build_stored_row(row, title, reason), title, root, back, static)
    return GamePage(page, GameShown.UNREADABLE, stored_row_note(reason))


def unreadable_reason(exc: DamagedRecordError | ReplayError) -> str:
    """Why a stored record cannot be read or told, as its stored-row page says it."""
    return exc.reason if isinstance(exc, DamagedRecordError) else str(exc)


def _recorded_page(game: dict[str, Any], title: str, root: str, back: str | None,
                   static: dict[str, bytes]) -> str:
    """A game's page as recorded (``game``: :mod:`arena.web.recorded`'s data for it)."""
    return environment().get_template("recorded.html").render(
        title=title, game=game, root=root, back=back,
        inline_css=static.get("site.css", b"").decode(), kinds=KIND_COLOURS)


def _replay_page(record: dict[str, Any], title: str, root: str, back: str | None,
                 static: dict[str, bytes]) -> str:
    replay = build_replay(record, title)
    try:
        payload = orjson.dumps(replay).decode("utf-8").translate(_SCRIPT_SAFE)
    except orjson.JSONEncodeError as exc:  # a number past 64 bits, from a record made elsewhere
        raise ReplayError(f"not a game record ({exc})") from None
    inline_js = static.get("replay.js", b"").decode()
    return environment().get_template("game.html").render(
        title=title, replay=replay, payload=payload, root=root, back=back,
        inline_css=static.get("site.css", b"").decode(), inline_js=inline_js,
        kinds=KIND_COLOURS, policy=page_policy(inline_js))


@dataclass
class SiteSummary:
    """What ``arena report`` wrote."""

    out: Path
    pages: int
    games: int
    bytes: int
    #: games of other rules than this arena's, whose pages show them as recorded
    older_rules: int = 0
    #: games of this arena's rules whose records do not replay, shown as recorded too
    damaged: list[str] = field(default_factory=list)
    #: games whose stored records cannot be read or told, each with why: shown from their rows
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def _write(path: Path, text: str | bytes) -> int:
    """Write a page whole, by a rename: a reader never sees half of it, and a symbolic link
    left at its name is replaced, not written through."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    temporary = ""
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        with os.fdopen(handle, "wb") as file:
            os.fchmod(file.fileno(), 0o644)  # a page is for reading (mkstemp makes it private)
            file.write(data)
        os.replace(temporary, path)
    except OSError as exc:  # a full disk: no half page left behind under a hidden name
        if temporary:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise ArenaError(f"cannot write the report page {path}: "
                         f"{exc.strerror or exc}") from None
    return len(data)


def _write_game(job: tuple[str, bytes, str, str]) -> tuple[int, GameShown, str | None]:
    """Write one game's page (in a worker process): its size in bytes, how it shows the
    game, and why, for a stored record that cannot be read or told (its page then shows the
    game's stored row, read from database ``db``)."""
    game_id, blob, folder, db = job
    reason = None
    try:
        page = render_game(decompress_record(blob, game_id), game_id)
    except (DamagedRecordError, ReplayError) as exc:
        reason = unreadable_reason(exc)
        page = stored_row_page(game_row(db, game_id), game_id, reason)
    return _write(Path(folder) / f"{game_slug(game_id)}.html", page.html), page.shown, reason


def _blobs(db: str | Path, name: str) -> list[StoredRecord]:
    with connect(db) as conn, Store(db, create=False, read_only=True) as store:
        return list(record_blobs(store, find_tournament(conn, name, db).id))


def _prepare(out: Path) -> Path:
    """The output folder, created; one clear error when it cannot be written."""
    for folder in (out / "games", out / "static"):
        if folder.is_symlink():
            raise ArenaError(f"cannot write the report to {out}: {folder} is a symbolic link "
                             "(the report writes only into folders of its own)")
    try:
        (out / "games").mkdir(parents=True, exist_ok=True)
        (out / "static").mkdir(exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ArenaError(f"cannot write the report to {out}: {reason}") from None
    return out


#: A game page's name (``r1-t0-g3.html``, a league's ``t12-g0.html``).
_GAME_PAGE = re.compile(r"[a-z]\d+(-[a-z]\d+)*\.html")


def _remove_stale_games(folder: Path, written: set[str]) -> None:
    """Remove the game pages an earlier report left that this one did not write (a
    tournament written again with fewer games); other files are the user's, left alone."""
    for page in folder.glob("*.html"):
        if page.name not in written and _GAME_PAGE.fullmatch(page.name) and page.is_file():
            page.unlink()


def write_site(db: str | Path, name: str, out: Path, jobs: int | None = None) -> SiteSummary:
    """Write tournament ``name``'s site to ``out`` (created): its pages, the static files and
    one replay page per game, ``jobs`` processes rendering the games (default: one per
    CPU)."""
    data = load_tournament(db, name)
    if not data.games:
        raise ArenaError(f"tournament '{name}' has no games yet: nothing to report")
    _prepare(out)
    total = sum(_write(out / page, render_page(data, page)) for page, _ in PAGES)
    total += sum(_write(out / "static" / file, body) for file, body in static_files())
    jobs_list = [(game_id, blob, str(out / "games"), str(db))
                 for game_id, blob in _blobs(db, name)]
    workers = max(1, min(jobs or os.cpu_count() or 1, len(jobs_list) // 50 or 1))
    if workers == 1:
        written = [_write_game(job) for job in jobs_list]
    else:
        with ProcessPoolExecutor(workers) as pool:
            written = list(pool.map(_write_game, jobs_list, chunksize=32))
    _remove_stale_games(out / "games", {f"{game_slug(job[0])}.html" for job in jobs_list})
    sizes = [size for size, _, _ in written]
    shown_as = [(job[0], shown, reason) for job, (_, shown, reason)
                in zip(jobs_list, written, strict=True)]
    return SiteSummary(out=out, pages=len(PAGES) + len(sizes), games=len(sizes),
                       bytes=total + sum(sizes),
                       older_rules=sum(shown is GameShown.OLDER_RULES
                                       for _, shown, _ in shown_as),
                       damaged=[game for game, shown, _ in shown_as
                                if shown is GameShown.DAMAGED],
                       unreadable=[(game, reason or "") for game, shown, reason in shown_as
                                   if shown is GameShown.UNREADABLE])
