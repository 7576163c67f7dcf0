"""``arena bench ismcts`` as a library: searches counted by phase, strength reported deal by
deal (tiny budgets: the figures are not the point)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bench.ismcts import run_ismcts_bench
from arena.errors import ArenaError


def test_speed_rows_cover_both_table_sizes_and_the_costs() -> None:
    bench = run_ismcts_bench(positions=2, iterations=4)
    phases = {(row["players"], row["phase"]) for row in bench.speed}
    assert {(2, "costs"), (4, "costs")} <= phases
    assert sum(row["searches"] for row in bench.speed if row["phase"] != "costs") >= 4
    assert bench.strength == [] and bench.to_json()["iterations_per_search"] == 4
    assert bench.render().startswith("ISMCTS speed (4 iterations per search")


def test_strength_is_told_after_every_deal() -> None:
    told: list[tuple[int, int, list[tuple[str, str, float]]]] = []
    bench = run_ismcts_bench(positions=1, iterations=2, games=1, budgets=(1, 2),
                             on_deal=lambda *args: told.append(args))
    assert [(done, games) for done, games, _ in told] == [(1, 1)]
    assert [(a, b) for a, b, _ in told[0][2]] == [("ismcts@2ms", "ismcts@1ms"),
                                                  ("ismcts@2ms", "heuristic"),
                                                  ("ismcts@1ms", "heuristic")]
    assert [row["games"] for row in bench.strength] == [2, 2, 2]


def test_a_directory_without_the_bots_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="no ismcts.py in"):
        run_ismcts_bench(bots_dir=tmp_path)
