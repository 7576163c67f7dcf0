"""The store: WAL, schema per docs/ARCHITECTURE.md, idempotent game inserts, records."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import StoreError, TournamentNotFoundError
from arena.tournament.dbfiles import SCHEMA_VERSION, table_names
from arena.tournament.game_records import compress_record, export_records, game_record, record_blobs
from arena.tournament.runlock import runner_pid
from arena.tournament.store import Store, TableRow, game_id


def make(store: Store, name: str = "t") -> int:
    row = store.create_tournament(
        name=name, spec_hash="abc", spec_json={"rating": {"mu": 25.0}}, format="round_robin",
        players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
        games_planned=2, spec_path="spec.yaml",
        bots=[("a", "v1", "bots/a.py", {"author": "x"}), ("b", "v1", "bots/b.py", {})])
    return row.id


def game(gid: str, index: int = 0) -> dict[str, Any]:
    return {"id": gid, "round": 1, "table_index": 0, "game_index": index, "seed": 5,
            "seats": [1, 2], "starting_seat": 0, "placements": [2, 1],
            "desmos": ["Pair", "Triplet"], "ascension": False, "tiebreak": "",
            "failures": [{"seat": 0, "bot": "a@v1", "type": "timeout", "detail": "slow"}],
            "forfeits": {}, "decisions": 31, "duration_s": 0.01, "latency": [{}, {}]}


def test_schema_and_wal(tmp_path: Path) -> None:
    with Store(tmp_path / "r" / "arena.db") as store:
        make(store)
        mode = store.conn.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
        tables = {r[0] for r in store.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"tournaments", "bots", "tournament_bots", "tables", "games", "records",
                "byes", "rating_history"} <= tables
        columns = {r[1] for r in store.conn.execute("PRAGMA table_info(games)")}
        assert {"id", "tournament_id", "round", "table_index", "game_index", "seed",
                "seats_json", "starting_seat", "placements_json", "desmos_json", "ascension",
                "tiebreak", "failures_json", "forfeits_json", "decisions", "duration_s",
                "record_path", "created_at"} <= columns


def test_a_game_is_recorded_once(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        gid = game_id("t", 1, 0, 0)
        assert gid == "t/r1/t0/g0"
        record = {"seed": 5, "result": {"placements": [2, 1]}}
        assert store.record_game(tid, game(gid), compress_record(record)) is True
        assert store.record_game(tid, game(gid), compress_record(record)) is False
        assert store.count_games(tid) == 1
        assert game_record(store, gid) == record
        [row] = store.games(tid)
        assert row.placements == (2, 1) and row.seats == (1, 2)
        assert row.failures[0]["type"] == "timeout"


def test_games_sent_together_are_recorded_together(tmp_path: Path) -> None:
    """A worker's batch of games is one transaction: each stored once, a failing one leaves
    none of the batch behind."""
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        ids = [game_id("t", 1, 0, g) for g in range(3)]
        assert store.record_game(tid, game(ids[0]), b"x") is True
        assert store.record_games(tid, [(game(i), b"x") for i in ids]) == [False, True, True]
        assert [g.id for g in store.games(tid)] == ids
        bad = game(game_id("t", 1, 0, 4))
        del bad["placements"]
        with pytest.raises(KeyError):
            store.record_games(tid, [(game(game_id("t", 1, 0, 3)), b"x"), (bad, b"x")])
        assert store.count_games(tid) == 3


def test_game_and_record_commit_together(tmp_path: Path) -> None:
    """A failing insert leaves neither the game nor its record behind."""
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        bad = game("t/r1/t0/g0")
        del bad["placements"]
        with pytest.raises(KeyError):
            store.record_game(tid, bad, b"x")
        assert store.count_games(tid) == 0
        assert store.conn.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 0


def test_readers_see_committed_games_while_the_writer_is_open(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    with Store(path) as store:
        tid = make(store)
        store.record_game(tid, game("t/r1/t0/g0"), compress_record({}))
        reader = sqlite3.connect(str(path))
        assert reader.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
        reader.close()


def test_tables_byes_and_export(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        store.add_tables(tid, [TableRow(1, 0, (1, 2), 99, 0, 2)], [(1, 2, 2.0)])
        store.add_tables(tid, [TableRow(1, 0, (2, 1), 7, 0, 2)])  # kept as first stored
        assert store.tables(tid) == [TableRow(1, 0, (1, 2), 99, 0, 2)]
        assert store.byes(tid) == [(1, 2, 2.0)]
        for g in range(2):
            store.record_game(tid, game(game_id("t", 1, 0, g), g), compress_record({"g": g}))
        out = tmp_path / "t.jsonl.gz"
        assert export_records(store, tid, out) == (2, [])
        with gzip.open(out, "rt") as handle:
            assert [json.loads(line) for line in handle] == [{"g": 0}, {"g": 1}]


def test_a_store_without_the_records_table_says_so(tmp_path: Path) -> None:
    """An old store kept its records elsewhere: reading one or exporting them is one clear
    error (arena game, arena export, arena status --records), and nothing is written."""
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        store.record_game(tid, game("t/r1/t0/g0"), compress_record({}))
        store.conn.execute("DROP TABLE records")
        out = tmp_path / "t.jsonl"
        with pytest.raises(StoreError, match="holds no game records"):
            export_records(store, tid, out)
        with pytest.raises(StoreError, match="holds no game records"):
            game_record(store, "t/r1/t0/g0")
    assert not out.exists()


class _RecordsLocked:
    """A connection whose reads of the records fail as another program's lock makes them."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if "FROM records" in sql:
            raise sqlite3.OperationalError("database is locked")
        return self.conn.execute(sql, *args)

    def close(self) -> None:
        self.conn.close()


