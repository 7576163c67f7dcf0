"""A duplicate deal's seatings on several workers, and which tasks may be in play at once.

A Swiss round of few pairings leaves workers idle: each pairing's deal is one match, and the
round waits for the slowest. But each seating of a deal has bot processes of its own (no
process is dealt a deal twice), and a replay seating needs from the first seating only each
board's starting seat (RULES.md, ruling 13). So when a run has fewer than two deals per
worker to play (:func:`split_seatings`), the local pool hands each seating to a worker as a
task of its own: the first seatings first, and a replay only once its deal's first seating
has ended (:class:`BoardRelay`), with every board's start it told
(:class:`~arena.tournament.tasks.BoardStart`). No two seatings of a deal are then in play at
once: a bot's process holding a seat's cards of a deal never runs while another of its
processes plays the deal from another seat, which any channel left between two sandboxes
(docs/SANDBOX.md, "What is left") would let them share. The parallelism comes from the other
deals: one worker replays a deal while another plays the next deal's first seating. For the
same reason a first seating whose bots play another deal of the same batch ends its
processes at its end rather than keeping them for that deal (:attr:`TableTask.keep_bots`).
A deal book deals every table of a round the same deals, so two tables of those deals with
a bot in common are kept apart alike, on either backend (:func:`holds_cards_of`).
The games are the same as one worker's, move for move: the tests compare them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from arena.tournament.tasks import BoardStart, TableTask

__all__ = ["BoardRelay", "holds_cards_of", "split_seatings"]


def split_seatings(tasks: Sequence[TableTask], workers: int) -> list[TableTask]:
    """The tasks to hand out: each duplicate deal's seatings as tasks of their own when there
    are fewer than two deals per worker (otherwise whole deals keep every worker busy), first
    seatings first; on several workers, each marked whether its processes may be kept
    (:func:`_keeps`: one worker plays nothing at once)."""
    if workers < 2:
        return list(tasks)
    split = list(tasks)
    if len(tasks) < 2 * workers:
        split = sorted((replace(task, seating=s) if task.seatings else task
                        for task in tasks for s in range(max(1, len(task.seatings)))),
                       key=lambda task: bool(task.seating))
    return [task if _keeps(task, split) else replace(task, keep_bots=False) for task in split]


def _keeps(task: TableTask, tasks: Sequence[TableTask]) -> bool:
    """Whether a worker may keep ``task``'s processes for a later table. Not when a bot of it
    plays another deal of ``tasks`` while a seating of this deal is still to come (a kept
    process could play that deal while this one's replay is in play elsewhere), nor when it
    plays another table dealt the same deal (a deal book)."""
    later = task.seating is not None and task.seating < len(task.seatings) - 1
    return not any(other.deal_key != task.deal_key and _shares_bot(task, other) and
                   (later or not set(task.deals).isdisjoint(other.deals)) for other in tasks)


def _shares_bot(task: TableTask, other: TableTask) -> bool:
    """Whether a bot (by its files' version) plays both tasks."""
    return not {(b.name, b.version) for b in task.bots}.isdisjoint(
        (b.name, b.version) for b in other.bots)


def holds_cards_of(task: TableTask, other: TableTask) -> bool:
    """Whether a bot's process playing ``other`` would hold cards of a deal ``task`` deals its
    bot: another seating of the same deal, or a table dealt the same deal (a deal book)."""
    return other is not task and _shares_bot(task, other) and (
        other.deal_key == task.deal_key or not set(task.deals).isdisjoint(other.deals))


class BoardRelay:
    """The parent's side: the boards' starts told so far, the deals whose first seating has
    ended, and a replay handed out with its deal's starts only once its first seating ended."""

    def __init__(self) -> None:
        self._starts: dict[tuple[int, int], dict[int, int]] = {}
        self._ended: set[tuple[int, int]] = set()

    def tell(self, start: BoardStart) -> None:
        """Note ``start``, told by a first seating's worker, for the deal's replays."""
        self._starts.setdefault(start.key, {})[start.deal] = start.seat

    def ended(self, task: TableTask) -> None:
        """Note that ``task`` has played all its games: a first seating's replays may begin."""
        if task.seating == 0:
            self._ended.add(task.deal_key)

    def ready(self, task: TableTask, in_play: Iterable[TableTask]) -> bool:
        """Whether ``task`` may be handed out now, beside the tasks ``in_play``: not a replay
        whose deal's first seating is still to play, and none in play whose bot's process holds
        a deal's cards that ``task`` deals the bot (:func:`holds_cards_of`)."""
        return ((not task.seating or task.deal_key in self._ended)
                and not any(holds_cards_of(task, other) for other in in_play))

    def handed(self, task: TableTask) -> TableTask:
        """``task`` as it is handed to a worker: a replay with its deal's boards' starts."""
        if not task.seating:
            return task
        return replace(task, starts=tuple(sorted(self._starts.get(task.deal_key, {}).items())))
