"""What a bot whose process died, or would not start, is told: how it ended (its exit status,
a memory kill or a ``MemoryError``, with the limit it ran into, which its author cannot see
otherwise) and, for a start that failed for no reason the system names, what is wrong with
its command."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.referee import failures as F
from arena.referee.botlog import log_tail
from arena.referee.connection import Connection, Ended
from arena.referee.hints import is_not_run
from arena.registry import command_problem
from arena.sandbox import Limits

__all__ = ["between_games_death", "early_death", "ended_how", "mid_game_death",
           "start_failure_detail"]

#: How long to wait for an exit status after the bot's stdout closed (to tell a memory kill
#: from a crash, and to report the exit code).
_EXIT_WAIT_S = 0.5


def _exit_status(conn: Connection | None) -> Ended | None:
    """How the process ended, once its status comes within ``_EXIT_WAIT_S`` (None: it
    still runs, or there is none)."""
    return conn.ended(_EXIT_WAIT_S) if conn is not None else None


def _memory_note(limits: Limits) -> str:
    """The limit a bot out of memory ran into, which its author cannot see otherwise."""
    return (f"; its memory limit: {limits.memory_mb} MiB (memory_mb; --memory-mb of "
            "arena check-bot, submit, match)")


def _out_of_memory(ended: Ended | None, conn: Connection | None) -> bool:
    """Killed by its memory limit (where the sandbox tells), or died of a MemoryError."""
    return ended is not None and (ended.memory_limit or "MemoryError" in log_tail(conn))


def ended_how(conn: Connection | None, limits: Limits) -> str:
    """`` (exit code 1)``, and the memory limit of a bot out of memory: how a process that
    stopped reading or writing ended ("" while it still runs)."""
    ended = _exit_status(conn)
    if ended is None:
        return ""
    # out of memory before its first answer too: the limit is as unseen then
    note = _memory_note(limits) if _out_of_memory(ended, conn) else ""
    return f" ({ended.description}){note}"


def mid_game_death(conn: Connection | None, limits: Limits) -> tuple[str, str]:
    """The failure type and detail of a bot whose output closed in a game it had answered in."""
    ended = _exit_status(conn)
    if ended is None:
        return F.CRASH, "closed its output while still running"
    if _out_of_memory(ended, conn):
        return F.MEMORY_LIMIT, f"ran out of memory ({ended.description})" + _memory_note(limits)
    return F.CRASH, f"exited mid-game ({ended.description})"


def early_death(conn: Connection | None, limits: Limits) -> tuple[str, str]:
    """The failure type, and how it ended, of a bot gone before its first answer of a game."""
    ended = _exit_status(conn)
    how = "closed its output" if ended is None else ended.description
    if _out_of_memory(ended, conn):
        return F.MEMORY_LIMIT, f"({how}){_memory_note(limits)}"
    return F.CRASH, f"({how})"


def between_games_death(ended: Ended, limits: Limits) -> tuple[str, str]:
    """The failure type, and how it ended, of a bot found dead at a game's start."""
    if ended.memory_limit:
        return F.MEMORY_LIMIT, f"({ended.description}){_memory_note(limits)}"
    return F.CRASH, f"({ended.description})"


def start_failure_detail(detail: str, quote: str, command: Sequence[str],
                         workdir: Path | str) -> str:
    """A failed start's ``detail`` and the ``quote`` of its log, with what is wrong with the
    bot's command where the system's words name no cause (the files may)."""
    if is_not_run(detail + quote):
        problem = command_problem(command, workdir)
        quote += f" ({problem})" if problem is not None else ""
    return detail + quote
