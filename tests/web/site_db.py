"""A small Swiss tournament for the site's tests, written through the tournament store as the
runner writes one: real game records (random agents, in-process) with the referee's part,
tables, a bye every round, one failure and one three-player table."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.engine.agents import RandomAgent, play_game
from arena.engine.config import GameConfig
from arena.tournament.game_records import compress_record
from arena.tournament.store import Store, TableRow, game_id

NAME = "cup"
BOTS = [("alpha", "v1"), ("beta", "v1"), ("gamma", "v1"), ("delta", "v1")]
#: (round, table, entrant indexes by seat, games); entrants not seated in a round get a bye
TABLES = [(1, 0, (0, 1), 3), (1, 1, (2, 3), 2), (2, 0, (0, 2, 3), 2), (3, 0, (1, 3), 2)]
FAILING_GAME = f"{NAME}/r1/t0/g1"
#: What a bot's crash message may hold: markup meant to end or take over the page's scripts.
HOSTILE = ' </script><!--<script> "\'><img src=x onerror="document.title=\'owned\'">'


def _record(names: list[str], keys: list[str], seed: int, match: str, index: int,
            failures: list[dict[str, Any]]) -> dict[str, Any]:
    config = GameConfig(players=tuple(names), seed=seed, starting_seat=index % len(names),
                        event_date=dt.date(2026, 11, 29))
    state = play_game(config, [RandomAgent(seed + seat) for seat in range(len(names))])
    record = state.record()
    record["referee"] = {"match_id": match, "game_index": index, "seats": keys,
                         "failures": failures, "logs": {}}
    return record


#: Names as long as a spec lets an entry have, to stress the pages' layout
LONG_NAMES = [("heuristic-entered-under-a-very-long-name-of-sixty-chars-xx", "v1"),
              ("supercalifragilisticexpialidocious_collector", "v1"),
              ("GreedyWithAnExtraordinarilyLongNameForL", "v1"), ("delta", "v1")]


#: Names a bot entered by its path may give itself (markup is no reason to refuse one)
HOSTILE_NAMES = [('"><img src=x onerror="document.title=\'owned\'">', "v1"),
                 ("</script><script>document.title='owned'</script>", "v1"),
                 ("<!--<script>", "v1"), ("delta", "v1")]


#: The format of the records an arena stored before today's rules (RULES.md E29 and E10)
OLDER_FORMAT = "palaestra-record/5"

#: Names a tournament stored before the name rule may hold: right-to-left letters (Hebrew,
#: Arabic), and a tall stack of combining marks
TALL = "z" + "\u0301\u0300\u0302\u0303\u0304\u0306\u0307\u0308\u030a\u030b" * 4 + "alg"
RTL_NAMES = [("\u05e9\u05dc\u05d5\u05dd", "v1"), ("\u0645\u0631\u062d\u0628\u0627", "v1"),
             (TALL, "v1"), ("delta", "v1")]


def build(path: Path, *, state: str = "finished", drawn_seed: bool = False,
          rounds: int = 3, bots: list[tuple[str, str]] = BOTS,
          record_format: str | None = None,
          failure_detail: str = "decision took 1.2 s" + HOSTILE,
          spec_fields: dict[str, Any] | None = None) -> Path:
    """Write the tournament to ``path`` (rounds 1..``rounds`` of :data:`TABLES`), its
    entrants ``bots`` (name, version); ``record_format``: every record stored says it was
    made under that format's rules, as in a tournament an older arena ran (the games are this
    engine's: only the format a record names tells the two apart); ``failure_detail``: what
    the one failure of :data:`FAILING_GAME` says; ``spec_fields``: more of its spec (a
    Swiss's ``withdrawn``, ``joined``)."""
    store = Store(path)
    spec = {"name": NAME, "format": "swiss", "players_per_game": [2, 3],
            "seed": None if drawn_seed else 5, "rounds": 3, "event_date": "2026-11-29",
            **(spec_fields or {})}
    row = store.create_tournament(
        name=NAME, spec_hash="hash", spec_json=spec, format="swiss", players_per_game=2,
        seed=987654321, event_date=dt.date(2026, 11, 29), rounds=3,
        games_planned=sum(t[3] for t in TABLES), spec_path=None,
        bots=[(n, v, f"bots/{n}", {}) for n, v in bots])
    ids = store.entrant_ids(row.id)
    keys = [f"{n}@{v}" for n, v in bots]
    for rnd, table, seats, games in TABLES:
        if rnd > rounds:
            continue
        seated = {i for r, _, s, _ in TABLES if r == rnd for i in s}
        joined = spec.get("joined") or {}
        byes = [(rnd, ids[i], 1.0) for i in range(len(bots))
                if i not in seated and joined.get(bots[i][0], 1) <= rnd]
        store.add_tables(row.id, [TableRow(rnd, table, tuple(ids[i] for i in seats),
                                           seed=rnd * 100 + table, deal=table, games=games)],
                         byes=byes)
        for g in range(games):
            gid = game_id(NAME, rnd, table, g)
            seat_keys = [keys[i] for i in seats]
            failures = ([{"seat": 1, "bot": seat_keys[1], "type": "timeout",
                          "detail": failure_detail, "round": 2, "kind": "turn"}]
                        if gid == FAILING_GAME else [])
            seed = rnd * 1000 + table * 10 + g
            record = _record([bots[i][0] for i in seats], seat_keys, seed,
                             f"{NAME}/r{rnd}/t{table}", g, failures)
            if record_format is not None:
                record["format"] = record_format
            result = record["result"]
            store.record_game(row.id, {
                "id": gid, "round": rnd, "table_index": table, "game_index": g, "seed": seed,
                "seats": [ids[i] for i in seats], "starting_seat": g % len(seats),
                "placements": result["placements"], "desmos": result["desmos"],
                "ascension": result["ascension"], "tiebreak": result["tiebreak"],
                "failures": failures, "forfeits": {}, "decisions": len(record["choices"]),
                "duration_s": 0.01}, compress_record(record))
    store.set_state(row.id, state)
    store.close()
    return path


def land_a_game(path: Path) -> None:
    """A game lands in the database at ``path``: a copy of round 1's first, as round 2's."""
    import sqlite3

    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO games SELECT 'cup/r2/t0/g0', tournament_id, 2, 0, 0, seed, "
                     "seats_json, starting_seat, placements_json, desmos_json, ascension, "
                     "tiebreak, failures_json, forfeits_json, decisions, duration_s, "
                     "record_path, created_at, latency_json FROM games WHERE id = "
                     "'cup/r1/t0/g0'")
    conn.close()


