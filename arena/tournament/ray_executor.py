"""The Ray backend: a tournament's tables played as Ray tasks, on this machine or on
a Ray cluster. ``arena run SPEC --backend ray [--address HEAD:6379]``; docs/CLUSTER.md.

Who does what (the same split as the local pool, :mod:`arena.tournament.pool`, and its
workers, :mod:`arena.tournament.worker`):

* The **driver** (``arena run``) plans the tables and alone writes the SQLite store: the games
  arrive in batches and the runner commits a batch in one transaction.
* A **table** is one Ray task (``num_cpus=1``) that is a *streaming generator*
  (:func:`~arena.tournament.ray_worker.play_table_stream`): it plays the whole table with
  :func:`arena.tournament.worker.play_table` (the bots launched through :mod:`arena.sandbox`
  exactly as locally, alive for all the games of the match) and yields its messages as they
  are sent, the games (each its row and compressed record) held at most
  :data:`~arena.tournament.tasks.GAME_BATCH_S` and yielded together as one
  :class:`~arena.tournament.tasks.GameBatch`, as a local worker sends them: one Ray object and
  one ``ray.get`` for several games. The table's end and a warning send the games held first.
  The table's referee and bots run at a normal process's niceness, as under the local pool
  (Ray's workers run at 15).

What travels:

* **The bots' files**, as one :class:`~arena.tournament.ray_bundles.BotBundle` per bot
  version (file names, modes and contents), put once in Ray's object store and handed to each
  table task as an argument. A worker node fetches the bundles of the bots it seats, writes
  each once into a local cache keyed by its content (``$TMPDIR/arena-ray-bots-<uid>/``) and
  checks it against the bot's version (the content hash recorded in the store) before the
  first game. A worker node needs nothing but the ``arena`` package (``pip install -e
  '.[ray]'`` in a checkout).
* **The table**: the :class:`~arena.tournament.tasks.TableTask` (bots by seat with their
  metadata, match seed, games, limits, event date, games already recorded) and a fingerprint of
  the arena code that decides a game
  (:func:`~arena.tournament.ray_bundles.code_fingerprint`): a worker running other code
  refuses the table rather than produce other results.
* **Back**: the games of a tenth of a second at a time, the sandbox's warnings, and the table's
  end. Never the store.

Why not a Ray runtime environment (``runtime_env={"working_dir": ...}``) for the bots' files:
Ray uploads a local directory only for a whole job, at ``ray.init``, before the tables (and a
Swiss round's bots) are known, and every worker of that job then starts in an unpacked copy
(a slower first task on every worker); a bundle per bot version is fetched only
by the nodes that seat that bot, is checked against the version the store records, and adds
nothing to start-up.

Failures: Ray's own task retry is off (``max_retries=0``) because Ray replays a streaming
generator only if it yields exactly as many objects as before, and ours yield the sandbox's
warnings once per worker process. Instead the executor resubmits a table whose worker or node
was lost (a worker crash, a dead node, Ray's out-of-memory killer), at most
:data:`~arena.tournament.pool.MAX_TABLE_ATTEMPTS` attempts as the local pool, with the games
already received marked as recorded (the games a lost worker still held never arrived: the
replay records them). A table is replayed from its first game (deterministic, as a
resumed table is) and the runner and the store ignore a game id already recorded: no game is
lost, none is recorded twice.

The backend's modules, by side: :mod:`arena.tournament.ray_bundles` (what travels: bundles and
the code fingerprint), :mod:`arena.tournament.ray_worker` (the tasks a worker runs) and this
one, the driver's executor. The runner imports this module only when the Ray backend is asked
for: Ray is an optional extra.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ray
import ray.exceptions

from arena.errors import ClusterError
from arena.registry import BotSpec, files_unchanged, kept_copy
from arena.tournament.boards import holds_cards_of
from arena.tournament.pool import MAX_TABLE_ATTEMPTS
from arena.tournament.ray_bundles import bundle_identity, code_fingerprint, pack_bot
from arena.tournament.ray_worker import TableStart, play_table_stream, warm_up_worker
from arena.tournament.tasks import (
    GAME_BATCH_S,
    DoneMessage,
    ErrorMessage,
    GameBatch,
    GameMessage,
    KeptCopyMessage,
    LogMessage,
    Message,
    TableTask,
)

__all__ = ["RayExecutor", "RayStats", "quiet_ray_logging"]

#: Errors of Ray meaning "the worker or node playing the table is gone": the table is replayed.
_LOST: tuple[type[BaseException], ...] = (
    ray.exceptions.WorkerCrashedError,
    ray.exceptions.NodeDiedError,
    ray.exceptions.ObjectLostError,
    ray.exceptions.OutOfMemoryError,
)


@dataclass
class RayStats:
    """What the executor measured (``arena bench ray`` and the tests read it)."""

    init_s: float = 0.0
    shutdown_s: float = 0.0
    warmup_s: list[float] = field(default_factory=list)
    nodes: set[str] = field(default_factory=set)
    tables: int = 0
    #: Table tasks started (replays included) by Ray node id.
    tables_by_node: dict[str, int] = field(default_factory=dict)
    retries: int = 0
    #: Messages received from tables (their start not counted), and the games in them.
    messages: int = 0
    games: int = 0
    bundles: int = 0
    bundle_bytes: int = 0
    pack_s: float = 0.0
    receive_s: float = 0.0  # driver time spent in next() + ray.get() of messages


@dataclass
class _Flight:
    task: TableTask
    got: set[int] = field(default_factory=set)
    done: bool = False


def quiet_ray_logging() -> None:
    """Keep Ray's start-up from logging over the progress bar."""
    # Ray 2.5x logs a WARNING on every local start that it enabled token authentication
    # (it did, which is what we want); keep the progress bar clean.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
        logging.ERROR)


