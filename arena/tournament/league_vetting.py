"""A league's vetting of new bot versions, aside from its tables (:class:`VetQueue`).

Vetting a version (the compliance check, a trial start) takes as long as the bot makes it
take: a bot slow to decide or to start holds it up to its limits. It runs on a thread of its
own, one version at a time, pinned to the CPUs it is given (those no table's bots use): the
league plays on meanwhile there, and waits for it between two tables where it has no such
CPU (a vetted bot beside the tables would take their CPU against their clocks). The league
enters a version at the first poll after its vet ended. Nothing a vet finds is stored by the
thread: the league stores it at that poll, so a run stopped or killed mid-vet has stored
nothing for the version, which the next run vets again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.common.signalmask import signals_held
from arena.registry import BotSpec

__all__ = ["VetQueue", "Vetted", "Vetter"]

#: Why a bot may not enter a league, or None.
Vetter = Callable[[BotSpec], str | None]


@dataclass(frozen=True, slots=True)
class Vetted:
    """A vet that ended: the version and why it may not enter, or None."""

    bot: BotSpec
    refusal: str | None


class VetQueue:
    """Vets the versions :meth:`want` names, in order, one at a time, on a daemon thread (its
    bots are launched from it and end before its vet returns: the sandbox ties them to the
    launching thread). :meth:`close` abandons a vet under way without waiting for it."""

    def __init__(self, vetter: Vetter, cpus: frozenset[int] | None = None) -> None:
        self._vetter = vetter
        #: The CPUs the thread (and the bots it starts) runs on, when given.
        self._cpus = cpus
        self._changed = threading.Condition()
        self._wanted: list[BotSpec] = []
        self._ended: dict[str, Vetted] = {}
        self._failed: BaseException | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    def want(self, bots: Sequence[BotSpec]) -> None:
        """The versions to vet, in order; one no longer named is dropped (a vet of it under
        way runs out, and what it finds is forgotten)."""
        with self._changed:
            self._wanted = list(bots)
            keys = {bot.key for bot in bots}
            self._ended = {k: v for k, v in self._ended.items() if k in keys}
            self._changed.notify_all()
        if bots and self._thread is None:
            # Ctrl-C is the main thread's: blocked here, the thread never takes it.
            with signals_held({signal.SIGINT}):
                self._thread = threading.Thread(target=self._serve, name="arena-league-vet",
                                                daemon=True)
                self._thread.start()

    def ended(self) -> dict[str, Vetted]:
        """The vets that ended since they were wanted, by bot key (taken: the next call
        leaves them out). A vetter that raised raises here, in the league's thread."""
        with self._changed:
            if self._failed is not None:
                raise self._failed
            ended, self._ended = self._ended, {}
            self._wanted = [bot for bot in self._wanted if bot.key not in ended]
            return ended

    def busy(self) -> bool:
        """Whether a version is being vetted or waits for its vet."""
        with self._changed:
            return bool(self._wanted) and self._failed is None

    def wait(self, timeout: float) -> None:
        """Wait until a vet ends (or fails), or ``timeout`` seconds pass."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._ended) or self._failed is not None,
                                   timeout)

    def close(self) -> None:
        """Vet nothing more; a vet under way is abandoned (its thread ends with it)."""
        with self._changed:
            self._closed = True
            self._wanted = []
            self._changed.notify_all()

    def _next(self) -> BotSpec | None:
        """The next version to vet, waiting for one; None once closed."""
        with self._changed:
            while True:
                if self._closed:
                    return None
                bot = next((b for b in self._wanted if b.key not in self._ended), None)
                if bot is not None:
                    return bot
                self._changed.wait()

    def _serve(self) -> None:
        if self._cpus is not None:
            with contextlib.suppress(OSError):  # a CPU gone offline: it runs unpinned
                os.sched_setaffinity(0, self._cpus)
        while (bot := self._next()) is not None:
            try:
                refusal = self._vetter(bot)
            except Exception as exc:  # a bug, not a refusal: the league raises it
                with self._changed:
                    self._failed = exc
                    self._closed = True
                    self._changed.notify_all()
                return
            with self._changed:
                if not self._closed and any(b.key == bot.key for b in self._wanted):
                    self._ended[bot.key] = Vetted(bot, refusal)
                    self._changed.notify_all()
