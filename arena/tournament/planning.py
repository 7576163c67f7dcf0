"""What a tournament plays, from its spec: the fixed formats' tables, the tables of a Swiss
round, the games in total, and the duplicate deals that are played as one match each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from arena.common.plural import counted
from arena.referee.seating import crowded_table, seat_orders, seating_mode
from arena.tournament import schedule, swiss
from arena.tournament.field_changes import round_fields
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import TableRow

__all__ = ["fixed_tables", "games_plan", "games_progress", "group_deals", "league_budget_note",
           "league_games", "long_plan_warning", "off_size_split", "planned_games",
           "rematch_warning", "seating_warning", "sitting_json", "spec_sitting",
           "stored_sitting", "swiss_sitting", "tables_per_swiss_round", "unmet_pairs_warning"]


def tables_per_swiss_round(spec: TournamentSpec, n: int) -> int:
    """Tables of one Swiss round of ``n`` entrants (each seating of a duplicate deal one)."""
    sizes, _ = swiss.table_sizes(n, spec.table_sizes[0])  # Swiss: one size (spec checks)
    return sum(len(seat_orders(range(k), spec.duplicate)) for k in sizes)


def off_size_split(k: int, n: int) -> str | None:
    """How a Swiss field of ``n`` sits every round at tables of ``k`` ("4 + 4 + 3"), when it
    does not divide into tables of ``k``; else None. (11 bots at tables of 5 sit at none of
    5: a table size alone would tell an organiser otherwise.)"""
    sizes, _ = swiss.table_sizes(n, k)
    if k == 2 or all(size == k for size in sizes):
        return None  # byes are how a field of two-player tables is made even
    return " + ".join(map(str, sizes))


def swiss_sitting(k: int, fields: Sequence[int]) -> str | None:
    """How a Swiss at tables of ``k`` sits, given each round's field size (round 1 first),
    where a round does not divide into tables of ``k``: ``4 + 4 + 3 each round``, or, where
    withdrawals and late entrants change the field, each run of rounds that sits off-size
    (``4 + 4 + 3 in rounds 1-3``); else None. Counting every entrant instead would seat a
    late entrant beside the bot it replaced, at a table no round has."""
    splits = [off_size_split(k, n) for n in fields]
    if not any(splits):
        return None
    if len(set(splits)) == 1:
        return f"{splits[0]} each round"
    runs: list[tuple[str, int, int]] = []  # (split, first round, last round)
    for round_no, split in enumerate(splits, 1):
        if split is None:
            continue
        if runs and runs[-1][0] == split and runs[-1][2] == round_no - 1:
            runs[-1] = (split, runs[-1][1], round_no)
        else:
            runs.append((split, round_no, round_no))
    return "; ".join(f"{split} in round {first}" if first == last
                     else f"{split} in rounds {first}-{last}" for split, first, last in runs)


def sitting_json(sitting: str | None) -> str | None:
    """The json's ``sitting`` of :func:`swiss_sitting`'s phrase: a field that sits alike
    every round as its tables alone (``4 + 4 + 3``), one that changes with the rounds it
    names (``4 + 4 + 3 in rounds 1-3``)."""
    return None if sitting is None else sitting.removesuffix(" each round")


def spec_sitting(spec: TournamentSpec) -> str | None:
    """:func:`swiss_sitting` of a Swiss spec (None for other formats)."""
    if spec.format != "swiss":
        return None
    return swiss_sitting(spec.table_sizes[0], [len(spec.round_field(r))
                                               for r in range(1, spec.effective_rounds() + 1)])


def stored_sitting(spec: Mapping[str, Any], k: int, entrants: Sequence[str]) -> str | None:
    """:func:`swiss_sitting` of a stored Swiss at tables of ``k``: its ``entrants``
    (``name@version``, as the store holds them) over its spec's ``rounds``, ``withdrawn``
    and ``joined``."""
    names = [str(key).split("@", 1)[0] for key in entrants]  # a name holds no @
    fields = round_fields(names, spec.get("withdrawn") or {}, spec.get("joined") or {},
                          int(spec.get("rounds") or 1))
    return swiss_sitting(k, [len(field) for field in fields])


def seating_warning(spec: TournamentSpec) -> str | None:
    """Why a duplicate spec's largest table would keep many bot processes alive at once
    (:func:`~arena.referee.seating.crowded_table`), if it would."""
    if spec.format == "swiss":
        largest = max(swiss.table_sizes(len(spec.entrants), spec.table_sizes[0])[0],
                      default=2)
    else:
        largest = max(spec.table_sizes)
    crowded = crowded_table(largest, spec.duplicate)
    return None if crowded is None else f"{crowded}; that many for every table played at once"


# Faster than any run measured on one machine (docs/PERFORMANCE.md), so a plan warned of is
# beyond a day at any speed seen here.
GAMES_PER_SECOND_AT_BEST = 200
GAMES_IN_A_DAY_AT_BEST = GAMES_PER_SECOND_AT_BEST * 24 * 3600


def long_plan_warning(spec: TournamentSpec) -> str | None:
    """When a tournament plans more games than one machine plays in a day even at
    :data:`GAMES_PER_SECOND_AT_BEST` (a league's budget too; a league without one plays
    until stopped)."""
    games = planned_games(spec)
    if games <= GAMES_IN_A_DAY_AT_BEST:
        return None
    days = games / GAMES_IN_A_DAY_AT_BEST
    return (f"{games:,} games planned take more than {days:.1f} days even at "
            f"{GAMES_PER_SECOND_AT_BEST} games/s, faster than the sample bots play on one "
            "machine; fewer rounds or a smaller games_per_match end sooner")


def unmet_pairs_warning(spec: TournamentSpec) -> str | None:
    """Which pairs of a round-robin's entrants its balanced schedule seats at no table, if
    any: a field of more k-sets than ``max_tables`` is played by cyclic blocks, and where
    one cycle's blocks cannot cover every difference some pairs never meet (more cycles'
    blocks, chosen together, may seat them)."""
    if spec.format != "round_robin" or max(spec.table_sizes) == 2:
        return None
    n = len(spec.entrants)
    met = {pair for table in fixed_tables(spec) for pair in combinations(sorted(table.seats), 2)}
    apart = n * (n - 1) // 2 - len(met)
    if apart == 0:
        return None
    sizes = "/".join(map(str, spec.table_sizes))
    return (f"the balanced schedule of {n} entrants at tables of {sizes} seats {apart} of the "
            f"{n * (n - 1) // 2} pairs at no table, and their head-to-head stays empty; more "
            "rounds choose more blocks, which may seat them (--check says)")


def rematch_warning(spec: TournamentSpec) -> str | None:
    """When a Swiss plays more rounds than its field has pairs for: each round seats so many
    pairs together, and past the rounds that could give every one a new opponent the
    pairing must seat pairs that met already (4 bots at tables of 2 have met all three
    others after round 3). A round-robin is the format that seats every pair evenly."""
    if spec.format != "swiss" or spec.rounds is None:
        return None
    n = len(spec.entrants)
    sizes, _ = swiss.table_sizes(n, spec.table_sizes[0])
    if len(sizes) <= 1:  # one table (a crowded one too): every round seats the same bots
        return None
    per_round = sum(size * (size - 1) // 2 for size in sizes)
    pairs = n * (n - 1) // 2
    fresh_rounds = pairs // per_round if per_round else 0
    if spec.rounds <= fresh_rounds:
        return None
    return (f"{spec.rounds} Swiss rounds of {n} entrants: a round seats {per_round} of their "
            f"{pairs} pairs together, so after round {fresh_rounds} the pairing seats bots "
            "that have met already (format: round_robin seats every pair evenly)")


def league_budget_note(done: int, budget: int | None) -> str:
    """A league's budget beside its games: ``budget 400``, or ``budget 400 spent`` once its
    games reach it (a budget lowered under the games already played too); empty without one.
    A budget is where a run stops, raised to go on, not an end to count towards."""
    if not budget:
        return ""
    return f"budget {budget}" + (" spent" if done >= budget else "")


def league_games(done: int, budget: int | None) -> str:
    """A league's games beside its budget, as ``arena status`` tells them: ``504 games
    (budget 400 spent)``, ``12 games (budget 400)``, ``12 games`` without one, ``1 game``."""
    note = league_budget_note(done, budget)
    return counted(done, "game") + (f" ({note})" if note else "")


def games_progress(done: int, planned: int | None, league: bool) -> str:
    """How far a tournament's games stand, as every list of tournaments shows it:
    ``359/360 (99%)``, rounded down so that 100% means every planned game is played, ``12/?``
    where the store does not say; a league's games with its budget, never a share of it:
    ``12``, ``12 (budget 400)``, ``504 (budget 400 spent)``."""
    if league:
        note = league_budget_note(done, planned)
        return f"{done} ({note})" if note else str(done)
    if planned is None:
        return f"{done}/?"
    if not planned:
        return str(done)
    return f"{done}/{planned} ({100 * done // planned}%)"


def games_plan(done: int, planned: int | None, league: bool) -> dict[str, Any]:
    """Where a tournament's games end, for a script, as :func:`games_progress` tells it:
    ``games_planned`` (null where no end is set: a league, whose budget is where a run
    stops and is raised to go on, so a share of it could pass 100%), ``budget_games`` (a
    league's budget of games; null without one, and for other formats) and
    ``budget_spent`` (whether the games reach it; null without one)."""
    if not league:
        return {"games_planned": planned or None, "budget_games": None, "budget_spent": None}
    budget = planned or None
    return {"games_planned": None, "budget_games": budget,
            "budget_spent": None if budget is None else done >= budget}


def planned_games(spec: TournamentSpec) -> int:
    """Games the tournament will play in total (known before the first Swiss round; a
    league's budget of games, 0 when it has none)."""
    if spec.format == "league":
        return spec.budget.games or 0 if spec.budget is not None else 0
    if spec.format == "swiss":  # each round's field: withdrawn and late entrants change it
        tables = sum(tables_per_swiss_round(spec, len(spec.round_field(r)))
                     for r in range(1, spec.effective_rounds() + 1))
    else:
        tables = len(fixed_tables(spec))
    return tables * spec.games_per_match


def fixed_tables(spec: TournamentSpec) -> list[schedule.Table]:
    """Every table of a round-robin or a gauntlet, the table sizes interleaved."""
    n = len(spec.entrants)
    return schedule.interleave([_fixed_tables_of(spec, n, k) for k in spec.table_sizes])


def _fixed_tables_of(spec: TournamentSpec, n: int, k: int) -> list[schedule.Table]:
    if spec.format == "round_robin":
        return schedule.round_robin(n, k, rounds=spec.effective_rounds(),
                                    duplicate=spec.duplicate, max_tables=spec.max_tables)
    if spec.format == "gauntlet":
        challengers = spec.challenger_indices
        opponents = [i for i in range(n) if i not in challengers]
        return schedule.gauntlet(challengers, opponents, k, rounds=spec.effective_rounds(),
                                 duplicate=spec.duplicate, max_tables=spec.max_tables)
    raise ValueError("Swiss tables are paired round by round")


def group_deals(tables: Sequence[TableRow], duplicate: bool | str) -> list[list[TableRow]]:
    """The tables grouped by deal in duplicate mode (each group one match: its later seatings
    replay the first one's boards), else one table a group. A group whose seatings are not
    the spec's (a database from before the grouping, say) is played table by table."""
    mode = seating_mode(duplicate)
    if mode == "none":
        return [[t] for t in tables]
    by_deal: dict[tuple[int, int], list[TableRow]] = {}
    for table in tables:
        by_deal.setdefault((table.round, table.deal), []).append(table)
    groups: list[list[TableRow]] = []
    for group in by_deal.values():
        group.sort(key=lambda t: t.table_index)
        first = group[0]
        orders = [tuple(first.seats.index(b) if b in first.seats else -1 for b in t.seats)
                  for t in group]
        if (orders == seat_orders(range(len(first.seats)), mode)
                and len({(t.seed, t.games) for t in group}) == 1):
            groups.append(group)
        else:
            groups.extend([t] for t in group)
    return groups
