"""Running a tournament: plan the tables, play them in worker processes, store every game.

Who does what:

* The parent process plans (schedules, Swiss pairings from stored results), dispatches whole
  tables to an executor and is the **only writer** of the store: each game arrives as a
  message and is committed in its own transaction as soon as it arrives.
* The executor plays tables: :class:`arena.tournament.pool.LocalPool` (the default) in
  ``spawn``-ed worker processes, one table at a time each, so the bots of a match stay alive
  for all its games. Another backend (Ray, issue 6) implements
  :class:`~arena.tournament.pool.TableExecutor` around :func:`~arena.tournament.pool.play_table`.

Determinism: a table's games depend only on the table (its bots by seat, match seed, game
count, limits, event date), never on which worker plays it or when. Swiss round ``r`` is
paired only once every game of rounds ``< r`` is in the store, from the store. A table whose
games were partly recorded before an interruption is replayed *from its first game* (the
starting player of game ``g`` follows game ``g - 1``'s result and a bot may learn within a
match), and only its missing games are recorded; a replayed game that comes out differently
from its stored copy is reported (a non-deterministic bot) and the stored copy is kept.

Crash safety: ``kill -9`` of the parent loses only games in flight (the workers die with
it); a worker that dies has its table replayed on a fresh worker.

This layer never imports :mod:`arena.rating` (it sits below): the CLI prints the leaderboard
after a run.
"""

from __future__ import annotations

import datetime as dt
import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from arena.common.provenance import software
from arena.common.signalmask import signals_held
from arena.errors import ArenaError, BotError, ClusterError, StoreError
from arena.referee.seating import seat_orders, seating_mode
from arena.registry import resolve
from arena.tournament import schedule, swiss
from arena.tournament.pool import (
    DoneMessage,
    GameMessage,
    LocalPool,
    LogMessage,
    Message,
    TableExecutor,
    TableTask,
    sigint_blocked,
)
from arena.tournament.preflight import trial_starts
from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    RatedGame,
    Standing,
    compute_standings,
    conservative_ratings,
    game_points,
    spec_table_weight,
)
from arena.tournament.spec import TournamentSpec
from arena.tournament.status import resume_command
from arena.tournament.store import GameRow, Store, TableRow, TournamentRow, game_id

__all__ = [
    "RunSummary",
    "match_seed",
    "planned_games",
    "run_tournament",
    "swiss_standings",
]

def match_seed(spec_seed: int, round_no: int, deal: int) -> int:
    """The referee's match seed of a table: from (spec seed, round, deal) only. Rotations of
    one deal share it, so in duplicate mode they play the same cards (the referee derives
    game ``g``'s seed from it and ``g``)."""
    return schedule.derive_seed(spec_seed, "match", round_no, deal)


def _executor(backend: str, workers: int, address: str | None) -> TableExecutor:
    if backend == "local":
        return LocalPool(workers)
    if backend == "ray":
        try:
            from arena.tournament import ray_backend
        except ImportError as exc:
            raise ClusterError(f"the Ray backend is not available ({exc}); install it from the "
                               "checkout with pip install -e '.[ray]', or use --backend local"
                               ) from None
        executor: TableExecutor = ray_backend.RayExecutor(workers=workers, address=address)
        return executor
    raise ArenaError(f"unknown backend '{backend}' (choose local or ray)")


# ---------------------------------------------------------------------------- planning
def _planned_tables_per_round(spec: TournamentSpec, n: int) -> int:
    sizes, _ = swiss.table_sizes(n, spec.table_sizes[0])  # Swiss: one size (spec checks)
    return sum(len(schedule.seat_orders(range(k), spec.duplicate)) for k in sizes)


def planned_games(spec: TournamentSpec) -> int:
    """Games the tournament will play in total (known before the first Swiss round)."""
    if spec.format == "swiss":
        tables = spec.effective_rounds() * _planned_tables_per_round(spec, len(spec.entrants))
    else:
        tables = len(_fixed_tables(spec))
    return tables * spec.games_per_match


def _fixed_tables(spec: TournamentSpec) -> list[schedule.Table]:
    n = len(spec.entrants)
    return schedule.interleave([_fixed_tables_of(spec, n, k) for k in spec.table_sizes])


