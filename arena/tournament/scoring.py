"""Tournament points, standings and the tie-breaks Swiss pairs by.

The one definition of game points (:func:`game_points`) and of the Buchholz tie-break
(:func:`buchholz`): the rating layer's leaderboard computes its points and Buchholz with
them, so it shows the very numbers the Swiss pairing used.

Points are exact fractions so that score groups (equal scores) are exact: floating sums
taken in a different order could split a group. The rating tie-break is TrueSkill computed
here over the tournament's own games in id order (the rating layer sits above this one and
cannot be imported from it; the numbers agree with ``arena.rating`` by construction: same
environment, same order, same ranks).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import factorial
from typing import Any, TypeVar

import trueskill

from arena.engine import standing_places
from arena.tournament.field_changes import in_field

__all__ = [
    "Bye",
    "PlayedTable",
    "RatedGame",
    "RatingTrack",
    "Standing",
    "RoundRecord",
    "SwissField",
    "buchholz",
    "buchholz_scores",
    "compute_standings",
    "DEFAULT_TAU",
    "conservative_ratings",
    "game_points",
    "rating_parameters",
    "round_draw_points",
    "round_records",
    "spec_table_mates",
    "spec_field",
    "spec_standings",
    "spec_table_weight",
    "swiss_table_size",
    "table_weight",
    "virtual_opponents",
    "yet_to_join",
]

#: TrueSkill's dynamics factor unless a spec sets one. A bot version is a fixed program: its
#: skill does not drift between games, so 0. The library's ``sigma / 100`` models people, whose
#: skill does drift; added before every game, it keeps the sigma of a bot that keeps winning
#: the games it was expected to win wide (such a game hardly narrows it), and the conservative
#: sort ``mu - 3 sigma`` then ranked a weaker bot first (``swiss.yaml``: greedy over heuristic,
#: though heuristic won clearly more of its games).
DEFAULT_TAU = 0.0

#: Whoever is scored: an entrant's index here, a bot's key in the rating layer.
Player = TypeVar("Player", bound=Hashable)


def rating_parameters(mu: float | None = None, sigma: float | None = None,
                      beta: float | None = None, tau: float | None = None,
                      draw_probability: float | None = None) -> dict[str, float]:
    """The five TrueSkill parameters, a missing one filled in: ``mu`` 25, ``sigma = mu / 3``,
    ``beta = sigma / 2`` (the library's relations), ``tau`` :data:`DEFAULT_TAU`, draw
    probability 0.10. The one source of the defaults for specs and for the rating layer."""
    mu = trueskill.MU if mu is None else mu
    sigma = mu / 3 if sigma is None else sigma
    beta = sigma / 2 if beta is None else beta
    return {"mu": mu, "sigma": sigma, "beta": beta,
            "tau": DEFAULT_TAU if tau is None else tau,
            "draw_probability": (trueskill.DRAW_PROBABILITY if draw_probability is None
                                 else draw_probability)}


def table_weight(size: int, nominal: int, duplicate: bool | str) -> Fraction:
    """What each game point at a table of ``size`` counts in a Swiss score.

    In duplicate mode a table plays one match per seating of its bots (``size`` rotations or
    ``size!`` permutations), so a table of another size than the ``nominal`` one plays more
    or fewer games: its points are scaled to a nominal table's. (5 bots at tables of 3 in
    permutations: the table of 2 plays 2 seatings against 6, and each of its games counts
    3.) Without duplicate every table plays the same games: weight 1.
    """
    if duplicate is False or size == nominal:
        return Fraction(1)
    seatings = factorial if duplicate == "permutations" else (lambda k: k)
    return Fraction(seatings(nominal), seatings(size))


def swiss_table_size(spec: Mapping[str, Any]) -> int:
    """The table size a stored Swiss spec pairs for (its first one)."""
    sizes = spec.get("players_per_game", 2)
    return sizes if isinstance(sizes, int) else (sizes[0] if sizes else 2)


def spec_table_weight(spec: Mapping[str, Any]) -> Callable[[int], Fraction]:
    """:func:`table_weight` by table size for a stored Swiss spec (its first table size is
    the one Swiss pairs for); weight 1 for every other format."""
    if spec.get("format") != "swiss":
        # a ladder's sizes (players_per_game: [2, 4]) are each a nominal size of their own:
        # its points count game for game, as its leaderboard counts them
        return lambda size: Fraction(1)
    nominal = swiss_table_size(spec)
    duplicate = spec.get("duplicate", False)
    return lambda size: table_weight(size, nominal, duplicate)


def spec_table_mates(spec: Mapping[str, Any]) -> int | None:
    """The table-mates a bot has at a full table of a stored Swiss spec, which
    :func:`buchholz` counts every round as; None (a plain sum) for every other format."""
    return swiss_table_size(spec) - 1 if spec.get("format") == "swiss" else None


def round_draw_points(spec: Mapping[str, Any]) -> Fraction:
    """A drawn round of a stored Swiss spec: half a point for every game a full table's bot
    plays in a round (``games_per_match``, times a full table's seatings in duplicate mode),
    half of what a bye scores; a draw of every game shares the places evenly."""
    nominal = swiss_table_size(spec)
    duplicate = spec.get("duplicate", False)
    seatings = (1 if duplicate is False
                else factorial(nominal) if duplicate == "permutations" else nominal)
    return Fraction(int(spec.get("games_per_match", 2)) * seatings, 2)


@dataclass(slots=True)
class RoundRecord:
    """A player's rounds: the points it scored in each (at a table or by a bye) and the
    rounds it sat at a table."""

    points: dict[int, Fraction]
    seated: set[int]


@dataclass(frozen=True, slots=True)
class SwissField:
    """Who a Swiss pairs in which round, by player: from its ``joined`` round (1 unless
    named) to before its ``withdrawn`` one."""

    joined: Mapping[Any, int]
    withdrawn: Mapping[Any, int]

    def paired(self, player: Hashable, round_no: int) -> bool:
        return in_field(player, self.withdrawn, self.joined, round_no)


def yet_to_join(field: SwissField, player: Hashable, rounds: Collection[int]) -> bool:
    """Whether ``player`` is a late entrant whose first round comes after all the
    ``rounds`` held: it has played nothing yet."""
    return player in field.joined and field.joined[player] > max(rounds, default=0)


def spec_field(spec: Mapping[str, Any]) -> SwissField:
    """The :class:`SwissField` of a stored Swiss spec by entrant index (its ``entrants``,
    ``name@version`` in entry order, named by its ``joined`` and ``withdrawn``)."""
    names = [str(key).rsplit("@", 1)[0] for key in spec.get("entrants") or ()]
    joined, withdrawn = spec.get("joined") or {}, spec.get("withdrawn") or {}
    return SwissField({i: joined[name] for i, name in enumerate(names) if name in joined},
                      {i: withdrawn[name] for i, name in enumerate(names) if name in withdrawn})


def round_records(seats: Iterable[tuple[int, Player, Fraction]],
                  byes: Iterable[tuple[int, Player, Fraction]],
                  field: SwissField | None = None, players: Iterable[Player] = (),
                  rounds: Collection[int] = ()) -> dict[Player, RoundRecord]:
    """Each player's :class:`RoundRecord` from its table results, (round, player, points)
    for every table or game it sat at, and its ``byes``, (round, player, points). With a
    ``field``, each of ``players`` also sits at a table in every one of the ``rounds`` it
    is paired in and has no bye: a round still under way, its game not stored yet, is
    not a round it did not play."""
    records: dict[Player, RoundRecord] = {}
    bye_rounds: dict[Player, set[int]] = {}
    for seated, results in ((True, seats), (False, byes)):
        for round_no, player, points in results:
            record = records.setdefault(player, RoundRecord({}, set()))
            record.points[round_no] = record.points.get(round_no, Fraction(0)) + points
            if seated:
                record.seated.add(round_no)
            else:
                bye_rounds.setdefault(player, set()).add(round_no)
    if field is None:
        return records
    for player in players:
        record = records.setdefault(player, RoundRecord({}, set()))
        record.seated.update(r for r in rounds if r not in bye_rounds.get(player, ())
                             and field.paired(player, r))
    return records


def buchholz_scores(records: Mapping[Player, RoundRecord], players: Iterable[Player],
                    rounds: Collection[int], draw: Fraction | None) -> dict[Player, Fraction]:
    """What each player counts for in its opponents' Buchholz: the points it won at tables,
    and a ``draw`` for each of the ``rounds`` it sat at no table (a bye, a round before it
    joined, one after it withdrew), whatever that round scored it: FIDE counts every round
    a player did not play as a draw for its opponents. Without a ``draw``, its score."""
    counted: dict[Player, Fraction] = {}
    for player in players:
        record = records.get(player, RoundRecord({}, set()))
        if draw is None:
            counted[player] = sum(record.points.values(), Fraction(0))
            continue
        won = sum((record.points.get(r, Fraction(0)) for r in record.seated), Fraction(0))
        counted[player] = won + draw * sum(1 for r in rounds if r not in record.seated)
    return counted


def virtual_opponents(records: Mapping[Player, RoundRecord], players: Iterable[Player],
                      rounds: Collection[int], draw: Fraction | None,
                      table_mates: int | None = None) -> dict[Player, Fraction]:
    """What each player's own Buchholz counts for the ``rounds`` it sat at no table (a bye,
    a round before it joined, one from its withdrawal on): FIDE's virtual opponent (2009),
    a full table's mates (``table_mates``, 1 for None) each scoring its score before that
    round, plus that round's result against it, plus a ``draw`` for every round held after.
    At a table of k a round shares k draws, so a mate's result is the mean of what the
    player's points leave: ``(k * draw - points) / (k - 1)``, the win a bye's recipient did
    not give or an absent player conceded at tables of 2. Without a ``draw``, nothing."""
    mates = table_mates or 1
    held = sorted(rounds)
    virtual: dict[Player, Fraction] = {}
    for player in players:
        record = records.get(player, RoundRecord({}, set()))
        if draw is None or len(record.seated) == len(held):
            continue
        total = Fraction(0)
        for index, round_no in enumerate(held):
            if round_no in record.seated:
                continue
            before = sum((p for r, p in record.points.items() if r < round_no), Fraction(0))
            result = ((mates + 1) * draw - record.points.get(round_no, Fraction(0))) / mates
            total += mates * (before + result + draw * (len(held) - index - 1))
        virtual[player] = total
    return virtual


def game_points(placements: Sequence[int], forfeited: Collection[int] = ()) -> list[Fraction]:
    """Points of each seat for one game: 1 for first, 0 for last, linear between.

    With ``k`` seats, the ``p``-th place (0-based, after sorting) is worth ``(k-1-p)/(k-1)``;
    seats that share a placement share the points of the places they cover (two players tied
    for first of three get ``(1 + 1/2) / 2 = 3/4`` each). Whether the engine numbers a shared
    place ``1,2,2,4`` or ``1,2,2,3`` does not matter: only the order and the ties are read.
    A ``forfeited`` seat scores nothing (E28): the seats that played keep the points of their
    places among themselves, so a game every seat forfeited scores 0 for each, as a double
    forfeit does in chess, not the draw its shared placements would read as.
    """
    if not forfeited:  # most games: their placements are their places
        return list(_points_of(tuple(placements)))
    points = _points_of(tuple(standing_places(placements, forfeited)))
    return [Fraction(0) if seat in forfeited else pts for seat, pts in enumerate(points)]


# A tournament's games repeat a handful of placements; a leaderboard scores every game.
@functools.lru_cache(maxsize=4096)
def _points_of(placements: tuple[int, ...]) -> tuple[Fraction, ...]:
    k = len(placements)
    if k < 2:
        return (Fraction(1),) * k
    order = sorted(range(k), key=lambda seat: placements[seat])
    points = [Fraction(0)] * k
    i = 0
    while i < k:
        j = i
        while j < k and placements[order[j]] == placements[order[i]]:
            j += 1
        share = sum((Fraction(k - 1 - p, k - 1) for p in range(i, j)), Fraction(0)) / (j - i)
        for p in range(i, j):
            points[order[p]] = share
        i = j
    return tuple(points)


@dataclass(frozen=True, slots=True)
class PlayedTable:
    """A finished table of a round: entrants by seat and each seat's points over its games."""

    round: int
    seats: tuple[int, ...]
    points: tuple[Fraction, ...]


