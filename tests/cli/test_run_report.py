"""A tournament run reports plain data (arena.tournament.events); the CLI presents it."""

from __future__ import annotations

import importlib
import io
import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.run_report import TerminalReport
from arena.sandbox import probe
from arena.tournament.events import (
    DatabaseCreated,
    Progress,
    ProgressEnded,
    RunEvent,
    RunStopped,
    RunWarning,
    TournamentDropped,
)
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import spec_from_mapping


def test_a_run_reports_where_its_games_stand(tmp_path: Path) -> None:
    db = tmp_path / "told.db"
    spec = spec_from_mapping({"name": "told", "format": "round_robin",
                              "bots": ["greedy", "collector"], "games_per_match": 2,
                              "seed": 2**62, "results": str(db)})
    events: list[RunEvent] = []
    summary = run_tournament(spec, 1, trial=False, report=events.append)
    assert summary.games_recorded == 2
    assert events[0] == DatabaseCreated(db)
    shown = [e for e in events if not isinstance(e, RunWarning)]  # the sandbox's, if any
    progress = [e for e in shown if isinstance(e, Progress)]
    assert [(p.title, p.done, p.planned, p.baseline) for p in progress] == [
        ("told", 0, 2, 0), ("told", 1, 2, 0), ("told", 2, 2, 0)]
    assert shown[-1] == ProgressEnded() and shown.count(ProgressEnded()) == 1
    events.clear()
    again = run_tournament(spec, 1, fresh=True, trial=False, report=events.append)
    assert again.games_recorded == 2
    assert events[0] == TournamentDropped("told", 2)


def test_the_terminal_shows_lines_and_a_bar_with_the_rate() -> None:
    out = io.StringIO()
    report = TerminalReport(Console(file=out, width=120, force_terminal=True,
                                    color_system=None), progress=True)
    began = time.monotonic()
    report(DatabaseCreated(Path("results/x.db")))
    report(TournamentDropped("x", 1))
    report(Progress("x", 3, 10, 3, began))
    report(Progress("x round 2/3", 4, 10, 3, began))
    report(RunWarning("a bot is slow"))
    report(ProgressEnded())
    report(RunStopped("x", 4, 10, Path("results/x.db"), "arena run x.yaml"))
    text = out.getvalue()
    assert text.startswith("New results database: results/x.db\n--fresh: dropping the stored "
                           "tournament 'x' (1 game recorded)\n")
    assert "warning: a bot is slow" in text
    last_bar = text.rsplit("x round 2/3", 1)[1].splitlines()[0]
    for column in ("4/10", "games", "games/s", "elapsed", "eta"):
        assert column in last_bar
    assert text.rstrip().endswith("Stopped: 4/10 games of 'x' are recorded in results/x.db. "
                                  "Resume with: arena run x.yaml")


def test_a_league_s_bar_tells_its_games_beside_its_budget_never_past_its_total() -> None:
    # a league's last table finishes its seatings past the budget: the bar, which stays on
    # screen after the run, read "16/13 games"
    out = io.StringIO()
    report = TerminalReport(Console(file=out, width=120, force_terminal=True,
                                    color_system=None), progress=True)
    began = time.monotonic()
    report(Progress("ladder table 3", 12, 13, 0, began, league=True))
    report(Progress("ladder table 4", 16, 13, 0, began, league=True))
    report(ProgressEnded())
    last_bar = out.getvalue().rsplit("ladder table 4", 1)[1].splitlines()[0]
    assert "16 games (budget 13 spent)" in last_bar
    assert "/13" not in last_bar and "16/" not in last_bar
    unbudgeted = io.StringIO()
    report = TerminalReport(Console(file=unbudgeted, width=120, force_terminal=True,
                                    color_system=None), progress=True)
    report(Progress("open table 2", 7, 0, 0, began, league=True))
    report(ProgressEnded())
    assert "7 games" in unbudgeted.getvalue() and "7/?" not in unbudgeted.getvalue()


