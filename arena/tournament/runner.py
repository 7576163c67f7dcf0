"""Running a tournament: plan the tables, play them in worker processes, store every game.

Who does what:

* The parent process plans (schedules, Swiss pairings from stored results), dispatches whole
  tables to an executor and is the **only writer** of the store: each game arrives as a
  message and is committed in its own transaction as soon as it arrives.
* The executor plays tables: :class:`arena.tournament.pool.LocalPool` (the default) in
  ``spawn``-ed worker processes, one table at a time each, so the bots of a match stay alive
  for all its games. Another backend (Ray) implements :class:`~arena.tournament.pool.TableExecutor`
  around :func:`~arena.tournament.worker.play_table`.

Determinism: a table's games depend only on the table (its bots by seat, match seed, game
count, limits, event date), never on which worker plays it or when. Swiss round ``r`` is
paired only once every game of rounds ``< r`` is in the store, from the store. A table whose
games were partly recorded before an interruption is replayed *from its first game* (the
starting player of game ``g`` follows game ``g - 1``'s result and a bot may learn within a
match), and only its missing games are recorded; a replayed game that comes out differently
from its stored copy is reported (a non-deterministic bot) and the stored copy is kept.

Crash safety: ``kill -9`` of the parent loses only games in flight (the workers die with
it); a worker that dies has its table replayed on a fresh worker.

Reporting: the run prints nothing; it hands what happens (progress, warnings, an interruption)
as :mod:`arena.tournament.events` to the ``report`` callback, which the CLI presents.

This layer never imports :mod:`arena.rating` (it sits below): the CLI prints the leaderboard
after a run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.common.plural import counted
from arena.common.signalmask import signals_held
from arena.errors import ArenaError, ClusterError, StoreError
from arena.referee.seating import seat_orders, seating_mode
from arena.registry import BotSpec
from arena.sandbox import SandboxReport, probe
from arena.tournament import swiss
from arena.tournament.dealbook import table_deals
from arena.tournament.editions import (
    current_edition,
    refuse_if_running,
    retired_entries,
    stored_bot,
)
from arena.tournament.events import (
    DatabaseCreated,
    Progress,
    ProgressEnded,
    Report,
    RunStopped,
    RunWarning,
    TournamentDropped,
    ignore,
)
from arena.tournament.league import League, Vetter
from arena.tournament.opening import open_tournament
from arena.tournament.planning import fixed_tables, group_deals, tables_per_swiss_round
from arena.tournament.pool import (
    BoardStart,
    DoneMessage,
    GameBatch,
    GameMessage,
    LocalPool,
    LogMessage,
    Message,
    TableExecutor,
    TableTask,
)
from arena.tournament.preflight import run_trial, trial_entrants
from arena.tournament.schedule import match_seed
from arena.tournament.scoring import RatingTrack, compute_standings
from arena.tournament.spec import TournamentSpec
from arena.tournament.standings import swiss_inputs
from arena.tournament.status import resume_command
from arena.tournament.store import GameRow, Store, TableRow, TournamentRow, game_id, peek

__all__ = [
    "RunSummary",
    "mismatch_lines",
    "resume_hint",
    "run_tournament",
]


def _executor(backend: str, workers: int, address: str | None,
              reuse_bots: bool = True, pin_workers: bool = False) -> TableExecutor:
    if backend == "local":
        try:  # the workers take this process's probe rather than each probing again
            sandbox: SandboxReport | None = probe()
        except (ArenaError, ValueError):
            sandbox = None  # each worker probes, and its first table says what is wrong
        return LocalPool(workers, reuse_bots=reuse_bots, sandbox=sandbox,
                         pin_workers=pin_workers)
    if backend == "ray":
        try:  # imported only here: Ray is an optional extra ('.[ray]'), heavy to import
            from arena.tournament.ray_executor import RayExecutor
        except ImportError as exc:
            raise ClusterError(f"the Ray backend is not available ({exc}); install it from the "
                               "checkout with pip install -e '.[ray]', or use --backend local"
                               ) from None
        return RayExecutor(workers=workers, address=address)
    raise ArenaError(f"unknown backend '{backend}' (choose local or ray)")


@dataclass
class RunSummary:
    """What a run did (the CLI prints it; tests and the bench read it)."""

    name: str
    db: Path
    games_planned: int
    games_before: int
    games_recorded: int
    elapsed_s: float
    state: str
    mismatches: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Bot processes the run's tables started (restarts included; not the trial start).
    bot_starts: int = 0
    #: CPU seconds the workers' referees spent themselves (not their bots), as they told.
    referee_cpu_s: float = 0.0

    @property
    def games_done(self) -> int:
        return self.games_before + self.games_recorded

    @property
    def games_per_s(self) -> float:
        return self.games_recorded / self.elapsed_s if self.elapsed_s > 0 else 0.0


class _Run:
    """One invocation of :func:`run_tournament` (state shared by planning and messages)."""

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
        self.mismatches: list[str] = []
        self.warnings: list[str] = []
        self.title = spec.name
        self.progressing = False

    # -------------------------------------------------------------- reports
    def progress(self, title: str | None = None) -> None:
        """Report where the games stand (``title``: what is being played, from now on)."""
        self.title = title or self.title
        self.progressing = True
        self.report(Progress(self.title, self.games_before + self.games_recorded,
                             self.row.games_planned, self.games_before, self.started))

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
            for table in (t, *message.also):
                self.store.finish_table(self.row.id, r, table, message.sandbox_level,
                                        message.warnings)
            for warning in message.warnings:
                self.warn(warning)
        elif isinstance(message, LogMessage):
            self.warn(message.text)
        elif not isinstance(message, BoardStart):  # a board's start is the workers' affair
            raise ArenaError(message.message)

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
        return _planned_parallelism(self.spec, len(self.entrant_ids))

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
            contest=self.spec.seed is None, insecure=self.insecure)
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
        per_round = tables_per_swiss_round(spec, len(self.entrant_ids)) * spec.games_per_match
        for r in range(1, spec.effective_rounds() + 1):
            self.progress(f"{spec.name} round {r}/{spec.effective_rounds()}")
            tables = self.store.tables(self.row.id, r)
            if not tables:
                earlier = [g for g in self.recorded.values() if g.round < r]
                if len(earlier) != (r - 1) * per_round:
                    raise StoreError(f"tournament '{spec.name}': round {r - 1} is incomplete "
                                     f"({len(earlier)} of {(r - 1) * per_round} games); "
                                     f"cannot pair round {r}")
                self.pair(r)
                tables = self.store.tables(self.row.id, r)
            self.play(tables, last=r == spec.effective_rounds())

    def pair(self, r: int) -> None:
        """Pair Swiss round ``r`` from the stored games and byes of the rounds before it, and
        store its tables (in duplicate, each pairing's seatings) and byes."""
        spec = self.spec
        played, byes, rated, n = swiss_inputs(self.store, self.row, r)  # from the store
        if self.rating is None:
            self.rating = RatingTrack(n, **spec.rating.resolved())
        ratings = self.rating.ratings(rated)
        standings = compute_standings(n, played, byes, ratings)
        paired = swiss.pair_round(standings, played, byes, spec.table_sizes[0],
                                  sizes_first=bool(spec.duplicate))
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


def _planned_parallelism(spec: TournamentSpec, entrants: int) -> int:
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


#: Replayed games that came out differently, shown one by one before they are counted.
_MISMATCHES_SHOWN = 5


def mismatch_lines(mismatches: list[str], shown: int = _MISMATCHES_SHOWN) -> list[str]:
    """The warnings about replayed games that came out differently: the first ``shown``, then
    one line counting the rest by table (one non-deterministic bot can differ in every game
    of a long table)."""
    lines = mismatches[:shown]
    rest = mismatches[shown:]
    if rest:
        tables = list(dict.fromkeys(m.split()[1].rsplit("/", 1)[0] for m in mismatches))
        lines.append(f"... and {len(rest)} more replayed games came out differently, in "
                     f"{len(tables)} table(s): {', '.join(tables[:5])}"
                     + (", ..." if len(tables) > 5 else ""))
    return lines


def resume_hint(spec: TournamentSpec, db: Path) -> str:
    """The command resuming ``spec`` into ``db`` (``--db`` when not the spec's own)."""
    own = db.resolve() == Path(spec.results).resolve()
    return resume_command(str(spec.source) if spec.source is not None else None,
                          None if own else db, spec.overrides)


def _stored_state(db_path: Path, name: str) -> str | None:
    """The state of the stored tournament ``name``, None when there is none (or no database
    yet: it is created only once the trial start has passed)."""
    row = peek(db_path, lambda store: store.tournament(name))
    return None if row is None else row.state


def _pin_warnings(executor: TableExecutor, workers: int) -> list[str]:
    """What keeps ``pin_workers`` from giving each worker a CPU of its own, if anything."""
    if not isinstance(executor, LocalPool):
        return ["pin_workers: ignored on the Ray backend (Ray places the tables on its nodes)"]
    if not executor.cores:
        return ["pin_workers: this system cannot pin a process to a CPU; the workers run "
                "unpinned"]
    if workers > len(executor.cores):
        cpus = counted(len(executor.cores), "CPU")
        return [f"pin_workers: {counted(workers, 'worker')} on {cpus}: some workers share a CPU"]
    return []


def _sandbox_warnings() -> list[str]:
    """The sandbox's warnings, as this process's probe (the trial start) found them: said once
    in the run's header; the workers report them again, and the run reports each once."""
    return list(probe().warnings)


def _before_games(spec: TournamentSpec, executor: TableExecutor, db_path: Path,
                  stored: str | None, *, backend: str, trial: bool, pin: bool,
                  workers: int) -> list[str]:
    """Start the workers (or join Ray) and the trial start, unless the stored tournament (in
    state ``stored``) is finished; the warnings to say before the games."""
    if stored == "finished":
        return []
    # the workers start while the trial runs; a cluster that cannot be joined fails here,
    # before a tournament is stored that nothing could play
    executor.start(_planned_parallelism(spec, len(spec.entrants)))
    early: list[str] = []
    if trial:
        resuming = stored is not None
        early = run_trial(spec, trial_entrants(spec, db_path, resuming), workers,
                          resuming=resuming)
        early += _sandbox_warnings()
    if pin:
        early += _pin_warnings(executor, workers)
    return early


def run_tournament(
    spec: TournamentSpec,
    workers: int | None = None,
    fresh: bool = False,
    *,
    db: str | Path | None = None,
    backend: str | None = None,
    address: str | None = None,
    trial: bool = True,
    reuse_bots: bool | None = None,
    pin_workers: bool | None = None,
    report: Report = ignore,
    carry_on: bool = False,
    new_edition: bool = False,
    vetter: Vetter | None = None,
    while_closing: Callable[[RunSummary], object] | None = None,
    insecure: bool = False,
) -> RunSummary:
    """Play (or resume) the tournament ``spec`` and record every game in the store.

    Where and how: ``workers`` overrides the spec's (default: every core); ``fresh`` drops a
    stored tournament of the same name first; ``db`` overrides the spec's ``results`` path.
    With ``reuse_bots`` (default: the spec's, on; the local backend), a worker keeps the
    processes of bots that offer a rematch from one table to the next
    (:mod:`arena.referee.keeper`; the games are the same either way). With ``pin_workers``
    (default: the spec's, off; the local backend), each worker and its bots run on one CPU of
    their own (:class:`~arena.tournament.pool.LocalPool`).

    Before the games: with ``trial``, every entry is started once, before anything is stored
    (:func:`~arena.tournament.preflight.run_trial`). A spec whose entrants are new versions of
    the stored tournament's goes on with them when ``carry_on`` (``--continue``), or starts a
    new edition with ``new_edition`` (:mod:`~arena.tournament.editions`). A league
    (:mod:`~arena.tournament.league`) vets the bots that come while it runs with ``vetter``
    (default: the compliance check and a trial start). A contest's table (the spec gives no
    seed) is refused by a Ray node whose bots would run without bubblewrap or Landlock,
    unless ``insecure`` (the CLI's ``--insecure``, which also lets the driver run it).

    While and after: what happens goes to ``report`` (:mod:`arena.tournament.events`). Once
    the games are played, ``while_closing`` gets the summary while the workers wind down (the
    CLI rates the games meanwhile); its ``elapsed_s`` is set after, once they have. Ctrl-C
    stops the workers (their bots are reaped), reports how to resume, and re-raises.
    """
    db_path = Path(db) if db is not None else Path(spec.results)
    n_workers = spec.effective_workers(workers)
    started = time.monotonic()
    refuse_if_running(db_path, spec, new_edition)
    stored = None if fresh else _stored_state(db_path, spec.name)
    backend = backend or spec.backend
    pin = spec.pin_workers if pin_workers is None else pin_workers
    executor = _executor(backend, n_workers, address,
                         spec.reuse_bots if reuse_bots is None else reuse_bots, pin)
    try:
        early = _before_games(spec, executor, db_path, stored, backend=backend, trial=trial,
                              pin=pin, workers=n_workers)
        for text in early:
            report(RunWarning(text))
        is_new = not db_path.exists()
        with Store(db_path) as store:
            spec, edition = current_edition(store, spec, new_edition)
            with store.lock(spec.name):
                summary = _run_locked(spec, store, edition, is_new=is_new, fresh=fresh,
                                      carry_on=carry_on, vetter=vetter, executor=executor,
                                      early=early, report=report, started=started,
                                      insecure=insecure)
        executor.stop()  # the workers end their bots meanwhile
        if while_closing is not None:  # after the lock: the run shows as over
            while_closing(summary)
    except BaseException:
        executor.close(kill=True)
        raise
    executor.close()
    summary.elapsed_s = time.monotonic() - started
    for line in mismatch_lines(summary.mismatches):
        report(RunWarning(line))
    return summary


def _run_locked(spec: TournamentSpec, store: Store, edition: dict[str, Any] | None, *,
                is_new: bool, fresh: bool, carry_on: bool, vetter: Vetter | None,
                executor: TableExecutor, early: list[str], report: Report,
                started: float, insecure: bool = False) -> RunSummary:
    """The rest of :func:`run_tournament`, holding the tournament's lock, up to the last
    game (the caller stops the executor and sets ``elapsed_s``)."""
    db_path = store.path
    try:
        if is_new:  # a typo in a path would otherwise scatter results unseen
            report(DatabaseCreated(db_path))
        old = store.tournament(spec.name)
        if fresh and old is not None:
            report(TournamentDropped(spec.name, store.count_games(old.id)))
        row = open_tournament(store, spec, fresh, carry_on=carry_on, edition=edition)
        run = _Run(spec, store, row, executor, report, started, insecure)
    except BaseException:
        executor.close(kill=True)
        raise
    run.warnings += early
    state = _play(run, db_path, vetter)
    return RunSummary(name=spec.name, db=db_path, games_planned=row.games_planned,
                      games_before=run.games_before, games_recorded=run.games_recorded,
                      elapsed_s=0.0, state=state, mismatches=run.mismatches,
                      warnings=run.warnings, bot_starts=run.bot_starts,
                      referee_cpu_s=run.referee_cpu_s)


def _play(run: _Run, db_path: Path, vetter: Vetter | None = None) -> str:
    """Play what is left of the run's tournament; its state afterwards."""
    spec, store, row, executor = run.spec, run.store, run.row, run.executor
    state = row.state
    if state != "finished" and (short := spec.exposure_warning()) is not None:
        run.warn(short)
    try:
        if state != "finished" or spec.format == "league":
            state = "running"
            store.set_state(row.id, state)
        executor.start(run.parallelism())
        run.progress()
        if spec.format == "league":
            state = League(spec, store, row, run.play, run.by_id, vetter=vetter,
                           warn=run.warn).run()
            store.set_state(row.id, state)
        elif spec.format == "swiss":
            run.play_swiss()
        else:
            run.play_fixed()
        if state == "running" and store.count_games(row.id) >= row.games_planned:
            state = "finished"
            store.set_state(row.id, state)
    except KeyboardInterrupt:
        # A second Ctrl-C (or a SIGTERM) waits until the bots are reaped and the state
        # is saved: cut short, the run looked killed and its bots could outlive it.
        with signals_held():
            run.end_progress()
            store.set_state(row.id, "interrupted")
            executor.close(kill=True)
            run.report(RunStopped(spec.name, store.count_games(row.id), row.games_planned,
                                  db_path, resume_hint(spec, db_path)))
        raise
    except BaseException:
        executor.close(kill=True)
        raise
    finally:
        run.end_progress()
    return state
