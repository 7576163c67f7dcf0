"""The local backend: worker processes that play whole tables.

Kept apart from :mod:`arena.tournament.runner` so that a ``spawn``-ed worker imports only what
playing needs (the referee), not the planner's pydantic, rich and scheduling code: a worker is
ready in a fraction of the time. What they are given and send back is in
:mod:`arena.tournament.tasks`.

A worker plays one table at a time through :func:`arena.referee.match.play_match` (the bots of
a match stay alive for all its games; a duplicate deal's seatings are one match, or each a
task of its own played at once: :mod:`arena.tournament.boards`) and streams the finished
games back over its pipe, their records already compressed, a tenth of a second's worth at a
time (:class:`GameBatch`). Workers ignore Ctrl-C (the parent stops them in order), reap their
bots on SIGTERM, and die with the parent (``PR_SET_PDEATHSIG`` plus a watch on the parent
pid), so a ``kill -9`` of the runner leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import select
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import resource_tracker
from types import FrameType
from typing import TYPE_CHECKING, Protocol

from arena.common.cpus import allowed_cpus, pin_to
from arena.common.signalmask import signals_held
from arena.errors import ArenaError
from arena.registry import files_changed, files_unchanged
from arena.sandbox import SandboxReport
from arena.sandbox.probe import adopt
from arena.tournament.boards import BoardRelay, split_seatings, told_by
from arena.tournament.store import compress_record, game_id, match_id
from arena.tournament.tasks import (
    GAME_BATCH_S,
    BoardStart,
    DoneMessage,
    ErrorMessage,
    GameBatch,
    GameMessage,
    LogMessage,
    Message,
    TableTask,
)

if TYPE_CHECKING:
    from arena.referee.keeper import BotKeeper

__all__ = [
    "MAX_TABLE_ATTEMPTS",
    "BoardStart",
    "DoneMessage",
    "ErrorMessage",
    "GameBatch",
    "GameBatcher",
    "GameMessage",
    "LocalPool",
    "LogMessage",
    "Message",
    "TableExecutor",
    "TableTask",
    "play_table",
]

#: How often a table is retried after the worker playing it died.
MAX_TABLE_ATTEMPTS = 3
_PR_SET_PDEATHSIG = 1




class GameBatcher:
    """Passes a worker's messages on to ``send`` (a local worker's pipe, a Ray table's stream),
    holding its games to send them together (:class:`GameBatch`) at :meth:`flush`, which a
    thread calls every :data:`GAME_BATCH_S`; any other message sends the games held first, so
    the order is kept. Behind a lock: a log record may be emitted from a referee thread while
    the main thread sends a game, and interleaved writes would corrupt the pipe."""

    def __init__(self, send: Callable[[Message], None]) -> None:
        self.send = send
        self.lock = threading.Lock()
        self.games: list[GameMessage] = []

    def __call__(self, message: Message) -> None:
        with self.lock:
            if isinstance(message, GameMessage):
                self.games.append(message)
                return
            if not isinstance(message, BoardStart):  # a replay waits for it: at once
                self._flush()
            self.send(message)

    def flush(self) -> None:
        """Send the games held, if any."""
        with self.lock:
            self._flush()

    def _flush(self) -> None:
        if self.games:
            games, self.games = self.games, []
            self.send(GameBatch(games))

    def flush_every(self, seconds: float, until: threading.Event) -> None:
        """Flush every ``seconds`` until ``until`` is set or sending fails (a thread's body)."""
        while not until.wait(seconds):
            try:
                self.flush()
            except (OSError, ValueError):
                return


class _PipeHandler(logging.Handler):
    """Forwards the ``arena`` loggers' warnings of a worker to the parent."""

    def __init__(self, send: GameBatcher) -> None:
        super().__init__(logging.WARNING)
        self.send = send

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.send(LogMessage(record.getMessage()))
        except (OSError, ValueError):
            pass


def play_table(task: TableTask, send: Callable[[Message], None],
               keeper: BotKeeper | None = None,
               receive: Callable[[], object] | None = None) -> None:
    """Play one table and send a :class:`GameMessage` per game, then a :class:`DoneMessage`.

    Runs in a worker (any backend). A domain error of the match becomes an
    :class:`ErrorMessage`: the run stops with it rather than recording a partial table.
    ``keeper`` holds the worker's bot processes between its tables (none: each table
    starts its bots and ends them). A task of one seating of a deal
    (:mod:`arena.tournament.boards`) tells its boards' starts through ``send``, or, a
    replay, is told them through ``receive``.
    """
    # imported here, in the worker: the parent imports this module for its messages and never
    # plays, so it does not pay for the referee's match code
    from arena.referee.boards import Boards
    from arena.referee.match import GameOutcome, MatchRequest, play_match

    def on_game(outcome: GameOutcome) -> None:
        table, index, bot_ids = task.table_of(outcome.game_index)
        gid = game_id(task.tournament, task.round, table, index)
        row = {
            "id": gid, "round": task.round, "table_index": table,
            "game_index": index, "seed": outcome.seed,
            "seats": list(bot_ids), "starting_seat": outcome.starting_seat,
            "placements": list(outcome.placements), "desmos": list(outcome.desmos),
            "ascension": bool(outcome.ascension), "tiebreak": outcome.tiebreak,
            "failures": list(outcome.failures),
            "forfeits": {str(k): v for k, v in sorted(outcome.forfeits.items())},
            "decisions": outcome.decisions, "duration_s": round(outcome.duration_s, 6),
            "latency": list(outcome.latency),
        }
        record = None
        if outcome.game_index not in task.recorded:
            referee = outcome.record["referee"]  # the table's own numbering, not the match's
            referee["match_id"] = match_id(task.tournament, task.round, table)
            referee["game_index"] = index
            record = compress_record(outcome.record)
        send(GameMessage(task.key, row, record))

    changed = next((bot for bot in task.bots if not files_unchanged(bot)), None)
    if changed is not None:  # its games would be another program's under its version's name
        send(ErrorMessage(task.key, f"table r{task.round}/t{task.table}: "
                                    f"{files_changed(changed)}"))
        return
    request = MatchRequest(
        bots=list(task.bots), games=task.games * max(1, len(task.seatings)), seed=task.seed,
        limits=dict(task.limits), match_id=match_id(task.tournament, task.round, task.table),
        event_date=task.event_date, duplicate=task.duplicate, rules=task.rules, keeper=keeper,
        deal_seeds=task.deals, seating=task.seating, same_files=True)
    boards = None
    if task.seating == 0:
        boards = Boards(tell=lambda deal, seat: send(BoardStart(task.deal_key, deal, seat)))
    elif task.seating is not None and receive is not None:
        boards = Boards(told=told_by(receive, task))
    try:
        outcome = play_match(request, on_game=on_game, boards=boards)
    except ArenaError as exc:
        send(ErrorMessage(task.key, f"table r{task.round}/t{task.table}: {exc}"))
        return
    send(DoneMessage(task.key, outcome.sandbox_level, list(outcome.warnings),
                     also=tuple(table for table, _ in task.seatings[1:]
                                if task.seating is None),
                     bot_starts=sum(bot["starts"] for bot in outcome.bots),
                     referee_cpu_s=_referee_cpu.since_last()))


class _CpuSince:
    """This process's own CPU time (all its threads; not its children) since last asked."""

    def __init__(self) -> None:
        self.last = 0.0  # a worker counts from its start

    def since_last(self) -> float:
        now = time.process_time()
        spent, self.last = now - self.last, now
        return spent


_referee_cpu = _CpuSince()


# ---------------------------------------------------------------------------- executors
class TableExecutor(Protocol):
    """Plays tables somewhere and hands their messages back to the parent, in any order."""

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


def _terminate(signum: int, frame: FrameType | None) -> None:
    """A worker's SIGTERM (the parent stopping it, or its death): exit, unwinding
    play_match's cleanup, which reaps the bots. Once: a parent that dies sends two (the
    kernel's PR_SET_PDEATHSIG, then the parent watch's), and the second, raised inside the
    first's cleanup, cut it short (inside a ``__del__``, with a traceback on the terminal)."""
    if _in_finaliser(frame):
        # Python prints an exception raised in a ``__del__`` and drops it: again, later
        again = threading.Timer(0.1, os.kill, (os.getpid(), signum))
        again.daemon = True  # never what keeps an exiting worker alive
        again.start()
        return
    signal.signal(signum, signal.SIG_IGN)
    raise SystemExit(128 + signum)


def _in_finaliser(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside an object's ``__del__``."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _worker_main(conn: multiprocessing.connection.Connection, parent: int,
                 reuse_bots: bool = True, sandbox: SandboxReport | None = None,
                 core: int | None = None) -> None:
    """Entry point of a worker process: play tables received on ``conn`` until ``None``;
    with ``reuse_bots``, the bots' processes are kept from one table to the next
    (:mod:`arena.referee.keeper`); ``sandbox`` is the parent's probe, taken as the worker's
    own (:func:`arena.sandbox.probe.adopt`); ``core``: the CPU the worker and its bots run
    on (:class:`LocalPool`'s ``pin_workers``)."""
    # First, while this is the only thread: threads and bots inherit the calling thread's
    # affinity when they start.
    unpinned = pin_to(core) if core is not None else None
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C for everyone
    signal.signal(signal.SIGTERM, _terminate)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        return

    def _watch_parent() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGTERM)
                return

    threading.Thread(target=_watch_parent, daemon=True).start()
    send = GameBatcher(conn.send)
    never = threading.Event()  # the worker's flushes end with its pipe
    threading.Thread(target=send.flush_every, args=(GAME_BATCH_S, never), daemon=True).start()
    logging.getLogger("arena").addHandler(_PipeHandler(send))
    if unpinned:
        logging.getLogger("arena").warning(f"pin_workers: a worker {unpinned}; it runs unpinned")
    _warm_up(sandbox)
    # imported here, in the worker, as play_table's imports
    from arena.referee.keeper import BotKeeper
    from arena.referee.pause import end_helper

    keeper = BotKeeper() if reuse_bots else None
    try:
        _serve_tables(conn, send, keeper)
    finally:
        if keeper is not None:
            keeper.close()
        end_helper()  # reaped here, so its CPU counts with the worker's


