"""Who starts (ruling 13): reading metadata first, then the loser of the previous game.

The rulebook: "Starting player (first game): the player who most recently read a page in a
printed book. Later games: the loser of the previous game."
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence

from arena.engine.result import GameResult

__all__ = ["first_starting_seat", "next_starting_seat"]


def first_starting_seat(last_read_page: Sequence[dt.datetime | dt.date | None], seed: int,
                        event_date: dt.date | None = None) -> int:
    """The seat with the most recent ``last_read_page``; missing values count as oldest;
    ties (including nobody having a date) by a lot drawn from ``seed``. A page cannot have
    been read after the game: a value later than ``event_date`` (the whole day) counts as
    missing, so claiming the year 9999 wins nothing."""
    stamps = [_as_datetime(value) for value in last_read_page]
    if event_date is not None:
        end = dt.datetime(event_date.year, event_date.month, event_date.day) + dt.timedelta(1)
        stamps = [s if s is not None and s < end else None for s in stamps]
    known = [s for s in stamps if s is not None]
    if known:
        latest = max(known)
        tied = [seat for seat, s in enumerate(stamps) if s == latest]
    else:
        tied = list(range(len(stamps)))
    return tied[0] if len(tied) == 1 else random.Random(f"start:{seed}").choice(tied)


def next_starting_seat(previous: GameResult, seed: int) -> int:
    """The loser (last place) of the previous game; several losers by a lot from ``seed``."""
    losers = previous.losers
    return losers[0] if len(losers) == 1 else random.Random(f"loser:{seed}").choice(losers)


def _as_datetime(value: dt.datetime | dt.date | str | None) -> dt.datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo is None else value.astimezone(dt.timezone.utc).replace(
            tzinfo=None)
    return dt.datetime(value.year, value.month, value.day)
