"""The width of the terminal the CLI prints to, for the tables that fit it."""

from __future__ import annotations

import sys

__all__ = ["fitted_width", "terminal_width"]


def terminal_width() -> int | None:
    """The columns of the terminal standard output is; None for a pipe or a file (scripts
    read that output, and it must not depend on the window that ran them)."""
    if not sys.stdout.isatty():
        return None
    from rich.console import Console

    # as the progress bar reads it: $COLUMNS, or the terminal's size
    return Console().width


def fitted_width(most: int) -> int:
    """The columns a table may take: ``most``, or the terminal's width where standard output
    is a narrower terminal (a pipe or a file gets ``most``)."""
    width = terminal_width()
    return most if width is None else min(most, width)
