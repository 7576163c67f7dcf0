"""Game points and the Swiss Buchholz tie-break, computed from stored games.

Both follow the tournament layer's Swiss scoring (:mod:`arena.tournament.scoring`), so the
leaderboard shows the very numbers the Swiss pairing used:

* Points, per game of any size: with k bots, position p (1..k) is worth (k - p) / (k - 1):
  1 for first, 0 for last, 1 / 0 in a two-player game. Bots sharing a place split the points
  of the positions they span (two of three tied first get (1 + 1/2) / 2 = 3/4 each), so a
  game always hands out k/2 points. A bye, which Swiss scores as a win, adds its points too.
  Sums are exact fractions (no float drift between orders), shown as floats.
* Buchholz: for every round a bot played, the final scores of the bots it shared a table
  with that round, each counted once per round (the seat rotations of one pairing in
  duplicate mode are one meeting), summed over rounds as in FIDE's Buchholz; a bye adds
  nothing to Buchholz but counts in the score.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from arena.rating.games import BotVersion, StoredGame
from arena.rating.trueskill_rating import game_entries

__all__ = ["ByeRecord", "buchholz", "game_points", "placement_points", "total_points"]


@dataclass(frozen=True)
class ByeRecord:
    """A round a bot sat out, with the points the Swiss pairing gave it."""

    tournament_id: int
    round: int
    bot: BotVersion
    points: Fraction


def placement_points(entries: Sequence[tuple[BotVersion, int]]) -> dict[BotVersion, Fraction]:
    """Points of one game from its (bot, placement) entries; shared places split evenly."""
    k = len(entries)
    if k < 2:
        return {}
    ordered = sorted(entries, key=lambda entry: entry[1])
    points: dict[BotVersion, Fraction] = {}
    start = 0
    while start < k:
        place = ordered[start][1]
        end = start
        while end < k and ordered[end][1] == place:
            end += 1
        share = sum((Fraction(k - 1 - p, k - 1) for p in range(start, end)),
                    Fraction(0)) / (end - start)
        for bot, _ in ordered[start:end]:
            points[bot] = share
        start = end
    return points


def game_points(game: StoredGame) -> dict[BotVersion, Fraction]:
    """Points each bot earned in one game (see the module's scheme)."""
    return placement_points(game_entries(game))


def total_points(games: Iterable[StoredGame], byes: Iterable[ByeRecord] = (),
                 weight: Callable[[int], Fraction] | None = None) -> dict[str, Fraction]:
    """Points per bot key over the games, plus any byes' points; ``weight`` (by table size)
    scales a game's points as the Swiss score does for off-size tables in duplicate mode
    (:func:`arena.tournament.scoring.table_weight`)."""
    totals: dict[str, Fraction] = defaultdict(Fraction)
    for game in games:
        factor = weight(len(game.seats)) if weight is not None else Fraction(1)
        for bot, pts in game_points(game).items():
            totals[bot.key] += pts * factor
    for bye in byes:
        totals[bye.bot.key] += bye.points
    return dict(totals)


def buchholz(games: Iterable[StoredGame], points: Mapping[str, Fraction] | None = None,
             byes: Iterable[ByeRecord] = ()) -> dict[str, Fraction]:
    """Buchholz per bot key: the final scores of its table-mates, once per round played."""
    games = list(games)
    final = dict(points) if points is not None else total_points(games, byes)
    mates: dict[tuple[int, int, str], set[str]] = defaultdict(set)
    for game in games:
        keys = {bot.key for bot in game.seats}
        for key in keys:
            mates[(game.tournament_id, game.round, key)].update(keys - {key})
    result: dict[str, Fraction] = defaultdict(Fraction)
    for (_, _, key), others in sorted(mates.items()):
        result[key] += sum((final.get(other, Fraction(0)) for other in sorted(others)),
                           Fraction(0))
    return dict(result)
