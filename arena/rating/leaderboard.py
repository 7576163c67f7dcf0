"""Leaderboards: TrueSkill ratings with the per-bot statistics people read next to them.

Bots are ranked by the conservative rating mu - 3 sigma (Microsoft's TrueSkill leaderboards do
the same: a bot climbs by being good *and* by having shown it), then by mu, then by key, so the
order is total and identical on every machine. Points follow :mod:`arena.rating.standings`;
Buchholz is shown for Swiss tournaments only. A bot version with an older version of the same
name in the store is marked ``new``: it started from the default rating (mu, sigma), and its
older versions keep their own ratings.
"""

from __future__ import annotations

import sqlite3
import textwrap
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
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
    entered_versions,
    find_tournament,
    latest_tournament,
    list_tournaments,
    load_byes,
    load_games,
    tournament_bots,
)
from arena.rating.render import MACHINE_FORMATS, check_format, render_csv, render_json, render_table
from arena.rating.standings import ByeRecord, buchholz, total_points
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
from arena.referee.failures import FAILURE_TYPES
from arena.tournament.scoring import Standing, spec_table_weight
from arena.tournament.standings import scoring_inputs, standings_of

__all__ = [
    "Leaderboard",
    "LeaderboardRow",
    "TABLE_WIDTH",
    "build_leaderboard",
    "compute_leaderboard",
    "fitted_table",
    "leaderboard_report",
    "leaderboard_title",
    "rating_footnote",
    "rating_order",
    "render_leaderboard",
    "table_columns",
    "tournament_leaderboard",
]


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
    new_version: bool = False
    older_versions: list[str] = field(default_factory=list)
    #: The settings the bot was entered with (``{bot: ..., options: {...}}`` in a spec).
    options: dict[str, Any] = field(default_factory=dict)
    #: Swiss, in a tournament gone on with ``--continue``: the place of the version's entry
    #: in the standings, which count an entry's versions as one (``None`` elsewhere).
    standing: int | None = None

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
            return ""
        return f"new (older: {', '.join(self.older_versions)})"


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


def _older_versions(bot: BotVersion, registry: Iterable[BotVersion]) -> list[str]:
    """Versions of the same bot registered before this one (lower store id), newest first."""
    older = [b for b in registry if b.name == bot.name and b.id < bot.id]
    return [b.version for b in sorted(older, key=lambda b: b.id, reverse=True)]


def compute_leaderboard(games: Sequence[StoredGame], settings: RatingSettings, *,
                        entrants: Iterable[BotVersion] = (),
                        registry: Iterable[BotVersion] = (),
                        byes: Iterable[ByeRecord] = (), swiss: bool = False, scope: str = "",
                        tournament: TournamentInfo | None = None,
                        rated: RatingRun | None = None,
                        standings: Mapping[str, Standing] | None = None) -> Leaderboard:
    """Rate the games and gather every statistic; pure (no I/O), order-independent input.
    ``rated`` is these very games' rating run when the caller has one (not rated again).
    ``standings``: each version's entry in the Swiss standings of a tournament gone on with
    ``--continue`` (:func:`entry_standings`), whose Buchholz counts the entries' scores."""
    run = rated if rated is not None else rate_games(games, settings, entrants)
    ordered = sorted(games, key=lambda g: g.order_key)
    played: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    place_sum: Counter[str] = Counter()
    failures: dict[str, Counter[str]] = defaultdict(Counter)
    for game in ordered:
        forfeited = {seat for seat, _ in game.forfeits}
        # A win is a first place played for: when every seat forfeits they all share it.
        winners = {bot.key for seat, (bot, place) in enumerate(zip(game.seats, game.placements))
                   if place == 1 and seat not in forfeited}
        for bot, place in game_entries(game):
            played[bot.key] += 1
            place_sum[bot.key] += place
            wins[bot.key] += bot.key in winners
        for failure in game.failures:
            failures[game.seats[failure.seat].key][failure.type] += 1
    byes = list(byes)
    # Swiss scores an off-size table's games as its pairing did (duplicate mode)
    points = total_points(ordered, byes, spec_table_weight(tournament.spec)
                          if swiss and tournament is not None else None)
    # the final score of a bot met is its entry's, which an old version shares with the new
    finals = {key: s.score for key, s in standings.items()} if standings else points
    tiebreak = buchholz(ordered, finals) if swiss else {}
    standings = standings or {}
    registry = list(registry)
    rows: list[LeaderboardRow] = []
    for key, rating in run.ratings.items():
        bot = run.bots[key]
        n = played[key]
        older = _older_versions(bot, registry)
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
                wins=wins[key],
                win_pct=100.0 * wins[key] / n if n else None,
                mean_placement=place_sum[key] / n if n else None,
                points=float(points.get(key, 0)),
                byes=sum(1 for bye in byes if bye.bot.key == key),
                buchholz=float(tiebreak.get(key, 0)) if swiss else None,
                failures=dict(sorted(failures[key].items())),
                new_version=bool(older),
                older_versions=older,
                standing=standings[key].rank if key in standings else None,
            )
        )
    board = Leaderboard(scope=scope, tournament=tournament, settings=settings,
                        games=len(ordered), swiss=swiss, rows=rows,
                        rated=len({(step.tournament_id, step.game_id) for step in run.history}))
    return sort_leaderboard(board, "rating")


