"""What a tournament's workers are given and what they send back, on either backend: a
:class:`TableTask` (a table, or a duplicate deal's seatings) and the messages of its play.
Plain, picklable data, kept apart from the processes that pass it (:mod:`arena.tournament.pool`,
:mod:`arena.tournament.worker`, :mod:`arena.tournament.ray_executor`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.engine.houserules import DEFAULT_RULES, HouseRules

if TYPE_CHECKING:
    from arena.registry import BotSpec

__all__ = [
    "GAME_BATCH_S",
    "BoardStart",
    "BotCpuMessage",
    "DoneMessage",
    "ErrorMessage",
    "GameBatch",
    "GameMessage",
    "KeptCopyMessage",
    "LogMessage",
    "Message",
    "TableTask",
    "add_bot_cpu",
]


# ---------------------------------------------------------------------------- tasks
@dataclass(frozen=True)
class TableTask:
    """Everything a worker needs to play one table, or in duplicate mode the tables of one
    deal (its seatings) as one match, or one of them (:attr:`seating`); plain data,
    picklable."""

    tournament: str
    round: int
    table: int
    bots: tuple[BotSpec, ...]
    bot_ids: tuple[int, ...]
    games: int
    seed: int
    limits: dict[str, int]
    event_date: dt.date
    #: Game numbers of the match already stored (replayed, not sent again).
    recorded: frozenset[int] = frozenset()
    #: In duplicate mode, the seating of the deal (``arena.referee.seating``) and, per
    #: seating, its table and bot ids: the match plays them in turn, game by game, so each
    #: replays the first seating's board (RULES.md, ruling 13). ``table`` and ``bot_ids`` are
    #: the first seating's.
    duplicate: str = "none"
    seatings: tuple[tuple[int, tuple[int, ...]], ...] = ()
    #: The tournament's house rules.
    rules: HouseRules = DEFAULT_RULES
    #: The seeds of the table's deals from the spec's deal book (empty: derived from
    #: ``seed``).
    deals: tuple[int, ...] = ()
    #: In duplicate mode on several workers: play this seating of the deal only (its table
    #: is ``seatings[seating]``), each seating a task of its own. The first tells each
    #: board's starting seat as its game begins (:class:`BoardStart`); a replay, handed out
    #: once the first has ended, is given them all. None: every seating, as one match.
    seating: int | None = None
    #: The boards' starting seats known when the task is handed out, ``(deal, seat)``.
    starts: tuple[tuple[int, int], ...] = ()
    #: Whether the worker may keep the task's bot processes for a later table. False for a
    #: first seating whose bots play another deal meanwhile (:mod:`arena.tournament.boards`).
    keep_bots: bool = True
    #: Whether the tournament is a contest (its spec gives no public seed) and whether the
    #: run was told ``--insecure``: a Ray node, which the driver's own refusal does not
    #: probe, refuses a contest's table where its bots would run bare.
    contest: bool = False
    insecure: bool = False
    #: A bot whose files ``arena submit --update`` replaced since it entered plays the table,
    #: and is restarted during it, from the copy the update kept of them (its version's very
    #: files), rather than stopping the run (every tournament's tables; False: it stops).
    kept_copies: bool = False

    @property
    def key(self) -> tuple[int, int]:
        """The table whose games the task plays (a seating's, when it plays one)."""
        if self.seating is None:
            return (self.round, self.table)
        return (self.round, self.seatings[self.seating][0])

    @property
    def deal_key(self) -> tuple[int, int]:
        """The deal's first table: what its seatings' tasks share."""
        return (self.round, self.table)

    def table_of(self, game: int) -> tuple[int, int, tuple[int, ...]]:
        """Where the match's game ``game`` is stored: table, game index, bot ids by seat."""
        if not self.seatings:
            return self.table, game, self.bot_ids
        deal, seating = divmod(game, len(self.seatings))
        table, bot_ids = self.seatings[seating]
        return table, deal, bot_ids

    def game_of(self, table: int, index: int) -> int:
        """The match's game number of game ``index`` of ``table`` (:meth:`table_of`'s
        inverse)."""
        if not self.seatings:
            return index
        tables = [t for t, _ in self.seatings]
        return index * len(tables) + tables.index(table)


@dataclass
class GameMessage:
    """A finished game, as the worker ships it (``record`` is None for a replayed game)."""

    key: tuple[int, int]
    row: dict[str, Any]
    record: bytes | None


@dataclass
class DoneMessage:
    key: tuple[int, int]
    sandbox_level: str
    warnings: list[str]
    #: The other tables of the task's round that it finished (a duplicate deal's seatings).
    also: tuple[int, ...] = ()
    #: Bot processes the table started (restarts included).
    bot_starts: int = 0
    #: CPU seconds the worker process itself (the referee: not its bots) spent since it
    #: finished its previous table, or since it started: where a run's CPU goes.
    referee_cpu_s: float = 0.0
    #: CPU seconds of the bot processes that ended since the worker's previous table (each
    #: one's whole sandbox), by ``name@version``; a process kept for later tables is
    #: counted when it ends, in a later table's or in the worker's :class:`BotCpuMessage`.
    bot_cpu_s: dict[str, float] = field(default_factory=dict)


@dataclass
class BotCpuMessage:
    """A worker's last word: the CPU seconds of the bot processes it kept between tables and
    ended as it wound down, by ``name@version`` (as :attr:`DoneMessage.bot_cpu_s`)."""

    bot_cpu_s: dict[str, float]


def add_bot_cpu(into: dict[str, float], more: dict[str, float]) -> None:
    """Add ``more``'s CPU seconds by bot to ``into``'s."""
    for bot, seconds in more.items():
        into[bot] = into.get(bot, 0.0) + seconds


@dataclass
class ErrorMessage:
    key: tuple[int, int]
    message: str


@dataclass
class LogMessage:
    """A warning the referee or sandbox logged in a worker (printed once by the parent, above
    the progress bar, instead of each worker writing to the terminal)."""

    text: str


@dataclass
class KeptCopyMessage:
    """A bot seated or started from the copy ``arena submit --update`` kept of its files:
    ``key`` is the entry's bot, ``name`` its name, ``kept`` the kept version's name
    (``NAME@VERSION``)."""

    key: str
    name: str
    kept: str


@dataclass
class GameBatch:
    """Games a worker finished within :data:`GAME_BATCH_S` of each other, sent (and recorded)
    together: a game apiece cost the parent a wake-up and a transaction each."""

    games: list[GameMessage]


@dataclass(frozen=True)
class BoardStart:
    """Where a duplicate deal's board starts, told by the worker playing the deal's first
    seating as the game begins and handed to the tasks replaying it (the local pool's, when
    it plays a deal's seatings as tasks of their own)."""

    #: The deal's :attr:`TableTask.deal_key`.
    key: tuple[int, int]
    deal: int
    seat: int


Message = (GameMessage | GameBatch | DoneMessage | ErrorMessage | LogMessage | BoardStart
           | KeptCopyMessage | BotCpuMessage)

#: How long a worker holds finished games before it sends them (a game is sent at the latest
#: this long after it ended; a table's end or a warning sends them at once).
GAME_BATCH_S = 0.1