@dataclass(frozen=True, slots=True)
class Bye:
    """A round an entrant sat out (2-player Swiss with an odd field), scored as a win."""

    round: int
    entrant: int
    points: Fraction


@dataclass(frozen=True, slots=True)
class RatedGame:
    """What the rating tie-break needs of one game: entrants by seat and placements."""

    seats: tuple[int, ...]
    placements: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line in the standings; ``rank`` is 1-based. ``buchholz`` ranks it;
    ``yet_to_join``: a late entrant whose first round is still to come, which has played
    nothing, so has no Buchholz to show (its virtual opponents still rank it, as its first
    round is paired)."""

    entrant: int
    rank: int
    score: Fraction
    buchholz: Fraction
    rating: float
    tables: int
    byes: int
    yet_to_join: bool = False

    @property
    def shown_buchholz(self) -> Fraction | None:
        """The Buchholz a reader is shown: none before the entrant's first round."""
        return None if self.yet_to_join else self.buchholz


def conservative_ratings(
    n: int,
    games: Iterable[RatedGame],
    *,
    mu: float = trueskill.MU,
    sigma: float = trueskill.SIGMA,
    beta: float = trueskill.BETA,
    tau: float = DEFAULT_TAU,
    draw_probability: float = trueskill.DRAW_PROBABILITY,
) -> list[float]:
    """``mu - 3 sigma`` per entrant after rating ``games`` in the order given (id order)."""
    track = RatingTrack(n, mu=mu, sigma=sigma, beta=beta, tau=tau,
                        draw_probability=draw_probability)
    return track.ratings(list(games))


