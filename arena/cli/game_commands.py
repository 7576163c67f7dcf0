"""CLI command ``arena game``: one game told for people, its replay page, or a seat's
decisions asked of a bot again (:mod:`arena.cli.game_rerun` shows that).

Registered by :mod:`arena.cli.main`. GAME is a game of the results database or a record of a
records file. Each command imports what it uses when it runs: ``arena`` starts for every
command, and most need little of the library.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.options import DbOption
from arena.errors import ArenaError
from arena.tournament.store import DEFAULT_RESULTS

__all__ = ["register"]


_GAME_HELP = "\n\n".join([
    "Show one game: the bots by seat, the placements, every failure with its reason, the "
    "game turn by turn, and what each bot logged. GAME is a game id in the results database "
    "(NAME/rROUND/tTABLE/gGAME, as arena status lists failing games) or a file of game "
    "records (JSON lines, as written by arena match --records, arena simulate --records or "
    "arena status --records).",
    "With --seat, only what that seat was shown: the events its bot received (all of them "
    "unless it forfeited: a forfeited bot is sent nothing more), its own failures and its "
    "own log.",
    "Example: arena game swiss/r1/t0/g3 --seat 1",
    "Example: arena game games.jsonl --number 2 --format json",
    "With --html OUT.html, write the game's replay page instead (one file, opens in a "
    "browser with no network; it holds every seat's cards, and its View menu shows one "
    "seat's): arena game swiss/r1/t0/g3 --html game.html",
    "With --seat S --rerun BOT (your bot's file or directory, as it is now), ask your bot "
    "again, in this process, every decision seat S answered: the game is played with its "
    "recorded choices, and your bot is handed only what seat S was shown, with the seat's "
    "recorded bot_seed. It says where an answer first differs from the recorded one, or "
    "shows what the bot raised with its whole traceback (your own code, on your own machine: "
    "put breakpoint() or print() in it, or add --pdb); exit 0 only for the same answers. "
    "Run it with PYTHONHASHSEED=0, as bots run. A later game of a match is rerun alone; "
    "--from-start replays the match's earlier games first, for a bot that carries state "
    "from game to game. The bot runs unsandboxed, as you: one submitted to the bots "
    "directory, or whose files another user owns, is refused unless --unsandboxed.",
    "Example: PYTHONHASHSEED=0 arena game swiss/r1/t0/g3 --seat 1 --rerun my_bot.py",
    "With a records file and --failures, instead of one game: every distinct reason a bot "
    "failed in the file's games, how often, and the first record and seat it happened in "
    "(arena status NAME --failures does the same for a stored tournament).",
    "Example: arena game games.jsonl --failures",
])


def _game_format(value: str) -> str:
    """--format is text or json; table, as every command that prints data calls its text
    for people, is text."""
    if value == "table":
        return "text"
    if value not in ("text", "json"):
        raise typer.BadParameter(f"unknown format '{value}' (choose text or json)")
    return value


def game(
    ref: Annotated[str, typer.Argument(metavar="GAME",
                                       help="A game id (swiss/r1/t0/g3) or a records file.")],
    seat: Annotated[
        int | None, typer.Option("--seat", "-s", min=0,
                                 help="Only what this seat was shown (0-based).")
    ] = None,
    number: Annotated[
        int | None, typer.Option("--number", "-n", min=1,
                                 help="With a records file: which record (1 = the first, "
                                 "which is shown without it).")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", metavar="text|json", callback=_game_format,
                          help="text (for people; table is the same) or json (the record "
                               "itself).")
    ] = "text",
    logs: Annotated[bool, typer.Option("--logs/--no-logs", help="Show the bots' logs.")] = True,
    db: DbOption = Path(DEFAULT_RESULTS),
    html: Annotated[Path | None, typer.Option("--html", metavar="OUT.html",
                                              help="Write the game's replay page.")] = None,
    rerun: Annotated[Path | None, typer.Option(
        "--rerun", metavar="BOT", help="With --seat: ask this bot (a kit bot's file or "
        "directory) the seat's decisions again, in-process.")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", metavar="KEY=VALUE",
        help="With --rerun: a setting for the bot's configure, as a tournament entry's "
        "options are (repeat it).")] = None,
    debug: Annotated[bool, typer.Option(
        "--pdb", help="With --rerun: open pdb where the bot raised.")] = False,
    from_start: Annotated[bool, typer.Option(
        "--from-start", help="With --rerun: replay the match's earlier games first (the "
        "bot's state from them).")] = False,
    unsandboxed: Annotated[bool, typer.Option(
        "--unsandboxed", help="With --rerun: rerun a bot that is not yours (submitted, or "
        "another user's files), in this process, as you, all the same.")] = False,
    failures: Annotated[bool, typer.Option(
        "--failures", help="With a records file: every distinct reason a bot failed in its "
        "games, how often, and where first.")] = False,
) -> None:
    """Show one game (help text: ``_GAME_HELP``)."""
    from arena.cli.terminal import hanging, terminal_width
    from arena.common.printable import printable, printable_log
    from arena.referee.game_report import records_failures, report_game

    _check_flags(fmt, html, seat)
    _check_rerun_flags(rerun, seat, fmt, bool(option) or debug or from_start or unsandboxed)
    if failures:
        _check_failures_flags(ref, number is not None or seat is not None or html is not None
                              or rerun is not None or fmt != "text")
        typer.echo("\n".join(printable(line) for line in records_failures(Path(ref))))
        return
    try:
        title, record = _load_game(ref, number, db)
    except _StoredRowOnly as damaged:
        _show_stored_row(damaged, seat, fmt, html, rerun)
        return
    if html is not None:
        from arena.cli.report_commands import write_game_html

        write_game_html(title, record, html)
        return
    _check_seat(title, record.get("players") or [], seat)
    if rerun is not None and seat is not None:
        _rerun(ref, number or 1, db, (title, record), seat, rerun, option or [],
               debug=debug, from_start=from_start, unsandboxed=unsandboxed)
        return
    _warn_unless_it_replays(title, record)
    if fmt == "json":
        _echo_json(record, seat, logs)
        return
    homes = _bot_homes(record, db) if not Path(ref).exists() else []
    text = printable_log("\n".join([title, *report_game(record, seat, logs=logs, homes=homes)]))
    width = terminal_width()
    if width is not None:  # a terminal's: its lines wrap at words, which it broke anywhere
        text = "\n".join(hanging(line, width) for line in text.splitlines())
    typer.echo(text)


def _echo_json(record: dict[str, Any], seat: int | None, logs: bool) -> None:
    """``arena game --format json``: the record, or the seat's view of it (logs left out
    with ``--no-logs``)."""
    import json

    from arena.referee.game_report import seat_view

    shown = record if seat is None else seat_view(record, seat)
    if not logs and isinstance(shown.get("referee"), dict):
        shown = {**shown, "referee": {**shown["referee"], "logs": {}}}
    typer.echo(json.dumps(shown, indent=1))


def _rerun(ref: str, number: int, db: Path, game: tuple[str, dict[str, Any]], seat: int,
           bot: Path, option: list[str], *, debug: bool, from_start: bool,
           unsandboxed: bool) -> None:
    """``arena game --rerun``: the bot's options (given, else those it was entered with) and
    the match's earlier games, where at hand."""
    from arena.cli.bot_options import setting
    from arena.cli.game_rerun import earlier_games, show_rerun

    title, record = game
    settings = dict(setting(flag, flag, "KEY=VALUE") for flag in option)
    if not option and not Path(ref).exists():
        settings = _entered_options(record, seat, db)
    games = [*earlier_games(ref, number, db, record, seat), record]
    show_rerun(title, games, seat, bot, settings, debug, from_start, unsandboxed)


