"""`arena match` warns, before it starts a bot, of a seating that keeps many bot processes
alive at once."""

from __future__ import annotations

import pytest


def test_permutations_of_five_bots_warn_of_the_processes_before_the_match(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Five bots in every seat order keep 600 processes alive (a process per bot and
    seating): arena match says so before it starts any."""
    from typer.testing import CliRunner

    from arena.cli import match_commands
    from arena.cli.main import app

    class Stopped(Exception):
        pass

    class NoSeries:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise Stopped  # the warning is said by now; nothing is started

    monkeypatch.setattr(match_commands, "MatchSeries", NoSeries)
    bots = ["random", "greedy", "collector", "heuristic", "learned"]
    result = CliRunner().invoke(app, ["match", *bots, "--duplicate", "permutations",
                                      "--games", "120", "--seed", "1"])
    assert isinstance(result.exception, Stopped), result.output
    assert "warning: duplicate: permutations keeps 600 bot processes alive" in result.stderr
    rotations = CliRunner().invoke(app, ["match", *bots, "--duplicate", "rotations",
                                         "--games", "5", "--seed", "1"])
    assert isinstance(rotations.exception, Stopped) and "warning" not in rotations.stderr
