"""The standings of a stored Swiss tournament, from its recorded games and byes: what the
runner pairs a round by and what ``arena status`` shows (:mod:`arena.tournament.scoring`
computes them)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from arena.tournament.editions import entry_indexes
from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    RatedGame,
    Standing,
    compute_standings,
    conservative_ratings,
    game_points,
    spec_table_weight,
)
from arena.tournament.store import GameRow, Store, TournamentRow

__all__ = ["SwissInputs", "swiss_inputs", "swiss_standings"]

#: The scoring's inputs: tables played, byes, the games to rate, and the number of entrants.
SwissInputs = tuple[list[PlayedTable], list[Bye], list[RatedGame], int]


def swiss_standings(
    store: Store, tournament: TournamentRow, *, before_round: int | None = None,
    games: Sequence[GameRow] | None = None,
) -> list[Standing]:
    """Standings of a stored tournament from its recorded games and byes."""
    played, byes, rated, n = swiss_inputs(store, tournament, before_round, games)
    rating = tournament.spec.get("rating") or {}
    ratings = conservative_ratings(n, rated, **{k: float(v) for k, v in rating.items()})
    return compute_standings(n, played, byes, ratings)


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
    tables: dict[tuple[int, int], tuple[tuple[int, ...], list[Fraction]]] = {}
    rated: list[RatedGame] = []
    weight = spec_table_weight(tournament.spec)
    for game in rows:
        seats = tuple(index[b] for b in game.seats)
        factor = weight(len(seats))
        points = [p * factor for p in game_points(game.placements)]
        entry = tables.setdefault((game.round, game.table_index),
                                  (seats, [Fraction(0)] * len(seats)))
        for seat, pts in enumerate(points):
            entry[1][seat] += pts
        if len(game.forfeits) < len(seats):  # an all-forfeit game is not rated (RATINGS.md)
            rated.append(RatedGame(seats, game.placements))
    played = [PlayedTable(r, seats, tuple(pts)) for (r, _), (seats, pts) in sorted(tables.items())]
    byes = [Bye(r, index[bot], Fraction(points)) for r, bot, points in store.byes(tournament.id)
            if before_round is None or r < before_round]
    return played, byes, rated, len(ids)
