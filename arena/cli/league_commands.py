"""CLI commands of a league (registered by arena.cli.main): ``arena league stop`` and
``arena league retire``.

A league is run by ``arena run league.yaml`` like any tournament (and stopped by Ctrl-C
too); ``arena league stop NAME`` asks it, from another terminal, to stop once the table
under way is played; ``arena league retire NAME BOT`` takes a bot out of its matchmaking,
running or not (docs/LEAGUE.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import DbOption
from arena.cli.suggesting import SuggestingGroup
from arena.tournament.store import DEFAULT_RESULTS

__all__ = ["league_app", "register"]

league_app = typer.Typer(name="league", cls=SuggestingGroup, no_args_is_help=True,
                         help="A league that runs until stopped: arena run league.yaml starts "
                              "or resumes it; these commands act on a running one."
                              "\n\nExample: arena league stop ladder")

_RETIRE_HELP = "\n\n".join([
    "Retire a bot from a league, running or not: no table chosen from now on seats it (a "
    "table under way is played out); its games and rating stay, and arena status lists it "
    "as retired by the organiser. That version never enters again; a new version submitted "
    "under its name does (leave it out of the spec's bots, or its name out of the bots "
    "directory, to keep the name out).",
    "Example: arena league retire league my-bot --reason 'left the contest'",
])

_STOP_HELP = "\n\n".join([
    "Stop a running league once the table under way is played (its games are recorded; "
    "arena run SPEC resumes it).",
    "Example: arena league stop ladder",
])


def stop(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league's name.")],
    db: DbOption = Path(DEFAULT_RESULTS),
) -> None:
    """Ask a running league to stop (help text: ``_STOP_HELP``)."""
    from arena.errors import StoreError
    from arena.tournament.league_store import request_stop
    from arena.tournament.store import Store

    with Store(db, create=False, read_only=True) as store:
        row = store.require(name)
        pid = store.runner_pid(name)
    if row.format != "league":
        raise StoreError(f"'{name}' is a {row.format} tournament, not a league (stop it with "
                         "Ctrl-C where it runs)")
    if pid is None:
        raise StoreError(f"league '{name}' is not running (arena run SPEC resumes it)")
    request_stop(db, name)
    typer.echo(f"asked league '{name}' to stop once the table under way is played"
               + (f" (pid {pid})" if pid > 0 else ""))


def retire(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The league's name.")],
    bot: Annotated[str, typer.Argument(metavar="BOT", help="The bot to retire: its name (its "
                                       "active version), or NAME@VERSION.")],
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT",
                                        help="Why, shown with the entry.")] = "",
    db: DbOption = Path(DEFAULT_RESULTS),
) -> None:
    """Retire a league's bot (help text: ``_RETIRE_HELP``)."""
    from arena.common.printable import printable
    from arena.tournament.league_store import retire_entry
    from arena.tournament.store import Store

    with Store(db, create=False) as store:
        entry = retire_entry(store, store.require(name), bot, printable(reason).strip())
        running = store.runner_pid(name) is not None
    # a league's database may come from elsewhere: its names are escaped as printed
    typer.echo(printable(f"{entry.key} retires from league '{name}': {entry.reason}; ")
               + ("no table chosen from now on seats it" if running else
                  "the league plays on without it when run again"))


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    league_app.command("stop", help=_STOP_HELP, short_help='Stop a running league.')(stop)
    league_app.command("retire", help=_RETIRE_HELP,
                       short_help="Retire a bot from a league.")(retire)
    app.add_typer(league_app, name="league",
                  short_help="Stop a running league, or retire a bot from it.")
