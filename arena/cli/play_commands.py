"""``arena play``: a person takes one seat at a table of bots, in the terminal.

The table is :class:`arena.play.session.Series` (the sandboxed referee, as ``arena match``);
this module parses the options, sets up the terminal and says how the series ended.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from arena.cli.bot_options import limits_of, with_options
from arena.cli.options import EventDateOption, event_day
from arena.cli.output_file import check_output_file
from arena.cli.signals import stop_on_sigterm
from arena.cli.terminal import fill_words
from arena.common.printable import printable
from arena.engine.houserules import rules_from_texts
from arena.play.keyboard import keys_unechoed, reads_a_terminal, terminal_ask
from arena.play.person import LeftTable, Person
from arena.play.session import PlayRequest, Series
from arena.rating.match_series import told_apart

__all__ = ["PLAY_HELP", "play", "register"]

PLAY_HELP = "\n\n".join([
    "Sit at a table and play Palaestra against 1 to 4 bots (registered names, .py modules "
    "or bot directories), through the same sandboxed referee as arena match: the bots are "
    "sent exactly what they would be sent against another bot.",
    "You see what your seat may see: your hand, the Arenas (your traps face up, the others' "
    "counted), graveyards, the draw pile, revealed cards, and the other players' public "
    "actions as they happen. Each decision lists its options by number (a card of your "
    "hand by its number there, a player by their seat): Enter plays the first (hold, keep "
    "or pass where offered), ? explains the decision and its cards, h N shows the text of "
    "card N of your hand, quit leaves. After the showdown: again, review (the "
    "whole game, every card shown) or quit; the loser starts the next game.",
    "Example: arena play bots/greedy.py",
    "Example: arena play greedy heuristic random --seat 2 --seed 7 --records games.jsonl",
])


def _default_name() -> str:
    name = os.environ.get("USER") or ""
    fits = name.isidentifier() and len(name) <= MAX_PLAYER_NAME
    return name if fits and name != "root" else "player"


#: The longest name a person sits under: a bot's is as long at most, and the bots read every
#: name in each message (docs/PROTOCOL.md promises how long a line can be).
MAX_PLAYER_NAME = 64


def _player_name(name: str | None) -> str:
    """The name the person sits under: ``--name``, checked, or the login name."""
    if name is None:
        return _default_name()
    player = printable(_decoded(name))
    if not player.strip():
        raise typer.BadParameter("give a name to sit under", param_hint="'--name'")
    if len(player) > MAX_PLAYER_NAME:
        raise typer.BadParameter(f"a name of at most {MAX_PLAYER_NAME} characters, as a "
                                 f"bot's (this one has {len(player)})", param_hint="'--name'")
    return player

#: ``--read-page`` and ``--book-finished``: the person's books, which the rulebook asks.
_ReadPage = Annotated[str | None, typer.Option(
    "--read-page", metavar="WHEN", help="When you last read a page of a printed book "
    "(ISO date or date-time): the most recent reader starts the first game.")]
_BookFinished = Annotated[str | None, typer.Option(
    "--book-finished", metavar="DATE", help="When you last finished a printed book "
    "(ISO date): it breaks equal first place.")]


def play(
    bots: Annotated[list[str], typer.Argument(
        metavar="BOTS", help="1 to 4 bots: registered names, .py modules or bot directories.")],
    seat: Annotated[int, typer.Option(
        "--seat", min=0, help="Your seat (0-based; seat order is play order).")] = 0,
    seed: Annotated[int | None, typer.Option(
        "--seed", "-s", min=0, help="Match seed (game seeds derive from it). Default: "
        "drawn now and printed at the end.")] = None,
    rule: Annotated[list[str] | None, typer.Option(
        "--rule", metavar="NAME=VALUE", help="A house rule for every game (repeatable; "
        "arena rules --house lists them).")] = None,
    games: Annotated[int | None, typer.Option(
        "--games", "-g", min=1, help="Games in the series (default: until you quit).")
    ] = None,
    clock: Annotated[float | None, typer.Option(
        "--clock", min=1, metavar="SECONDS", help="Your time per decision; when it runs "
        "out the first option is played, a throw drawn by lot at Rock-Paper-Scissors "
        "(default: no limit).")] = None,
    records: Annotated[str | None, typer.Option(
        "--records", help="Write each game's record to this JSONL file (a directory: "
        "play-SEED.jsonl in it, play-DATE-TIME.jsonl for a drawn seed); arena game opens "
        "them.")] = None,
    name: Annotated[str | None, typer.Option(
        "--name", help="Your name at the table (default: your login name, or player).")
    ] = None,
    pace: Annotated[float, typer.Option(
        "--pace", min=0, metavar="SECONDS", help="Pause after each line telling what "
        "another player did (0: none).")] = 0.4,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", metavar="N:KEY=VALUE",
        help="A setting for the N-th bot (1-based), as arena match takes it.")] = None,
    read_page: _ReadPage = None,
    book_finished: _BookFinished = None,
    event_date: EventDateOption = None,
) -> None:
    """Play against bots (help text: ``PLAY_HELP``)."""
    _check_table(bots, seat)
    player = _player_name(name)
    # resolved here (name#1, name#2 for a bot entered twice) to keep the person's name apart
    specs = told_apart(with_options(bots, option or []))
    if player in {spec.name for spec in specs}:
        raise typer.BadParameter(f"{player!r} is the name of a bot at this table; choose "
                                 "another name", param_hint="'--name'")
    rules = rules_from_texts(rule)
    day = event_day(event_date)
    drawn = seed is None
    seed = secrets.randbits(63) if seed is None else seed
    records_file = _records_file(records, None if drawn else seed)
    kept = _records_in(records_file)
    _tolerant_terminal()
    console = Console(highlight=False)
    ask = terminal_ask(console)
    request = PlayRequest(bots=specs, seat=seat, name=player,
                          seed=seed, games=games, rules=rules, records=records_file,
                          limits=limits_of(),
                          metadata=_books(read_page, book_finished), event_date=day)
    # a pipe's empty line is an answer (asking again would read the next decision's line)
    person = Person(console, ask, seat, clock=clock, pace=pace, rules=rules,
                    enter_anywhere=not reads_a_terminal())
    series = Series(request, person, console, ask)
    try:
        # keys pressed while the table is told are not drawn into it; a SIGTERM gives the
        # terminal back as it was, as Ctrl-C does
        with stop_on_sigterm(), keys_unechoed():
            series.play()
    except LeftTable:
        console.print("You left the table.")
    except KeyboardInterrupt:
        console.print()
        _goodbye(console, series, seed, drawn, records_file, kept)
        raise
    _goodbye(console, series, seed, drawn, records_file, kept)


def _check_table(bots: list[str], seat: int) -> None:
    """A table seats 2 to 5 players: the person and 1 to 4 bots, the person in one of its
    seats."""
    if not 1 <= len(bots) <= 4:
        raise typer.BadParameter(f"a table seats 2 to 5 players: give 1 to 4 bots, not "
                                 f"{len(bots)}", param_hint="'BOTS'")
    if seat > len(bots):
        raise typer.BadParameter(f"a table of {len(bots) + 1} has seats 0-{len(bots)}",
                                 param_hint="'--seat'")


def _tolerant_terminal() -> None:
    """A terminal whose encoding lacks a character the table draws (an ASCII one: the '·'
    between cards) shows '?' for it, and a typed byte it cannot decode reads as '?' (then
    refused), rather than ending the game with a traceback."""
    for stream in (sys.stdin, sys.stdout):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")


def _decoded(text: str) -> str:
    """A command-line argument with bytes that were not UTF-8 (Python keeps them as lone
    surrogates, which no stream can write: the bots are sent the name) as U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _books(read_page: str | None, book_finished: str | None) -> dict[str, str]:
    """The person's reading dates (ruling 13 and the book tie-break), checked."""
    books = {}
    for flag, key, value in (("--read-page", "last_read_page", read_page),
                             ("--book-finished", "last_book_finished", book_finished)):
        if value is None:
            continue
        try:
            dt.datetime.fromisoformat(value)
        except ValueError:
            raise typer.BadParameter(f"expected an ISO date such as 2026-11-30, got "
                                     f"{value!r}", param_hint=f"'{flag}'") from None
        books[key] = value
    return books


