"""Holding stop signals (Ctrl-C, SIGTERM) across a step that must not be cut in two.

Python runs a signal handler between two bytecodes of the main thread, wherever they are. A
handler that raises (``KeyboardInterrupt``, the CLI's ``Terminated``, a worker's
``SystemExit``) inside an at-fork hook or a finalizer is printed as "Exception ignored" and
lost: the command goes on as if never stopped. Starting a bot forks through such hooks, and
between the fork and the bookkeeping that can reap the bot, an interruption would leak it.
Blocked, the signal stays pending in the kernel and its handler runs when the mask is
restored, at one known point.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

__all__ = ["STOP_SIGNALS", "signals_held"]

#: What stops a command: a terminal's Ctrl-C and a service manager's stop.
STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


@contextmanager
def signals_held(signals: Iterable[int] = STOP_SIGNALS) -> Iterator[set[int]]:
    """Block ``signals`` in the calling thread for the block; yields the mask from before
    (a forked child restores it before exec, or it would start with them blocked).

    A signal that arrived meanwhile is handled when the block ends: its exception comes out
    of the ``with`` statement, after everything inside it is done.
    """
    previous: set[int] = set(signal.pthread_sigmask(signal.SIG_BLOCK, set(signals)))
    try:
        yield previous
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
