"""The large-field Swiss solver: a windowed greedy fill, then local swaps between tables.

The criteria are :mod:`arena.tournament.swiss`'s, unchanged. Each criterion's total over a
round is bounded (by the field's size, its score range, its most frequent meeting), so a
cost tuple maps to one integer, mixed radix, with every component's weight above the largest
total the components below it can reach: comparing two partitions' integer sums compares
their cost tuples lexicographically, exactly. A pair's cost (repeat, spread, rank distance)
is then one integer and a swap's effect is a few pair costs.

What is heuristic (not what is compared, but what is searched):

* the bye (2-player tables, odd field) is first given to the lowest ranked player among
  those with the fewest byes and the lowest score, not in its first round if another can
  take it, criteria 1, 4 and 6 for the bye alone;
* tables are filled top-down, each opened by the top unseated player, its seats taken from
  the next ``window`` unseated players in standings order (the whole field is searched
  only when every one of those would add a repeat meeting or an off-size seat);
* swaps of one player between two tables are then made while any lowers the total: between
  tables at most ``reach`` apart in table order, and between any table and every "wide"
  one (the bye, an off-size table, a table with a repeat meeting) so that those go round
  the whole field as the exact criteria want.

The result is a local optimum: no single swap among the pairs searched lowers the cost. It
is not always the previous whole-field search's optimum: late in a long Swiss at tables of 5,
where repeat meetings cannot all be avoided, either search may end with a few more of them
than the other (tests/tournament/test_swiss_large.py holds the guarantees: no avoidable repeat
early in a large field, no second bye before everyone had one, no single trade of an off-size
seat that would lower its criterion without adding a repeat meeting).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence

__all__ = ["LocalCosts", "solve_local"]

#: Unseated players (in standings order) a table's seats are chosen from.
WINDOW = 16
#: Tables apart in table order between which swaps are tried.
REACH = 6
#: Sweeps over the changed tables before the search stops (it converges long before).
MAX_PASSES = 200


class LocalCosts:
    """The swiss criteria as integers: pair costs, a bye's cost, an off-size seat's cost."""

    def __init__(self, order: Sequence[int], scaled: Mapping[int, int],
                 meetings: Mapping[tuple[int, int], int], bye_count: Counter[int],
                 off_size: Counter[tuple[int, int]], k: int, sizes_first: bool,
                 newcomers: Collection[int] = ()) -> None:
        n = len(order)
        self.k = k
        self.rank = {e: i for i, e in enumerate(order)}
        self.score = dict(scaled)
        self.low = min(scaled.values(), default=0)
        spread_range = max(scaled.values(), default=0) - self.low
        self.meet: dict[int, dict[int, int]] = {e: {} for e in order}
        for (a, b), m in meetings.items():
            if a in self.meet and b in self.meet:
                self.meet[a][b] = m
                self.meet[b][a] = m
        most_met = max(meetings.values(), default=0)
        self.off_size = off_size
        most_off = max(off_size.values(), default=0)
        self.bye_count = bye_count
        self.newcomers = frozenset(newcomers)
        # Component bounds: at most 2n pairs at tables of up to 5, at most n byes.
        bound_distance = 2 * n * n + n + 1
        bound_spread = 2 * n * spread_range * spread_range + 1
        bound_bye_score = n * spread_range + 1
        bound_repeat = 2 * n * most_met * most_met + 1
        bound_off = n * most_off * most_off + 1
        bound_newcomer = n + 1
        self.w_spread = bound_distance
        self.w_newcomer = self.w_spread * bound_spread
        self.w_bye_score = self.w_newcomer * bound_newcomer
        lower = self.w_bye_score * bound_bye_score
        if sizes_first:
            self.w_repeat = lower
            self.w_off = lower * bound_repeat
            self.w_bye = self.w_off * bound_off
        else:
            self.w_off = lower
            self.w_repeat = lower * bound_off
            self.w_bye = self.w_repeat * bound_repeat
        #: A cost at or above this holds a repeat meeting, an off-size seat or a bye term.
        self.hard = lower

    def pair(self, a: int, b: int) -> int:
        """Repeat meetings, score spread and rank distance of two players at one table."""
        m = self.meet[a].get(b, 0)
        d = self.score[a] - self.score[b]
        return m * m * self.w_repeat + d * d * self.w_spread + abs(self.rank[a] - self.rank[b])

    def seat(self, e: int, size: int) -> int:
        """The off-size criterion's cost of ``e`` at a table of ``size``."""
        if size == self.k:
            return 0
        f = self.off_size[(e, size)]
        return f * f * self.w_off

    def bye(self, e: int) -> int:
        """Second byes, the bye's score above the lowest, its first round, its distance
        from the last rank."""
        c = self.bye_count[e]
        return (c * c * self.w_bye + (self.score[e] - self.low) * self.w_bye_score
                + (e in self.newcomers) * self.w_newcomer + len(self.rank) - 1 - self.rank[e])

    def group(self, members: Sequence[int]) -> int:
        """A table's (or, one member, a bye's) whole cost."""
        if len(members) == 1:
            return self.bye(members[0])
        total = sum(self.seat(e, len(members)) for e in members)
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                total += self.pair(a, b)
        return total


