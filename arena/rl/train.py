"""Training the numpy policy: imitate a teacher bot, then sharpen by policy gradient.

Two stages, numpy only, every random draw from one seed:

1. **Imitation.** A teacher bot (``heuristic``) plays an opponent (``greedy``) in-process;
   each of the teacher's decisions becomes an example (the vector observation, the mask,
   the action it chose) and the policy fits them by masked softmax cross-entropy (Adam).
2. **Policy gradient.** The policy plays the opponent, sampling its actions; REINFORCE with
   the placement reward (minus a running baseline) moves it toward what won.

:func:`evaluate` measures a policy, or any bot or agent, as the referee's duplicate
matches do: every deal played from both seats, a shared place counting half.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.engine.agents import Agent, play_game
from arena.engine.config import GameConfig
from arena.engine.decision import Decision
from arena.engine.observation import Observation
from arena.errors import BotError
from arena.rl.actions import N_ACTIONS, decision_actions
from arena.rl.features import OBS_SIZE, encode
from arena.rl.opponents import Opponent, load_opponent
from arena.rl.policy import Policy
from arena.rl.view import placement_rewards
from arena.sdk.bot import Bot
from arena.sdk.local import BotAgent

__all__ = ["Examples", "Player", "PolicyAgent", "collect", "evaluate", "fit", "reinforce"]

Progress = Callable[[str], None]


def _agent(opponent: Opponent, seed: int) -> Agent:
    loaded = load_opponent(opponent)
    return BotAgent(loaded, seed=seed) if isinstance(loaded, Bot) else loaded


def _config(seed: int, players: int, start: int) -> GameConfig:
    return GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                      starting_seat=start, track_events=True)


class PolicyAgent:
    """An engine agent playing a policy: its best action, or (``rng`` given) one sampled
    from its softmax, remembering what it did for :func:`reinforce`."""

    reads_events = False

    def __init__(self, policy: Policy, rng: np.random.Generator | None = None) -> None:
        self.policy = policy
        self.rng = rng
        #: (vector, actions, chosen option) of each decision, when sampling
        self.trace: list[tuple[np.ndarray, list[int], int]] = []

    def choose(self, decision: Decision, observation: Observation) -> int:
        actions = decision_actions(decision, len(observation.players))
        x = encode(observation, decision.kind, decision.context)
        if self.rng is None:
            return self.policy.best(x, actions)
        logits = self.policy.logits(x)[actions]
        p = np.exp(logits - logits.max())
        index = int(self.rng.choice(len(actions), p=p / p.sum()))
        self.trace.append((x, actions, index))
        return index


class _Recorder:
    """Wraps an agent and keeps (vector, mask, action) of each of its decisions."""

    def __init__(self, inner: Agent, examples: Examples) -> None:
        self.inner = inner
        self.examples = examples
        self.reads_events = getattr(inner, "reads_events", True)

    def choose(self, decision: Decision, observation: Observation) -> int:
        index = self.inner.choose(decision, observation)
        actions = decision_actions(decision, len(observation.players))
        self.examples.add(encode(observation, decision.kind, decision.context), actions,
                          actions[index])
        return index

    def game_over(self, state: Any, seat: int) -> None:
        over = getattr(self.inner, "game_over", None)
        if over is not None:
            over(state, seat)


@dataclass
class Examples:
    """Decisions to imitate: vectors, masks (legal actions) and the chosen actions."""

    vectors: list[np.ndarray]
    masks: list[list[int]]
    chosen: list[int]

    def add(self, vector: np.ndarray, actions: list[int], action: int) -> None:
        self.vectors.append(vector)
        self.masks.append(actions)
        self.chosen.append(action)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = np.stack(self.vectors) if self.vectors else np.zeros((0, OBS_SIZE), np.float32)
        mask = np.zeros((len(self.masks), N_ACTIONS), bool)
        for row, actions in enumerate(self.masks):
            mask[row, actions] = True
        return x, mask, np.asarray(self.chosen, np.int64)


def collect(teacher: Opponent, opponent: Opponent, games: int, seed: int,
            players: int = 2) -> Examples:
    """The teacher's decisions over ``games`` games against copies of ``opponent``, the
    teacher's seat and the starting seat varying game by game."""
    examples = Examples([], [], [])
    rng = random.Random(seed)
    recorder = _Recorder(_agent(teacher, rng.getrandbits(63)), examples)
    others = [_agent(opponent, rng.getrandbits(63)) for _ in range(players - 1)]
    for game in range(games):
        seat = game % players
        agents: list[Agent] = list(others)
        agents.insert(seat, recorder)
        play_game(_config(rng.getrandbits(63), players, rng.randrange(players)), agents)
    return examples


class _Adam:
    def __init__(self, params: Sequence[np.ndarray], lr: float) -> None:
        self.params = list(params)
        self.lr = lr
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def step(self, grads: Sequence[np.ndarray]) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= self.lr * (m / (1 - 0.9 ** self.t)) / (np.sqrt(v / (1 - 0.999 ** self.t))
                                                        + 1e-8)


