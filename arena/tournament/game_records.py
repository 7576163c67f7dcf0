"""The games' records as the results database holds them: zlib-compressed JSON in its
``records`` table, one per game, committed with its ``games`` row by
:meth:`~arena.tournament.store.Store.record_games`. Compressed here (in the worker, off the
writer) and read back here: one game's, a tournament's as stored, or written out as JSON
lines when a file is wanted (:func:`export_records`)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from arena.common.wholefile import write_whole
from arena.errors import StoreError
from arena.tournament.dbfiles import table_names
from arena.tournament.store import Store

__all__ = ["StoredRecord", "compress_record", "decompress_record", "export_records",
           "game_record", "record_blobs"]


class StoredRecord(NamedTuple):
    """A game's record as the store holds it: zlib-compressed JSON
    (:func:`decompress_record` reads it)."""

    game_id: str
    blob: bytes


def game_record(store: Store, game: str) -> dict[str, Any]:
    """One game's record, decompressed."""
    try:
        row = store.conn.execute("SELECT record FROM records WHERE game_id = ?",
                                 (game,)).fetchone()
    except sqlite3.OperationalError as exc:
        raise _no_records(store, exc) from None
    if row is None:
        raise StoreError(f"no record of game {game} in {store.path}")
    return decompress_record(row[0], game)


def record_blobs(store: Store, tournament_id: int,
                 only: str | None = None) -> Iterator[StoredRecord]:
    """A tournament's records as stored (compressed) in id order (``only``: that game's)."""
    query = ("SELECT r.game_id, r.record FROM records r JOIN games g ON g.id = r.game_id "
             "WHERE r.tournament_id = ?")
    params: tuple[Any, ...] = (tournament_id,)
    if only is not None:
        query += " AND r.game_id = ?"
        params += (only,)
    query += " ORDER BY g.round, g.table_index, g.game_index"
    try:
        for game, blob in store.conn.execute(query, params):
            yield StoredRecord(str(game), bytes(blob))
    except sqlite3.OperationalError as exc:
        raise _no_records(store, exc) from None


def _no_records(store: Store, exc: sqlite3.OperationalError) -> Exception:
    """What a failed read of records raises: a store without their table (an older
    arena's) says so; any other failure (a lock) is itself."""
    if "records" in table_names(store.conn):
        return exc
    return StoreError(f"{store.path} holds no game records ({exc})")


def export_records(store: Store, tournament_id: int, out: Path) -> int:
    """Write a tournament's records as JSON lines in id order (gzip when ``out`` ends in
    ``.gz``); returns the count. ``arena replay`` reads the plain form."""
    def write(handle: TextIO) -> int:
        count = 0
        for game, blob in record_blobs(store, tournament_id):
            handle.write(_inflate(blob, game) + "\n")
            count += 1
        return count
    try:  # whole or not at all: a killed export leaves no torn file under its name
        return write_whole(out, write, compressed=out.suffix == ".gz")
    except OSError as exc:
        raise StoreError(f"cannot write game records to {out}: "
                         f"{exc.strerror or exc}") from None


def compress_record(record: dict[str, Any]) -> bytes:
    """A game record as compact JSON, zlib-compressed (done in the worker, off the writer)."""
    return zlib.compress(json.dumps(record, separators=(",", ":")).encode("utf-8"), 6)


def decompress_record(blob: bytes, game: str) -> dict[str, Any]:
    """A stored game record read back; a damaged one is a :class:`StoreError` naming it."""
    try:
        record = json.loads(_inflate(blob, game))
    except ValueError:
        raise StoreError(f"game {game}: its stored record is damaged (not JSON)") from None
    if not isinstance(record, dict):
        raise StoreError(f"game {game}: its stored record is damaged (not a record)")
    return record


def _inflate(blob: bytes, game: str) -> str:
    try:
        return zlib.decompress(blob).decode("utf-8")
    except (zlib.error, TypeError, UnicodeDecodeError) as exc:
        raise StoreError(f"game {game}: its stored record is damaged ({exc})") from None
