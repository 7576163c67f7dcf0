"""The worker side of the Ray backend: the Ray tasks a worker runs, a warm-up before its first
table (:func:`warm_up_worker`) and one table as a streaming generator
(:func:`play_table_stream`). The contract: :mod:`arena.tournament.ray_executor`.

Ray imports these functions by reference on every worker: this module keeps to the referee's
imports, never the planner's (pydantic, rich, the runner), and does not need Ray itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import queue
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from arena.errors import ArenaError
from arena.referee import launch
from arena.referee.pause import end_helper
from arena.sandbox import probe
from arena.sandbox.process import kill_survivors
from arena.tournament.ray_bundles import BotBundle, code_fingerprint, materialize_bot
from arena.tournament.secrecy import bare_node
from arena.tournament.tasks import GAME_BATCH_S, ErrorMessage, LogMessage, Message, TableTask
from arena.tournament.worker import GameBatcher, play_table

__all__ = ["TableStart", "play_table_stream", "warm_up_worker"]


@dataclasses.dataclass(frozen=True)
class TableStart:
    """What a table's task yields first: the Ray node that plays it (the executor counts
    tables per node, ``RayStats.tables_by_node``, and passes nothing on)."""

    node: str
    host: str


def _node_id() -> str:
    try:  # Ray is loaded already in a Ray worker; imported here to keep this module Ray-free
        import ray

        if not ray.is_initialized():  # called outside Ray: asking would start a Ray
            return ""
        return str(ray.get_runtime_context().get_node_id())
    except Exception:  # noqa: BLE001 - any trouble: the count is a statistic, not a result
        return ""

_sink: Callable[[Message], None] | None = None
_handler: logging.Handler | None = None


class _SinkHandler(logging.Handler):
    """Forwards the ``arena`` loggers' warnings in a worker to the table being played."""

    def emit(self, record: logging.LogRecord) -> None:
        sink = _sink
        if sink is not None:
            with contextlib.suppress(Exception):
                sink(LogMessage(record.getMessage()))


def _install_log_handler() -> None:
    global _handler
    if _handler is None:
        _handler = _SinkHandler(logging.WARNING)
        logging.getLogger("arena").addHandler(_handler)


@contextlib.contextmanager
def _sending_logs_to(sink: Callable[[Message], None]) -> Iterator[None]:
    global _sink
    _install_log_handler()
    _sink = sink
    try:
        yield
    finally:
        _sink = None


def warm_up_worker() -> dict[str, Any]:
    """Ray task run by each worker before its first table: import the referee and probe the
    sandbox (seconds, once per process), and say who this worker is."""
    began = time.perf_counter()
    logged: list[Message] = []
    level = ""
    warnings: list[str] = []
    with _sending_logs_to(logged.append):
        try:
            launch.sandbox_launcher()
            warnings = launch.sandbox_warnings()
            level = probe().level
        except ArenaError as exc:
            warnings = [f"sandbox on {socket.gethostname()}: {exc}"]
    warnings += [m.text for m in logged if isinstance(m, LogMessage)]
    return {"node": socket.gethostname(), "pid": os.getpid(),
            "fingerprint": code_fingerprint(), "level": level, "warnings": warnings,
            "seconds": time.perf_counter() - began}


def _bare_contest_here(task: TableTask) -> str | None:
    """Why this node must not play ``task`` (a contest's table, where its bots would run
    without bubblewrap or Landlock), or None. The driver refuses such a run on its own
    probe, which says nothing of this node's."""
    if not task.contest or task.insecure:
        return None
    try:
        report = probe()
    except ArenaError:
        return None  # the table fails to launch its bots and says why
    return bare_node(report, socket.gethostname())


def _refusal(task: TableTask, fingerprint: str) -> str | None:
    """Why this worker does not play ``task``, or None: it runs other arena code than the
    driver (whose ``fingerprint`` the task carries), or the table is a contest's and this
    node would run its bots bare."""
    if fingerprint != code_fingerprint():
        return (f"the Ray worker on {socket.gethostname()} runs different arena code "
                f"({code_fingerprint()}) from the driver ({fingerprint}); install the same "
                "palaestra-arena on every node")
    refusal = _bare_contest_here(task)
    if refusal is not None:
        return f"table r{task.round}/t{task.table} refused: {refusal}"
    return None


class _Stopped(Exception):
    """Raised into a table's thread when its task was cancelled: ends the match now."""


_END = object()


