"""The numpy policy, its training and the learned bot that plays it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from arena.engine import GameConfig, new_game, play_game  # noqa: E402
from arena.engine.cards import PALAESTRON  # noqa: E402
from arena.engine.decision import DECISION_KINDS  # noqa: E402
from arena.engine.desmos import EVALUATORS  # noqa: E402
from arena.errors import BotError  # noqa: E402
from arena.rl.actions import CARD, COPY, FACES, N_ACTIONS  # noqa: E402
from arena.rl.features import OBS_SIZE, encode, hand_category  # noqa: E402
from arena.rl.opponents import load_opponent  # noqa: E402
from arena.rl.policy import Policy  # noqa: E402
from arena.rl.train import PolicyAgent, collect, evaluate, fit, reinforce  # noqa: E402
from arena.sdk.local import BotAgent  # noqa: E402
from arena.sdk.runner import load_bot  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@settings(max_examples=300)
@given(cards=st.lists(st.integers(0, 51), min_size=0, max_size=6, unique=True),
       kinds=st.sampled_from(["type", "family"]))
def test_the_remembered_category_is_the_evaluators(cards: list[int], kinds: str) -> None:
    counting = [c for c in cards if c != PALAESTRON]
    expected = EVALUATORS[kinds](counting)[0] if len(counting) <= 5 else None
    assert hand_category(tuple(cards), kinds) == expected
    assert hand_category(tuple(cards), kinds) == expected  # and again, remembered


def test_weights_round_trip_through_a_file(tmp_path: Path) -> None:
    policy = Policy.initial(16, seed=3)
    policy.save(tmp_path / "w.npz", seed=3, teacher="heuristic")
    loaded = Policy.load(tmp_path / "w.npz")
    x = np.ones(OBS_SIZE, np.float32)
    assert np.array_equal(policy.logits(x), loaded.logits(x))
    assert loaded.meta == {"seed": 3, "teacher": "heuristic",
                           "rules": "kinds,dealt_palaestron,reclaim,trap_windows"}


def test_weights_for_another_feature_layout_are_refused() -> None:
    with pytest.raises(ValueError, match="weights for 3 features"):
        Policy(np.zeros((3, 4), np.float32), np.zeros(4, np.float32),
               np.zeros((4, 5), np.float32), np.zeros(5, np.float32))


def test_weights_from_before_the_copy_actions_play_a_copy_as_its_card() -> None:
    # a weights file trained when the action space ended at the throws still loads
    old = Policy.initial(8, seed=4)
    w2, b2 = old.w2[:, :COPY], old.b2[:COPY]
    loaded = Policy(old.w1, old.b1, w2, b2)
    logits = loaded.logits(np.ones(OBS_SIZE, np.float32))
    assert logits.shape == (N_ACTIONS,)
    assert np.array_equal(logits[COPY:], logits[CARD:CARD + FACES])


def test_a_policy_agent_plays_legal_options_at_every_table_size() -> None:
    policy = Policy.initial(8, seed=1)
    for players in (2, 3, 4, 5):
        config = GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=players)
        state = play_game(config, [PolicyAgent(policy) for _ in range(players)])
        assert state.result is not None


def test_training_is_seeded_and_learns_the_teachers_choices() -> None:
    def train(seed: int) -> tuple[Policy, float]:
        examples = collect("greedy", "random", games=6, seed=seed)
        x, mask, chosen = examples.arrays()
        assert x.shape == (len(chosen), OBS_SIZE) and mask[np.arange(len(chosen)), chosen].all()
        policy = Policy.initial(16, seed)
        accuracy = fit(policy, examples, epochs=30, seed=seed, lr=3e-3)
        reinforce(policy, "random", games=4, seed=seed, batch_games=2)
        return policy, accuracy

    first, accuracy = train(5)
    again, _ = train(5)
    assert 0.6 < accuracy <= 1.0
    assert all(np.array_equal(a, b) for a, b in zip(first.arrays().values(),
                                                     again.arrays().values()))


def test_evaluate_plays_every_deal_from_both_seats() -> None:
    score, games = evaluate(Policy.initial(8, seed=2), "random", deals=3, seed=1)
    assert games == 6 and 0.0 <= score <= 6.0


def test_evaluate_takes_any_player_the_environments_take_as_an_opponent() -> None:
    policy = Policy.initial(8, seed=2)
    # an engine agent playing the policy is dealt the very games the policy is
    assert (evaluate(PolicyAgent(policy), "random", deals=3, seed=1)
            == evaluate(policy, "random", deals=3, seed=1))
    by_name = evaluate("random", "greedy", deals=4, seed=3)
    assert by_name[1] == 8 and by_name == evaluate("random", "greedy", deals=4, seed=3)
    # a kit bot object replays its random choices from the seed, as its name does
    assert evaluate(load_opponent("random"), "greedy", deals=4, seed=3) == by_name


def test_evaluate_refuses_one_bot_object_in_both_seats() -> None:
    bot = load_opponent("random")
    with pytest.raises(BotError, match="the player and the opponent are one object"):
        evaluate(bot, bot, deals=1, seed=0)


def test_the_learned_bot_plays_its_weights_in_process() -> None:
    bot = load_bot(ROOT / "bots" / "learned")
    assert bot.policy.w1.shape[0] == OBS_SIZE  # type: ignore[attr-defined]
    greedy = load_bot(ROOT / "bots" / "greedy.py")
    state = play_game(GameConfig(players=("a", "b", "c"), seed=9),
                      [BotAgent(bot), BotAgent(greedy), BotAgent(bot)])
    assert state.result is not None


def test_the_learned_bot_answers_as_the_training_policy_does() -> None:
    """The bot reads the act message's JSON; training read the engine's observation: the
    same features, the same choice."""
    bot = load_bot(ROOT / "bots" / "learned")
    policy: Policy = bot.policy  # type: ignore[attr-defined]
    agent = BotAgent(bot)
    direct = PolicyAgent(policy)
    state = new_game(GameConfig(players=("a", "b"), seed=21))
    while state.decision is not None:
        decision = state.decision
        observation = state.observe(decision.seat)
        choice = agent.choose(decision, observation)
        assert choice == direct.choose(decision, observation)
        assert np.array_equal(encode(observation, decision.kind, decision.context),
                              encode(type(observation).from_json(observation.to_json()),
                                     decision.kind, decision.context))
        state.apply(choice)


def test_the_learned_bot_answers_every_decision_kind_legally() -> None:
    """Random play that meets every kind (Rock-Paper-Scissors too); the learned bot is
    asked at every decision, as the referee would ask it."""
    kinds: set[str] = set()
    for players, seed in [(3, 0), (3, 34), (2, 42), (2, 93), (4, 51), (5, 42), (4, 7), (5, 3)]:
        state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed))
        agents = [BotAgent(load_bot(ROOT / "bots" / "learned")) for _ in range(players)]
        rng = random.Random(seed)
        while state.decision is not None:
            decision = state.decision
            kinds.add(decision.kind)
            choice = agents[decision.seat].choose(decision, state.observe(decision.seat))
            assert 0 <= choice < len(decision.options)
            assert agents[decision.seat].invalid_answers == 0
            state.apply(rng.randrange(len(decision.options)))
    assert kinds == set(DECISION_KINDS)
