"""``arena bench protocol``: every decision timed, floors from children started once."""

from __future__ import annotations

from typing import Any

import pytest

from arena.referee.bench import run_protocol_bench
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

    monkeypatch.setattr(launcher, "launch", counting)
    bench = run_protocol_bench(decisions=120, games=2, warmup=20, blocks=4)
    assert bench.decisions == 120 and bench.match_games == 2 and bench.match_decisions > 0
    assert len(floor_children) == 3
    figures = [bench.round_trip_s, bench.bare_round_trip_s, bench.floor_s,
               bench.replayed_floor_s, bench.paced_floor_s, bench.startup_s, bench.work_s]
    assert all(figure > 0 for figure in figures)
