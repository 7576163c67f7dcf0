"""The stack the referee asks a timed-out bot for (``SIGUSR1``, docs/PROTOCOL.md, "Where a
timed-out bot was stuck"), kept when bot code takes the signal for a handler of its own.

``signal.signal`` replaces ``faulthandler``'s C-level handler: from then on the referee's
signal runs the bot's handler alone (or nothing, ``SIG_IGN``), and the timeout names no line.
:func:`keep`, called before each decision, puts the dump back in front of the bot's handler
(``chain``), which still runs after it. A handler installed during a decision is seen at the
next one.
"""

from __future__ import annotations

import faulthandler
import signal
import sys
from _signal import getsignal  # signal.getsignal's enum conversion is slow, per decision
from typing import Any

__all__ = ["keep", "register"]

_SIGUSR1 = int(signal.SIGUSR1)
_SIG_DFL = int(signal.SIG_DFL)
#: The log's descriptor as the runner left it (bot code may replace ``sys.stderr``).
_log_fd = 2
#: What ``signal.getsignal`` shows once the dump was put back: anything else is newer.
_chained: object = signal.SIG_DFL


class _AfterDump:
    """The bot's own handler, run after the dump (``SIG_IGN``: nothing)."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    def __call__(self, signum: int, frame: Any) -> Any:
        if callable(self.handler):
            return self.handler(signum, frame)
        return None


def register() -> None:
    """Dump every thread's stack to the log on ``SIGUSR1`` (the runner calls it first)."""
    global _log_fd
    _log_fd = sys.stderr.fileno()
    faulthandler.register(signal.SIGUSR1, file=_log_fd, all_threads=True)


def keep() -> None:
    """Put the dump back if bot code installed a ``SIGUSR1`` handler since the last call;
    otherwise a single look at the signal module's table."""
    global _chained
    handler = getsignal(_SIGUSR1)
    if handler is _chained or handler is None or handler == _SIG_DFL:
        return
    # Held meanwhile: between unregister and register the signal's action is the default,
    # which ends the process; a signal that came is dumped once the dump is back.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        faulthandler.unregister(signal.SIGUSR1)
        _chained = _AfterDump(handler)
        signal.signal(signal.SIGUSR1, _chained)
        faulthandler.register(signal.SIGUSR1, file=_log_fd, all_threads=True, chain=True)
    except (ValueError, OSError, RuntimeError):  # not the main thread: as the bot left it
        pass
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
