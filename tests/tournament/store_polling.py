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


def kill_after_games(process: subprocess.Popen[str], path: Path, tournament: str, count: int,
                     timeout: float) -> None:
    """Wait until ``process`` (a run writing ``path``) has recorded ``count`` games of
    ``tournament``, then SIGKILL it; it is gone on return, whatever happened."""
    try:
        seen = wait_for_games(path, tournament, count, timeout)
        assert seen >= count, process.stderr.read() if process.stderr else ""
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
