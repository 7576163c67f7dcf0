"""The Gymnasium environment's kit-bot opponents as their author meets them: one seat each
every episode, told each game's start and end, their random choices seeded per episode."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

from arena.rl.gym_env import PalaestraEnv  # noqa: E402
from arena.sdk import Bot, GameEnd, GameStart, Request  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class Recorder(Bot):
    """Plays at random from its seeded rng and keeps each game's start and end."""

    def __init__(self) -> None:
        self.starts: list[GameStart] = []
        self.ends: list[GameEnd] = []

    def on_game_start(self, game: GameStart) -> None:
        self.starts.append(game)

    def on_game_end(self, result: GameEnd) -> None:
        self.ends.append(result)

    def act(self, request: Request) -> int:
        return self.rng.randrange(len(request.legal))


def _episode(env: PalaestraEnv, seed: int) -> dict[str, object]:
    """One episode, the learner playing its first legal action; the last info."""
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, done, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    return info


def test_each_opponent_plays_one_seat_of_every_episode_and_is_told_its_end() -> None:
    first, second = Recorder(), Recorder()
    env = PalaestraEnv([first, second])
    learner_seats = set()
    for episode in range(8):
        info = _episode(env, episode)
        learner_seats.add(env.seat)
        assert len(first.starts) == len(second.starts) == episode + 1
        assert len(first.ends) == len(second.ends) == episode + 1
        seats = {env.seat, first.starts[-1].seat, second.starts[-1].seat}
        assert seats == {0, 1, 2}
        assert first.ends[-1].placements == second.ends[-1].placements == info["placements"]
    assert learner_seats == {0, 1, 2}  # the learner's seat is drawn: every seat was met


def test_a_kit_opponents_random_choices_are_seeded_by_the_episode() -> None:
    def bot_seeds(seeds: range) -> list[int | None]:
        bot = Recorder()
        env = PalaestraEnv([bot])
        for seed in seeds:
            _episode(env, seed)
        return [start.bot_seed for start in bot.starts]

    seeds = bot_seeds(range(4))
    assert seeds == bot_seeds(range(4))
    assert len(set(seeds)) == 4  # each episode its own
