"""A league's bot that uses packages: its environment built again with other packages while
the league runs is another version, and the version that entered plays no more."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from tournament_fixtures import PassedCheck, bots_dir_for, runner, write_spec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sandbox"))
from packages_support import (  # noqa: E402
    env_cache,  # noqa: F401  (pytest fixture)
    make_wheel,
    package_bot,
    wheelhouse,  # noqa: F401  (pytest fixture)
)

from arena.cli.main import app  # noqa: E402
from arena.registry import BotSpec, submit  # noqa: E402
from arena.sandbox import probe  # noqa: E402
from arena.tournament.events import Progress, RunWarning  # noqa: E402
from arena.tournament.league_vetting import VetScope
from arena.tournament.runner import run_tournament  # noqa: E402
from arena.tournament.spec_loading import load_spec  # noqa: E402

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")


class _RepackageAt:
    """Once ``at`` games are recorded, removes the bot's environment and points pip at a
    newer release of its package: the league's next poll builds it again with that one (as
    after ``arena env prune``, the index having moved on)."""

    def __init__(self, environment: Path, newer: Path, at: int) -> None:
        self.environment, self.newer, self.at, self.done = environment, newer, at, False

    def __call__(self, event: object) -> None:
        if isinstance(event, Progress) and event.done >= self.at and not self.done:
            shutil.rmtree(self.environment)
            os.environ["PIP_FIND_LINKS"] = str(self.newer)
            self.done = True


def test_a_version_whose_environment_was_built_again_with_other_packages_leaves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env_cache: Path,  # noqa: F811
) -> None:
    registry = bots_dir_for(tmp_path, monkeypatch, "first", "last")
    monkeypatch.setenv("PIP_FIND_LINKS", os.environ["PIP_FIND_LINKS"])  # restored after
    source = package_bot(tmp_path, "moving", ["alpha-pkg"], "alpha_pkg", "beta_pkg")
    entered = submit(source, "moving", registry, check=lambda spec: PassedCheck())
    assert entered.environment is not None
    newer = tmp_path / "newer"
    newer.mkdir()
    make_wheel(newer, "alpha_pkg", "1.1", "WHO = 'alpha, newer'\n")
    change = _RepackageAt(entered.environment, newer, 4)
    warnings: list[str] = []

    def report(event: object) -> None:
        change(event)
        if isinstance(event, RunWarning):
            warnings.append(event.text)

    def vetter(bot: BotSpec, scope: VetScope) -> str | None:
        # the new version is refused: the old stays
        return "refused" if change.done and bot.name == "moving" else None

    db = tmp_path / "a.db"
    spec = write_spec(tmp_path / "league.yaml", db, name="ladder", format="league",
                      bots=["*"], games_per_match=1, seed=5, budget={"games": 12})
    spec.write_text(spec.read_text().replace("rounds: 3\n", ""))
    summary = run_tournament(load_spec(spec), 1, report=report, vetter=vetter)
    assert summary.state == "finished" and summary.games_done == 12
    old = f"moving@{entered.version}"
    status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
    assert (f"{old}: entered at table 1, retired: its environment was built again with other "
            "packages by table ") in status, status
    assert [w for w in warnings if "leaves the league" in w] == [
        w for w in warnings if w.startswith(f"{old} leaves the league: its environment was "
                                            "built again with other packages by table ")]
    assert any("leaves the league" in w for w in warnings)
