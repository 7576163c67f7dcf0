"""The local worker pool's signal handling: a Ctrl-C is the parent's to handle, always."""

from __future__ import annotations

import multiprocessing.process
import os
import signal
from pathlib import Path

import pytest

from arena.tournament.pool import LocalPool


def ignored_signals(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines()
                    if line.startswith("SigIgn:")).split()[1], 16)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_a_ctrl_c_while_a_worker_starts_reaches_the_parent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker must start ignoring SIGINT (the parent stops workers in order), and the
    parent must still get a Ctrl-C that lands while it starts one; ignoring the signal
    in the parent for that instant used to drop it."""
    pool = LocalPool(1)
    got: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    start = multiprocessing.process.BaseProcess.start

    def interrupted_start(self: multiprocessing.process.BaseProcess) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, mid-spawn
        start(self)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", interrupted_start)
    try:
        worker = pool._spawn()
        assert got == [signal.SIGINT]
        assert ignored_signals(worker.process.pid or 0) & (1 << (signal.SIGINT - 1))
        assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    finally:
        signal.signal(signal.SIGINT, previous)
        pool.close(kill=True)
