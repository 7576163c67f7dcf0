"""Every command's help as click's plain text on a terminal too narrow for typer's panels.

Below :data:`PANELS_FROM_COLUMNS` the panels' option tables cut option names and words
("--wor…") and give a third of the width to a column of metavars; click's own formatter
wraps at words instead, and here puts a description under an option too wide for its column.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:
    from typer._click import Command
    from typer._click.formatting import HelpFormatter, term_len, wrap_text
else:  # the click typer runs on: a newer typer's own copy of it, an older one's click itself
    HelpFormatter = typer.Context.formatter_class
    _formatting = importlib.import_module(HelpFormatter.__module__)
    term_len, wrap_text = _formatting.term_len, _formatting.wrap_text

__all__ = ["PANELS_FROM_COLUMNS", "NarrowHelpFormatter", "plain_help_when_narrow"]

#: The narrowest terminal typer's panels are drawn on.
PANELS_FROM_COLUMNS = 80
#: A hyphen no line is broken at, as click's wrapping would ("swiss-" "games.jsonl"): it
#: stands for each hyphen while the help is laid out.
_UNBROKEN_HYPHEN = "\u2011"
#: How much further in than its option a description under the option starts.
_UNDER_INDENT = 4


class NarrowHelpFormatter(HelpFormatter):
    """Click's formatter, its definition lists in two columns only where every term fits a
    third of the width; otherwise each description is on the lines under its term. Its lines
    break at spaces only."""

    def getvalue(self) -> str:
        return super().getvalue().replace(_UNBROKEN_HYPHEN, "-")

    def write_text(self, text: str) -> None:
        super().write_text(text.replace("-", _UNBROKEN_HYPHEN))

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        start = len(self.buffer)
        super().write_usage(prog, args, prefix)
        # a long command name puts the arguments on the next line, after a space that can be
        # one column past the terminal's edge, which then shows a blank line
        self.buffer[start:] = ["\n".join(line.rstrip() for line in
                                         "".join(self.buffer[start:]).split("\n"))]

    def write_dl(self, rows: Sequence[tuple[str, str]], col_max: int = 30,
                 col_spacing: int = 2) -> None:
        rows = [(term, text.replace("-", _UNBROKEN_HYPHEN)) for term, text in rows]
        column = self.width // 3
        if all(term_len(term) <= column for term, _ in rows):
            super().write_dl(rows, col_max=column, col_spacing=col_spacing)
            return
        indent = " " * (self.current_indent + _UNDER_INDENT)
        for term, text in rows:
            self.write(f"{'':>{self.current_indent}}{term}\n")
            if text:
                self.write(wrap_text(text, self.width, initial_indent=indent,
                                     subsequent_indent=indent, preserve_paragraphs=True))
                self.write("\n")


class _NarrowHelpContext(typer.Context):
    formatter_class = NarrowHelpFormatter

    def get_help(self) -> str:
        # printed here, as typer prints its panels: a group run without a command has its
        # help shown only so, typer's error handler expecting it printed already
        typer.echo(super().get_help(), color=self.color)
        return ""


def plain_help_when_narrow(command: Command) -> None:
    """Give ``command`` (the root group built from the app) and all its subcommands click's
    plain help, wrapped to the terminal's width, where that is below
    :data:`PANELS_FROM_COLUMNS`; otherwise leave typer's panels. The root group shows its
    own plain help when handed a :class:`NarrowHelpFormatter`."""
    width = Console().width  # as typer's panels would take it: $COLUMNS, or the terminal's
    if width >= PANELS_FROM_COLUMNS:
        return
    # click would wrap at no fewer than 50 columns; a subcommand's context inherits the width
    command.context_settings["terminal_width"] = width
    for each in _command_tree(command):
        each.context_class = _NarrowHelpContext
        # the root's mode stays: it also draws a usage error, whose panel wraps at words
        if each is not command and isinstance(each, TyperCommand | TyperGroup):
            each.rich_markup_mode = None


def _command_tree(command: Command) -> Iterable[Command]:
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _command_tree(sub)
