"""Entry point of the ``arena`` command.

Commands live in one module per noun (``engine_commands``, ``bot_commands`` with
``match_commands``, ``tournament_commands``, ``rating_commands``, ``bench_commands``) as
module-level functions, each module's ``register`` adding them here.
Domain errors (:class:`arena.errors.ArenaError`) become ``Error: ...`` and exit code 1 in
exactly one place, :class:`ArenaGroup`, so no command needs its own try/except; a usage
mistake (an unknown option, a bad value, a missing argument) becomes ``Error: ...`` and a
``Try 'arena CMD --help'.`` line, exit code 2 as click's, there too.
"""

from __future__ import annotations

import errno
import logging
import os
import select
import sys
from typing import Annotated, Any, NoReturn

import typer

import arena
from arena.cli import (
    bench_commands,
    bot_commands,
    engine_commands,
    env_commands,
    export_commands,
    game_commands,
    league_commands,
    pairings_commands,
    play_commands,
    rating_commands,
    report_commands,
    tournament_commands,
)
from arena.cli.click_errors import NoArgsIsHelpError, UsageError
from arena.cli.plain_help import NarrowHelpFormatter, plain_help_when_narrow
from arena.cli.signals import Terminated
from arena.cli.suggesting import SuggestingGroup
from arena.common.printable import printable_log
from arena.errors import ArenaError

__all__ = ["app", "main"]


class ArenaGroup(SuggestingGroup):
    """Root command group that renders every ArenaError as a one-line message."""

    def list_commands(self, ctx: Any) -> list[str]:
        """The commands, everyday ones first (:data:`_FIRST`; a group such as ``bots`` too),
        then the rest as registered."""
        names = super().list_commands(ctx)
        return sorted(names, key=lambda name: _FIRST.index(name) if name in _FIRST
                      else len(_FIRST))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        if not isinstance(formatter, NarrowHelpFormatter):
            super().format_help(ctx, formatter)
            return
        # a terminal too narrow for typer's panels: click's plain help, as the subcommands'
        self.format_usage(ctx, formatter)
        self.format_help_text(ctx, formatter)
        self.format_options(ctx, formatter)
        self.format_epilog(ctx, formatter)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The plain help's commands (a narrow terminal's) under their panels' headings, the
        developer tools apart, as typer's panels show them."""
        panels: dict[str, list[tuple[str, str]]] = {}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                panel = getattr(command, "rich_help_panel", None) or "Commands"
                # its first sentence whole, as the panels give it (click cuts it to fit)
                panels.setdefault(panel, []).append((name, command.get_short_help_str(200)))
        for panel, rows in panels.items():
            with formatter.section(panel):
                formatter.write_dl(rows)

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None,
                     **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as exc:  # the root's own options (``arena --bogus``)
            _usage_mistake(exc, None)

    def invoke(self, ctx: Any) -> Any:  # a click Context (typer may vendor its own click)
        try:
            return super().invoke(ctx)
        except UsageError as exc:  # any subcommand's, and a command's BadParameter
            _usage_mistake(exc, ctx)
        except ArenaError as exc:
            # its words may quote a file from anyone (a records file's choice, a bot's name)
            typer.echo(f"Error: {printable_log(str(exc))}", err=True)
            raise typer.Exit(1) from None
        except Terminated:
            _last_words("Terminated.")
            raise typer.Exit(143) from None
        except KeyboardInterrupt:
            _last_words("Interrupted.")
            raise typer.Exit(130) from None
        except BrokenPipeError as exc:
            if not _readers_left():  # another pipe (click would end in silence): said
                _last_words(f"Error: {exc.strerror}: a pipe the arena wrote to was closed")
                raise typer.Exit(1) from None
            # whoever read the output stopped (``| head``): end quietly, as if by SIGPIPE
            raise typer.Exit(141) from None
        except SystemExit as exc:
            # rich's console exits 1 on a closed pipe (``2>&1 | tee`` when tee dies first on
            # Ctrl-C): end as a closed pipe does anywhere else
            if exc.code != 1 or not isinstance(exc.__context__, BrokenPipeError):
                raise
            _readers_left()
            raise typer.Exit(141) from None
        except MemoryError:  # a several-GB line in a records file, on a small machine
            typer.echo("Error: out of memory: the input is larger than this machine's memory "
                       "allows", err=True)
            raise typer.Exit(1) from None
        except OSError as exc:
            if exc.errno not in _WRITE_FAILURES:
                raise
            where = f" {exc.filename}" if exc.filename else " the output"
            typer.echo(f"Error: cannot write{where}: {exc.strerror}", err=True)
            raise typer.Exit(1) from None


def _usage_mistake(exc: UsageError, root: Any) -> NoReturn:
    """A usage error as one ``Error: ...`` line and a hint, exit code 2: typer would draw
    it in a box, under the usage line, which a script's log or a narrow terminal garbles."""
    if isinstance(exc, NoArgsIsHelpError):
        raise exc  # the help itself, which typer shows as ``--help`` does
    # its words may quote what was typed (an option's value, a file's name)
    typer.echo(f"Error: {printable_log(exc.format_message())}", err=True)
    help_option = "--help"
    if exc.ctx is not None:
        help_option = max(exc.ctx.help_option_names, key=len, default=help_option)
        typer.echo(f"Try '{exc.ctx.command_path} {help_option}'.", err=True)
    elif root is not None and root.invoked_subcommand:
        # an option missing its value: typer's parser names no command; the root knows one
        typer.echo(f"Try '{root.command_path} {root.invoked_subcommand} {help_option}'.",
                   err=True)
    raise typer.Exit(exc.exit_code) from None


def _readers_left() -> bool:
    """Whether standard output or standard error is a pipe nobody reads any more (poll says
    POLLERR); each such one is pointed at /dev/null, so that no later write or the flush at
    exit fails on it."""
    try:
        closed = []
        for stream in (sys.stdout, sys.stderr):
            poller = select.poll()
            poller.register(stream.fileno(), select.POLLOUT)
            if any(events & select.POLLERR for _, events in poller.poll(0)):
                closed.append(stream.fileno())
    except (OSError, ValueError):  # no file descriptor behind it (a test's capture)
        return False
    for fd in closed:
        os.dup2(os.open(os.devnull, os.O_WRONLY), fd)
    return bool(closed)


def _last_words(text: str) -> None:
    """``text`` on standard error, unless nobody reads it any more (the pipe a Ctrl-C closed
    too): then nothing, rather than a traceback of the write."""
    try:
        typer.echo(text, err=True)
    except BrokenPipeError:
        _readers_left()


#: What a write to a full or failing disk or device raises, wherever the output goes
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


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


for _module in (engine_commands, bot_commands, tournament_commands, game_commands,
                rating_commands, report_commands, bench_commands, play_commands,
                export_commands, pairings_commands, env_commands, league_commands):
    _module.register(app)

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


_arrange_help(app)


class _LevelFormatter(logging.Formatter):
    """``warning: <message>``, as the CLI's own warnings read."""

    def format(self, record: logging.LogRecord) -> str:
        # its words may quote a database or file made elsewhere, never escaped on entry
        return f"{record.levelname.lower()}: {printable_log(record.getMessage())}"


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
    command = typer.main.get_command(app)  # what app() runs, its help fitted first
    plain_help_when_narrow(command)
    command()


if __name__ == "__main__":
    main()
