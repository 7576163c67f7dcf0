"""A bot's processes from launch to ``bye``, as the referee runs them: :class:`BotLifecycle`,
which :class:`~arena.referee.client.BotClient` builds its decisions on.

* **Start-up**: launch through :func:`arena.sandbox.launch`, send ``hello``, and require a valid
  ``ready`` within ``limits.startup_ms`` (else ``startup_failure``): the handshake's messages
  are :mod:`arena.referee.handshake`'s. After :data:`MAX_FAILED_STARTS` failed starts in a row
  the bot is not started again in the match: each of its remaining games is forfeited.
* **Games**: a process serves the match's games until it forfeits one (then it is ended and a
  fresh one started for the next game); a process that offered a rematch and had no failure
  at all may serve later matches (:meth:`BotLifecycle.rematch`, :mod:`arena.referee.keeper`).
* **Death between games**: a bot found dead at ``game_start`` has a crash recorded but
  forfeits nothing; it is restarted. What such a failure says of how the process ended is
  :mod:`arena.referee.crashes`'s.
* **Its log**: the bot's stderr, cut into a part per game across its processes
  (:mod:`arena.referee.botlog`), and quoted, hinted, in its failures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from time import monotonic
from typing import Any

from arena.common.printable import printable
from arena.errors import FilesChangedError
from arena.protocol import messages
from arena.referee import failures as F
from arena.referee.botlog import BotLog, log_tail
from arena.referee.clock import GameClock
from arena.referee.connection import Connection, Ended, Launcher, Received
from arena.referee.cpu_turn import CpuTurn
from arena.referee.crashes import between_games_death, ended_how, start_failure_detail
from arena.referee.diagnostics import ActResult, BotDiagnostics
from arena.referee.failures import Failure, after_game
from arena.referee.handshake import hello_line, judge_ready
from arena.referee.hints import log_note
from arena.referee.launch import sandbox_launcher
from arena.referee.stray_lines import StrayLines
from arena.sandbox import Limits

__all__ = ["MAX_FAILED_STARTS", "WAIT_NOTICE_S", "BotLifecycle"]

#: How long a wait for a bot lasts before :attr:`BotLifecycle.on_wait` is told of it.
WAIT_NOTICE_S = 2.0
#: After this many failed starts in a row a bot is not restarted again in the match; each of
#: its remaining games is forfeited without another wasted start-up wait.
MAX_FAILED_STARTS = 3


class BotLifecycle:
    """A bot's processes seen from the referee, alive for a whole match (restarted only after
    a failure): started, its games begun and ended, kept or closed. ``launcher`` starts a
    process; the default runs it in the sandbox. :class:`~arena.referee.client.BotClient`
    adds the decisions it is asked."""

    def __init__(self, command: Sequence[str], workdir: Path | str, limits: Limits, *,
                 name: str = "bot",
                 key: str | None = None, metadata: Mapping[str, Any] | None = None,
                 launcher: Launcher | None = None,
                 options: Mapping[str, Any] | None = None, ponder: bool = False,
                 turn: CpuTurn | None = None, look_beside: bool = False,
                 now: Callable[[], float] = monotonic) -> None:
        self.command = tuple(command)
        self.workdir = workdir
        #: Whether its failures' hints may say what lies beside a single-file bot's file on
        #: the host, or which host module a missing one misspells: only in its author's own
        #: run (check-bot, a match), never in failures stored or shown to others, where it
        #: would tell of files and packages not the bot's.
        self.look_beside = look_beside
        self.limits = limits
        #: The time source of every deadline and latency (seconds, ``time.monotonic``'s
        #: unless a test hands the client a fake one).
        self.now = now
        #: The registered name: what the game and the results call this bot.
        self.name = name
        #: The name the bot gave in its last ``ready`` (informational).
        self.ready_name: str | None = None
        #: Registered metadata, overridden by what the bot says in ``ready``.
        self.metadata: dict[str, Any] = dict(metadata or {})
        #: Settings for the bot, sent in every ``hello`` (a tournament entry's ``options``).
        self.options: dict[str, Any] = dict(options or {})
        #: Whether the bot may run while it is not asked (else it is stopped between its
        #: decisions: docs/SANDBOX.md, "CPU fairness").
        self.ponder = ponder
        #: Shared by a match's bots: who runs now (a bot alone has one of its own).
        self._turn = turn if turn is not None else CpuTurn()
        self._launcher = launcher if launcher is not None else sandbox_launcher()
        self.diagnostics = BotDiagnostics(name, key or name)
        self.conn: Connection | None = None
        self.level = ""
        #: Launches of this client's processes (a bot's clients share its diagnostics).
        self._launches = 0
        #: The seeds of the deals this client's processes were dealt: a kept process is not
        #: given a match that deals one again (it would know another seat's cards).
        self.deals: set[int] = set()
        #: Whether the bot's last ``ready`` offered its process for later matches.
        self.offers_rematch = False
        #: Whether the bot's last ``ready`` said it dumps its stack on SIGUSR1
        #: (docs/PROTOCOL.md, "Where a timed-out bot was stuck").
        self.stack_dump = False
        #: When the process was launched (by :attr:`now`).
        self.launched_at = 0.0
        #: The bot's log when its last start failed (the check quotes its traceback).
        self.startup_log = ""
        #: Told ``(what, limit_ms)`` once a wait for the bot passes :attr:`wait_notice_s`
        #: (``what`` is ``'hello'`` or ``a 'turn' decision``), so a person is not left
        #: looking at a silent screen while a bot hangs.
        self.on_wait: Callable[[str, int], None] | None = None
        self.wait_notice_s = WAIT_NOTICE_S
        #: Called before each launch after the first; it raises to stop the match rather
        #: than restart the bot (a tournament's check that its files are its version's).
        self.before_restart: Callable[[], None] | None = None
        #: The time bank and the strikes of the current game.
        self.clock = GameClock(limits)
        self.forfeited: str | None = None
        self._next_id = 0
        #: Late answers and lines of unknown types (docs/PROTOCOL.md).
        self._strays = StrayLines()
        self._game_mark = 0
        #: This game's ``game_start``, sent again when the bot is restarted before its first
        #: answer of the game (see :meth:`act`), and whether that happened in this game.
        self._game_start = b""
        self._restarted_in_game = False
        #: The match's game whose ``game_end`` this process was sent last: a death before
        #: its next answer may have come in its handling of it, which the bot does not answer.
        self._ended_game: int | None = None
        self._log = BotLog()
        #: Failures not yet handed to the match (start-up, between games).
        self.pending: list[Failure] = []

    @property
    def alive(self) -> bool:
        return self.conn is not None

    @property
    def pid(self) -> int | None:
        return self.conn.pid if self.conn is not None else None

    def start(self) -> Failure | None:
        """Launch the bot and complete the handshake; a failure leaves it stopped."""
        failure = self.launch()
        return failure if failure is not None else self.handshake()

    def launch(self) -> Failure | None:
        """First half of :meth:`start` (launch + ``hello``), so a match can start every bot
        before waiting for the first ``ready``."""
        if self._launches and self.before_restart is not None:
            self.before_restart()
        self._launches += 1
        self.diagnostics.starts += 1
        if self._launches > 1:
            self.diagnostics.restarts += 1
        try:
            self.conn = self._launcher(self.command, self.workdir, self.limits)
        except FilesChangedError:  # not the bot's failure: its version is not what would run
            self.conn = None
            raise
        except Exception as exc:  # a launch failure is the bot's start-up failure, not ours
            self.conn = None
            return self._start_failed(
                f"could not launch {printable(' '.join(self.command))[:300]}: "
                f"{printable(str(exc))[:300]}")
        self.level = self.conn.level
        self._ended_game = None
        self._log.started()
        self.launched_at = self.now()
        if not self._send_hello(self.conn):
            return self._start_failed("exited before reading 'hello'" + self._ended_how())
        return None

    def _send_hello(self, conn: Connection) -> bool:
        self._hello_deadline = self.now() + self.limits.startup_ms / 1000
        return conn.send(hello_line(self.limits, self.options))

    def handshake(self) -> Failure | None:
        """Second half of :meth:`start`: wait for ``ready`` until the start-up deadline."""
        conn = self.conn
        if conn is None:
            return None  # launch already failed and was recorded
        problem = self._await_ready(conn)
        if problem is not None:
            return self._start_failed(problem)
        self.diagnostics.failed_starts = 0
        self._rest(conn)
        return None

    def _await_ready(self, conn: Connection) -> str | None:
        """Read the answer to ``hello``: None once a valid ``ready`` is taken in, else what
        went wrong."""
        got = self._receive(conn, self._hello_deadline, "'hello'", self.limits.startup_ms)
        ready = judge_ready(conn, got, self._hello_deadline, self.limits, self._ended_how,
                            self.now)
        if isinstance(ready, str):
            return ready
        self.ready_name = ready.name
        self.metadata.update(ready.metadata)
        self.offers_rematch = ready.offers_rematch
        self.stack_dump = ready.stack_dump
        return None
    # ------------------------------------------------------------------ rematch
    @property
    def reusable(self) -> bool:
        """Whether this process may begin another match (docs/PROTOCOL.md, "Rematch"): it
        runs, offered a rematch, and had no failure of any kind in this match (after one, the
        next match gets a fresh process), nor a restart."""
        return (self.conn is not None and self.offers_rematch and self.forfeited is None
                and not self.pending and not self.diagnostics.failures
                and self.diagnostics.restarts == 0 and self.conn.ended(0) is None)

    def idle(self) -> None:
        """The match is over and the process kept for a later one: it gets no CPU meanwhile."""
        if self.conn is not None:
            self._turn.forget(self.conn)
            self.conn.pause()

    def rematch(self, turn: CpuTurn) -> bool:
        """Begin a new match in this kept process: every count of the match starts afresh
        (strikes, time bank, failures, diagnostics), ``hello`` goes out again and ``ready``
        must come back within the start-up time. False when it does not: the process is then
        ended without a failure to the bot's name (the caller starts a fresh one, so a reuse
        that fails costs the bot nothing)."""
        conn = self.conn
        if conn is None or not self.offers_rematch:
            return False
        self._turn = turn
        self.diagnostics = BotDiagnostics(self.diagnostics.name, self.diagnostics.key)
        self.clock.new_game()
        self.forfeited = None
        self.pending.clear()
        self._strays.forget()
        self.offers_rematch = False  # until this match's ready says it again
        self._ended_game = None  # game numbers start again with the match
        conn.resume()
        if not self._send_hello(conn) or self._await_ready(conn) is not None:
            self._stop_now()
            return False
        self._rest(conn)
        return True

    def _start_failed(self, detail: str) -> Failure:
        self.diagnostics.failed_starts += 1
        self.startup_log = self._stderr_tail()
        failure = Failure(F.STARTUP_FAILURE, start_failure_detail(
            detail, self._log_note(self.startup_log), self.command, self.workdir))
        self.diagnostics.failures[F.STARTUP_FAILURE] += 1
        self.diagnostics.last_start_failure = failure.detail
        self._stop_now()
        return failure

    def _given_up(self) -> Failure:
        """A game forfeited unplayed says why, as its author reads one game, not the match."""
        self.diagnostics.failures[F.STARTUP_FAILURE] += 1
        return Failure(F.STARTUP_FAILURE, f"not started again after {MAX_FAILED_STARTS} "
                       "failed starts in a row in this match; the last: "
                       + self.diagnostics.last_start_failure)

    @property
    def gives_up(self) -> bool:
        """True once the bot failed to start too often to be worth another try."""
        return self.diagnostics.failed_starts >= MAX_FAILED_STARTS

    def begin_game(self, message: bytes, *, restart: bool = True) -> Failure | None:
        """Reset the per-game budget, (re)start the process if needed and send ``game_start``.

        Returns a failure when the bot cannot play this game; :attr:`forfeited` is then set
        (with ``restart=False`` without one: the caller holds the start that just failed)."""
        self.clock.new_game()
        self.forfeited = None
        self._game_mark = len(self.diagnostics.latencies)
        self._game_start = message
        self._restarted_in_game = False
        if self.conn is not None:
            ended = self.conn.ended(0)
            if ended is not None:  # died between games: a crash, but nothing to forfeit yet
                self._fail_between_games(ended)
        if self.conn is None:
            if self.gives_up or not restart:
                self._forfeit_unstarted()
                return self._given_up() if self.gives_up else None
            failure = self.start()
            if failure is not None:
                self._forfeit_unstarted()
                return failure
        assert self.conn is not None
        if not self.conn.send(message):
            return self._fatal(F.CRASH, "exited before the game started" + self._ended_how(),
                               None).failure
        return None

    def _fail_between_games(self, ended: Ended) -> None:
        kind, how = between_games_death(ended, self.limits)
        failure = Failure(kind, f"{F.BETWEEN_GAMES}{self._after_game()} {how}"
                          + self._log_note(self._stderr_tail()))
        self.diagnostics.failures[kind] += 1
        self.pending.append(failure)
        self._stop_now()

    def send(self, data: bytes) -> None:
        """Send messages that need no answer (events, ``game_end``); a closed pipe is noticed
        at the next decision or game start."""
        if self.conn is not None and data:
            self.conn.send(data)

    def end_game(self, message: bytes, game: int | None = None) -> None:
        """Send ``game_end`` (of the match's ``game``); a bot that forfeited is stopped, to
        start afresh next game."""
        if self.forfeited is not None:
            self._stop_now()
        else:
            self.send(message)
            self._ended_game = game

    def _after_game(self) -> str:
        """Which game's end a death between games followed, if this process was sent one:
        ``game_end`` has no answer, so the referee cannot tell a death in its handling from
        one in the next ``game_start``'s (the traceback in the bot's log can)."""
        if self._ended_game is None:
            return ""
        return after_game(self._ended_game)

    def close(self) -> Ended | None:
        """Say ``bye``, give the bot its grace period, then kill whatever is left."""
        conn, self.conn = self.conn, None
        if conn is None:
            return None
        self._turn.forget(conn)
        conn.resume()  # to read its 'bye' and exit by itself
        conn.send(messages.bye())
        ended = conn.shutdown(self.limits.bye_grace_ms / 1000)
        self._log.ended(conn)
        self.diagnostics.exit = (ended.description if ended.voluntary else
                                 f"still running {self.limits.bye_grace_ms} ms after 'bye'; "
                                 "killed")
        return ended

    def _stop_now(self) -> None:
        conn, self.conn = self.conn, None
        self._strays.forget()
        if conn is not None:
            self._turn.forget(conn)
            conn.kill()
            self._log.ended(conn)

    def _rest(self, conn: Connection) -> None:
        """Once started, a bot gets no CPU until it is asked, unless it may ponder."""
        if not self.ponder:
            self._turn.rest(conn)

    def _receive(self, conn: Connection, deadline: float, what: str,
                 limit_ms: int) -> Received:
        """``conn.receive(deadline)``, telling :attr:`on_wait` once the wait has lasted
        :attr:`wait_notice_s` (when the deadline is further away than that)."""
        notice = self.now() + self.wait_notice_s
        if self.on_wait is None or notice >= deadline:
            return conn.receive(deadline)
        got = conn.receive(notice)
        if got.kind != "timeout":
            return got
        self.on_wait(what, limit_ms)
        return conn.receive(deadline)

    def _forfeit_unstarted(self) -> None:
        """The bot cannot play this game: it would not start (or is not restarted any more)."""
        self.forfeited = F.STARTUP_FAILURE
        self.diagnostics.forfeits += 1

    def _fatal(self, kind: str, detail: str, id_: int | None) -> ActResult:
        failure = Failure(kind, detail + self._log_note(self._stderr_tail()),
                          decision=id_)
        diag = self.diagnostics
        diag.failures[kind] += 1
        diag.forfeits += 1
        self.forfeited = kind
        self._stop_now()
        return ActResult(0, 0.0, failure, True)

    # ------------------------------------------------------------------ logs
    def _stderr_tail(self) -> str:
        return log_tail(self.conn)

    def _log_note(self, log: str) -> str:
        """What a failure's detail quotes of ``log``, hinted (:func:`log_note`)."""
        return log_note(log, self.workdir, look_beside=self.look_beside)

    def _ended_how(self) -> str:
        return ended_how(self.conn, self.limits)

    def log_since_last(self) -> str:
        """Bot log written since the previous call, including what a process that was
        stopped since then wrote (kept with each game's record)."""
        return self._log.cut(self.conn)

    @property
    def log_bytes(self) -> int:
        """Bytes the bot wrote in the span :meth:`log_since_last` returned last (more than
        its text when the cap dropped some)."""
        return self._log.last_bytes

    @property
    def log_chars(self) -> int:
        """Characters of the span :meth:`log_since_last` returned last, as a game's record
        counts what it keeps (fewer than :attr:`log_bytes` beyond ASCII)."""
        return self._log.last_chars
