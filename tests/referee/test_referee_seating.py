"""Seat orders of a deal: every bot in every seat equally often, exhaustively for 2-5 bots."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from arena.referee.seating import SEATINGS, seat_orders, seating_mode


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("mode", ["rotations", "permutations"])
def test_every_bot_sits_in_every_seat_equally_often(k: int, mode: str) -> None:
    group = tuple(range(10, 10 + k))  # bot numbers, not seats
    seatings = seat_orders(group, mode)
    expected = k if mode == "rotations" else math.factorial(k)
    assert len(seatings) == len(set(seatings)) == expected
    assert seatings[0] == group, "the first seating is the given order"
    assert all(sorted(order) == list(group) for order in seatings)
    counts = Counter((bot, seat) for order in seatings for seat, bot in enumerate(order))
    assert set(counts.values()) == {expected // k} and len(counts) == k * k


def test_rotations_keep_who_sits_after_whom() -> None:
    follows = {(order[i], order[(i + 1) % 4]) for order in seat_orders((0, 1, 2, 3), True)
               for i in range(4)}
    assert follows == {(0, 1), (1, 2), (2, 3), (3, 0)}


def test_none_is_the_given_order_and_booleans_name_modes() -> None:
    assert seat_orders((2, 0, 1), "none") == seat_orders((2, 0, 1), False) == [(2, 0, 1)]
    assert seating_mode(True) == "rotations" and seating_mode(False) == "none"
    assert [seating_mode(mode) for mode in SEATINGS] == list(SEATINGS)
    with pytest.raises(ValueError, match="unknown seating 'mirror' \\(choose from none, "
                                         "rotations, permutations\\)"):
        seat_orders((0, 1), "mirror")
