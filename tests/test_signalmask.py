"""Stop signals held across a step: handled once, at the end of the block, never lost."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from arena.common.signalmask import STOP_SIGNALS, signals_held


class Stopped(Exception):
    pass


@pytest.fixture
def raising_sigterm() -> Iterator[list[str]]:
    """SIGTERM raises :class:`Stopped` (as the CLI's and the workers' handlers do)."""
    seen: list[str] = []

    def stop(signum: int, frame: object) -> None:
        seen.append("handled")
        raise Stopped()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_signal_during_the_block_is_raised_when_it_ends(raising_sigterm: list[str]) -> None:
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    steps: list[str] = []
    with pytest.raises(Stopped):
        with signals_held() as previous:
            assert previous == before
            os.kill(os.getpid(), signal.SIGTERM)
            steps.append("after the kill")  # the handler has not run: the step completes
            assert raising_sigterm == []
    assert steps == ["after the kill"] and raising_sigterm == ["handled"]
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before


def test_the_mask_is_restored_on_every_exit(raising_sigterm: list[str]) -> None:
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    with pytest.raises(ValueError):
        with signals_held():
            assert STOP_SIGNALS <= signal.pthread_sigmask(signal.SIG_BLOCK, set())
            raise ValueError("inside")
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before
    assert raising_sigterm == []
