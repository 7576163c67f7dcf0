"""Exports for people who want to check the arena: every game, and the list of tournaments.

``arena results`` writes every game of a tournament in rating order with everything the rating
depends on (bots by seat as ``name@version``, the engine's placements, forfeits) plus the rating
parameters, so anyone can recompute the ratings with the ``trueskill`` package alone; and each
seat's place and game points as the standings count them (a forfeit is last and scores nothing,
RULES.md E28): a csv's ``place`` is that place, its ``engine_placement`` the engine's::

    env = trueskill.TrueSkill(**doc["rating"])
    ratings = {}
    for game in doc["games"]:
        best = {}                                   # a bot in two seats keeps its best place
        for bot, place in zip(game["seats"], game["placements"]):
            best[bot] = min(place, best.get(bot, place))
        if len(best) < 2 or len(game["forfeits"]) == len(game["seats"]):
            continue                                # nobody played for a place (E28)
        groups = [(ratings.get(bot, env.create_rating()),) for bot in best]
        for bot, (new,) in zip(best, env.rate(groups, ranks=list(best.values()))):
            ratings[bot] = new
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.common.fitting import fitting_width, not_shown
from arena.common.printable import printable
from arena.common.timestamps import created_fitted
from arena.rating.games import (
    Failure,
    StoredGame,
    TournamentInfo,
    connect,
    find_tournament,
    list_tournaments,
    load_games,
    tournament_bots,
)
from arena.rating.render import check_format, render_csv, render_json, render_table
from arena.rating.trueskill_rating import RatingSettings, settings_for
from arena.referee.copy_paths import author_paths
from arena.tournament.planning import games_plan, games_progress
from arena.tournament.scoring import game_points
from arena.tournament.secrecy import seed_is_secret
from arena.tournament.status import LISTING_COLUMNS, LISTING_LEFT_OUT, bot_count

__all__ = [
    "TournamentSummary",
    "game_json",
    "render_results",
    "render_tournaments",
    "results_json",
    "tournament_summaries",
]

RESULT_FORMATS = ("json", "csv")


def game_json(game: StoredGame) -> dict[str, Any]:
    """One game as exported: everything needed to recompute its rating update."""
    return {
        "id": game.id,
        "round": game.round,
        "table": game.table_index,
        "game": game.game_index,
        "seed": game.seed,
        "seats": [bot.key for bot in game.seats],
        "placements": list(game.placements),
        "standing_places": game.standing_places,
        "failures": [
            {"seat": f.seat, "bot": game.seats[f.seat].key, "type": f.type,
             "detail": author_paths(f.detail)}  # as status tells it: no host's box paths
            for f in game.failures
        ],
        "forfeits": {str(seat): reason for seat, reason in game.forfeits},
        "points": _seat_points(game),
    }


def _seat_points(game: StoredGame) -> list[float]:
    """Each seat's game points, as the standings score it (unweighted)."""
    return [float(points) for points in game_points(game.placements, game.forfeited)]


def results_json(tournament: TournamentInfo, settings: RatingSettings,
                 games: Sequence[StoredGame]) -> dict[str, Any]:
    """The document of ``arena results --format json``."""
    return {
        "tournament": {"name": tournament.name, "format": tournament.format,
                       "state": tournament.state,
                       "seed": None if seed_is_secret(tournament.spec, tournament.state)
                       else tournament.seed,
                       "spec": tournament.spec},
        "rating": settings.to_json(),
        "order": "round, table, game (the order ratings are computed in)",
        "games": [game_json(game) for game in games],
    }


#: ``place`` is the standings' (a forfeit last), which a reader sorts by; the engine's, which
#: places every seat of a game all forfeited first, is named as such.
_CSV_HEADERS = ("id", "round", "table", "game", "seed", "seat", "bot", "place",
                "engine_placement", "failures", "failure_details", "forfeit", "points")
#: Between a cell's ``type: detail`` parts: a detail itself may hold ``;`` and ``,``.
DETAIL_SEPARATOR = " | "


def _failure_details(failures: Sequence[Failure]) -> str:
    """Each failure type of a seat's game once, with its most frequent detail (the first of
    equally frequent ones), as the json has them all: ``timeout: no answer within ...``."""
    details: dict[str, Counter[str]] = {}
    for failure in failures:
        details.setdefault(failure.type, Counter())[author_paths(failure.detail)] += 1
    parts = ((kind, counts.most_common(1)[0][0]) for kind, counts in details.items())
    return DETAIL_SEPARATOR.join(f"{kind}: {detail}" if detail else kind
                                 for kind, detail in parts)


def _results_csv(games: Sequence[StoredGame]) -> str:
    """One row per seat of each game (tidy: group rows by id to get a game back)."""
    records = []
    for game in games:
        forfeits = dict(game.forfeits)
        points = _seat_points(game)
        places = zip(game.standing_places, game.placements, strict=True)
        for seat, (bot, (place, engine)) in enumerate(zip(game.seats, places, strict=True)):
            records.append({
                "id": game.id, "round": game.round, "table": game.table_index,
                "game": game.game_index, "seed": game.seed, "seat": seat, "bot": bot.key,
                "place": place, "engine_placement": engine,
                "failures": ";".join(f.type for f in game.failures if f.seat == seat),
                "failure_details": _failure_details(
                    [f for f in game.failures if f.seat == seat]),
                "forfeit": forfeits.get(seat), "points": points[seat],
            })
    return render_csv(_CSV_HEADERS, records)


