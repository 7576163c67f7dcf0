"""A small league for the site's tests, written through the store as a league writes one:
entries recorded by the league's own code (:meth:`League._enter`: a version entering retires
the one it replaces, a refused one keeps its reason), its tables numbered as rounds with their
duplicate seatings, and real game records (random agents, in-process)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, cast

from site_db import _record

from arena.registry import BotSpec
from arena.tournament.game_records import compress_record
from arena.tournament.league import League
from arena.tournament.league_store import retire_entry
from arena.tournament.store import Store, TableRow, game_id

NAME = "ladder"
FIRST = [("alpha", "v1"), ("beta", "v1"), ("gamma", "v1")]
#: (table, the bots by key, entries before it: (name, version, refusal or None))
TABLES: list[tuple[int, tuple[str, str], list[tuple[str, str, str | None]]]] = [
    (1, ("alpha@v1", "beta@v1"), []),
    (2, ("beta@v1", "gamma@v1"), []),
    (3, ("alpha@v2", "gamma@v1"), [("alpha", "v2", None),
                                   ("delta", "v1", "failed the compliance check: hello: no "
                                                   "reply")]),
    (4, ("alpha@v2", "beta@v1"), []),
]


def _bot(name: str, version: str) -> BotSpec:
    return BotSpec(name=name, version=version, path=Path(f"bots/{name}"), command=("true",))


def build(path: Path, *, tables: int = len(TABLES), budget: int = 0,
          state: str = "stopped", retire: str | None = None) -> Path:
    """Write the league to ``path``: its first ``tables`` tables, each one deal in both
    seatings, one game each (``budget``: the games planned, 0 for a league without end;
    ``retire``: a bot the organiser then retires, as ``arena league retire`` does)."""
    store = Store(path)
    spec = {"name": NAME, "format": "league", "bots": ["*"], "players_per_game": 2,
            "games_per_match": 1, "duplicate": True, "seed": 5, "event_date": "2026-11-29",
            **({"budget": {"games": budget}} if budget else {})}
    row = store.create_tournament(
        name=NAME, spec_hash="hash", spec_json=spec, format="league", players_per_game=2,
        seed=5, event_date=dt.date(2026, 11, 29), rounds=0, games_planned=budget,
        spec_path=None, bots=[(n, v, f"bots/{n}", {}) for n, v in FIRST])
    league = League(spec=cast(Any, None), store=store, row=row, play=lambda rows: None,
                    by_id={})
    for name, version in FIRST:
        league._enter(_bot(name, version), 1, None)
    for number, keys, entering in TABLES[:tables]:
        for name, version, refusal in entering:
            league._enter(_bot(name, version), number, refusal)
        ids = {b.key: b.id for b in _entrants(store, row.id)}
        for seating, seats in enumerate((keys, keys[::-1])):
            store.add_tables(row.id, [TableRow(number, seating, tuple(ids[k] for k in seats),
                                               seed=number * 100, deal=0, games=1)])
            gid = game_id(NAME, number, seating, 0)
            seed = number * 1000 + seating
            record = _record([k.split("@")[0] for k in seats], list(seats), seed,
                             f"{NAME}/r{number}/t{seating}", 0, [])
            result = record["result"]
            store.record_game(row.id, {
                "id": gid, "round": number, "table_index": seating, "game_index": 0,
                "seed": seed, "seats": [ids[k] for k in seats], "starting_seat": 0,
                "placements": result["placements"], "desmos": result["desmos"],
                "ascension": result["ascension"], "tiebreak": result["tiebreak"],
                "failures": [], "forfeits": {}, "decisions": len(record["choices"]),
                "duration_s": 0.01}, compress_record(record))
    if retire is not None:
        retire_entry(store, row, retire)
    store.set_state(row.id, state)
    store.close()
    return path


class _Entrant:
    def __init__(self, key: str, bot_id: int) -> None:
        self.key, self.id = key, bot_id


def _entrants(store: Store, tournament_id: int) -> list[_Entrant]:
    return [_Entrant(f"{name}@{version}", int(bot_id)) for bot_id, name, version in
            store.conn.execute("SELECT b.id, b.name, b.version FROM bots b JOIN "
                               "tournament_bots t ON t.bot_id = b.id WHERE t.tournament_id = ?",
                               (tournament_id,))]
