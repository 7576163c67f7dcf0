"""A class's finished Swiss for the site's tests: forty student bots, many with long names,
some with options, many with failures of several kinds (some forfeiting games), written
through the tournament store as site_db.py writes its cup."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from site_db import _record

from arena.tournament.game_records import compress_record
from arena.tournament.store import Store, TableRow, game_id

NAME = "class"
ROUNDS, GAMES_PER_TABLE = 5, 2
#: a spread of what students call their bots, up to a spec's longest
_STEMS = ["heuristic-entered-under-a-very-long-name-of-sixty-chars-xx",
          "supercalifragilisticexpialidocious_collector", "GreedyWithAnExtraordinarilyLongName",
          "mcts", "random-baseline", "trap_setter_deluxe", "ascension-hunter"]
BOTS = [(f"s{i:02d}-{_STEMS[i % len(_STEMS)]}"[:60], "v1") for i in range(40)]
#: options some students entered their bots with (the leaderboard labels the bot with them)
OPTIONS = {i: {"depth": 3 + i % 4, "exploration": 1.4} for i in range(0, 40, 6)}
#: failure kinds in turn: a strike, a forfeit, another strike, another forfeit
_KINDS = [("timeout", False), ("crash", True), ("illegal_choice", False),
          ("memory_limit", True), ("protocol_error", False)]


def _pairs(round_number: int) -> list[tuple[int, int]]:
    """Round ``round_number``'s tables: a circle method's pairing of the forty."""
    n = len(BOTS)
    circle = [0, *[(i + round_number - 1) % (n - 1) + 1 for i in range(n - 1)]]
    return [(circle[i], circle[n - 1 - i]) for i in range(n // 2)]


def _failures(keys: list[str], seed: int) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """One failure in about every third game, by the seat whose bot fails often."""
    if seed % 3:
        return [], {}
    seat = seed % 2
    kind, fatal = _KINDS[(seed // 3 + seed // 1000) % len(_KINDS)]
    failure = {"seat": seat, "bot": keys[seat], "type": kind, "detail": f"{kind} in game",
               "round": 1, "kind": "turn"}
    return [failure], ({str(seat): kind} if fatal else {})


def build(path: Path) -> Path:
    """Write the finished tournament to ``path``."""
    store = Store(path)
    spec = {"name": NAME, "format": "swiss", "players_per_game": 2, "seed": 7,
            "rounds": ROUNDS, "event_date": "2026-11-29"}
    row = store.create_tournament(
        name=NAME, spec_hash="hash", spec_json=spec, format="swiss", players_per_game=2,
        seed=7, event_date=dt.date(2026, 11, 29), rounds=ROUNDS,
        games_planned=ROUNDS * len(BOTS) // 2 * GAMES_PER_TABLE, spec_path=None,
        bots=[(n, v, f"bots/{n}", {"options": OPTIONS[i]} if i in OPTIONS else {})
              for i, (n, v) in enumerate(BOTS)])
    ids = store.entrant_ids(row.id)
    keys = [f"{n}@{v}" for n, v in BOTS]
    for rnd in range(1, ROUNDS + 1):
        for table, seats in enumerate(_pairs(rnd)):
            store.add_tables(row.id, [TableRow(rnd, table, tuple(ids[i] for i in seats),
                                               seed=rnd * 100 + table, deal=table,
                                               games=GAMES_PER_TABLE)], byes=[])
            for g in range(GAMES_PER_TABLE):
                seed = rnd * 1000 + table * 10 + g
                seat_keys = [keys[i] for i in seats]
                failures, forfeits = _failures(seat_keys, seed)
                record = _record([BOTS[i][0] for i in seats], seat_keys, seed,
                                 f"{NAME}/r{rnd}/t{table}", g, failures)
                result = record["result"]
                store.record_game(row.id, {
                    "id": game_id(NAME, rnd, table, g), "round": rnd, "table_index": table,
                    "game_index": g, "seed": seed, "seats": [ids[i] for i in seats],
                    "starting_seat": g % 2, "placements": result["placements"],
                    "desmos": result["desmos"], "ascension": result["ascension"],
                    "tiebreak": result["tiebreak"], "failures": failures,
                    "forfeits": forfeits, "decisions": len(record["choices"]),
                    "duration_s": 0.01}, compress_record(record))
    store.set_state(row.id, "finished")
    store.close()
    return path
