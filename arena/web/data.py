"""What the site shows of one stored tournament, read from the results database (read only).

Every number comes from the rating layer's own functions, on the games read once: the
leaderboard is :func:`arena.rating.board_view.leaderboard_json` of
:func:`~arena.rating.leaderboard.tournament_leaderboard` (the rows of ``arena leaderboard
--format json``), head-to-head is :func:`arena.rating.h2h.h2h_json` of
:func:`~arena.rating.h2h.compute_h2h` in the leaderboard's order (``arena h2h --format
json``), ratings over games are :func:`arena.rating.trueskill_rating.rate_stored`'s history
(one rating serves all three), and points per table are
:func:`arena.rating.standings.stored_game_points`, scaled as the Swiss standings scale an off-size
table's (:func:`arena.tournament.scoring.spec_table_weight`). A tournament's drawn seed is
kept from view until it finishes, as the CLI keeps it
(:func:`arena.tournament.secrecy.seed_is_secret`).

A league shows the newest version of each bot by default, as ``arena leaderboard`` does
(:func:`arena.rating.board_view.newest_versions` of the same leaderboard), every version on
request (``--all-versions``), and its entries as ``arena status`` lists them
(:func:`arena.tournament.league_store.entry_lines`: while a run holds it, the versions being
vetted last), with the bots no version of which is
active (retired, or their files gone), which ``arena leaderboard`` names under its board.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from arena.common.names import shown_names
from arena.engine.houserules import HouseRules
from arena.rating.board_view import leaderboard_json, newest_versions, standings_note_parts
from arena.rating.games import (
    StoredGame,
    TournamentInfo,
    connect,
    find_tournament,
    list_tournaments,
    load_games,
    tournament_bots,
)
from arena.rating.h2h import compute_h2h, h2h_json
from arena.rating.leaderboard import standings_places, tournament_leaderboard
from arena.rating.standings import stored_game_points
from arena.rating.trueskill_rating import RatingMemo, RatingRun, rate_stored
from arena.referee.failures import shown_detail
from arena.tournament.bot_versions import bot_labels
from arena.tournament.field_changes import field_line_parts
from arena.tournament.game_details import GameDetails, game_details
from arena.tournament.game_records import decompress_record, record_blobs, row_record
from arena.tournament.league_store import (
    entry_counts,
    entry_lines,
    league_entries,
    not_playing,
    vetting,
    vetting_gave_way,
)
from arena.tournament.planning import (
    games_plan,
    league_budget_note,
    league_games,
    stored_sitting,
)
from arena.tournament.scoring import spec_table_weight, swiss_table_size
from arena.tournament.secrecy import secret_seed_note, seed_is_secret
from arena.tournament.store import Store, shown_state, stored_whole

__all__ = ["GameRow", "TournamentData", "game_slug", "load_tournament", "progress",
           "game_row", "read_records", "tournament_names"]


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
    #: as the standings count them: a forfeited seat is the table's last (E28)
    placements: list[int]
    desmos: list[str]
    tiebreak: str
    ascension: bool
    failures: list[dict[str, Any]]
    forfeits: dict[str, str]
    decisions: int


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
    #: a league: every version's leaderboard (``--all-versions``); None otherwise
    all_versions: dict[str, Any] | None = None
    #: a league: ``arena status``'s entry lines (each version's state, a refusal's reason)
    #: (``line``; as ``parts``, its bot keys apart) and the key of the version each one is of
    entries: list[dict[str, Any]] = field(default_factory=list)
    #: a league: the bots of its board with no version playing (retired, or their files
    #: gone), which ``arena leaderboard`` names under the board
    not_playing: list[str] = field(default_factory=list)
    #: how each bot key is named on the pages: its name, or ``name@version`` where the
    #: tournament holds more than one version of it
    names: dict[str, str] = field(default_factory=dict)
    #: the house rules the games were played to, where they are not the defaults
    #: (``kinds=family, reclaim=strict``; RULES.md "House rules")
    rules: str = ""
    #: a Swiss field that does not divide into tables of its size: how it sits each round
    #: ("4 + 4 + 3 each round"), or in the rounds a withdrawal or a late entrant makes so, as
    #: ``arena status`` says it
    seating: str = ""
    #: a Swiss's withdrawn and late bots, as ``arena status`` names them under its standings:
    #: each line as pieces (``text``, and ``bot`` where the piece is a bot's name)
    field_changes: list[list[dict[str, Any]]] = field(default_factory=list)
    #: a Swiss: that its board is ranked by rating, not as its standings, and whom those put
    #: first, as ``arena leaderboard`` says it under the board (pieces as ``field_changes``)
    standings_note: list[dict[str, Any]] = field(default_factory=list)
    #: a Swiss: each bot key's place in its standings, which the leaderboard's sort follows
    #: between equal values (two bots of equal points in Buchholz order); empty elsewhere
    standings: dict[str, int] = field(default_factory=dict)

    @property
    def done(self) -> int:
        return len(self.games)

    @property
    def league(self) -> bool:
        return self.info.format == "league"

    @property
    def budget_note(self) -> str:
        """A league's budget beside its games (``budget 400 spent``), as ``arena status``
        shows it; empty for a league without one, and for any other format."""
        return league_budget_note(self.done, self.games_planned) if self.league else ""

    @property
    def league_games(self) -> str:
        """A league's games with its budget beside them, as ``arena status`` tells them
        (``8 games (budget 6 spent)``): every place on the pages that counts them says this."""
        return league_games(self.done, self.games_planned)

    @property
    def hidden_versions(self) -> int:
        """Older versions a league's default leaderboard leaves out."""
        if self.all_versions is None:
            return 0
        return len(self.all_versions["bots"]) - len(self.leaderboard["bots"])


