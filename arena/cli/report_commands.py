"""``arena report`` (a tournament's static site) and ``arena serve`` (the same pages, live)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.options import DbOption, TournamentArgument
from arena.common.plural import counted
from arena.common.printable import printable
from arena.tournament.store import DEFAULT_RESULTS

__all__ = ["register", "write_game_html", "write_stored_row_html"]

_REPORT_HELP = "\n\n".join([
    "Write a tournament's site to a folder: the leaderboard with each bot's rating over "
    "games, head-to-head as a heat map, the rounds (pairings, byes, scores), the failures "
    "and a filterable list of games, each with a replay viewer. The site opens from the "
    "folder (file://) with no server and no network.",
    "Example: arena report swiss -o site/ && xdg-open site/index.html",
])

_SERVE_HELP = "\n\n".join([
    "Serve the site of every tournament in the results database, read live: the standings "
    "refresh as games land while a tournament runs. Read-only; listens on 127.0.0.1 unless "
    "--host says otherwise. A tournament's drawn seed stays hidden until it finishes.",
    "Example: arena serve --port 8000",
])


def report(
    tournament: TournamentArgument,
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR",
                                      help="Folder to write the site to (created).")],
    db: DbOption = Path(DEFAULT_RESULTS),
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Processes "
                                             "rendering the replays (default: one per "
                                             "CPU).")] = None,
) -> None:
    """Write a tournament's static site (help text: ``_REPORT_HELP``)."""
    from arena.engine.state import RECORD_FORMAT
    from arena.web.site import write_site

    started = time.perf_counter()
    summary = write_site(db, tournament, out, jobs)
    took = time.perf_counter() - started
    older, damaged, unreadable = (summary.older_rules, len(summary.damaged),
                                  len(summary.unreadable))
    shown = older + damaged + unreadable
    games = f"{summary.games - shown} game replays" + (
        f", {counted(shown, 'game')} as recorded" if shown else "")
    typer.echo(f"Wrote {summary.pages} pages ({games}, {summary.bytes / 1e6:.1f} MB) to {out} "
               f"in {took:.1f} s; open {out / 'index.html'}")
    if unreadable:
        # a database from elsewhere never passed the arena's entry, where a bot's text is escaped
        first, reason = (printable(text) for text in summary.unreadable[0])
        typer.echo(f"{counted(unreadable, 'stored record is', 'stored records are')} damaged "
                   f"(first: {first}, {reason}): {_pages_show(unreadable)} the game as far as "
                   "its stored row goes")
    if damaged:
        typer.echo(f"{counted(damaged, 'stored record does', 'stored records do')} not replay "
                   f"(first: {printable(summary.damaged[0])}): {_pages_show(damaged)} what "
                   "the record holds, under the replay's reason")
    if older:
        typer.echo(f"{counted(older, 'game was', 'games were')} played under other rules "
                   f"than this arena's ({RECORD_FORMAT}): {_pages_show(older)} what the record "
                   "holds, without the step-by-step replay (docs/RECORDS.md)")


def _pages_show(games: int) -> str:
    return "its page shows" if games == 1 else "their pages show"


def serve(
    db: DbOption = Path(DEFAULT_RESULTS),
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535,
                                      help="Port (0: any free port).")] = 8000,
    host: Annotated[str, typer.Option("--host", help="Address to listen on (another than "
                                      "127.0.0.1 lets other machines in).")] = "127.0.0.1",
    full_errors: Annotated[bool, typer.Option(
        "--full-errors", help="Tell readers why a page cannot be shown, the database's path "
        "and the files beside it included (without it, only this terminal is told: on a "
        "shared machine a reader on this one may be another user).")] = False,
    connections_per_address: Annotated[int, typer.Option(
        "--connections-per-address", min=1, metavar="N",
        help="Connections one reader's address may hold at once, past them answered 429 (a "
        "browser opens six; behind a reverse proxy every reader comes from the proxy's "
        "address: raise it to what the whole class opens).")] = 32,
) -> None:
    """Serve the site live (help text: ``_SERVE_HELP``)."""
    from arena.web.server import make_server

    server = make_server(db, host, port, full_errors, connections_per_address)
    where = str(server.server_address[0])
    reach = "" if server.local_only else "; other machines can reach it"
    typer.echo(f"Serving {db} at http://{where}:{server.server_port}/ (read-only{reach}; "
               "Ctrl-C stops)")
    try:
        server.serve_forever()
    finally:
        server.server_close()


def write_stored_row_html(title: str, row: dict[str, Any], reason: str, out: Path) -> None:
    """``arena game ID --html OUT`` of a game whose stored record is damaged (``reason``):
    its page from what its stored row holds, after one warning line."""
    from arena.web.site import stored_row_page

    page = stored_row_page(row, title, reason, root="", inline=True, back=None)
    _write_page(page.html, out)
    title, reason = printable(title), printable(reason)  # a stored game's id, from anywhere
    typer.echo(f"warning: {title}: its stored record is damaged ({reason}); shown as far as "
               "its stored row goes (its bots, places and failures)", err=True)
    typer.echo(f"Wrote {title} as far as its stored row goes to {out} "
               f"({len(page.html.encode()) / 1e3:.0f} kB)")


def _write_page(html: str, out: Path) -> None:
    from arena.errors import ArenaError

    try:
        out.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"cannot write {out}: {exc.strerror or exc}") from None


def write_game_html(title: str, record: dict[str, Any], out: Path) -> None:
    """``arena game ... --html OUT``: one game's replay page, a single self-contained file (a
    record that does not replay, of other rules or damaged: its page as recorded, and one
    warning line saying why)."""
    from arena.web.site import render_game

    page = render_game(record, title, root="", inline=True, back=None)
    _write_page(page.html, out)
    size = f"{len(page.html.encode()) / 1e3:.0f} kB"
    title = printable(title)  # a stored game's id, from a database made anywhere
    if page.note is None:
        typer.echo(f"Wrote {title}'s replay to {out} ({size})")
        return
    note = printable(page.note)  # it may quote the record's own text
    typer.echo(f"warning: {title}: {note[0].lower()}{note[1:]}", err=True)
    typer.echo(f"Wrote {title} as recorded to {out} ({size})")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("report", help=_REPORT_HELP,
                short_help="Write a tournament's site to a folder.")(report)
    app.command("serve", help=_SERVE_HELP,
                short_help="Serve every tournament's site, read live.")(serve)
