"""Read-only access to the tournament store for the rating layer.

The tournament layer owns the store (``arena/tournament/store.py``) and writes it; this module
only reads the documented tables (``docs/ARCHITECTURE.md``) into plain frozen dataclasses, so the
rating code is pure functions over :class:`StoredGame` values and never depends on how the rows
were written. Every query that feeds ratings orders games by their deterministic id
(tournament id, round, table, game index), never by insertion or completion order.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import standing_places
from arena.errors import StoreError
from arena.tournament.bot_versions import stored_options
from arena.tournament.dbfiles import (
    Attempt,
    newer_schema,
    no_database,
    read_connection,
    unknown_tournament,
    unreadable,
)
from arena.tournament.store import BUSY_TIMEOUT_S, DEFAULT_RESULTS, shown_state, stored_whole

__all__ = [
    "DEFAULT_DB",
    "BotVersion",
    "Failure",
    "StoredGame",
    "TournamentInfo",
    "bot_versions",
    "connect",
    "continued_entries",
    "find_tournament",
    "game_order_key",
    "latest_tournament",
    "list_tournaments",
    "load_byes",
    "load_games",
    "tournament_bots",
]

DEFAULT_DB = Path(DEFAULT_RESULTS)
"""Where ``arena run`` writes results unless the spec or ``--db`` says otherwise."""


@dataclass(frozen=True, order=True)
class BotVersion:
    """One registered version of a bot: ratings are kept per version, never per name."""

    name: str
    version: str
    id: int = field(compare=False)
    #: The settings the bot was entered with (its version's ``+o`` part names them).
    options: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> str:
        """``name@version``: the rating key, stable across databases (ids are not)."""
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class Failure:
    """One recorded bot failure (the referee's types: timeout, crash, protocol_error, ...)."""

    seat: int
    type: str
    detail: str = ""


@dataclass(frozen=True)
class StoredGame:
    """One finished game as the rating layer sees it."""

    id: str
    tournament_id: int
    tournament: str
    round: int
    table_index: int
    game_index: int
    seed: int
    seats: tuple[BotVersion, ...]
    placements: tuple[int, ...]
    failures: tuple[Failure, ...] = ()
    forfeits: tuple[tuple[int, str], ...] = ()

    # A board reads these for every game it scores, and most games have no forfeit.
    @property
    def forfeited(self) -> frozenset[int]:
        """The seats that forfeited (of the game's seats)."""
        if not self.forfeits:
            return frozenset()
        return frozenset(seat for seat, _ in self.forfeits if 0 <= seat < len(self.seats))

    @property
    def forfeited_bots(self) -> frozenset[BotVersion]:
        """The bots that forfeited every seat they held."""
        forfeited = self.forfeited
        if not forfeited:
            return frozenset()
        played = {bot for seat, bot in enumerate(self.seats) if seat not in forfeited}
        return frozenset(self.seats) - played

    @property
    def standing_places(self) -> list[int]:
        """Each seat's place as the standings count it: a forfeit is the table's last (E28)."""
        if not self.forfeits:
            return list(self.placements)
        return standing_places(self.placements, self.forfeited)

    @property
    def order_key(self) -> tuple[int, int, int, int, str]:
        """The deterministic rating order; the id breaks any tie so the order is total."""
        return game_order_key(self)


def game_order_key(game: StoredGame) -> tuple[int, int, int, int, str]:
    """Sort key giving the rating order (tournament id, round, table, game, id)."""
    return (game.tournament_id, game.round, game.table_index, game.game_index, game.id)


@dataclass(frozen=True)
class TournamentInfo:
    """A stored tournament's header row, plus its parsed spec (``{}`` when none is stored)."""

    id: int
    name: str
    format: str
    #: The table size, or the sizes of a ladder that mixes them (from its spec).
    players_per_game: int | list[int] | None
    seed: int | None
    state: str
    created_at: str | None
    finished_at: str | None
    spec: dict[str, Any]
    columns: dict[str, Any] = field(default_factory=dict)
    """Every column of the row, so columns the store adds later remain reachable."""


@contextmanager
def connect(db_path: str | Path) -> Iterator[sqlite3.Connection]:
    """Open an existing results database; never creates one.

    A missing file, a file that is not SQLite or one without the arena tables becomes a
    :class:`StoreError` with a one-line message, so the CLI never shows a traceback.
    """
    path = Path(db_path)
    if not path.is_file():
        raise no_database(db_path)
    attempt = Attempt(BUSY_TIMEOUT_S)
    try:
        conn = read_connection(path, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise StoreError(unreadable(path, exc, attempt)
                         or f"cannot open results database {db_path}: {exc}") from None
    conn.row_factory = sqlite3.Row
    try:
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            tables = {
                row[0]
                for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as exc:
            raise StoreError(unreadable(path, exc, attempt) or
                             f"{db_path} is not an arena results database ({exc})") from None
        newer = newer_schema(conn, Path(db_path))
        if newer:
            raise StoreError(newer)
        missing = {"tournaments", "bots", "games"} - tables
        if missing:
            raise StoreError(
                f"{db_path} is not an arena results database "
                f"(missing tables: {', '.join(sorted(missing))})"
            )
        yield conn
    except sqlite3.Error as exc:
        raise StoreError(f"results database {db_path}: {exc}") from None
    finally:
        conn.close()


def _tournament_from_row(row: sqlite3.Row, db_path: str | Path | None) -> TournamentInfo:
    """A stored tournament; with ``db_path``, its state as a live run shows it (a run that
    was killed is ``stopped``, not ``running``)."""
    columns = {key: row[key] for key in row.keys()}
    spec: dict[str, Any] = {}
    raw = columns.get("spec_json")
    if raw:
        try:
            loaded = json.loads(raw)
        except ValueError:
            loaded = None
        if isinstance(loaded, dict):
            spec = loaded
    return TournamentInfo(
        id=int(columns["id"]),
        name=str(columns["name"]),
        format=str(columns.get("format") or spec.get("format") or "?"),
        players_per_game=(spec["players_per_game"]
                          if isinstance(spec.get("players_per_game"), list)
                          else columns.get("players_per_game")),
        seed=columns.get("seed"),
        state=(shown_state(db_path, str(columns["name"]), str(columns.get("state") or "?"))
               if db_path is not None else str(columns.get("state") or "?")),
        created_at=columns.get("created_at"),
        finished_at=columns.get("finished_at"),
        spec=spec,
        columns=columns,
    )


def list_tournaments(conn: sqlite3.Connection,
                     db_path: str | Path | None = None) -> list[TournamentInfo]:
    """Every stored tournament, oldest first (by id, i.e. creation order); with ``db_path``
    (the file ``conn`` reads), states as :func:`_tournament_from_row` shows them."""
    rows = conn.execute("SELECT * FROM tournaments ORDER BY id").fetchall()
    return [_tournament_from_row(row, db_path) for row in rows]


def find_tournament(conn: sqlite3.Connection, name: str, db_path: str | Path) -> TournamentInfo:
    """The tournament called ``name``; the error lists what is stored so typos are obvious."""
    row = conn.execute("SELECT * FROM tournaments WHERE name = ?", (name,)).fetchone()
    if row is not None:
        return _tournament_from_row(row, db_path)
    # creation order, as the store lists them
    raise unknown_tournament(db_path, name, [t.name for t in list_tournaments(conn)])


def latest_tournament(conn: sqlite3.Connection, db_path: str | Path) -> TournamentInfo:
    """The most recently created tournament: what a user just ran, in the usual case."""
    row = conn.execute("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        raise StoreError(
            f"no tournaments stored in {db_path} yet "
            "(run one first, e.g. arena run tournaments/swiss.yaml)"
        )
    return _tournament_from_row(row, db_path)


def bot_versions(conn: sqlite3.Connection) -> dict[int, BotVersion]:
    """Every registered bot version by store id."""
    return {
        int(row["id"]): BotVersion(name=str(row["name"]), version=str(row["version"]),
                                   id=int(row["id"]),
                                   options=stored_options(row["metadata_json"]))
        for row in conn.execute("SELECT id, name, version, metadata_json FROM bots ORDER BY id")
    }


def tournament_bots(conn: sqlite3.Connection, tournament_id: int | None) -> list[BotVersion]:
    """The entrants of one tournament (or of all of them), in entry order, without duplicates.

    Entrants that have not played yet still belong on a leaderboard, which is why this is read
    separately from the games.
    """
    bots = bot_versions(conn)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "tournament_bots" not in tables:
        return []
    if tournament_id is None:
        rows = conn.execute(
            "SELECT bot_id FROM tournament_bots ORDER BY tournament_id, entry_index, bot_id"
        )
    else:
        rows = conn.execute(
            "SELECT bot_id FROM tournament_bots WHERE tournament_id = ? "
            "ORDER BY entry_index, bot_id",
            (tournament_id,),
        )
    seen: dict[int, BotVersion] = {}
    for (bot_id,) in rows:
        if bot_id in bots and bot_id not in seen:
            seen[bot_id] = bots[bot_id]
    return list(seen.values())


def continued_entries(conn: sqlite3.Connection, tournament_id: int
                      ) -> tuple[dict[int, int], int] | None:
    """For a tournament gone on with ``arena run --continue``: the entry index of every bot
    id that held an entry (the entrants, and the versions they replaced, whose games count
    for the entry's Swiss standing) and the number of entries; ``None`` for any other."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "successions" not in tables:
        return None
    retired = {int(old): int(index) for index, old in conn.execute(
        "SELECT entry_index, old_bot_id FROM successions WHERE tournament_id = ? "
        "ORDER BY rowid", (tournament_id,))}
    if not retired:
        return None
    entrants = [int(r[0]) for r in conn.execute(
        "SELECT bot_id FROM tournament_bots WHERE tournament_id = ? ORDER BY entry_index",
        (tournament_id,))]
    return {**retired, **{bot: index for index, bot in enumerate(entrants)}}, len(entrants)


def load_byes(conn: sqlite3.Connection, tournament_id: int | None
              ) -> list[tuple[int, int, BotVersion, float]]:
    """Swiss byes as ``(tournament id, round, bot, points)`` in order (none if no byes table)."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "byes" not in tables:
        return []
    bots = bot_versions(conn)
    query = "SELECT tournament_id, round, bot_id, points FROM byes"
    params: tuple[Any, ...] = ()
    if tournament_id is not None:
        query += " WHERE tournament_id = ?"
        params = (tournament_id,)
    query += " ORDER BY tournament_id, round, bot_id"
    return [(int(tid), int(rnd), bots[int(bot_id)], float(points or 0))
            for tid, rnd, bot_id, points in conn.execute(query, params)
            if int(bot_id) in bots]


def _json(raw: Any, default: Any, what: str, game_id: str) -> Any:
    if raw is None or raw == "":
        return default
    try:
        return json.loads(raw)
    except ValueError:
        raise StoreError(f"game {game_id}: {what} is not valid JSON") from None


def _seat_bot(entry: Any, bots: dict[int, BotVersion], by_key: dict[str, BotVersion],
              game_id: str) -> BotVersion:
    """Resolve a seat entry: a bot id as documented, or a ``name@version`` key."""
    if isinstance(entry, bool):
        entry = None
    if isinstance(entry, int) and entry in bots:
        return bots[entry]
    if isinstance(entry, str):
        if entry in by_key:
            return by_key[entry]
        if entry.isdigit() and int(entry) in bots:
            return bots[int(entry)]
    if isinstance(entry, dict):
        for name in ("bot_id", "id"):
            if isinstance(entry.get(name), int) and entry[name] in bots:
                return bots[entry[name]]
        if isinstance(entry.get("key"), str) and entry["key"] in by_key:
            return by_key[entry["key"]]
    raise StoreError(f"game {game_id}: seat entry {entry!r} is not a stored bot")


def _failures(raw: Any, seats: Sequence[BotVersion], game_id: str) -> tuple[Failure, ...]:
    items = raw if isinstance(raw, list) else []
    result: list[Failure] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        seat = item.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(seats):
            bot = item.get("bot")
            matches = [i for i, b in enumerate(seats) if bot in (b.key, b.name, b.id)]
            if len(matches) != 1:
                continue
            seat = matches[0]
        result.append(Failure(seat=seat, type=str(item.get("type", "unknown")),
                              detail=str(item.get("detail", "") or "")))
    return tuple(result)


def _forfeits(raw: Any, game_id: str) -> tuple[tuple[int, str], ...]:
    if isinstance(raw, dict):
        pairs = [(stored_whole(k, "forfeits_json's seat", f"game {game_id}"), str(v))
                 for k, v in raw.items()]
    elif isinstance(raw, list):
        pairs = []
        for item in raw:
            if isinstance(item, dict) and isinstance(item.get("seat"), int):
                pairs.append((item["seat"], str(item.get("reason", ""))))
            elif isinstance(item, int):
                pairs.append((item, ""))
    else:
        pairs = []
    return tuple(sorted(pairs))


def load_games(conn: sqlite3.Connection, tournament_id: int | None) -> list[StoredGame]:
    """Every recorded game of one tournament (``None``: of all), in rating order."""
    bots = bot_versions(conn)
    by_key = {b.key: b for b in bots.values()}
    names = {int(r[0]): str(r[1]) for r in conn.execute("SELECT id, name FROM tournaments")}
    query = (
        "SELECT id, tournament_id, round, table_index, game_index, seed, seats_json, "
        "placements_json, failures_json, forfeits_json FROM games"
    )
    params: tuple[Any, ...] = ()
    if tournament_id is not None:
        query += " WHERE tournament_id = ?"
        params = (tournament_id,)
    query += " ORDER BY tournament_id, round, table_index, game_index, id"
    games: list[StoredGame] = []
    for row in conn.execute(query, params):
        game_id = str(row["id"])
        seats_raw = _json(row["seats_json"], [], "seats_json", game_id)
        placements_raw = _json(row["placements_json"], None, "placements_json", game_id)
        if placements_raw is None:
            continue  # not finished: nothing to rate
        if not isinstance(seats_raw, list) or not isinstance(placements_raw, list) or len(
            seats_raw
        ) != len(placements_raw):
            raise StoreError(f"game {game_id}: seats and placements do not match")
        seats = tuple(_seat_bot(entry, bots, by_key, game_id) for entry in seats_raw)
        for place in placements_raw:
            if not isinstance(place, int) or isinstance(place, bool):
                raise StoreError(f"game {game_id}: a seat's place is not a whole number "
                                 f"({json.dumps(place)})")
        games.append(
            StoredGame(
                id=game_id,
                tournament_id=int(row["tournament_id"]),
                tournament=names.get(int(row["tournament_id"]), "?"),
                round=stored_whole(row["round"], "round", f"game {game_id}"),
                table_index=stored_whole(row["table_index"], "table", f"game {game_id}"),
                game_index=stored_whole(row["game_index"], "game index", f"game {game_id}"),
                seed=stored_whole(row["seed"], "seed", f"game {game_id}"),
                seats=seats,
                placements=tuple(placements_raw),
                failures=_failures(
                    _json(row["failures_json"], [], "failures_json", game_id), seats, game_id
                ),
                forfeits=_forfeits(_json(row["forfeits_json"], {}, "forfeits_json", game_id),
                                   game_id),
            )
        )
    games.sort(key=game_order_key)
    return games

