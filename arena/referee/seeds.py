"""A match's seeds and the dates that choose its first starting seat.

Every seed derives from the match seed by SHA-256, so it is stable across runs, machines and
Python versions: each game's (or a deal book's deal), and each bot's own seed for one game,
sent in ``game_start`` and derived apart from the game's, so it reveals nothing of the deal;
and the throw the referee plays for a seat at Rock-Paper-Scissors when it cannot use the
bot's (:func:`played_for`, RULES.md E34).
The first game's starting seat follows the bots' ``last_read_page`` (ruling 13), read against
the day the match is played: a tournament's is fixed when it is created (:func:`utc_today`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine import State, first_contenders, first_starting_seat

__all__ = ["bot_seed", "deal_seed", "first_seat", "first_seat_drawn", "game_seed", "parse_date",
           "parse_stamp", "played_for", "throw_lot", "utc_today"]


def bot_seed(match_seed: int, game_index: int, seat: int) -> int:
    """A seed for one bot's own randomness in one game (sent in ``game_start``), so a bot's
    random choices replay too. Derived apart from the game seed: it reveals nothing of the
    deal."""
    digest = hashlib.sha256(f"palaestra-bot:{match_seed}:{game_index}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_seed(match_seed: int, game_index: int) -> int:
    """The seed of one game of a match: stable across runs, machines and Python versions."""
    digest = hashlib.sha256(f"palaestra-match:{match_seed}:{game_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def throw_lot(game_seed: int, at: int, throws: int) -> int:
    """The throw drawn by lot for a seat at the ``at``-th choice of a game (its place in the
    record's ``choices``, from 0): an index among ``throws`` options, from the game's seed, so
    the same game replays it."""
    digest = hashlib.sha256(f"palaestra-throw:{game_seed}:{at}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % throws


def played_for(state: State) -> int:
    """The option the referee plays for a seat whose answer it cannot use (a strike, a
    forfeit) at ``state``'s decision: its safe default, option 0; at a Rock-Paper-Scissors
    throw, which has none (RULES.md E22), a lot among the throws (:func:`throw_lot`, E34).
    Rock every time would let the seat asked next, which waited out the whole limit, beat
    it: the wait tells that the bot struck, never what it threw."""
    decision = state.decision
    if decision is None or decision.kind != "rps":
        return 0
    return throw_lot(state.config.seed, len(state.choices), len(decision.options))


def deal_seed(match_seed: int, deal: int, deal_seeds: Sequence[int] = ()) -> int:
    """The seed of a match's deal: the deal book's where it has one, else derived (without
    duplicate, the deal is the game)."""
    return deal_seeds[deal] if deal < len(deal_seeds) else game_seed(match_seed, deal)


def utc_today() -> dt.date:
    """The day a match is played when nothing fixes it: today in UTC, as ruling 13 reads a bare
    date, so the machine's time zone cannot change the games (in UTC+14 it is tomorrow)."""
    return dt.datetime.now(dt.timezone.utc).date()


def parse_date(value: Any) -> dt.date | None:
    """An ISO date (or datetime) from bot metadata; anything else counts as missing."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and value:
        try:
            return dt.datetime.fromisoformat(value).date()
        except ValueError:
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                return None
    return None


def parse_stamp(value: Any) -> dt.date | str | None:
    """A ``last_read_page`` as metadata gives it (a date from YAML, else ISO text, which the
    engine reads: ruling 13); anything else is no value."""
    return value if isinstance(value, dt.date | str) else None


def first_seat(metadata: Sequence[Mapping[str, Any]], seed: int, event_date: dt.date) -> int:
    """The match's first starting seat (ruling 13: the most recent ``last_read_page``)."""
    return first_starting_seat([parse_stamp(m.get("last_read_page")) for m in metadata],
                               seed, event_date)


def first_seat_drawn(metadata: Sequence[Mapping[str, Any]], event_date: dt.date) -> bool:
    """Whether :func:`first_seat` draws a lot (no one seat's ``last_read_page`` is alone the
    most recent) rather than reading it."""
    readings = [parse_stamp(m.get("last_read_page")) for m in metadata]
    return len(first_contenders(readings, event_date)) > 1