def tournament_names(db: str | Path) -> list[str]:
    """The stored tournaments, oldest first."""
    with connect(db) as conn:
        return [t.name for t in list_tournaments(conn, db)]


def _shown_seed(info: TournamentInfo) -> str:
    if seed_is_secret(info.spec, info.state):
        return f"drawn, {secret_seed_note(info.spec)}"
    drawn = " (drawn: the spec gives none)" if info.spec.get("seed", 0) is None else ""
    return f"{info.seed}{drawn}"


#: What a game shows where its details were not read with it (its tournament deleted meanwhile)
_NO_DETAILS = GameDetails(desmos=[], tiebreak="none", ascension=False, failures=[], decisions=0)


def _game_rows(details: dict[str, GameDetails], games: list[StoredGame]) -> list[GameRow]:
    rows = []
    for game in games:
        shown = details.get(game.id, _NO_DETAILS)
        rows.append(GameRow(
            id=game.id, slug=game_slug(game.id), round=game.round, table=game.table_index,
            game=game.game_index, seats=[bot.key for bot in game.seats],
            placements=game.standing_places, desmos=list(shown.desmos),
            tiebreak=shown.tiebreak, ascension=shown.ascension,
            failures=[{**f, "detail": shown_detail(f)} for f in shown.failures],
            forfeits={str(seat): reason for seat, reason in game.forfeits},
            decisions=shown.decisions))
    return rows


def _history(run: RatingRun) -> dict[str, list[list[float]]]:
    """Each bot's rating after each of its own games (numbered 1, 2, ... per bot, in rating
    order), from the prior at 0: bots that sit at different tables compare game for game."""
    settings = run.settings
    history: dict[str, list[list[float]]] = defaultdict(list)
    for key in run.ratings:
        history[key].append([0, round(settings.mu, 4), round(settings.sigma, 4)])
    for step in run.history:
        line = history[step.bot.key]
        line.append([len(line), round(step.after.mu, 4), round(step.after.sigma, 4)])
    return dict(history)


