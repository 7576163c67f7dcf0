"""Where each game of a match starts (ruling 13), and a duplicate deal's boards.

The match's own seating is a chain: its first game starts by ``last_read_page``, each later
one with the previous game's loser. A duplicate deal's other seatings replay that seating's
game as a bridge board, from the same starting seat. Each seating has bot processes of its
own, so a replay seating can be played by another referee after the first (a tournament
worker each): the first tells each board's start as its game begins, and the replay's
referee is given them all. The games are the same either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.engine import GameResult, next_starting_seat

__all__ = ["Boards"]


@dataclass
class Boards:
    """The starting seats of one match's games, deal by deal."""

    #: For a match that plays a replay seating only: the starting seat of a deal's board,
    #: as the referee that played the first seating told it.
    told: Callable[[int], int] | None = None
    #: For a match whose replays are played elsewhere: told ``(deal, starting seat)`` as
    #: each first-seating game begins.
    tell: Callable[[int, int], None] | None = None
    #: The last first-seating game's result (its loser starts the next deal).
    previous: GameResult | None = None
    #: Where the current deal's first seating started.
    start: int = 0

    def starting_seat(self, deal: int, seating: int, gseed: int,
                      first: Callable[[], int]) -> int:
        """The starting seat of ``seating``'s game of ``deal`` (seed ``gseed``); ``first``
        gives the match's first game's by ruling 13."""
        if seating:  # a replay of the deal: the same cards and start, bots moved
            return self.told(deal) if self.told is not None else self.start
        if self.previous is None:
            self.start = first()
        else:
            self.start = next_starting_seat(self.previous, gseed)
        if self.tell is not None:
            self.tell(deal, self.start)
        return self.start

    def ended(self, seating: int, result: GameResult | None) -> None:
        """A game ended: the first seating's result decides the next deal's start."""
        if seating == 0:
            self.previous = result
