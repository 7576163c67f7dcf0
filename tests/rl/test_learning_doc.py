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


def _block(starting: str) -> str:
    """The doc's python block that begins with ``starting`` (indented blocks too)."""
    for indent, code in re.findall(r"^( *)```python\n(.*?)^ *```", DOC, re.S | re.M):
        code = "\n".join(line[len(indent):] for line in code.splitlines())
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