def _fixed_tables_of(spec: TournamentSpec, n: int, k: int) -> list[schedule.Table]:
    if spec.format == "round_robin":
        return schedule.round_robin(n, k, rounds=spec.effective_rounds(),
                                    duplicate=spec.duplicate, max_tables=spec.max_tables)
    if spec.format == "gauntlet":
        challengers = spec.challenger_indices
        opponents = [i for i in range(n) if i not in challengers]
        return schedule.gauntlet(challengers, opponents, k, rounds=spec.effective_rounds(),
                                 duplicate=spec.duplicate, max_tables=spec.max_tables)
    raise ValueError("Swiss tables are paired round by round")


def swiss_standings(
    store: Store, tournament: TournamentRow, *, before_round: int | None = None,
    games: Sequence[GameRow] | None = None,
) -> list[Standing]:
    """Standings of a stored tournament from its recorded games and byes."""
    played, byes, rated, n = _swiss_inputs(store, tournament, before_round, games)
    rating = tournament.spec.get("rating") or {}
    ratings = conservative_ratings(n, rated, **{k: float(v) for k, v in rating.items()})
    return compute_standings(n, played, byes, ratings)


def _swiss_inputs(
    store: Store, tournament: TournamentRow, before_round: int | None,
    games: Sequence[GameRow] | None = None,
) -> tuple[list[PlayedTable], list[Bye], list[RatedGame], int]:
    ids = store.entrant_ids(tournament.id)
    index = {bot: i for i, bot in enumerate(ids)}
    rows = list(games) if games is not None else store.games(tournament.id,
                                                             before_round=before_round)
    tables: dict[tuple[int, int], tuple[tuple[int, ...], list[Fraction]]] = {}
    rated: list[RatedGame] = []
    weight = spec_table_weight(tournament.spec)
    for game in rows:
        seats = tuple(index[b] for b in game.seats)
        factor = weight(len(seats))
        points = [p * factor for p in game_points(game.placements)]
        entry = tables.setdefault((game.round, game.table_index),
                                  (seats, [Fraction(0)] * len(seats)))
        for seat, pts in enumerate(points):
            entry[1][seat] += pts
        if len(game.forfeits) < len(seats):  # an all-forfeit game is not rated (RATINGS.md)
            rated.append(RatedGame(seats, game.placements))
    played = [PlayedTable(r, seats, tuple(pts)) for (r, _), (seats, pts) in sorted(tables.items())]
    byes = [Bye(r, index[bot], Fraction(points)) for r, bot, points in store.byes(tournament.id)
            if before_round is None or r < before_round]
    return played, byes, rated, len(ids)


# ---------------------------------------------------------------------------- progress
class _RateColumn(ProgressColumn):
    """Games per second over this run (not the resumed games)."""

    def __init__(self, started: float, baseline: int) -> None:
        super().__init__()
        self.started = started
        self.baseline = baseline

    def render(self, task: Task) -> Text:
        elapsed = time.monotonic() - self.started
        done = task.completed - self.baseline
        rate = done / elapsed if elapsed > 0 and done > 0 else 0.0
        return Text(f"{rate:.1f} games/s", style="progress.data.speed")


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

    @property
    def games_done(self) -> int:
        return self.games_before + self.games_recorded

    @property
    def games_per_s(self) -> float:
        return self.games_recorded / self.elapsed_s if self.elapsed_s > 0 else 0.0