class RatingTrack:
    """``mu - 3 sigma`` per entrant of a growing list of games, kept from call to call: a
    Swiss run rates each round's new games only, not every earlier round's again. The games
    must come in the same order each time, the earlier ones first (id order, complete
    rounds); any other list is rated afresh (:func:`conservative_ratings` is one list rated
    from scratch). A game with fewer than two distinct entrants changes nothing."""

    def __init__(self, n: int, **parameters: float) -> None:
        self._n = n
        self._env = trueskill.TrueSkill(**parameters)
        self._rated: list[RatedGame] = []
        self._ratings: list[trueskill.Rating] = []
        self._reset()

    def _reset(self) -> None:
        self._rated = []
        self._ratings = [self._env.create_rating() for _ in range(self._n)]

    def ratings(self, games: Sequence[RatedGame]) -> list[float]:
        """``mu - 3 sigma`` per entrant after rating ``games`` (see the class)."""
        done = len(self._rated)
        if len(games) < done or list(games[:done]) != self._rated:
            self._reset()
            done = 0
        ratings = self._ratings
        for game in games[done:]:
            if len(set(game.seats)) >= 2:
                rated = self._env.rate([(ratings[e],) for e in game.seats],
                                       ranks=list(game.placements))
                for e, (new,) in zip(game.seats, rated, strict=True):
                    ratings[e] = new
            self._rated.append(game)
        return [r.mu - 3 * r.sigma for r in ratings]