#: The orders a leaderboard can be ranked in, and what each means (the json's ``sort``).
SORTS = {
    "rating": "mu - 3*sigma desc, then mu desc, then bot@version",
    "points": "points desc, then Buchholz desc (Swiss), then mu - 3*sigma desc, then bot@version; "
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
        # an entry's versions together, at its place in the standings (--continue)
        board.rows.sort(key=lambda r: (r.standing or 0, -r.points, -(r.buchholz or 0.0),
                                       -r.conservative, r.key))
    else:
        board.rows.sort(key=lambda r: _by_rating(r.conservative, r.mu, r.key))
    for rank, row in enumerate(board.rows, start=1):
        row.rank = rank
    board.sort = order
    return board


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
                entrants=everyone, registry=entered_versions(conn), byes=_byes(conn, None),
                swiss=False, scope="all", tournament=None,
            )
        info = (find_tournament(conn, tournament, db_path) if tournament is not None
                else latest_tournament(conn, db_path))
        games = load_games(conn, info.id)
        entrants = tournament_bots(conn, info.id)
        rated = rate_stored(conn, info, games, entrants, memo)
        if store_ratings:
            write_history(conn, info.id, rated)
        return tournament_leaderboard(conn, info, games, entrants, rated)


def tournament_leaderboard(conn: sqlite3.Connection, info: TournamentInfo,
                           games: Sequence[StoredGame], entrants: Sequence[BotVersion],
                           rated: RatingRun) -> Leaderboard:
    """One stored tournament's leaderboard from what its reader has already loaded: its
    games, its entrants and their rating run (for the site, which shows them all)."""
    # versions entered in a stored tournament: one whose tournament was dropped (--fresh,
    # arena delete) has no games to compare with, and is no "older version" any more
    registry = entered_versions(conn)
    swiss = info.format == "swiss"
    return compute_leaderboard(
        games, settings_for(info), entrants=entrants, registry=registry,
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
                              len(g.forfeits)) for g in ordered), byes, index, n, info.spec)
    by_entry = {s.entrant: s for s in standings_of(inputs, info.spec)}
    bots = bot_versions(conn)
    return {bots[bot].key: by_entry[entry] for bot, entry in index.items() if bot in bots}


def _byes(conn: sqlite3.Connection, tournament_id: int | None) -> list[ByeRecord]:
    """Stored byes with their points as exact fractions of the stored value."""
    return [ByeRecord(tid, rnd, bot, Fraction(points).limit_denominator(10_000))
            for tid, rnd, bot, points in load_byes(conn, tournament_id)]


_TABLE_COLUMNS = ("rank", "bot", "version", "mu", "sigma", "mu-3sigma", "games", "wins",
                  "win %", "mean place", "points", "byes", "buchholz", "failures", "note")
_TABLE_FLOATFMT = ("g", "g", "g", ".2f", ".2f", ".2f", "g", "g", ".1f", ".2f", ".2f", "g",
                   ".2f", "g", "g")
_SWISS_ONLY = ("byes", "buchholz")
#: The width the default text table fits (a terminal's, with room to spare).
TABLE_WIDTH = 100
#: Columns the default table leaves out, in this order, while it is wider than its width:
#: what the rank and the rating already say most of.
_DROP_TO_FIT = ("sigma", "mean place", "win %", "mu", "version")


def table_columns() -> tuple[str, ...]:
    """Every column of the text table (``--columns`` picks among these)."""
    return _TABLE_COLUMNS


def _hidden(board: Leaderboard) -> set[str]:
    """Columns that mean nothing here: Buchholz outside Swiss, byes where nobody had one."""
    hidden = set() if board.swiss else {"buchholz"}
    if not board.swiss and not any(row.byes for row in board.rows):
        hidden.add("byes")
    return hidden