def _rounds(store: Store, info: TournamentInfo,
            games: list[StoredGame]) -> list[dict[str, Any]]:
    """Each round's tables (bots, points, games played of planned) and byes."""
    # every version in the store: a version an entry held before --continue is no entrant
    bots = bot_labels(store)
    points: dict[tuple[int, int], dict[str, Fraction]] = defaultdict(lambda: defaultdict(
        Fraction))
    played: dict[tuple[int, int], int] = defaultdict(int)
    # a duplicate Swiss scales an off-size table's points as its standings count them
    weight = spec_table_weight(info.spec)
    for game in games:
        factor = weight(len(game.seats))
        for bot, pts in stored_game_points(game).items():
            points[(game.round, game.table_index)][bot.key] += pts * factor
        played[(game.round, game.table_index)] += 1
    rounds: dict[int, dict[str, Any]] = {}
    for row in store.tables(info.id):
        rnd, table = row.round, row.table_index
        seats = [bots.get(int(s), f"bot {s}") for s in row.seats]
        score = points[(rnd, table)]
        rounds.setdefault(rnd, {"round": rnd, "tables": [], "byes": []})["tables"].append({
            "table": table, "seats": seats, "points": [float(score.get(s, 0)) for s in seats],
            "played": played[(rnd, table)], "planned": row.games})
    for rnd, bot_id, awarded in store.byes(info.id):
        rounds.setdefault(rnd, {"round": rnd, "tables": [], "byes": []})["byes"].append(
            {"bot": bots.get(int(bot_id), f"bot {bot_id}"), "points": float(awarded)})
    return [rounds[r] for r in sorted(rounds)]