def compute_standings(
    n: int,
    tables: Iterable[PlayedTable],
    byes: Iterable[Bye] = (),
    ratings: Sequence[float] | None = None,
    table_mates: int | None = None,
    draw: Fraction | None = None,
    field: SwissField | None = None,
) -> list[Standing]:
    """Standings: score, then Buchholz, then rating, then entry order (all deterministic).

    Buchholz: see :func:`buchholz` (the rating layer's leaderboard uses it too), a round's
    table-mates counted as ``table_mates`` (a full table's), each entrant met as
    :func:`buchholz_scores` counts it: a drawn round (``draw``, :func:`round_draw_points`)
    for each round it did not play (by the ``field``, when given: a round it is paired in
    and still playing is not one); and for each round an entrant did not play, its own
    Buchholz counts :func:`virtual_opponents`. A bye counts in the score.
    """
    played = list(tables)
    score = [Fraction(0)] * n
    count = [0] * n
    bye_count = [0] * n
    for table in played:
        for e, pts in zip(table.seats, table.points, strict=True):
            score[e] += pts
            count[e] += 1
    byes = list(byes)
    for bye in byes:
        score[bye.entrant] += bye.points
        bye_count[bye.entrant] += 1
    rounds = {table.round for table in played} | {bye.round for bye in byes}
    records = round_records(((t.round, e, pts) for t in played
                             for e, pts in zip(t.seats, t.points, strict=True)),
                            ((bye.round, bye.entrant, bye.points) for bye in byes),
                            field, range(n), rounds)
    counted = buchholz_scores(records, range(n), rounds, draw)
    tiebreak = buchholz(((table.round, table.seats) for table in played), counted, table_mates)
    own = virtual_opponents(records, range(n), rounds, draw, table_mates)
    second = [tiebreak.get(e, Fraction(0)) + own.get(e, Fraction(0)) for e in range(n)]
    rating = list(ratings) if ratings is not None else [0.0] * n
    order = sorted(range(n), key=lambda e: (-score[e], -second[e], -rating[e], e))
    return [
        Standing(entrant=e, rank=i + 1, score=score[e], buchholz=second[e], rating=rating[e],
                 tables=count[e], byes=bye_count[e],
                 yet_to_join=field is not None and yet_to_join(field, e, rounds))
        for i, e in enumerate(order)
    ]


