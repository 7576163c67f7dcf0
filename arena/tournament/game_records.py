"""The games' records as the results database holds them: zlib-compressed JSON in its
``records`` table, one per game, committed with its ``games`` row by
:meth:`~arena.tournament.store.Store.record_games`. Compressed here (in the worker, off the
writer) and read back here: one game's, a tournament's as stored, or written out as JSON
lines when a file is wanted (:func:`export_records`); a game id that finds no game is told
where the tournament's games are (:func:`require_game`)."""

from __future__ import annotations

import json
import re
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from arena.common.printable import shell_word
from arena.common.wholefile import write_whole
from arena.errors import DamagedRecordError, StoreError
from arena.tournament.dbfiles import table_names
from arena.tournament.store import Store

__all__ = ["RECORD_LIMIT", "ExportedRecords", "StoredRecord", "compress_record",
           "decompress_record", "export_records", "game_record", "record_blobs", "require_game",
           "row_record"]

#: The most a stored record may inflate to: far above any game's record (its bots' logs are
#: capped per seat), while a database from elsewhere may hold a blob of a few kB that
#: inflates a thousandfold, and a reader would hold all of it.
RECORD_LIMIT = 16 * 2**20


#: A game id after its tournament's name: ``r<round>/t<table>/g<game>``.
_GAME_PLACE = re.compile(r"r(\d+)/t(\d+)/g(\d+)")


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


class ExportedRecords(NamedTuple):
    """What :func:`export_records` wrote: how many records, and the damaged ones it left out
    (each a :class:`DamagedRecordError` naming its game and why)."""

    written: int
    skipped: list[DamagedRecordError]


def export_records(store: Store, tournament_id: int, out: Path) -> ExportedRecords:
    """Write a tournament's records as JSON lines in id order (gzip when ``out`` ends in
    ``.gz``), leaving out a damaged one (the others are worth as much without it); a
    tournament whose every record is damaged writes nothing and raises the first's error.
    ``arena replay`` reads the plain form."""
    skipped: list[DamagedRecordError] = []

    def write(handle: TextIO) -> int:
        count = 0
        for game, blob in record_blobs(store, tournament_id):
            try:  # the stored text as it is, once it reads as a record
                line = _inflate(blob, game)
                _parse(line, game)
            except DamagedRecordError as exc:
                skipped.append(exc)
                continue
            handle.write(line + "\n")
            count += 1
        if not count and skipped:  # nothing could be done: no file of no records
            raise skipped[0]
        return count
    try:  # whole or not at all: a killed export leaves no torn file under its name
        return ExportedRecords(write_whole(out, write, compressed=out.suffix == ".gz"), skipped)
    except OSError as exc:
        raise StoreError(f"cannot write game records to {out}: "
                         f"{exc.strerror or exc}") from None


def compress_record(record: dict[str, Any]) -> bytes:
    """A game record as compact JSON, zlib-compressed (done in the worker, off the writer)."""
    return zlib.compress(json.dumps(record, separators=(",", ":")).encode("utf-8"), 6)


def decompress_record(blob: bytes, game: str) -> dict[str, Any]:
    """A stored game record read back; a damaged one is a :class:`DamagedRecordError`
    naming it."""
    return _parse(_inflate(blob, game), game)


