"""Multiplayer Swiss pairing: tables of 2-5 formed within score groups, rematches avoided.

One round is paired from the standings and the history of *completed* rounds only, so the
pairing is a pure function of stored results (the runner pairs round ``r`` only once round
``r - 1`` is fully recorded; resumed and uninterrupted runs therefore pair identically).

A pairing is a partition of the field into tables of the sizes :func:`table_sizes` gives (and,
for 2-player tables with an odd field, one bye). It minimises, lexicographically,

1. second byes: the sum of the squared numbers of byes already held by the bye recipients
   (so a bot gets a second bye only if every bot already had one);
2. repeat meetings: the sum over pairs at a table of ``m**2``, ``m`` being the number of
   earlier rounds in which they shared a table (quadratic: a third meeting costs 4, a
   second 1, so meetings spread out);
3. off-size tables, as byes: when the field does not split into tables of ``k``, the
   sum over the players of an off-size table of the squared number of rounds each already
   sat at a table of that size, so the seats at it go round the field (in duplicate mode
   this comes before repeat meetings: a table of k plays k rotations, so an off-size table
   offers a different number of points);
4. the bye recipients' scores above the lowest score (the bye goes to the lowest score group
   whatever it costs the tables, as the FIDE Dutch system's criterion C.5 has it: a bye is
   worth a win), then the bye recipients in their first round (``newcomers``: late entrants
   in the round they join), so that one takes the bye only when no other bot of its score
   group can (it missed rounds already, and a bye would score it a round of games before it
   played one);
5. score spread: the sum over pairs at a table of the squared score difference (tables
   filled within score groups);
6. rank distance: the sum over pairs at a table of the distance of their standings ranks
   (neighbours in the standings sit together), plus each bye recipient's distance from the
   last rank (the bye goes to the lowest ranked of its group).

Fields of up to :data:`EXACT_MAX_FIELD` entrants are solved exactly by dynamic programming
over the set of unseated players (the top unseated player always opens the next table, so
the states stay few); larger fields, or any search that outgrows its budget, go to
:mod:`arena.tournament.swiss_local`: the same criteria compared exactly, searched locally (a
windowed top-down fill, then single-player swaps between nearby tables and between any table
and the bye, the off-size tables and the tables with a repeat meeting, while a swap lowers
the cost). That takes time about linear in the field, where the previous fallback (a fill
over the whole field and swaps between every two tables: ``solver="legacy"``, kept for
comparison) grew with its square and more. Exact is exact: a field the exact solver
finishes is paired the same by both solvers; the local search is a local optimum, not a
proven one.

Seats are then given table by table, so that each player takes the seats it has used least
(the seating with the fewest earlier uses of its seats, then the most even): at 2 players the
bot that sat first less often sits first. Seatings that tie go by a lot drawn from
``seat_seed`` (the runner's: from the tournament's seed and the round), or, without one, to
standings order (duplicate mode, where every table plays all its seatings). Seats never
change who meets: two bots that owe the same seat may meet, and one sits there again.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Literal

from arena.tournament.scoring import Bye, PlayedTable, Standing
from arena.tournament.swiss_local import LocalCosts, solve_local

__all__ = ["EXACT_MAX_FIELD", "EXACT_WORK_BUDGET", "Solver", "SwissRound", "pair_round",
           "round_cost", "seat_table", "seat_uses", "table_sizes"]

#: Group evaluations the exact solver may spend before the heuristic takes over.
EXACT_WORK_BUDGET = 300_000
#: The largest field the exact solver is tried on ("auto"): beyond it the budget is all but
#: always spent in vain, and spending it is the slowest part of a round.
EXACT_MAX_FIELD = 64

#: "auto": exact up to EXACT_MAX_FIELD, else the local search; "legacy": exact at any size
#: within the budget, else the whole-field greedy and swaps (quadratic; for comparison).
Solver = Literal["auto", "legacy"]

Cost = tuple[int, int, int, int, int, int, int]
_ZERO: Cost = (0, 0, 0, 0, 0, 0, 0)


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
    tables; largest tables first (top tables). E.g. 10 at tables of 4: 4 + 3 + 3. At tables
    of 5, the largest, that is as few tables as hold the field, sized as evenly as can be: 11
    sit 4 + 4 + 3 rather than 5 + 3 + 3 (three bots two seats short of 5 instead of six, and
    tables whose games are alike), 12 sit 4 + 4 + 4 rather than 5 + 4 + 3 (one game at every
    table); docs/TOURNAMENTS.md weighs the two.
    """
    if k == 2:
        return [2] * (n // 2), n % 2
    if n < 2:
        return [], n
    # Tables counted by size, largest first: (fives, fours, threes, twos). Between two
    # lists of as many tables, this tuple orders as the lists sorted largest first do.
    best: dict[int, tuple[tuple[int, int, int], tuple[int, ...]]] = {0: ((0, 0, 0),
                                                                         (0, 0, 0, 0))}
    for total in range(2, n + 1):
        options = []
        for size in range(2, 6):
            prev = best.get(total - size)
            if prev is None:
                continue
            (worst, spread, count), counts = prev
            dev = abs(size - k)
            key = (max(worst, dev), spread + size * dev * dev, count + 1)
            slot = 5 - size
            options.append((key, counts[:slot] + (counts[slot] + 1,) + counts[slot + 1:]))
        if options:
            best[total] = min(options)
    counts = best[n][1]
    return [size for size, c in zip((5, 4, 3, 2), counts, strict=True) for _ in range(c)], 0


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


class _Field:
    """What the criteria read: standings order, scaled scores, meetings, byes, off-size seats."""

    def __init__(self, standings: Sequence[Standing], played: Sequence[PlayedTable],
                 byes: Sequence[Bye], k: int, sizes_first: bool,
                 newcomers: Collection[int] = ()) -> None:
        self.order = [s.entrant for s in standings]
        self.rank = {e: i for i, e in enumerate(self.order)}
        denominator = math.lcm(1, *(s.score.denominator for s in standings))
        self.scaled = {s.entrant: int(s.score * denominator) for s in standings}
        self.low = min(self.scaled.values(), default=0)
        self.meetings = _meetings(played)
        self.bye_count = Counter(b.entrant for b in byes)
        self.off_size = _off_size_rounds(played, k)
        self.k = k
        self.sizes_first = sizes_first
        self.newcomers = frozenset(newcomers)

    def cost(self, group: tuple[int, ...]) -> Cost:
        """One table's (or, one member, one bye's) cost tuple: see the module docstring."""
        scaled, rank = self.scaled, self.rank
        if len(group) == 1:
            (e,) = group
            return (self.bye_count[e] ** 2, 0, 0, scaled[e] - self.low,
                    int(e in self.newcomers), 0, len(self.order) - 1 - rank[e])
        size = len(group)
        off = sum(self.off_size[(e, size)] ** 2 for e in group) if size != self.k else 0
        repeat = spread = distance = 0
        for a, b in combinations(group, 2):
            m = self.meetings[(a, b) if a < b else (b, a)]
            repeat += m * m
            spread += (scaled[a] - scaled[b]) ** 2
            distance += abs(rank[a] - rank[b])
        if self.sizes_first:
            return (0, off, repeat, 0, 0, spread, distance)
        return (0, repeat, off, 0, 0, spread, distance)


def round_cost(standings: Sequence[Standing], played: Sequence[PlayedTable],
               byes: Sequence[Bye], k: int, paired: SwissRound, *,
               sizes_first: bool = False, newcomers: Collection[int] = ()) -> Cost:
    """A paired round's total cost tuple by the pairing's criteria (lower is better): to
    compare solvers on the same field."""
    f = _Field(standings, played, byes, k, sizes_first, newcomers)
    total = _ZERO
    for group in [*paired.tables, *((e,) for e in paired.byes)]:
        total = _add(total, f.cost(tuple(group)))
    return total


def pair_round(
    standings: Sequence[Standing],
    played: Sequence[PlayedTable],
    byes: Sequence[Bye],
    k: int,
    *,
    work_budget: int = EXACT_WORK_BUDGET,
    sizes_first: bool = False,
    solver: Solver = "auto",
    seat_seed: int | None = None,
    newcomers: Collection[int] = (),
) -> SwissRound:
    """Pair the next round from the standings and the completed rounds' tables and byes.

    ``sizes_first`` (duplicate mode) puts the off-size criterion before repeat meetings: a
    table of k plays k rotations, so an off-size table offers a different number of points,
    and a field of 5 at tables of 3 would otherwise seat one bot at the table of 2 round
    after round (repeats avoided first, the table of 2 must always take one of its last
    players). ``solver``: see :data:`Solver` (the exact solver's pairings are the same
    either way). ``seat_seed`` draws the lot between seatings that balance seats equally
    well (None: standings order decides). ``newcomers``: the entrants in their first round
    after round 1 (late entrants joining now), criterion 4's second part."""
    f = _Field(standings, played, byes, k, sizes_first, newcomers)
    order, n, rank, cost = f.order, len(f.order), f.rank, f.cost
    sizes, n_byes = table_sizes(n, k)
    all_sizes = tuple(sorted([*sizes, *([1] * n_byes)], reverse=True))

    groups: list[tuple[int, ...]] | None = None
    if solver == "legacy" or n <= EXACT_MAX_FIELD:
        try:
            groups = _solve_exact(order, all_sizes, cost, work_budget)
        except _OverBudget:
            groups = None
    if groups is None and solver == "legacy":
        groups = _solve_heuristic(order, all_sizes, cost)
    elif groups is None:
        groups = solve_local(order, all_sizes, LocalCosts(
            order, f.scaled, f.meetings, f.bye_count, f.off_size, k, sizes_first,
            f.newcomers))
    tables = sorted((g for g in groups if len(g) > 1), key=lambda g: min(rank[e] for e in g))
    bye_list = tuple(sorted((g[0] for g in groups if len(g) == 1), key=lambda e: rank[e]))
    seat_use = seat_uses(table.seats for table in played)
    lot = None if seat_seed is None else random.Random(f"swiss-seats:{seat_seed}")
    seated = tuple(seat_table(g, seat_use, rank, lot) for g in tables)
    return SwissRound(tables=seated, byes=bye_list)


def seat_uses(seatings: Iterable[Sequence[int]]) -> Counter[tuple[int, int]]:
    """How often each player sat in each seat: ``(player, seat)`` -> tables."""
    uses: Counter[tuple[int, int]] = Counter()
    for seats in seatings:
        for seat, e in enumerate(seats):
            uses[(e, seat)] += 1
    return uses


def seat_table(
    group: Sequence[int], seat_use: Counter[tuple[int, int]], rank: dict[int, int],
    lot: random.Random | None, *, among: Counter[tuple[int, int]] | None = None,
) -> tuple[int, ...]:
    """Seat a table so each player takes the seats it has used least (the seating with the
    fewest earlier uses of its seats, then the most even); seatings that tie go by ``lot``,
    or without one to the first in rank order. ``among``, if given, is weighed first in the
    same way: the seats used at earlier tables of these same players (a league's pairs meet
    again and again; a Swiss round's seldom). Swiss rounds and leagues seat by it."""
    members = sorted(group, key=lambda e: rank[e])
    ties: list[tuple[int, ...]] = []
    best: tuple[int, ...] | None = None
    for perm in permutations(members):
        key = (*(() if among is None else _seat_cost(perm, among)), *_seat_cost(perm, seat_use))
        if best is None or key < best:
            best, ties = key, [perm]
        elif key == best:
            ties.append(perm)
    return ties[0] if lot is None or len(ties) == 1 else lot.choice(ties)


def _seat_cost(perm: tuple[int, ...], seat_use: Counter[tuple[int, int]]) -> tuple[int, int]:
    """A seating's earlier uses of its seats: their total, then their sum of squares."""
    uses = [seat_use[(e, seat)] for seat, e in enumerate(perm)]
    return (sum(uses), sum(u * u for u in uses))


class _OverBudget(Exception):
    """The exact search would take too long for this field."""


def _add(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5],
            a[6] + b[6])


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
