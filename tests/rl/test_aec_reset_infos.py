"""A reset of the PettingZoo environment begins afresh: no agent's ``infos`` keep the last
game's result, whether the game's end was stepped through or the reset came at once."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

from arena.rl.aec import env  # noqa: E402


@pytest.mark.parametrize("step_through_the_end", [True, False])
def test_a_reset_after_a_game_leaves_no_agent_the_last_games_result(
        step_through_the_end: bool) -> None:
    game = env(3)
    game.reset(seed=2)
    for _ in game.agent_iter():
        obs, _, terminated, _, _ = game.last()
        if terminated and not step_through_the_end:
            break
        game.step(None if terminated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert game.state is not None and game.state.result is not None
    game.reset(seed=3)
    for agent, info in game.infos.items():
        assert "placements" not in info and "desmos" not in info, agent
    asked = game.infos[game.agent_selection]
    assert asked["observation"]["seat"] == game.possible_agents.index(game.agent_selection)