def _records_file(given: str | None, seed: int | None) -> Path | None:
    """The file ``--records`` names: ``play-SEED.jsonl`` in a directory (an existing one, or
    one named with a trailing slash, which must exist), else the file itself. A drawn seed
    (None) names no file: it would deal the series' later games to whoever looks, so the
    file is named by the time the series began (UTC), ``play-20261205-114500.jsonl``."""
    if given is None:
        return None
    path = Path(given)
    if path.is_dir() or given.endswith(("/", os.sep)):
        stem = seed if seed is not None else f"{dt.datetime.now(dt.timezone.utc):%Y%m%d-%H%M%S}"
        path = path / f"play-{stem}.jsonl"
    check_output_file(path, "'--records'")
    return path


def _records_in(path: Path | None) -> int:
    """The game records ``path`` holds already (a series adds its own after them)."""
    if path is None or not path.is_file():  # none given, none yet, or a device
        return 0
    try:
        with path.open("rb") as existing:
            return sum(1 for line in existing if line.strip())
    except OSError:  # unreadable: the series' own write will say what is wrong
        return 0


def _goodbye(console: Console, series: Series, seed: int, drawn: bool,
             records: Path | None, kept: int) -> None:
    # the score, unless the series ended at the menu right under it
    lines = [] if series.score_shown else [series.score_line()]
    if series.played or drawn:  # a drawn seed is told nowhere else: it deals game 1 again
        again = (f" (--seed {seed} --event-date {series.day} deals the same first game)"
                 if drawn else "")
        lines.append(f"Seed {seed}{again}")
    if records is not None and series.played:
        after = f" after the {kept} already there" if kept else ""
        lines.append(f"Wrote {len(series.played)} game record"
                     f"{'' if len(series.played) == 1 else 's'} to {records}{after} "
                     f"(arena game {records} -n {kept + 1} shows the first"
                     f"{' of these' if kept else ''})")
    for line in lines:  # wrapped at words for a person (a command whole), whole for a script
        text = fill_words(line, console.width) if console.is_terminal else line
        console.print(Text(text), soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``arena play`` to the root app."""
    app.command("play", help=PLAY_HELP, short_help='Play Palaestra yourself against bots.')(play)
