"""The rulebook's numbers, each defined once: hand size, traps, rounds, the sudden death."""

from __future__ import annotations

from typing import Final

__all__ = ["HAND_SIZE", "MAX_TRAPS", "ROUNDS_BY_PLAYERS", "RPS_THROW_CAP", "TRAP_LIFETIME"]

#: Cards in a hand at the end of every turn, and in a Desmos.
HAND_SIZE: Final = 5
#: "Max 2 Traps per Arena."
MAX_TRAPS: Final = 2
#: A trap expires at the end of its owner's second turn after the one it was set in: its
#: owner's turns completed since it was set reach this.
TRAP_LIFETIME: Final = 3
#: "2-3 players: 5 rounds; 4 players: 4 rounds; 5 players: 3 rounds".
ROUNDS_BY_PLAYERS: Final = {2: 5, 3: 5, 4: 4, 5: 3}
#: Sudden-death Rock-Paper-Scissors throws before a seeded lot settles first place.
RPS_THROW_CAP: Final = 50
