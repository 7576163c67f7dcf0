"""The width of the terminal the CLI prints to, for the tables that fit it."""

from __future__ import annotations

import re
import sys

__all__ = ["fill_words", "hanging", "terminal_width", "wrapped"]

#: A command a line tells the user to paste: a subcommand, its argument, options with values.
_COMMAND = re.compile(r"\barena (?:run|game|status|pairings|leaderboard|h2h|results) \S+"
                      r"(?: --?[\w-]+(?: (?!-)\S+)?)*")


def terminal_width(*, err: bool = False) -> int | None:
    """The columns of the terminal standard output (``err``: standard error) is; None for a
    pipe or a file (scripts read that output, and it must not depend on the window that ran
    them)."""
    if not (sys.stderr if err else sys.stdout).isatty():
        return None
    from rich.console import Console

    # as the progress bar reads it: $COLUMNS, or the terminal's size
    return Console(stderr=err).width


def wrapped(text: str, *, err: bool = False, indent: str = "") -> str:
    """``text`` wrapped at words to the terminal's width (``err``: standard error's), which
    would otherwise break it mid-word, the lines it continues on ``indent``ed; a pipe or a
    file gets it as it is."""
    width = terminal_width(err=err)
    return text if width is None else fill_words(text, width, indent)


def fill_words(text: str, width: int, indent: str = "") -> str:
    """Each line of ``text`` wrapped at spaces into ``width`` columns, the lines it
    continues on ``indent``ed."""
    import textwrap

    # a path or an option is never broken: one longer than a line has a line of its own; nor
    # is a command to paste (a line break in it would run half of it)
    kept = [_COMMAND.sub(lambda m: m.group().replace(" ", "\xa0"), line)
            for line in text.splitlines()]
    return "\n".join(textwrap.fill(line, width, subsequent_indent=indent,
                                   break_long_words=False, break_on_hyphens=False)
                     for line in kept).replace("\xa0", " ")


def hanging(line: str, width: int) -> str:
    """One line of a report wrapped at words into ``width`` columns, the lines it continues
    on two columns further in than its own indent (so an indented list stays one)."""
    return fill_words(line, width, " " * (len(line) - len(line.lstrip()) + 2))

