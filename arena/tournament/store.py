"""The results database: SQLite in WAL mode, written by one process, one transaction per
message of games (the games a worker finished together, :meth:`Store.record_games`).

Schema: docs/ARCHITECTURE.md ("The store"), plus what the runner needs to resume (columns
marked "added" there). Game records are zlib-compressed JSON in the ``records`` table and are
committed in the *same* transaction as their ``games`` row, so a ``kill -9`` at any instant
leaves either both or neither: there is no separate file whose tail could be torn, and no
record can exist without its game or the other way round. They are compressed and read back
in :mod:`~arena.tournament.game_records`.

Durability: ``synchronous=NORMAL`` in WAL mode survives the death of the process at any point
(committed pages are in the WAL, which the OS keeps); only an operating-system crash or power
cut could lose the last few committed games, never corrupt the database.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena.errors import ArenaError, StoreError
from arena.tournament.dbfiles import (
    SCHEMA_VERSION,
    Attempt,
    NewDirectories,
    newer_schema,
    no_database,
    place_new_database,
    read_connection,
    remove_abandoned_new,
    table_names,
    unknown_tournament,
    unreadable,
    unwritable,
    write_hint,
)
from arena.tournament.runlock import run_lock, runner_pid
from arena.tournament.secrecy import make_private, private_directory

log = logging.getLogger(__name__)
_T = TypeVar("_T")

__all__ = ["BUSY_TIMEOUT_S", "DEFAULT_RESULTS", "SCHEMA", "GameRow", "Store", "TableRow",
           "TournamentRow", "game_id", "match_id", "peek", "shown_state", "stored_bot_id",
           "stored_metadata", "stored_whole"]

#: Where results go unless a spec's ``results`` or ``--db`` says otherwise.
DEFAULT_RESULTS = "results/arena.db"
#: How long a connection waits for another's lock before it fails (the runner commits one game
#: per transaction; readers such as ``arena status`` wait for it).
BUSY_TIMEOUT_S = 30.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments(
    id INTEGER PRIMARY KEY, name TEXT UNIQUE, spec_hash TEXT, spec_json TEXT,
    format TEXT, players_per_game INTEGER, seed INTEGER, state TEXT,
    created_at TEXT, finished_at TEXT,
    event_date TEXT, rounds INTEGER, games_planned INTEGER, spec_path TEXT);
CREATE TABLE IF NOT EXISTS bots(
    id INTEGER PRIMARY KEY, name TEXT, version TEXT, path TEXT, metadata_json TEXT,
    UNIQUE(name, version));
CREATE TABLE IF NOT EXISTS tournament_bots(
    tournament_id INTEGER, bot_id INTEGER, entry_index INTEGER,
    PRIMARY KEY (tournament_id, entry_index));
CREATE TABLE IF NOT EXISTS tables(
    tournament_id INTEGER, round INTEGER, table_index INTEGER, seats_json TEXT, seed INTEGER,
    sandbox_level TEXT, deal INTEGER, games INTEGER, warnings_json TEXT, finished_at TEXT,
    PRIMARY KEY (tournament_id, round, table_index));
CREATE TABLE IF NOT EXISTS games(
    id TEXT PRIMARY KEY,
    tournament_id INTEGER, round INTEGER, table_index INTEGER, game_index INTEGER,
    seed INTEGER, seats_json TEXT,
    starting_seat INTEGER, placements_json TEXT, desmos_json TEXT, ascension INTEGER,
    tiebreak TEXT, failures_json TEXT, forfeits_json TEXT, decisions INTEGER,
    duration_s REAL, record_path TEXT, created_at TEXT, latency_json TEXT);
CREATE INDEX IF NOT EXISTS games_order
    ON games(tournament_id, round, table_index, game_index);
CREATE TABLE IF NOT EXISTS records(
    game_id TEXT PRIMARY KEY, tournament_id INTEGER, record BLOB);
CREATE TABLE IF NOT EXISTS byes(
    tournament_id INTEGER, round INTEGER, bot_id INTEGER, points REAL,
    PRIMARY KEY (tournament_id, round, bot_id));
CREATE TABLE IF NOT EXISTS rating_history(
    tournament_id INTEGER, game_id TEXT, bot_id INTEGER, mu_before REAL, sigma_before REAL,
    mu_after REAL, sigma_after REAL, pi_before REAL, tau_before REAL, pi_after REAL,
    tau_after REAL, PRIMARY KEY (tournament_id, game_id, bot_id));
CREATE TABLE IF NOT EXISTS rating_stamps(
    tournament_id INTEGER PRIMARY KEY, settings_json TEXT, rules TEXT);
"""

