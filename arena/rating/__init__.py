"""Ratings: TrueSkill over stored games, leaderboards, head-to-head.

For ``arena run``, two calls once the runner has finished (or stopped)::

    from arena.rating import build_leaderboard, leaderboard_report, rate_tournament

    ratings = rate_tournament(db_path, spec.name)   # {"name@version": trueskill.Rating};
                                                   # replaces the tournament's rating_history
    text = leaderboard_report(build_leaderboard(db_path, spec.name))  # title line + table

The rating layer sits above the tournament layer (docs/ARCHITECTURE.md), so these calls belong
in the ``arena run`` command (``arena/cli/tournament_commands.py``), not in
``arena/tournament/``. Both only need the games already stored and may be called again at any
time: ratings are recomputed from the games in id order, never accumulated.

Points and Buchholz (:mod:`arena.rating.standings`) are computed by the Swiss scoring of
:mod:`arena.tournament.scoring`, applied to stored games.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real imports happen on first use (see __getattr__)
    from arena.rating.board_view import leaderboard_report, render_leaderboard
    from arena.rating.leaderboard import build_leaderboard
    from arena.rating.trueskill_rating import (
        RatingSettings,
        rate_all,
        rate_games,
        rate_tournament,
    )

__all__ = [
    "RatingSettings",
    "build_leaderboard",
    "leaderboard_report",
    "rate_all",
    "rate_games",
    "rate_tournament",
    "render_leaderboard",
]

_HOMES = {
    "build_leaderboard": "arena.rating.leaderboard",
    "leaderboard_report": "arena.rating.board_view",
    "render_leaderboard": "arena.rating.board_view",
    "RatingSettings": "arena.rating.trueskill_rating",
    "rate_all": "arena.rating.trueskill_rating",
    "rate_games": "arena.rating.trueskill_rating",
    "rate_tournament": "arena.rating.trueskill_rating",
}


def __getattr__(name: str) -> Any:
    """Import lazily: ``arena`` starts every command, and most never rate anything."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'arena.rating' has no attribute {name!r}")