class _Run:
    """One invocation of :func:`run_tournament` (state shared by planning and messages)."""

    def __init__(self, spec: TournamentSpec, store: Store, row: TournamentRow,
                 executor: TableExecutor, progress: Progress | None, console: Console) -> None:
        self.spec = spec
        self.store = store
        self.row = row
        self.executor = executor
        self.progress = progress
        self.console = console
        self.entrant_ids = store.entrant_ids(row.id)
        self.by_id = {bot_id: spec.entrants[i] for i, bot_id in enumerate(self.entrant_ids)}
        self.recorded = {g.id: g for g in store.games(row.id)}
        self.games_before = len(self.recorded)
        self.games_recorded = 0
        self.mismatches: list[str] = []
        self.warnings: list[str] = []
        self.task_id: Any = None

    # -------------------------------------------------------------- messages
    def on_message(self, message: Message) -> None:
        if isinstance(message, GameMessage):
            row = message.row
            stored = self.recorded.get(row["id"])
            if stored is not None:
                if tuple(row["placements"]) != stored.placements:
                    self.mismatches.append(
                        f"game {row['id']} replayed with placements {row['placements']}, "
                        f"recorded {list(stored.placements)} (a bot is not deterministic?); "
                        "kept the recorded result")
                return
            if message.record is None:
                return
            if self.store.record_game(self.row.id, row, message.record):
                self.recorded[row["id"]] = _game_row(row)
                self.games_recorded += 1
                if self.progress is not None:
                    self.progress.advance(self.task_id)
        elif isinstance(message, DoneMessage):
            r, t = message.key
            for table in (t, *message.also):
                self.store.finish_table(self.row.id, r, table, message.sandbox_level,
                                        message.warnings)
            for warning in message.warnings:
                self.warn(warning)
        elif isinstance(message, LogMessage):
            self.warn(message.text)
        else:
            raise ArenaError(message.message)

    def warn(self, text: str) -> None:
        """Print a warning once per run (every worker and table repeats the sandbox's)."""
        if text not in self.warnings:
            self.warnings.append(text)
            self.console.print(f"[yellow]warning:[/] {text}", highlight=False)

    # -------------------------------------------------------------- tables
    def parallelism(self) -> int:
        """Tasks that can be in play at once: a Swiss round's, or every pending one (a
        duplicate deal's seatings are one task)."""
        by_deal = seating_mode(self.spec.duplicate) != "none"
        if self.spec.format == "swiss":
            if not by_deal:
                return _planned_tables_per_round(self.spec, len(self.entrant_ids))
            return len(swiss.table_sizes(len(self.entrant_ids), self.spec.table_sizes[0])[0])
        stored = self.store.tables(self.row.id)
        if not stored:
            tables = _fixed_tables(self.spec)
            return len({(t.round, t.deal) for t in tables}) if by_deal else len(tables)
        return len(self.pending(stored))

    def task(self, tables: Sequence[TableRow]) -> TableTask:
        """One table's task, or in duplicate mode one deal's: its seatings in the order
        :func:`~arena.referee.seating.seat_orders` gives them, played as one match."""
        first = tables[0]
        task = TableTask(
            tournament=self.spec.name, round=first.round, table=first.table_index,
            bots=tuple(self.by_id[b] for b in first.seats), bot_ids=first.seats,
            games=first.games, seed=first.seed, limits=dict(self.spec.limits),
            event_date=self.row.event_date)
        if len(tables) > 1:
            task = replace(task, duplicate=seating_mode(self.spec.duplicate),
                           seatings=tuple((t.table_index, t.seats) for t in tables))
        recorded = frozenset(
            task.game_of(t.table_index, g) for t in tables for g in range(t.games)
            if game_id(self.spec.name, t.round, t.table_index, g) in self.recorded)
        return replace(task, recorded=recorded)

    def pending(self, tables: Sequence[TableRow]) -> list[TableTask]:
        tasks = []
        for group in _deals(tables, self.spec.duplicate):
            task = self.task(group)
            if len(task.recorded) < sum(t.games for t in group):
                tasks.append(task)
        return tasks

    def play(self, tables: Sequence[TableRow]) -> None:
        tasks = self.pending(tables)
        if tasks:
            self.executor.run(tasks, self.on_message)

    def fixed(self) -> None:
        """Round-robin and gauntlet: all tables are known up front."""
        spec = self.spec
        rows = [
            TableRow(round=t.round, table_index=t.index,
                     seats=tuple(self.entrant_ids[e] for e in t.seats),
                     seed=match_seed(self.row.seed, t.round, t.deal), deal=t.deal,
                     games=spec.games_per_match)
            for t in _fixed_tables(spec)
        ]
        if not self.store.tables(self.row.id):
            self.store.add_tables(self.row.id, rows)
        self.play(self.store.tables(self.row.id))

    def swiss(self) -> None:
        """Swiss: pair a round from the stored results of the complete earlier rounds."""
        spec = self.spec
        per_round = _planned_tables_per_round(spec, len(self.entrant_ids)) * spec.games_per_match
        for r in range(1, spec.effective_rounds() + 1):
            if self.progress is not None:
                self.progress.update(self.task_id, description=f"{spec.name} round {r}/"
                                     f"{spec.effective_rounds()}")
            tables = self.store.tables(self.row.id, r)
            if not tables:
                earlier = [g for g in self.recorded.values() if g.round < r]
                if len(earlier) != (r - 1) * per_round:
                    raise StoreError(f"tournament '{spec.name}': round {r - 1} is incomplete "
                                     f"({len(earlier)} of {(r - 1) * per_round} games); "
                                     f"cannot pair round {r}")
                self.pair(r)
                tables = self.store.tables(self.row.id, r)
            self.play(tables)

    def pair(self, r: int) -> None:
        spec = self.spec
        played, byes, rated, n = _swiss_inputs(self.store, self.row, r)  # from the store
        ratings = conservative_ratings(n, rated, **spec.rating.resolved())
        standings = compute_standings(n, played, byes, ratings)
        paired = swiss.pair_round(standings, played, byes, spec.table_sizes[0],
                                  sizes_first=bool(spec.duplicate))
        rows: list[TableRow] = []
        index = 0
        for deal, seats in enumerate(paired.tables):
            for rotated in schedule.seat_orders(seats, spec.duplicate):
                rows.append(TableRow(
                    round=r, table_index=index,
                    seats=tuple(self.entrant_ids[e] for e in rotated),
                    seed=match_seed(self.row.seed, r, deal), deal=deal,
                    games=spec.games_per_match))
                index += 1
        per_game = spec.games_per_match * len(schedule.seat_orders((0, 1), spec.duplicate))
        bye_rows = [(r, self.entrant_ids[e], float(per_game)) for e in paired.byes]
        self.store.add_tables(self.row.id, rows, bye_rows)


