"""A bot asked its decisions, as the referee sees it: :class:`BotClient`.

The client owns the fairness rules for a single bot so the match loop stays simple. Its
processes' life (start-up, the handshake, games begun and ended, restarts, rematches, its log)
is :class:`~arena.referee.lifecycle.BotLifecycle`'s, which it builds on; here are the
decisions:

* **Time and strikes**: the time limit, the game's time bank and the strikes are
  :class:`~arena.referee.clock.GameClock`'s rules (:mod:`arena.referee.clock`); a timeout, a
  protocol error or an illegal choice plays the decision's safe default (option 0; at a
  throw, which has none, a lot: :func:`arena.referee.seeds.played_for`) and counts a
  strike. Past ``max_strikes`` in one game, or at once on a crash, an output overflow or a
  memory kill, the bot forfeits the game. Its process is then ended and a fresh one started
  for the next game.
* **Death before the first answer**: a bot gone before its first answer of a game (it may
  have died in ``on_game_end``: when the referee notices is a race) has a crash recorded but
  forfeits nothing; it is restarted and asked again, once per game.
* **Late answers**: an answer to an act that already timed out, or that was struck for a
  protocol error (a stray line came first, an action with a past id included), is dropped
  silently (it was punished once already); any other unexpected id is a ``protocol_error``
  (a *stale* id): :class:`~arena.referee.stray_lines.StrayLines` keeps the rule, by which
  :mod:`arena.referee.answer` reads an act's answer; the client counts what it costs.

The client never sees the game: the match hands it encoded messages and gets back an index,
a latency and maybe a :class:`~arena.referee.failures.Failure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.protocol import messages
from arena.referee import failures as F
from arena.referee.answer import Chosen, Struck, judge_answer
from arena.referee.connection import Connection, Launcher, overflow_detail
from arena.referee.cpu_turn import CpuTurn, Deadline
from arena.referee.crashes import early_death, mid_game_death
from arena.referee.diagnostics import ActResult, BotDiagnostics
from arena.referee.failures import Failure
from arena.referee.lifecycle import MAX_FAILED_STARTS, BotLifecycle
from arena.referee.timeouts import (
    credit_note,
    dropped_note,
    ignored_note,
    stuck_at,
    timeout_detail,
)

__all__ = ["MAX_FAILED_STARTS", "ActResult", "BotClient", "BotDiagnostics",
           "CpuTurn", "Launcher"]


class BotClient(BotLifecycle):
    """A bot seen from the referee: its processes' life (:class:`BotLifecycle`) and the
    decisions it is asked, judged and counted."""

    @property
    def next_act_id(self) -> int:
        """The id the next ``act`` will carry: ids count a bot's requests over its process's
        matches with this client, restarts included (docs/PROTOCOL.md)."""
        return self._next_id

    @property
    def strikes(self) -> int:
        """Strikes in the current game (:attr:`clock`'s)."""
        return self.clock.strikes

    def act(self, kind: str, observation: Mapping[str, Any],
            legal: Sequence[Mapping[str, Any]], context: Mapping[str, Any] | None = None,
            prefix: bytes = b"") -> ActResult:
        """Ask one decision (after ``prefix``, the pending events) and judge the answer."""
        conn = self.conn
        if conn is None or self.forfeited is not None:
            return ActResult(0, 0.0, None, True)
        id_ = self._next_id
        self._next_id += 1
        budget = self.clock.budget()
        line = messages.act(id_, kind, observation, legal, round(budget * 1000), context)
        if not self.ponder:
            self._turn.stop_other(conn)
        start = self.now()
        sent = conn.send(prefix + line)  # before the bot is continued: it wakes once, to read
        if not self.ponder:
            self._turn.give(conn)
        if sent:
            result = self._judge(conn, id_, len(legal), start, budget, kind)
        elif self._may_ask_again():
            result = None
        else:
            result = self._fatal(F.CRASH, "stopped reading its input" + self._ended_how(), id_)
        if result is None:  # gone before its first answer of the game: asked again
            return self._restart_and_ask(kind, observation, legal, context, prefix, id_)
        return result

    def _answered(self, choice: int, id_: int, start: float, wait: Deadline) -> ActResult:
        """A valid answer in time: its latency counted, time past the limit, less what other
        bots took of its CPU, taken from the bank."""
        elapsed = self.now() - start
        if elapsed > self.clock.decision_s:  # only then may the credit matter: read it
            wait.move_on(self._turn)
        self._note_credit(wait, id_)
        self.clock.answered(elapsed - wait.credited)
        diag = self.diagnostics
        diag.decisions += 1
        diag.latencies.append(elapsed)
        return ActResult(choice, elapsed)

    def _judge(self, conn: Connection, id_: int, n_legal: int, start: float,
               budget: float, kind: str = "") -> ActResult | None:
        """Read the answer to act ``id_`` (:func:`~arena.referee.answer.judge_answer`) and
        count what it costs: a valid answer in time, a bad or stray line, a timeout, an
        overflow or a bot gone. None when the bot is gone before its first answer of the game,
        and may be restarted and asked again."""
        wait = Deadline(conn, start + budget, budget)
        self._strays.new_act()
        got = self._receive(conn, wait.at, f"a '{kind}' decision", round(budget * 1000))
        answer = judge_answer(wait, got, id_, n_legal, self._strays, self._turn, self._stderr_tail,
                              self.now)
        if isinstance(answer, Chosen):
            return self._answered(answer.choice, id_, start, wait)
        if isinstance(answer, Struck):
            return self._strike(answer.kind, answer.detail, id_, start)
        if answer.kind == "timeout":
            self._strays.late(id_)
            self.clock.timed_out()
            self._note_credit(wait, id_)
            detail = (timeout_detail(self.clock, budget, conn.unterminated(), wait.credited)
                      + ignored_note(self._strays.ignored_type, "action")
                      + dropped_note(self._strays.dropped))
            return self._strike(F.TIMEOUT, detail + stuck_at(conn, self.stack_dump), id_, start)
        if answer.kind == "overflow":
            return self._fatal(F.OUTPUT_LIMIT, overflow_detail(answer, self.limits.line_bytes), id_)
        if self._may_ask_again():
            return None
        return self._crashed(id_)

    def _note_credit(self, wait: Deadline, id_: int) -> None:
        """Tell the bot's author, in its log, of time it was credited for this decision."""
        if wait.credited > 0:
            self._log.note(wait.conn, credit_note(id_, wait.credited))

    def _may_ask_again(self) -> bool:
        """No answer (nor strike) yet in this game, and no restart in it so far."""
        return (len(self.diagnostics.latencies) == self._game_mark
                and not self._restarted_in_game)

    def _restart_and_ask(self, kind: str, observation: Mapping[str, Any],
                         legal: Sequence[Mapping[str, Any]], context: Mapping[str, Any] | None,
                         prefix: bytes, id_: int) -> ActResult:
        """The bot died before its first answer of this game. It may well have died after
        the previous game ended (in ``on_game_end``), and whether the referee saw that at
        ``game_start`` or only now is a race: so either way the death is a crash between
        games (in :attr:`pending`, no forfeit), the bot is restarted once, and it is sent
        this game's start and events again and asked the same decision. Dying again before
        answering forfeits the game as any crash does."""
        failure_kind, how = early_death(self.conn, self.limits)
        self.diagnostics.failures[failure_kind] += 1
        self.pending.append(Failure(
            failure_kind, f"{F.BEFORE_FIRST_ANSWER}{self._after_game()} {how}; "
            "restarted and asked again" + self._log_note(self._stderr_tail()),
            decision=id_))
        self._stop_now()
        self._restarted_in_game = True
        failure = self.start()
        if failure is not None:
            self._forfeit_unstarted()
            return ActResult(0, 0.0, failure, True)
        assert self.conn is not None
        self.conn.send(self._game_start)
        return self.act(kind, observation, legal, context, prefix)

    def _strike(self, kind: str, detail: str, id_: int, start: float) -> ActResult:
        latency = self.now() - start
        forfeits = self.clock.strike()
        diag = self.diagnostics
        diag.strikes += 1
        diag.failures[kind] += 1
        diag.decisions += 1
        diag.latencies.append(latency)
        failure = Failure(kind, detail, decision=id_)
        if forfeits:
            self.forfeited = kind
            diag.forfeits += 1
            self._stop_now()
            return ActResult(0, latency, failure, True)
        return ActResult(0, latency, failure, False)

    def _crashed(self, id_: int) -> ActResult:
        kind, detail = mid_game_death(self.conn, self.limits)
        return self._fatal(kind, detail, id_)

    def game_latency(self) -> dict[str, Any]:
        """Decisions and latency (ms) of the current game."""
        return self.diagnostics.latency_since(self._game_mark)