def spec_standings(n: int, tables: Iterable[PlayedTable], byes: Iterable[Bye],
                   ratings: Sequence[float], spec: Mapping[str, Any]) -> list[Standing]:
    """:func:`compute_standings` as a stored Swiss spec scores them: a full table's mates,
    the drawn round its unplayed rounds count as, and its field round by round (the one
    reading of the spec that the pairing and the shown standings share)."""
    return compute_standings(n, tables, byes, ratings, spec_table_mates(spec),
                             round_draw_points(spec), spec_field(spec))


def buchholz(meetings: Iterable[tuple[Hashable, Sequence[Player]]],
             scores: Mapping[Player, Fraction],
             table_mates: int | None = None) -> dict[Player, Fraction]:
    """The Buchholz tie-break of each player met: for every round it played, the final
    ``scores`` of the players it shared a table with that round, each counted once per round
    (the seat rotations of one pairing in duplicate mode are one meeting), summed over rounds
    as in FIDE's Buchholz. ``meetings`` are (round, players by seat) of every table or game
    played; a round is any key that tells rounds apart. A player without a score counts 0.

    ``table_mates``: the table-mates of a full table (the Swiss table size less one). A
    round at a smaller or larger table (a field that does not divide into full ones) counts
    its mates' mean score that many times, so the tie-break weighs the strength of the bots
    met rather than their number."""
    mates: dict[tuple[Hashable, Player], set[Player]] = {}
    for round_key, seats in meetings:
        for player in seats:
            mates.setdefault((round_key, player), set()).update(o for o in seats if o != player)
    result: dict[Player, Fraction] = {}
    for (_, player), others in mates.items():
        met = sum((scores.get(other, Fraction(0)) for other in others), Fraction(0))
        if table_mates is not None and others and len(others) != table_mates:
            met = met * table_mates / len(others)
        result[player] = result.get(player, Fraction(0)) + met
    return result