def _deals(tables: Sequence[TableRow], duplicate: bool | str) -> list[list[TableRow]]:
    """The tables grouped by deal in duplicate mode (each group one match: its later seatings
    replay the first one's boards), else one table a group. A group whose seatings are not
    the spec's (a database from before the grouping, say) is played table by table."""
    mode = seating_mode(duplicate)
    if mode == "none":
        return [[t] for t in tables]
    by_deal: dict[tuple[int, int], list[TableRow]] = {}
    for table in tables:
        by_deal.setdefault((table.round, table.deal), []).append(table)
    groups: list[list[TableRow]] = []
    for group in by_deal.values():
        group.sort(key=lambda t: t.table_index)
        first = group[0]
        orders = [tuple(first.seats.index(b) if b in first.seats else -1 for b in t.seats)
                  for t in group]
        if (orders == seat_orders(range(len(first.seats)), mode)
                and len({(t.seed, t.games) for t in group}) == 1):
            groups.append(group)
        else:
            groups.extend([t] for t in group)
    return groups


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


def _open_tournament(store: Store, spec: TournamentSpec, fresh: bool) -> TournamentRow:
    """The stored tournament for ``spec`` (created if new); a different spec is refused."""
    row = store.tournament(spec.name)
    if row is not None and fresh:
        store.delete_tournament(row.id)
        row = None
    spec_hash = spec.spec_hash()
    if row is not None:
        if row.spec_hash != spec_hash:
            old = row.spec.get("canonical") or {}
            new = spec.canonical()
            changed = [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]
            what = f": {', '.join(changed)} changed" if changed else ""
            if changed == ["entrants"]:
                what += _entrants_change(store, list(old.get("entrants", [])), spec)
            if "rating" in changed:
                what += _rating_change(old.get("rating") or {}, new["rating"], spec)
            raise StoreError(
                f"tournament '{spec.name}' exists with a different spec (hash {row.spec_hash}, "
                f"this spec {spec_hash}{what}); use --fresh to start anew, or rename it")
        path = str(spec.source.resolve()) if spec.source is not None else None
        if path and path != row.spec_path:
            store.set_spec_path(row.id, path)
        return row
    data = spec.to_json()
    data["canonical"] = spec.canonical()
    data["software"] = software()  # what judged it (arena.common.provenance)
    return store.create_tournament(
        name=spec.name, spec_hash=spec_hash, spec_json=data, format=spec.format,
        players_per_game=max(spec.table_sizes),
        seed=spec.seed if spec.seed is not None else secrets.randbits(63),
        event_date=spec.event_date or dt.date.today(), rounds=spec.effective_rounds(),
        games_planned=planned_games(spec),
        spec_path=str(spec.source.resolve()) if spec.source is not None else None,
        bots=[(b.name, b.version, str(b.path),
               {**b.metadata, **({"options": b.options} if b.options else {})})
              for b in spec.entrants])