#: Seconds a cluster's head is given to accept a connection before ``arena run`` gives up.
_CONNECT_TIMEOUT_S = 5.0


def _unreachable(address: str) -> str | None:
    """Why nothing can be joined at ``HOST:PORT`` (refused, unknown host, no answer), or
    None when a connection is accepted there (or ``address`` is no ``HOST:PORT``, such as
    Ray's ``auto``: Ray finds that cluster itself)."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or not host:
        return None
    host = host.strip("[]")  # an IPv6 address in brackets
    try:
        socket.create_connection((host, int(port)), timeout=_CONNECT_TIMEOUT_S).close()
    except socket.gaierror as exc:
        return f"unknown host {host!r} ({exc.strerror})"
    except TimeoutError:
        return f"nothing answered at {host}:{port} within {_CONNECT_TIMEOUT_S:g} s"
    except OSError as exc:
        return f"nothing accepts connections at {host}:{port} ({exc.strerror or exc})"
    return None


class RayExecutor:
    """Plays tables as Ray tasks (implements :class:`~arena.tournament.pool.TableExecutor`).

    ``address`` (else ``$RAY_ADDRESS``): join that running cluster; every CPU of it may play
    a table. Without one, a private local Ray is started with ``workers`` CPUs and shut down at
    :meth:`close`. A Ray already initialised in this process (an embedding program, the tests)
    is used as it is and left running.
    """

    #: The statistics of the last executor closed in this process (``arena bench ray``).
    last_stats: RayStats | None = None

    def __init__(self, workers: int, address: str | None = None) -> None:
        self.workers = max(1, workers)
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.stats = RayStats()
        #: Always empty: Ray's tables end their bots themselves, in their DoneMessage.
        self.bot_cpu_s: dict[str, float] = {}
        #: Always empty: a Ray table's warnings come with its messages.
        self.warnings: list[str] = []
        #: How long a table holds its finished games before it sends them together (a test
        #: holds them to the table's end).
        self.hold_s = GAME_BATCH_S
        self._connected = False
        self._owns_ray = False
        self._fingerprint = code_fingerprint()
        self._table_fn: Any = None
        self._warm_fn: Any = None
        self._bundles: dict[tuple[str, str, str, tuple[str, ...]], Any] = {}
        self._warmups: list[Any] = []
        self._inflight: dict[Any, _Flight] = {}
        self._attempts: dict[tuple[int, int], int] = {}
        self._capacity = 0
        self._capacity_at = 0.0

    # -------------------------------------------------------------- connection
    def _connect(self) -> None:
        if self._connected:
            return
        if self.address and self.address.startswith("ray://"):
            raise ClusterError(
                f"{self.address}: Ray Client addresses (ray://) are not supported; run arena "
                "on a node of the cluster (the head) with --address HEAD:6379")
        if self.address and not ray.is_initialized():
            problem = _unreachable(self.address)
            if problem:  # else ray.init retries for minutes, printing its own log lines
                raise ClusterError(f"cannot join the Ray cluster at {self.address}: {problem} "
                                   "(is `ray start --head` running there? docs/CLUSTER.md)")
        began = time.perf_counter()
        if ray.is_initialized():
            self._owns_ray = False
        else:
            quiet_ray_logging()
            common: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING,
                                      "namespace": "arena"}
            try:
                if self.address:
                    ray.init(address=self.address, **common)
                else:
                    # "local": a private instance, even where `ray start` left a cluster
                    # that a bare ray.init() would join
                    ray.init(address="local", num_cpus=self.workers, num_gpus=0,
                             include_dashboard=False, **common)
            except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
                if not self.address:
                    raise ClusterError(f"cannot start a local Ray: {exc}") from None
                hint = ""
                # the token hint only where a cluster answered: with none at all it misleads
                found = "Could not find any running Ray instance" not in str(exc)
                if os.environ.get("RAY_AUTH_MODE") is None and found:
                    hint = ("; if the cluster uses token authentication, set RAY_AUTH_MODE=token "
                            "and give this machine the cluster's token (~/.ray/auth_token or "
                            "RAY_AUTH_TOKEN): Ray never sends it to an address given explicitly "
                            "otherwise (docs/CLUSTER.md)")
                raise ClusterError(f"cannot join the Ray cluster at {self.address}: "
                                   f"{exc}{hint}") from None
            self._owns_ray = True
        self.stats.init_s = time.perf_counter() - began
        self._table_fn = ray.remote(play_table_stream).options(
            num_cpus=1, max_retries=0, num_returns="streaming")
        self._warm_fn = ray.remote(warm_up_worker).options(num_cpus=1, max_retries=2)
        self._connected = True

    def _cpus(self) -> int:
        now = time.monotonic()
        if not self._capacity or now - self._capacity_at > 10.0:
            try:
                cpus = int(ray.cluster_resources().get("CPU", 0))
            except Exception:  # noqa: BLE001 - keep the last figure
                cpus = 0
            self._capacity = max(1, cpus or self._capacity or self.workers)
            self._capacity_at = now
        return self._capacity

    # -------------------------------------------------------------- protocol
    def start(self, tables: int) -> None:
        """Start or join Ray and warm up to ``tables`` workers (sandbox probe) while the
        driver plans."""
        self._connect()
        want = min(self._cpus(), max(1, tables))
        if not self._warmups and not self.stats.warmup_s:
            self._warmups = [self._warm_fn.remote() for _ in range(want)]

    def run(self, tasks: Sequence[TableTask], on_message: Callable[[Message], None],
            last: bool = False) -> None:
        """Play every task; returns when each has sent its DoneMessage (or raises). Ray's
        workers are Ray's: ``last`` changes nothing here."""
        self._connect()
        waiting = deque(tasks)
        for task in tasks:
            self._attempts.setdefault(task.key, 1)
        while waiting or self._inflight:
            while len(self._inflight) < 2 * self._cpus() and (
                    (apart := self._apart(waiting)) is not None):
                waiting.remove(apart)
                self._submit(apart, on_message)
            waitables = list(self._inflight) + self._warmups
            ready, _ = ray.wait(waitables, num_returns=1, timeout=1.0)
            if not ready:
                continue
            ready, _ = ray.wait(waitables, num_returns=len(waitables), timeout=0)
            for item in ready:
                if item in self._inflight:
                    if self._advance(item, waiting, on_message):
                        return  # an ErrorMessage the caller did not raise on: stop as local
                else:
                    self._warmed(item, on_message)

    def stop(self) -> None:
        """Nothing to tell ahead: :meth:`close` ends what is left."""

    def close(self, kill: bool = False) -> None:
        """Cancel what is in flight (each cancelled table kills its bots first), then shut the
        private local Ray down or leave the cluster."""
        if not self._connected:
            return
        try:
            if self._inflight or self._warmups:
                self._cancel_all()
        finally:
            self._inflight.clear()
            self._warmups.clear()
            self._bundles.clear()
            self._connected = False
            if self._owns_ray and ray.is_initialized():
                began = time.perf_counter()
                ray.shutdown()
                self.stats.shutdown_s = time.perf_counter() - began
            self._owns_ray = False
            RayExecutor.last_stats = self.stats

    # -------------------------------------------------------------- internals
    def _bundle(self, spec: BotSpec, kept_copies: bool) -> Any:
        key = bundle_identity(spec)
        ref = self._bundles.get(key)
        if ref is None:
            began = time.perf_counter()
            bundle = pack_bot(spec, kept_copies)
            ref = self._bundles[key] = ray.put(bundle)
            self.stats.pack_s += time.perf_counter() - began
            self.stats.bundles += 1
            self.stats.bundle_bytes += bundle.size
        return ref

    def _apart(self, waiting: deque[TableTask]) -> TableTask | None:
        """The first waiting task whose bots' processes would hold no deal's cards that a table
        in flight deals the same bot (a deal book's tables: :func:`holds_cards_of`)."""
        flying = [flight.task for flight in self._inflight.values()]
        return next((task for task in waiting
                     if not any(holds_cards_of(task, other) for other in flying)), None)

    def _submit(self, task: TableTask, on_message: Callable[[Message], None]) -> None:
        refs = [self._bundle(spec, task.kept_copies) for spec in task.bots]
        for spec in task.bots if task.kept_copies else ():
            # what travels is the version's bundle, packed before or from the kept copy
            if not files_unchanged(spec) and kept_copy(spec) is not None:
                on_message(KeptCopyMessage(spec.key, spec.name,
                                           f"{spec.name}@{spec.files_version}"))
        generator = self._table_fn.remote(task, self._fingerprint, *refs, hold_s=self.hold_s)
        self._inflight[generator] = _Flight(task)
        self.stats.tables += 1

    def _advance(self, generator: Any, waiting: deque[TableTask],
                 on_message: Callable[[Message], None]) -> bool:
        """Take the next message of a table; True when the run must stop (an error)."""
        flight = self._inflight[generator]
        began = time.perf_counter()
        try:
            ref = next(generator)
        except StopIteration:
            del self._inflight[generator]
            if not flight.done:
                self._lost(flight, "its task ended before the table did", waiting, on_message)
            return False
        try:
            message = ray.get(ref)
        except _LOST as exc:
            del self._inflight[generator]
            if not flight.done:
                self._lost(flight, _first_line(exc), waiting, on_message)
            return False
        except ray.exceptions.RayError as exc:
            del self._inflight[generator]
            raise ClusterError(_task_failure(flight.task, exc)) from None
        finally:
            self.stats.receive_s += time.perf_counter() - began
        if isinstance(message, TableStart):
            by_node = self.stats.tables_by_node
            by_node[message.node] = by_node.get(message.node, 0) + 1
            return False
        self.stats.messages += 1
        if isinstance(message, GameMessage | GameBatch):
            games = message.games if isinstance(message, GameBatch) else [message]
            self.stats.games += len(games)
            flight.got.update(flight.task.game_of(int(game.row["table_index"]),
                                                  int(game.row["game_index"])) for game in games)
        elif isinstance(message, DoneMessage | ErrorMessage):
            flight.done = True
        on_message(message)
        if isinstance(message, ErrorMessage):
            self._cancel_all()
            return True
        return False

    def _lost(self, flight: _Flight, reason: str, waiting: deque[TableTask],
              on_message: Callable[[Message], None]) -> None:
        task = flight.task
        attempts = self._attempts.get(task.key, 1) + 1
        if attempts > MAX_TABLE_ATTEMPTS:
            raise ClusterError(f"table r{task.round}/t{task.table} lost its Ray worker "
                               f"{MAX_TABLE_ATTEMPTS} times (last: {reason}); stopping")
        self._attempts[task.key] = attempts
        self.stats.retries += 1
        on_message(LogMessage(
            f"table r{task.round}/t{task.table} lost its Ray worker ({reason}); replaying it "
            f"(attempt {attempts} of {MAX_TABLE_ATTEMPTS}), games already recorded are kept"))
        waiting.appendleft(dataclasses.replace(
            task, recorded=task.recorded | frozenset(flight.got)))

    def _warmed(self, ref: Any, on_message: Callable[[Message], None]) -> None:
        self._warmups.remove(ref)
        try:
            info = ray.get(ref)
        except ray.exceptions.RayError as exc:
            if isinstance(exc, _LOST):
                return  # its worker died; the tables will tell if that goes on
            raise ClusterError(f"a Ray worker cannot play tables: {_task_failure(None, exc)}"
                               ) from None
        if info["fingerprint"] != self._fingerprint:
            raise ClusterError(
                f"the Ray worker on {info['node']} runs different arena code "
                f"({info['fingerprint']}) from the driver ({self._fingerprint}); install the "
                "same palaestra-arena on every node")
        self.stats.warmup_s.append(float(info["seconds"]))
        self.stats.nodes.add(str(info["node"]))
        for text in info["warnings"]:
            on_message(LogMessage(text))

    def _cancel_all(self, grace_s: float = 15.0) -> None:
        """Cancel every table in flight and wait (``grace_s`` at most) for them to end: a
        cancelled table kills and reaps its bots before its task ends."""
        for item in [*self._inflight, *self._warmups]:
            with contextlib.suppress(Exception):
                ray.cancel(item, force=False)
        self._warmups.clear()
        deadline = time.monotonic() + grace_s
        live: list[Any] = list(self._inflight)
        self._inflight.clear()
        while live and time.monotonic() < deadline:
            try:
                ready, _ = ray.wait(live, num_returns=1,
                                    timeout=max(0.0, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001 - Ray itself is going away
                return
            generator: Any
            for generator in ready:
                try:
                    ray.get(next(generator))
                except StopIteration:
                    live.remove(generator)
                except Exception:  # noqa: BLE001 - cancelled or lost: it has ended
                    live.remove(generator)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()


def _task_failure(task: TableTask | None, exc: BaseException) -> str:
    where = f"table r{task.round}/t{task.table}" if task is not None else "a Ray task"
    text = str(exc)
    if "No module named 'arena" in text:
        return (f"{where}: a Ray worker cannot import the arena package; install "
                "it on every node (pip install -e '.[ray]' in a checkout; docs/CLUSTER.md)")
    return f"{where} failed on Ray: {text}"
