"""Chance, the game's one random actor: every shuffle of the game flows from its seeded RNG.

:func:`shuffle` gives exactly the permutation :meth:`random.Random.shuffle` gives for the same
generator state (same draws of ``getrandbits``, same swaps), so games stay the same move for
move; it exists because the standard one is pure Python on the hot path of every deal.
"""

from __future__ import annotations

import random

__all__ = ["shuffle"]


def shuffle(rng: random.Random, items: list[int]) -> None:
    """Shuffle ``items`` in place, as ``rng.shuffle(items)`` would."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]
