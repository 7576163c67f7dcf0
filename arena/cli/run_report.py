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

from arena.cli.terminal import fill_words
from arena.common.printable import printable, printable_log
from arena.tournament.events import (
    DatabaseCreated,
    Progress,
    ProgressEnded,
    RunEvent,
    RunStopped,
    RunWarning,
    TournamentDropped,
)
from arena.tournament.planning import league_games
from arena.tournament.pool import sigint_blocked

__all__ = ["TerminalReport"]


#: Terminal columns from which the bar shows the elapsed time too (the title of a round, the
#: figures and a bar of 20 fit).
_FULL_WIDTH = 100
#: Cells the figures take besides the title, the bar and the count of games (" games",
#: "99999.9 games/s", "eta 0:00:00" and the spaces between), and the elapsed time's.
_FIGURES_WIDTH = 40
_ELAPSED_WIDTH = 16
#: The narrowest bar drawn; a longer title is cut instead.
_MIN_BAR = 10


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
        self._bar_column = BarColumn()
        self._task: TaskID | None = None

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, Progress):
            self._progress(event)
        elif isinstance(event, ProgressEnded):
            if self._bar is not None:
                self._bar.stop()
                self._bar = None
        elif isinstance(event, RunWarning):
            self._say(f"warning: {event.text}", style="yellow")
        elif isinstance(event, DatabaseCreated):
            self._say(f"New results database: {event.path}")
        elif isinstance(event, TournamentDropped):
            self._say(f"--fresh: dropping the stored tournament '{event.name}' "
                      f"({event.games} game{'' if event.games == 1 else 's'} recorded)")
        elif isinstance(event, RunStopped):
            self._say(f"Stopped: {_stopped_games(event)} of '{event.name}' "
                      f"are recorded in {event.db}. Resume with: {event.resume}")

    def _say(self, line: str, style: str = "") -> None:
        """``line`` as it is; on a terminal wrapped at words, which the terminal broke
        anywhere ("delegat|ed"); its first word in ``style``."""
        # its names may come from a resumed database made elsewhere, never escaped on entry
        line = printable_log(line)
        if self.console.is_terminal:
            line = fill_words(line, self.console.width)
        head, space, rest = line.partition(" ")
        self.console.print(Text.assemble((head, style), space, rest), highlight=False)

    def _progress(self, event: Progress) -> None:
        if not self.show_progress:
            return
        title = self._fitted(event)
        if self._bar is None or self._task is None:
            rate = _RateColumn()
            rate.started, rate.baseline = event.started, event.baseline
            # Every column at 80 columns (a terminal's default) left the bar 4 cells and
            # wrapped "games/s" onto a second line: a narrow terminal drops the elapsed time,
            # and the bar takes what the title and the figures leave (a bar of no set width
            # would take it from the figures, which then wrap).
            timing: list[ProgressColumn] = [TextColumn("eta"), TimeRemainingColumn()]
            if self.console.width >= _FULL_WIDTH:
                timing = [TextColumn("elapsed"), TimeElapsedColumn(), *timing]
            self._bar_column = BarColumn(bar_width=self._bar_cells(title, event))
            count: list[ProgressColumn] = (
                [TextColumn("{task.fields[count]}", markup=False)] if event.league
                else [MofNCompleteColumn(), TextColumn("games")])
            self._bar = ProgressBar(
                # the title as it is: a name's brackets are no markup (a link's, a colour's)
                TextColumn("{task.description}", style="bold", markup=False), self._bar_column,
                *count, rate, *timing, console=self.console, transient=False)
            self._task = self._bar.add_task(title, total=_total(event), completed=event.done,
                                            count=_league_count(event))
            with sigint_blocked():  # the bar's refresh thread never takes a Ctrl-C
                self._bar.start()
        else:
            self._bar_column.bar_width = self._bar_cells(title, event)
            self._bar.update(self._task, description=title, completed=event.done,
                             total=_total(event), count=_league_count(event))

    def _figures(self, event: Progress) -> int:
        """Cells of everything but the title and the bar."""
        count = (len(_league_count(event)) - len(" games") if event.league
                 else 2 * len(str(event.planned or event.done)) + 1)  # "36/72"
        elapsed = _ELAPSED_WIDTH if self.console.width >= _FULL_WIDTH else 0
        return count + _FIGURES_WIDTH + elapsed

    def _bar_cells(self, title: str, event: Progress) -> int:
        """The bar's width: what the title and the figures leave, 40 at most."""
        return max(_MIN_BAR, min(40, self.console.width - self._figures(event) - len(title)))

    def _fitted(self, event: Progress) -> str:
        """The bar's title, its name cut with an ellipsis (the round kept) where it would
        leave the bar and the figures less than one line (a long name, a narrow terminal)."""
        room = self.console.width - self._figures(event) - _MIN_BAR
        title = printable(event.title)  # a resumed database's, from elsewhere
        if len(title) <= room:
            return title
        name, sep, rest = title.rpartition(" round ")
        kept = f"{sep}{rest}"
        if not sep or room - len(kept) < 2:  # no round to keep, or no room for it
            name, kept = title, ""
        return name[:max(room - len(kept) - 1, 1)] + "…" + kept


def _total(event: Progress) -> int | None:
    """The bar's end: the planned games; a league's budget, which its last table may pass
    (the bar then ends at its games, full, never 16/13), or none without one."""
    if event.league:
        return max(event.planned, event.done) if event.planned else None
    return event.planned or None


def _league_count(event: Progress) -> str:
    """A league's games beside its budget, as ``arena status`` tells them: ``16 games
    (budget 13 spent)`` (empty for other formats, whose count is done/planned)."""
    return league_games(event.done, event.planned) if event.league else ""


def _stopped_games(event: RunStopped) -> str:
    """The games a stopped run leaves stored: ``4/10 games``; a league's beside its budget,
    as ``arena status`` tells them (``504 games (budget 600)``), never a share of it."""
    if event.league:
        return league_games(event.done, event.planned)
    return f"{event.done}/{event.planned} games" if event.planned else f"{event.done} games"