def solve_local(order: Sequence[int], sizes: Sequence[int], costs: LocalCosts,
                window: int = WINDOW, reach: int = REACH) -> list[tuple[int, ...]]:
    """A partition of ``order`` (standings order) into groups of ``sizes`` (tables of 2-5,
    largest first, then byes of 1): see the module docstring."""
    unseated = list(order)
    groups: list[list[int]] = []
    for _ in range(sum(1 for s in sizes if s == 1)):
        pick = min(unseated, key=lambda e: (costs.bye(e), -costs.rank[e]))
        unseated.remove(pick)
        groups.append([pick])
    tables = _fill(unseated, [s for s in sizes if s > 1], costs, window)
    groups = tables + groups
    _improve(groups, costs, reach)
    return [tuple(g) for g in groups]


def _fill(unseated: list[int], sizes: Sequence[int], costs: LocalCosts,
          window: int) -> list[list[int]]:
    """Top-down: the top unseated player opens a table, its seats go to the cheapest of the
    next ``window`` players (or of all, when each of those adds a hard cost)."""
    tables: list[list[int]] = []
    pair, seat = costs.pair, costs.seat
    for size in sizes:
        group = [unseated.pop(0)]
        while len(group) < size:
            best_i, best = 0, -1
            start, limit = 0, min(window, len(unseated))
            while True:
                for i in range(start, limit):
                    u = unseated[i]
                    c = seat(u, size) + sum(pair(u, z) for z in group)
                    if best < 0 or c < best:
                        best_i, best = i, c
                if best < costs.hard or limit == len(unseated):
                    break
                start, limit = limit, len(unseated)
            group.append(unseated.pop(best_i))
        tables.append(group)
    return tables


def _improve(groups: list[list[int]], costs: LocalCosts, reach: int) -> None:
    """Swap single players between groups while a swap lowers the total cost."""
    count = len(groups)
    shares = [_shares(g, costs) for g in groups]
    dirty = set(range(count))
    for _ in range(MAX_PASSES):
        if not dirty:
            return
        changed: set[int] = set()
        wide = [i for i in range(count) if _is_wide(groups[i], costs)]
        pairs: set[tuple[int, int]] = set()
        for i in dirty:
            pairs.update((min(i, j), max(i, j)) for j in range(max(0, i - reach),
                                                                min(count, i + reach + 1)))
        far: set[tuple[int, int]] = set()
        for w in wide:
            far.update((w, j) for j in range(count)
                       if abs(w - j) > reach and (w in dirty or j in dirty))
        for i, j in sorted(pairs):
            if i != j and _try_swap(groups, shares, i, j, costs):
                changed.update((i, j))
        for w, j in sorted(far):
            if _try_swap(groups, shares, w, j, costs, far=True):
                changed.update((w, j))
        dirty = changed


def _is_wide(group: list[int], costs: LocalCosts) -> bool:
    """The bye, an off-size table, a table with a repeat meeting: searched against all."""
    return len(group) == 1 or len(group) != costs.k or costs.group(group) >= costs.hard


def _shares(group: list[int], costs: LocalCosts) -> list[int]:
    """Each member's share of its group's cost: its pair costs with the others and its own
    seat (or bye) cost; a swap replaces one share."""
    if len(group) == 1:
        return [costs.bye(group[0])]
    size = len(group)
    return [costs.seat(e, size) + sum(costs.pair(e, z) for z in group if z != e)
            for e in group]


def _share_of(e: int, group: list[int], skip: int, costs: LocalCosts) -> int:
    """What ``e`` would add to ``group`` in place of its member at ``skip``."""
    if len(group) == 1:
        return costs.bye(e)
    pair: Callable[[int, int], int] = costs.pair
    return costs.seat(e, len(group)) + sum(pair(e, z) for x, z in enumerate(group)
                                           if x != skip)


def _try_swap(groups: list[list[int]], shares: list[list[int]], i: int, j: int,
              costs: LocalCosts, far: bool = False) -> bool:
    """Make the best single swap between groups ``i`` and ``j`` if it lowers the cost.

    ``far`` (``i`` a wide group, ``j`` any other): only swaps that move one of ``i``'s
    members with a hard cost (or the bye) out and lower ``i``'s own cost are tried: a far
    swap is there to shed a repeat meeting, an off-size seat or a bye, not to tidy scores."""
    gi, gj = groups[i], groups[j]
    best = 0
    move: tuple[int, int] | None = None
    for a, x in enumerate(gi):
        if far and len(gi) > 1 and shares[i][a] < costs.hard:
            continue
        for b, y in enumerate(gj):
            gain = _share_of(y, gi, a, costs) - shares[i][a]
            if far and gain >= 0:
                continue
            delta = gain + _share_of(x, gj, b, costs) - shares[j][b]
            if delta < best:
                best, move = delta, (a, b)
    if move is None:
        return False
    a, b = move
    gi[a], gj[b] = gj[b], gi[a]
    shares[i] = _shares(gi, costs)
    shares[j] = _shares(gj, costs)
    return True
