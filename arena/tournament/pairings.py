"""Who met whom, round by round, as chess Swiss software shows a round: each board (a pairing:
in duplicate mode its seatings together) with its entrants in seat order, their scores before
the round and the points each took at the board, and the round's byes (``arena pairings``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.tournament.bot_versions import bot_labels
from arena.tournament.editions import entry_indexes
from arena.tournament.planning import group_deals
from arena.tournament.scoring import game_points, spec_table_weight
from arena.tournament.standings import forfeited_seats, swiss_standings
from arena.tournament.store import GameRow, Store, TableRow, TournamentRow

__all__ = ["Board", "RoundPairings", "pairings_json", "round_pairings"]


@dataclass(frozen=True, slots=True)
class Board:
    """One pairing of a round: ``number`` counts from 1; ``bots`` are the entrants' labels
    (``name@version``) in the seat order of its first seating, ``before`` their scores before
    the round and ``points`` what each has taken at this board so far."""

    number: int
    bots: tuple[str, ...]
    before: tuple[Fraction, ...]
    points: tuple[Fraction, ...]
    games_done: int
    games_planned: int
    #: How many seatings the pairing plays each deal in (1 without duplicate).
    seatings: int


@dataclass(frozen=True, slots=True)
class RoundPairings:
    """A round's boards and byes (label, score before the round, points the bye gave)."""

    round: int
    boards: list[Board]
    byes: list[tuple[str, Fraction, Fraction]]

    @property
    def paired(self) -> bool:
        return bool(self.boards or self.byes)

    def to_json(self) -> dict[str, Any]:
        """The round as ``arena pairings --format json`` writes it: scores as numbers."""
        return {
            "round": self.round,
            "paired": self.paired,
            "boards": [{"board": b.number, "bots": list(b.bots),
                        "before": [float(s) for s in b.before],
                        "points": [float(p) for p in b.points], "games": b.games_done,
                        "games_planned": b.games_planned, "seatings": b.seatings}
                       for b in self.boards],
            "byes": [{"bot": bot, "before": float(before), "points": float(points)}
                     for bot, before, points in self.byes],
        }


def pairings_json(row: TournamentRow, rounds: list[RoundPairings]) -> dict[str, Any]:
    """The document of ``arena pairings --format json``: the tournament (``name``, as every
    JSON output names it, and ``tournament``, as this one first did), how many rounds it
    has, and the rounds shown."""
    return {"name": row.name, "tournament": row.name, "rounds": row.rounds,
            "pairings": [view.to_json() for view in rounds]}


def round_pairings(db: str | Path, tournament: str,
                   round_no: int | None = None) -> tuple[TournamentRow, list[RoundPairings]]:
    """The stored tournament and its rounds' pairings (only round ``round_no`` when given;
    a Swiss round not paired yet has no boards)."""
    with Store(db, create=False, read_only=True) as store:
        row = store.require(tournament)
        if row.format == "league":  # its tables are stored as rounds of one table each
            raise ArenaError(
                f"'{tournament}' is a league: it has no rounds, it chooses one table at a "
                f"time (arena report {tournament} -o DIR lists its tables; arena status "
                f"{tournament} its entries; arena game {tournament}/r1/t0/g0 its first game)")
        if round_no is not None and not 1 <= round_no <= row.rounds:
            held = "only round 1" if row.rounds == 1 else f"rounds 1 to {row.rounds}"
            raise ArenaError(f"tournament '{tournament}' has {held}, not {round_no}")
        labels = bot_labels(store)
        # a version an entry held before --continue sits at the entry's tables, its score
        entry_of = entry_indexes(store, row.id)
        tables = store.tables(row.id)
        games = store.games(row.id)
        byes = store.byes(row.id)
        rounds = [round_no] if round_no is not None else list(range(1, row.rounds + 1))
        views = []
        for r in rounds:
            scores = {s.entrant: s.score for s in swiss_standings(store, row, before_round=r)}
            before = {bot: scores[entry] for bot, entry in entry_of.items() if entry in scores}
            views.append(_round(row, r, [t for t in tables if t.round == r],
                                [g for g in games if g.round == r], before, labels,
                                [(bot, Fraction(pts)) for n, bot, pts in byes if n == r]))
    return row, views


def _round(row: TournamentRow, r: int, tables: list[TableRow], games: list[GameRow],
           before: dict[int, Fraction], labels: dict[int, str],
           byes: list[tuple[int, Fraction]]) -> RoundPairings:
    weight = spec_table_weight(row.spec)
    by_table: dict[int, list[GameRow]] = defaultdict(list)
    for game in games:
        by_table[game.table_index].append(game)
    boards = []
    for number, group in enumerate(group_deals(tables, row.spec.get("duplicate", False)), 1):
        seats = group[0].seats
        points = dict.fromkeys(seats, Fraction(0))
        played = [g for t in group for g in by_table.get(t.table_index, [])]
        for game in played:
            factor = weight(len(game.seats))
            points_by_seat = game_points(game.placements, forfeited_seats(game.forfeits))
            for bot, pts in zip(game.seats, points_by_seat, strict=True):
                points[bot] += pts * factor
        boards.append(Board(number, tuple(labels.get(b, str(b)) for b in seats),
                            tuple(before.get(b, Fraction(0)) for b in seats),
                            tuple(points[b] for b in seats), len(played),
                            sum(t.games for t in group), len(group)))
    shown_byes = [(labels.get(bot, str(bot)), before.get(bot, Fraction(0)), pts)
                  for bot, pts in byes]
    return RoundPairings(r, boards, shown_byes)
