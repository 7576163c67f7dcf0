"""Who starts (ruling 13): reading metadata first, then the loser of the previous game.

The rulebook: "Starting player (first game): the player who most recently read a page in a
printed book. Later games: the loser of the previous game."
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence

from arena.engine.result import GameResult

__all__ = ["first_contenders", "first_starting_seat", "next_starting_seat"]


def first_starting_seat(last_read_page: Sequence[dt.datetime | dt.date | str | None],
                        seed: int, event_date: dt.date | None = None) -> int:
    """The seat with the most recent ``last_read_page``; missing values count as oldest;
    ties (including nobody having a date) by a lot drawn from ``seed``.

    A bare date stands for some time of that day (UTC), so against a time of the same day
    neither is known to be the later: every seat whose reading could be the latest is in the
    lot. Times compare as instants (one without a zone is taken as UTC). A page cannot have
    been read after the game: a value dated (in its own time zone) after ``event_date``
    counts as missing, so claiming the year 9999 wins nothing."""
    tied = first_contenders(last_read_page, event_date)
    return tied[0] if len(tied) == 1 else random.Random(f"start:{seed}").choice(tied)


def first_contenders(last_read_page: Sequence[dt.datetime | dt.date | str | None],
                     event_date: dt.date | None = None) -> list[int]:
    """The seats whose ``last_read_page`` could be the most recent (every seat when none
    counts): :func:`first_starting_seat` starts the one, or draws a lot among several."""
    spans = [_read_span(value) for value in last_read_page]
    if event_date is not None:
        spans = [s if s is not None and s[0] <= event_date else None for s in spans]
    known = [(seat, s) for seat, s in enumerate(spans) if s is not None]
    if not known:
        return list(range(len(spans)))
    return [seat for seat, (_, _, latest) in known
            if all(latest >= earliest for other, (_, earliest, _) in known if other != seat)]


def next_starting_seat(previous: GameResult, seed: int) -> int:
    """The loser (last place) of the previous game; several losers by a lot from ``seed``."""
    losers = previous.losers
    return losers[0] if len(losers) == 1 else random.Random(f"loser:{seed}").choice(losers)


#: A reading: the day it names (in its own time zone), then the earliest and the latest instant
#: it may stand for (naive UTC); the two are one instant for a time, a whole day for a date.
_Span = tuple[dt.date, dt.datetime, dt.datetime]
_DAY = dt.timedelta(days=1) - dt.timedelta(microseconds=1)


def _read_span(value: dt.datetime | dt.date | str | None) -> _Span | None:
    if isinstance(value, str):
        value = _parse_iso(value)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            instant = value
        else:
            try:
                instant = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
            except OverflowError:  # before year 1 or after 9999 in UTC: no reading
                return None
        return value.date(), instant, instant
    if isinstance(value, dt.date):
        midnight = dt.datetime(value.year, value.month, value.day)
        return value, midnight, midnight + _DAY
    return None


def _parse_iso(text: str) -> dt.datetime | dt.date | None:
    """An ISO date (``2026-11-29``) or date and time; anything else is no value."""
    for parse in (dt.date.fromisoformat, dt.datetime.fromisoformat):
        try:
            return parse(text)
        except ValueError:
            pass
    return None
