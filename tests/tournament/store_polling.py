"""Waiting for a tournament's games to appear in a results database (runs in other
processes write them)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path


def wait_for_games(path: Path, tournament: str, count: int, timeout: float) -> int:
    """Poll a database until ``tournament`` has ``count`` games; the count seen."""
    deadline = time.monotonic() + timeout
    seen = 0
    while time.monotonic() < deadline:
        try:
            conn = sqlite3.connect(str(path), timeout=5)
            try:
                row = conn.execute(
                    "SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                    "WHERE t.name = ?", (tournament,)).fetchone()
                seen = int(row[0])
            finally:
                conn.close()
        except sqlite3.Error:
            seen = 0
        if seen >= count:
            return seen
        time.sleep(0.05)
    return seen


def _count_locked(path: Path, tournament: str) -> tuple[int, sqlite3.Connection | None]:
    """The games recorded so far, read under the database's write lock, and the connection
    holding it (None, with no lock, when the database is not there yet)."""
    if not path.exists():
        return 0, None
    conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=5, isolation_level=None)
    try:
        # No lock before the run has switched its new file to WAL: the switch fails at once
        # (no busy wait) while another connection holds the write lock. The tables are no
        # sign of it: a new file is linked into place with its tables, before the switch.
        mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode != "wal" or not conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'games'").fetchone():
            conn.close()
            return 0, None
        conn.execute("BEGIN IMMEDIATE")
        row = conn.execute(
            "SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
            "WHERE t.name = ?", (tournament,)).fetchone()
        return int(row[0]), conn
    except sqlite3.Error:
        conn.close()
        return 0, None


def kill_after_games(process: subprocess.Popen[str], path: Path, tournament: str, count: int,
                     timeout: float) -> None:
    """SIGKILL ``process`` (a run writing ``path``) once ``tournament`` has ``count`` games;
    it is gone on return, whatever happened. The count is read holding the database's write
    lock, and the lock is held until the run is dead, so no game lands between the two."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            seen, conn = _count_locked(path, tournament)
            try:
                if seen >= count or process.poll() is not None or time.monotonic() > deadline:
                    assert seen >= count, process.stderr.read() if process.stderr else ""
                    os.kill(process.pid, signal.SIGKILL)
                    process.wait(timeout=30)
                    return
            finally:
                if conn is not None:
                    conn.close()  # rolls back: nothing was written
            time.sleep(0.005)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
