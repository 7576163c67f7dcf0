"""Which process runs a tournament: a lock file beside its database, held with ``flock``
while a run lasts and removed when it ends (:func:`run_lock`, :func:`runner_pid`)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from arena.errors import StoreError

__all__ = ["being_run", "lock_path", "run_lock", "runner_pid"]


def lock_path(db: Path, tournament: str) -> Path:
    """Beside the database file itself: a symlink to it (or another spelling of its path)
    must find the same lock, or two runs would play the same games."""
    real = db.resolve()
    return real.parent / f".{real.name}.{tournament}.lock"


@contextmanager
def run_lock(db: Path, tournament: str) -> Iterator[None]:
    """Hold an exclusive lock on running ``tournament`` in the database ``db``.

    A lock file with ``flock``: the kernel drops it when the process dies, so a killed run
    never leaves a stale lock behind, while two live runs of one tournament (which would
    both play the same games) are refused. The run that holds it removes the file when it
    ends, still holding the lock; a run that opened the file before that and locks it after
    finds it no longer at its path, and locks the new one instead."""
    path = lock_path(db, tournament)
    while True:
        try:
            handle: IO[str] = open(path, "a+")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise StoreError(f"cannot lock tournament '{tournament}': cannot "
                             f"create {path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            pid = handle.read().strip() or "?"
            handle.close()
            raise StoreError(being_run(tournament, pid)) from None
        if _still_at(handle, path):
            break
        handle.close()
    try:
        _write_pid(handle, path, tournament)
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # still locked: no other run holds this file
        handle.close()


def _write_pid(handle: IO[str], path: Path, tournament: str) -> None:
    """Write this process's pid into the locked file, unbuffered: on a full disk the write
    fails here, said with the file's name, not later as the file is closed."""
    try:
        os.ftruncate(handle.fileno(), 0)
        os.pwrite(handle.fileno(), str(os.getpid()).encode(), 0)
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        raise StoreError(f"cannot lock tournament '{tournament}': cannot write "
                         f"{path}: {exc.strerror or exc}"
                         + ("; free some space and try again" if full else "")
                         ) from None


def being_run(tournament: str, pid: int | str) -> str:
    """Why a run of ``tournament`` is refused while process ``pid`` runs it."""
    return (f"tournament '{tournament}' is being run by another process (pid {pid}); wait for "
            "it or stop it first")


def _still_at(handle: IO[str], path: Path) -> bool:
    """Whether the open file is still the one at ``path`` (a run that ended removes it)."""
    try:
        here = path.stat()
    except OSError:
        return False
    mine = os.fstat(handle.fileno())
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


def runner_pid(db: str | Path, tournament: str) -> int | None:
    """The pid of the live ``arena run`` of ``tournament`` in the database ``db`` (-1 if it
    did not write one), or None when no run holds its lock."""
    path = lock_path(Path(db), tournament)
    try:
        handle = open(path)  # noqa: SIM115 - closed below; a missing file is "no run"
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = handle.read().strip()
            return int(text) if text.isdigit() else -1
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return None