def _serve_tables(conn: multiprocessing.connection.Connection, send: GameBatcher,
                  keeper: BotKeeper | None) -> None:
    """Play the tables received on ``conn`` until ``None`` (or the parent is gone)."""
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        if isinstance(task, BoardStart):  # told again after its replay had ended
            continue
        try:
            play_table(task, send, keeper, conn.recv)
        except (BrokenPipeError, EOFError, OSError):
            return
        except Exception as exc:  # a bug: report it whole, the parent stops the run
            send(ErrorMessage(task.key, f"table r{task.round}/t{task.table} failed: "
                              f"{exc!r}\n{traceback.format_exc()}"))


def _warm_up(sandbox: SandboxReport | None = None) -> None:
    """Import the referee and probe the sandbox before the first table arrives: the probe
    takes seconds, once per process, and would otherwise delay the first game of every
    worker one after the other instead of all at once. The parent's ``sandbox`` report,
    when it hands one, spares the worker that probe (the same machine, moments before)."""
    if sandbox is not None:
        adopt(sandbox)
    try:
        from arena.referee import launch  # in the worker only, as play_table's imports

        launch.sandbox_launcher()
        launch.sandbox_warnings()
    except ArenaError:
        pass  # the first table reports it properly


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

    def core_of(self, slot: int) -> int | None:
        """The CPU of the worker in ``slot``, or None when workers are not pinned."""
        return self.cores[slot % len(self.cores)] if self.cores else None

    def _spawn(self) -> _Worker:
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        taken = {w.slot for w in self._workers}
        slot = next(i for i in range(len(self._workers) + 1) if i not in taken)
        process = self._ctx.Process(target=_worker_main,
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
        busy = sum(1 for w in self._workers if w.task is not None)
        while busy:
            ready = self._ready(1.0)
            for worker in list(self._workers):
                if worker in self._workers and worker.conn.fileno() in ready:
                    try:
                        while True:  # every message it has sent (a pipe holds no buffer)
                            message = worker.conn.recv()
                            if isinstance(message, BoardStart):
                                self._relay.tell(message, ((w.task, w.conn)
                                                           for w in self._workers))
                            else:
                                on_message(message)
                            if isinstance(message, DoneMessage | ErrorMessage):
                                worker.task = None
                                if isinstance(message, ErrorMessage):
                                    return
                                self._fill(queue)
                            if (worker not in self._workers
                                    or worker.conn.fileno() not in self._ready(0)):
                                break
                    except (EOFError, OSError):
                        pass  # died; handled through its sentinel below
                if worker in self._workers and (worker.process.sentinel in ready
                                                or not worker.process.is_alive()):
                    worker.process.join(0.1)
                    if worker.process.is_alive():
                        continue
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
            busy = sum(1 for w in self._workers if w.task is not None)

    def _fill(self, queue: deque[TableTask]) -> None:
        """Give queued tables to idle workers, starting new ones up to the pool's size. A
        worker found dead while idle (killed between two Swiss rounds, say) is replaced: its
        pipe is broken, and the table goes to another."""
        for worker in list(self._workers):
            if worker.task is None and not worker.process.is_alive():
                self._drop(worker)
        failed = 0
        while queue:
            idle = next((w for w in self._workers if w.task is None and not w.stopped), None)
            if idle is None:
                if sum(not w.stopped for w in self._workers) >= self.size:
                    return
                idle = self._spawn()
            task = self._relay.handed(queue.popleft())
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
        if self._last:  # its bots end while the other workers play their last tables
            for worker in self._workers:
                if worker.task is None:
                    self._stop(worker)

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

    def close(self, kill: bool = False) -> None:
        if not kill:
            self.stop()
        for worker in self._workers if kill else ():
            with contextlib.suppress(OSError, ValueError):
                worker.process.terminate()  # SIGTERM: the worker reaps its bots first
        deadline = time.monotonic() + 10.0
        for worker in self._workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(1.0)
            worker.conn.close()
        self._workers.clear()
        self._last = False
