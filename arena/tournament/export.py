"""``arena export``: a tournament's games as JSON lines for other tools, one game a line with
its result and its whole record, under a versioned schema (docs/RECORDS.md, "Exported
games")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from arena.errors import DamagedRecordError, StoreError
from arena.tournament.bot_versions import bot_labels
from arena.tournament.game_records import ExportedRecords, game_record
from arena.tournament.scoring import game_points
from arena.tournament.standings import forfeited_seats
from arena.tournament.store import GameRow, Store

__all__ = ["EXPORT_SCHEMA_VERSION", "export_games"]

#: The version of an exported line's fields; a change that a reader could trip on (a field
#: renamed, removed or given another meaning) raises it, a field added does not.
EXPORT_SCHEMA_VERSION = 1


def export_games(db: str | Path, tournament: str, out: IO[str]) -> ExportedRecords:
    """Write every stored game of ``tournament`` to ``out`` as JSON lines, in play order
    (round, table, game): how many, and the games left out because their stored record is
    damaged (a line is a game with its record, which readers replay). A tournament whose
    every record is damaged writes nothing and raises the first's error."""
    skipped: list[DamagedRecordError] = []
    with Store(db, create=False, read_only=True) as store:
        row = store.require(tournament)
        keys = bot_labels(store)
        count = 0
        for game in store.games(row.id):
            try:
                record = game_record(store, game.id)
            except DamagedRecordError as exc:
                skipped.append(exc)
                continue
            line = _line(tournament, game, keys, record)
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
            count += 1
    if not count and skipped:
        raise skipped[0]
    return ExportedRecords(count, skipped)


def _line(tournament: str, game: GameRow, keys: dict[int, str],
          record: dict[str, Any]) -> dict[str, Any]:
    result = record.get("result") or {}
    seats = [keys.get(b) for b in game.seats]
    if None in seats:
        raise StoreError(f"game {game.id} names a bot the database does not hold")
    return {
        "schema_version": EXPORT_SCHEMA_VERSION,
        "tournament": tournament,
        "game_id": game.id,
        "round": game.round,
        "table": game.table_index,
        "game": game.game_index,
        "seed": game.seed,
        "seats": seats,
        "starting_seat": game.starting_seat,
        "placements": list(game.placements),
        "desmos": result.get("desmos"),
        "ascension": result.get("ascension"),
        "tiebreak": result.get("tiebreak"),
        "forfeits": game.forfeits,
        # the placements are the engine's, which put a game every seat forfeited as a shared
        # first: the points say what the standings count (a forfeit scores nothing)
        "points": [float(points) for points in game_points(game.placements,
                                                           forfeited_seats(game.forfeits))],
        "failures": game.failures,
        "decisions": game.decisions,
        "duration_s": game.duration_s,
        "record": record,
    }
