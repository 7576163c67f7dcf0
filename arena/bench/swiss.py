"""``arena bench swiss``: the time to pair one Swiss round, by field size and table size.

Each field plays ``rounds`` simulated rounds: paired by the current solver, random placements
at every table (seeded, one game a table), byes worth one point. Every round's pairing is
timed, and apart from it what the runner computes before pairing: the TrueSkill tie-break
over every game so far and the standings (the driver's whole work between two rounds); the
same inputs are
also paired by the previous solver (``solver="legacy"``) where the field is at most
``before_max``, and the two pairings' costs by the pairing's criteria are compared (a lower
cost is a better pairing).
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from arena.common.fitting import aligned, fit_columns, not_shown_lines
from arena.tournament.scoring import (
    Bye,
    PlayedTable,
    RatedGame,
    compute_standings,
    conservative_ratings,
    game_points,
)
from arena.tournament.swiss import SwissRound, pair_round, round_cost

__all__ = ["SwissBenchResult", "run_swiss_bench"]


@dataclass
class SwissBenchResult:
    """Per field and table size: seconds per round (after; before where measured)."""

    rounds: int
    rows: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "rows": self.rows, "cpus": os.cpu_count()}

    def render(self, width: int | None = None) -> str:
        """The report; on a terminal ``width`` columns wide, its table without the columns
        that matter least (the costs compared first)."""
        cells = [_cells(row) for row in self.rows]

        def table(kept: Sequence[str], most: int | None) -> str:
            return aligned(kept, [[cell[c] for c in kept] for cell in cells], [_COST])

        text, left_out = fit_columns(table, _COLUMNS, _LEFT_OUT, width)
        return "\n".join([f"swiss bench: seconds to pair one round ({self.rounds} rounds each; "
                          "median and slowest)", text,
                          *not_shown_lines(left_out, "--format json has every figure")])


#: The report's columns, and those a narrow terminal leaves out, first to last.
_COST = "cost after vs before"
_COLUMNS = ("entrants", "players", "after", "before", "speed-up", "ratings+standings", _COST)
_LEFT_OUT = (_COST, "ratings+standings", "speed-up", "before")


def _cells(row: dict[str, Any]) -> dict[str, str]:
    """One field's figures as the report's cells."""
    if row["before_median_s"] is None:
        before, ratio, cost = "not run", "", ""
    else:
        before = f"{row['before_median_s']:.3f} / {row['before_max_s']:.3f}"
        ratio = f"{row['before_median_s'] / max(row['after_median_s'], 1e-9):.1f}x"
        cost = (f"lower {row['cost_lower']}, equal {row['cost_equal']}, "
                f"higher {row['cost_higher']}")
    return {"entrants": str(row["entrants"]), "players": str(row["players"]),
            "after": f"{row['after_median_s']:.3f} / {row['after_max_s']:.3f}",
            "before": before, "speed-up": ratio,
            "ratings+standings": f"{row['standings_median_s']:.3f} / "
                                 f"{row['standings_max_s']:.3f}", _COST: cost}


def _play(r: int, paired: SwissRound, rng: random.Random, rated: list[RatedGame]
          ) -> tuple[list[PlayedTable], list[Bye]]:
    """Random results of one paired round (no ties), its games added to ``rated``."""
    tables = []
    for seats in paired.tables:
        places = list(range(1, len(seats) + 1))
        rng.shuffle(places)
        tables.append(PlayedTable(r, seats, tuple(game_points(places))))
        rated.append(RatedGame(seats, tuple(places)))
    return tables, [Bye(r, e, Fraction(1)) for e in paired.byes]


def _field(n: int, k: int, rounds: int, before: bool, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    played: list[PlayedTable] = []
    byes: list[Bye] = []
    rated: list[RatedGame] = []
    standings_s: list[float] = []
    after_s: list[float] = []
    before_s: list[float] = []
    compared = {"cost_lower": 0, "cost_equal": 0, "cost_higher": 0}
    for r in range(1, rounds + 1):
        began = time.perf_counter()
        standings = compute_standings(n, played, byes, conservative_ratings(n, rated))
        standings_s.append(time.perf_counter() - began)
        began = time.perf_counter()
        paired = pair_round(standings, played, byes, k)
        after_s.append(time.perf_counter() - began)
        if before:
            began = time.perf_counter()
            legacy = pair_round(standings, played, byes, k, solver="legacy")
            before_s.append(time.perf_counter() - began)
            new_cost = round_cost(standings, played, byes, k, paired)
            old_cost = round_cost(standings, played, byes, k, legacy)
            key = ("cost_lower" if new_cost < old_cost else
                   "cost_equal" if new_cost == old_cost else "cost_higher")
            compared[key] += 1
        tables, round_byes = _play(r, paired, rng, rated)
        played += tables
        byes += round_byes
    return {"entrants": n, "players": k, "rounds": rounds,
            "after_s": [round(x, 4) for x in after_s],
            "after_median_s": statistics.median(after_s), "after_max_s": max(after_s),
            "before_s": [round(x, 4) for x in before_s],
            "before_median_s": statistics.median(before_s) if before_s else None,
            "before_max_s": max(before_s) if before_s else None,
            "standings_s": [round(x, 4) for x in standings_s],
            "standings_median_s": statistics.median(standings_s),
            "standings_max_s": max(standings_s),
            **(compared if before else {})}


def run_swiss_bench(fields: Sequence[int] = (64, 256, 1000, 10_000),
                    players: Sequence[int] = (2, 4), *, rounds: int = 3,
                    before_max: int = 1000, seed: int = 0) -> SwissBenchResult:
    """Time the pairing of ``rounds`` rounds for every field size and table size; the
    previous solver too on fields of at most ``before_max``."""
    result = SwissBenchResult(rounds=rounds)
    for n in fields:
        for k in players:
            result.rows.append(_field(n, k, rounds, n <= before_max, seed))
    return result
