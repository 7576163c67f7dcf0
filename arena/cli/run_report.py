"""How ``arena run`` shows a tournament run on the terminal: its events
(:mod:`arena.tournament.events`) as lines and a progress bar with games/s, elapsed and eta."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as ProgressBar
from rich.text import Text

from arena.tournament.events import (
    DatabaseCreated,
    Progress,
    ProgressEnded,
    RunEvent,
    RunStopped,
    RunWarning,
    TournamentDropped,
)
from arena.tournament.pool import sigint_blocked

__all__ = ["TerminalReport"]


class _RateColumn(ProgressColumn):
    """Games per second over this run (not the resumed games)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.monotonic()
        self.baseline = 0

    def render(self, task: Task) -> Text:
        elapsed = time.monotonic() - self.started
        done = task.completed - self.baseline
        rate = done / elapsed if elapsed > 0 and done > 0 else 0.0
        return Text(f"{rate:.1f} games/s", style="progress.data.speed")


class TerminalReport:
    """A run's report (the ``report`` of :func:`~arena.tournament.runner.run_tournament`)
    printed on ``console``: each event as a line, and with ``progress`` a bar while the games
    are played, on a terminal only (in a log or a pipe the bar's last frame would wrap)."""

    def __init__(self, console: Console | None = None, *, progress: bool = True) -> None:
        self.console = console or Console(stderr=True, soft_wrap=True)
        self.show_progress = progress and self.console.is_terminal
        self._bar: ProgressBar | None = None
        self._task: TaskID | None = None

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, Progress):
            self._progress(event)
        elif isinstance(event, ProgressEnded):
            if self._bar is not None:
                self._bar.stop()
                self._bar = None
        elif isinstance(event, RunWarning):
            self.console.print(f"[yellow]warning:[/] {event.text}", highlight=False)
        elif isinstance(event, DatabaseCreated):
            self.console.print(f"New results database: {event.path}", highlight=False)
        elif isinstance(event, TournamentDropped):
            self.console.print(f"--fresh: dropping the stored tournament '{event.name}' "
                               f"({event.games} game{'' if event.games == 1 else 's'} "
                               "recorded)", highlight=False)
        elif isinstance(event, RunStopped):
            of = f"/{event.planned}" if event.planned else ""  # a league may have no end
            self.console.print(f"Stopped: {event.done}{of} games of '{event.name}' "
                               f"are recorded in {event.db}. Resume with: {event.resume}",
                               highlight=False)

    def _progress(self, event: Progress) -> None:
        if not self.show_progress:
            return
        if self._bar is None or self._task is None:
            rate = _RateColumn()
            rate.started, rate.baseline = event.started, event.baseline
            self._bar = ProgressBar(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("games"), rate, TextColumn("elapsed"),
                TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                console=self.console, transient=False)
            # a league without a budget of games has no end to show
            self._task = self._bar.add_task(event.title, total=event.planned or None,
                                            completed=event.done)
            with sigint_blocked():  # the bar's refresh thread never takes a Ctrl-C
                self._bar.start()
        else:
            self._bar.update(self._task, description=event.title, completed=event.done)
