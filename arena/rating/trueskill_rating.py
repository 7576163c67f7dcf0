"""TrueSkill ratings over stored games, in deterministic order.

Rules (all of them, so anyone can recompute the numbers from ``arena results``):

* Every bot version is its own player (key ``name@version``); a new version starts from the
  default ``(mu, sigma)``, not from an older version's rating. A tournament's ratings start
  fresh; ``--all`` rates every game ever recorded as one sequence.
* Games are rated one at a time in id order: tournament id, round, table index, game index
  (the game id breaks any remaining tie). Completion order never matters, so a run with any
  number of workers, or one resumed after a crash, gives bit-identical ratings.
* Each game is a free-for-all update: ``env.rate([(r,) for each bot], ranks=placements)``.
  Equal placements are equal ranks (a shared place, rated as a draw between those bots); the
  referee already places a forfeiting bot last, and a game every seat forfeited is not rated
  (nobody played for a place, RULES.md E28).
* A bot that sits in several seats of one game (self-play) counts once, at its best placement;
  a game with fewer than two distinct bots (a bye) changes no rating.
* The environment is ``trueskill.TrueSkill(mu, sigma, beta, tau, draw_probability)`` built from
  the spec's ``rating`` settings; a missing value is filled in as the tournament layer does
  (``arena.tournament.scoring.rating_parameters``: sigma = mu/3, beta = sigma/2, tau = 0,
  draw probability 0.10): the library's relations except tau, since a bot version's skill
  does not drift. The module-level global environment is never used.

The stored history is also a cache (:func:`stored_steps`): a game's update depends only on its
placements, the settings and its bots' ratings just before it, so a stored step is taken as it
is wherever the bots' ratings before the game are bit for bit the stored ones (TrueSkill's own
precision and precision-adjusted mean, ``pi`` and ``tau``, are stored beside mu and sigma for
that), under the same settings, rules and library. Anything else (a game not rated yet, one
rated before a game that came in later at an earlier place of the order) is rated afresh, so
the result is always the one rating every game from scratch gives.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trueskill

from arena.errors import StoreError
from arena.rating.games import (
    BotVersion,
    StoredGame,
    TournamentInfo,
    connect,
    find_tournament,
    game_order_key,
    list_tournaments,
    load_games,
    tournament_bots,
)
from arena.tournament.scoring import DEFAULT_TAU, rating_parameters

__all__ = [
    "HISTORY_RULES",
    "KnownSteps",
    "RatingMemo",
    "RatingRun",
    "RatingSettings",
    "RatingStep",
    "StoredStep",
    "conservative",
    "game_entries",
    "rate_all",
    "rate_games",
    "rate_stored",
    "rate_tournament",
    "rate_tournament_run",
    "settings_for",
    "settings_for_all",
    "steps_of",
    "stored_steps",
    "write_history",
]

# The store makes both tables (arena.tournament.store.SCHEMA); a database written before
# them gets them here, with the exact columns the cache needs.
_RATING_HISTORY_DDL = """
CREATE TABLE IF NOT EXISTS rating_history(
    tournament_id INTEGER, game_id TEXT, bot_id INTEGER,
    mu_before REAL, sigma_before REAL, mu_after REAL, sigma_after REAL,
    PRIMARY KEY (tournament_id, game_id, bot_id))
"""
_EXACT_COLUMNS = ("pi_before", "tau_before", "pi_after", "tau_after")
_RATING_STAMPS_DDL = """
CREATE TABLE IF NOT EXISTS rating_stamps(
    tournament_id INTEGER PRIMARY KEY, settings_json TEXT, rules TEXT)
