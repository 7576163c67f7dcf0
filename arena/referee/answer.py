"""A bot's answer to an ``act``, read and judged (docs/PROTOCOL.md): the option it chose, a
line that costs a strike, or the read that ended the wait without an answer (a timeout, an
overflow, its output closed). What the verdict costs the bot (its time bank, a strike, a
forfeit, a restart) is :class:`~arena.referee.client.BotClient`'s, which asks the decision;
the ``ready`` a start waits for is :mod:`arena.referee.handshake`'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from arena.errors import IllegalChoiceError, ProtocolError
from arena.protocol import messages
from arena.referee import failures as F
from arena.referee.connection import OUT_OF_TIME, Received
from arena.referee.cpu_turn import CpuTurn, Deadline
from arena.referee.hints import explained
from arena.referee.stray_lines import StrayLines

__all__ = ["Chosen", "Struck", "judge_answer"]


class Chosen(NamedTuple):
    """A valid answer: the index of the legal option the bot chose."""

    choice: int


class Struck(NamedTuple):
    """A line that answers wrongly (an illegal choice, a protocol error), as its strike
    says it."""

    kind: str
    detail: str


def judge_answer(wait: Deadline, got: Received, act_id: int, n_legal: int,
                 strays: StrayLines, turn: CpuTurn,
                 stderr_tail: Callable[[], str],
                 now: Callable[[], float]) -> Chosen | Struck | Received:
    """The answer to act ``act_id`` from its first read ``got``: lines :class:`StrayLines`
    skips are passed over until ``wait``'s deadline, which the CPU the stopped bots took
    moves on (``turn``); else the read that ended the wait. ``stderr_tail``: the bot's log,
    which a protocol error may quote; ``now``: the time source ``wait`` is measured by."""
    got = _credited_wait(wait, got, turn)
    while got.kind == "line":
        try:
            return Chosen(messages.parse_action(got.data, act_id, n_legal))
        except IllegalChoiceError as exc:
            return Struck(F.ILLEGAL_CHOICE, str(exc))
        except ProtocolError as exc:
            if not strays.skipped(got.data, act_id):
                return Struck(F.PROTOCOL_ERROR, explained(exc, stderr_tail))
        # a flood of ignored lines does not stop the clock
        got = wait.conn.receive(wait.at) if now() < wait.at else OUT_OF_TIME
        got = _credited_wait(wait, got, turn)
    return got


def _credited_wait(wait: Deadline, got: Received, turn: CpuTurn) -> Received:
    """``got``, or past the deadline the answer read once the deadline is moved on by
    the CPU the stopped bots took from this one meanwhile (docs/SANDBOX.md, "CPU
    fairness"), for as long as they took more."""
    while got.kind == "timeout" and wait.move_on(turn):
        got = wait.conn.receive(wait.at)
    return got