def isolated_names(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its players' names isolated, as a page's narration names them."""
    return {**record, "players": [f"\u2068{name}\u2069" for name in record["players"]]}


def damage(path: Path, game: str) -> dict[str, Any]:
    """Rewrite stored game ``game``'s record, still of today's format, so that it no longer
    replays: its first choice's index is one no decision offers (as an edit or a bad disk
    would leave it). The record as stored now."""
    import json
    import sqlite3
    import zlib

    with sqlite3.connect(path) as conn:
        (blob,) = conn.execute("SELECT record FROM records WHERE game_id = ?", (game,)).fetchone()
        record = json.loads(zlib.decompress(blob))
        record["choices"][0][2] = 99
        conn.execute("UPDATE records SET record = ? WHERE game_id = ?",
                     (zlib.compress(json.dumps(record).encode()), game))
    conn.close()
    return record


#: How a stored record can be damaged, and the reason the arena gives for each: a blob cut
#: short, zlib of text that is not JSON, JSON that is not a record
BREAKS = {"truncated": "Error -5 while decompressing data: incomplete or truncated stream",
          "not JSON": "not JSON", "a list": "not a record",
          "nested": "not JSON: nested too deeply",
          "a bomb": "over 16 MiB inflated"}


def _bomb(blob: bytes) -> bytes:
    """The record of ``blob`` with 17 MiB of spaces in it: JSON still, and the same game."""
    import zlib

    text = zlib.decompress(blob)
    return zlib.compress(text[:1] + b" " * (17 * 2**20) + text[1:], 9)


def break_record(path: Path, game: str, how: str) -> None:
    """Damage stored game ``game``'s blob as :data:`BREAKS` names ``how``."""
    import sqlite3
    import zlib

    conn = sqlite3.connect(path)
    with conn:
        (blob,) = conn.execute("SELECT record FROM records WHERE game_id = ?", (game,)).fetchone()
        broken = {"truncated": blob[:len(blob) // 2], "not JSON": zlib.compress(b"{not json"),
                  "a list": zlib.compress(b"[1, 2]"),
                  "nested": zlib.compress(b"[" * 100_000 + b"]" * 100_000),
                  # a few kB that inflate past any game's record: a whole server's memory
                  # at a thousand times their size
                  "a bomb": _bomb(blob)}[how]
        conn.execute("UPDATE records SET record = ? WHERE game_id = ?", (broken, game))
    conn.close()


@contextlib.contextmanager
def served(db: Path) -> Iterator[str]:
    """``arena serve`` of ``db`` on a free port while the block runs: the site's root
    address."""
    from arena.web.server import make_server

    server = make_server(db, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