def _gradients(policy: Policy, x: np.ndarray, mask: np.ndarray,
               weight: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Gradients of -sum(weight * log softmax) over the rows, and the softmax; ``weight``
    is a (rows, actions) array: the target's one-hot (imitation) or the advantage on the
    taken action (policy gradient)."""
    h = policy.hidden(x)
    logits = h @ policy.w2 + policy.b2
    logits = np.where(mask, logits, -1e9)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    d_logits = (p * weight.sum(axis=1, keepdims=True) - weight) / len(x)
    d_h = (d_logits @ policy.w2.T) * (h > 0)
    grads = [x.T @ d_h, d_h.sum(axis=0), h.T @ d_logits, d_logits.sum(axis=0)]
    return [g.astype(np.float32) for g in grads], p


def fit(policy: Policy, examples: Examples, epochs: int, seed: int, lr: float = 1e-3,
        batch: int = 256, progress: Progress | None = None) -> float:
    """Fit ``policy`` to the examples; returns the last epoch's accuracy."""
    x, mask, chosen = examples.arrays()
    rng = np.random.default_rng(seed)
    adam = _Adam([policy.w1, policy.b1, policy.w2, policy.b2], lr)
    accuracy = 0.0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        right = 0
        for at in range(0, len(x), batch):
            rows = order[at:at + batch]
            target = np.zeros((len(rows), N_ACTIONS), np.float32)
            target[np.arange(len(rows)), chosen[rows]] = 1.0
            grads, p = _gradients(policy, x[rows], mask[rows], target)
            right += int((p.argmax(axis=1) == chosen[rows]).sum())
            adam.step(grads)
        accuracy = right / max(len(x), 1)
        if progress is not None:
            progress(f"imitation epoch {epoch + 1}/{epochs}: accuracy {accuracy:.3f}")
    return accuracy


def reinforce(policy: Policy, opponent: Opponent, games: int, seed: int, lr: float = 1e-4,
              batch_games: int = 32, progress: Progress | None = None) -> float:
    """REINFORCE against ``opponent`` at 2 players; returns the mean reward of the run."""
    rng = random.Random(seed)
    learner = PolicyAgent(policy, np.random.default_rng(seed))
    other = _agent(opponent, rng.getrandbits(63))
    adam = _Adam([policy.w1, policy.b1, policy.w2, policy.b2], lr)
    baseline, total = 0.0, 0.0
    rows: list[tuple[np.ndarray, list[int], int, float]] = []
    for game in range(games):
        seat = game % 2
        agents: list[Agent] = [other, learner] if seat else [learner, other]
        learner.trace = []
        state = play_game(_config(rng.getrandbits(63), 2, rng.randrange(2)), agents)
        assert state.result is not None
        reward = placement_rewards(state.result.placements)[seat]
        total += reward
        rows += [(x, actions, index, reward - baseline) for x, actions, index in learner.trace]
        baseline += 0.02 * (reward - baseline)
        if (game + 1) % batch_games == 0 and rows:
            _policy_step(policy, adam, rows)
            rows = []
            if progress is not None and (game + 1) % (batch_games * 10) == 0:
                progress(f"policy gradient game {game + 1}/{games}: mean reward "
                         f"{total / (game + 1):+.3f}")
    return total / max(games, 1)


def _policy_step(policy: Policy, adam: _Adam,
                 rows: list[tuple[np.ndarray, list[int], int, float]]) -> None:
    x = np.stack([row[0] for row in rows])
    mask = np.zeros((len(rows), N_ACTIONS), bool)
    weight = np.zeros((len(rows), N_ACTIONS), np.float32)
    for i, (_, actions, index, advantage) in enumerate(rows):
        mask[i, actions] = True
        weight[i, actions[index]] = advantage
    grads, _ = _gradients(policy, x, mask, weight)
    adam.step(grads)


#: What :func:`evaluate` measures: a policy, or anything the environments take as an opponent.
Player = Policy | Opponent


def evaluate(player: Player, opponent: Opponent, deals: int, seed: int) -> tuple[float, int]:
    """(score, games) of ``player`` against ``opponent`` at 2 players over ``deals`` deals,
    each played from both seats (duplicate): placed ahead scores 1, a shared place 1/2.

    ``player`` is a :class:`Policy` (its best action) or whatever the environments take as
    an opponent: a bot's name or path, a kit :class:`Bot`, an engine agent. The same seed
    deals the same games whoever plays them, and replays kit bots' random choices (an
    engine agent keeps its own randomness)."""
    if player is opponent and not isinstance(player, str | Path):
        raise BotError("the player and the opponent are one object, which cannot keep two "
                       "seats' games apart: give each its own (a name loads a bot anew)")
    rng = random.Random(seed)
    # the player's seed is drawn apart, so its deals are those a policy plays at this seed
    learner = (PolicyAgent(player) if isinstance(player, Policy)
               else _agent(player, random.Random(f"player {seed}").getrandbits(63)))
    other = _agent(opponent, rng.getrandbits(63))
    score = 0.0
    for _ in range(deals):
        deal_seed, start = rng.getrandbits(63), rng.randrange(2)
        for seat in (0, 1):
            agents: list[Agent] = [other, learner] if seat else [learner, other]
            state = play_game(_config(deal_seed, 2, start), agents)
            assert state.result is not None
            mine, theirs = state.result.placements[seat], state.result.placements[1 - seat]
            score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return score, 2 * deals
