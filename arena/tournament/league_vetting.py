"""A league's vetting of new bot versions, aside from its tables (:class:`VetQueue`).

Vetting a version (the compliance check, a trial start) takes as long as the bot makes it
take: a bot slow to decide or to start holds it up to its limits. It runs on a thread of its
own, one version at a time, pinned to the CPUs it is given (those no table's bots use): the
league plays on meanwhile there, and waits for it between two tables where it has no such
CPU (a vetted bot beside the tables would take their CPU against their clocks). The league
enters a version at the first poll after its vet ended. Nothing a vet finds is stored by the
thread: the league stores it at that poll, so a run stopped or killed mid-vet has stored
nothing for the version, which the next run vets again.

A vet no longer needed (a newer version of its bot came, its bot went, the run stops) is
cancelled from the league's thread (:class:`VetScope`): its bots' processes are killed
there and then, and the vet's thread, finding its bot gone or launching another,
unwinds and reaps them; what the vet found is dropped. The scope is the only launcher a
vetter is handed (the queue holds the one it wraps), so no bot of a vet outlives its
cancellation; a vetter that waits on anything else waits on the scope's
:attr:`VetScope.cancelled` beside it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.common.signalmask import signals_held
from arena.referee.connection import Connection, Launcher
from arena.referee.launch import sandbox_launcher
from arena.registry import BotSpec
from arena.sandbox import Limits

__all__ = ["VetCancelled", "VetQueue", "VetScope", "Vetted", "Vetter"]


class VetCancelled(BaseException):
    """Raised in a vet's thread as it launches a bot once the vet was cancelled. Not an
    ``Exception``, as asyncio's ``CancelledError``: the referee takes any ``Exception`` from a
    launch for the bot's failure to start and goes on, where the vet must unwind (its
    clients' ``finally`` blocks ending their bots)."""


class VetScope:
    """One vet's bot processes, and its cancellation: a vetter launches its bots with
    :meth:`launch` (``launcher``'s launches, ended by :meth:`cancel`); :meth:`cancel`, from
    any thread, kills the ones running and makes every later launch raise
    :class:`VetCancelled`."""

    def __init__(self, launcher: Launcher) -> None:
        self._launcher = launcher
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._connections: list[Connection] = []

    @property
    def cancelled(self) -> threading.Event:
        """Set once the vet is cancelled (a vetter holding on something else may wait on it)."""
        return self._cancelled

    def launch(self, command: Sequence[str], workdir: Path | str, limits: Limits) -> Connection:
        """Start a bot of the vet (a :data:`~arena.referee.connection.Launcher`)."""
        if self._cancelled.is_set():
            raise VetCancelled
        connection = self._launcher(command, workdir, limits)
        with self._lock:
            if not self._cancelled.is_set():
                self._connections.append(connection)
                return connection
        connection.kill()  # cancelled while it started: ended here, in the vet's thread
        raise VetCancelled

    def cancel(self) -> None:
        """Kill the vet's bots (the vet's thread reaps them) and refuse it any more."""
        with self._lock:
            self._cancelled.set()
            running, self._connections = self._connections, []
        for connection in running:
            connection.kill_from_elsewhere()


#: Why a bot may not enter a league, or None; its bots are launched through the scope it is
#: handed (:meth:`VetScope.launch`).
Vetter = Callable[[BotSpec, VetScope], str | None]


@dataclass(frozen=True, slots=True)
class Vetted:
    """A vet that ended: the version and why it may not enter, or None."""

    bot: BotSpec
    refusal: str | None


class VetQueue:
    """Vets the versions :meth:`want` names, in order, one at a time, on a daemon thread (its
    bots are launched from it and end before its vet returns: the sandbox ties them to the
    launching thread). A vet under way of a version :meth:`want` no longer names, or at
    :meth:`close`, is cancelled (:class:`VetScope`), never waited for. Each vet launches
    its bots through a scope of ``launcher`` (default: the sandbox's)."""

    def __init__(self, vetter: Vetter, cpus: frozenset[int] | None = None,
                 launcher: Launcher | None = None) -> None:
        self._vetter = vetter
        self._launcher = launcher if launcher is not None else sandbox_launcher()
        #: The CPUs the thread (and the bots it starts) runs on, when given.
        self._cpus = cpus
        self._changed = threading.Condition()
        self._wanted: list[BotSpec] = []
        self._ended: dict[str, Vetted] = {}
        self._failed: BaseException | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        #: The version being vetted and its vet's scope.
        self._under_way: tuple[BotSpec, VetScope] | None = None

    def want(self, bots: Sequence[BotSpec]) -> None:
        """The versions to vet, in order; one no longer named is dropped (a vet of it under
        way is cancelled, and what it found is forgotten)."""
        with self._changed:
            self._wanted = list(bots)
            keys = {bot.key for bot in bots}
            self._ended = {k: v for k, v in self._ended.items() if k in keys}
            dropped = (self._under_way[1] if self._under_way is not None
                       and self._under_way[0].key not in keys else None)
            self._changed.notify_all()
        if dropped is not None:
            dropped.cancel()
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
        """Vet nothing more; a vet under way is cancelled, not waited for (its thread ends
        with it)."""
        with self._changed:
            self._closed = True
            self._wanted = []
            under_way = self._under_way[1] if self._under_way is not None else None
            self._changed.notify_all()
        if under_way is not None:
            under_way.cancel()

    def _next(self) -> tuple[BotSpec, VetScope] | None:
        """The next version to vet, waiting for one, and the scope of its vet (under way from
        here); None once closed."""
        with self._changed:
            while True:
                if self._closed:
                    return None
                bot = next((b for b in self._wanted if b.key not in self._ended), None)
                if bot is not None:
                    self._under_way = bot, VetScope(self._launcher)
                    return self._under_way
                self._changed.wait()

    def _serve(self) -> None:
        if self._cpus is not None:
            with contextlib.suppress(OSError):  # a CPU gone offline: it runs unpinned
                os.sched_setaffinity(0, self._cpus)
        while (next_vet := self._next()) is not None:
            bot, scope = next_vet
            refusal: str | None = None
            try:
                refusal = self._vetter(bot, scope)
            except (Exception, VetCancelled) as exc:
                if not scope.cancelled.is_set():  # a bug, not a refusal: the league raises it
                    self._fail(exc)
                    return
            with self._changed:
                self._under_way = None
                if (not scope.cancelled.is_set() and not self._closed
                        and any(b.key == bot.key for b in self._wanted)):
                    self._ended[bot.key] = Vetted(bot, refusal)
                    self._changed.notify_all()

    def _fail(self, exc: BaseException) -> None:
        with self._changed:
            self._under_way = None
            self._failed = exc
            self._closed = True
            self._changed.notify_all()