def _check_rerun_flags(rerun: Path | None, seat: int | None, fmt: str,
                       rerun_options: bool) -> None:
    """--rerun asks one seat's bot, and its own flags go with it."""
    if rerun is None:
        if rerun_options:
            raise typer.BadParameter("--option, --pdb, --from-start and --unsandboxed go with "
                                     "--rerun BOT",
                                     param_hint="--rerun")
        return
    if seat is None:
        raise typer.BadParameter("--rerun asks one seat's bot: say which with --seat S",
                                 param_hint="--seat")
    if fmt != "text":
        raise typer.BadParameter("--rerun tells its answers as text", param_hint="--format")


def _check_flags(fmt: str, html: Path | None, seat: int | None) -> None:
    """--html writes every seat's page, not one seat's."""
    if html is not None and seat is not None:
        # the page carries every hand for its views: written under --seat it would pass for
        # one seat's view and show whoever opens it every card
        raise typer.BadParameter(f"the replay page holds every seat's cards; write it without "
                                 f"--seat and pick the seat in its View menu (or open it at "
                                 f"#view={seat})", param_hint="--seat")


def _check_failures_flags(ref: str, one_game: bool) -> None:
    """--failures reads a whole records file, and shows it as text only."""
    path = Path(ref)
    if not path.exists() or path.is_dir():
        raise typer.BadParameter(f"--failures lists a records file's failures; {ref} is none "
                                 "(a stored tournament's: arena status NAME --failures)",
                                 param_hint="--failures")
    if one_game:
        raise typer.BadParameter("--failures lists the whole file's; --number, --seat, --html, "
                                 "--rerun and --format json show one game",
                                 param_hint="--failures")


