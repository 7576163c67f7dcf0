"""Synthetic results databases for the rating tests, written through the tournament store API.

Games go in with :meth:`arena.tournament.store.Store.record_game`, exactly as the runner writes
them, and may be added in any order to show that the order of insertion (i.e. of completion)
never matters to the ratings.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.tournament.game_records import compress_record
from arena.tournament.store import Store, game_id, stored_metadata


@dataclass
class GameSpec:
    """A game to be written: seats are bot ids."""

    tournament_id: int
    round: int
    table_index: int
    game_index: int
    seats: list[int]
    placements: list[int]
    failures: list[dict[str, Any]] = field(default_factory=list)
    forfeits: dict[str, str] = field(default_factory=dict)
    #: None: a seed of its own (no two games one deal); equal seeds make a duplicate deal.
    seed: int | None = None


class StoreBuilder:
    """Builds a results database tournament by tournament, game by game."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.store = Store(path)
        self._names: dict[int, str] = {}

    def close(self) -> None:
        self.store.close()

    def tournament(self, name: str, bots: Sequence[str | tuple[str, str]], fmt: str = "round_robin",
                   players: int = 2, rating: dict[str, float] | None = None,
                   state: str = "finished", games_planned: int = 0,
                   duplicate: bool = False,
                   options: dict[str, dict[str, Any]] | None = None) -> tuple[int, list[int]]:
        """Create a tournament with its entrants; returns its id and the entrants' bot ids.
        ``options``: the settings an entrant (by name) was entered with."""
        entrants = [(b, "v1") if isinstance(b, str) else b for b in bots]
        spec: dict[str, Any] = {"name": name, "format": fmt, "players_per_game": players,
                                "seed": 1}
        if duplicate:
            spec["duplicate"] = True
        if rating is not None:
            spec["rating"] = rating
        row = self.store.create_tournament(
            name=name, spec_hash=f"hash-{name}", spec_json=spec, format=fmt,
            players_per_game=players, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=games_planned, spec_path=None,
            bots=[(n, v, f"bots/{n}", stored_metadata({}, (options or {}).get(n, {})))
                  for n, v in entrants])
        if state != "running":
            self.store.set_state(row.id, state)
        self._names[row.id] = name
        ids = self.store.entrant_ids(row.id)
        return row.id, ids

    def bye(self, tournament_id: int, round_no: int, bot_id: int, points: float) -> None:
        self.store.add_tables(tournament_id, [], byes=[(round_no, bot_id, points)])

    def game(self, spec: GameSpec) -> str:
        gid = game_id(self._names[spec.tournament_id], spec.round, spec.table_index,
                      spec.game_index)
        row = {
            "id": gid, "round": spec.round, "table_index": spec.table_index,
            "game_index": spec.game_index,
            "seed": spec.seed if spec.seed is not None else
            (spec.round * 1000 + spec.table_index) * 1000 + spec.game_index + 1,
            "seats": spec.seats,
            "starting_seat": 0, "placements": spec.placements,
            "desmos": ["Nothing"] * len(spec.seats), "ascension": False, "tiebreak": "",
            "failures": spec.failures, "forfeits": spec.forfeits, "decisions": 10,
            "duration_s": 0.01,
        }
        assert self.store.record_game(spec.tournament_id, row, compress_record({"id": gid}))
        return gid


def competition_ranking(scores: Sequence[int]) -> list[int]:
    """Placements from scores, higher is better, ties share a place ("1, 1, 3")."""
    return [1 + sum(other > mine for other in scores) for mine in scores]


def random_games(tournament_id: int, bot_ids: Sequence[int], rounds: int, players: int,
                 rng: random.Random, games_per_table: int = 2) -> list[GameSpec]:
    """Random tables and placements, ties and forfeits included."""
    games: list[GameSpec] = []
    for rnd in range(rounds):
        order = list(bot_ids)
        rng.shuffle(order)
        tables = [order[i:i + players] for i in range(0, len(order) - players + 1, players)]
        for t, seats in enumerate(tables):
            for g in range(games_per_table):
                scores = [rng.randint(0, 2) for _ in seats]  # small range: many ties
                failures: list[dict[str, Any]] = []
                forfeits: dict[str, str] = {}
                if rng.random() < 0.15:
                    seat = rng.randrange(len(seats))
                    scores[seat] = -1  # the referee places a forfeit last
                    failures.append({"seat": seat, "bot": seats[seat], "type": "crash",
                                     "detail": "exit code 1"})
                    forfeits[str(seat)] = "crash"
                if rng.random() < 0.2:
                    seat = rng.randrange(len(seats))
                    failures.append({"seat": seat, "bot": seats[seat], "type": "timeout",
                                     "detail": "decision took 1.2 s"})
                placements = competition_ranking(scores)
                games.append(GameSpec(tournament_id, rnd, t, g, list(seats), placements,
                                      failures, forfeits, seed=rng.randrange(2**62)))
    return games


BOT_NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")


def build_store(path: Path, games_order_seed: int | None = None, players: int = 3,
                rounds: int = 4, fmt: str = "round_robin", name: str = "cup",
                seed: int = 7) -> StoreBuilder:
    """A tournament of six bots with random games, inserted in a shuffled order if asked."""
    builder = StoreBuilder(path)
    tid, bots = builder.tournament(name, BOT_NAMES, fmt=fmt, players=players)
    games = random_games(tid, bots, rounds, players, random.Random(seed))
    if games_order_seed is not None:
        random.Random(games_order_seed).shuffle(games)
    for game in games:
        builder.game(game)
    return builder