def _entrants_change(store: Store, old: list[str], spec: TournamentSpec) -> str:
    """How the entrants differ, for people: bots gone and come, a new version, other options
    (shown as the options, not their digests), or the same bots in another order."""
    new = [b.key for b in spec.entrants]
    if sorted(old) == sorted(new):
        return " (the same bots in another order: the order sets the seats and the schedule)"
    labels = store.bot_labels()
    old_options = {labels[i]: o for i, o in store.bot_options().items() if i in labels}
    new_options = {b.key: b.options for b in spec.entrants}
    gone = [k for k in old if k not in new]
    came = [k for k in new if k not in old]
    changes = []
    for key in list(gone):
        name, files = key.split("@")[0], key.split("@")[1].split("+")[0]
        twin = next((k for k in came if k.split("@")[0] == name), None)
        if twin is None:
            continue
        gone.remove(key)
        came.remove(twin)
        if twin.split("@")[1].split("+")[0] == files:
            changes.append(f"{name} options {_options_text(old_options.get(key, {}))} -> "
                           f"{_options_text(new_options.get(twin, {}))}")
        else:
            changes.append(f"{key} -> {twin}" + _old_version_hint(key))
    changes += [f"{k} left" for k in gone] + [f"{k} joined" for k in came]
    old_names, new_names = ([k.split("@")[0] for k in keys] for keys in (old, new))
    stayed = set(old_names) & set(new_names)
    if [n for n in old_names if n in stayed] != [n for n in new_names if n in stayed]:
        changes.append("the others in another order")
    return f" ({'; '.join(changes)})"


def _old_version_hint(key: str) -> str:
    """How to finish a tournament with the version it started with, when that version can
    still be found (``submit --update`` keeps the versions it replaces)."""
    pinned = key.split("+", 1)[0]
    try:
        resolve(pinned)
    except ArenaError:
        return ""
    return f"; to go on with the version it started with, enter it as {pinned}"


def _options_text(options: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in sorted(options.items())) + "}"


def _rating_change(old: dict[str, Any], new: dict[str, Any], spec: TournamentSpec) -> str:
    """Which rating parameters differ; a hint when only the default tau moved (it was
    ``sigma / 100`` before bots were rated without drift)."""
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]

    def show(value: Any) -> str:
        return f"{value:.4g}" if isinstance(value, int | float) else repr(value)

    text = " (" + ", ".join(f"{k} {show(old.get(k))} -> {show(new.get(k))}" for k in keys) + ")"
    if keys == ["tau"] and spec.rating.tau is None:
        text += (f"; tau now defaults to 0 (bots do not drift): set rating.tau: "
                 f"{old['tau']!r} in the spec to resume with the old value")
    return text


def resume_hint(spec: TournamentSpec, db: Path) -> str:
    """The command resuming ``spec`` into ``db`` (``--db`` when not the spec's own)."""
    own = db.resolve() == Path(spec.results).resolve()
    return resume_command(str(spec.source) if spec.source is not None else None,
                          None if own else db)


def _trial_warnings(spec: TournamentSpec, parallel: int, *, resuming: bool) -> list[str]:
    """Start every entry once (:mod:`~arena.tournament.preflight`). A new tournament with an
    entry that does not start is refused (:class:`BotError`; nothing is stored yet, and
    ``--no-trial`` plays it anyway, that entry forfeiting); a resumed one goes on, a warning
    per such entry; fewer than two starting is refused either way."""
    trials = trial_starts(spec.entrants, spec.limits, parallel=parallel)
    failed = [t for t in trials if t.failure is not None]
    reasons = "; ".join(f"{t.label}: {t.failure}" for t in failed)
    if len(trials) - len(failed) < 2:
        raise BotError(f"no game can be played: {len(trials) - len(failed)} of {len(trials)} "
                       f"entries start in a trial run; {reasons}")
    if failed and not resuming:
        raise BotError(f"{len(failed)} of {len(trials)} entries do not start (a trial run "
                       f"before the games): {reasons}. Fix them or take them out of the spec; "
                       "--no-trial plays anyway, each of their games a forfeit")
    return [f"{t.label} does not start (a trial run before the games): {t.failure}; each of "
            "its games from here on will be a forfeit" for t in failed]


def _stored_state(db_path: Path, name: str) -> str | None:
    """The state of the stored tournament ``name``, None when there is none (or no database
    yet: it is created only once the trial start has passed)."""
    if not db_path.is_file():
        return None
    try:
        with Store(db_path, create=False, read_only=True) as store:
            row = store.tournament(name)
    except (ArenaError, sqlite3.Error):  # no schema yet (a run killed at once), or not ours:
        return None  # opening it for the run sets it up or says what is wrong
    return None if row is None else row.state


