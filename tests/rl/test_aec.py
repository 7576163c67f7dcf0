"""The PettingZoo environment: the API and seed tests, replays, rewards, render, secrecy."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from arena.engine import GameConfig, new_game  # noqa: E402
from arena.engine.determinize import sample_state  # noqa: E402
from arena.engine.houserules import DEFAULT_RULES  # noqa: E402
from arena.errors import IllegalChoiceError, RulesError  # noqa: E402
from arena.rl.aec import PalaestraAEC, env  # noqa: E402
from arena.rl.features import OBS_SIZE  # noqa: E402
from arena.rl.view import placement_rewards, seat_view, structured  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_pettingzoo_api_test_passes(players: int) -> None:
    api_test(env(players), num_cycles=200)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda: env(3), num_cycles=200)


def test_house_rules_reach_the_game() -> None:
    game = env(4, rules={"kinds": "family", "trap_windows": "turn_and_play"})
    game.reset(seed=1)
    assert game.state is not None
    assert game.state.config.rules.kinds == "family"
    api_test(game, num_cycles=100)


def _episode(game: PalaestraAEC, seed: int) -> list[tuple[str, int, bytes]]:
    """Play one episode with the first legal action of a seeded chooser; what was seen."""
    chooser = random.Random(0)
    game.reset(seed=seed)
    seen = []
    for agent in game.agent_iter():
        obs, reward, done, _, _ = game.last()
        if done:
            game.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[chooser.randrange(len(legal))])
        seen.append((agent, action, obs["observation"].tobytes()))
        game.step(action)
    return seen


def test_the_same_seed_replays_the_same_episode() -> None:
    first = _episode(env(3), 11)
    assert first == _episode(env(3), 11)
    assert first != _episode(env(3), 12)


def test_rewards_come_from_the_placements_and_sum_to_zero() -> None:
    game = env(4)
    game.reset(seed=5)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        obs, reward, done, _, info = game.last()
        totals[agent] += reward
        game.step(None if done else int(np.flatnonzero(obs["action_mask"])[0]))
    assert game.state is not None and game.state.result is not None
    placements = game.state.result.placements
    assert list(totals.values()) == placement_rewards(placements)
    assert sum(totals.values()) == pytest.approx(0.0)


def test_reset_options_fix_the_starting_seat_and_refuse_a_bad_one() -> None:
    game = env(3)
    for seat in range(3):
        game.reset(seed=2, options={"starting_seat": np.int64(seat)})
        assert game.state is not None and game.state.config.starting_seat == seat
    for bad in (1.5, "x"):
        with pytest.raises(RulesError, match="the starting seat must be an integer, not "):
            game.reset(seed=2, options={"starting_seat": bad})


def test_placement_rewards() -> None:
    assert placement_rewards([2, 1]) == [-1.0, 1.0]
    assert placement_rewards([1, 1]) == [0.0, 0.0]
    assert placement_rewards([3, 1, 2]) == [-1.0, 1.0, 0.0]
    assert placement_rewards([1, 1, 3, 4]) == [pytest.approx(2 / 3)] * 2 + [-1 / 3, -1.0]


def test_only_the_acting_agent_has_legal_actions_and_the_kit_view() -> None:
    game = env(3)
    game.reset(seed=2)
    acting = game.agent_selection
    info = game.infos[acting]
    assert set(info) == {"observation", "kind", "legal", "context", "actions"}
    assert info["observation"]["seat"] == game.possible_agents.index(acting)
    mask = game.observe(acting)["action_mask"]
    assert sorted(np.flatnonzero(mask)) == sorted(info["actions"])
    for other in game.possible_agents:
        if other != acting:
            assert game.observe(other)["action_mask"].sum() == 0
            assert game.observe(other)["observation"].shape == (OBS_SIZE,)


def test_the_legal_options_in_infos_cannot_be_edited_into_later_games() -> None:
    """The options are the engine's shared objects: one edited in place changed the option
    for every later game of the process (here, a new environment's first decision)."""
    import json

    def first_options() -> list[Any]:
        game = env(2)
        game.reset(seed=1)
        return game.infos[game.agent_selection]["legal"]

    legal = first_options()
    before = [dict(option) for option in legal]
    with pytest.raises(TypeError, match="read-only"):
        legal[1]["card"] = "Crown"
    for edit in (lambda o: o.update(card="Crown"), lambda o: o.pop("action"),
                 lambda o: o.clear()):
        with pytest.raises(TypeError):
            edit(legal[1])
    assert first_options() == before  # equal to the engine's options, and untouched
    assert json.loads(json.dumps(legal)) == before
    mine = dict(legal[1])  # a copy to edit
    mine["card"] = "Crown"
    assert first_options() == before


def test_render_is_the_narrated_game() -> None:
    game = env(2, render_mode="ansi")
    game.reset(seed=3)
    text = game.render()
    assert text.startswith("2 players, 5 rounds")
    assert "player_0 is dealt" in text


def test_an_illegal_action_is_refused_or_plays_the_default() -> None:
    game = env(2)
    game.reset(seed=3)
    mask = game.observe(game.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalChoiceError, match="is not legal for player_"):
        game.step(illegal)
    lenient = env(2, on_illegal="default")
    lenient.reset(seed=3)
    assert lenient.state is not None
    lenient.step(illegal)
    assert lenient.state.choices[-1][2] == 0


def test_an_action_may_be_a_numpy_integer_and_none_is_no_action() -> None:
    game = env(2)
    game.reset(seed=3)
    legal = np.flatnonzero(game.observe(game.agent_selection)["action_mask"])
    option = game.infos[game.agent_selection]["actions"].index(int(legal[-1]))
    assert game.state is not None
    game.step(legal[-1])  # a numpy integer, as np.flatnonzero hands it out
    assert game.state.choices[-1][2] == option
    with pytest.raises(IllegalChoiceError, match="action None is not legal for player_"):
        game.step(None)


def test_observing_before_reset_asks_for_a_reset() -> None:
    with pytest.raises(RulesError, match=r"the environment has no game: call reset\(\) first"):
        env(2).observe("player_0")
    with pytest.raises(RulesError, match=r"call reset\(\) first"):
        env(2).step(0)


def test_bad_settings_are_one_clear_line() -> None:
    with pytest.raises(RulesError, match="played by 2 to 5 players, not 6"):
        env(6)
    with pytest.raises(RulesError, match="no house rule 'colour'"):
        env(2, rules={"colour": "red"})
    with pytest.raises(RulesError, match="on_illegal must be one of raise, default"):
        env(2, on_illegal="ignore")


@settings(max_examples=60)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), moves=st.integers(0, 40),
       other=st.integers(0, 2**32))
