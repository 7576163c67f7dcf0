"""Game points and the Swiss Buchholz tie-break of stored games, per bot.

Both are the tournament layer's Swiss scoring (:func:`arena.tournament.scoring.game_points`,
:func:`arena.tournament.scoring.buchholz`) applied to stored games, so the leaderboard shows
the very numbers the Swiss pairing used:

* Points, per game of any size: with k bots, position p (1..k) is worth (k - p) / (k - 1):
  1 for first, 0 for last. Bots sharing a place split the points of the positions they span.
  A bot that forfeited scores nothing (E28): a game every seat forfeited scores 0 for each.
  A bye, which Swiss scores as a win, adds its points too. Sums are exact fractions (no float
  drift between orders), shown as floats.
* Buchholz: for every round a bot played, the final scores of the bots it shared a table
  with that round, each counted once per round, summed over rounds (a round at a table of
  another size than the Swiss one counts their mean as a full table's mates). A Swiss
  leaderboard counts the rounds a bot did not play as the standings do
  (:func:`swiss_buchholz`, with :func:`arena.tournament.scoring.buchholz_scores` and
  :func:`arena.tournament.scoring.virtual_opponents`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from arena.rating.games import BotVersion, StoredGame
from arena.rating.trueskill_rating import game_entries
from arena.tournament import scoring

__all__ = ["ByeRecord", "placement_points", "stored_buchholz", "stored_game_points",
           "swiss_buchholz", "total_points"]


@dataclass(frozen=True)
class ByeRecord:
    """A round a bot sat out, with the points the Swiss pairing gave it."""

    tournament_id: int
    round: int
    bot: BotVersion
    points: Fraction


def placement_points(entries: Sequence[tuple[BotVersion, int]],
                     forfeited: Collection[BotVersion] = ()) -> dict[BotVersion, Fraction]:
    """Points of one game from its (bot, placement) entries; shared places split evenly, and
    a ``forfeited`` bot scores nothing (E28)."""
    if len(entries) < 2:
        return {}
    seats = ({seat for seat, (bot, _) in enumerate(entries) if bot in forfeited}
             if forfeited else set())  # most games: no bot to look up
    points = scoring.game_points([place for _, place in entries], seats)
    # best place first: a bot listed twice keeps the points of its worse place, as it always has
    order = sorted(range(len(entries)), key=lambda seat: entries[seat][1])
    return {entries[seat][0]: points[seat] for seat in order}


def stored_game_points(game: StoredGame) -> dict[BotVersion, Fraction]:
    """Points each bot earned in one game (see the module's scheme)."""
    return placement_points(game_entries(game), game.forfeited_bots)


def total_points(games: Iterable[StoredGame], byes: Iterable[ByeRecord] = (),
                 weight: Callable[[int], Fraction] | None = None) -> dict[str, Fraction]:
    """Points per bot key over the games, plus any byes' points; ``weight`` (by table size)
    scales a game's points as the Swiss score does for off-size tables in duplicate mode
    (:func:`arena.tournament.scoring.table_weight`)."""
    # Each bot's equal points are counted, then summed once: a tournament's games give a
    # handful of distinct values, and adding fractions game by game dominated a leaderboard.
    tally: Counter[tuple[str, int, int]] = Counter()
    for game in games:
        factor = weight(len(game.seats)) if weight is not None else None
        for bot, pts in stored_game_points(game).items():
            if factor is not None:
                pts *= factor
            tally[bot.key, pts.numerator, pts.denominator] += 1
    totals: dict[str, Fraction] = defaultdict(Fraction)
    for (key, numerator, denominator), count in tally.items():
        totals[key] += Fraction(numerator * count, denominator)
    for bye in byes:
        totals[bye.bot.key] += bye.points
    return dict(totals)


def stored_buchholz(games: Iterable[StoredGame],
                    points: Mapping[str, Fraction] | None = None,
                    byes: Iterable[ByeRecord] = (),
                    table_mates: int | None = None) -> dict[str, Fraction]:
    """Buchholz per bot key: the final scores of its table-mates, once per round played
    (``points``: the final scores, when already summed; ``table_mates``: a full table's, as
    :func:`arena.tournament.scoring.buchholz` counts a round at another size)."""
    games = list(games)
    final = dict(points) if points is not None else total_points(games, byes)
    return scoring.buchholz((((game.tournament_id, game.round),
                              [bot.key for bot in game.seats]) for game in games), final,
                            table_mates)


def swiss_buchholz(games: Sequence[StoredGame], byes: Sequence[ByeRecord],
                   entrants: Sequence[BotVersion],
                   spec: Mapping[str, Any]) -> tuple[dict[str, Fraction], set[str]]:
    """A Swiss's Buchholz per bot version, its unplayed rounds counted as the standings count
    them (:mod:`arena.tournament.scoring`): an entry is a bot name, whose versions after
    ``--continue`` share its rounds; a version's own Buchholz counts the tables it sat at,
    and the entry's current version (its entrant) the virtual opponents of the entry's
    unplayed rounds; and the versions of the late entrants whose first round is still to
    come, which show none (as ``arena status`` shows them)."""
    weight = scoring.spec_table_weight(spec)
    seats = ((game.round, bot.name, points.get(bot, Fraction(0)) * weight(len(game.seats)))
             for game in games for points in (stored_game_points(game),)
             for bot in dict.fromkeys(game.seats))
    names = {bot.name for bot in entrants} | {bot.name for game in games for bot in game.seats}
    rounds = {game.round for game in games} | {bye.round for bye in byes}
    field = scoring.SwissField(spec.get("joined") or {}, spec.get("withdrawn") or {})
    records = scoring.round_records(
        seats, ((bye.round, bye.bot.name, bye.points) for bye in byes), field, names, rounds)
    draw = scoring.round_draw_points(spec)
    counted = scoring.buchholz_scores(records, names, rounds, draw)
    finals = {bot.key: counted[bot.name] for game in games for bot in game.seats}
    mates = scoring.spec_table_mates(spec)
    tiebreak = stored_buchholz(games, finals, table_mates=mates)
    own = scoring.virtual_opponents(records, names, rounds, draw, mates)
    for bot in entrants:
        if bot.name in own:
            tiebreak[bot.key] = tiebreak.get(bot.key, Fraction(0)) + own[bot.name]
    return tiebreak, {bot.key for bot in entrants
                      if scoring.yet_to_join(field, bot.name, rounds)}
