"""The PettingZoo environment at the end of a game: every agent, terminated, observes the
final table with an all-zero action mask (nothing is left to choose)."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

from arena.rl.aec import env  # noqa: E402
from arena.rl.view import seat_view  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")


@pytest.mark.parametrize("players", [2, 3])
def test_a_terminated_agent_observes_the_final_table_and_no_legal_action(players: int) -> None:
    game = env(players)
    game.reset(seed=7)
    ended = []
    for agent in game.agent_iter():
        obs, _, terminated, _, _ = game.last()
        if terminated:
            assert game.state is not None and game.state.result is not None
            seat = game.possible_agents.index(agent)
            final = seat_view(game.state, seat, game.rules)[0]
            assert not obs["action_mask"].any(), agent
            assert np.array_equal(obs["observation"], final), agent
            ended.append(agent)
            game.step(None)
            continue
        game.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert sorted(ended) == game.possible_agents
