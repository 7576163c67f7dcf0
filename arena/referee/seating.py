"""How one deal is seated: the duplicate formats shared by matches and tournaments.

Luck of the deal is most of the noise in a card game's results. Playing the same deal once per
seat order lets it cancel: each bot gets each hand. The referee plays them within one match
(``arena match --duplicate``); a tournament plays each order as a table of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import permutations

__all__ = ["SEATINGS", "crowded_table", "seat_orders", "seating_mode", "seatings_per_deal"]

#: Bot processes a duplicate table may keep alive before it is warned of: a table of 4 in
#: permutations passes, one of 5 does not.
MANY_PROCESSES = 100
#: What one sample bot's process takes (docs/TOURNAMENTS.md, "Formats").
SAMPLE_BOT_MB = 22

#: How a deal is seated: once (``none``), in each of the k seat rotations of one bot order
#: (``rotations``, the classic duplicate), or in all k! orders (``permutations``): at 3+
#: players rotations keep who sits after whom fixed, which favours a bot whose left-hand
#: neighbour attacks the next seat less; permutations cancel that too.
SEATINGS = ("none", "rotations", "permutations")


def seating_mode(duplicate: bool | str) -> str:
    """The spec's ``duplicate`` value as a seating: ``true`` is ``rotations``."""
    if duplicate is True:
        return "rotations"
    if duplicate is False:
        return "none"
    if duplicate not in SEATINGS:
        raise ValueError(f"unknown seating {duplicate!r} (choose from {', '.join(SEATINGS)})")
    return duplicate


def seat_orders(group: Sequence[int], duplicate: bool | str) -> list[tuple[int, ...]]:
    """The seat orders a group plays one deal in (see :data:`SEATINGS`)."""
    mode = seating_mode(duplicate)
    k = len(group)
    if mode == "permutations":
        return list(permutations(group))
    if mode == "rotations":
        return [tuple(group[(j + rot) % k] for j in range(k)) for rot in range(k)]
    return [tuple(group)]


def seatings_per_deal(bots: int, duplicate: bool | str) -> int:
    """How many games one deal takes: ``len(seat_orders(...))`` without listing them (k! of
    a dozen bots is millions)."""
    mode = seating_mode(duplicate)
    return math.factorial(bots) if mode == "permutations" else bots if mode == "rotations" else 1


def crowded_table(bots: int, duplicate: bool | str) -> str | None:
    """Why a table of ``bots`` seated so would keep many bot processes alive at once (one
    per bot and seating, so that no process is dealt a deal twice), if it would."""
    seatings = seatings_per_deal(bots, duplicate)
    processes = bots * seatings
    if processes <= MANY_PROCESSES:
        return None
    return (f"duplicate: {seating_mode(duplicate)} keeps {processes} bot processes alive at a "
            f"table of {bots} ({seatings} seatings of {bots} bots, each frozen between its "
            f"decisions: about {processes * SAMPLE_BOT_MB / 1000:.0f} GB at the sample bots' "
            f"{SAMPLE_BOT_MB} MB each); rotations keep {bots * bots}")
