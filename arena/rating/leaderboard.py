"""Leaderboards: TrueSkill ratings with the per-bot statistics people read next to them.

Bots are ranked by the conservative rating mu - 3 sigma (Microsoft's TrueSkill leaderboards do
the same: a bot climbs by being good *and* by having shown it), then by mu, then by key, so the
order is total and identical on every machine. Points follow :mod:`arena.rating.standings`;
Buchholz is shown for Swiss tournaments only. A bot version with an older version of the same
name in the store is marked ``new``: it started from the default rating (mu, sigma), and its
older versions keep their own ratings. How the board is shown (its text table, json and csv)
is :mod:`arena.rating.board_view`'s.
"""

from __future__ import annotations

import logging
import math
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import trueskill

from arena.rating.games import (
    BotVersion,
    StoredGame,
    TournamentInfo,
    bot_versions,
    connect,
    continued_entries,
    find_tournament,
    latest_tournament,
    list_tournaments,
    load_byes,
    load_games,
    tournament_bots,
)
from arena.rating.standings import ByeRecord, stored_buchholz, swiss_buchholz, total_points
from arena.rating.trueskill_rating import (
    RatingMemo,
    RatingRun,
    RatingSettings,
    conservative,
    game_entries,
    rate_games,
    rate_stored,
    settings_for,
    settings_for_all,
    write_history,
)
from arena.referee.copy_paths import author_paths
from arena.referee.failures import FAILURE_TYPES, without_game
from arena.tournament.field_changes import field_status as changed_field_status
from arena.tournament.scoring import Standing, spec_table_weight
from arena.tournament.standings import scoring_inputs, standings_of

log = logging.getLogger(__name__)

__all__ = [
    "SORTS",
    "Leaderboard",
    "LeaderboardRow",
    "build_leaderboard",
    "compute_leaderboard",
    "rating_order",
    "sort_leaderboard",
    "standings_leader",
    "standings_places",
    "tournament_leaderboard",
]


#: How many older versions a row's note names, the newest first (json and csv list all).
_OLDER_NAMED = 2


@dataclass
class LeaderboardRow:
    """One bot version's line on the leaderboard."""

    rank: int
    key: str
    bot: str
    version: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    win_pct: float | None
    mean_placement: float | None
    points: float
    byes: int
    buchholz: float | None
    failures: dict[str, int] = field(default_factory=dict)
    #: Games the bot forfeited (placed last): what its failures cost it.
    forfeits: int = 0
    #: Its most frequent failure, ``type: detail`` as the referee wrote it (the first seen
    #: of equally frequent ones): what its author has to fix first.
    failure_reason: str = ""
    new_version: bool = False
    older_versions: list[str] = field(default_factory=list)
    #: The settings the bot was entered with (``{bot: ..., options: {...}}`` in a spec).
    options: dict[str, Any] = field(default_factory=dict)
    #: Swiss, in a tournament gone on with ``--continue``: the place of the version's entry
    #: in the standings, which count an entry's versions as one (``None`` elsewhere).
    standing: int | None = None
    #: Swiss: the place of the bot's entry in the entry order, the standings' last
    #: tie-break (``None`` elsewhere).
    entry: int | None = None
    #: Swiss: the Buchholz the standings rank by, shown or not (``buchholz`` is None for a
    #: late entrant before its first round, whose virtual opponents still rank it).
    ranking_buchholz: float = 0.0
    #: Swiss: ``withdrawn from round 3``, ``joined in round 3`` (the spec's changes of its
    #: field, :mod:`arena.tournament.field_changes`), else empty.
    field_status: str = ""

    @property
    def label(self) -> str:
        """The bot's name, with its options when it was entered with some."""
        if not self.options:
            return self.bot
        return f"{self.bot} ({', '.join(f'{k}={v}' for k, v in sorted(self.options.items()))})"

    @property
    def note(self) -> str:
        """What a reader needs to know that the numbers do not say."""
        if not self.new_version:
            return self.field_status
        # a table cell: a league's bot updated all day would widen it with every update
        named = ", ".join(self.older_versions[:_OLDER_NAMED])
        rest = len(self.older_versions) - _OLDER_NAMED
        new = f"new (older: {named}{f' and {rest} more' if rest > 0 else ''})"
        return f"{new}; {self.field_status}" if self.field_status else new


