"""A results database as a file: a connection that reads it (also where its directory may not
be written), the tables it holds, and what the arena says of one it cannot use: not there
(naming the databases beside it, since a spec's ``results:`` moves where ``arena run`` writes,
not where the reading commands read), not readable, not writable, and what to do about a
write it refused; a new one put in place whole, and the directories an opening that failed
made, taken away again; and what runs killed while they made one left, removed."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.common.abandoned import claim_abandoned
from arena.common.printable import printable, quoted_word, shell_word
from arena.common.suggest import did_you_mean
from arena.errors import StoreError, TournamentNotFoundError
from arena.sandbox import reaper

__all__ = ["SCHEMA_VERSION", "Attempt", "NewDirectories", "holds_no_tables", "newer_schema",
           "no_database", "other_databases", "place_new_database", "read_connection",
           "remove_abandoned_new", "table_names", "unknown_tournament", "unreadable", "unwritable",
           "write_hint"]

#: The results schema this arena reads and writes, stamped in the database as SQLite's
#: ``user_version`` (0: a database from before the stamp, the same schema). A newer arena that
#: changes the tables stamps a higher number, and this one then refuses the file rather than
#: misread it or write rows of the old shape into it.
SCHEMA_VERSION = 1


#: How the temporary name of a database in the making ends.
_NEW = ".new"
#: SQLite's files of a database: itself and its companions.
_DATABASE_SUFFIXES = ("", "-wal", "-shm", "-journal")
#: What a file system without hard links (vfat, some FUSE and network mounts) says to one.
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK})


@dataclass(frozen=True)
class NewDirectories:
    """The directories missing above a database's path before an opening, the deepest first,
    which :meth:`remove` takes away should it fail (a full disk, a file name the file system
    refuses), each only while empty: a directory that was there before is never touched,
    nor one another process has put a file in meanwhile."""

    directories: tuple[Path, ...]

    @classmethod
    def at(cls, path: Path) -> NewDirectories:
        directories: list[Path] = []
        for directory in path.parents:
            if os.path.lexists(directory):
                break
            directories.append(directory)
        return cls(tuple(directories))

    def remove(self) -> None:
        for directory in self.directories:
            with contextlib.suppress(OSError):
                directory.rmdir()


def place_new_database(path: Path, schema: str) -> None:
    """Put an empty results database holding ``schema`` at ``path``, unless another process
    puts one there first (then that one stays, and is the one opened). It is written under a
    temporary name beside ``path`` (private, as :func:`tempfile.mkstemp` makes it; naming
    this process, and locked while it is written: :func:`remove_abandoned_new`) and linked
    into place whole and in WAL mode, so no process opens a half-made file at ``path``, and a
    creation that fails (a full disk, an I/O error) removes only its own temporary files:
    never a database another process made at ``path`` meanwhile and may be writing, nor a
    zero-byte file left to be taken for an empty database."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}-", suffix=_NEW,
                                    dir=path.parent)
    temporary = Path(name)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)  # until its files are gone
        conn = sqlite3.connect(str(temporary), isolation_level=None)
        try:
            conn.executescript(f"BEGIN; {schema} PRAGMA user_version = {SCHEMA_VERSION}; "
                               "COMMIT;")
            # WAL before it is seen: switched at its path, the switch fails at once while
            # another process holds a write lock on it (another run sharing the file)
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        try:
            os.link(temporary, path)
        except FileExistsError:  # another process's came first: it stays
            pass
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            _copy_unless_there(temporary, path)
    finally:
        _remove_database_files(temporary)
        os.close(handle)


def remove_abandoned_new(path: Path) -> None:
    """Remove the temporary files of new databases for ``path`` that runs killed while they
    made them (SIGKILL, a power cut) left beside it: only those whose process is gone (or
    started after the file: it took a dead run's number) and whose lock nobody holds, so
    never one a live run is writing. The process id covers the moment between the file's
    creation and its lock; the lock, a process whose id means nothing here (another
    machine's, or another pid namespace's, sharing the directory).
    One an older arena left names no process and is left alone."""
    pattern = re.compile(rf"\.{re.escape(path.name)}\.(\d+)-[^/]+{re.escape(_NEW)}")
    try:
        found = sorted(path.parent.glob(f".{glob.escape(path.name)}.*{_NEW}"))
    except OSError:
        return
    for temporary in found:
        owner = pattern.fullmatch(temporary.name)
        if owner is not None and not reaper.may_have_made(int(owner[1]), temporary):
            _remove_if_abandoned(temporary)