def test_records_locked_by_another_program_are_not_said_to_be_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        store.record_game(tid, game("t/r1/t0/g0"), compress_record({}))
        monkeypatch.setattr(store, "conn", _RecordsLocked(store.conn))
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            list(record_blobs(store, tid))
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            game_record(store, "t/r1/t0/g0")


def test_an_export_that_fails_midway_leaves_the_old_file_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """status --records writes whole or not at all: a failure (a full disk, a kill) after
    the first record leaves the file as it was, and no part file behind."""
    import arena.tournament.game_records as game_records_module

    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        for g in range(2):
            store.record_game(tid, game(game_id("t", 1, 0, g), g), compress_record({"g": g}))
        out = tmp_path / "t.jsonl"
        out.write_text("the last export\n")
        inflate = game_records_module._inflate

        def full_disk_at_the_second(blob: bytes, game_id: str) -> str:
            if game_id.endswith("g1"):
                raise OSError(28, "No space left on device")
            return inflate(blob, game_id)

        monkeypatch.setattr(game_records_module, "_inflate", full_disk_at_the_second)
        with pytest.raises(StoreError, match=f"cannot write game records to {out}: No space "
                                             "left on device"):
            export_records(store, tid, out)
    assert out.read_text() == "the last export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if "t.jsonl" in p.name) == ["t.jsonl"]


def test_fresh_deletes_everything_of_the_tournament(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        other = make(store, "u")
        store.record_game(tid, game("t/r1/t0/g0"), compress_record({}))
        store.record_game(other, game("u/r1/t0/g0"), compress_record({}))
        store.delete_tournament(tid)
        assert store.tournament("t") is None
        assert store.count_games(other) == 1
        assert store.conn.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 1


def test_fresh_leaves_no_row_of_the_tournament_in_any_table(tmp_path: Path) -> None:
    """SQLite gives the next tournament the id of the last one deleted: a bye, a rating step
    or a stamp left under it would be the fresh tournament's (points it never won, the old
    games' rating steps reused for its own games of the same ids)."""
    with Store(tmp_path / "arena.db") as store:
        tid = make(store)
        store.add_tables(tid, [TableRow(1, 0, (1, 2), 99, 0, 2)], [(1, 2, 2.0)])
        store.record_game(tid, game("t/r1/t0/g0"), compress_record({}))
        store.conn.execute("INSERT INTO rating_history (tournament_id, game_id, bot_id) "
                           "VALUES (?, 't/r1/t0/g0', 1)", (tid,))
        store.conn.execute("INSERT INTO rating_stamps (tournament_id, settings_json, rules) "
                           "VALUES (?, '{}', 'r')", (tid,))
        store.delete_tournament(tid)
        left = {table: store.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE tournament_id "
                                          "= ?", (tid,)).fetchone()[0]
                for table in table_names(store.conn)
                if "tournament_id" in {c[1] for c in store.conn.execute(
                    f"PRAGMA table_info({table})")}}
        assert left and set(left.values()) == {0}, left
        fresh = make(store)
        assert store.byes(fresh) == [] and store.tables(fresh) == []


