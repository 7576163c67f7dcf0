"""The Gymnasium environment: one learner seat against kit bots in-process."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")

import warnings  # noqa: E402

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from arena.engine import FirstOptionAgent, GameConfig, State, new_game, play_out  # noqa: E402
from arena.engine.houserules import HouseRules  # noqa: E402
from arena.errors import BotNotFoundError, IllegalChoiceError, RulesError  # noqa: E402
from arena.rl import gym_env  # noqa: E402
from arena.rl.gym_env import PalaestraEnv  # noqa: E402
from arena.sdk import Bot, GameStart, Request  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class Timid(Bot):
    name = "timid"

    def act(self, request: Request) -> int:
        return 0


@pytest.mark.parametrize("opponents", [["greedy"], ["random", "greedy", "heuristic"]])
def test_gymnasium_env_checker_passes(opponents: list[str]) -> None:
    check_env(PalaestraEnv(opponents))


def test_gymnasium_makes_it_by_id_and_its_checker_then_tries_every_render_mode() -> None:
    env = gymnasium.make(gym_env.ENV_ID, opponents=["greedy", "random"])
    assert isinstance(env.unwrapped, PalaestraEnv) and env.unwrapped.players == 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    # a text narrated on demand has no frame rate: the one warning left (docs/LEARNING.md)
    assert [str(w.message) for w in caught if "render fps" not in str(w.message)] == []


def _play(env: PalaestraEnv, seed: int) -> tuple[list[int], float, dict[str, object]]:
    obs, info = env.reset(seed=seed)
    actions: list[int] = []
    while True:
        action = int(np.flatnonzero(obs["action_mask"])[-1])
        actions.append(action)
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        if done:
            return actions, reward, info
        assert reward == 0.0


def test_an_episode_ends_with_the_placement_reward_and_replays_from_its_seed() -> None:
    env = PalaestraEnv(["random", Timid(), FirstOptionAgent()])
    actions, reward, info = _play(env, 3)
    placements = info["placements"]
    assert isinstance(placements, list)
    mine = placements[env.seat]
    assert reward == sum((o > mine) - (o < mine) for o in placements) / 3
    assert env.state is not None and env.state.result is not None
    # as the AEC's infos and game_end: the categories the learner's seat saw
    assert info["desmos"] == env.state.result.desmos_seen_by(env.seat)
    assert info["tiebreak"] == env.state.result.tiebreak
    assert _play(env, 3) == (actions, reward, info)


def test_a_bot_opponent_configured_beforehand_keeps_its_options_every_episode() -> None:
    class Tuned(Bot):
        def __init__(self) -> None:
            self.seen: list[dict[str, object]] = []

        def act(self, request: Request) -> int:
            self.seen.append(dict(self.options))
            return 0

    bot = Tuned()
    bot.configure({"depth": 3})
    env = PalaestraEnv([bot])
    for seed in range(3):
        _play(env, seed)
    assert bot.seen and all(options == {"depth": 3} for options in bot.seen)


def test_the_learner_seat_can_be_fixed_and_is_drawn_otherwise() -> None:
    fixed = PalaestraEnv(["greedy"], learner_seat=1)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(6)} == {1}
    drawn = PalaestraEnv(["greedy"])
    assert {drawn.reset(seed=s)[1]["seat"] for s in range(12)} == {0, 1}


def test_info_holds_the_kit_view_and_render_the_learners_story() -> None:
    env = PalaestraEnv(["greedy"], render_mode="ansi")
    obs, info = env.reset(seed=4)
    assert info["observation"]["seat"] == info["seat"]
    assert sorted(np.flatnonzero(obs["action_mask"])) == sorted(info["actions"])
    assert f"As seat {info['seat']} (learner) saw it:" in env.render()


def test_an_illegal_action_plays_the_default_or_raises() -> None:
    env = PalaestraEnv(["greedy"])
    obs, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    assert env.step(illegal)[4]["illegal"] is True
    strict = PalaestraEnv(["greedy"], on_illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(IllegalChoiceError, match="is not legal here"):
        strict.step(illegal)


def test_action_masks_is_the_observations_mask_for_maskable_learners() -> None:
    env = PalaestraEnv(["random", "greedy"])
    assert not env.action_masks().any()  # before reset: nothing to choose
    obs, _ = env.reset(seed=2)
    done = False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert np.array_equal(mask, obs["action_mask"].astype(bool))
        obs, _, done, _, _ = env.step(int(np.flatnonzero(mask)[0]))
    assert not env.action_masks().any()


def test_bad_opponents_and_seats_are_one_clear_line() -> None:
    with pytest.raises(BotNotFoundError):
        PalaestraEnv(["no-such-bot"])
    with pytest.raises(RulesError, match="learner seat 2 is not a seat of a 2-player game"):
        PalaestraEnv(["greedy"], learner_seat=2)
    with pytest.raises(RulesError, match="played by 2 to 5 players, not 6"):
        PalaestraEnv(["greedy"] * 5)


def test_a_render_mode_not_offered_is_warned_of_and_renders_nothing() -> None:
    # Stable-Baselines3's make_vec_env asks every environment made by id for rgb_array
    with pytest.warns(UserWarning, match="render_mode 'rgb_array' is not offered, only 'ansi'"):
        env = gymnasium.make(gym_env.ENV_ID, render_mode="rgb_array", disable_env_checker=True)
    assert env.unwrapped.render_mode is None
    env.reset(seed=1)
    with pytest.warns(UserWarning, match="render\\(\\) needs render_mode='ansi'"):
        assert env.render() is None


def test_a_step_after_the_end_asks_for_a_reset() -> None:
    env = PalaestraEnv(["greedy"])
    _play(env, 1)
    with pytest.raises(IllegalChoiceError, match=r"the episode is over: call reset\(\)"):
        env.step(0)


class RulesReader(Bot):
    """Keeps the house rules each game_start named, as bots/learned reads them."""

    name = "rules-reader"

    def __init__(self) -> None:
        super().__init__()
        self.told: list[object] = []

    def on_game_start(self, game: GameStart) -> None:
        self.told.append(game.raw.get("rules"))

    def act(self, request: Request) -> int:
        return 0


def test_opponents_are_told_the_house_rules_as_the_referee_tells_them() -> None:
    rules = {"kinds": "family", "trap_windows": "turn_and_play"}
    reader = RulesReader()
    env = PalaestraEnv([reader], rules=rules)
    _play(env, 2)
    assert reader.told == [HouseRules.from_json(rules).to_json()]
    default = RulesReader()
    _play(PalaestraEnv([default]), 2)
    assert default.told == [None]  # the referee names only rules off their defaults


def test_reset_options_fix_the_starting_seat_and_keep_the_deal() -> None:
    env = PalaestraEnv(["greedy", "random"], learner_seat=0)
    env.reset(seed=6)
    assert env.state is not None
    drawn = env.state.config
    for seat in range(3):
        env.reset(seed=6, options={"starting_seat": np.int64(seat)})
        assert env.state.config.starting_seat == seat
        assert env.state.config.seed == drawn.seed  # the same deal, only who starts
    with pytest.raises(RulesError, match="starting seat 3 is not a seat of a 3-player game"):
        env.reset(seed=6, options={"starting_seat": 3})
    with pytest.raises(RulesError, match="the starting seat must be an integer, not 1.5"):
        env.reset(seed=6, options={"starting_seat": 1.5})


def test_a_deal_the_opponents_end_before_the_learner_is_asked_is_dealt_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """reset cannot end an episode, so it never returns one without a step to take."""
    deals: list[int] = []

    def over_at_first(config: GameConfig) -> State:
        state = new_game(config)
        deals.append(config.seed)
        return play_out(state, lambda s: 0) if len(deals) == 1 else state

    monkeypatch.setattr(gym_env, "new_game", over_at_first)
    env = PalaestraEnv(["greedy"])
    obs, info = env.reset(seed=3)
    assert len(deals) == 2 and deals[0] != deals[1]
    assert obs["action_mask"].any() and "placements" not in info
    # a real one: heuristic is dealt four Gods and ascends at its first swap
    obs, info = PalaestraEnv(["heuristic"]).reset(seed=234)
    assert obs["action_mask"].any() and "placements" not in info


def _vector_run(vector: gymnasium.vector.VectorEnv, seed: int, steps: int) -> list[bytes]:
    """Each step's observations, masks, rewards and ends, the actions the last legal ones
    (a row whose mask is empty, autoresetting, plays 0)."""
    obs, _ = vector.reset(seed=seed)
    seen = [obs["observation"].tobytes()]
    for _ in range(steps):
        actions = np.array([np.flatnonzero(m)[-1] if m.any() else 0
                            for m in obs["action_mask"]])
        obs, reward, terminated, _, _ = vector.step(actions)
        seen += [obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                 reward.tobytes(), terminated.tobytes()]
    vector.close()
    return seen


def test_vector_environments_replay_their_seed_and_each_row_is_the_env_at_seed_plus_row() -> None:
    def make() -> PalaestraEnv:
        return PalaestraEnv(["greedy", "random"])

    sync = _vector_run(gymnasium.vector.SyncVectorEnv([make, make]), 5, 80)
    assert sync == _vector_run(gymnasium.vector.AsyncVectorEnv([make, make]), 5, 80)
    vector = gymnasium.vector.SyncVectorEnv([make, make])
    rows, _ = vector.reset(seed=5)
    for row in (0, 1):
        alone, _ = make().reset(seed=5 + row)
        assert rows["observation"][row].tobytes() == alone["observation"].tobytes()