def _entries(db: str | Path, info: TournamentInfo,
             board: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """A league's entries as ``arena status`` lists them, each with its state; and the bots
    of ``board`` with no active version, as ``arena leaderboard`` names them (in order)."""
    # one snapshot: a version the run enters between two reads would misplace every line
    with Store(db, create=False, read_only=True) as store, store.snapshot():
        entries = league_entries(store, info.id)
        running = store.runner_pid(info.name) is not None  # a killed run's rows mean nothing
        vetted = list(vetting(store, info.id)) if running else []
        gave_way = vetting_gave_way(store, info.id) if running else {}
        lines = entry_lines(store, info.id, running=running)[1:]  # its heading is the page's
    gone = not_playing(entries, (row["bot"] for row in board["bots"]))
    states = [(entry.state, entry.key) for entry in entries] + [("vetting", k) for k in vetted]
    keys = {key for _, key in states} | {k for older in gave_way.values() for k in older}
    return ([{"state": state, "key": key, "line": line.strip(),
              "parts": _bot_parts(line.strip(), keys)}
             for (state, key), line in zip(states, lines, strict=True)], gone)


def _bot_parts(line: str, keys: set[str]) -> list[dict[str, Any]]:
    """``line`` cut at every bot key in it (``{"text": ..., "bot": True}``), for the page to
    isolate each in a ``<bdi>``: a right-to-left name would reorder the words around it."""
    if not keys:
        return [{"text": line, "bot": False}]
    # the longest first: a key that begins another is not taken out of it
    pattern = re.compile("|".join(map(re.escape, sorted(keys, key=len, reverse=True))))
    parts: list[dict[str, Any]] = []
    at = 0
    for found in pattern.finditer(line):
        if found.start() > at:
            parts.append({"text": line[at:found.start()], "bot": False})
        parts.append({"text": found.group(), "bot": True})
        at = found.end()
    if at < len(line):
        parts.append({"text": line[at:], "bot": False})
    return parts


def load_tournament(db: str | Path, name: str, memo: RatingMemo | None = None) -> TournamentData:
    """Read one tournament for the site (``memo``: a server's, which reads it again as games
    land). Raises :class:`StoreError` when it is missing."""
    with connect(db) as conn, Store(db, create=False, read_only=True) as store:
        info = find_tournament(conn, name, db)
        games = load_games(conn, info.id)
        entrants = tournament_bots(conn, info.id)
        rows = _game_rows(game_details(store, info.id), games)
        run = rate_stored(conn, info, games, entrants, memo)  # once for all three
        history = _history(run)
        rounds = _rounds(store, info, games)
        full = tournament_leaderboard(conn, info, games, entrants, run)
        seating = _seating(info, [bot.key for bot in entrants])
    board = leaderboard_json(full)
    all_versions: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    not_playing: list[str] = []
    if info.format == "league":  # the newest versions by default, as arena leaderboard
        all_versions = board
        board = leaderboard_json(newest_versions(full)[0])
        entries, not_playing = _entries(db, info, board)
    # the bots that played, in the board's order: build_h2h's own order, not rated again
    h2h = h2h_json(compute_h2h(games, [row.key for row in full.rows if row.games],
                               scope=info.name))
    planned = info.columns.get("games_planned")
    keys = [row["key"] for row in (all_versions or board)["bots"]]
    return TournamentData(info=info, seed=_shown_seed(info),
                          games_planned=stored_whole(planned, "games_planned",
                                                     f"tournament {name}") or None,
                          leaderboard=board, h2h=h2h, history=history, games=rows,
                          rounds=rounds, all_versions=all_versions, entries=entries,
                          not_playing=not_playing,
                          names=shown_names([*keys, *h2h["bots"], *(k for g in rows
                                                               for k in g.seats)]),
                          rules=_rules(info), seating=seating,
                          field_changes=_field_changes(info),
                          standings_note=[{"text": text, "bot": named} for text, named
                                          in standings_note_parts(full)],
                          standings=standings_places(full) if full.swiss else {})


def _field_changes(info: TournamentInfo) -> list[list[dict[str, Any]]]:
    """A Swiss's lines naming its withdrawn and late bots (none elsewhere)."""
    if info.format != "swiss":
        return []
    lines = field_line_parts(info.spec.get("withdrawn") or {}, info.spec.get("joined") or {})
    return [[{"text": text, "bot": named} for text, named in line] for line in lines]


def _seating(info: TournamentInfo, entrants: list[str]) -> str:
    """How a Swiss field sits, round by round, where a round does not sit at tables of its
    size only (:func:`~arena.tournament.planning.swiss_sitting`); else empty."""
    if info.format != "swiss":
        return ""
    return stored_sitting(info.spec, swiss_table_size(info.spec), entrants) or ""


def _rules(info: TournamentInfo) -> str:
    """The house rules that differ from the defaults, ``NAME=VALUE, ...`` (none: empty)."""
    changed = HouseRules.from_json(info.spec.get("rules")).changed()
    return ", ".join(f"{name}={value}" for name, value in changed.items())


def progress(db: str | Path, name: str) -> dict[str, Any]:
    """Games recorded and the state of a tournament: what a live page polls, cheaply; for a
    league also its entries, the active ones among them and the versions being vetted (a bot
    retired, entering or submitted changes the pages before any game lands) and its budget,
    as ``arena status --format json`` has it (``budget_games``, ``budget_spent``), which the
    note of a page paused behind the games tells as the footer does."""
    # one snapshot: a run writing between two reads would have the counts disagree (a game
    # told without the state it finished, a version vetted before it was entered)
    # (connect: a missing or foreign file is told as the other pages tell it)
    with connect(db), Store(db, create=False, read_only=True) as store, store.snapshot():
        row = store.require(name)
        games = store.count_games(row.id)
        league: dict[str, Any] = {}
        if row.format == "league":  # the versions being vetted too, while a run holds it
            running = store.runner_pid(row.name) is not None
            plan = games_plan(games, row.games_planned, league=True)
            league = {"entries": [*entry_counts(store, row.id),
                                  len(vetting(store, row.id)) if running else 0],
                      "budget_games": plan["budget_games"],
                      "budget_spent": plan["budget_spent"]}
    return {"games": games, "state": shown_state(db, row.name, row.state), **league}


def game_row(db: str | Path, game_id: str) -> dict[str, Any]:
    """What the ``games`` row of ``game_id`` holds, in a record's shape (its stored record
    being damaged: :func:`~arena.tournament.game_records.row_record`)."""
    with Store(db, create=False, read_only=True) as store:
        return row_record(store, game_id)


def read_records(db: str | Path, name: str,
                 only: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(game id, record)`` of a tournament's games in id order (``only``: that game)."""
    with connect(db) as conn, Store(db, create=False, read_only=True) as store:
        info = find_tournament(conn, name, db)
        for game_id, blob in record_blobs(store, info.id, only):
            yield game_id, decompress_record(blob, game_id)
