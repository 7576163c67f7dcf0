"""The keyboard a person at the table answers from: lines read from a terminal (with rich's
line editing, or a wait on stdin under a clock) or from a pipe or a file (:func:`terminal_ask`),
whether standard input is a terminal at all (:func:`reads_a_terminal`), and a terminal's echo
turned off while the table is told (:func:`keys_unechoed`), keys typed meanwhile dropped.
:class:`~arena.play.person.Person` reads its answers through the :data:`Ask` this gives.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import termios
import time
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Console
from rich.text import Text

__all__ = ["Ask", "keys_unechoed", "reads_a_terminal", "terminal_ask"]

#: Reads one line after showing a prompt; the second argument is the seconds left to answer
#: (None: no limit). Returns the line, or None when the time ran out. EOF raises EOFError.
Ask = Callable[[str, float | None], str | None]


def terminal_ask(console: Console) -> Ask:
    """Lines from the terminal: rich's prompt (line editing) without a limit, and a wait on
    stdin with one. Lines from a pipe or a file are read through :class:`_Lines`."""
    piped = _piped_lines()

    def ask(prompt: str, seconds: float | None) -> str | None:
        with _echo(True):
            return read(prompt, seconds)

    def read(prompt: str, seconds: float | None) -> str | None:
        if _drop_typed_ahead():  # say why nothing came of them
            console.print(Text("(what you typed while the table was told was dropped: answer "
                               "here)", style="italic"))
        if piped is not None:
            console.print(prompt, end="")
            line = piped.read(seconds)
            if line is None:
                console.print()
            return line
        if seconds is None:
            return console.input(prompt)
        console.print(prompt, end="")
        # a terminal hands over one line per read, so nothing waits in sys.stdin's buffer
        ready, _, _ = select.select([sys.stdin], [], [], max(0.0, seconds))
        if not ready:
            console.print()
            return None
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    return ask


def reads_a_terminal() -> bool:
    """Whether standard input is a terminal (a person typing), not a pipe or a file."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def _piped_lines() -> _Lines | None:
    """A reader of fd 0 when it is a pipe or a file (None for a terminal, or a stdin with no
    file descriptor, as under a test runner)."""
    try:
        if sys.stdin.isatty():
            return None
        return _Lines(sys.stdin.fileno(), sys.stdin.encoding or "utf-8")
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


class _Lines:
    """Lines of a pipe or a file, read from the file descriptor into one buffer of its own.

    A pipe hands over as many lines as were written: ``sys.stdin`` would keep the ones after
    the first in its buffer, where a wait on the descriptor (the clock's) does not see them,
    so they were read only when the pipe closed, after the clock had played option 0. Every
    answer, with a clock or without, is read here, so no line waits anywhere else."""

    def __init__(self, fd: int, encoding: str) -> None:
        self.fd = fd
        self.encoding = encoding
        self.pending = b""
        self.ended = False

    def read(self, seconds: float | None) -> str | None:
        """The next line (without its newline), None when ``seconds`` pass first; the end
        of input raises EOFError."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while b"\n" not in self.pending and not self.ended:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.fd, 4096)
            self.ended = not chunk
            self.pending += chunk
        if not self.pending:
            raise EOFError
        line, _, self.pending = self.pending.partition(b"\n")
        # whole lines only: a character's bytes never straddle a newline
        return line.decode(self.encoding, "replace")


def _drop_typed_ahead() -> bool:
    """Forget keys pressed while the table was being told (an Enter pressed to hurry the
    narration on must not answer the next decision); True when a whole line was dropped."""
    try:
        if sys.stdin.isatty():
            # a terminal's line is readable once ended: a line typed, not a key half-way
            typed, _, _ = select.select([sys.stdin], [], [], 0)
            termios.tcflush(sys.stdin, termios.TCIFLUSH)
            return bool(typed)
    except (OSError, ValueError, termios.error):
        pass
    return False


def _terminal_settings() -> list[Any] | None:
    """Standard input's terminal settings (termios), None when it is no terminal."""
    try:
        return termios.tcgetattr(sys.stdin) if sys.stdin.isatty() else None
    except (OSError, ValueError, termios.error):
        return None


def _set_terminal(settings: list[Any]) -> None:
    try:
        termios.tcsetattr(sys.stdin, termios.TCSANOW, settings)
    except (OSError, ValueError, termios.error):  # a terminal gone: nothing to set
        pass


@contextlib.contextmanager
def _echo(on: bool) -> Iterator[None]:
    """For the block, a terminal echoes the keys typed (``on``) or none, not even Enter;
    after it, its settings are as they were, however the block ends. A pipe: nothing."""
    settings = _terminal_settings()
    if settings is None:
        yield
        return
    changed = list(settings)
    changed[3] = (settings[3] | termios.ECHO if on
                  else settings[3] & ~(termios.ECHO | termios.ECHONL))
    _set_terminal(changed)
    try:
        yield
    finally:
        _set_terminal(settings)


def keys_unechoed() -> contextlib.AbstractContextManager[None]:
    """A block in which a terminal echoes keys at a prompt only (:func:`terminal_ask` turns
    echo on while it reads): an Enter pressed while the table was told drew a blank line
    into it (the line itself is dropped before the next prompt)."""
    return _echo(False)