def _sandbox_warnings() -> list[str]:
    """The sandbox's warnings, logged once by this process's probe (the trial start): the
    workers report them again, and the run prints each warning once."""
    from arena.sandbox import probe

    return list(probe().warnings)


def run_tournament(
    spec: TournamentSpec,
    workers: int | None = None,
    fresh: bool = False,
    progress: bool = True,
    *,
    db: str | Path | None = None,
    backend: str | None = None,
    address: str | None = None,
    console: Console | None = None,
    trial: bool = True,
) -> RunSummary:
    """Play (or resume) the tournament ``spec`` and record every game in the store.

    ``workers`` overrides the spec's (default: every core); ``fresh`` drops a stored
    tournament of the same name first; ``db`` overrides the spec's ``results`` path. With
    ``trial``, every entry is started once before any game, before anything is stored
    (:func:`_trial_warnings`).
    Ctrl-C stops the workers (their bots are reaped), prints how to resume, and re-raises.
    """
    console = console or Console(stderr=True, soft_wrap=True)
    db_path = Path(db) if db is not None else Path(spec.results)
    n_workers = spec.effective_workers(workers)
    started = time.monotonic()
    stored = None if fresh else _stored_state(db_path, spec.name)
    early: list[str] = []
    if trial and stored != "finished":
        early = _trial_warnings(spec, n_workers, resuming=stored is not None)
        for text in early:
            console.print(f"[yellow]warning:[/] {text}", highlight=False)
        early += _sandbox_warnings()  # said by the trial's probe already
    is_new = not db_path.exists()
    with Store(db_path) as store, store.lock(spec.name):
        if is_new:  # a typo in a path would otherwise scatter results unseen
            console.print(f"New results database: {db_path}", highlight=False)
        old = store.tournament(spec.name)
        if fresh and old is not None:
            count = store.count_games(old.id)
            console.print(f"--fresh: dropping the stored tournament '{spec.name}' ({count} "
                          f"game{'' if count == 1 else 's'} recorded)", highlight=False)
        row = _open_tournament(store, spec, fresh)
        executor = _executor(backend or spec.backend, n_workers, address)
        bar: Progress | None = None
        if progress:
            bar = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("games"), _RateColumn(started, 0), TextColumn("elapsed"),
                TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                console=console, transient=False)
        run = _Run(spec, store, row, executor, bar, console)
        run.warnings += early
        state = row.state
        if state != "finished" and (short := spec.short_seed_warning()) is not None:
            run.warn(short)
        try:
            if state != "finished":
                state = "running"
                store.set_state(row.id, state)
            executor.start(run.parallelism())
            if bar is not None:
                for column in bar.columns:
                    if isinstance(column, _RateColumn):
                        column.baseline = run.games_before
                run.task_id = bar.add_task(spec.name, total=row.games_planned,
                                           completed=run.games_before)
                with sigint_blocked():  # the bar's refresh thread never takes a Ctrl-C
                    bar.start()
            if spec.format == "swiss":
                run.swiss()
            else:
                run.fixed()
            if state != "finished" and store.count_games(row.id) >= row.games_planned:
                state = "finished"
                store.set_state(row.id, state)
        except KeyboardInterrupt:
            # A second Ctrl-C (or a SIGTERM) waits until the bots are reaped and the state
            # is saved: cut short, the run looked killed and its bots could outlive it.
            with signals_held():
                if bar is not None:
                    bar.stop()
                    bar = None
                store.set_state(row.id, "interrupted")
                executor.close(kill=True)
                done = store.count_games(row.id)
                console.print(f"Stopped: {done}/{row.games_planned} games of '{spec.name}' "
                              f"are recorded in {db_path}. Resume with: "
                              f"{resume_hint(spec, db_path)}", highlight=False)
            raise
        except BaseException:
            executor.close(kill=True)
            raise
        finally:
            if bar is not None:
                bar.stop()
        executor.close()
        for line in mismatch_lines(run.mismatches):
            console.print(f"[yellow]warning:[/] {line}", highlight=False)
        return RunSummary(name=spec.name, db=db_path, games_planned=row.games_planned,
                          games_before=run.games_before, games_recorded=run.games_recorded,
                          elapsed_s=time.monotonic() - started, state=state,
                          mismatches=run.mismatches, warnings=run.warnings)
