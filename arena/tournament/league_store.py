"""What a league stores besides a tournament's tables and games: the bot versions it has seen
(entered, retired, refused, and at which table), and the stop file ``arena league stop``
leaves for a running league. Read by ``arena status``; written by
:mod:`~arena.tournament.league`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.tournament.store import Store

__all__ = ["ENTRIES", "LeagueEntry", "entry_lines", "league_entries", "request_stop",
           "stop_path"]

ENTRIES = """CREATE TABLE IF NOT EXISTS league_entries(
    tournament_id INTEGER, seq INTEGER, bot_key TEXT, bot_id INTEGER, state TEXT,
    reason TEXT, at_table INTEGER, PRIMARY KEY (tournament_id, seq))"""


@dataclass(frozen=True, slots=True)
class LeagueEntry:
    """A bot version the league has seen: ``active``, ``retired`` (a newer version entered,
    or its files went: ``reason`` says so) or ``refused`` (``reason`` says why);
    ``at_table``: the table number it came at."""

    seq: int
    key: str
    bot_id: int | None
    state: str
    reason: str
    at_table: int


def league_entries(store: Store, tournament_id: int) -> list[LeagueEntry]:
    """Every version the league has seen, in the order it came."""
    if store.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                          "name = 'league_entries'").fetchone() is None:
        return []
    return [LeagueEntry(*row) for row in store.conn.execute(
        "SELECT seq, bot_key, bot_id, state, reason, at_table FROM league_entries "
        "WHERE tournament_id = ? ORDER BY seq", (tournament_id,))]


def stop_path(db: Path, name: str) -> Path:
    """The file ``arena league stop`` leaves for the league ``name`` in the database ``db``
    (beside its lock file)."""
    real = db.resolve()
    return real.parent / f".{real.name}.{name}.stop"


def request_stop(db: Path, name: str) -> None:
    """Ask the running league ``name`` to stop after the table under way."""
    stop_path(db, name).touch()


def entry_lines(store: Store, tournament_id: int) -> list[str]:
    """``arena status``'s lines on a league's entries: each version, its state since which
    table, and a refused one's reason."""
    entries = league_entries(store, tournament_id)
    retired_at: dict[str, int] = {}
    for entry in entries:
        if entry.state != "refused":
            name = entry.key.split("@")[0]
            for older in entries:
                if (older.seq < entry.seq and older.state == "retired"
                        and older.key.split("@")[0] == name):
                    retired_at.setdefault(older.key, entry.at_table)
    lines = []
    for entry in entries:
        if entry.state == "active":
            lines.append(f"  {entry.key}: active since table {entry.at_table}")
        elif entry.state == "retired":
            at = retired_at.get(entry.key)
            lines.append(f"  {entry.key}: entered at table {entry.at_table}, retired"
                         + (f" at table {at}" if at is not None else "")
                         + (f": {entry.reason}" if entry.reason else ""))
        else:
            lines.append(f"  {entry.key}: refused at table {entry.at_table}: {entry.reason}")
    return ["entries (newest version of each bot plays; older ones keep their games):",
            *lines] if lines else []
