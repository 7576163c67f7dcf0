"""A learning environment copied (``copy.deepcopy``: tree search over the environment) or
pickled (vectorised environments in subprocesses, Ray, checkpoints) plays on exactly as the
original does."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

from arena.engine.agents import FirstOptionAgent, RandomAgent  # noqa: E402
from arena.rl.aec import PalaestraAEC  # noqa: E402
from arena.rl.gym_env import PalaestraEnv  # noqa: E402
from arena.sdk.bot import Bot  # noqa: E402
from arena.sdk.runner import load_bot  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def pickled(env: Any) -> Any:
    return pickle.loads(pickle.dumps(env))


COPIES: dict[str, Callable[[Any], Any]] = {"deepcopy": copy.deepcopy, "pickle": pickled}


def searching_briefly() -> Bot:
    """The search bot on a budget of descents (its clock would make its choices differ)."""
    bot = load_bot(ROOT / "bots" / "ismcts.py")
    bot.configure({"iterations": 8})
    return bot


OPPONENTS: dict[str, Callable[[], Any]] = {
    **{name: (lambda name=name: name)
       for name in ("greedy", "heuristic", "random", "collector", "learned")},
    "ismcts": searching_briefly,
    "RandomAgent": lambda: RandomAgent(4),
    "FirstOptionAgent": FirstOptionAgent,
}


def legal(mask: np.ndarray, turn: int) -> int:
    """An action of the mask, the same for the original and its copy."""
    actions = np.flatnonzero(mask)
    return int(actions[(turn * 7) % len(actions)])


def play_on(env: PalaestraEnv, mask: np.ndarray, steps: int) -> list[tuple[Any, ...]]:
    """What ``env`` answers to the same actions, up to the episode's end."""
    seen: list[tuple[Any, ...]] = []
    for turn in range(steps):
        obs, reward, terminated, truncated, info = env.step(legal(mask, turn))
        mask = obs["action_mask"]
        seen.append((obs["observation"].tobytes(), mask.tobytes(), reward, terminated,
                     truncated, info.get("placements")))
        if terminated:
            break
    return seen


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("opponent", OPPONENTS)
def test_a_copied_gym_environment_plays_on_as_the_original(opponent: str, how: str) -> None:
    env = PalaestraEnv(opponents=[OPPONENTS[opponent](), OPPONENTS[opponent]()])
    fresh = COPIES[how](env)
    obs, _ = env.reset(seed=11)
    assert fresh.reset(seed=11)[0]["observation"].tobytes() == obs["observation"].tobytes()
    mask = obs["action_mask"]
    for turn in range(6):  # into the game: the opponents have played and remembered
        obs, *_ = env.step(legal(mask, turn))
        mask = obs["action_mask"]
    other = COPIES[how](env)
    assert play_on(other, mask, 300) == play_on(env, mask, 300)


@pytest.mark.parametrize("how", COPIES)
def test_a_copied_pettingzoo_environment_plays_on_as_the_original(how: str) -> None:
    env = PalaestraAEC(3, render_mode="ansi")
    env.reset(seed=5)
    for turn in range(10):
        env.step(legal(env.observe(env.agent_selection)["action_mask"], turn))
    other = COPIES[how](env)

    def play(aec: PalaestraAEC) -> list[tuple[Any, ...]]:
        seen = []
        for turn, agent in enumerate(aec.agent_iter(400)):
            obs, reward, terminated, truncated, _ = aec.last()
            seen.append((agent, obs["observation"].tobytes(), reward, terminated, truncated))
            aec.step(None if terminated else legal(obs["action_mask"], turn))
        return [*seen, aec.render()]

    assert play(other) == play(env)


#: An episode from ``reset(seed=3)`` to its end, each action the first legal one, told as
#: one hash: run here and in another process.
EPISODE = """
import hashlib
import numpy as np


def episode(env):
    told = hashlib.sha256()
    obs, _ = env.reset(seed=3)
    terminated = False
    while not terminated:
        told.update(obs["observation"].tobytes())
        obs, reward, terminated, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        told.update(repr(reward).encode())
    return told.hexdigest()
"""


def test_a_fresh_environment_pickled_plays_in_another_process(tmp_path: Path) -> None:
    """The opponents' bot modules are found again there (a subprocess vector environment,
    a checkpoint loaded later)."""
    saved = tmp_path / "env.pickle"
    saved.write_bytes(pickle.dumps(PalaestraEnv(opponents=["greedy", "heuristic"])))
    here: dict[str, Any] = {}
    exec(EPISODE, here)  # noqa: S102 - this test's own code, run here and there alike
    script = EPISODE + f"print(episode(__import__('pickle').load(open({str(saved)!r}, 'rb'))))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == here["episode"](PalaestraEnv(opponents=["greedy", "heuristic"]))
