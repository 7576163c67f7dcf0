"""Fixed schedules (round-robin, gauntlet), seat balancing and deterministic seeds.

A schedule is a list of :class:`Table` values: which entrants sit where, in which round, and
which *deal* (the game seeds) they play. Everything here is a pure function of its arguments,
so the same spec always yields the same tables whatever the number of workers or resumes.

Seat balance is exact where arithmetic allows: seats are assigned by a proper edge colouring of
the bipartite graph "tables x (entrant, chunk)", where each entrant's tables are cut into chunks
of ``k`` (König's theorem: a bipartite graph of maximum degree ``k`` is ``k``-edge-colourable).
Every table then uses every seat once, and every entrant sits in each seat either
``floor(t/k)`` or ``ceil(t/k)`` times over its ``t`` tables. See docs/TOURNAMENTS.md.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from arena.referee.seating import seat_orders, seating_mode

__all__ = [
    "DEFAULT_MAX_TABLES",
    "Table",
    "balanced_groups",
    "derive_seed",
    "gauntlet",
    "interleave",
    "match_seed",
    "round_robin",
    "seat_tables",
]

#: Above this many k-subsets a k-player round-robin switches to the balanced cyclic schedule.
DEFAULT_MAX_TABLES = 500


@dataclass(frozen=True, slots=True)
class Table:
    """One match: entrants (indices into the spec's entrant list) by seat.

    ``deal`` names the seed family of the table's games: in duplicate mode every seat rotation
    of one group shares its deal, so each entrant plays the same cards from every seat.
    """

    round: int
    index: int
    seats: tuple[int, ...]
    deal: int


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts, stable across Python versions and platforms.

    ``hash()`` is salted per process, and ``random.Random(tuple)`` is not portable, so a
    cryptographic digest of the parts' text is the one thing that cannot drift.
    """
    text = "/".join(str(part) for part in ("palaestra-arena", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def match_seed(spec_seed: int, round_no: int, deal: int) -> int:
    """The referee's match seed of a table: from (spec seed, round, deal) only. Rotations of
    one deal share it, so in duplicate mode they play the same cards (the referee derives
    game ``g``'s seed from it and ``g``)."""
    return derive_seed(spec_seed, "match", round_no, deal)


def balanced_groups(n: int, k: int, cycles: int = 1) -> list[tuple[int, ...]]:
    """Groups of ``k`` out of ``n`` entrants, each entrant in equally many, meetings even.

    The cyclic method of difference families: a base block ``B = {0, d1, ..., d_{k-1}}`` is
    developed modulo ``n`` into the ``n`` groups ``B + i``. Every entrant is in exactly ``k``
    of them, and a pair ``(a, b)`` meets once for each ordered difference ``d_j - d_l`` equal
    to ``b - a (mod n)``. Base blocks are built greedily, element by element, so the ordered
    differences cover the residues ``1..n-1`` as evenly as possible; enough blocks are used
    for every difference to be coverable (``ceil((n-1) / (k(k-1)))``), times ``cycles``.
    Groups keep their block order, which already balances seats exactly.
    """
    if not 2 <= k <= n:
        raise ValueError(f"cannot form groups of {k} from {n} entrants")
    blocks_needed = max(1, math.ceil((n - 1) / (k * (k - 1)))) * cycles
    best: tuple[tuple[int, int], list[list[int]]] | None = None
    # deterministic restarts (greedy first, then seeded random blocks) while work is cheap
    restarts = max(1, min(40, 40_000 // (n * n * k)))
    rng = random.Random(derive_seed("balanced", n, k, cycles))
    for attempt in range(restarts):
        blocks = _descend(_initial_blocks(n, k, blocks_needed, rng if attempt else None), n)
        coverage = [0] * n
        for block in blocks:
            for j, x in enumerate(block):
                _cover(coverage, block[:j], x, n, +1)
        score = (sum(1 for c in coverage[1:] if c == 0), sum(c * c for c in coverage[1:]))
        if best is None or score < best[0]:
            best = (score, blocks)
    assert best is not None
    blocks = best[1]
    groups: list[tuple[int, ...]] = []
    for block in blocks:
        groups.extend(tuple((d + i) % n for d in block) for i in range(n))
    return groups


def _initial_blocks(
    n: int, k: int, count: int, rng: random.Random | None
) -> list[list[int]]:
    """Greedy difference cover (``rng`` None), or random blocks for a restart."""
    coverage = [0] * n
    blocks: list[list[int]] = []
    for _ in range(count):
        if rng is not None:
            blocks.append([0, *rng.sample(range(1, n), k - 1)])
            continue
        block = [0]
        while len(block) < k:
            x = min(
                (x for x in range(1, n) if x not in block),
                key=lambda x: (_cost_with(coverage, block, x, n), x),
            )
            _cover(coverage, block, x, n, +1)
            block.append(x)
        blocks.append(block)
    return blocks


def _descend(blocks: list[list[int]], n: int) -> list[list[int]]:
    """Coordinate descent: move one element of one block while that evens the coverage."""
    coverage = [0] * n
    for block in blocks:
        for j, x in enumerate(block):
            _cover(coverage, block[:j], x, n, +1)
    improved = True
    while improved:
        improved = False
        for block in blocks:
            for j in range(1, len(block)):
                old = block[j]
                rest = block[:j] + block[j + 1:]
                _cover(coverage, rest, old, n, -1)
                best = min(
                    (x for x in range(1, n) if x not in rest),
                    key=lambda x: (_cost_with(coverage, rest, x, n), x != old, x),
                )
                _cover(coverage, rest, best, n, +1)
                if best != old:
                    block[j] = best
                    improved = True
    return blocks


def _cover(coverage: list[int], block: Sequence[int], x: int, n: int, sign: int) -> None:
    for y in block:
        coverage[(x - y) % n] += sign
        coverage[(y - x) % n] += sign


def _cost_with(coverage: list[int], block: Sequence[int], x: int, n: int) -> int:
    """Sum of squared pair meetings (by difference) if ``x`` joined ``block``."""
    trial = coverage[:]
    _cover(trial, block, x, n, +1)
    return sum(c * c for c in trial[1:])


def seat_tables(groups: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Seat every group so each entrant sits in each seat as evenly as possible.

    Bipartite edge colouring (colours = seats) with alternating-path recolouring. Each
    entrant's occurrences are cut into chunks of ``k`` in schedule order; repeated groups sit
    next to each other in that order, so a pairing played ``k`` times takes every rotation.
    Only groups of one size may be mixed here.
    """
    if not groups:
        return []
    k = len(groups[0])
    if any(len(g) != k for g in groups):
        raise ValueError("seat_tables needs groups of one size")
    # occurrences per entrant in schedule order -> chunk vertex ids
    occurrences: dict[int, list[int]] = {}
    for t, group in enumerate(groups):
        for bot in group:
            occurrences.setdefault(bot, []).append(t)
    chunk_of: dict[tuple[int, int], tuple[int, int]] = {}
    for bot, tables in occurrences.items():
        for i, t in enumerate(tables):
            chunk_of[(t, bot)] = (bot, i // k)
    # colour maps: vertex -> {colour: other vertex}
    table_colours: list[dict[int, tuple[int, int]]] = [{} for _ in groups]
    chunk_colours: dict[tuple[int, int], dict[int, int]] = {}
    for t, group in enumerate(groups):
        for bot in group:
            chunk = chunk_of[(t, bot)]
            at_chunk = chunk_colours.setdefault(chunk, {})
            a = next(c for c in range(k) if c not in table_colours[t])
            b = next(c for c in range(k) if c not in at_chunk)
            if a in at_chunk:
                _flip_path(chunk, a, b, table_colours, chunk_colours)
            table_colours[t][a] = chunk
            at_chunk[a] = t
    seated: list[tuple[int, ...]] = []
    for t in range(len(groups)):
        seated.append(tuple(table_colours[t][seat][0] for seat in range(k)))
    return seated


def _flip_path(
    start: tuple[int, int],
    a: int,
    b: int,
    table_colours: list[dict[int, tuple[int, int]]],
    chunk_colours: dict[tuple[int, int], dict[int, int]],
) -> None:
    """Swap colours ``a`` and ``b`` along the alternating path leaving chunk ``start`` by ``a``.

    Standard Kőnig step: afterwards ``a`` is free at ``start``; in a bipartite graph the path
    never reaches the table whose edge is being coloured, where ``a`` is free.
    """
    path: list[tuple[int, tuple[int, int], int]] = []  # (table, chunk, colour)
    chunk = start
    while True:
        t = chunk_colours[chunk].get(a)
        if t is None:
            break
        path.append((t, chunk, a))
        nxt = table_colours[t].get(b)
        if nxt is None:
            break
        path.append((t, nxt, b))
        chunk = nxt
    for t, chunk, colour in path:
        del table_colours[t][colour]
        del chunk_colours[chunk][colour]
    for t, chunk, colour in path:
        new = b if colour == a else a
        table_colours[t][new] = chunk
        chunk_colours[chunk][new] = t


def _expand(groups: Sequence[tuple[int, ...]], rounds: int, duplicate: bool | str
            ) -> list[Table]:
    """Repeat groups for ``rounds`` cycles, seat them, number tables and deals."""
    if seating_mode(duplicate) != "none":
        return _expand_cycles([groups] * rounds, duplicate)
    tables: list[Table] = []
    # all cycles are seated together, a group's repetitions adjacent in the colouring order
    order = [(g, r) for g in range(len(groups)) for r in range(1, rounds + 1)]
    seated = seat_tables([groups[g] for g, _ in order])
    by_round: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
    for (g, r), seats in zip(order, seated, strict=True):
        by_round.setdefault(r, []).append((g, seats))
    for r in range(1, rounds + 1):
        for index, (g, seats) in enumerate(sorted(by_round.get(r, []))):
            tables.append(Table(r, index, seats, g))
    return tables


def round_robin(
    n: int,
    k: int,
    *,
    rounds: int = 1,
    duplicate: bool | str = False,
    max_tables: int = DEFAULT_MAX_TABLES,
) -> list[Table]:
    """Every pair (k = 2) or every k-subset of ``n`` entrants, played ``rounds`` times.

    For k > 2 with more than ``max_tables`` subsets, the balanced cyclic schedule of
    :func:`balanced_groups` is used instead, each round (cycle) with blocks of its own,
    chosen together. Otherwise each round repeats the pairings; seats are balanced over
    the whole schedule (exactly per rotation when ``duplicate``).
    """
    if not 2 <= k <= n:
        raise ValueError(f"a round-robin of {n} entrants cannot fill tables of {k}")
    if k == 2 or math.comb(n, k) <= max_tables:
        return _expand(list(combinations(range(n), k)), rounds, duplicate)
    # The cycles' blocks are chosen together: where no one cycle's can cover every
    # difference, the next cycle's seat the pairs it left apart.
    groups = balanced_groups(n, k, cycles=rounds)
    per_cycle = len(groups) // rounds
    return _expand_cycles([groups[r * per_cycle:(r + 1) * per_cycle] for r in range(rounds)],
                          duplicate)


def _expand_cycles(cycles: Sequence[Sequence[tuple[int, ...]]], duplicate: bool | str
                   ) -> list[Table]:
    """Each cycle's own groups as its round's tables, seated over the whole schedule."""
    tables: list[Table] = []
    if seating_mode(duplicate) != "none":
        for r, groups in enumerate(cycles, start=1):
            index = 0
            for deal, group in enumerate(groups):
                for seats in seat_orders(group, duplicate):
                    tables.append(Table(r, index, seats, deal))
                    index += 1
        return tables
    seated = iter(seat_tables([group for groups in cycles for group in groups]))
    for r, groups in enumerate(cycles, start=1):
        for index in range(len(groups)):
            tables.append(Table(r, index, next(seated), index))
    return tables


def gauntlet(
    challengers: Sequence[int],
    opponents: Sequence[int],
    k: int,
    *,
    rounds: int = 1,
    duplicate: bool | str = False,
    max_tables: int = DEFAULT_MAX_TABLES,
) -> list[Table]:
    """Each challenger against the field: one table per (k-1)-subset of the opponents.

    Challengers never meet each other. With more than ``max_tables`` subsets per challenger the
    opponents are grouped by :func:`balanced_groups` instead.
    """
    m = len(opponents)
    if not challengers or m < k - 1:
        raise ValueError(f"a gauntlet needs at least {k - 1} opponents")
    if k == 2 or math.comb(m, k - 1) <= max_tables:
        subsets = list(combinations(range(m), k - 1))
    else:
        subsets = balanced_groups(m, k - 1)
    groups = [
        (c, *(opponents[i] for i in subset)) for c in challengers for subset in subsets
    ]
    return _expand(groups, rounds, duplicate)


def interleave(schedules: Sequence[Sequence[Table]]) -> list[Table]:
    """Schedules of several table sizes as one: round ``r`` holds every schedule's round-``r``
    tables in the order given, numbered anew; each schedule's deals are shifted past the
    previous ones', so no two groups share a deal (a seed family). One schedule comes back
    unchanged."""
    if len(schedules) == 1:
        return list(schedules[0])
    offsets: list[int] = []
    offset = 0
    for tables in schedules:
        offsets.append(offset)
        offset += max((t.deal for t in tables), default=-1) + 1
    merged: list[Table] = []
    for r in sorted({t.round for tables in schedules for t in tables}):
        index = 0
        for tables, shift in zip(schedules, offsets, strict=True):
            for table in tables:
                if table.round == r:
                    merged.append(Table(r, index, table.seats, table.deal + shift))
                    index += 1
    return merged