@dataclass
class Leaderboard:
    """A ranked leaderboard of one tournament (or of every game ever recorded)."""

    scope: str
    tournament: TournamentInfo | None
    settings: RatingSettings
    games: int
    swiss: bool
    rows: list[LeaderboardRow]
    #: Games that changed a rating (not one every seat forfeited, nor a bot against itself).
    rated: int | None = None
    #: How the rows are ranked: a key of :data:`SORTS`.
    sort: str = "rating"

    def failure_types(self) -> list[str]:
        """The csv's failure columns: every failure type the referee records, in its order,
        whether it occurs or not (the columns stay the same from one tournament to the
        next), then any other type found in the store."""
        found = {t for row in self.rows for t in row.failures}
        return [*FAILURE_TYPES, *sorted(found - set(FAILURE_TYPES))]


def _older_versions(bot: BotVersion, on_board: Iterable[BotVersion]) -> list[str]:
    """Versions of the same bot among ``on_board`` (the board's rows) stored
    before this one (lower store id), newest first, each once (a version entered under two
    sets of options is one version)."""
    older = [b for b in on_board if b.name == bot.name and b.id < bot.id]
    return list(dict.fromkeys(b.version for b in sorted(older, key=lambda b: b.id,
                                                        reverse=True)))


@dataclass
class _Tally:
    """What each bot (by key) did in the games, for the statistics beside its rating."""

    played: Counter[str] = field(default_factory=Counter)
    wins: Counter[str] = field(default_factory=Counter)
    place_sum: Counter[str] = field(default_factory=Counter)
    forfeits: Counter[str] = field(default_factory=Counter)
    #: failures counted by type, and by ``type: detail`` (the reason the board names)
    failures: defaultdict[str, Counter[str]] = field(
        default_factory=lambda: defaultdict(Counter))
    reasons: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))


def _tally(ordered: Sequence[StoredGame]) -> _Tally:
    """Games, wins, places, forfeits and failures per bot of ``ordered``."""
    tally = _Tally()
    for game in ordered:
        forfeited = game.forfeited
        tally.forfeits.update(game.seats[seat].key for seat in forfeited)
        # A win is a first place played for: when every seat forfeits, nobody won.
        winners = {bot.key for seat, (bot, place) in enumerate(zip(game.seats, game.placements))
                   if place == 1 and seat not in forfeited}
        for bot, place in game_entries(game):
            tally.played[bot.key] += 1
            tally.place_sum[bot.key] += place
            tally.wins[bot.key] += bot.key in winners
        for failure in game.failures:
            key = game.seats[failure.seat].key
            tally.failures[key][failure.type] += 1
            detail = without_game(author_paths(failure.detail))  # as status tells it
            tally.reasons[key][f"{failure.type}: {detail}"] += 1
    return tally


