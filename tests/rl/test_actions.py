"""The fixed action space: every legal option has exactly one action index, and back."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from arena.engine import GameConfig, new_game  # noqa: E402
from arena.engine.houserules import RULE_CHOICES, HouseRules  # noqa: E402
from arena.errors import IllegalChoiceError  # noqa: E402
from arena.rl.actions import (  # noqa: E402
    ACTION_NAMES,
    CARD,
    COPY,
    N_ACTIONS,
    PASS,
    PLAY,
    SET,
    TARGET,
    action_of,
    decision_actions,
    option_of,
)
from arena.rl.view import seat_view  # noqa: E402

rules_strategy = st.fixed_dictionaries(
    {name: st.sampled_from(choices) for name, choices in RULE_CHOICES.items()}
).map(lambda chosen: HouseRules(**chosen))


@settings(max_examples=150)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), rules=rules_strategy,
       start=st.integers(0, 4))
def test_every_legal_option_has_its_own_action_and_decodes_back(
        players: int, seed: int, rules: HouseRules, start: int) -> None:
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=start % players, rules=rules))
    chooser = random.Random(seed)
    while state.decision is not None:
        decision = state.decision
        distinct = {tuple(sorted(option.items())) for option in decision.options}
        _, mask, actions = seat_view(state, decision.seat, rules)
        assert int(mask.sum()) == len(distinct) == len(decision.options)
        assert sorted(set(actions)) == sorted(actions)  # one index per option
        assert all(mask[a] == 1 for a in actions)
        for index, action in enumerate(actions):
            assert 0 <= action < N_ACTIONS
            assert option_of(actions, action) == index
        state.apply(int(chooser.random() * len(decision.options)))


def test_the_same_index_means_the_same_card_in_every_decision() -> None:
    assert action_of({"action": "hold"}, 0, 2) == PASS
    assert action_of({"swap": None}, 0, 2) == PASS
    assert action_of({"trap": None}, 0, 2) == PASS
    assert action_of({"card": None}, 0, 2) == PASS
    assert action_of({"action": "play", "card": "God-3"}, 0, 2) == PLAY + 2
    assert action_of({"action": "trap", "card": "God-3"}, 0, 2) == SET + 2
    for option in ({"card": "God-3"}, {"swap": "God-3"}):
        assert action_of(option, 1, 3) == CARD + 2
    assert ACTION_NAMES[PLAY + 2] == "play God-3"
    assert ACTION_NAMES[CARD + 2] == "card God-3"


def test_the_other_copy_of_a_card_in_a_pile_has_its_own_action() -> None:
    # Sophoi onto Fate-3, Fate-3: taking either copy is a different move (RULES.md E26); the
    # block is last, so every index before it means what it meant before it existed
    fate3 = action_of({"card": "Fate-3"}, 0, 2) - CARD
    assert action_of({"card": "Fate-3", "depth": 2}, 0, 2) == COPY + fate3
    assert action_of({"card": "Fate-3", "depth": 7}, 1, 3) == COPY + fate3
    assert ACTION_NAMES[COPY + fate3] == "card Fate-3 (other copy)"
    assert ACTION_NAMES[COPY - 1] == "throw scissors" and len(ACTION_NAMES) == N_ACTIONS


def test_targets_are_relative_to_the_asking_seat() -> None:
    assert action_of({"seat": 1}, 0, 4) == TARGET + 1
    assert action_of({"seat": 0}, 3, 4) == TARGET + 1
    assert ACTION_NAMES[TARGET + 1] == "target seat +1"


def test_decision_actions_follow_the_options() -> None:
    state = new_game(GameConfig(seed=1))
    decision = state.decision
    assert decision is not None
    actions = decision_actions(decision, 2)
    assert actions[0] == PASS and len(actions) == len(decision.options)


def test_an_action_outside_the_mask_is_refused_with_its_name() -> None:
    with pytest.raises(IllegalChoiceError, match=r"action 1 \(play God-1\) is not legal here"):
        option_of([0, 5], 1)


def test_an_option_the_engine_never_offers_is_refused() -> None:
    with pytest.raises(ValueError, match="no action index"):
        action_of({"dance": True}, 0, 2)


def test_the_docs_name_every_decision_that_can_pass() -> None:
    """docs/LEARNING.md's row for action 0 lists each decision kind that offers it."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "LEARNING.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| 0 | pass"))
    passing = set()
    for seed in range(120):
        state = new_game(GameConfig(players=("a", "b", "c"), seed=seed, track_events=False))
        chooser = random.Random(seed)
        while state.decision is not None:
            decision = state.decision
            if PASS in decision_actions(decision, 3):
                passing.add(decision.kind)
            state.apply(chooser.randrange(len(decision.options)))
    assert "give" in passing  # Tyche's exchange may be declined
    assert {kind for kind in passing if f"`{kind}`" not in row} == set()