"""

#: What a stored history was rated under besides its settings: this module's rules (change
#: the number whenever a rule above changes) and the library that did the arithmetic. A
#: history stamped otherwise is not reused.
HISTORY_RULES = f"arena rules 1, trueskill {trueskill.__version__}"

#: One bot's stored step in one game: its rating's (pi, tau) before the game and after it.
StoredStep = tuple[float, float, float, float]
#: A tournament's stored steps: by game id, then by bot id.
KnownSteps = Mapping[str, Mapping[int, StoredStep]]


def _positive(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise StoreError(f"rating.{name} must be a number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class RatingSettings:
    """The TrueSkill parameters of one rating run (the defaults unless a spec says)."""

    mu: float = trueskill.MU
    sigma: float = trueskill.SIGMA
    beta: float = trueskill.BETA
    tau: float = DEFAULT_TAU
    draw_probability: float = trueskill.DRAW_PROBABILITY

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> RatingSettings:
        """Build from a spec's ``rating`` block; missing values take the defaults."""
        values = values or {}
        mu = _positive(values.get("mu"), "mu")
        sigma = _positive(values.get("sigma"), "sigma")
        beta = _positive(values.get("beta"), "beta")
        tau = _positive(values.get("tau"), "tau")
        draw = _positive(values.get("draw_probability"), "draw_probability")
        filled = rating_parameters(mu, sigma, beta, tau, draw)
        if (filled["sigma"] <= 0 or filled["beta"] <= 0 or filled["tau"] < 0
                or not 0 <= filled["draw_probability"] < 1):
            raise StoreError(
                "rating settings out of range (need sigma > 0, beta > 0, tau >= 0, "
                f"0 <= draw_probability < 1): {values!r}"
            )
        return cls(**filled)

    def env(self) -> trueskill.TrueSkill:
        """A private TrueSkill environment (the library's global one is never touched)."""
        return trueskill.TrueSkill(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau,
                                   draw_probability=self.draw_probability)

    def to_json(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma, "beta": self.beta, "tau": self.tau,
                "draw_probability": self.draw_probability}


def settings_for(tournament: TournamentInfo) -> RatingSettings:
    """The rating settings recorded with a tournament's spec."""
    block = tournament.spec.get("rating")
    return RatingSettings.from_mapping(block if isinstance(block, Mapping) else None)


def settings_for_all(tournaments: Sequence[TournamentInfo]) -> RatingSettings:
    """One parameter set for ``--all``: the tournaments' own if they agree, else the defaults.

    Rating across tournaments with different parameters has no single right answer; the
    defaults are the neutral choice and are reported with the leaderboard.
    """
    found = {settings_for(t) for t in tournaments}
    return found.pop() if len(found) == 1 else RatingSettings()


def conservative(rating: trueskill.Rating) -> float:
    """mu - 3 sigma: the rating the bot exceeds with about 99.9% confidence (the sort key)."""
    return float(rating.mu - 3 * rating.sigma)


def game_entries(game: StoredGame) -> list[tuple[BotVersion, int]]:
    """The (bot, placement) pairs a game is rated on, in seat order.

    A bot in several seats keeps its best placement (see the module rules); a forfeited seat
    is the table's last place (E28: the order is the engine's, the number the standings').
    """
    best: dict[BotVersion, int] = {}
    for bot, place in zip(game.seats, game.standing_places, strict=True):
        if bot not in best or place < best[bot]:
            best[bot] = place
    return list(best.items())


@dataclass(frozen=True)
class RatingStep:
    """One bot's rating before and after one game: a row of ``rating_history``."""

    tournament_id: int
    game_id: str
    bot: BotVersion
    before: trueskill.Rating
    after: trueskill.Rating


@dataclass
class RatingRun:
    """The outcome of rating a sequence of games."""

    settings: RatingSettings
    ratings: dict[str, trueskill.Rating] = field(default_factory=dict)
    bots: dict[str, BotVersion] = field(default_factory=dict)
    history: list[RatingStep] = field(default_factory=list)
    #: Games TrueSkill rated in this run; the other rated games' steps came from the stored
    #: history (:func:`stored_steps`).
    computed: int = 0


def rate_games(games: Iterable[StoredGame], settings: RatingSettings | None = None,
               entrants: Iterable[BotVersion] = (), known: KnownSteps | None = None) -> RatingRun:
    """Rate games in id order (the input order does not matter); pure, no I/O.

    ``entrants`` get the prior rating even if they never played, so a leaderboard lists them.
    ``known``: stored steps under these settings (:func:`stored_steps`), each taken where its
    bots' ratings before the game are the stored ones; the result is the same without them.
    """
    settings = settings or RatingSettings()
    env = settings.env()
    run = RatingRun(settings=settings)
    for bot in entrants:
        run.bots.setdefault(bot.key, bot)
        run.ratings.setdefault(bot.key, env.create_rating())
    for game in sorted(games, key=game_order_key):
        entries = game_entries(game)
        for bot, _ in entries:
            run.bots.setdefault(bot.key, bot)
            run.ratings.setdefault(bot.key, env.create_rating())
        if len(entries) < 2 or len(game.forfeits) >= len(game.seats):
            continue  # nobody played for a place (every seat forfeited): nothing to learn
        before = [run.ratings[bot.key] for bot, _ in entries]
        after = _stored_after(known.get(game.id) if known else None, entries, before)
        if after is None:
            rated = env.rate([(r,) for r in before], ranks=[place for _, place in entries])
            after = [new for (new,) in rated]
            run.computed += 1
        for (bot, _), old, new in zip(entries, before, after, strict=True):
            run.ratings[bot.key] = new
            run.history.append(RatingStep(game.tournament_id, game.id, bot, old, new))
    return run