def play_table_stream(task: TableTask, fingerprint: str, *bundles: BotBundle,
                      hold_s: float = GAME_BATCH_S) -> Iterator[Message | TableStart]:
    """Ray task (a streaming generator): play one table and yield its messages as
    :func:`~arena.tournament.worker.play_table` sends them, the games finished within ``hold_s``
    of each other together (a :class:`~arena.tournament.tasks.GameBatch`, as a local worker
    sends them: one Ray object, one ``ray.get`` and one transaction on the driver for several
    games), then the table's end.

    The match runs in a thread of its own, so this generator can hand each batch to Ray as it
    is flushed; the bots are launched from that thread, which lives as long as they do (the
    sandbox ties ``--die-with-parent`` to it). Cancelled (``ray.cancel``: KeyboardInterrupt) or
    terminated (SIGTERM: SystemExit), the table's bots are killed and reaped before the task
    ends.
    """
    yield TableStart(_node_id(), socket.gethostname())
    refusal = _refusal(task, fingerprint)
    if refusal is not None:
        yield ErrorMessage(task.key, refusal)
        return
    try:
        bots = tuple(materialize_bot(b, s) for b, s in zip(bundles, task.bots, strict=True))
    except (ArenaError, OSError, ValueError) as exc:
        yield ErrorMessage(task.key, f"table r{task.round}/t{task.table} on "
                                     f"{socket.gethostname()}: {exc}")
        return
    local = dataclasses.replace(task, bots=bots)
    messages: queue.SimpleQueue[Any] = queue.SimpleQueue()
    batcher = GameBatcher(messages.put)  # the table's end and warnings send the games first
    stopped = threading.Event()
    ended = threading.Event()

    def send(message: Message) -> None:
        if stopped.is_set():
            raise _Stopped()
        batcher(message)

    def body() -> None:
        _normal_priority()
        try:
            play_table(local, send)
        except _Stopped:
            pass
        except BaseException as exc:  # a bug: report it whole, the driver stops the run
            with contextlib.suppress(_Stopped):
                send(ErrorMessage(task.key, f"table r{task.round}/t{task.table} failed on "
                                            f"{socket.gethostname()}: {exc!r}\n"
                                            f"{traceback.format_exc()}"))
        finally:
            batcher.flush()
            messages.put(_END)

    finished = False
    with _sending_logs_to(send):
        thread = threading.Thread(target=body, name=f"arena-table-r{task.round}-t{task.table}",
                                  daemon=True)
        thread.start()
        threading.Thread(target=batcher.flush_every, args=(hold_s, ended), daemon=True,
                         name="arena-table-flush").start()
        try:
            while True:
                try:
                    message = messages.get(timeout=1.0)
                except queue.Empty:
                    continue
                if message is _END:
                    finished = True
                    break
                yield message
        finally:
            if finished:
                ended.set()
            else:
                _end_table(stopped, ended, thread)


def _end_table(stopped: threading.Event, ended: threading.Event, thread: threading.Thread,
              join_s: float = 15.0) -> None:
    """Stop a cancelled table's thread and end its bots, and return only when that is done.

    Ray repeats a cancel (a KeyboardInterrupt in the task's thread) for as long as the task
    runs: were the ending done here, a repeat would cut it short and the task would end with
    its bots still playing. It runs in a thread of its own, which no repeat reaches,
    waited for through the repeats."""
    done = threading.Event()

    def stop() -> None:
        try:
            stopped.set()
            ended.set()
            _end_bots()
            thread.join(timeout=join_s)
            _end_bots()  # any the table's thread started again before it saw the stop
            # The table's thread, pausing a bot just killed, may have started the signalling
            # helper (its cgroup gone, the bot is stopped by uid): nothing of it stays behind.
            end_helper()
        finally:
            done.set()

    # An Event is waited on, not the thread joined: a join interrupted can leave the thread
    # marked ended while it runs (Python 3.11's Thread._wait_for_tstate_lock).
    started = False
    while True:
        try:  # Ray interrupts by a simulated signal, seen only between bytecodes: poll
            if not started:
                started = True
                threading.Thread(target=stop, name="arena-table-end", daemon=True).start()
            while not done.wait(timeout=0.1):
                pass
            return
        except KeyboardInterrupt:
            continue


def _normal_priority() -> None:
    """Ray starts its workers at niceness 15; give this thread (the referee) and the bots it
    launches (they inherit it) a normal process's 0, as under the local pool, so that the bots
    get the same share of a busy CPU. Linux keeps a niceness per thread: the worker's own
    threads stay at 15. Lowering it needs root (CAP_SYS_NICE); otherwise it stays as it is."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 0)


def _end_bots() -> None:
    """Kill every bot this worker process runs (a worker plays one table at a time)."""
    kill_survivors()  # the sandbox's own "end every bot still running"
