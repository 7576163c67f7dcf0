"""The standings of a stored Swiss tournament, from its recorded games and byes: what the
runner pairs a round by and what ``arena status`` shows (:mod:`arena.tournament.scoring`
computes them)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from arena.engine import standing_places
from arena.tournament.editions import entry_indexes
from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    RatedGame,
    Standing,
    conservative_ratings,
    game_points,
    spec_standings,
    spec_table_weight,
)
from arena.tournament.store import GameRow, Store, TournamentRow

__all__ = ["StandingsGame", "SwissInputs", "forfeited_seats", "scoring_inputs", "standings_of",
           "swiss_inputs", "swiss_standings"]

#: The scoring's inputs: tables played, byes, the games to rate, and the number of entrants.
SwissInputs = tuple[list[PlayedTable], list[Bye], list[RatedGame], int]
#: One game as the standings read it: round, table, bot ids by seat, placements, the seats that
#: forfeited.
StandingsGame = tuple[int, int, Sequence[int], Sequence[int], Collection[int]]


def swiss_standings(
    store: Store, tournament: TournamentRow, *, before_round: int | None = None,
    games: Sequence[GameRow] | None = None,
) -> list[Standing]:
    """Standings of a stored tournament from its recorded games and byes."""
    return standings_of(swiss_inputs(store, tournament, before_round, games), tournament.spec)


def standings_of(inputs: SwissInputs, spec: Mapping[str, Any]) -> list[Standing]:
    """The standings of :func:`swiss_inputs` (or :func:`scoring_inputs`), their rating
    tie-break rated with the spec's ``rating`` settings."""
    played, byes, rated, n = inputs
    rating = spec.get("rating") or {}
    ratings = conservative_ratings(n, rated, **{k: float(v) for k, v in rating.items()})
    return spec_standings(n, played, byes, ratings, spec)


def swiss_inputs(
    store: Store, tournament: TournamentRow, before_round: int | None,
    games: Sequence[GameRow] | None = None,
) -> SwissInputs:
    """What the scoring needs of a stored tournament (of its rounds before ``before_round``
    when given; ``games``: its games, when already read)."""
    ids = store.entrant_ids(tournament.id)
    # a continued tournament's earlier versions of an entry count for that entry
    index = entry_indexes(store, tournament.id)
    rows = list(games) if games is not None else store.games(tournament.id,
                                                             before_round=before_round)
    byes = [(r, bot, points) for r, bot, points in store.byes(tournament.id)
            if before_round is None or r < before_round]
    games_read = ((g.round, g.table_index, g.seats, g.placements, forfeited_seats(g.forfeits))
                  for g in rows)
    return scoring_inputs(games_read, byes, index, len(ids), tournament.spec)


def forfeited_seats(forfeits: Mapping[str, str]) -> frozenset[int]:
    """The seats a stored game's forfeits (reason by seat, as stored) name; a key that names
    no seat (a database edited by hand) names none."""
    return frozenset(int(seat) for seat in forfeits if str(seat).isdigit())


def scoring_inputs(games: Iterable[StandingsGame], byes: Iterable[tuple[int, int, float]],
                   index: Mapping[int, int], n: int, spec: Mapping[str, Any]) -> SwissInputs:
    """What the scoring needs, from games in id order as (round, table, bot ids by seat,
    placements, forfeited seats), byes as (round, bot id, points), the entry index of each
    bot id that held an entry, and the number of entries (the leaderboard reads the same
    from its own rows)."""
    tables: dict[tuple[int, int], tuple[tuple[int, ...], list[Fraction]]] = {}
    rated: list[RatedGame] = []
    weight = spec_table_weight(spec)
    for round_no, table_index, bots, placements, forfeits in games:
        seats = tuple(index[b] for b in bots)
        factor = weight(len(seats))
        points = [p * factor for p in game_points(placements, forfeits)]
        entry = tables.setdefault((round_no, table_index), (seats, [Fraction(0)] * len(seats)))
        for seat, pts in enumerate(points):
            entry[1][seat] += pts
        if len(forfeits) < len(seats):  # an all-forfeit game is not rated (RATINGS.md)
            # rated on the places the leaderboard rates (a forfeit the table's last), so
            # the standings' rating tie-break is the leaderboard's rating
            rated.append(RatedGame(seats, tuple(standing_places(placements, forfeits))))
    played = [PlayedTable(r, seats, tuple(pts)) for (r, _), (seats, pts) in sorted(tables.items())]
    return played, [Bye(r, index[bot], Fraction(points)) for r, bot, points in byes], rated, n
