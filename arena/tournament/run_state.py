"""One run of a tournament as it plays: its tables turned into the workers' tasks, Swiss
rounds paired from the store, and the games the workers send stored as they come.

:func:`arena.tournament.runner.run_tournament` sets a :class:`RunState` up and starts and
stops the executor around it; a table already partly stored is handed out whole and only its
missing games are stored (the module docstring of :mod:`arena.tournament.runner` says why).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from arena.errors import ArenaError, StoreError
from arena.referee.seating import seat_orders, seating_mode
from arena.registry import BotSpec
from arena.tournament import swiss
from arena.tournament.dealbook import table_deals
from arena.tournament.editions import note_kept_copy, retired_entries, stored_bot
from arena.tournament.events import Progress, ProgressEnded, Report, RunWarning
from arena.tournament.planning import fixed_tables, group_deals, tables_per_swiss_round
from arena.tournament.pool import TableExecutor
from arena.tournament.schedule import derive_seed, match_seed
from arena.tournament.scoring import RatingTrack, spec_standings
from arena.tournament.spec import TournamentSpec
from arena.tournament.standings import swiss_inputs
from arena.tournament.store import GameRow, Store, TableRow, TournamentRow, game_id
from arena.tournament.tasks import (
    BoardStart,
    BotCpuMessage,
    DoneMessage,
    GameBatch,
    GameMessage,
    KeptCopyMessage,
    LogMessage,
    Message,
    TableTask,
    add_bot_cpu,
)

__all__ = ["RunState", "kept_copy_line", "planned_parallelism", "updated_line"]


class RunState:
    """One invocation of :func:`~arena.tournament.runner.run_tournament` (state shared by
    planning and messages)."""

    def __init__(self, spec: TournamentSpec, store: Store, row: TournamentRow,
                 executor: TableExecutor, report: Report, started: float,
                 insecure: bool = False) -> None:
        self.spec = spec
        #: ``--insecure``: a contest's tables are played even on a Ray node without
        #: bubblewrap or Landlock (the driver refused it for itself before the run).
        self.insecure = insecure
        self.store = store
        self.row = row
        self.executor = executor
        self.report = report
        self.started = started
        self.entrant_ids = store.entrant_ids(row.id)
        # a league's entrants are its entries, not the spec's list (the league maps them)
        self.by_id = {} if spec.format == "league" else {
            bot_id: spec.entrants[i] for i, bot_id in enumerate(self.entrant_ids)}
        for bot_id in retired_entries(store, row.id):  # found when a deal they began needs them
            self.by_id.pop(bot_id, None)
        self.recorded = {g.id: g for g in store.games(row.id)}
        self.games_before = len(self.recorded)
        #: The Swiss rating tie-break, each round's new games added to the earlier ones'.
        self.rating: RatingTrack | None = None
        self.games_recorded = 0
        self.bot_starts = 0
        self.referee_cpu_s = 0.0
        #: CPU seconds of the bot processes ended so far, by ``name@version``.
        self.bot_cpu_s: dict[str, float] = {}
        self.mismatches: list[str] = []
        self.warnings: list[str] = []
        self.title = spec.name
        self.progressing = False
        #: The command resuming the run (the lines on a bot updated mid-run name it).
        self.resume = "arena run SPEC"
        #: What is said of each entry's bot played on from the copy ``arena submit
        #: --update`` kept of its files, by the bot's key, but for how to go on
        #: (:meth:`kept_copy_lines`; said again at the run's end).
        self.kept_copies: dict[str, tuple[str, str]] = {}

    # -------------------------------------------------------------- reports
    def progress(self, title: str | None = None) -> None:
        """Report where the games stand (``title``: what is being played, from now on)."""
        self.title = title or self.title
        self.progressing = True
        self.report(Progress(self.title, self.games_before + self.games_recorded,
                             self.row.games_planned, self.games_before, self.started,
                             league=self.row.format == "league"))

    def end_progress(self) -> None:
        if self.progressing:
            self.progressing = False
            self.report(ProgressEnded())

    def warn(self, text: str) -> None:
        """Report a warning once per run (every worker and table repeats the sandbox's)."""
        if text not in self.warnings:
            self.warnings.append(text)
            self.report(RunWarning(text))

    # -------------------------------------------------------------- messages
    def on_message(self, message: Message) -> None:
        if isinstance(message, GameMessage | GameBatch):
            self.record(message.games if isinstance(message, GameBatch) else [message])
        elif isinstance(message, DoneMessage):
            r, t = message.key
            self.bot_starts += message.bot_starts
            self.referee_cpu_s += message.referee_cpu_s
            add_bot_cpu(self.bot_cpu_s, message.bot_cpu_s)
            for table in (t, *message.also):
                self.store.finish_table(self.row.id, r, table, message.sandbox_level,
                                        message.warnings)
            for warning in message.warnings:
                self.warn(warning)
        elif isinstance(message, BotCpuMessage):
            add_bot_cpu(self.bot_cpu_s, message.bot_cpu_s)
        elif isinstance(message, LogMessage):
            self.warn(message.text)
        elif isinstance(message, KeptCopyMessage):
            self.played_kept_copy(message)
        elif not isinstance(message, BoardStart):  # a board's start is the workers' affair
            raise ArenaError(message.message)

    def played_kept_copy(self, message: KeptCopyMessage, before_run: bool = False) -> None:
        """Say once per bot that it plays on from the copy ``arena submit --update`` kept
        (``before_run``: the update landed before this run, which resumes the tournament; a
        league says nothing: its next poll enters the new version)."""
        if self.spec.format == "league" or message.key in self.kept_copies:
            return
        self.kept_copies[message.key] = (updated_line(message.name, before_run), message.kept)
        bot_id = next((i for i, bot in self.by_id.items() if bot.key == message.key), None)
        if bot_id is not None:  # stored first: arena status tells it after any end of the run
            note_kept_copy(self.store, self.row.id, bot_id, message.kept, before_run)
        self.warn(self.kept_copy_lines("running")[-1])

    def kept_copy_lines(self, state: str) -> list[str]:
        """What is said of the bots played on from their kept copies, with how to enter the
        new version while the tournament, in ``state``, can still take it (a finished one
        cannot: ``--continue`` refuses it)."""
        return [kept_copy_line(update, kept, state, self.resume)
                for update, kept in self.kept_copies.values()]

    def record(self, games: Sequence[GameMessage]) -> None:
        """Store the finished ``games`` not stored yet, in one transaction; a replayed game
        that came out otherwise than its stored copy is noted (the stored one is kept)."""
        new = []
        for message in games:
            row = message.row
            stored = self.recorded.get(row["id"])
            if stored is not None:
                if tuple(row["placements"]) != stored.placements:
                    self.mismatches.append(
                        f"game {row['id']} replayed with placements {row['placements']}, "
                        f"recorded {list(stored.placements)} (a bot is not deterministic?); "
                        "kept the recorded result")
            elif message.record is not None:
                new.append((row, message.record))
        if not new:
            return
        inserted = self.store.record_games(self.row.id, new)
        for (row, _), fresh in zip(new, inserted, strict=True):
            if fresh:  # told game by game, however the games came
                self.recorded[row["id"]] = _game_row(row)
                self.games_recorded += 1
                self.progress()

    # -------------------------------------------------------------- tables
    def parallelism(self) -> int:
        """Tasks that can be in play at once: a Swiss round's, or every pending one (a
        duplicate deal's seatings are one task)."""
        if self.spec.format not in ("league", "swiss"):
            stored = self.store.tables(self.row.id)
            if stored:
                return len(self.pending(stored))
        return planned_parallelism(self.spec, len(self.entrant_ids))

    def task(self, tables: Sequence[TableRow]) -> TableTask:
        """One table's task, or in duplicate mode one deal's: its seatings in the order
        :func:`~arena.referee.seating.seat_orders` gives them, played as one match."""
        first = tables[0]
        task = TableTask(
            tournament=self.spec.name, round=first.round, table=first.table_index,
            bots=tuple(self.bot(b) for b in first.seats), bot_ids=first.seats,
            games=first.games, seed=first.seed, limits=dict(self.spec.limits),
            event_date=self.row.event_date, rules=self.spec.house_rules(),
            deals=table_deals(self.spec.deal_seeds, first.round, first.games),
            contest=self.spec.seed is None, insecure=self.insecure,
            kept_copies=True)
        if len(tables) > 1:
            task = replace(task, duplicate=seating_mode(self.spec.duplicate),
                           seatings=tuple((t.table_index, t.seats) for t in tables))
        recorded = frozenset(
            task.game_of(t.table_index, g) for t in tables for g in range(t.games)
            if game_id(self.spec.name, t.round, t.table_index, g) in self.recorded)
        return replace(task, recorded=recorded)

    def bot(self, bot_id: int) -> BotSpec:
        """The bot of ``bot_id``: an entrant, or a version an entry held before (finishing a
        deal it began before ``--continue``)."""
        if bot_id not in self.by_id:
            self.by_id[bot_id] = stored_bot(self.store, bot_id)
        return self.by_id[bot_id]

    def pending(self, tables: Sequence[TableRow]) -> list[TableTask]:
        """The tasks of the tables with games still to play; a finished table's bots are not
        looked for (a version whose files went since only blocks a table it did not finish)."""
        tasks = []
        for group in group_deals(tables, self.spec.duplicate):
            done = sum(game_id(self.spec.name, t.round, t.table_index, g) in self.recorded
                       for t in group for g in range(t.games))
            if done < sum(t.games for t in group):
                tasks.append(self.task(group))
        return tasks

    def play(self, tables: Sequence[TableRow], last: bool = False) -> None:
        """Play the tables' pending games (``last``: the run's last tables)."""
        tasks = self.pending(tables)
        if tasks:
            self.executor.run(tasks, self.on_message, last=last)

    def play_fixed(self) -> None:
        """Round-robin and gauntlet: all tables are known up front."""
        spec = self.spec
        rows = [
            TableRow(round=t.round, table_index=t.index,
                     seats=tuple(self.entrant_ids[e] for e in t.seats),
                     seed=match_seed(self.row.seed, t.round, t.deal), deal=t.deal,
                     games=spec.games_per_match)
            for t in fixed_tables(spec)
        ]
        if not self.store.tables(self.row.id):
            self.store.add_tables(self.row.id, rows)
        self.play(self.store.tables(self.row.id), last=True)

    def play_swiss(self) -> None:
        """Swiss: pair a round from the stored results of the complete earlier rounds."""
        spec = self.spec
        expected = 0  # the games of the rounds before r
        for r in range(1, spec.effective_rounds() + 1):
            self.progress(f"{spec.name} round {r}/{spec.effective_rounds()}")
            tables = self.store.tables(self.row.id, r)
            if not tables:
                earlier = [g for g in self.recorded.values() if g.round < r]
                if len(earlier) != expected:
                    raise StoreError(f"tournament '{spec.name}': round {r - 1} is incomplete "
                                     f"({len(earlier)} of {expected} games); "
                                     f"cannot pair round {r}")
                self.pair(r)
                tables = self.store.tables(self.row.id, r)
            self.play(tables, last=r == spec.effective_rounds())
            expected += sum(table.games for table in tables)

    def pair(self, r: int) -> None:
        """Pair Swiss round ``r`` from the stored games and byes of the rounds before it, and
        store its tables (in duplicate, each pairing's seatings) and byes."""
        spec = self.spec
        played, byes, rated, n = swiss_inputs(self.store, self.row, r)  # from the store
        if self.rating is None:
            self.rating = RatingTrack(n, **spec.rating.resolved())
        ratings = self.rating.ratings(rated)
        standings = spec_standings(n, played, byes, ratings, spec.to_json())
        paired_now = set(spec.round_field(r))  # withdrawn and late entrants sit it out
        standings = [s for s in standings if s.entrant in paired_now]
        # a duplicate table plays every seating, so which one comes first needs no lot
        seat_seed = (None if seating_mode(spec.duplicate) != "none"
                     else derive_seed(self.row.seed, "seats", r))
        joining = [i for i, bot in enumerate(spec.entrants) if spec.joined.get(bot.name) == r]
        paired = swiss.pair_round(standings, played, byes, spec.table_sizes[0],
                                  sizes_first=bool(spec.duplicate), seat_seed=seat_seed,
                                  newcomers=joining)
        rows: list[TableRow] = []
        index = 0
        for deal, seats in enumerate(paired.tables):
            for rotated in seat_orders(seats, spec.duplicate):
                rows.append(TableRow(
                    round=r, table_index=index,
                    seats=tuple(self.entrant_ids[e] for e in rotated),
                    seed=match_seed(self.row.seed, r, deal), deal=deal,
                    games=spec.games_per_match))
                index += 1
        per_game = spec.games_per_match * len(seat_orders((0, 1), spec.duplicate))
        bye_rows = [(r, self.entrant_ids[e], float(per_game)) for e in paired.byes]
        self.store.add_tables(self.row.id, rows, bye_rows)


def updated_line(name: str, before_run: bool) -> str:
    """What is said of the bot ``name`` updated by ``arena submit --update`` mid-tournament
    (``before_run``: before this run, which resumes it)."""
    when = "since the tournament began, before this run" if before_run else "during the run"
    return f"{name} was updated {when} (arena submit --update)"


def kept_copy_line(update: str, kept: str, state: str, resume: str) -> str:
    """The line on the version ``kept`` played on from its kept copy after ``update``
    (:func:`updated_line`), with how to enter the new version (``resume``: the command
    resuming the tournament) while the tournament, in ``state``, can still take it."""
    if state == "finished":
        return f"{update}: {kept} played on from its kept copy to the tournament's end"
    return (f"{update}: {kept} plays on from its kept copy; '{resume} --continue' afterwards "
            "enters the new version in the deals not begun")


def planned_parallelism(spec: TournamentSpec, entrants: int) -> int:
    """Tasks that can be in play at once in ``spec`` with nothing stored yet: a league's
    tables chosen together (docs/LEAGUE.md), a Swiss round's, or every table (a duplicate
    deal's seatings are one task)."""
    by_deal = seating_mode(spec.duplicate) != "none"
    if spec.format == "league":
        return spec.tables_at_once
    if spec.format == "swiss":
        if not by_deal:
            return tables_per_swiss_round(spec, entrants)
        return len(swiss.table_sizes(entrants, spec.table_sizes[0])[0])
    tables = fixed_tables(spec)
    return len({(t.round, t.deal) for t in tables}) if by_deal else len(tables)


def _game_row(row: dict[str, Any]) -> GameRow:
    return GameRow(id=row["id"], round=row["round"], table_index=row["table_index"],
                   game_index=row["game_index"], seed=row["seed"], seats=tuple(row["seats"]),
                   starting_seat=row["starting_seat"], placements=tuple(row["placements"]),
                   failures=list(row["failures"]), forfeits=dict(row["forfeits"]),
                   decisions=row["decisions"], duration_s=row["duration_s"])