def _silent(board: Leaderboard) -> list[str]:
    """Columns the default table leaves out as saying nothing: empty for every row (no
    failures, no note, no byes), or points where they equal the wins (two seats, no ties)."""
    silent = [name for name in ("byes", "failures", "note")
              if not any(getattr(row, name) for row in board.rows)]
    if all(row.points == row.wins for row in board.rows):
        silent.append("points")
    return silent


def _failures_text(failures: dict[str, int]) -> str:
    return ", ".join(f"{kind} {count}" for kind, count in failures.items())


def leaderboard_json(board: Leaderboard) -> dict[str, Any]:
    """The JSON document of ``arena leaderboard --format json`` (full precision)."""
    rows = []
    for row in board.rows:
        item = asdict(row)
        item["note"] = row.note
        if row.standing is None:  # only a continued Swiss tournament's rows have one
            item.pop("standing")
        for name in _hidden(board):
            item.pop(name)
        rows.append(item)
    tournament = board.tournament
    return {
        "scope": board.scope,
        "tournament": None if tournament is None else {
            "name": tournament.name, "format": tournament.format, "state": tournament.state,
        },
        "games": board.games,
        "rated_games": board.rated,
        "rating": board.settings.to_json(),
        "sort": SORTS[board.sort],
        "points": "per game: (k - position)/(k - 1) for k bots, shared places split",
        "bots": rows,
    }


def render_leaderboard(board: Leaderboard, fmt: str = "simple") -> str:
    """The leaderboard in ``json``, ``csv`` or any tabulate format."""
    check_format(fmt)
    if fmt == "json":
        return render_json(leaderboard_json(board))
    if fmt == "csv":
        kinds = board.failure_types()
        headers = ["rank", "bot", "version", "key", "mu", "sigma", "conservative", "games",
                   "wins", "win_pct", "mean_placement", "points", *_SWISS_ONLY]
        headers += ["failures", *(f"failures_{kind}" for kind in kinds), "new_version", "note"]
        records = []
        for row in board.rows:
            record: dict[str, Any] = {
                name: getattr(row, name) for name in headers
                if name not in ("failures", "note", "new_version") and hasattr(row, name)
            }
            for name in _hidden(board):  # stable columns: empty where they mean nothing
                record[name] = ""
            record["failures"] = sum(row.failures.values())
            record.update({f"failures_{kind}": row.failures.get(kind, 0) for kind in kinds})
            record["new_version"] = int(row.new_version)
            record["note"] = row.note
            records.append(record)
        return render_csv(headers, records)
    return _render_table(board, fmt, [c for c in _TABLE_COLUMNS if c not in _hidden(board)])


def _render_table(board: Leaderboard, fmt: str, columns: Sequence[str]) -> str:
    keep = [_TABLE_COLUMNS.index(name) for name in columns]
    # two versions of one bot (a tournament gone on with --continue) are told apart by their
    # version: without its column, they are named name@version. A league's every-version
    # table keeps its old way: its readers asked for sigma before the version (fitted_table)
    league = board.tournament is not None and board.tournament.format == "league"
    labels = (Counter(row.label for row in board.rows)
              if "version" not in columns and not league else Counter())
    table = []
    for row in board.rows:
        label = (row.label if labels[row.label] < 2
                 else row.label.replace(row.bot, f"{row.bot}@{row.version}", 1))
        values = [row.rank, label, row.version, row.mu, row.sigma, row.conservative, row.games,
                  row.wins, row.win_pct, row.mean_placement, row.points, row.byes, row.buchholz,
                  _failures_text(row.failures), row.note]
        table.append([values[i] for i in keep])
    return render_table([_TABLE_COLUMNS[i] for i in keep], table, fmt,
                        [_TABLE_FLOATFMT[i] for i in keep])


