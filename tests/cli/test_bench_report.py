"""What ``arena bench tournament`` and ``arena bench ray`` show of the runs they make."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.bench_commands import _runs_report
from arena.tournament.events import DatabaseCreated, RunWarning, TournamentDropped


def test_the_runs_warnings_are_shown_once_and_their_throwaway_databases_not(
        capsys: pytest.CaptureFixture[str]) -> None:
    # three repeats of two runs each printed the sandbox's warning six times and the news of
    # the bench's own temporary databases at every run
    report = _runs_report()
    for _ in range(3):
        report(DatabaseCreated(Path("/tmp/arena-bench-x/local.db")))
        report(TournamentDropped("bench-local", 1800))
        report(RunWarning("sandbox layer cgroup is not active"))
    report(RunWarning("another"))
    shown = capsys.readouterr()
    assert (shown.out + shown.err).splitlines() == [
        "warning: sandbox layer cgroup is not active", "warning: another"]
