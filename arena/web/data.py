"""What the site shows of one stored tournament, read from the results database (read only).

Every number comes from the rating layer's own functions: the leaderboard is
:func:`arena.rating.leaderboard.leaderboard_json` of :func:`build_leaderboard` (the rows of
``arena leaderboard --format json``), head-to-head is :func:`arena.rating.h2h.h2h_json` of
:func:`build_h2h` (``arena h2h --format json``), ratings over games are
:func:`arena.rating.trueskill_rating.rate_games`'s history, and points per table are
:func:`arena.rating.standings.game_points`. A tournament's drawn seed is kept from view until
it finishes, as the CLI keeps it (:func:`arena.tournament.store.seed_is_secret`).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from arena.errors import StoreError
from arena.rating.games import (
    StoredGame,
    TournamentInfo,
    connect,
    find_tournament,
    list_tournaments,
    load_games,
    tournament_bots,
)
from arena.rating.h2h import build_h2h, h2h_json
from arena.rating.leaderboard import build_leaderboard, leaderboard_json
from arena.rating.standings import game_points
from arena.rating.trueskill_rating import rate_games, settings_for
from arena.tournament.store import seed_is_secret

__all__ = ["GameRow", "TournamentData", "game_slug", "load_tournament", "progress",
           "read_records", "tournament_names"]


def game_slug(game_id: str) -> str:
    """A game's page name: ``swiss/r1/t0/g3`` -> ``r1-t0-g3`` (the tournament is the site)."""
    return "-".join(game_id.split("/")[1:]) or game_id


@dataclass
class GameRow:
    """One game in the list: who sat where, how they placed, categories, failures."""

    id: str
    slug: str
    round: int
    table: int
    game: int
    seats: list[str]
    placements: list[int]
    desmos: list[str]
    tiebreak: str
    ascension: bool
    failures: list[dict[str, Any]]
    forfeits: dict[str, str]
    decisions: int

    @property
    def winner(self) -> str:
        return ", ".join(s for s, p in zip(self.seats, self.placements) if p == 1)

    @property
    def best_category(self) -> str:
        """The winner's category: what a reader filters "showdowns won by a Quartet" by."""
        firsts = [c for c, p in zip(self.desmos, self.placements) if p == 1]
        return firsts[0] if firsts else ""


@dataclass
class TournamentData:
    """Everything the pages of one tournament show."""

    info: TournamentInfo
    seed: str
    games_planned: int | None
    leaderboard: dict[str, Any]
    h2h: dict[str, Any]
    #: per bot key: [[its game number, mu, sigma], ...], from the prior (game 0)
    history: dict[str, list[list[float]]]
    games: list[GameRow]
    rounds: list[dict[str, Any]] = field(default_factory=list)

    @property
    def done(self) -> int:
        return len(self.games)


def tournament_names(db: str | Path) -> list[str]:
    """The stored tournaments, oldest first."""
    with connect(db) as conn:
        return [t.name for t in list_tournaments(conn, db)]


def _shown_seed(info: TournamentInfo) -> str:
    if seed_is_secret(info.spec, info.state):
        return "drawn, secret until the tournament finishes"
    drawn = " (drawn: the spec gives none)" if info.spec.get("seed", 0) is None else ""
    return f"{info.seed}{drawn}"


def _game_rows(conn: sqlite3.Connection, info: TournamentInfo,
               games: list[StoredGame]) -> list[GameRow]:
    extra = {str(r[0]): r for r in conn.execute(
        "SELECT id, desmos_json, tiebreak, ascension, failures_json, decisions "
        "FROM games WHERE tournament_id = ?", (info.id,))}
    rows = []
    for game in games:
        raw = extra.get(game.id)
        desmos = json.loads(raw[1] or "[]") if raw is not None else []
        failures = json.loads(raw[4] or "[]") if raw is not None else []
        rows.append(GameRow(
            id=game.id, slug=game_slug(game.id), round=game.round, table=game.table_index,
            game=game.game_index, seats=[bot.key for bot in game.seats],
            placements=list(game.placements), desmos=[str(d) for d in desmos],
            tiebreak=str(raw[2] or "none") if raw is not None else "none",
            ascension=bool(raw[3]) if raw is not None else False,
            failures=[f for f in failures if isinstance(f, dict)],
            forfeits={str(seat): reason for seat, reason in game.forfeits},
            decisions=int(raw[5] or 0) if raw is not None else 0))
    return rows


