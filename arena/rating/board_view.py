"""The leaderboard as people are shown it: the text ``arena leaderboard`` prints (also each
frame ``--watch`` refreshes, and the board ``arena run`` ends with), and a league's newest
versions (also the site's leaderboard, :mod:`arena.web.data`).

A league retires a bot's older versions from its matchmaking when a newer one enters; they
keep their games and ratings. By default a league's leaderboard shows the newest version of
each bot (the one playing); ``--all-versions`` shows them all, each with its games and sigma.
Other tournaments show every version they were played with, as always.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.rating.leaderboard import (
    TABLE_WIDTH,
    Leaderboard,
    build_leaderboard,
    fitted_table,
    leaderboard_report,
    sort_leaderboard,
)
from arena.rating.render import MACHINE_FORMATS
from arena.rating.trueskill_rating import RatingMemo

__all__ = ["leaderboard_text", "newest_versions"]


def newest_versions(board: Leaderboard) -> tuple[Leaderboard, int]:
    """``board`` with only the newest version of each bot (the highest store id, which the
    rows' ``older_versions`` name), ranked again; and how many rows were left out."""
    older = {(row.bot, version) for row in board.rows for version in row.older_versions}
    kept = [row for row in board.rows if (row.bot, row.version) not in older]
    hidden = len(board.rows) - len(kept)
    board.rows = kept
    return sort_leaderboard(board, board.sort), hidden


def leaderboard_text(db: str | Path, tournament: str | None = None, *,
                     all_games: bool = False, all_versions: bool = False,
                     sort: str = "rating", fmt: str = "simple",
                     columns: Sequence[str] | None = None, wide: bool = False,
                     store_ratings: bool = False, memo: RatingMemo | None = None,
                     width: int = TABLE_WIDTH) -> str:
    """One leaderboard as ``arena leaderboard`` prints it (and each ``--watch`` frame): a
    league's newest versions unless ``all_versions``, with a line saying what is hidden;
    ``all_games``: every game of every tournament (``--all``).
    ``store_ratings``: also store the tournament's rating history (:func:`build_leaderboard`);
    ``memo``: the frames' shared memo, so that each rates only the games new since the last;
    ``width``: the columns the default table fits (a narrower terminal's)."""
    board = sort_leaderboard(build_leaderboard(db, tournament, all_games=all_games,
                                               store_ratings=store_ratings, memo=memo), sort)
    hidden = 0
    if board.tournament is not None and board.tournament.format == "league" and not all_versions:
        board, hidden = newest_versions(board)
    if fmt == "simple" or fmt in MACHINE_FORMATS:  # simple, for people: which tournament
        text = leaderboard_report(board, fmt, columns, wide=wide, width=width)
    else:
        text = fitted_table(board, fmt, columns, wide=wide, width=width)[0]
    if hidden and fmt not in MACHINE_FORMATS:
        text += (f"\n{hidden} older version{'' if hidden == 1 else 's'} not shown (retired "
                 "from the league, ratings kept); --all-versions shows them.")
    return text
