"""The learned bot's weights in a game that gained a house rule after they were trained.

A house rule is one more feature (arena.rl.features, the RULES block): the weights file then
had one input too few, and the bot never started ('weights for 469 features ...; this kit
has 470'), in every match and tournament, until it was trained again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the learned bot plays on numpy")

import numpy as np  # noqa: E402

from arena.engine import GameConfig, new_game  # noqa: E402
from arena.engine.houserules import RULE_CHOICES  # noqa: E402
from arena.rl import policy as policy_module  # noqa: E402
from arena.rl.features import OBS_SIZE, OFFSET, encode  # noqa: E402
from arena.sdk import Bot  # noqa: E402
from arena.sdk.runner import load_bot_class  # noqa: E402

LEARNED = Path(__file__).resolve().parents[2] / "bots" / "learned"


def _in_a_kit_with(monkeypatch: pytest.MonkeyPatch, rules: dict[str, tuple[str, ...]],
                   features: int) -> type[Bot]:
    """The learned bot's class as a kit of these house rules and features would run it."""
    monkeypatch.setattr(policy_module, "RULE_CHOICES", rules)
    monkeypatch.setattr(policy_module, "OBS_SIZE", features)
    return load_bot_class(LEARNED)


@pytest.mark.parametrize("at", [len(RULE_CHOICES), 1])  # added last, or among the others
def test_a_house_rule_added_since_training_plays_each_game_as_trained(
        monkeypatch: pytest.MonkeyPatch, at: int) -> None:
    trained = load_bot_class(LEARNED)().policy  # type: ignore[attr-defined]
    names = list(RULE_CHOICES)
    names.insert(at, "crowns")
    rules = {name: RULE_CHOICES.get(name, ("wild", "tame")) for name in names}
    policy = _in_a_kit_with(monkeypatch, rules, OBS_SIZE + 1)().policy  # type: ignore[attr-defined]
    new = OFFSET["RULES"] + at
    assert policy.w1.shape[0] == OBS_SIZE + 1 and not policy.w1[new].any()
    # the rule at its default reading is a 0 there: every logit as trained (but for the
    # rounding of a sum in another order), the same choice, at every decision
    state = new_game(GameConfig(players=("a", "b", "c"), seed=5))
    for _ in range(20):
        decision = state.decision
        assert decision is not None
        x = encode(state.observe(decision.seat), decision.kind, decision.context)
        logits, as_trained = policy.logits(np.insert(x, new, 0.0)), trained.logits(x)
        assert np.allclose(logits, as_trained, rtol=1e-5, atol=1e-5)
        assert np.argmax(logits) == np.argmax(as_trained)
        state.apply(0)


@pytest.mark.parametrize(("rules", "features", "why"), [
    (dict(RULE_CHOICES), OBS_SIZE + 3, ""),  # another block grew
    ({name: RULE_CHOICES[name] for name in RULE_CHOICES if name != "reclaim"}, OBS_SIZE - 1,
     " (house rule reclaim is gone)"),
])
def test_weights_for_other_features_are_refused_in_one_line(
        monkeypatch: pytest.MonkeyPatch, rules: dict[str, tuple[str, ...]], features: int,
        why: str) -> None:
    bot_class = _in_a_kit_with(monkeypatch, rules, features)
    with pytest.raises(ValueError) as refused:
        bot_class()
    assert str(refused.value) == (
        f"weights.npz was trained on {OBS_SIZE} features and this arena has {features}{why}: "
        "train it again (docs/LEARNING.md)")


def test_a_saved_policy_names_its_rules_and_loads_after_a_rule_is_added(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Any bot's weights, not only the sample's: Policy.save names the house rules the
    features know, and Policy.load fits the weights to the rules of the kit that loads them."""
    policy = policy_module.Policy.initial(hidden=8, seed=1)
    saved = tmp_path / "mine.npz"
    policy.save(saved, seed=1)
    assert policy_module.Policy.load(saved).meta == {"seed": 1, "rules": ",".join(RULE_CHOICES)}
    _in_a_kit_with(monkeypatch, {**RULE_CHOICES, "crowns": ("wild", "tame")}, OBS_SIZE + 1)
    grown = policy_module.Policy.load(saved)
    assert grown.w1.shape[0] == OBS_SIZE + 1
    assert not grown.w1[OFFSET["RULES"] + len(RULE_CHOICES)].any()
    assert np.array_equal(np.delete(grown.w1, OFFSET["RULES"] + len(RULE_CHOICES), 0), policy.w1)
