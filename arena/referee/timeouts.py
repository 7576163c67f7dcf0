"""What a bot that timed out is told: the limit it missed, and where it was stuck."""

from __future__ import annotations

from arena.common.printable import printable
from arena.referee.clock import GameClock
from arena.referee.connection import Connection
from arena.referee.hints import stuck_note

__all__ = ["credit_note", "dropped_note", "ignored_note", "stuck_at", "timeout_detail",
           "unended_note"]

#: How long the stack dump of a bot that timed out is waited for, at most (it comes in
#: milliseconds; this bounds a bot that offered one and sends none).
DUMP_WAIT_S = 0.5


def timeout_detail(clock: GameClock, budget: float, held: int,
                   credited: float = 0.0) -> str:
    """What the bot had for the decision it missed (``budget`` seconds): the limit, and the
    bank or its absence (:meth:`GameClock.timeout_reason`); ``held``: bytes it wrote that no
    newline ended; ``credited``: seconds added for the CPU other bots took from it."""
    why = clock.timeout_reason(budget) + unended_note(held)
    if credited > 0:
        why += f"; {_ms(credited)} ms more were given for the CPU other bots took from it"
    return f"no answer within {round(budget * 1000)} ms{why}"


def credit_note(act_id: int, credited: float) -> str:
    """The line a bot's log gets when a decision's time was moved on by ``credited``
    seconds: other bots of its table, stopped, ran on inside system calls on its CPU."""
    return (f"arena: act {act_id}: {_ms(credited)} ms added to its time: other bots of the "
            "table ran on, on this bot's CPU, after they were stopped (docs/SANDBOX.md, "
            "\"CPU fairness\")\n")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def unended_note(held: int) -> str:
    """What a bot that timed out wrote of its answer: ``held`` bytes no newline ended (the
    commonest slip of a hand-written bot); empty when none."""
    if not held:
        return ""
    return f"; {held} bytes arrived without a newline (end each line with \\n and flush stdout)"


def ignored_note(line_type: str | None, answer: str) -> str:
    """What a bot that timed out wrote instead of its ``answer`` (``'action'``, ``'ready'``):
    a line of an unknown type, ignored as a later protocol version's, most often a misspelt
    answer; empty when it wrote none."""
    if line_type is None:
        return ""
    article = "an" if answer[0] in "aeiou" else "a"
    return (f"; it wrote a line of type {printable(line_type)[:40]!r}, which the referee "
            f"ignores as a later protocol version's: the answer is {article} {answer!r} line")


def dropped_note(late_id: int | None) -> str:
    """What a bot that timed out wrote instead of its answer: the late answer to act
    ``late_id``, dropped. Either the bot was still busy with that act (a slow decision, a
    ``sleep``: the commonest) or it answers each act with the previous one's id: both are
    named, as the referee cannot tell them apart. Empty when none."""
    if late_id is None:
        return ""
    return (f"; it wrote an answer to act {late_id}, past and struck already, so dropped "
            f"(still busy with act {late_id} when this one was asked? else, does each "
            "'action' carry the id of the 'act' it answers?)")


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
