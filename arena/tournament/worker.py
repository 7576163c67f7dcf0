"""A worker: the process that plays the tables a backend hands it, one at a time.

:func:`play_table` plays one table through :func:`arena.referee.match.play_match` (the bots of
a match stay alive for all its games; a duplicate deal's seatings are one match, or each a
task of its own, one after the other: :mod:`arena.tournament.boards`) and streams the finished
games back, their records already compressed, a tenth of a second's worth at a time
(:class:`GameBatcher`); any backend's worker runs it (the local pool's, Ray's). The rest is the
local pool's worker process (:func:`serve_worker`): it ignores Ctrl-C (the parent stops it in
order), reaps its bots on SIGTERM, and dies with the parent (``PR_SET_PDEATHSIG`` plus a watch
on the parent pid), so a ``kill -9`` of the runner leaves nothing behind.

Kept apart from the parent's side (:mod:`arena.tournament.pool`, the runner) so that a
``spawn``-ed worker imports only what playing needs (the referee), not the planner's pydantic,
rich and scheduling code: a worker is ready in a fraction of the time. What a worker is given
and sends back is in :mod:`arena.tournament.tasks`.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from types import FrameType
from typing import TYPE_CHECKING

from arena.common.cpus import pin_to
from arena.errors import ArenaError
from arena.registry import BotSpec, files_changed, files_unchanged, kept_copy
from arena.sandbox import SandboxReport
from arena.sandbox.probe import adopt
from arena.tournament.game_records import compress_record
from arena.tournament.store import game_id, match_id
from arena.tournament.tasks import (
    GAME_BATCH_S,
    BoardStart,
    BotCpuMessage,
    DoneMessage,
    ErrorMessage,
    GameBatch,
    GameMessage,
    KeptCopyMessage,
    LogMessage,
    Message,
    TableTask,
)

if TYPE_CHECKING:
    from arena.referee.keeper import BotKeeper

__all__ = ["GameBatcher", "play_table", "serve_worker"]

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
            if not isinstance(message, BoardStart):  # sent alone: held games keep their batch
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
               keeper: BotKeeper | None = None) -> None:
    """Play one table and send a :class:`GameMessage` per game, then a :class:`DoneMessage`.

    Runs in a worker (any backend). A domain error of the match becomes an
    :class:`ErrorMessage`: the run stops with it rather than recording a partial table.
    ``keeper`` holds the worker's bot processes between its tables (none: each table
    starts its bots and ends them). A task of one seating of a deal
    (:mod:`arena.tournament.boards`) tells its boards' starts through ``send``, or, a
    replay, comes with them all.
    """
    # imported here, in the worker: the parent imports this module for its messages and never
    # plays, so it does not pay for the referee's match code
    from arena.referee.boards import Boards
    from arena.referee.launch import ended_bots_cpu
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

    def on_kept_copy(bot: BotSpec) -> None:
        send(KeptCopyMessage(bot.key, bot.name, f"{bot.name}@{bot.files_version}"))

    if task.kept_copies:
        task = replace(task, bots=tuple(_seated(bot, on_kept_copy) for bot in task.bots))
    changed = next((bot for bot in task.bots if not files_unchanged(bot)), None)
    if changed is not None:  # its games would be another program's under its version's name
        send(ErrorMessage(task.key, f"table r{task.round}/t{task.table}: "
                                    f"{files_changed(changed, ', so it was not seated')}"))
        return
    request = MatchRequest(
        bots=list(task.bots), games=task.games * max(1, len(task.seatings)), seed=task.seed,
        limits=dict(task.limits), match_id=match_id(task.tournament, task.round, task.table),
        event_date=task.event_date, duplicate=task.duplicate, rules=task.rules, keeper=keeper,
        deal_seeds=task.deals, seating=task.seating, same_files=True,
        kept_copies=task.kept_copies, on_kept_copy=on_kept_copy)
    boards = None
    if task.seating == 0:
        boards = Boards(tell=lambda deal, seat: send(BoardStart(task.deal_key, deal, seat)))
    elif task.seating is not None:
        boards = Boards(told=dict(task.starts).__getitem__)
    try:
        outcome = play_match(request, on_game=on_game, boards=boards)
    except ArenaError as exc:
        send(ErrorMessage(task.key, f"table r{task.round}/t{task.table}: {exc}"))
        return
    send(DoneMessage(task.key, outcome.sandbox_level, list(outcome.warnings),
                     also=tuple(table for table, _ in task.seatings[1:]
                                if task.seating is None),
                     bot_starts=sum(bot["starts"] for bot in outcome.bots),
                     referee_cpu_s=_referee_cpu.since_last(), bot_cpu_s=ended_bots_cpu()))


def _seated(bot: BotSpec, on_kept_copy: Callable[[BotSpec], None]) -> BotSpec:
    """``bot`` as its table seats it: from its own files while they are its version's, else
    from the copy ``arena submit --update`` kept of them (told), else as it is (refused)."""
    if files_unchanged(bot):
        return bot
    kept = kept_copy(bot)
    if kept is None:
        return bot
    on_kept_copy(bot)
    return kept


class _CpuSince:
    """This process's own CPU time (all its threads; not its children) since last asked."""

    def __init__(self) -> None:
        self.last = 0.0  # a worker counts from its start

    def since_last(self) -> float:
        now = time.process_time()
        spent, self.last = now - self.last, now
        return spent


_referee_cpu = _CpuSince()


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


def serve_worker(conn: multiprocessing.connection.Connection, parent: int,
                 reuse_bots: bool = True, sandbox: SandboxReport | None = None,
                 core: int | None = None) -> None:
    """Entry point of a worker process: play tables received on ``conn`` until ``None``;
    with ``reuse_bots``, the bots' processes are kept from one table to the next
    (:mod:`arena.referee.keeper`); ``sandbox`` is the parent's probe, taken as the worker's
    own (:func:`arena.sandbox.probe.adopt`); ``core``: the CPU the worker and its bots run
    on (:class:`~arena.tournament.pool.LocalPool`'s ``pin_workers``)."""
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
    from arena.referee.launch import ended_bots_cpu
    from arena.referee.pause import end_helper

    keeper = BotKeeper() if reuse_bots else None
    try:
        _serve_tables(conn, send, keeper)
    finally:
        if keeper is not None:
            keeper.close()
        end_helper()  # reaped here, so its CPU counts with the worker's
    with contextlib.suppress(OSError, ValueError):  # a parent gone hears nothing
        send(BotCpuMessage(ended_bots_cpu()))


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
        try:
            play_table(task, send, keeper if task.keep_bots else None)
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