def _remove_if_abandoned(temporary: Path) -> None:
    """Remove ``temporary`` and its SQLite companions when this process may lock it: its
    maker is gone. Never a link's target, another user's file, nor a file put at its name
    since it was looked at."""
    held = claim_abandoned(temporary)
    if held is not None:
        try:
            _remove_database_files(temporary)
        finally:
            os.close(held)


def _remove_database_files(database: Path) -> None:
    for suffix in _DATABASE_SUFFIXES:
        with contextlib.suppress(OSError):
            Path(f"{database}{suffix}").unlink()


def _copy_unless_there(source: Path, path: Path) -> None:
    """Copy ``source`` to a new file at ``path`` (private), unless a file is there: where hard
    links are refused, a reader may see the copy half-written for a moment, but no database
    another process made is ever replaced."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(handle, "wb") as out, source.open("rb") as data:
        shutil.copyfileobj(data, out)


def no_database(path: str | Path) -> StoreError:
    """The error for a results database that is not there; says so when ``$ARENA_DB`` named
    it (a variable set long ago in a shell profile is easy to forget)."""
    named = os.environ.get("ARENA_DB")
    by = ", named by $ARENA_DB" if named and Path(named) == Path(path) else ""
    if Path(path).is_dir():
        return StoreError(f"{path}{by} is a directory, not a results database")
    others, here = other_databases(Path(path)), _working_databases(Path(path))
    if others or here:
        # A spec's `results:` moves where `arena run` writes, not where the reading commands
        # read: the organiser's database is usually right there, under another name, or
        # beside the spec (`results: cup.db`).
        where = "; ".join(f"{said}: {_listed(found)}" for said, found in (
            ("beside it", others), ("in the working directory", here)) if found)
        return StoreError(f"no results database at {path}{by} ({where}; --db names the one "
                          "to read, as a spec's results: names where arena run writes)")
    return StoreError(f"no results database at {path}{by} (run a tournament first, e.g. "
                      "arena run tournaments/swiss.yaml)")


@dataclass(frozen=True)
class Attempt:
    """A use of the database timed from its start, so that a lock's refusal says how SQLite
    met the lock: it waited its busy timeout (``timeout_s``) out, or it refused at once, as
    it does for a switch of journal mode while another connection writes, whatever the
    timeout."""

    timeout_s: float
    started: float = field(default_factory=time.monotonic)

    def how_refused(self) -> str:
        """How the lock stopped this attempt, said after the database refused it."""
        # a wait ends at the timeout; a refusal without one comes in microseconds
        if self.timeout_s > 0 and time.monotonic() - self.started >= self.timeout_s / 2:
            return f"waited {self.timeout_s:g} s for it to let go"
        return "SQLite refused at once, without waiting for it to let go"


def unreadable(path: Path, exc: sqlite3.Error, attempt: Attempt) -> str:
    """What to say when reading ``path`` failed with ``exc`` in ``attempt``: a read-only
    directory with a ``-wal`` file in it (SQLite cannot make the ``-shm`` file it needs) is
    named as such, a full disk (where the same files fail as a "disk I/O error") too, and a
    lock another program holds, with how SQLite met it."""
    if "locked" in str(exc):
        return (f"results database {path} is locked by another program "
                f"({attempt.how_refused()}); try again once it has finished")
    if ("I/O" in str(exc) or "full" in str(exc)) and _no_space(path.parent):
        return (f"cannot read {path}: the disk holding it is full, and SQLite needs room for "
                f"its {path.name}-shm and {path.name}-wal files beside it even to read; free "
                f"some space and try again ({exc})")
    if not os.access(path.parent, os.W_OK) and Path(f"{path}-wal").exists():
        return (f"cannot read {path}: its directory {path.parent} is not writable, and "
                f"SQLite must create {path.name}-shm there to read the {path.name}-wal beside "
                f"it; copy both files to a writable directory ({exc})")
    return ""


def _no_space(directory: Path) -> bool:
    """Whether the file system holding ``directory`` has no block left to give."""
    try:
        return os.statvfs(directory).f_bavail == 0
    except OSError:
        return False


def unwritable(path: Path) -> str:
    """What to say of a database at ``path`` that this process may not write, the file or its
    directory (SQLite writes its ``-wal`` and ``-shm`` files there): a read-only mount,
    another user's results. SQLite would open it read-only and fail later, saying "unable to
    open database file" or "attempt to write a readonly database", which read as a broken
    database. Empty when both may be written."""
    if os.access(path.parent, os.W_OK) and os.access(path, os.W_OK):
        return ""
    what = path if os.access(path.parent, os.W_OK) else path.parent
    return (f"cannot write the results database {path}: {what} is not writable (a read-only "
            "file system, or another user's); the reading commands (arena status, leaderboard, "
            "export) still read it; to run or delete, copy it somewhere writable and give --db")


def newer_schema(conn: sqlite3.Connection, path: Path) -> str:
    """What to say of the database ``conn`` reads when a newer arena wrote it (its schema
    version above :data:`SCHEMA_VERSION`); empty when this arena knows its schema."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version <= SCHEMA_VERSION:
        return ""
    return (f"{path} was written by a newer version of the arena (results schema {version}; "
            f"this one knows schema {SCHEMA_VERSION} and older): upgrade the arena to read or "
            "run it")


