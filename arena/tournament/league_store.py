"""What a league stores besides a tournament's tables and games: the bot versions it has seen
(entered, retired, refused, and at which table), those its running run is vetting (rows that
only say so: what a vet finds is an entry), and the stop file ``arena league stop`` leaves
for a running league. Read by ``arena status``; written by
:mod:`~arena.tournament.league`, and by ``arena league retire`` (:func:`retire_entry`: one
row's state, which the league reads afresh before every choice)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from arena.common.printable import shell_word
from arena.errors import StoreError
from arena.tournament.dbfiles import table_names
from arena.tournament.store import Store, TournamentRow

__all__ = ["ENTRIES", "EntryCounts", "LeagueEntry", "entry_counts", "entry_lines", "league_entries",
           "not_playing", "request_stop", "retire_entry", "set_vetting", "stop_path",
           "vetting", "vetting_gave_way"]

ENTRIES = """CREATE TABLE IF NOT EXISTS league_entries(
    tournament_id INTEGER, seq INTEGER, bot_key TEXT, bot_id INTEGER, state TEXT,
    reason TEXT, at_table INTEGER, PRIMARY KEY (tournament_id, seq))"""

_VETTING = """CREATE TABLE IF NOT EXISTS league_vetting(
    tournament_id INTEGER, bot_key TEXT, since_table INTEGER, gave_way TEXT,
    PRIMARY KEY (tournament_id, bot_key))"""


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


class EntryCounts(NamedTuple):
    """How many versions a league has seen, and how many of them are active."""

    entries: int
    active: int


def _holds_entries(store: Store) -> bool:
    """Whether the store has the table of league entries (a league has written to it)."""
    return store.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                              "name = 'league_entries'").fetchone() is not None


def league_entries(store: Store, tournament_id: int) -> list[LeagueEntry]:
    """Every version the league has seen, in the order it came."""
    if not _holds_entries(store):
        return []
    return [LeagueEntry(*row) for row in store.conn.execute(
        "SELECT seq, bot_key, bot_id, state, reason, at_table FROM league_entries "
        "WHERE tournament_id = ? ORDER BY seq", (tournament_id,))]


def vetting(store: Store, tournament_id: int) -> dict[str, int]:
    """The versions the league's run is vetting (or holds for their vet), each with the
    table it first saw them at, in the order it vets them; a run killed mid-vet leaves its
    rows, which mean nothing once no run holds the lock (the next run clears them)."""
    if "league_vetting" not in table_names(store.conn):
        return {}
    return dict(store.conn.execute(
        "SELECT bot_key, since_table FROM league_vetting WHERE tournament_id = ? "
        "ORDER BY rowid", (tournament_id,)).fetchall())


def _has_gave_way(conn: sqlite3.Connection) -> bool:
    """Whether ``league_vetting`` has its ``gave_way`` column (a table made before it has
    not: its rows last one run, so the column is added as it is next written)."""
    return any(row[1] == "gave_way" for row in conn.execute("PRAGMA table_info(league_vetting)"))


def vetting_gave_way(store: Store, tournament_id: int) -> dict[str, list[str]]:
    """The versions being vetted that older ones gave way to (a newer version of the same
    bot seen before their vet ended), each with those older versions, never vetted."""
    if ("league_vetting" not in table_names(store.conn)
            or not _has_gave_way(store.conn)):
        return {}
    return {key: older.split() for key, older in store.conn.execute(
        "SELECT bot_key, gave_way FROM league_vetting WHERE tournament_id = ? AND "
        "COALESCE(gave_way, '') != '' ORDER BY rowid", (tournament_id,))}


def set_vetting(store: Store, tournament_id: int, since: dict[str, int],
                gave_way: dict[str, list[str]] | None = None) -> None:
    """Store ``since`` (bot key: the table first seen at, in the order they are vetted) as
    the versions being vetted, in place of the stored ones, and ``gave_way`` (bot key: the
    older versions that gave way to it), when they differ (a league polls between every two
    tables)."""
    gave_way = {k: v for k, v in (gave_way or {}).items() if v}
    if (list(vetting(store, tournament_id).items()) == list(since.items())
            and vetting_gave_way(store, tournament_id) == gave_way):
        return
    with store.transaction() as conn:
        conn.execute(_VETTING)
        if not _has_gave_way(conn):
            conn.execute("ALTER TABLE league_vetting ADD COLUMN gave_way TEXT")
        conn.execute("DELETE FROM league_vetting WHERE tournament_id = ?", (tournament_id,))
        conn.executemany("INSERT INTO league_vetting (tournament_id, bot_key, since_table, "
                         "gave_way) VALUES (?, ?, ?, ?)",
                         [(tournament_id, k, n, " ".join(gave_way.get(k, [])))
                          for k, n in since.items()])


def entry_counts(store: Store, tournament_id: int) -> EntryCounts:
    """The league's entries and its active ones, counted (cheaply: a live page polls them);
    none stored yet: 0 and 0."""
    if not _holds_entries(store):
        return EntryCounts(0, 0)
    total, active = store.conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(state = 'active'), 0) FROM league_entries "
        "WHERE tournament_id = ?", (tournament_id,)).fetchone()
    return EntryCounts(int(total), int(active))


def not_playing(entries: Sequence[LeagueEntry], bots: Iterable[str]) -> list[str]:
    """Of ``bots`` (a league board's names), those with no active version, in order: retired
    by the organiser, or their files gone; none when the league stored no entries."""
    if not entries:
        return []
    playing = {entry.key.rpartition("@")[0] for entry in entries if entry.state == "active"}
    return sorted(set(bots) - playing)


def stop_path(db: Path, name: str) -> Path:
    """The file ``arena league stop`` leaves for the league ``name`` in the database ``db``
    (beside its lock file)."""
    real = db.resolve()
    return real.parent / f".{real.name}.{name}.stop"


def request_stop(db: Path, name: str) -> None:
    """Ask the running league ``name`` to stop after the table under way: a file beside the
    database, which another user (or a read-only mount) may not be allowed to create."""
    path = stop_path(db, name)
    try:
        path.touch()
    except OSError as exc:
        raise StoreError(f"cannot ask league '{name}' to stop: cannot create {path}: "
                         f"{exc.strerror or exc} (stop it with Ctrl-C or kill where it "
                         "runs)") from None


def retire_entry(store: Store, row: TournamentRow, bot: str, why: str = "") -> LeagueEntry:
    """Retire the league's active version of ``bot`` (a name, or ``name@version``): no table
    chosen from now on seats it; a table already chosen is played out, and its games and
    rating stay. The same version never enters again (a new one does, as any submission).
    Refused, with a line saying why, where nothing active answers to ``bot`` or too few
    active versions would be left to fill a table."""
    if row.format != "league":
        raise StoreError(f"'{row.name}' is a {row.format} tournament, not a league")
    entries = league_entries(store, row.id)
    active = [e for e in entries if e.state == "active"]
    found = [e for e in active if bot in (e.key, e.key.rpartition("@")[0])]
    if not found:
        known = [e for e in entries if bot in (e.key, e.key.rpartition("@")[0])]
        if known:
            raise StoreError(f"{known[-1].key} is not playing in league '{row.name}' (it is "
                             f"{known[-1].state}; arena status {shell_word(row.name)} lists "
                             "the entries)")
        names = ", ".join(e.key for e in active) or "none"
        raise StoreError(f"no active entry '{bot}' in league '{row.name}' (active: {names})")
    if len(active) - 1 < row.players_per_game:
        raise StoreError(f"retiring {found[0].key} would leave {len(active) - 1} active "
                         f"bot{'' if len(active) == 2 else 's'} in league '{row.name}', too "
                         f"few for its tables of {row.players_per_game}")
    played = max((t.round for t in store.tables(row.id)), default=0)
    reason = ("by the organiser " + (f"after table {played}" if played else
                                      "before the first table")
              + (f" ({why})" if why else ""))
    with store.transaction() as conn:
        conn.execute("UPDATE league_entries SET state = 'retired', reason = ? WHERE "
                     "tournament_id = ? AND seq = ? AND state = 'active'",
                     (reason, row.id, found[0].seq))
    return next(e for e in league_entries(store, row.id) if e.seq == found[0].seq)


def entry_lines(store: Store, tournament_id: int, *, running: bool = False) -> list[str]:
    """``arena status``'s lines on a league's entries: each version, its state since which
    table, and a refused one's reason; while a run holds the league (``running``), the
    versions it is vetting after them."""
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
            # a reason says when itself: a newer version may have come much later
            lines.append(f"  {entry.key}: entered at table {entry.at_table}, retired"
                         + (f": {entry.reason}" if entry.reason else
                            f" at table {at}" if at is not None else ""))
        else:
            lines.append(f"  {entry.key}: refused at table {entry.at_table}: {entry.reason}")
    gave_way = vetting_gave_way(store, tournament_id) if running else {}
    for key, since in (vetting(store, tournament_id) if running else {}).items():
        gave = gave_way.get(key)
        lines.append(f"  {key}: being vetted since table {since}"
                     + (f" ({', '.join(gave)} gave way to it before {_its(gave)} vet ended)"
                        if gave else ""))
    return ["entries (newest version of each bot plays; older ones keep their games):",
            *lines] if lines else []


def _its(keys: list[str]) -> str:
    return "its" if len(keys) == 1 else "their"
