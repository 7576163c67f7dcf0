"""A duplicate deal's seatings played by several local workers at once.

A Swiss round of few pairings leaves workers idle: each pairing's deal is one match, and the
round waits for the slowest. But each seating of a deal has bot processes of its own (no
process is dealt a deal twice), and a replay seating needs from the first seating only each
board's starting seat, known as that game begins (RULES.md, ruling 13). So when a run has
fewer than two deals per worker to play (:func:`split_seatings`), the local pool hands each
seating to a worker of its own: the first seating's worker tells each board's start
(:class:`~arena.tournament.tasks.BoardStart`), the parent passes it on to the workers
replaying that deal (:class:`BoardRelay`), and a replay's worker waits for it
(:func:`told_by`). A replay can then never get ahead of its board, and at most waits for
it. The games are the same as one worker's, move for move: the tests compare them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from arena.tournament.tasks import BoardStart, TableTask

__all__ = ["BoardRelay", "split_seatings", "told_by"]


def split_seatings(tasks: Sequence[TableTask], workers: int) -> list[TableTask]:
    """The tasks to hand out: each duplicate deal's seatings as tasks of their own when there
    are fewer than two deals per worker (otherwise whole deals keep every worker busy, and
    a replay would only wait for its boards), first seatings first."""
    if workers < 2 or len(tasks) >= 2 * workers:
        return list(tasks)
    return [replace(task, seating=s) if task.seatings else task
            for task in tasks for s in range(max(1, len(task.seatings)))]


class _Conn(Protocol):
    def send(self, obj: Any) -> None: ...


class BoardRelay:
    """The parent's side: the boards' starts told so far, passed on to the workers playing
    the replays of the same deal, and handed to a replay when it is handed out."""

    def __init__(self) -> None:
        self._starts: dict[tuple[int, int], dict[int, int]] = {}

    def tell(self, start: BoardStart, busy: Iterable[tuple[TableTask | None, _Conn]]) -> None:
        """Note ``start`` and send it to each worker in ``busy`` (its task, its pipe) that
        replays that deal; a worker that died meanwhile gets it again with its task."""
        self._starts.setdefault(start.key, {})[start.deal] = start.seat
        for task, conn in busy:
            if task is not None and task.seating and task.deal_key == start.key:
                with contextlib.suppress(OSError, ValueError):
                    conn.send(start)

    def handed(self, task: TableTask) -> TableTask:
        """``task`` as it is handed to a worker: a replay with the starts told so far."""
        if not task.seating:
            return task
        return replace(task, starts=tuple(sorted(self._starts.get(task.deal_key, {}).items())))


def told_by(receive: Callable[[], Any], task: TableTask) -> Callable[[int], int]:
    """The worker's side, for a replay: the starting seat of a deal's board, from those
    the task came with or else waiting for the parent to pass it on (``receive``)."""
    starts = dict(task.starts)

    def told(deal: int) -> int:
        while deal not in starts:
            start = receive()
            if not isinstance(start, BoardStart):
                raise EOFError(f"expected a board's start, got {start!r}")
            if start.key == task.deal_key:  # not one told again for an earlier task's
                starts[start.deal] = start.seat
        return starts[deal]

    return told
