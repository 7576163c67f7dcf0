"""What ``arena bench tournament`` plays again in-process, where nothing is sandboxed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.bench.inprocess import not_in_process
from arena.registry import SAMPLE_BOTS_DIR, resolve


def test_the_sample_bots_are_played_in_process() -> None:
    assert not_in_process([resolve("random"), resolve("greedy")]) is None


def test_a_submitted_bot_is_not_played_in_process(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A spec of students' submitted bots, benchmarked, had their code imported into the
    organiser's own process, outside the sandbox."""
    bots_dir = tmp_path / "submitted"
    bots_dir.mkdir()
    shutil.copy(SAMPLE_BOTS_DIR / "random.py", bots_dir / "theirs.py")
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    theirs = resolve(bots_dir / "theirs.py")
    assert not_in_process([resolve(SAMPLE_BOTS_DIR / "greedy.py"), theirs]) == (
        "in-process runs bots unsandboxed, as you, and these are not yours: "
        f"{theirs.name} (it is a bot submitted to the bots directory {bots_dir})")
