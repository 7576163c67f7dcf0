"""What a learner's observation says of the house rules: the ``RULES`` block marks each rule
played off its default reading, and nothing under the defaults."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

from arena.engine.houserules import RULE_CHOICES  # noqa: E402
from arena.rl.aec import env  # noqa: E402
from arena.rl.features import OFFSET  # noqa: E402


def _rules_block(rules: dict[str, str]) -> list[float]:
    game = env(2, rules=rules)
    game.reset(seed=3)
    vector = game.observe(game.agent_selection)["observation"]
    at = OFFSET["RULES"]
    return [float(value) for value in vector[at:at + len(RULE_CHOICES)]]


def test_the_rules_block_marks_the_rules_off_their_default() -> None:
    assert _rules_block({}) == [0.0] * len(RULE_CHOICES)
    for i, (name, choices) in enumerate(RULE_CHOICES.items()):
        marked = [0.0] * len(RULE_CHOICES)
        marked[i] = 1.0
        assert _rules_block({name: choices[1]}) == marked, name