def compute_leaderboard(games: Sequence[StoredGame], settings: RatingSettings, *,
                        entrants: Iterable[BotVersion] = (),
                        byes: Iterable[ByeRecord] = (), swiss: bool = False, scope: str = "",
                        tournament: TournamentInfo | None = None,
                        rated: RatingRun | None = None,
                        standings: Mapping[str, Standing] | None = None) -> Leaderboard:
    """Rate the games and gather every statistic; pure (no I/O), order-independent input.
    ``rated`` is these very games' rating run when the caller has one (not rated again).
    ``standings``: each version's entry in the Swiss standings of a tournament gone on with
    ``--continue`` (:func:`entry_standings`), where each version stands; its Buchholz counts
    the entries' rounds (:func:`~arena.rating.standings.swiss_buchholz`)."""
    entrants = list(entrants)
    run = rated if rated is not None else rate_games(games, settings, entrants)
    ordered = sorted(games, key=lambda g: g.order_key)
    tally = _tally(ordered)
    byes = list(byes)
    # Swiss scores an off-size table's games as its pairing did (duplicate mode)
    points = total_points(ordered, byes, spec_table_weight(tournament.spec)
                          if swiss and tournament is not None else None)
    yet_to_play: set[str] = set()
    if swiss and tournament is not None:
        tiebreak, yet_to_play = swiss_buchholz(ordered, byes, entrants, tournament.spec)
    else:  # a Swiss without its spec: the plain sum of the scores met
        tiebreak = stored_buchholz(ordered, points) if swiss else {}
    standings = standings or {}
    entry_order = {bot.key: index for index, bot in enumerate(entrants)} if swiss else {}
    spec = tournament.spec if tournament is not None else {}
    withdrawn, joined = spec.get("withdrawn") or {}, spec.get("joined") or {}
    # an older version is one on this board (entered here, with or without games): another
    # tournament's (another league's) version is no row here, and a note cannot say of it
    on_board = list(run.bots[key] for key in run.ratings)
    rows: list[LeaderboardRow] = []
    for key, rating in run.ratings.items():
        bot = run.bots[key]
        n = tally.played[key]
        older = _older_versions(bot, on_board)
        rows.append(
            LeaderboardRow(
                rank=0,
                key=key,
                bot=bot.name,
                version=bot.version,
                options=dict(bot.options),
                mu=float(rating.mu),
                sigma=float(rating.sigma),
                conservative=conservative(rating),
                games=n,
                wins=tally.wins[key],
                win_pct=100.0 * tally.wins[key] / n if n else None,
                mean_placement=tally.place_sum[key] / n if n else None,
                points=float(points.get(key, 0)),
                byes=sum(1 for bye in byes if bye.bot.key == key),
                buchholz=(None if key in yet_to_play else float(tiebreak.get(key, 0))
                          if swiss else None),
                ranking_buchholz=float(tiebreak.get(key, 0)),
                failures=dict(sorted(tally.failures[key].items())),
                forfeits=tally.forfeits[key],
                failure_reason=next(iter(tally.reasons[key].most_common(1)), ("", 0))[0],
                new_version=bool(older),
                older_versions=older,
                standing=standings[key].rank if key in standings else None,
                entry=entry_order.get(key),
                field_status=changed_field_status(bot.name, withdrawn, joined) if swiss else "",
            )
        )
    board = Leaderboard(scope=scope, tournament=tournament, settings=settings,
                        games=len(ordered), swiss=swiss, rows=rows,
                        rated=len({(step.tournament_id, step.game_id) for step in run.history}))
    return sort_leaderboard(board, "rating")


#: The orders a leaderboard can be ranked in, and what each means (the json's ``sort``).
SORTS = {
    "rating": "mu - 3*sigma desc, then mu desc, then bot@version",
    "points": "points desc, then Buchholz desc (Swiss), then mu - 3*sigma desc, then entry order "
              "(Swiss, as its standings), then bot@version; "
              "in a Swiss tournament gone on with --continue, each version at its entry's "
              "place in the standings",
}


def _by_rating(conservative_rating: float, mu: float, key: str) -> tuple[float, float, str]:
    return (-conservative_rating, -mu, key)


def rating_order(ratings: Mapping[str, trueskill.Rating]) -> list[str]:
    """The bots' keys in the leaderboard's rating order (:data:`SORTS`)."""
    return sorted(ratings, key=lambda k: _by_rating(conservative(ratings[k]),
                                                    float(ratings[k].mu), k))


def sort_leaderboard(board: Leaderboard, order: str) -> Leaderboard:
    """Rank the rows by ``order`` (a key of :data:`SORTS`): the rating's conservative
    estimate, or the points as a Swiss tournament's standings rank them."""
    if order not in SORTS:
        raise ValueError(f"unknown order {order!r} (choose {' or '.join(SORTS)})")
    if order == "points":
        board.rows.sort(key=_standings_key)
    else:
        board.rows.sort(key=lambda r: _by_rating(r.conservative, r.mu, r.key))
    for rank, row in enumerate(board.rows, start=1):
        row.rank = rank
    board.sort = order
    return board


def _standings_key(row: LeaderboardRow) -> tuple[Any, ...]:
    """A row's place by points: an entry's versions together, at its place in the standings
    (--continue); the last tie-break is the standings': entry order (arena status), then
    the key."""
    return (row.standing or 0, -row.points, -row.ranking_buchholz, -row.conservative,
            _unentered(row.entry), row.key)


def standings_leader(board: Leaderboard) -> LeaderboardRow | None:
    """The row the points order (a Swiss's standings) ranks first, whatever the board's
    order; None without rows."""
    return min(board.rows, key=_standings_key, default=None)


def standings_places(board: Leaderboard) -> dict[str, int]:
    """Each row's key and its place (1 first) in the points order, a Swiss's standings,
    whatever the board's order."""
    return {row.key: place for place, row in enumerate(sorted(board.rows, key=_standings_key),
                                                       start=1)}


