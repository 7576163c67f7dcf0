"""docs/LEARNING.md's own code: its training loop runs, and the bot it writes from the
weights plays every decision as the policy played it in the environment."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

from arena.rl.aec import env  # noqa: E402
from arena.sdk.local import BotAgent  # noqa: E402
from arena.sdk.runner import load_bot  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

DOC = (Path(__file__).resolve().parents[2] / "docs" / "LEARNING.md").read_text()


def _blocks() -> list[str]:
    """The doc's python blocks (indented ones too), unindented."""
    return ["\n".join(line[len(indent):] for line in code.splitlines())
            for indent, code in re.findall(r"^( *)```python\n(.*?)^ *```", DOC, re.S | re.M)]


def _block(starting: str) -> str:
    """The doc's python block that begins with ``starting``."""
    for code in _blocks():
        if code.startswith(starting):
            return code
    raise AssertionError(f"docs/LEARNING.md has no python block starting {starting!r}")


def _trained(episodes: int) -> np.ndarray:
    loop = _block("import numpy as np\nfrom arena.rl.gym_env import PalaestraEnv")
    assert "range(300)" in loop
    scope: dict[str, Any] = {}
    exec(loop.replace("range(300)", f"range({episodes})"), scope)  # noqa: S102
    return np.asarray(scope["W"])


@pytest.mark.parametrize("episodes", [0, 3])
def test_the_docs_bot_plays_as_the_docs_policy_played_in_the_environment(
        tmp_path: Path, episodes: int) -> None:
    """The greedy choice in the environment is the masked argmax over all the actions;
    the bot must pick the same one, ties included (an untrained weight is 0 for many)."""
    weights = _trained(episodes)
    np.savez(tmp_path / "weights.npz", W=weights)
    (tmp_path / "bot.py").write_text(_block("from pathlib import Path\nimport numpy as np"))
    bot = BotAgent(load_bot(tmp_path / "bot.py"))
    for game_number in range(6):
        game = env(2 + game_number % 4, render_mode="ansi")  # the bot reads the events
        game.reset(seed=game_number)
        assert game.state is not None
        chooser = random.Random(game_number)
        for _agent in game.agent_iter():
            obs, _, done, _, info = game.last()
            if done:
                game.step(None)
                continue
            x, mask = obs["observation"], obs["action_mask"].astype(bool)
            played = int(np.argmax(np.where(mask, x @ weights, -np.inf)))
            state = game.state
            decision = state.decision
            assert decision is not None
            answer = bot.choose(decision, state.observe(decision.seat))
            assert info["actions"][answer] == played, (decision.kind, info["actions"])
            legal = np.flatnonzero(mask)
            game.step(int(legal[chooser.randrange(len(legal))]))


def test_the_docs_ismcts_example_plays_a_game_run_after_the_first_example() -> None:
    """The OpenSpiel section's ISMCTS example, run as a reader runs the page: after its first
    example (which loads a 3-player game), at a small budget, it plays a whole game."""
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed")
    first = _block("import pyspiel\nimport arena.rl.openspiel")
    example = next(code for code in _blocks() if "ismcts_bot(" in code)
    assert "class " not in example  # the helper, no subclass to copy
    assert "2.0, 100," in example
    scope: dict[str, Any] = {}
    exec(first, scope)  # noqa: S102
    exec(example.replace("2.0, 100,", "2.0, 5,"), scope)  # noqa: S102
    assert len(scope["returns"]) == scope["game"].num_players()
    assert sum(scope["returns"]) == pytest.approx(0.0)