#: Where a game's record lives (the ``records`` table of the same database, keyed by game id).
RECORD_PATH = "records"


def match_id(tournament: str, round_no: int, table: int) -> str:
    """``<tournament>/r<round>/t<table>``: the referee appends ``/g<game>`` per game."""
    return f"{tournament}/r{round_no}/t{table}"


def game_id(tournament: str, round_no: int, table: int, game: int) -> str:
    """The deterministic id of a game (documented in docs/ARCHITECTURE.md)."""
    return f"{match_id(tournament, round_no, table)}/g{game}"


def stored_whole(raw: Any, what: str, where: str) -> int:
    """A whole number stored in a column (``NULL``: 0), as SQLite hands it back; anything
    else is a damaged row (a database edited by hand), said in one line naming ``where``."""
    if raw is None:
        return 0
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().removeprefix("-").isdigit():
        return int(raw)
    raise StoreError(f"{where}: its {what} is not a whole number ({raw!r})")


def _table_row(tournament_id: int, r: Sequence[Any]) -> TableRow:
    """A stored table, read back; a row of other types than the arena writes (a database
    edited by hand) is said in one line."""
    where = f"tournament {tournament_id}'s table (round {r[0]!r}, table {r[1]!r})"
    if r[0] is None:
        raise StoreError(f"{where}: its round is not a whole number (None)")
    try:
        seats = json.loads(r[2])
    except (TypeError, ValueError):
        seats = None
    if not isinstance(seats, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in seats):
        raise StoreError(f"{where}: its seats are not a list of bot ids ({r[2]!r})")
    table = stored_whole(r[1], "table", where)
    return TableRow(round=stored_whole(r[0], "round", where), table_index=table,
                    seats=tuple(seats), seed=r[3], deal=r[4] if r[4] is not None else table,
                    games=stored_whole(r[5], "games", where), sandbox_level=r[6],
                    finished_at=r[7])


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def _event_day(stored: str | None, created_at: str | None) -> dt.date:
    """The day a tournament's games count as played: the stored one; in a row written without
    it, the UTC day the tournament was created, which a resume on a later day keeps."""
    return dt.date.fromisoformat(stored or (created_at or _now())[:10])


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A stored tournament's header."""

    id: int
    name: str
    spec_hash: str
    spec: dict[str, Any]
    format: str
    players_per_game: int
    seed: int
    state: str
    created_at: str
    finished_at: str | None
    event_date: dt.date
    rounds: int
    games_planned: int
    spec_path: str | None


@dataclass(frozen=True, slots=True)
class TableRow:
    """A scheduled match: bot ids by seat, its match seed and deal."""

    round: int
    table_index: int
    seats: tuple[int, ...]
    seed: int
    deal: int
    games: int
    sandbox_level: str | None = None
    finished_at: str | None = None


@dataclass(frozen=True, slots=True)
class GameRow:
    """A recorded game as the tournament layer reads it back (standings, status, checks)."""

    id: str
    round: int
    table_index: int
    game_index: int
    seed: int
    seats: tuple[int, ...]
    starting_seat: int
    placements: tuple[int, ...]
    failures: list[dict[str, Any]]
    forfeits: dict[str, str]
    decisions: int
    duration_s: float