def test_a_stopped_league_tells_its_games_beside_its_budget(tmp_path: Path) -> None:
    # a league's budget is where a run stops, not an end its games count towards: the
    # line said "Stopped: 2/50 games", the share status and the summary line no longer show
    spec = spec_from_mapping({"name": "ladder", "format": "league",
                              "bots": ["greedy", "collector"], "games_per_match": 1,
                              "seed": 5, "budget": {"games": 50},
                              "results": str(tmp_path / "l.db")})
    out = io.StringIO()
    terminal = TerminalReport(Console(file=out, width=200), progress=False)

    def report(event: RunEvent) -> None:
        terminal(event)
        if isinstance(event, Progress) and event.done >= 2:
            raise KeyboardInterrupt  # as a Ctrl-C lands while a game is told

    with pytest.raises(KeyboardInterrupt):
        run_tournament(spec, 1, trial=False, report=report)
    stopped = [line for line in out.getvalue().splitlines() if line.startswith("Stopped:")]
    assert len(stopped) == 1 and stopped[0].startswith(
        "Stopped: 2 games (budget 50) of 'ladder' are recorded in "), out.getvalue()


@pytest.mark.parametrize("width", [80, 100, 120])
def test_the_bar_keeps_to_one_line_of_a_terminal_of_80_columns(width: int) -> None:
    # at 80 columns the bar had 4 cells and "games/s" wrapped onto a line of its own
    for title, planned in (("class-contest round 3/4", 72),
                           ("class-contest-autumn-2026-section-b round 3/4", 12_000),
                           ("league-of-extraordinary-bots-2026", 0)):
        out = io.StringIO()
        report = TerminalReport(Console(file=out, width=width, force_terminal=True,
                                        color_system=None), progress=True)
        began = time.monotonic() - 3
        report(Progress(title, planned // 2 or 5000, planned, 0, began))
        report(Progress(title, planned // 2 + 4 or 5004, planned, 0, began))
        report(ProgressEnded())
        frames = [line for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
                  .replace("\r", "\n").splitlines() if line.strip()]
        assert len(frames) == 2, frames  # each frame one line
        for frame in frames:
            assert len(frame) <= width
            assert " round 3/4 ━" in frame or not title.endswith("3/4")  # the round kept
            assert re.search(r" games [\d.]+ games/s (elapsed \S+ )?eta ", frame), frame
            assert ("elapsed" in frame) == (width >= 100)
    whole = frames[0].startswith("league-of-extraordinary-bots-2026 ━")  # else cut, marked
    assert whole if width == 120 else frames[0].startswith("league-of-extraordin") and "… ━" \
        in frames[0]


def test_outside_a_terminal_there_is_no_bar() -> None:
    out = io.StringIO()
    report = TerminalReport(Console(file=out, width=120), progress=True)
    began = time.monotonic()
    report(Progress("x", 3, 10, 3, began))
    report(RunWarning("a bot is slow"))
    report(ProgressEnded())
    assert out.getvalue() == "warning: a bot is slow\n"


def test_without_progress_only_the_lines_are_shown() -> None:
    out = io.StringIO()
    report = TerminalReport(Console(file=out, width=120), progress=False)
    report(Progress("x", 0, 10, 0, time.monotonic()))
    report(RunWarning("careful"))
    report(ProgressEnded())
    assert out.getvalue() == "warning: careful\n"


def test_the_sandbox_warning_is_said_once_in_the_run_header(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe only reports its missing layers; the run says each once, before the games
    (the workers' reports of the same warning are not repeated)."""
    missing = "sandbox layer cgroup is not active: no cgroup v2 hierarchy here"
    probe_module = importlib.import_module("arena.sandbox.probe")
    monkeypatch.setattr(probe_module, "_cached", replace(probe(), warnings=[missing]))
    db = tmp_path / "header.db"
    spec = spec_from_mapping({"name": "header", "format": "round_robin",
                              "bots": ["greedy", "collector"], "games_per_match": 2,
                              "seed": 2**62, "results": str(db)})
    events: list[RunEvent] = []
    run_tournament(spec, 1, report=events.append)
    assert events[:2] == [RunWarning(missing), DatabaseCreated(db)]
    assert events.count(RunWarning(missing)) == 1


def test_more_pinned_workers_than_cpus_are_said_to_share_them(tmp_path: Path) -> None:
    cpus = len(os.sched_getaffinity(0))
    db = tmp_path / "pinned.db"
    spec = spec_from_mapping({"name": "pinned", "format": "round_robin",
                              "bots": ["greedy", "collector"], "games_per_match": 2,
                              "seed": 2**62, "results": str(db), "pin_workers": True})
    events: list[RunEvent] = []
    summary = run_tournament(spec, cpus + 1, report=events.append)
    assert summary.games_recorded == 2
    shared = (f"pin_workers: {cpus + 1} workers on {cpus} CPU{'s' if cpus > 1 else ''}: "
              "some workers share a CPU")
    assert events.count(RunWarning(shared)) == 1
    events.clear()
    run_tournament(spec, cpus, fresh=True, report=events.append)
    assert not [e for e in events if isinstance(e, RunWarning) and "pin_workers" in e.text]


def test_arena_run_says_the_sandbox_warning_once_at_the_top(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = "sandbox layer cgroup is not active: no cgroup v2 hierarchy here"
    probe_module = importlib.import_module("arena.sandbox.probe")
    monkeypatch.setattr(probe_module, "_cached", replace(probe(), warnings=[missing]))
    spec = tmp_path / "said.yaml"
    spec.write_text("name: said\nformat: round_robin\nbots: [greedy, collector]\n"
                    f"games_per_match: 1\nseed: 7\nresults: {tmp_path / 'said.db'}\n")
    result = CliRunner().invoke(app, ["run", str(spec), "--no-progress", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[:2] == [f"warning: {missing}",
                                              f"New results database: {tmp_path / 'said.db'}"]
    assert result.stderr.count(missing) == 1


def test_on_a_terminal_arena_runs_lines_wrap_at_words(tmp_path: Path) -> None:
    # at 80 columns the terminal broke them wherever its width ended: "(give th|em again to
    # resume)", "...in /tmp/x.d|b; state finished"
    import pexpect

    spec = tmp_path / "wrapped.yaml"
    spec.write_text("name: a-tournament-with-a-rather-long-name\nformat: round_robin\n"
                    "bots: [greedy, collector]\ngames_per_match: 2\nseed: 7\n"
                    f"results: {tmp_path / 'wrapped-results.db'}\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "TERM": "xterm-256color"}
    env.pop("COLUMNS", None)
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli.main", "run", str(spec), "--games",
                                           "1", "--workers", "1", "--no-progress"], env=env,
                          dimensions=(24, 80), encoding="utf-8", timeout=120)
    shown = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\r", "", child.read())
    child.close()
    assert child.exitstatus == 0, shown
    # a line longer than the terminal is a path alone, kept whole
    assert all(len(line) <= 80 or " " not in line.strip() for line in shown.splitlines()), shown
    words = " ".join(shown.split())
    assert ("Spec fields set on the command line, recorded with the spec: --games 1 (give them "
            "again to resume)") in words
    assert re.search(r"a-tournament-with-a-rather-long-name: (\d+)/\1 games recorded \(\1 "
                     rf"this run, .* in {re.escape(str(tmp_path))}/wrapped-results\.db; "
                     "state finished", words), shown
    # a pipe gets each line whole
    result = CliRunner().invoke(app, ["run", str(spec), "--games", "1", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert any(line.startswith("a-tournament-with-a-rather-long-name: ")
               and line.endswith("; state finished") for line in result.stdout.splitlines())
