"""A learned policy from every seat: :func:`arena.rl.policy.choose` (what the learned bot
plays) reads options as the environments number them whatever its seat, and
:func:`arena.rl.train.collect` has the teacher play from every seat and records its choices."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")

from arena.engine import GameConfig, new_game  # noqa: E402
from arena.rl.actions import TARGET, decision_actions  # noqa: E402
from arena.rl.features import encode  # noqa: E402
from arena.rl.policy import Policy, choose  # noqa: E402
from arena.rl.train import collect  # noqa: E402
from arena.sdk import Bot, GameStart, Request  # noqa: E402


def test_choose_plays_the_environments_best_action_from_every_seat() -> None:
    policy = Policy.initial(16, seed=3)
    targeted = set()
    for seed in range(6):
        state = new_game(GameConfig(players=("a", "b", "c"), seed=seed))
        rng = random.Random(seed)
        while (decision := state.decision) is not None:
            observation = state.observe(decision.seat)
            actions = decision_actions(decision, state.n)
            expected = policy.best(encode(observation, decision.kind, decision.context),
                                   actions)
            assert choose(policy, observation, decision.kind, decision.options,
                          decision.context) == expected
            if any(TARGET <= action < TARGET + 5 for action in actions):
                targeted.add(decision.seat)
            state.apply(rng.randrange(len(decision.options)))
    assert targeted == {0, 1, 2}  # seat choices were met from every seat


class _Teacher(Bot):
    def __init__(self) -> None:
        self.seats: list[int] = []

    def on_game_start(self, game: GameStart) -> None:
        self.seats.append(game.seat)

    def act(self, request: Request) -> int:
        return 0


def test_the_teacher_plays_from_every_seat_when_collecting() -> None:
    teacher = _Teacher()
    collect(teacher, "random", games=6, seed=1, players=3)
    assert sorted(teacher.seats) == [0, 0, 1, 1, 2, 2]


class _Last(Bot):
    def act(self, request: Request) -> int:
        return len(request.legal) - 1


def test_collect_records_the_action_the_teacher_chose() -> None:
    examples = collect(_Last(), "random", games=2, seed=1)
    assert examples.chosen and examples.chosen == [actions[-1] for actions in examples.masks]