class Store:
    """One connection to the results database; the runner's process is the only writer.

    Readers (``arena status``, the rating layer) may open the file at the same time: WAL lets
    them read while games are being committed.
    """

    def __init__(self, path: str | Path, *, create: bool = True, read_only: bool = False) -> None:
        """``read_only``: for commands that only read (``status``, ``game``); they work where
        the database's directory is not writable (:func:`read_connection`)."""
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise no_database(self.path)
        made = NewDirectories.at(self.path) if create else None
        new_directory = create and not self.path.parent.exists()
        try:
            self._open(create, read_only)
        except BaseException:
            if made is not None:
                if hasattr(self, "conn"):
                    self.conn.close()
                made.remove()
            raise
        if new_directory:  # said once it is kept: a typo in a spec's results path would
            # scatter databases unseen
            log.warning("created the directory %s for the results database", self.path.parent)

    def _open(self, create: bool, read_only: bool) -> None:
        attempt = Attempt(BUSY_TIMEOUT_S)
        try:
            if create and not self.path.parent.exists():
                private_directory(self.path.parent)
            if create:  # what a run killed while it made a database left beside it
                remove_abandoned_new(self.path)
            if create and not self.path.exists():
                place_new_database(self.path, SCHEMA)
            if read_only:
                self.conn = read_connection(self.path, timeout=BUSY_TIMEOUT_S)
            elif self.path.exists() and unwritable(self.path):
                raise StoreError(unwritable(self.path))
            else:
                self.conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S,
                                            isolation_level=None, check_same_thread=False)
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            self._check_tables(create and not read_only)
            if not read_only:
                make_private(self.path)  # its secret seeds: the owner's alone (once it is ours)
                mode = self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"{self.path}: cannot switch the database to WAL mode")
                self.conn.execute("PRAGMA synchronous = NORMAL")
            if create and not read_only:
                self.conn.executescript(SCHEMA)
                if not self.conn.execute("PRAGMA user_version").fetchone()[0]:
                    self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
                raise StoreError(f"cannot write to {self.path}: {exc}; free some space and "
                                 "run again") from None
            if self.path.is_dir():  # `results: cups/`: SQLite says only "unable to open"
                raise StoreError(f"{self.path} is a directory, not a results database: name a "
                                 f"file in it ({self.path / 'arena.db'})") from None
            raise StoreError(unreadable(self.path, exc, attempt)
                             or f"{self.path} is not a usable results database ({exc})") from None
        except OSError as exc:
            blocker = next((p for p in self.path.parents if p.exists() and not p.is_dir()),
                           None)
            reason = (f"{blocker} is a file, not a directory" if blocker is not None
                      else exc.strerror)
            raise StoreError(f"cannot create the results database {self.path}: "
                             f"{reason}") from None

    def _check_tables(self, create: bool) -> None:
        """Refuse a database that is not ours before changing it: to read, it must hold the
        arena's tables (an empty file is not turned into a database); to write, it must hold
        them or nothing (another program's, even named like ours, is not filled with ours);
        either way, not in a schema a newer arena stamped."""
        newer = newer_schema(self.conn, self.path)
        if newer:
            self.conn.close()
            raise StoreError(newer)
        tables = table_names(self.conn)
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(tournaments)")}
        if (create and not tables) or {"id", "name", "spec_hash", "spec_json"} <= columns:
            return
        self.conn.close()
        if tables:
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(f"{self.path} is not an arena results database (it holds other "
                             f"tables: {shown}); give another --db")
        raise StoreError(f"{self.path} holds no tournament yet (an empty database)")

    # ------------------------------------------------------------------ plumbing
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception; a write SQLite
        refuses (a full disk, a read-only file) is a :class:`StoreError` saying so."""
        started = time.monotonic()
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError):
                # the timeout is read only now: a write that succeeds needs none of it
                busy_ms = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
                attempt = Attempt(busy_ms / 1000, started)
                raise StoreError(f"cannot write to {self.path}: {exc}; nothing half-written "
                                 f"is kept{write_hint(exc, attempt)}") from None
            raise

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """Reads that see the database at one moment (``BEGIN`` ... ``COMMIT``): a run writing
        meanwhile (a league entering a version) is seen by the next snapshot, not half."""
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    def lock(self, tournament: str) -> AbstractContextManager[None]:
        """Hold an exclusive lock on running ``tournament`` in this database while the
        context lasts (:func:`arena.tournament.runlock.run_lock`)."""
        return run_lock(self.path, tournament)

    def runner_pid(self, tournament: str) -> int | None:
        """The pid of the live ``arena run`` of ``tournament``, or None when none holds the
        lock (so a "running" tournament without one was killed and can be resumed)."""
        return runner_pid(self.path, tournament)

    # ------------------------------------------------------------------ tournaments
    def tournament(self, name: str) -> TournamentRow | None:
        row = self.conn.execute(
            "SELECT id, name, spec_hash, spec_json, format, players_per_game, seed, state, "
            "created_at, finished_at, event_date, rounds, games_planned, spec_path "
            "FROM tournaments WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        return TournamentRow(
            id=row[0], name=row[1], spec_hash=row[2] or "", spec=json.loads(row[3] or "{}"),
            format=row[4], players_per_game=row[5], seed=row[6], state=row[7],
            created_at=row[8], finished_at=row[9],
            event_date=_event_day(row[10], row[8]),
            rounds=row[11] or 1, games_planned=row[12] or 0, spec_path=row[13])

    def require(self, name: str) -> TournamentRow:
        """The tournament called ``name``; the error lists what is stored."""
        found = self.tournament(name)
        if found is None:
            raise unknown_tournament(self.path, name, self.tournament_names())
        return found

    def tournament_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM tournaments ORDER BY id")]

    def create_tournament(
        self,
        *,
        name: str,
        spec_hash: str,
        spec_json: dict[str, Any],
        format: str,
        players_per_game: int,
        seed: int,
        event_date: dt.date,
        rounds: int,
        games_planned: int,
        spec_path: str | None,
        bots: Sequence[tuple[str, str, str, dict[str, Any]]],
    ) -> TournamentRow:
        """Insert the tournament and its entrants (``(name, version, path, metadata)``)."""
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO tournaments (name, spec_hash, spec_json, format, players_per_game, "
                "seed, state, created_at, finished_at, event_date, rounds, games_planned, "
                "spec_path) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, NULL, ?, ?, ?, ?)",
                (name, spec_hash, json.dumps(spec_json, sort_keys=True), format,
                 players_per_game, seed, _now(), event_date.isoformat(), rounds,
                 games_planned, spec_path))
            tid = int(cur.lastrowid or 0)
            for index, (bot_name, version, path, metadata) in enumerate(bots):
                bot_id = stored_bot_id(conn, bot_name, version, path, metadata)
                conn.execute("INSERT INTO tournament_bots (tournament_id, bot_id, entry_index) "
                             "VALUES (?, ?, ?)", (tid, bot_id, index))
        row = self.tournament(name)
        assert row is not None
        return row

    def delete_tournament(self, tournament_id: int) -> None:
        """Remove a tournament and everything recorded for it (``--fresh``)."""
        with self.transaction() as conn:
            for table in ("games", "records", "tables", "byes", "tournament_bots", "rating_history",
                          *sorted(table_names(conn) & {"successions", "league_entries",
                                                         "league_vetting", "rating_stamps",
                                                         "kept_copies"})):
                conn.execute(f"DELETE FROM {table} WHERE tournament_id = ?", (tournament_id,))
            conn.execute("DELETE FROM tournaments WHERE id = ?", (tournament_id,))

    def set_state(self, tournament_id: int, state: str) -> None:
        finished = _now() if state == "finished" else None
        with self.transaction() as conn:
            conn.execute("UPDATE tournaments SET state = ?, finished_at = ? WHERE id = ?",
                         (state, finished, tournament_id))

    def set_spec_path(self, tournament_id: int, spec_path: str | None) -> None:
        with self.transaction() as conn:
            conn.execute("UPDATE tournaments SET spec_path = ? WHERE id = ?",
                         (spec_path, tournament_id))

    def set_games_planned(self, tournament_id: int, games: int) -> None:
        with self.transaction() as conn:
            conn.execute("UPDATE tournaments SET games_planned = ? WHERE id = ?",
                         (games, tournament_id))

    def entrant_ids(self, tournament_id: int) -> list[int]:
        """Bot ids in entry order (entrant index -> bot id)."""
        return [r[0] for r in self.conn.execute(
            "SELECT bot_id FROM tournament_bots WHERE tournament_id = ? ORDER BY entry_index",
            (tournament_id,))]

    # ------------------------------------------------------------------ tables and byes
    def add_tables(self, tournament_id: int, tables: Iterable[TableRow],
                   byes: Iterable[tuple[int, int, float]] = ()) -> None:
        """Schedule tables (and Swiss byes ``(round, bot_id, points)``) in one transaction;
        tables already stored are kept as they are."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO tables (tournament_id, round, table_index, seats_json, "
                "seed, sandbox_level, deal, games) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
                [(tournament_id, t.round, t.table_index, json.dumps(list(t.seats)), t.seed,
                  t.deal, t.games) for t in tables])
            conn.executemany(
                "INSERT OR IGNORE INTO byes (tournament_id, round, bot_id, points) "
                "VALUES (?, ?, ?, ?)",
                [(tournament_id, r, bot, points) for r, bot, points in byes])

    def tables(self, tournament_id: int, round_no: int | None = None) -> list[TableRow]:
        query = ("SELECT round, table_index, seats_json, seed, deal, games, sandbox_level, "
                 "finished_at FROM tables WHERE tournament_id = ?")
        params: tuple[Any, ...] = (tournament_id,)
        if round_no is not None:
            query += " AND round = ?"
            params += (round_no,)
        query += " ORDER BY round, table_index"
        return [_table_row(tournament_id, r) for r in self.conn.execute(query, params)]

    def byes(self, tournament_id: int) -> list[tuple[int, int, float]]:
        """``(round, bot_id, points)`` of every bye, in round order."""
        return [(r[0], r[1], r[2]) for r in self.conn.execute(
            "SELECT round, bot_id, points FROM byes WHERE tournament_id = ? "
            "ORDER BY round, bot_id", (tournament_id,))]

    def finish_table(self, tournament_id: int, round_no: int, table_index: int,
                     sandbox_level: str, warnings: Sequence[str]) -> None:
        with self.transaction() as conn:
            conn.execute(
                "UPDATE tables SET sandbox_level = ?, warnings_json = ?, finished_at = ? "
                "WHERE tournament_id = ? AND round = ? AND table_index = ?",
                (sandbox_level, json.dumps(list(warnings)), _now(), tournament_id, round_no,
                 table_index))

    # ------------------------------------------------------------------ games
    def count_games(self, tournament_id: int) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ?",
                                     (tournament_id,)).fetchone()[0])

    def record_game(self, tournament_id: int, row: dict[str, Any], record: bytes) -> bool:
        """Insert one game and its compressed record in one transaction.

        Returns False (and writes nothing) when the game id is already recorded: a replayed
        table's earlier games are never recorded twice.
        """
        return self.record_games(tournament_id, [(row, record)])[0]

    def record_games(self, tournament_id: int,
                     games: Sequence[tuple[dict[str, Any], bytes]]) -> list[bool]:
        """Insert games and their compressed records in one transaction (all or none), each
        as :meth:`record_game` does: whether each was inserted (not recorded already)."""
        with self.transaction() as conn:
            return [self._insert_game(conn, tournament_id, row, record) for row, record in games]

    @staticmethod
    def _insert_game(conn: sqlite3.Connection, tournament_id: int, row: dict[str, Any],
                     record: bytes) -> bool:
        if conn.execute("SELECT 1 FROM games WHERE id = ?", (row["id"],)).fetchone():
            return False
        conn.execute(
            "INSERT INTO games (id, tournament_id, round, table_index, game_index, seed, "
            "seats_json, starting_seat, placements_json, desmos_json, ascension, tiebreak, "
            "failures_json, forfeits_json, decisions, duration_s, record_path, created_at, "
            "latency_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row["id"], tournament_id, row["round"], row["table_index"], row["game_index"],
             row["seed"], json.dumps(row["seats"]), row["starting_seat"],
             json.dumps(row["placements"]), json.dumps(row["desmos"]),
             int(bool(row["ascension"])), row["tiebreak"], json.dumps(row["failures"]),
             json.dumps(row["forfeits"], sort_keys=True), row["decisions"],
             row["duration_s"], RECORD_PATH, _now(), json.dumps(row.get("latency", []))))
        conn.execute("INSERT INTO records (game_id, tournament_id, record) VALUES (?, ?, ?)",
                     (row["id"], tournament_id, record))
        return True

    def games(self, tournament_id: int, *, before_round: int | None = None) -> list[GameRow]:
        """Recorded games in id order (round, table, game), optionally of earlier rounds."""
        query = ("SELECT id, round, table_index, game_index, seed, seats_json, starting_seat, "
                 "placements_json, failures_json, forfeits_json, decisions, duration_s "
                 "FROM games WHERE tournament_id = ?")
        params: tuple[Any, ...] = (tournament_id,)
        if before_round is not None:
            query += " AND round < ?"
            params += (before_round,)
        query += " ORDER BY round, table_index, game_index"
        return [GameRow(id=r[0], round=r[1], table_index=r[2], game_index=r[3], seed=r[4],
                        seats=tuple(json.loads(r[5])), starting_seat=r[6],
                        placements=tuple(json.loads(r[7])), failures=json.loads(r[8] or "[]"),
                        forfeits=json.loads(r[9] or "{}"), decisions=r[10] or 0,
                        duration_s=r[11] or 0.0)
                for r in self.conn.execute(query, params)]


