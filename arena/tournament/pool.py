"""The local backend: worker processes on this machine that play whole tables.

:class:`LocalPool` is the parent's side: it starts ``spawn``-ed workers (one table each at a
time), hands them tables (a duplicate deal's replay only once its first seating ended,
:mod:`arena.tournament.boards`), passes their messages to the runner and replaces a worker
that died, replaying its table. What a worker runs is :mod:`arena.tournament.worker`; what it
is given and sends back, :mod:`arena.tournament.tasks`. :class:`TableExecutor` is what every
backend implements (the Ray one too).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import select
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import resource_tracker
from typing import Protocol

from arena.common.cpus import allowed_cpus
from arena.common.signalmask import signals_held
from arena.errors import ArenaError
from arena.sandbox import SandboxReport
from arena.tournament.boards import BoardRelay, split_seatings
from arena.tournament.tasks import (
    BoardStart,
    BotCpuMessage,
    DoneMessage,
    ErrorMessage,
    LogMessage,
    Message,
    TableTask,
    add_bot_cpu,
)
from arena.tournament.worker import serve_worker

__all__ = ["MAX_TABLE_ATTEMPTS", "LocalPool", "TableExecutor", "sigint_blocked"]

#: How often a table is retried after the worker playing it died.
MAX_TABLE_ATTEMPTS = 3


class TableExecutor(Protocol):
    """Plays tables somewhere and hands their messages back to the parent, in any order."""

    #: CPU seconds, by ``name@version``, of the bot processes the workers ended after the
    #: last message :meth:`run` handed on (those kept between tables, as the workers wound
    #: down), complete after :meth:`close`.
    bot_cpu_s: dict[str, float]
    #: The warnings the workers logged after the last message :meth:`run` handed on (as
    #: they ended the bots they kept), each once, complete after :meth:`close`.
    warnings: list[str]

    def start(self, tables: int) -> None:
        """Get ready for about ``tables`` concurrent tables (start workers early, so their
        start-up overlaps the parent's planning)."""

    def run(self, tasks: Sequence[TableTask], on_message: Callable[[Message], None],
            last: bool = False) -> None:
        """Play every task; returns when each has sent its DoneMessage (or raises). ``last``:
        no table follows these, so a worker left without one may wind down at once."""

    def stop(self) -> None:
        """Tell the workers that no table follows, without waiting: they wind down (end
        their bots) while the caller goes on; :meth:`close` then waits for them."""

    def close(self, kill: bool = False) -> None:
        """Stop the workers (``kill``: now, abandoning tables in flight)."""


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """Block SIGINT in the calling (main) thread for the block. The kernel then keeps a
    Ctrl-C pending for the main thread, and threads started meanwhile keep it blocked for
    good, so they can never take a Ctrl-C meant for the main thread's handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with signals_held({signal.SIGINT}):
        yield


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    task: TableTask | None = None
    #: Told that no table follows (it is ending its bots and exiting).
    stopped: bool = False
    #: Its place in the pool: a worker that replaces a dead one takes the same (and core).
    slot: int = 0


class LocalPool:
    """Worker processes on this machine (``spawn`` start method), one table each at a time."""

    def __init__(self, workers: int, reuse_bots: bool = True,
                 sandbox: SandboxReport | None = None, pin_workers: bool = False) -> None:
        self.size = max(1, workers)
        #: Whether workers keep bot processes from one table to the next.
        self.reuse_bots = reuse_bots
        #: With ``pin_workers``, the CPUs the workers are pinned to, one each in turn
        #: (wrapping around when there are more workers than CPUs); else empty.
        self.cores = allowed_cpus() if pin_workers else []
        #: The parent's sandbox probe, handed to each worker so that it need not probe.
        self.sandbox = sandbox
        self._ctx = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        #: Whether the tables being played are the last (see :meth:`run`).
        self._last = False
        self._attempts: dict[tuple[int, int], int] = {}
        #: The workers' pipes and sentinels, watched by one poll object while they stay the
        #: same: a game's message then costs one system call, not a selector built anew.
        self._poller = select.poll()
        self._polled: frozenset[int] = frozenset()
        #: The boards' starts of the deals whose seatings are played by several workers.
        self._relay = BoardRelay()
        self.bot_cpu_s: dict[str, float] = {}
        self.warnings: list[str] = []

    def _ready(self, timeout: float) -> set[int]:
        """The file descriptors of the workers' pipes and sentinels that are ready (to read,
        or closed), waiting up to ``timeout`` seconds for one."""
        fds = frozenset(fd for w in self._workers for fd in (w.conn.fileno(), w.process.sentinel))
        if fds != self._polled:
            self._poller = select.poll()
            for fd in fds:
                self._poller.register(fd, select.POLLIN)
            self._polled = fds
        return {fd for fd, _ in self._poller.poll(timeout * 1000)}

    def spare_cores(self) -> list[int]:
        """The CPUs no worker is pinned to (workers pinned, fewer of them than CPUs), where
        other work runs without taking a table's bots' CPU; else none."""
        return self.cores[self.size:]

    def core_of(self, slot: int) -> int | None:
        """The CPU of the worker in ``slot``, or None when workers are not pinned."""
        return self.cores[slot % len(self.cores)] if self.cores else None

    def _spawn(self) -> _Worker:
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        taken = {w.slot for w in self._workers}
        slot = next(i for i in range(len(self._workers) + 1) if i not in taken)
        process = self._ctx.Process(target=serve_worker,
                                    args=(child_conn, os.getpid(), self.reuse_bots, self.sandbox,
                                          self.core_of(slot)),
                                    daemon=True, name="arena-worker")
        # Workers inherit "ignore SIGINT" from the start (before Python could install its
        # handler), so a Ctrl-C reaches the parent only, which then stops them in order. The
        # parent blocks SIGINT meanwhile: Linux keeps a blocked signal pending even while it
        # is ignored, so a Ctrl-C in this instant reaches the restored handler, not nowhere
        # (provided no other thread takes it: start helper threads with sigint_blocked()).
        if threading.current_thread() is threading.main_thread():
            # Started first, outside the window: starting the tracker unblocks SIGINT.
            resource_tracker.ensure_running()
            with sigint_blocked():
                previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
                try:
                    process.start()
                finally:
                    signal.signal(signal.SIGINT, previous)
        else:  # signal handlers belong to the main thread; the worker ignores SIGINT itself
            process.start()
        child_conn.close()
        worker = _Worker(process, parent_conn, slot=slot)
        self._workers.append(worker)
        return worker

    def start(self, tables: int) -> None:
        while len(self._workers) < min(self.size, max(1, tables)):
            self._spawn()

    def run(self, tasks: Sequence[TableTask], on_message: Callable[[Message], None],
            last: bool = False) -> None:
        queue = deque(split_seatings(tasks, self.size))
        self._relay = BoardRelay()
        self._last = last
        self._fill(queue)
        while any(w.task is not None for w in self._workers):
            ready = self._ready(1.0)
            for worker in list(self._workers):
                if worker in self._workers and worker.conn.fileno() in ready:
                    if self._receive(worker, on_message, queue):
                        return  # a table failed: the run stops
                if worker in self._workers and (worker.process.sentinel in ready
                                                or not worker.process.is_alive()):
                    self._replace_ended(worker, queue)

    def _receive(self, worker: _Worker, on_message: Callable[[Message], None],
                 queue: deque[TableTask]) -> bool:
        """Hand on every message ``worker`` has sent (a pipe holds no buffer), and give it the
        next table when it has finished one; True when it sent an error, which ends the run."""
        try:
            while True:
                message = worker.conn.recv()
                if isinstance(message, BoardStart):
                    self._relay.tell(message)
                else:
                    on_message(message)
                if isinstance(message, DoneMessage | ErrorMessage):
                    if isinstance(message, DoneMessage) and worker.task is not None:
                        self._relay.ended(worker.task)
                    worker.task = None
                    if isinstance(message, ErrorMessage):
                        return True
                    self._fill(queue)
                if worker not in self._workers or worker.conn.fileno() not in self._ready(0):
                    return False
        except (EOFError, OSError):
            return False  # died; handled through its sentinel

    def _replace_ended(self, worker: _Worker, queue: deque[TableTask]) -> None:
        """A worker whose process ended: forgotten, its table queued again (unless the table
        has killed its workers too often), and the tables handed on."""
        worker.process.join(0.1)
        if worker.process.is_alive():
            return
        self._drop(worker)
        if worker.task is not None:
            lost = worker.task
            attempts = self._attempts.get(lost.key, 1) + 1
            if attempts > MAX_TABLE_ATTEMPTS:
                raise ArenaError(
                    f"table r{lost.round}/t{lost.table} killed its worker "
                    f"{MAX_TABLE_ATTEMPTS} times (exit code "
                    f"{worker.process.exitcode}); stopping")
            self._attempts[lost.key] = attempts
            queue.appendleft(lost)
        self._fill(queue)

    def _fill(self, queue: deque[TableTask]) -> None:
        """Give queued tables to idle workers, starting new ones up to the pool's size; a
        replay waits in the queue until its deal's first seating has ended. A worker found
        dead while idle (killed between two Swiss rounds, say) is replaced: its pipe is
        broken, and the table goes to another."""
        for worker in list(self._workers):
            if worker.task is None and not worker.process.is_alive():
                self._drop(worker)
        failed = 0
        while (ready := next((t for t in queue if self._relay.ready(t, self._in_play())),
                             None)) is not None:
            idle = next((w for w in self._workers if w.task is None and not w.stopped), None)
            if idle is None:
                if sum(not w.stopped for w in self._workers) >= self.size:
                    return
                idle = self._spawn()
            queue.remove(ready)
            task = self._relay.handed(ready)
            idle.task = task
            self._attempts.setdefault(task.key, 1)
            try:
                idle.conn.send(task)
            except (OSError, ValueError):  # it died since: another one takes the table
                idle.task = None
                queue.appendleft(task)
                self._drop(idle)
                failed += 1
                if failed > MAX_TABLE_ATTEMPTS:
                    raise ArenaError(f"{failed} workers in a row died before taking a table; "
                                     "stopping") from None
        if self._last and not queue:  # its bots end while the others play the last tables
            for worker in self._workers:
                if worker.task is None:
                    self._stop(worker)

    def _in_play(self) -> list[TableTask]:
        return [w.task for w in self._workers if w.task is not None]

    def _drop(self, worker: _Worker) -> None:
        """Forget a worker that has died (its exit status collected, its pipe closed)."""
        self._workers.remove(worker)
        worker.process.join(0.1)
        worker.conn.close()

    def stop(self) -> None:
        for worker in self._workers:
            self._stop(worker)

    @staticmethod
    def _stop(worker: _Worker) -> None:
        """Tell an idle ``worker`` that no table follows: it ends its bots and exits."""
        if not worker.stopped:
            worker.stopped = True
            with contextlib.suppress(OSError, ValueError):
                worker.conn.send(None)

    def _last_words(self, worker: _Worker, deadline: float) -> None:
        """Read what a winding-down ``worker`` still sends until it ends (or ``deadline``):
        the CPU of the bots it kept and ended last, and the warnings logged as it ended them
        (every worker may log the same one: kept once)."""
        with contextlib.suppress(EOFError, OSError):
            while worker.conn.poll(max(0.0, deadline - time.monotonic())):
                message = worker.conn.recv()
                if isinstance(message, BotCpuMessage):
                    add_bot_cpu(self.bot_cpu_s, message.bot_cpu_s)
                elif isinstance(message, LogMessage) and message.text not in self.warnings:
                    self.warnings.append(message.text)

    def close(self, kill: bool = False) -> None:
        if not kill:
            self.stop()
        for worker in self._workers if kill else ():
            with contextlib.suppress(OSError, ValueError):
                worker.process.terminate()  # SIGTERM: the worker reaps its bots first
        deadline = time.monotonic() + 10.0
        for worker in self._workers:
            if not kill:
                self._last_words(worker, deadline)
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(1.0)
            worker.conn.close()
        self._workers.clear()
        self._last = False