def render_results(db_path: str | Path, tournament: str, fmt: str = "json") -> str:
    """Every game of a stored tournament in rating order, as json or csv."""
    if fmt not in RESULT_FORMATS:
        raise ValueError(f"unknown format '{fmt}' (choose json or csv)")
    with connect(db_path) as conn:
        info = find_tournament(conn, tournament, db_path)
        games = load_games(conn, info.id)
    if fmt == "json":
        return render_json(results_json(info, settings_for(info), games))
    return _results_csv(games)


@dataclass(frozen=True)
class TournamentSummary:
    """One line of ``arena tournaments``."""

    name: str
    format: str
    players_per_game: int | list[int] | None
    #: the bots (a league's names: each may have entered in several versions)
    bots: int
    #: the bot versions entered (a league's new versions enter as it runs)
    versions: int
    games_done: int
    #: null where no end is set, a league's always (its budget is where a run stops)
    games_planned: int | None
    #: a league's budget of games (null without one, or another format) and whether the
    #: games reach it: :func:`~arena.tournament.planning.games_plan`
    budget_games: int | None
    budget_spent: bool | None
    state: str
    created_at: str | None


_PLANNED_COLUMNS = ("games_planned", "planned_games", "total_games")


def _planned(info: TournamentInfo) -> int | None:
    """Games planned, when the store records it (Swiss rounds are paired as the run goes)."""
    for name in _PLANNED_COLUMNS:
        value = info.columns.get(name)
        if isinstance(value, int) and value > 0:
            return value
    return None


def tournament_summaries(db_path: str | Path) -> list[TournamentSummary]:
    """Every stored tournament with its size and progress, oldest first."""
    with connect(db_path) as conn:
        done = {
            int(tid): int(n)
            for tid, n in conn.execute(
                "SELECT tournament_id, COUNT(*) FROM games GROUP BY tournament_id")
        }
        summaries = []
        for info in list_tournaments(conn, db_path):
            entrants = [bot.key for bot in tournament_bots(conn, info.id)]
            summaries.append(TournamentSummary(
                name=info.name, format=info.format, players_per_game=info.players_per_game,
                bots=bot_count(info.format, entrants), versions=len(entrants),
                games_done=done.get(info.id, 0),
                **games_plan(done.get(info.id, 0), _planned(info), info.format == "league"),
                state=info.state, created_at=info.created_at,
            ))
    return summaries


def _sizes(sizes: int | list[int] | None, joint: str) -> int | str | None:
    """A tournament's table size, or the sizes of a ladder that mixes them, joined."""
    return joint.join(map(str, sizes)) if isinstance(sizes, list) else sizes


def _tournaments_tsv(summaries: Sequence[TournamentSummary]) -> str:
    """The list for a spreadsheet: the games done and planned in cells of their own, as csv
    has them (``3/10`` is a date to a spreadsheet, 10 March), planned empty where unknown."""
    games = LISTING_COLUMNS.index("games")
    headers = [*LISTING_COLUMNS[:games], "games done", "games planned", "budget games",
               "budget spent", *LISTING_COLUMNS[games + 1:]]
    return render_table(headers, [
        [s.name, s.format, _sizes(s.players_per_game, ", "), s.bots, s.games_done,
         s.games_planned, s.budget_games, _yes_no(s.budget_spent), s.state, s.created_at]
        for s in summaries], "tsv")


def _yes_no(value: bool | None) -> str:
    """A flag as a spreadsheet's cell: ``yes``, ``no``, empty where it does not apply."""
    return "" if value is None else "yes" if value else "no"


def render_tournaments(summaries: Sequence[TournamentSummary], fmt: str = "simple",
                       width: int | None = None) -> str:
    """json, csv or any tabulate format; ``width``: a terminal's columns, which a table too
    wide for them fits by showing the times to the minute (a document's or a ``tsv`` never)."""
    check_format(fmt)
    rows = [summary.__dict__ for summary in summaries]
    if fmt == "json":
        return render_json({"tournaments": rows})
    headers = list(TournamentSummary.__dataclass_fields__)
    if fmt == "csv":
        # a ladder's sizes as one plain cell (2;3), as arena results joins a seat's failures,
        # not a Python list a spreadsheet reads as text
        # and a flag as the tsv's cell, not Python's True
        return render_csv(headers, [{**row, "players_per_game": _sizes(s.players_per_game, ";"),
                                     "budget_spent": _yes_no(s.budget_spent)}
                                    for row, s in zip(rows, summaries, strict=True)])
    if fmt == "tsv":
        return _tournaments_tsv(summaries)
    table = [
        [printable(s.name), s.format, _sizes(s.players_per_game, ", "), s.bots,
         games_progress(s.games_done, s.budget_games if s.format == "league"
                        else s.games_planned, s.format == "league"), s.state,
         s.created_at]
        for s in summaries
    ]
    # the column names of arena status's list (json and csv keep the field names)
    text, left_out = created_fitted(lambda head, rows: render_table(head, rows, fmt),
                                    LISTING_COLUMNS, table, fitting_width(fmt, width),
                                    LISTING_LEFT_OUT)
    if not left_out:
        return text
    note = not_shown(left_out, "--format csv has every field")
    assert width is not None  # a pipe's (None) has every column
    return text + "\n" + textwrap.fill(note, width)  # at words, not mid-word