def peek(path: Path, look: Callable[[Store], _T]) -> _T | None:
    """``look`` at the database at ``path`` opened read-only, or None when there is none
    yet, or it is not set up or not ours (opening it to write sets it up or says what is
    wrong)."""
    if not path.is_file():
        return None
    try:
        with Store(path, create=False, read_only=True) as store:
            return look(store)
    except (ArenaError, sqlite3.Error):
        return None


def stored_metadata(metadata: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """A bot version's stored metadata: its own, with its options (when it has any) under
    ``options``, where :func:`~arena.tournament.bot_versions.bot_options` reads them back."""
    return {**metadata, **({"options": options} if options else {})}


def stored_bot_id(conn: sqlite3.Connection, name: str, version: str, path: str,
                  metadata: Mapping[str, Any]) -> int:
    """The id of bot version ``name``/``version``, stored with ``path`` and ``metadata``
    (:func:`stored_metadata`) when it is not stored yet."""
    conn.execute("INSERT OR IGNORE INTO bots (name, version, path, metadata_json) "
                 "VALUES (?, ?, ?, ?)", (name, version, path, json.dumps(metadata, sort_keys=True)))
    return int(conn.execute("SELECT id FROM bots WHERE name = ? AND version = ?",
                            (name, version)).fetchone()[0])


def shown_state(db: str | Path, tournament: str, stored: str) -> str:
    """The state to show: ``running`` only while a run holds the tournament's lock; a
    tournament stored as running without one was killed, and is ``stopped``."""
    if runner_pid(db, tournament) is not None:
        return "running"
    return "stopped" if stored == "running" else stored

