"""Entry point of the ``arena`` command.

Commands live in one module per noun (``engine_commands``, ``bot_commands`` with
``match_commands``, ``tournament_commands``, ``rating_commands``, ``bench_commands``) as
module-level functions, each module's ``register`` adding them here.
Domain errors (:class:`arena.errors.ArenaError`) become ``Error: ...`` and exit code 1 in
exactly one place, :class:`ArenaGroup`, so no command needs its own try/except.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer
import typer.main
from typer.core import TyperGroup

import arena
from arena.cli.signals import Terminated
from arena.errors import ArenaError

__all__ = ["app", "main"]


#: Every module that registers commands (its ``register(app)``), in registration order, with
#: the commands it registers: a command is imported when it is run, not every command at
#: every start (``arena run`` needs none of the others). The help lists them all.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "arena.cli.engine_commands": ("desmos", "simulate", "replay", "rules"),
    "arena.cli.bot_commands": ("doctor", "check-bot", "submit", "match", "bots"),
    "arena.cli.tournament_commands": ("run", "status", "game", "delete"),
    "arena.cli.rating_commands": ("leaderboard", "results", "h2h", "tournaments"),
    "arena.cli.report_commands": ("report", "serve"),
    "arena.cli.bench_commands": ("bench",),
    "arena.cli.play_commands": ("play",),
    "arena.cli.export_commands": ("export",),
    "arena.cli.pairings_commands": ("pairings",),
    "arena.cli.env_commands": ("env",),
    "arena.cli.league_commands": ("league",),
}


def registered(modules: tuple[str, ...]) -> typer.Typer:
    """A Typer with the commands of ``modules`` (names as in :data:`COMMAND_MODULES`)
    registered, its help arranged as the root's (see :func:`_arrange_help`)."""
    holder = typer.Typer(rich_markup_mode=app.rich_markup_mode,
                         pretty_exceptions_short=app.pretty_exceptions_short,
                         suggest_commands=app.suggest_commands)
    holder.callback()(_root)  # a group, whatever the number of commands
    for name in modules:
        importlib.import_module(name).register(holder)
    _arrange_help(holder)
    return holder


class _Commands(MutableMapping[str, Any]):  # click commands (typer may vendor its click)
    """The root group's commands, each module imported when one of its commands is looked
    up; listing them (the help, a mistyped name) imports every module."""

    def __init__(self) -> None:
        self._loaded: dict[str, Any] = {}
        self._complete = False

    def _load(self, modules: tuple[str, ...]) -> None:
        self._loaded.update(typer.main.get_group(registered(modules)).commands)

    def _all(self) -> dict[str, Any]:
        if not self._complete:
            self._loaded = {}  # in the order of the help
            self._load(tuple(COMMAND_MODULES))
            self._complete = True
        return self._loaded

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded and not self._complete:
            module = next((m for m, names in COMMAND_MODULES.items() if name in names), None)
            if module is None:
                return self._all()[name]
            self._load((module,))
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._all()[name] = command

    def __delitem__(self, name: str) -> None:
        del self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class ArenaGroup(TyperGroup):
    """Root command group that renders every ArenaError as a one-line message; its commands
    are imported as they are needed (:class:`_Commands`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Commands()

    def invoke(self, ctx: Any) -> Any:  # a click Context (typer may vendor its own click)
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            typer.echo(f"Error: {exc}", err=True)
            raise typer.Exit(1) from None
        except Terminated:
            typer.echo("Terminated.", err=True)
            raise typer.Exit(143) from None
        except KeyboardInterrupt:
            typer.echo("Interrupted.", err=True)
            raise typer.Exit(130) from None


app = typer.Typer(
    cls=ArenaGroup,
    name="arena",
    help=(
        "Palaestra Arena: the rules engine of the card game Palaestra and an arena where bots "
        "play tournaments.\n\nExample: arena run tournaments/swiss.yaml"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"arena {arena.__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the arena's version and exit.")] = False,
) -> None:
    # The root group's own options (its help text is the app's); commands do the work.
    pass


#: The commands in the help's first panel, in the order people reach for them.
_FIRST = ("run", "leaderboard", "status", "submit", "check-bot", "match", "play", "bots",
          "doctor", "tournaments", "pairings", "h2h", "results", "game", "export", "report",
          "serve", "delete")
#: Tools for working on the engine and measuring the arena: a help panel of their own.
DEVELOPER_TOOLS = ("desmos", "simulate", "replay", "rules", "bench")
DEVELOPER_PANEL = "Developer tools"


def _arrange_help(root: typer.Typer) -> None:
    """Order the root help: the everyday commands first, the developer tools apart."""
    for command in root.registered_commands:
        if command.name in DEVELOPER_TOOLS:
            command.rich_help_panel = DEVELOPER_PANEL
    for group in root.registered_groups:
        if group.name in DEVELOPER_TOOLS:
            group.rich_help_panel = DEVELOPER_PANEL
    root.registered_commands.sort(
        key=lambda info: _FIRST.index(info.name) if info.name in _FIRST else len(_FIRST))


class _LevelFormatter(logging.Formatter):
    """``warning: <message>``, as the CLI's own warnings read."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


def configure_logging() -> None:
    """The arena's log records (a missing sandbox layer, a registered name shadowing a
    directory) as ``warning: ...`` lines on stderr; without this, Python prints them bare."""
    logger = logging.getLogger("arena")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(_LevelFormatter())
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def main() -> None:
    configure_logging()
    app()


if __name__ == "__main__":
    main()