def other_databases(path: Path) -> list[Path]:
    """The ``*.db`` files beside ``path`` (not it), by name: a results database the reading
    commands were not pointed at."""
    try:
        found = sorted(p for p in path.parent.glob("*.db") if p.name != path.name and p.is_file())
    except OSError:
        return []
    return [path.parent / p.name for p in found]


def _working_databases(path: Path) -> list[Path]:
    """The ``*.db`` files of the working directory, when ``path`` lies elsewhere."""
    here = Path(".")
    try:
        if path.parent.resolve() == here.resolve():
            return []
        return sorted(p for p in here.glob("*.db") if p.is_file())
    except OSError:
        return []


def _listed(paths: list[Path]) -> str:
    return ", ".join(str(p) for p in paths[:3]) + (", ..." if len(paths) > 3 else "")


def _holding(path: str | Path, name: str) -> str:
    """``; results/cup.db holds it (--db results/cup.db)`` when a database beside ``path``,
    or in the working directory, stores a tournament called ``name``, else ``""``: read
    without changing anything."""
    for other in [*other_databases(Path(path)), *_working_databases(Path(path))][:20]:
        try:
            conn = sqlite3.connect(f"{other.resolve().as_uri()}?mode=ro", uri=True)
            try:
                row = conn.execute("SELECT 1 FROM tournaments WHERE name = ?", (name,)).fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            continue
        if row is not None:
            return f"; {printable(str(other))} holds it (--db {shell_word(str(other))})"
    return ""


def unknown_tournament(path: str | Path, name: str,
                       stored: Sequence[str]) -> TournamentNotFoundError:
    """What a reading command says of a tournament ``name`` that the database at ``path``
    does not store: the stored name it most likely misspells, every stored name, and a
    database beside it that holds ``name``."""
    listed = ", ".join(map(shell_word, stored)) if stored else "none"  # to paste back
    return TournamentNotFoundError(
        f"no tournament named {quoted_word(name)} in {path}{did_you_mean(name, stored)} "
        f"(stored: {listed}){_holding(path, name)}")


def read_connection(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection that reads the database at ``path``, also where this process may not
    write its directory (a read-only mount, another user's results): SQLite creates a
    ``-shm`` file beside a WAL database even to read it, so there the file is opened
    immutable, which needs none. Only without a ``-wal`` file beside it: a writer would have
    created one, and an immutable reader would not see what it holds."""
    if os.access(path.parent, os.W_OK) or Path(f"{path}-wal").exists():
        return sqlite3.connect(str(path), timeout=timeout, isolation_level=None,
                               check_same_thread=False)
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True,
                           timeout=timeout, isolation_level=None, check_same_thread=False)


def holds_no_tables(path: Path) -> bool:
    """Whether the SQLite file at ``path`` holds no table at all (a run killed right after it
    created the file): a new database to a run, read without changing it."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        return not table_names(conn)
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def table_names(conn: sqlite3.Connection) -> set[str]:
    """The names of the tables in the database ``conn`` reads."""
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def write_hint(exc: sqlite3.OperationalError, attempt: Attempt) -> str:
    """What to do about a write SQLite refused in ``attempt``: make room, or wait for the
    program that holds the database locked (another program's long transaction)."""
    if "full" in str(exc):
        return ": free some space and try again (a run resumes where it stopped)"
    if "locked" in str(exc):
        return (f": another program holds it locked (an open transaction, e.g. a sqlite3 "
                f"shell; {attempt.how_refused()}); try again once it has finished")
    return ""