def _warn_unless_it_replays(title: str, record: dict[str, Any]) -> None:
    """One line on stderr for a record that does not replay (edited, damaged, of another rules
    version): the telling follows what it says, where ``replay`` refuses it (and ``--html``
    shows it as recorded)."""
    from arena.common.printable import printable
    from arena.engine.record import RECORD_FORMAT, other_format, replay_one
    from arena.errors import ReplayError

    recorded = other_format(record)
    if recorded is not None:  # nothing wrong with it: older rules, said so plainly
        typer.echo(f"warning: {printable(title)} was played under the rules of "
                   f"{printable(recorded)}; this arena plays {RECORD_FORMAT} (RULES.md says "
                   "what changed), so it is shown as recorded", err=True)
        return
    try:
        replay_one(record)
    except ReplayError as exc:
        typer.echo(f"warning: {printable(title)} does not replay ({printable(str(exc))}); shown as "
                   "recorded (arena replay checks a file of records)", err=True)


def _told(record: Any) -> bool:
    """Whether ``record`` is one a game can be told from (its players and events lists)."""
    return isinstance(record, dict) and isinstance(record.get("players"), list) \
        and isinstance(record.get("events", []), list)


def _check_seat(title: str, players: list[Any], seat: int | None) -> None:
    """Refuse a ``--seat`` the game does not have."""
    if seat is not None and seat >= len(players):
        raise ArenaError(f"{title} has seats 0-{len(players) - 1}; there is no seat {seat}")


class _StoredRowOnly(Exception):
    """A stored game whose record is damaged (``reason``): its title and what its ``games``
    row holds, in a record's shape."""

    def __init__(self, title: str, row: dict[str, Any], reason: str) -> None:
        super().__init__(reason)
        self.title, self.row, self.reason = title, row, reason


def _show_stored_row(game: _StoredRowOnly, seat: int | None, fmt: str, html: Path | None,
                     rerun: Path | None) -> None:
    """``arena game ID`` of a game whose stored record is damaged: the bots, places and
    failures its stored row holds (text, or its page with ``html``), after one line saying
    so; the record itself (json, a rerun) is not there to show."""
    from arena.common.printable import printable, printable_log
    from arena.referee.game_report import report_game

    if fmt == "json" or rerun is not None:
        raise ArenaError(f"{game.title}: its stored record is damaged "
                         f"({game.reason}), so there is no record to "
                         f"{'show' if rerun is None else 'rerun'}")
    if html is not None:
        from arena.cli.report_commands import write_stored_row_html

        write_stored_row_html(game.title, game.row, game.reason, html)
        return
    _check_seat(game.title, game.row["players"], seat)
    # a database from elsewhere never passed the arena's entry, where a bot's text is escaped
    typer.echo(f"warning: {printable(game.title)}: its stored record is damaged "
               f"({printable(game.reason)}); shown as far as its stored row goes (its bots, "
               "places and failures)", err=True)
    lines = report_game(game.row, seat, logs=False)
    told = [line for line in lines[:lines.index("", len(lines) - 2)]  # no events to tell
            if not line.lstrip().startswith("house rules:")]  # nor rules a row could name
    typer.echo(printable_log("\n".join([game.title, *told])))