def fitted_table(board: Leaderboard, fmt: str = "simple", columns: Sequence[str] | None = None,
                 *, wide: bool = False, width: int = TABLE_WIDTH) -> tuple[str, list[str]]:
    """The text table with ``columns`` (validated, in the table's order), with ``wide`` every
    column that means something here, or by default the columns that say something, less
    those of :data:`_DROP_TO_FIT` it must leave out to fit ``width``; and the columns left
    out that a reader may look for (to name in a footnote)."""
    if wide:
        return render_leaderboard(board, fmt), []
    if columns is not None:
        unknown = [c for c in columns if c not in _TABLE_COLUMNS]
        if unknown:
            raise ValueError(f"unknown column(s) {', '.join(repr(c) for c in unknown)} "
                             f"(choose among: {', '.join(_TABLE_COLUMNS)})")
        return _render_table(board, fmt, [c for c in _TABLE_COLUMNS if c in columns]), []
    silent = _silent(board)
    shown = [c for c in _TABLE_COLUMNS if c not in _hidden(board) and c not in silent]
    left_out = ["points"] if "points" in silent else []
    text = _render_table(board, fmt, shown)
    # a league's readers ask how sure each rating is (new versions keep arriving)
    league = board.tournament is not None and board.tournament.format == "league"
    for name in (*(c for c in _DROP_TO_FIT if c != "sigma"), "sigma") if league else _DROP_TO_FIT:
        if max(map(len, text.splitlines()), default=0) <= width:
            break
        shown.remove(name)
        left_out.append(name)
        text = _render_table(board, fmt, shown)
    return text, left_out


def leaderboard_title(board: Leaderboard) -> str:
    """One line saying what the table is, for people reading a terminal."""
    what = ("all recorded games" if board.tournament is None
            else f"{board.tournament.name} ({board.tournament.format}, {board.tournament.state})")
    games = f"{board.games} game{'' if board.games == 1 else 's'}"
    if board.rated is not None and board.rated != board.games:
        games += f", {board.rated} of them" if board.rated else ", none of them"
    return (f"Leaderboard: {what}, {games} rated; sorted by "
            + ("mu - 3*sigma" if board.sort == "rating" else "points, then Buchholz"))


def rating_footnote(board: Leaderboard) -> str:
    """The rating's settings, in a line under the table."""
    s = board.settings
    return (f"TrueSkill mu={s.mu:g} sigma={s.sigma:.4g} beta={s.beta:.4g} tau={s.tau:.4g} "
            f"draw={s.draw_probability:g}.")


def _entries_footnote(board: Leaderboard) -> list[str]:
    """Under a continued Swiss tournament's table: the entries whose points its versions
    split, summed as the standings count them, and where --sort points puts them."""
    entries: dict[int, list[LeaderboardRow]] = defaultdict(list)
    for row in board.rows:
        if row.standing is not None:
            entries[row.standing].append(row)
    split = [rows for _, rows in sorted(entries.items()) if len(rows) > 1]
    if not split:
        return []
    sums = "; ".join(
        f"{rows[0].label} {sum(r.points for r in rows):.2f} ("
        + " + ".join(f"{r.version} {r.points:.2f}" for r in rows) + ")" for rows in split)
    where = ("each at its entry's place" if board.sort == "points"
             else "--sort points ranks each at its entry's place")
    name = board.tournament.name if board.tournament is not None else "NAME"
    return [f"Swiss standings (arena status {name}) count an entry's versions as one: "
            f"{sums}; {where}."]


def _fill(line: str, width: int) -> str:
    """``line`` wrapped at words into ``width`` columns, "mu - 3*sigma" kept on one line."""
    kept = line.replace("mu - 3*sigma", "mu\xa0-\xa03*sigma")  # textwrap never breaks there
    return textwrap.fill(kept, width).replace("\xa0", " ")


def leaderboard_report(board: Leaderboard, fmt: str = "simple",
                       columns: Sequence[str] | None = None, *, wide: bool = False,
                       width: int = TABLE_WIDTH) -> str:
    """The leaderboard with a title line and footnotes (the rating's settings, the columns
    left out, what ``new`` means), what ``arena run`` and ``arena leaderboard`` show; by
    default the table fits ``width``, :data:`TABLE_WIDTH` (:func:`fitted_table`), and below
    that the notes wrap at words. json and csv are the full table alone."""
    if fmt in MACHINE_FORMATS:
        return render_leaderboard(board, fmt)
    table, left_out = fitted_table(board, fmt, columns, wide=wide, width=width)
    lines = [leaderboard_title(board), table, rating_footnote(board)]
    if left_out:
        named = ", ".join(f"{c} (equal to wins)" if c == "points" else c for c in left_out)
        lines.append(f"Not shown: {named}; --wide shows every column.")
    lines.extend(_entries_footnote(board))
    if any(row.new_version for row in board.rows) and (columns is None or "note" in columns):
        league = board.tournament is not None and board.tournament.format == "league"
        lines.append("new: a new version of a bot is rated from scratch; older versions keep "
                     "their own ratings" + ("." if league else " (see arena leaderboard --all)."))
    if width < TABLE_WIDTH:  # a narrow terminal's: the notes wrap at words, not mid-word
        lines = [line if i == 1 else _fill(line, width) for i, line in enumerate(lines)]
    return "\n".join(lines)
