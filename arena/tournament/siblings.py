"""Results databases beside the one a reading command was pointed at: a spec's ``results:``
moves where ``arena run`` writes, not where ``arena leaderboard`` and the others read, so an
organiser's database often lies beside ``results/arena.db`` under another name."""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["holding", "other_databases"]


def other_databases(path: Path) -> list[Path]:
    """The ``*.db`` files beside ``path`` (not it), by name: a results database the reading
    commands were not pointed at."""
    try:
        found = sorted(p for p in path.parent.glob("*.db") if p.name != path.name and p.is_file())
    except OSError:
        return []
    return [path.parent / p.name for p in found]


def holding(path: str | Path, name: str) -> str:
    """``; results/cup.db holds it (--db results/cup.db)`` when a database beside ``path``
    stores a tournament called ``name``, else ``""``: read without changing anything."""
    for other in other_databases(Path(path))[:20]:
        try:
            conn = sqlite3.connect(f"{other.resolve().as_uri()}?mode=ro", uri=True)
            try:
                row = conn.execute("SELECT 1 FROM tournaments WHERE name = ?", (name,)).fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            continue
        if row is not None:
            return f"; {other} holds it (--db {other})"
    return ""