def test_status_says_when_a_tournament_finished_and_not_once_it_runs_again(
        tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with Store(db) as store:
        tid = make(store)
        store.set_state(tid, "finished")
        row = store.tournament("t")
        assert row is not None and row.finished_at is not None
        assert dt.datetime.fromisoformat(row.finished_at) >= \
            dt.datetime.fromisoformat(row.created_at)
    said = CliRunner().invoke(app, ["status", "t", "--db", str(db)]).stdout.splitlines()
    assert said[2] == f"created {row.created_at}; finished {row.finished_at}"
    with Store(db) as store:
        store.set_state(tid, "running")  # a league resumed, or a Swiss given rounds
        again = store.tournament("t")
        assert again is not None and again.finished_at is None


def test_missing_database_and_tournament(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no results database at"):
        Store(tmp_path / "none.db", create=False)
    with pytest.raises(StoreError) as info:  # a --db naming a folder
        Store(tmp_path, create=False)
    assert str(info.value) == f"{tmp_path} is a directory, not a results database"
    with Store(tmp_path / "arena.db") as store:
        make(store)
        with pytest.raises(TournamentNotFoundError,
                           match=r"no tournament named 'x' in .* \(stored: t\)"):
            store.require("x")


def test_a_database_that_is_not_ours_is_refused_unchanged(tmp_path: Path) -> None:
    """An empty file is no results database to read (and stays empty); another program's
    database is neither read nor filled with the arena's tables."""
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(StoreError) as info:
        Store(empty, create=False)
    assert str(info.value) == f"{empty} holds no tournament yet (an empty database)"
    assert empty.stat().st_size == 0
    Store(empty).close()  # to write, an empty file is a new database
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE foo (x)")
    conn.close()
    for create in (True, False):
        with pytest.raises(StoreError) as info:
            Store(other, create=create)
        assert str(info.value) == (f"{other} is not an arena results database (it holds "
                                   "other tables: foo); give another --db")
    with sqlite3.connect(other) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["foo"]
    conn.close()


@pytest.mark.parametrize("columns", ["x", "id, name, date"])
def test_another_programs_table_named_tournaments_is_not_ours(tmp_path: Path,
                                                              columns: str) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute(f"CREATE TABLE tournaments ({columns})")
    conn.close()
    before = other.read_bytes()
    for create in (True, False):
        with pytest.raises(StoreError) as info:
            Store(other, create=create)
        assert str(info.value) == (f"{other} is not an arena results database (it holds "
                                   "other tables: tournaments); give another --db")
    assert other.read_bytes() == before  # none of the arena's tables written into it


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_text("this is not sqlite, " * 100)
    path.chmod(0o644)
    with pytest.raises(StoreError, match="is not a usable results database"):
        Store(path)
    assert path.stat().st_mode & 0o777 == 0o644  # a file refused keeps its permissions


def test_a_database_that_may_not_be_written_is_said_so(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # arena run on results from a read-only mount said "results/x.db is not a usable results
    # database (unable to open database file)" of a database the reading commands read well
    path = tmp_path / "results" / "x.db"
    make(Store(path))
    real_access = os.access
    for unwritable, named in (((path, path.parent), path.parent), ((path,), path)):
        # the directory (a read-only mount), or the file alone (another user's, chmod a-w)
        monkeypatch.setattr(os, "access", lambda p, mode, unwritable=unwritable, **kw: (
            False if mode == os.W_OK and Path(p) in unwritable else real_access(p, mode)))
        with pytest.raises(StoreError) as info:
            Store(path)
        assert str(info.value) == (
            f"cannot write the results database {path}: {named} is not writable (a "
            "read-only file system, or another user's); the reading commands (arena status, "
            "leaderboard, export) still read it; to run or delete, copy it somewhere writable "
            "and give --db")
        assert Store(path, create=False, read_only=True).require("t").name == "t"


def test_a_file_in_the_way_of_the_database_is_named(tmp_path: Path) -> None:
    (tmp_path / "results").write_text("not a directory")
    with pytest.raises(StoreError) as info:
        Store(tmp_path / "results" / "sub" / "arena.db")
    assert str(info.value) == (f"cannot create the results database "
                               f"{tmp_path / 'results' / 'sub' / 'arena.db'}: "
                               f"{tmp_path / 'results'} is a file, not a directory")


def test_one_run_per_tournament(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as first, Store(tmp_path / "arena.db") as second:
        with first.lock("t"):
            with pytest.raises(StoreError, match="is being run by another process"):
                with second.lock("t"):
                    pass
            with second.lock("u"):
                pass
        with second.lock("t"):
            pass


def test_a_run_leaves_no_lock_file_behind(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        with store.lock("t"):
            assert [p.name for p in tmp_path.glob(".arena.db.*")] == [".arena.db.t.lock"]
            assert runner_pid(tmp_path / "arena.db", "t") == os.getpid()
        assert list(tmp_path.glob(".arena.db.*")) == []
        assert runner_pid(tmp_path / "arena.db", "t") is None


def test_a_lock_file_removed_under_a_waiting_run_is_not_shared(tmp_path: Path) -> None:
    """A run that opened the lock file before the holder removed it must not lock that
    removed file while a third run locks the new one: it locks the file at the path."""
    import fcntl

    path = tmp_path / ".arena.db.t.lock"
    with Store(tmp_path / "arena.db") as store:
        with store.lock("t"):
            stale = open(path)  # noqa: SIM115 - a run that opened it and waits
        fcntl.flock(stale.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # the removed file
        with store.lock("t"):  # locks a new file at the path, not the stale one
            assert path.exists()
            with pytest.raises(StoreError, match="is being run by another process"):
                with store.lock("t"):
                    pass
        stale.close()


def test_a_lock_file_removed_as_a_run_locks_it_is_not_locked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run before ends (removing its lock file) between this run's opening of the file and
    its lock: a lock on the removed file would hide this run from the next, and both would
    play the same games."""
    import fcntl

    from arena.tournament import runlock

    path = tmp_path / ".arena.db.t.lock"
    path.write_text("4242")  # the ending run's
    flock, ended = fcntl.flock, []

    def the_run_before_ends(fd: int, operation: int) -> None:
        if not ended:
            ended.append(True)
            path.unlink()
        flock(fd, operation)

    with Store(tmp_path / "arena.db") as store:
        monkeypatch.setattr(runlock.fcntl, "flock", the_run_before_ends)
        with store.lock("t"):
            assert runner_pid(tmp_path / "arena.db", "t") == os.getpid()
            with pytest.raises(StoreError) as info:
                with store.lock("t"):
                    pass
    assert str(info.value) == (f"tournament 't' is being run by another process (pid "
                               f"{os.getpid()}); wait for it or stop it first")


def test_a_lock_that_cannot_be_made_is_one_error(tmp_path: Path) -> None:
    (tmp_path / ".arena.db.t.lock").mkdir()  # in the way, even of root
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(StoreError) as info:
            with store.lock("t"):
                pass
    assert str(info.value) == (f"cannot lock tournament 't': cannot create "
                               f"{tmp_path / '.arena.db.t.lock'}: Is a directory")


def test_a_write_the_database_refuses_is_one_error_and_keeps_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        store.conn.execute("PRAGMA query_only = ON")  # as a read-only file would
        with pytest.raises(StoreError) as info:
            with store.transaction() as conn:
                conn.execute("DELETE FROM tournaments")
        assert str(info.value) == (f"cannot write to {tmp_path / 'arena.db'}: attempt to write "
                                   "a readonly database; nothing half-written is kept")
        assert not store.conn.in_transaction


def test_a_symlink_to_the_database_finds_the_same_lock(tmp_path: Path) -> None:
    """Two runs through two spellings of one file would both play the same games."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "link.db").symlink_to(tmp_path / "arena.db")
    with Store(tmp_path / "arena.db") as first, \
            Store(tmp_path / "elsewhere" / "link.db") as second:
        with first.lock("t"):
            with pytest.raises(StoreError, match="is being run by another process"):
                with second.lock("t"):
                    pass
            assert runner_pid(tmp_path / "elsewhere" / "link.db", "t") == os.getpid()


def test_a_results_directory_that_is_not_there_is_made_and_said(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A typo in a spec's results path would otherwise scatter databases unseen."""
    with caplog.at_level("WARNING", logger="arena"):
        Store(tmp_path / "new" / "dir" / "arena.db").close()
        Store(tmp_path / "new" / "dir" / "arena.db").close()  # there now: nothing said
    assert [r.getMessage() for r in caplog.records] == [
        f"created the directory {tmp_path / 'new' / 'dir'} for the results database"]


def _read_only_dir(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """``directory`` as a read-only mount or another user's directory looks to a reader
    (root may write anywhere, so the check is what is patched)."""
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, *a, **k: False if Path(path) ==
                        directory and mode == os.W_OK else real(path, mode, *a, **k))


def test_a_database_in_a_directory_the_reader_cannot_write_is_read_without_writing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite writes a -shm file beside a WAL database even to read it: in a read-only
    directory ``arena status`` failed with 'not a usable results database'."""
    db = tmp_path / "r.db"
    with Store(db) as store:
        tid = make(store, "cup")
        store.record_game(tid, game(game_id("cup", 1, 0, 0)), compress_record({"seed": 5}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]  # checkpointed at close
    _read_only_dir(monkeypatch, tmp_path)
    with Store(db, create=False, read_only=True) as store:
        row = store.tournament("cup")
        assert row is not None and store.count_games(row.id) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]  # no -shm, no -wal


def test_a_read_only_directory_with_a_wal_file_is_named_as_the_cause(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "r.db"
    with Store(db) as store:
        make(store, "cup")
    (tmp_path / "r.db-wal").write_bytes(b"")  # a writer's journal: immutable reads would miss it
    _read_only_dir(monkeypatch, tmp_path)
    monkeypatch.setattr(sqlite3, "connect", _failing_connect)
    with pytest.raises(StoreError) as info:
        Store(db, create=False, read_only=True)
    assert str(info.value) == (
        f"cannot read {db}: its directory {tmp_path} is not writable, and SQLite must create "
        "r.db-shm there to read the r.db-wal beside it; copy both files to a writable "
        "directory (unable to open database file)")


def _failing_connect(*args: Any, **kwargs: Any) -> Any:
    raise sqlite3.OperationalError("unable to open database file")


def test_a_new_database_is_stamped_with_its_schema_version(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_database_of_a_newer_schema_is_refused_by_every_command(tmp_path: Path) -> None:
    """A newer arena's tables (a column renamed) were misread: arena run, status and export
    ended in a traceback ("no such column"), and a run could write old rows into them."""
    db = tmp_path / "r.db"
    with Store(db) as store:
        make(store, "cup")
        store.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        store.conn.execute("ALTER TABLE games RENAME COLUMN placements_json TO places_json")
    said = (f"{db} was written by a newer version of the arena (results schema "
            f"{SCHEMA_VERSION + 1}; this one knows schema {SCHEMA_VERSION} and older): upgrade "
            "the arena to read or run it")
    for read_only in (False, True):
        with pytest.raises(StoreError) as info:
            Store(db, read_only=read_only)
        assert str(info.value) == said
    for command in (["status", "cup"], ["status"], ["leaderboard", "cup"],
                    ["export", "cup", "-o", str(tmp_path / "out.jsonl")]):
        result = CliRunner().invoke(app, [*command, "--db", str(db)])
        assert result.exit_code == 1, (command, result.output)
        assert result.output == f"Error: {said}\n"
    with sqlite3.connect(db) as conn:  # nothing written into it
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_a_full_disk_when_locking_a_run_is_one_line_and_leaves_no_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resumed while the disk was still full, a run said "cannot write the output": the
    pid written into its lock file failed only as the file was closed, with no name."""
    import arena.tournament.runlock

    def full_disk(fd: int, data: bytes, offset: int) -> int:
        raise OSError(28, "No space left on device")

    with Store(tmp_path / "r.db") as store:
        with monkeypatch.context() as patched:
            patched.setattr(arena.tournament.runlock.os, "pwrite", full_disk)
            with pytest.raises(StoreError) as info, store.lock("cup"):
                pass
        lock = tmp_path / ".r.db.cup.lock"
        assert str(info.value) == (f"cannot lock tournament 'cup': cannot write "
                                   f"{lock}: No space left on device; free some space and "
                                   "try again")
        assert not lock.exists() and store.runner_pid("cup") is None
        with store.lock("cup"):  # with space again
            assert store.runner_pid("cup") == os.getpid()


class _FullDiskConnection(sqlite3.Connection):
    """A connection to a database on a full disk: setting up its tables fails as SQLite
    says SQLITE_FULL."""

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        error = sqlite3.OperationalError("database or disk is full")
        error.sqlite_errorcode = sqlite3.SQLITE_FULL
        raise error


def test_a_new_database_on_a_full_disk_is_said_to_be_full(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It was called "not a usable results database (database or disk is full)": as if the
    file were broken, when only space was missing."""
    real = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *args, **kwargs: real(
        *args, **kwargs, factory=_FullDiskConnection))
    db = tmp_path / "r.db"
    with pytest.raises(StoreError) as info:
        Store(db)
    assert str(info.value) == (f"cannot write to {db}: database or disk is full; free some "
                               "space and run again")


def test_a_database_another_program_holds_locked_is_said_to_be(tmp_path: Path) -> None:
    """A write transaction another program kept open (``BEGIN EXCLUSIVE`` in a sqlite3
    shell) ended a run with a bare 'database is locked'; the message says how long SQLite
    waited for it (its wait shortened here)."""
    db = tmp_path / "r.db"
    with Store(db) as store, sqlite3.connect(db, isolation_level=None) as other:
        other.execute("BEGIN EXCLUSIVE")
        store.conn.execute("PRAGMA busy_timeout = 100")
        with pytest.raises(StoreError) as info:
            make(store)
        other.execute("ROLLBACK")
    assert str(info.value) == (
        f"cannot write to {db}: database is locked; nothing half-written is kept: another "
        "program holds it locked (an open transaction, e.g. a sqlite3 shell; waited 0.1 s for "
        "it to let go); try again once it has finished")


def _in_rollback_mode(db: Path) -> None:
    """A results database another program (or an older arena) left out of WAL mode."""
    with Store(db) as store:
        make(store)
    with sqlite3.connect(db, isolation_level=None) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()


def test_a_lock_sqlite_refuses_at_once_is_not_said_to_be_waited_for(tmp_path: Path) -> None:
    """SQLite does not wait to switch a database to WAL mode while another connection
    writes in it: it refuses at once, and the message said the arena had waited."""
    db = tmp_path / "r.db"
    _in_rollback_mode(db)
    with sqlite3.connect(db, isolation_level=None) as other:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError) as info:
            Store(db, create=False)
        other.execute("ROLLBACK")
    other.close()
    assert str(info.value) == (
        f"results database {db} is locked by another program (SQLite refused at once, "
        "without waiting for it to let go); try again once it has finished")


def test_a_lock_a_reader_waited_for_says_how_long(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reading command waits out its busy timeout (shortened here) behind another
    program's exclusive lock, and says it waited."""
    import arena.rating.games
    from arena.rating.games import connect

    db = tmp_path / "r.db"
    _in_rollback_mode(db)
    monkeypatch.setattr(arena.rating.games, "BUSY_TIMEOUT_S", 0.2)
    with sqlite3.connect(db, isolation_level=None) as other:
        other.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreError) as info, connect(db):
            pass
        other.execute("ROLLBACK")
    other.close()
    assert str(info.value) == (
        f"results database {db} is locked by another program (waited 0.2 s for it to let "
        "go); try again once it has finished")


def test_a_database_on_a_full_disk_is_said_to_need_space_to_be_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even to read, SQLite creates -shm and -wal files beside a database; on a full disk
    that fails as a "disk I/O error", and every reading command called an intact database
    "not a usable results database"."""
    import arena.tournament.dbfiles

    db = tmp_path / "r.db"
    with Store(db) as store:
        make(store, "cup")
    real = os.statvfs
    monkeypatch.setattr(arena.tournament.dbfiles.os, "statvfs", lambda where: SimpleNamespace(
        f_bavail=0) if Path(where) == tmp_path else real(where))
    monkeypatch.setattr(sqlite3, "connect", _io_error_connect)
    said = (f"Error: cannot read {db}: the disk holding it is full, and SQLite needs room for "
            "its r.db-shm and r.db-wal files beside it even to read; free some space and try "
            "again (disk I/O error)\n")
    for command in (["status", "cup"], ["leaderboard", "cup"]):
        result = CliRunner().invoke(app, [*command, "--db", str(db)])
        assert (result.exit_code, result.output) == (1, said), command


def _io_error_connect(*args: Any, **kwargs: Any) -> Any:
    raise sqlite3.OperationalError("disk I/O error")


class _FailingSchema:
    """A connection whose schema step fails as a full disk's or a failing drive's would."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def executescript(self, script: str) -> Any:
        raise sqlite3.OperationalError("disk I/O error")


def _schema_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: _FailingSchema(real(*a, **k)))


def test_a_new_database_that_cannot_be_made_leaves_nothing_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store whose schema step failed left a zero-byte 0600 file (which a later run took
    for a database and refused, 'holds no tournament yet') and the results/ it made."""
    _schema_fails(monkeypatch)
    with pytest.raises(StoreError, match=r"disk I/O error"):
        Store(tmp_path / "results" / "deep" / "arena.db")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "notes.txt").write_text("mine\n")
    with pytest.raises(StoreError, match=r"disk I/O error"):
        Store(tmp_path / "results" / "arena.db")
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["notes.txt"]


def test_a_failed_opening_never_removes_a_database_that_was_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "results" / "arena.db"
    with Store(db) as store:
        make(store)
    _schema_fails(monkeypatch)
    with pytest.raises(StoreError, match=r"disk I/O error"):
        Store(db)
    monkeypatch.undo()
    assert Store(db, create=False).require("t").name == "t"


@pytest.mark.parametrize("refusal", ["unwritable", "name too long"])
def test_a_database_file_that_cannot_be_created_leaves_no_directory_behind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: str) -> None:
    """The directories made for a database whose file could not be created stayed."""
    name = "arena.db"
    if refusal == "unwritable":  # root writes anywhere: the refusal a user would meet
        def refused(*args: Any, **kwargs: Any) -> Any:
            raise PermissionError(13, "Permission denied", kwargs.get("dir"))
        monkeypatch.setattr("arena.tournament.dbfiles.tempfile.mkstemp", refused)
    else:
        name = "a" * 300 + ".db"
    with pytest.raises(StoreError, match=r"^cannot create the results database"):
        Store(tmp_path / "results" / "sub" / name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mine_fails", [True, False])
def test_two_openings_of_a_new_database_at_once_end_on_one_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mine_fails: bool) -> None:
    """Another process opened the new database while this one was writing its tables and
    made a tournament in it; this one's schema step then failed, and its clean-up removed
    the database the other was writing, tournament and all."""
    db = tmp_path / "results" / "arena.db"
    real = sqlite3.connect
    theirs: list[Store] = []

    class OtherOpensMeanwhile(_FailingSchema):
        def executescript(self, script: str) -> Any:
            if started:  # the other's own opening, or this one's once the other's is done
                return self._conn.executescript(script)
            started.append(True)
            theirs.append(Store(db))
            make(theirs[0])
            if mine_fails:
                raise sqlite3.OperationalError("disk I/O error")
            return self._conn.executescript(script)

    started: list[bool] = []
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: OtherOpensMeanwhile(real(*a, **k)))
    if mine_fails:
        with pytest.raises(StoreError, match=r"disk I/O error"):
            Store(db)
    else:
        with Store(db) as mine:
            assert mine.require("t").name == "t"
    monkeypatch.undo()
    with Store(db, create=False) as reader:
        assert reader.require("t").name == "t"
    theirs[0].close()
    assert [p.name for p in db.parent.iterdir()] == ["arena.db"]


def test_a_new_database_opens_though_another_process_writes_in_it_from_the_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process (another run sharing the results file) begins a write in the new
    database the moment it appears: this run opens it all the same. The file used to appear
    before its switch to WAL, which SQLite refuses at once under another's write lock."""
    import arena.tournament.store as store_module

    real = store_module.place_new_database
    theirs: list[sqlite3.Connection] = []

    def placed_then_written(path: Path, schema: str) -> None:
        real(path, schema)
        theirs.append(sqlite3.connect(str(path), isolation_level=None))
        theirs[0].execute("BEGIN IMMEDIATE")

    monkeypatch.setattr(store_module, "place_new_database", placed_then_written)
    db = tmp_path / "arena.db"
    with Store(db) as store:
        theirs[0].execute("ROLLBACK")
        theirs[0].close()
        store.create_tournament(
            name="cup", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None, bots=[("alice", "v1", "/a", {})])
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with Store(db, create=False) as store:
        assert store.require("cup").name == "cup"


def test_a_new_database_is_made_where_hard_links_are_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A results directory on a file system without hard links (vfat, some network mounts)
    still gets its database, and one already there is never replaced."""
    import errno

    def refused(source: Any, target: Any) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", refused)
    db = tmp_path / "arena.db"
    with Store(db) as store:
        store.create_tournament(
            name="cup", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None, bots=[("alice", "v1", "/a", {})])
    with Store(db, create=False) as store:
        assert store.require("cup").name == "cup"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arena.db"]
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_a_new_database_that_cannot_be_made_does_not_say_it_made_its_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The directory made for it is removed again, so the warning that it was made would
    send the user looking for a directory that is not there."""
    _schema_fails(monkeypatch)
    with pytest.raises(StoreError, match=r"disk I/O error"):
        Store(tmp_path / "results" / "arena.db")
    assert "created the directory" not in caplog.text
    monkeypatch.undo()
    with Store(tmp_path / "results" / "arena.db"):
        pass
    assert f"created the directory {tmp_path / 'results'}" in caplog.text


#: A database's creation stopped just before its file is linked into place: killed there
#: (SIGKILL: no clean-up runs), or held there while it lives.
_CREATION_STOPPED = """
import os, signal, sys
from pathlib import Path
from arena.tournament import dbfiles
from arena.tournament.store import SCHEMA

def stopped(*args, **kwargs):
    print("made", flush=True)
    if sys.argv[2] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.stdin.read()

dbfiles.os.link = stopped
dbfiles.place_new_database(Path(sys.argv[1]), SCHEMA)
"""


def _stopped_creation(db: Path, how: str) -> subprocess.Popen[str]:
    maker = subprocess.Popen([sys.executable, "-c", _CREATION_STOPPED, str(db), how],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert maker.stdout is not None and maker.stdout.readline() == "made\n"
    return maker


def _left_beside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(f".{db.name}."))


def test_a_run_killed_while_it_made_the_database_leaves_nothing_to_the_next(
        tmp_path: Path) -> None:
    """A run killed while it wrote a new database's tables left its hidden '.new' file (and
    its journal) beside the path for good."""
    db = tmp_path / "r.db"
    maker = _stopped_creation(db, "kill")
    assert maker.wait() == -signal.SIGKILL
    assert any(name.endswith(".new") for name in _left_beside(db))
    with Store(db) as store:
        make(store)
    assert _left_beside(db) == []


@pytest.mark.parametrize("seen", [True, False])
def test_a_database_another_process_is_making_is_left_to_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seen: bool) -> None:
    """The next start removes only what a dead run left: never the file a live one writes,
    whether its process is seen here or not (another machine's, another pid namespace's:
    its lock tells)."""
    from arena.sandbox import reaper

    db = tmp_path / "r.db"
    maker = _stopped_creation(db, "hold")
    made = _left_beside(db)
    if not seen:
        monkeypatch.setattr(reaper, "is_alive", lambda pid: False)
    with Store(db) as store:
        make(store)
    assert [name for name in _left_beside(db) if name in made] == made
    maker.communicate("")
    assert maker.returncode == 0 and _left_beside(db) == []


def test_a_new_database_its_live_maker_has_not_locked_yet_is_left_to_it(tmp_path: Path) -> None:
    """Between making its temporary file and locking it, a live run's file is unlocked: its
    process id, alive, keeps another start from removing it."""
    db = tmp_path / "r.db"
    making = tmp_path / f".r.db.{os.getpid()}-abc.new"
    making.write_bytes(b"")
    with Store(db) as store:
        make(store)
    assert making.exists()


def test_a_new_database_a_dead_run_left_is_removed_though_its_pid_was_reused(
        tmp_path: Path) -> None:
    """A busy machine soon gives a killed run's pid to another process: its '.new' file,
    made before that process started, stayed beside the database as long as it ran."""
    db = tmp_path / "r.db"
    reuser = subprocess.Popen(["sleep", "3600"])  # the dead run's number, taken later
    try:
        left = tmp_path / f".r.db.{reuser.pid}-abc.new"
        left.write_bytes(b"")
        an_hour_ago = time.time() - 3600  # when the dead run made it
        os.utime(left, (an_hour_ago, an_hour_ago))
        with Store(db) as store:
            make(store)
        assert _left_beside(db) == []
    finally:
        reuser.kill()
        reuser.wait()
