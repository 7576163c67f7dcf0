"""The benchmarks' sandboxed children: the floors ``arena bench protocol`` measures against."""

from __future__ import annotations

import pytest

from arena.bench.children import EchoChild, measure_ping_pong_floor
from arena.sandbox.reaper import find_processes


def test_measure_ping_pong_floor_returns_a_median_round_trip() -> None:
    samples: list[float] = []
    floor = measure_ping_pong_floor(50, samples=samples)
    assert floor > 0 and len(samples) == 50
    assert min(samples) <= floor <= max(samples)
    line = b'{"type":"act","id":1,"legal":[{"kind":"hold"}]}\n'
    assert measure_ping_pong_floor(5, line) > 0
    with pytest.raises(ValueError):
        measure_ping_pong_floor(0)


def test_an_echo_child_serves_many_measurements_and_is_gone_after() -> None:
    """The bench keeps one echo child for all its floor blocks (a start costs ~100 ms)."""
    line = b'{"type":"act","id":1,"legal":[{"kind":"hold"}]}\n'
    with EchoChild() as child:
        first = child.ping_pong(line, 5, warmup=2)
        second = child.ping_pong(line, 7)
        marker = child.process.marker
        assert len(first) == 5 and len(second) == 7 and min(first + second) > 0
        assert find_processes(marker=marker)  # the same child, still running
    assert find_processes(marker=marker) == []
