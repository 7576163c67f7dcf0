"""What a tournament run reports while it plays, as plain data.

:func:`arena.tournament.runner.run_tournament` hands each event to the ``report`` callback it
is given, in the order things happen; it prints nothing itself. The CLI turns them into the
terminal's lines and progress bar (:mod:`arena.cli.run_report`); a program embedding the runner
may log them, show them elsewhere or ignore them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DatabaseCreated",
    "Progress",
    "ProgressEnded",
    "Report",
    "RunEvent",
    "RunStopped",
    "RunWarning",
    "TournamentDropped",
    "ignore",
]


@dataclass(frozen=True)
class DatabaseCreated:
    """The results database did not exist and is created by this run."""

    path: Path


@dataclass(frozen=True)
class TournamentDropped:
    """``fresh``: the stored tournament of this name, with its ``games``, is deleted first."""

    name: str
    games: int


@dataclass(frozen=True)
class RunWarning:
    """Something the user should know (sent once per run for each distinct text)."""

    text: str


@dataclass(frozen=True)
class Progress:
    """Where the games stand: sent when the games begin, after each recorded game and when a
    Swiss round begins.

    ``baseline`` games were recorded before this run; ``started`` is the run's start on
    :func:`time.monotonic`'s clock (a rate counts this run's games over the time since).
    A ``league``'s ``planned`` is its budget (0: none), which its last table may pass.
    """

    title: str
    done: int
    planned: int
    baseline: int
    started: float
    league: bool = False


@dataclass(frozen=True)
class ProgressEnded:
    """No more games in this run (finished, stopped or failed)."""


@dataclass(frozen=True)
class RunStopped:
    """The run was interrupted (Ctrl-C, SIGTERM): ``done`` of ``planned`` games are stored in
    ``db``; ``resume`` is the command that goes on. A ``league``'s ``planned`` is its budget
    (0: none), where a run stops, not an end its games count towards."""

    name: str
    done: int
    planned: int
    db: Path
    resume: str
    league: bool = False


RunEvent = (DatabaseCreated | TournamentDropped | RunWarning | Progress | ProgressEnded
            | RunStopped)

#: The callback a run reports to.
Report = Callable[[RunEvent], None]


def ignore(event: RunEvent) -> None:
    """The report of a run nobody watches."""