def _parse(text: str, game: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except ValueError:
        raise DamagedRecordError(game, "not JSON") from None
    except RecursionError:  # deeper than Python's stack: a hand-made one
        raise DamagedRecordError(game, "not JSON: nested too deeply") from None
    if not isinstance(record, dict):
        raise DamagedRecordError(game, "not a record")
    return record


def _inflate(blob: bytes, game: str) -> str:
    try:
        inflater = zlib.decompressobj()
        text = inflater.decompress(blob, RECORD_LIMIT + 1)
        if len(text) > RECORD_LIMIT:
            raise DamagedRecordError(game, f"over {RECORD_LIMIT // 2**20} MiB inflated")
        if not inflater.eof:  # a stream cut short: zlib's own words for it
            zlib.decompress(blob)
        return text.decode("utf-8")
    except (zlib.error, TypeError, UnicodeDecodeError) as exc:
        raise DamagedRecordError(game, str(exc)) from None


def _loads(text: Any, default: Any) -> Any:
    """A ``games`` row's JSON column, ``default`` where it is missing or of another type."""
    try:
        value = json.loads(text) if isinstance(text, str) else default
    except ValueError:
        return default
    return value if isinstance(value, type(default)) else default


def row_record(store: Store, game: str) -> dict[str, Any]:
    """What the ``games`` row of ``game`` holds, in a record's shape (its bots, places,
    categories, failures and forfeits; no events, no choices): a damaged record's game is
    told from it as far as it goes."""
    row = store.conn.execute(
        "SELECT seats_json, placements_json, desmos_json, tiebreak, failures_json, "
        "forfeits_json, seed, starting_seat, game_index FROM games WHERE id = ?",
        (game,)).fetchone()
    if row is None:
        raise StoreError(f"no record of game {game} in {store.path}")
    seats_json, placements, desmos, tiebreak, failures, forfeits, seed, start, index = row
    bots = dict(((bot_id, (name, version)) for bot_id, name, version
                 in store.conn.execute("SELECT id, name, version FROM bots")))
    # a hand-edited row's seat may be anything: one that is no stored bot's id is unknown
    seats = [bots.get(bot_id, ("?", "?")) if isinstance(bot_id, int) else ("?", "?")
             for bot_id in _loads(seats_json, [])]
    return {
        "players": [name for name, _ in seats], "seed": seed, "starting_seat": start,
        "result": {"placements": _loads(placements, []), "desmos": _loads(desmos, []),
                   "tiebreak": tiebreak or "none", "forfeits": _loads(forfeits, {})},
        "referee": {"match_id": game.rpartition("/")[0], "game_index": index,
                    "seats": [f"{name}@{version}" for name, version in seats],
                    "failures": _loads(failures, [])},
    }


def require_game(store: Store, tournament_id: int, name: str, game: str) -> None:
    """Nothing when the store holds ``game`` of the tournament ``name``; else a
    :class:`StoreError` telling a user how a game id looks, when it does not look like one,
    or where the tournament's games are (its rounds, a round's tables or a table's games), so
    that the next try finds one."""
    if store.conn.execute("SELECT 1 FROM games WHERE id = ?", (game,)).fetchone():
        return
    place = _GAME_PLACE.fullmatch(game.split("/", 1)[1])
    if place is None:
        raise StoreError(f"{game} is not a game id: one looks like "
                         f"{shell_word(f'{name}/r1/t0/g3')} (round from 1, table and game "
                         f"from 0; arena status {shell_word(name)} names the failing games)")
    round_no, table = int(place[1]), int(place[2])
    missing = f"no game {game} in {store.path}"
    rounds = _span(store, "round", tournament_id)
    if rounds is None:
        raise StoreError(f"{missing}: {name} has no games yet")
    tables = _span(store, "table_index", tournament_id, round_no)
    if tables is None:
        raise StoreError(f"{missing}: {name} has games in {_shown('round', 'r', rounds)}")
    games = _span(store, "game_index", tournament_id, round_no, table)
    if games is None:
        raise StoreError(f"{missing}: round {round_no} of {name} has "
                         f"{_shown('table', 't', tables)}")
    raise StoreError(f"{missing}: {name}/r{round_no}/t{table} has "
                     f"{_shown('game', 'g', games)}")


def _span(store: Store, column: str, tournament_id: int,
          *within: int) -> tuple[int, int] | None:
    """The lowest and highest ``column`` (round, table_index or game_index) of the stored
    games of a tournament, ``within`` a round (and table); None where there are none."""
    where = "".join(f" AND {key} = ?" for key in ("round", "table_index")[:len(within)])
    lowest, highest = store.conn.execute(
        f"SELECT MIN({column}), MAX({column}) FROM games "  # the columns are this module's
        f"WHERE tournament_id = ?{where}", (tournament_id, *within)).fetchone()
    return None if lowest is None else (int(lowest), int(highest))


def _shown(noun: str, letter: str, span: tuple[int, int]) -> str:
    """``games g0-g9``, or ``game g0`` for a span of one."""
    lowest, highest = span
    if lowest == highest:
        return f"{noun} {letter}{lowest}"
    return f"{noun}s {letter}{lowest}-{letter}{highest}"
