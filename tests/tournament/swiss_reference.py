"""The Swiss pairing as it was before the large-field solver (arena/tournament/swiss.py at
commit 07c89db, verbatim below this docstring): the reference the current solver must match
on every field its exact solver finishes."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from arena.tournament.scoring import Bye, PlayedTable, Standing

__all__ = ["EXACT_WORK_BUDGET", "SwissRound", "pair_round", "table_sizes"]

#: Group evaluations the exact solver may spend before the heuristic takes over.
EXACT_WORK_BUDGET = 300_000

Cost = tuple[int, int, int, int, int, int]
_ZERO: Cost = (0, 0, 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class SwissRound:
    """One paired round: seated tables in table order (top table first) and the byes."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]


def table_sizes(n: int, k: int) -> tuple[list[int], int]:
    """Table sizes for ``n`` players at tables of ``k``, and the number of byes.

    2-player: ``n // 2`` tables and one bye when ``n`` is odd. More players: no byes; tables
    of 2..5 as close to ``k`` as possible: least largest deviation from ``k``, then fewest
    players at off-size tables (sum over tables of size x deviation squared), then fewest
    tables; largest tables first (top tables). E.g. 10 at tables of 4: 4 + 3 + 3.
    """
    if k == 2:
        return [2] * (n // 2), n % 2
    if n < 2:
        return [], n
    best: dict[int, tuple[tuple[int, int, int], list[int]]] = {0: ((0, 0, 0), [])}
    for total in range(2, n + 1):
        options = []
        for size in range(2, 6):
            prev = best.get(total - size)
            if prev is None:
                continue
            (worst, spread, count), sizes = prev
            dev = abs(size - k)
            key = (max(worst, dev), spread + size * dev * dev, count + 1)
            options.append((key, sorted([*sizes, size], reverse=True)))
        if options:
            best[total] = min(options)
    return best[n][1], 0


def _meetings(played: Sequence[PlayedTable]) -> Counter[tuple[int, int]]:
    """How many rounds each pair shared a table (rotations of one round count once)."""
    by_round: dict[int, set[tuple[int, int]]] = {}
    for table in played:
        pairs = by_round.setdefault(table.round, set())
        for a, b in combinations(sorted(table.seats), 2):
            pairs.add((a, b))
    counts: Counter[tuple[int, int]] = Counter()
    for pairs in by_round.values():
        counts.update(pairs)
    return counts


def _off_size_rounds(played: Sequence[PlayedTable], k: int) -> Counter[tuple[int, int]]:
    """How many rounds each entrant sat at a table of each size other than ``k`` (rotations
    of one round count once)."""
    seen = {(table.round, e, len(table.seats)) for table in played
            if len(table.seats) != k for e in table.seats}
    return Counter((e, size) for _, e, size in seen)


def pair_round(
    standings: Sequence[Standing],
    played: Sequence[PlayedTable],
    byes: Sequence[Bye],
    k: int,
    *,
    work_budget: int = EXACT_WORK_BUDGET,
    sizes_first: bool = False,
) -> SwissRound:
    """Pair the next round from the standings and the completed rounds' tables and byes.

    ``sizes_first`` (duplicate mode) puts the off-size criterion before repeat meetings: a
    table of k plays k rotations, so an off-size table offers a different number of points,
    and a field of 5 at tables of 3 would otherwise seat one bot at the table of 2 round
    after round (repeats avoided first, the table of 2 must always take one of its last
    players)."""
    order = [s.entrant for s in standings]
    n = len(order)
    rank = {e: i for i, e in enumerate(order)}
    scores = {s.entrant: s.score for s in standings}
    denominator = math.lcm(1, *(s.score.denominator for s in standings))
    scaled = {e: int(scores[e] * denominator) for e in order}
    low = min(scaled.values(), default=0)
    meetings = _meetings(played)
    bye_count = Counter(b.entrant for b in byes)
    sizes, n_byes = table_sizes(n, k)
    all_sizes = tuple(sorted([*sizes, *([1] * n_byes)], reverse=True))

    off_size = _off_size_rounds(played, k)

    def cost(group: tuple[int, ...]) -> Cost:
        if len(group) == 1:
            (e,) = group
            return (bye_count[e] ** 2, 0, 0, scaled[e] - low, 0, n - 1 - rank[e])
        size = len(group)
        off = sum(off_size[(e, size)] ** 2 for e in group) if size != k else 0
        repeat = spread = distance = 0
        for a, b in combinations(group, 2):
            m = meetings[(a, b) if a < b else (b, a)]
            repeat += m * m
            spread += (scaled[a] - scaled[b]) ** 2
            distance += abs(rank[a] - rank[b])
        if sizes_first:
            return (0, off, repeat, 0, spread, distance)
        return (0, repeat, off, 0, spread, distance)

    groups: list[tuple[int, ...]] | None = None
    try:
        groups = _solve_exact(order, all_sizes, cost, work_budget)
    except _OverBudget:
        groups = _solve_heuristic(order, all_sizes, cost)
    tables = sorted((g for g in groups if len(g) > 1), key=lambda g: min(rank[e] for e in g))
    bye_list = tuple(sorted((g[0] for g in groups if len(g) == 1), key=lambda e: rank[e]))
    seat_use: Counter[tuple[int, int]] = Counter()
    for table in played:
        for seat, e in enumerate(table.seats):
            seat_use[(e, seat)] += 1
    seated = tuple(_seat(g, seat_use, rank) for g in tables)
    return SwissRound(tables=seated, byes=bye_list)


def _seat(
    group: tuple[int, ...], seat_use: Counter[tuple[int, int]], rank: dict[int, int]
) -> tuple[int, ...]:
    """Seat a table so each player takes the seats it has used least (rank order breaks ties)."""
    members = sorted(group, key=lambda e: rank[e])
    best: tuple[tuple[int, int], tuple[int, ...]] | None = None
    for perm in permutations(members):
        uses = [seat_use[(e, seat)] for seat, e in enumerate(perm)]
        key = (sum(uses), sum(u * u for u in uses))
        if best is None or key < best[0]:
            best = (key, perm)
    assert best is not None
    return best[1]


class _OverBudget(Exception):
    """The exact search would take too long for this field."""


def _add(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])


