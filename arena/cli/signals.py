"""How a command stops on a signal: SIGTERM the way Ctrl-C does.

Kept apart from :mod:`arena.cli.main` so that one class is caught whatever imported it
(``python -m arena.cli.main`` loads that module a second time, as ``__main__``).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Terminated", "stop_on_sigterm"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, stopping a command the way Ctrl-C does (a service manager's stop)."""


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """For the block, SIGTERM raises :class:`Terminated` in the main thread: the command
    stops cleanly (bots reaped, what to resume said) and exits 143."""
    def terminate(signum: int, frame: Any) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
