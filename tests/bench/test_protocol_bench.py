"""``arena bench protocol``: every decision timed, floors from children started once."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bench import children
from arena.bench import protocol as bench_module
from arena.bench.protocol import run_protocol_bench
from arena.sandbox import launcher


def test_the_bench_times_every_decision_against_floors_of_children_started_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Four blocks of 30 decisions: the floors' three children (an echo, one answering
    child per seat) start once, not once a block."""
    floor_children: list[list[str]] = []
    real = launcher.launch

    def counting(command: list[str], *args: Any, **kwargs: Any) -> Any:
        if command[:2] == ["python3", "-c"]:
            floor_children.append(command)
        return real(command, *args, **kwargs)

    monkeypatch.setattr(children, "launch", counting)
    bench = run_protocol_bench(decisions=120, games=2, warmup=20, blocks=4)
    assert bench.decisions == 120 and bench.match_games == 2 and bench.match_decisions > 0
    assert len(floor_children) == 3
    figures = [bench.round_trip_s, bench.bare_round_trip_s, bench.floor_s,
               bench.replayed_floor_s, bench.paced_floor_s, bench.startup_s, bench.work_s]
    assert all(figure > 0 for figure in figures)


def test_every_timed_block_starts_with_untimed_round_trips_as_the_floors_do(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The bots sleep through the floors' blocks as the floors' children sleep through
    theirs: both get the same untimed warm-up, so neither pays its wake-up in the median."""
    calls: list[tuple[str, int]] = []
    real = bench_module._round_trips

    def spying(clients: list[Any], decisions: int, *args: Any, **kwargs: Any) -> Any:
        calls.append((clients[0].name, decisions))
        return real(clients, decisions, *args, **kwargs)

    monkeypatch.setattr(bench_module, "_round_trips", spying)
    run_protocol_bench(decisions=100, games=1, warmup=20, blocks=2)
    for name in ("trivial0", "bare0"):
        mine = [n for who, n in calls if who == name]
        # the first warm-up, then each block: its warm-up, its 50 timed decisions
        assert mine == [20, bench_module._BLOCK_WARMUP, 50, bench_module._BLOCK_WARMUP, 50]