def _solve_exact(
    order: list[int],
    sizes: tuple[int, ...],
    cost: Callable[[tuple[int, ...]], Cost],
    budget: int,
) -> list[tuple[int, ...]]:
    """Minimum-cost partition by DP over (unseated set, sizes left); raises when over budget."""
    n = len(order)
    memo: dict[tuple[int, tuple[int, ...]], tuple[Cost, tuple[tuple[int, ...], ...]]] = {}
    group_cost: dict[tuple[int, ...], Cost] = {}
    work = 0

    def solve(mask: int, left: tuple[int, ...]) -> tuple[Cost, tuple[tuple[int, ...], ...]]:
        nonlocal work
        if not left:
            return _ZERO, ()
        key = (mask, left)
        hit = memo.get(key)
        if hit is not None:
            return hit
        members = [i for i in range(n) if mask >> i & 1]
        first, rest = members[0], members[1:]
        best: tuple[Cost, tuple[tuple[int, ...], ...]] | None = None
        for size in sorted(set(left), reverse=True):
            i = left.index(size)
            remaining = left[:i] + left[i + 1:]
            for companions in combinations(rest, size - 1):
                work += 1
                if work > budget:
                    raise _OverBudget
                positions = (first, *companions)
                group = tuple(order[p] for p in positions)
                c = group_cost.get(group)
                if c is None:
                    c = group_cost[group] = cost(group)
                if best is not None and c >= best[0]:
                    continue  # the rest can only add cost
                sub = mask
                for p in positions:
                    sub &= ~(1 << p)
                sub_cost, sub_groups = solve(sub, remaining)
                total = _add(c, sub_cost)
                if best is None or total < best[0]:
                    best = (total, (group, *sub_groups))
        assert best is not None
        memo[key] = best
        return best

    return list(solve((1 << n) - 1, sizes)[1])


def _solve_heuristic(
    order: list[int],
    sizes: tuple[int, ...],
    cost: Callable[[tuple[int, ...]], Cost],
) -> list[tuple[int, ...]]:
    """Greedy top-down fill, then swaps between tables while any swap lowers the total cost."""
    unseated = list(order)
    groups: list[list[int]] = []
    for size in sizes:
        group = [unseated.pop(0)]
        while len(group) < size:
            pick = min(range(len(unseated)),
                       key=lambda i: (cost((*group, unseated[i])), i))
            group.append(unseated.pop(pick))
        groups.append(group)
    costs = [cost(tuple(g)) for g in groups]
    improved = True
    passes = 0
    while improved and passes < 50:
        improved = False
        passes += 1
        for gi in range(len(groups)):
            for gj in range(gi + 1, len(groups)):
                for a in range(len(groups[gi])):
                    for b in range(len(groups[gj])):
                        x, y = groups[gi][a], groups[gj][b]
                        new_i = tuple(y if e == x else e for e in groups[gi])
                        new_j = tuple(x if e == y else e for e in groups[gj])
                        ci, cj = cost(new_i), cost(new_j)
                        if _add(ci, cj) < _add(costs[gi], costs[gj]):
                            groups[gi][a], groups[gj][b] = y, x
                            costs[gi], costs[gj] = ci, cj
                            improved = True
    return [tuple(g) for g in groups]