def _stored_after(stored: Mapping[int, StoredStep] | None,
                  entries: Sequence[tuple[BotVersion, int]],
                  before: Sequence[trueskill.Rating]) -> list[trueskill.Rating] | None:
    """The game's ratings after it from its stored step, or None unless the step holds these
    very bots with these very ratings before it (bit for bit)."""
    if stored is None or len(stored) != len(entries):
        return None
    after = []
    for (bot, _), old in zip(entries, before, strict=True):
        step = stored.get(bot.id)
        if step is None or step[0] != old.pi or step[1] != old.tau:
            return None
        after.append(_exact_rating(step[2], step[3]))
    return after


def _exact_rating(pi: float, tau: float) -> trueskill.Rating:
    """The rating with exactly this precision and precision-adjusted mean: built from mu and
    sigma, the division and square root could move the last bit. (The library's own
    arithmetic makes its Gaussians the same way: ``Gaussian(pi=..., tau=...)``.)"""
    rating: trueskill.Rating = trueskill.Rating.__new__(trueskill.Rating)
    rating.pi, rating.tau = pi, tau
    return rating


def _stamp(settings: RatingSettings) -> str:
    return json.dumps(settings.to_json(), sort_keys=True)


def stored_steps(conn: sqlite3.Connection, tournament_id: int,
                 settings: RatingSettings) -> dict[str, dict[int, StoredStep]]:
    """The tournament's stored steps (:data:`KnownSteps`) if its history was rated under
    ``settings`` and :data:`HISTORY_RULES`, else none (nothing stored, another setting, a
    history stored before the cache)."""
    try:
        stamp = conn.execute("SELECT settings_json, rules FROM rating_stamps "
                             "WHERE tournament_id = ?", (tournament_id,)).fetchone()
        if stamp is None or tuple(stamp) != (_stamp(settings), HISTORY_RULES):
            return {}
        rows = conn.execute(
            "SELECT game_id, bot_id, pi_before, tau_before, pi_after, tau_after "
            "FROM rating_history WHERE tournament_id = ?", (tournament_id,)).fetchall()
    except sqlite3.OperationalError:  # a database from before the cache
        return {}
    steps: dict[str, dict[int, StoredStep]] = {}
    for game_id, bot_id, pi_before, tau_before, pi_after, tau_after in rows:
        if None not in (pi_before, tau_before, pi_after, tau_after):
            steps.setdefault(game_id, {})[bot_id] = (pi_before, tau_before, pi_after, tau_after)
    return steps