def _unentered(entry: int | None) -> float:
    """An entry's place for sorting; a bot without one (no Swiss entry) after every entry."""
    return math.inf if entry is None else entry


def build_leaderboard(db_path: str | Path, tournament: str | None = None, *,
                      all_games: bool = False, store_ratings: bool = False,
                      memo: RatingMemo | None = None) -> Leaderboard:
    """The leaderboard of a stored tournament (default: the latest) or of every game.

    Computed from the games on every call, so it is right even while a tournament is still
    running; one tournament's ratings reuse its stored history where it still holds
    (:func:`~arena.rating.trueskill_rating.rate_stored`: the same numbers, only the games
    not in it are rated). With ``store_ratings`` (one tournament), the ratings also replace
    the tournament's stored ``rating_history``, as
    :func:`~arena.rating.trueskill_rating.rate_tournament` does (``arena run``'s summary);
    else it never writes to the store. ``memo``: a reader's last rating, for one that reads
    again and again (:class:`~arena.rating.trueskill_rating.RatingMemo`).
    """
    with connect(db_path) as conn:
        if all_games:
            everyone = tournament_bots(conn, None)
            return compute_leaderboard(
                load_games(conn, None), settings_for_all(list_tournaments(conn)),
                entrants=everyone, byes=_byes(conn, None),
                swiss=False, scope="all", tournament=None,
            )
        info = (find_tournament(conn, tournament, db_path) if tournament is not None
                else latest_tournament(conn, db_path))
        games = load_games(conn, info.id)
        entrants = tournament_bots(conn, info.id)
        rated = rate_stored(conn, info, games, entrants, memo)
        if store_ratings:
            _store_history(conn, info.id, rated, db_path)
        return tournament_leaderboard(conn, info, games, entrants, rated)


def _store_history(conn: sqlite3.Connection, tournament_id: int, rated: RatingRun,
                   db_path: str | Path) -> None:
    """Store the rating history, a cache: a write the database refuses (a full disk, a lock
    held past the wait) is a warning, not the end of a run whose games are all stored; the
    board is shown, and the next reading computes the history again."""
    try:
        write_history(conn, tournament_id, rated)
    except sqlite3.OperationalError as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        log.warning("the rating history was not stored in %s (%s); the leaderboard is "
                    "computed from the stored games all the same", db_path, exc)


def tournament_leaderboard(conn: sqlite3.Connection, info: TournamentInfo,
                           games: Sequence[StoredGame], entrants: Sequence[BotVersion],
                           rated: RatingRun) -> Leaderboard:
    """One stored tournament's leaderboard from what its reader has already loaded: its
    games, its entrants and their rating run (for the site, which shows them all)."""
    swiss = info.format == "swiss"
    return compute_leaderboard(
        games, settings_for(info), entrants=entrants,
        byes=_byes(conn, info.id), swiss=swiss, scope=info.name,
        tournament=info, rated=rated,
        standings=entry_standings(conn, info, games) if swiss else None,
    )


def entry_standings(conn: sqlite3.Connection, info: TournamentInfo,
                    games: Sequence[StoredGame]) -> dict[str, Standing] | None:
    """Each version's entry in the Swiss standings (``arena status``'s) of a tournament gone on
    with ``--continue``, by version key; ``None`` for any other tournament (a version is its
    entry there, and the leaderboard's own numbers are the standings')."""
    entries = continued_entries(conn, info.id)
    if entries is None:
        return None
    index, n = entries
    ordered = sorted(games, key=lambda g: g.order_key)
    byes = [(rnd, bot.id, points) for _, rnd, bot, points in load_byes(conn, info.id)]
    inputs = scoring_inputs(((g.round, g.table_index, [b.id for b in g.seats], g.placements,
                              g.forfeited) for g in ordered), byes, index, n, info.spec)
    by_entry = {s.entrant: s for s in standings_of(inputs, info.spec)}
    bots = bot_versions(conn)
    return {bots[bot].key: by_entry[entry] for bot, entry in index.items() if bot in bots}


def _byes(conn: sqlite3.Connection, tournament_id: int | None) -> list[ByeRecord]:
    """Stored byes with their points as exact fractions of the stored value."""
    return [ByeRecord(tid, rnd, bot, Fraction(points).limit_denominator(10_000))
            for tid, rnd, bot, points in load_byes(conn, tournament_id)]