def _load_game(ref: str, number: int | None, db: Path) -> tuple[str, dict[str, Any]]:
    """(title, record) of ``ref``: a records file's ``number``-th record (None: the first),
    or a stored game."""
    from arena.common.printable import printable
    from arena.errors import DamagedRecordError, ReplayError, StoreError
    from arena.tournament.game_records import game_record, require_game, row_record
    from arena.tournament.store import Store

    path = Path(ref)
    if path.exists() and not path.is_dir():  # a pipe too: zcat games.jsonl.gz | ... /dev/stdin
        number = number or 1
        record = _record_at(path, number)
        if not _told(record):
            raise ReplayError(f"record {number} of {path} is not a game record")
        referee = record.get("referee")
        where = (f" ({referee.get('match_id')}/g{referee.get('game_index')})"
                 if isinstance(referee, dict) and "match_id" in referee else "")
        return f"Game {number} of {path}{printable(where)}", record
    if path.suffix in (".jsonl", ".json", ".gz"):
        raise ReplayError(f"no such file: {ref}")
    if "/" not in ref or path.is_dir():
        raise StoreError(f"{ref} is neither a records file nor a game id (a game id looks "
                         "like swiss/r1/t0/g3: arena status NAME names the failing games)")
    if number is not None:
        raise typer.BadParameter(f"--number picks a record of a records file; {ref} is a "
                                 "stored game", param_hint="--number")
    with Store(db, create=False, read_only=True) as store:
        tournament = ref.split("/", 1)[0]
        stored = store.require(tournament)
        try:
            record = game_record(store, ref)
        except DamagedRecordError as exc:
            raise _StoredRowOnly(f"Game {ref}", row_record(store, ref), exc.reason) from None
        except StoreError:  # an id that finds no game is told where the games are
            require_game(store, stored.id, tournament, ref)
            raise
        if not _told(record):
            raise _StoredRowOnly(f"Game {ref}", row_record(store, ref),
                                 "not a game record: its players or events are not lists")
        return f"Game {ref}", record


def _bot_homes(record: dict[str, Any], db: Path) -> list[str | None]:
    """The directory of each seat's bot as the results database recorded it when the bot
    was entered (the path its author gave), None where it has none: the logs name the bot's
    files under it, as check-bot does, instead of the sandbox's /bot."""
    from arena.tournament.bot_versions import bot_path
    from arena.tournament.store import Store

    referee = record.get("referee")
    seats = referee.get("seats") if isinstance(referee, dict) else None
    if not isinstance(seats, list):
        return []
    homes: list[str | None] = []
    with Store(db, create=False, read_only=True) as store:
        for key in seats:
            name, _, version = str(key).rpartition("@")
            stored = bot_path(store, name, version)
            path = Path(stored) if stored is not None else None
            # a single-file bot's path is its file (a .py module), a bot directory's the
            # directory, whose name may hold a dot too ('act5.v2'): told by what it is where
            # it is still there
            module = path is not None and path.suffix == ".py" and not os.path.isdir(path)
            homes.append(None if path is None else str(path.parent if module else path))
    return homes


def _entered_options(record: dict[str, Any], seat: int, db: Path) -> dict[str, Any]:
    """The options the seat's bot was entered with in a stored game (its version in the
    results database keeps them), none when it had none."""
    from arena.tournament.bot_versions import entered_options
    from arena.tournament.store import Store

    referee = record.get("referee")
    seats = referee.get("seats") if isinstance(referee, dict) else None
    if not isinstance(seats, list) or seat >= len(seats):
        return {}
    name, _, version = str(seats[seat]).rpartition("@")
    with Store(db, create=False, read_only=True) as store:
        return entered_options(store, name, version)


def _record_at(path: Path, number: int) -> Any:
    """The ``number``-th record of a records file, read a line at a time, of which only the
    line asked for is parsed (a match killed while writing leaves a torn last line; the
    records before it still show)."""
    from arena.engine.record import records_in
    from arena.errors import ReplayError

    count = 0
    for count, record in enumerate(records_in(path), 1):
        if count == number:
            try:
                return record()
            except ReplayError:
                raise ReplayError(f"record {number} of {path} is not JSON") from None
    raise ReplayError(f"{path} holds {count} game record{'s' if count != 1 else ''}; there "
                      f"is no record {number}")


def register(app: typer.Typer) -> None:
    """Add this module's command to the root app."""
    app.command("game", help=_GAME_HELP, short_help='Show one game turn by turn.')(game)
