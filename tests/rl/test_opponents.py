"""The RL opponents' names resolve as ``arena match`` resolves them, with the same errors."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")

from typer.testing import CliRunner  # noqa: E402

from arena.cli.main import app  # noqa: E402
from arena.errors import ArenaError  # noqa: E402
from arena.registry import resolve  # noqa: E402
from arena.rl.opponents import load_opponent  # noqa: E402
from arena.sdk.bot import Bot  # noqa: E402


def _match_error(name: str) -> str:
    """The line ``arena match NAME random`` ends with, before any game is played."""
    result = CliRunner().invoke(app, ["match", name, "random", "--games", "1"])
    assert result.exit_code == 1, result.output
    return result.stderr.strip()


def _opponent_error(name: str) -> str:
    with pytest.raises(ArenaError) as caught:
        load_opponent(name)
    return f"Error: {caught.value}"


@pytest.mark.parametrize("set_bots_dir", [False, True])
def test_a_sample_bot_is_found_by_name_exactly_where_arena_match_finds_it(
        set_bots_dir: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    if set_bots_dir:  # a contest's own registry: the samples are named by path there
        monkeypatch.setenv("ARENA_BOTS_DIR", str(tmp_path))
        assert _opponent_error("greedy") == _match_error("greedy")
        assert "the sample bot is" in _opponent_error("greedy")
    else:
        assert isinstance(load_opponent("greedy"), Bot)
    assert _opponent_error("no-such-bot") == _match_error("no-such-bot")


def test_a_results_key_naming_options_it_is_not_given_is_refused_as_arena_match_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    key = f"greedy@{resolve('greedy').version}+o0123456789ab"
    assert "names options (+o0123456789ab) but was given no options" in _match_error(key)
    assert _opponent_error(key) == _match_error(key)