def write_history(conn: sqlite3.Connection, tournament_id: int, run: RatingRun) -> None:
    """Replace one tournament's rating history in a single transaction, stamped with the
    run's settings and :data:`HISTORY_RULES` (so that :func:`stored_steps` may reuse it)."""
    _ensure_history_tables(conn)
    rows = [
        (step.tournament_id, step.game_id, step.bot.id, step.before.mu, step.before.sigma,
         step.after.mu, step.after.sigma, step.before.pi, step.before.tau, step.after.pi,
         step.after.tau)
        for step in run.history
    ]
    previous = conn.isolation_level
    conn.isolation_level = None  # explicit transaction control
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("DELETE FROM rating_history WHERE tournament_id = ?", (tournament_id,))
            conn.executemany(
                "INSERT INTO rating_history (tournament_id, game_id, bot_id, mu_before, "
                "sigma_before, mu_after, sigma_after, pi_before, tau_before, pi_after, "
                "tau_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            conn.execute("INSERT OR REPLACE INTO rating_stamps (tournament_id, settings_json, "
                         "rules) VALUES (?, ?, ?)",
                         (tournament_id, _stamp(run.settings), HISTORY_RULES))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.isolation_level = previous


def _ensure_history_tables(conn: sqlite3.Connection) -> None:
    conn.execute(_RATING_HISTORY_DDL)
    conn.execute(_RATING_STAMPS_DDL)
    have = {row[1] for row in conn.execute("PRAGMA table_info(rating_history)")}
    for column in _EXACT_COLUMNS:
        if column not in have:
            conn.execute(f"ALTER TABLE rating_history ADD COLUMN {column} REAL")
    conn.commit()


def steps_of(run: RatingRun) -> dict[str, dict[int, StoredStep]]:
    """``run``'s steps as :func:`stored_steps` reads them back once written."""
    steps: dict[str, dict[int, StoredStep]] = {}
    for step in run.history:
        steps.setdefault(step.game_id, {})[step.bot.id] = (
            step.before.pi, step.before.tau, step.after.pi, step.after.tau)
    return steps


def _reads(game: StoredGame) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What a game's rating depends on besides the ratings before it: who sat, what place."""
    return tuple(bot.id for bot in game.seats), game.placements


class RatingMemo:
    """A long-lived reader's last rating of each tournament (``arena serve``, ``arena
    leaderboard --watch``), offered to its next one beside the stored history: a live view
    rates only the games that landed since, and those whose bots' ratings the newcomers
    moved. A game's steps are offered only while the game still reads the same (its seats
    and placements, under the same settings), so a tournament dropped and played again under
    the same name reuses nothing wrongly. Safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[int, tuple[RatingSettings, dict[str, tuple[object, ...]],
                                    dict[str, dict[int, StoredStep]]]] = {}

    def offer(self, tournament_id: int, settings: RatingSettings,
              games: Sequence[StoredGame]) -> dict[str, dict[int, StoredStep]]:
        """The kept steps of these games that still read as they did."""
        with self._lock:
            kept = self._kept.get(tournament_id)
        if kept is None or kept[0] != settings:
            return {}
        read, steps = kept[1], kept[2]
        return {game.id: steps[game.id] for game in games
                if game.id in steps and read.get(game.id) == _reads(game)}

    def keep(self, tournament_id: int, run: RatingRun, games: Sequence[StoredGame]) -> None:
        """Keep ``run`` (the rating of ``games``) for the next offer."""
        read: dict[str, tuple[object, ...]] = {game.id: _reads(game) for game in games}
        with self._lock:
            self._kept[tournament_id] = (run.settings, read, steps_of(run))


def rate_stored(conn: sqlite3.Connection, tournament: TournamentInfo,
                games: Sequence[StoredGame], entrants: Iterable[BotVersion] = (),
                memo: RatingMemo | None = None) -> RatingRun:
    """Rate one stored tournament's ``games``, reusing its stored history where it holds
    (:func:`stored_steps`) and what ``memo`` kept of the last rating: the same run as
    :func:`rate_games` gives from scratch."""
    settings = settings_for(tournament)
    known = stored_steps(conn, tournament.id, settings)
    if memo is not None:
        known.update(memo.offer(tournament.id, settings, games))
    run = rate_games(games, settings, entrants, known)
    if memo is not None:
        memo.keep(tournament.id, run, games)
    return run


def rate_tournament_run(db_path: str | Path, tournament_name: str, *,
                        write: bool = True) -> RatingRun:
    """Rate one tournament from the store; with ``write``, replace its stored history."""
    with connect(db_path) as conn:
        tournament = find_tournament(conn, tournament_name, db_path)
        games = load_games(conn, tournament.id)
        run = rate_stored(conn, tournament, games, tournament_bots(conn, tournament.id))
        if write:
            write_history(conn, tournament.id, run)
        return run


def rate_tournament(db_path: str | Path, tournament_name: str) -> dict[str, trueskill.Rating]:
    """Rate a tournament, store its per-game history and return ratings by ``name@version``.

    ``arena run``'s summary stores the same history as it shows the leaderboard
    (:func:`~arena.rating.leaderboard.build_leaderboard`); this may be called at any
    time: the history is recomputed from the games and replaced, never appended.
    """
    return dict(rate_tournament_run(db_path, tournament_name).ratings)


def rate_all(db_path: str | Path) -> RatingRun:
    """Rate every game ever recorded, across tournaments in (tournament id, game) order.

    Not stored: ``rating_history`` is per tournament, and this view is cheap to recompute.
    """
    with connect(db_path) as conn:
        tournaments = list_tournaments(conn)
        return rate_games(load_games(conn, None), settings_for_all(tournaments),
                          tournament_bots(conn, None))
