"""What a bot that timed out is told: the limit it missed, and where it was stuck."""

from __future__ import annotations

from arena.referee.clock import GameClock
from arena.referee.connection import Connection
from arena.referee.hints import stuck_note

__all__ = ["stuck_at", "timeout_detail"]

#: How long the stack dump of a bot that timed out is waited for, at most (it comes in
#: milliseconds; this bounds a bot that offered one and sends none).
DUMP_WAIT_S = 0.5


def timeout_detail(clock: GameClock, budget: float, held: int) -> str:
    """What the bot had for the decision it missed (``budget`` seconds): the limit, and the
    bank or its absence (:meth:`GameClock.timeout_reason`); ``held``: bytes it wrote that no
    newline ended."""
    why = clock.timeout_reason(budget)
    if held:  # the answer came, unfinished: the commonest slip of a hand-written bot
        why += (f"; {held} bytes arrived without a newline (end each line with \\n and "
                "flush stdout)")
    return f"no answer within {round(budget * 1000)} ms{why}"


def stuck_at(conn: Connection, offered: bool) -> str:
    """`` (at bot.py line 6, in think)``: where a bot that ``offered`` its stack (its
    ``ready`` said ``stack_dump``) was stuck when its time ran out; asked only now, so an
    answer in time costs nothing."""
    if not offered:
        return ""
    try:
        return stuck_note(conn.dump_stack(DUMP_WAIT_S))
    except Exception:  # the note is a courtesy; never let it break the referee
        return ""