def _history(games: list[StoredGame], info: TournamentInfo,
             entrants: list[Any]) -> dict[str, list[list[float]]]:
    """Each bot's rating after each of its own games (numbered 1, 2, ... per bot, in rating
    order), from the prior at 0: bots that sit at different tables compare game for game."""
    settings = settings_for(info)
    run = rate_games(games, settings, entrants)
    history: dict[str, list[list[float]]] = defaultdict(list)
    for key in run.ratings:
        history[key].append([0, round(settings.mu, 4), round(settings.sigma, 4)])
    for step in run.history:
        line = history[step.bot.key]
        line.append([len(line), round(step.after.mu, 4), round(step.after.sigma, 4)])
    return dict(history)


def _rounds(conn: sqlite3.Connection, info: TournamentInfo,
            games: list[StoredGame]) -> list[dict[str, Any]]:
    """Each round's tables (bots, points, games played of planned) and byes."""
    bots = {b.id: b.key for b in tournament_bots(conn, None)}
    points: dict[tuple[int, int], dict[str, Fraction]] = defaultdict(lambda: defaultdict(
        Fraction))
    played: dict[tuple[int, int], int] = defaultdict(int)
    for game in games:
        for bot, pts in game_points(game).items():
            points[(game.round, game.table_index)][bot.key] += pts
        played[(game.round, game.table_index)] += 1
    rounds: dict[int, dict[str, Any]] = {}
    for rnd, table, seats_json, planned in conn.execute(
            "SELECT round, table_index, seats_json, games FROM tables WHERE tournament_id = ? "
            "ORDER BY round, table_index", (info.id,)):
        seats = [bots.get(int(s), f"bot {s}") for s in json.loads(seats_json or "[]")]
        score = points[(rnd, table)]
        rounds.setdefault(rnd, {"round": rnd, "tables": [], "byes": []})["tables"].append({
            "table": table, "seats": seats, "points": [float(score.get(s, 0)) for s in seats],
            "played": played[(rnd, table)], "planned": int(planned or 0)})
    for rnd, bot_id, pts in conn.execute(
            "SELECT round, bot_id, points FROM byes WHERE tournament_id = ? "
            "ORDER BY round, bot_id", (info.id,)):
        rounds.setdefault(rnd, {"round": rnd, "tables": [], "byes": []})["byes"].append(
            {"bot": bots.get(int(bot_id), f"bot {bot_id}"), "points": float(pts)})
    return [rounds[r] for r in sorted(rounds)]


def load_tournament(db: str | Path, name: str) -> TournamentData:
    """Read one tournament for the site. Raises :class:`StoreError` when it is missing."""
    with connect(db) as conn:
        info = find_tournament(conn, name, db)
        games = load_games(conn, info.id)
        entrants = tournament_bots(conn, info.id)
        rows = _game_rows(conn, info, games)
        history = _history(games, info, entrants)
        rounds = _rounds(conn, info, games)
    board = leaderboard_json(build_leaderboard(db, name))
    h2h = h2h_json(build_h2h(db, name))
    planned = info.columns.get("games_planned")
    return TournamentData(info=info, seed=_shown_seed(info),
                          games_planned=int(planned) if planned else None,
                          leaderboard=board, h2h=h2h, history=history, games=rows,
                          rounds=rounds)


def progress(db: str | Path, name: str) -> dict[str, Any]:
    """Games recorded and the state of a tournament: what a live page polls, cheaply."""
    with connect(db) as conn:
        info = find_tournament(conn, name, db)
        games = conn.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ?",
                             (info.id,)).fetchone()[0]
    return {"games": int(games), "state": info.state}


def read_records(db: str | Path, name: str,
                 only: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(game id, record)`` of a tournament's games in id order (``only``: that game)."""
    with connect(db) as conn:
        info = find_tournament(conn, name, db)
        query = ("SELECT r.game_id, r.record FROM records r JOIN games g ON g.id = r.game_id "
                 "WHERE r.tournament_id = ?")
        params: tuple[Any, ...] = (info.id,)
        if only is not None:
            query += " AND r.game_id = ?"
            params += (only,)
        query += " ORDER BY g.round, g.table_index, g.game_index"
        try:
            for game_id, blob in conn.execute(query, params):
                yield str(game_id), json.loads(zlib.decompress(blob))
        except sqlite3.OperationalError as exc:  # an old store without the records table
            raise StoreError(f"{db} holds no game records ({exc})") from None