def test_the_observation_never_depends_on_hidden_cards(players: int, seed: int, moves: int,
                                                       other: int) -> None:
    """Deal the cards a seat cannot see differently (a determinisation of its own
    observation): its vector, mask and structured view stay the same."""
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
    chooser = random.Random(seed)
    turns = 0
    while state.decision is not None:
        decision = state.decision
        if decision.kind == "turn":
            if turns >= moves % 12:
                break
            turns += 1
        state.apply(int(chooser.random() * len(decision.options)))
    if state.decision is None:
        return
    seat = state.decision.seat
    resampled = sample_state(state.observe(seat), other)
    vector, mask, actions = seat_view(state, seat, DEFAULT_RULES)
    vector2, mask2, actions2 = seat_view(resampled, seat, DEFAULT_RULES)
    assert np.array_equal(vector, vector2)
    assert np.array_equal(mask, mask2) and actions == actions2
    assert _sorted(structured(state, seat, actions)) == _sorted(
        structured(resampled, seat, actions2))


def _sorted(view: dict[str, Any]) -> dict[str, Any]:
    """The view with each seat's revealed cards in card order (the engine lists a set)."""
    observation = dict(view["observation"])
    observation["revealed"] = [sorted(cards) for cards in observation["revealed"]]
    return {**view, "observation": observation}


def test_a_resampled_deal_does_hide_different_cards() -> None:
    """The secrecy test above compares different worlds, not the same one twice."""
    state = new_game(GameConfig(players=("a", "b", "c"), seed=4))
    seat = state.decision.seat if state.decision else 0
    resampled = sample_state(state.observe(seat), 99)
    hidden = [sorted(state.hands[s]) for s in range(3) if s != seat]
    assert hidden != [sorted(resampled.hands[s]) for s in range(3) if s != seat]
    assert np.array_equal(seat_view(state, seat, DEFAULT_RULES)[0],
                          seat_view(resampled, seat, DEFAULT_RULES)[0])
