"""A small numpy policy: a two-layer network from the vector observation to action logits.

The training script (:mod:`arena.rl.train`) fits it and saves it as an ``.npz``; the
learned bot (``bots/learned``) loads the file and plays it: both read observations through
:func:`arena.rl.features.encode` and legal options through :mod:`arena.rl.actions`, which
the kit ships into the sandbox with this module. numpy only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arena.engine.houserules import DEFAULT_RULES, RULE_CHOICES, HouseRules
from arena.engine.observation import Observation
from arena.rl.actions import CARD, COPY, FACES, N_ACTIONS, action_of
from arena.rl.features import OBS_SIZE, OFFSET, encode

__all__ = ["Policy", "choose"]

#: The arrays a weights file holds, and their roles: hidden layer, output layer.
WEIGHTS = ("w1", "b1", "w2", "b2")
#: The house rules of the game before a weights file named its own (``meta_rules``).
RULES_BEFORE_META = ("kinds", "dealt_palaestron", "reclaim", "trap_windows")


class Policy:
    """``logits = relu(x @ w1 + b1) @ w2 + b2``, one logit per action; illegal actions are
    masked out before the softmax."""

    def __init__(self, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
                 meta: Mapping[str, Any] | None = None) -> None:
        if w2.shape[1] == COPY == b2.shape[0]:
            w2, b2 = _with_copy_actions(w2, b2)
        if w1.shape[0] != OBS_SIZE or w2.shape[1] != N_ACTIONS:
            raise ValueError(f"weights for {w1.shape[0]} features and {w2.shape[1]} actions; "
                             f"this kit has {OBS_SIZE} and {N_ACTIONS}")
        self.w1, self.b1, self.w2, self.b2 = w1, b1, w2, b2
        self.meta = dict(meta or {})

    @classmethod
    def initial(cls, hidden: int, seed: int) -> Policy:
        """Small random weights (He initialisation for the hidden layer)."""
        rng = np.random.default_rng(seed)
        w1 = rng.normal(0.0, np.sqrt(2.0 / OBS_SIZE), (OBS_SIZE, hidden)).astype(np.float32)
        w2 = rng.normal(0.0, 0.01, (hidden, N_ACTIONS)).astype(np.float32)
        return cls(w1, np.zeros(hidden, np.float32), w2, np.zeros(N_ACTIONS, np.float32))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    def hidden(self, x: np.ndarray) -> np.ndarray:
        result: np.ndarray = np.maximum(x @ self.w1 + self.b1, 0.0)
        return result

    def logits(self, x: np.ndarray) -> np.ndarray:
        result: np.ndarray = self.hidden(x) @ self.w2 + self.b2
        return result

    def best(self, x: np.ndarray, actions: Sequence[int]) -> int:
        """The option index (into ``actions``) with the highest logit."""
        scores = self.logits(x)[list(actions)]
        return int(np.argmax(scores))

    def save(self, path: str | Path, **meta: Any) -> None:
        """Write the weights and ``meta`` (seed, games, ...) to an ``.npz`` file, with the
        house rules its features know (``meta["rules"]``, their names in order)."""
        arrays: dict[str, Any] = self.arrays()
        everything = {**self.meta, **meta, "rules": ",".join(RULE_CHOICES)}
        arrays.update({f"meta_{key}": np.asarray(value) for key, value in everything.items()})
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> Policy:
        """The network in ``path``; weights trained before a house rule was added still load
        (:func:`_with_rules_of_now`). Any other change of the features is refused in one line."""
        path = Path(path)
        with np.load(path) as data:
            w1, b1, w2, b2 = (np.asarray(data[name], np.float32) for name in WEIGHTS)
            meta = {key[5:]: data[key].item() for key in data.files if key.startswith("meta_")}
        trained = tuple(str(meta.get("rules", ",".join(RULES_BEFORE_META))).split(","))
        return cls(_with_rules_of_now(w1, trained, path.name), b1, w2, b2, meta=meta)


def _with_rules_of_now(w1: np.ndarray, trained: Sequence[str], name: str) -> np.ndarray:
    """``w1`` fitted to the house rules of this kit, from those it was ``trained`` knowing.

    A rule added since is one more input, 1 only where a game reads the rule otherwise than
    by default: a zero row for it plays every game at the default reading exactly as
    trained, and a game at another reading as if at the default, the only one the weights
    know. Rules are matched by name, so a rule added anywhere in the list works."""
    rules = tuple(RULE_CHOICES)
    gone = [rule for rule in trained if rule not in rules]
    if gone or w1.shape[0] != OBS_SIZE - len(rules) + len(trained):
        why = f" (house rule {gone[0]} is gone)" if gone else ""
        raise ValueError(f"{name} was trained on {w1.shape[0]} features and this arena has "
                         f"{OBS_SIZE}{why}: train it again (docs/LEARNING.md)")
    if tuple(trained) == rules:
        return w1
    start = OFFSET["RULES"]
    fitted = np.zeros((OBS_SIZE, w1.shape[1]), np.float32)
    fitted[:start] = w1[:start]
    for i, rule in enumerate(rules):
        if rule in trained:
            fitted[start + i] = w1[start + list(trained).index(rule)]
    fitted[start + len(rules):] = w1[start + len(trained):]
    return fitted


def _with_copy_actions(w2: np.ndarray, b2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weights trained before the ``COPY`` actions (the last block) existed, extended: the
    other copy of a card scores as the card did, so those weights still load and play."""
    w2 = np.concatenate([w2, w2[:, CARD:CARD + FACES]], axis=1)
    return w2, np.concatenate([b2, b2[CARD:CARD + FACES]])


def choose(policy: Policy, observation: Observation, kind: str,
           legal: Sequence[Mapping[str, Any]], context: Mapping[str, Any] | None = None,
           rules: HouseRules = DEFAULT_RULES) -> int:
    """The option index ``policy`` plays for a decision (what a bot's ``act`` returns)."""
    seat = observation.seat
    players = len(observation.players)
    actions = [action_of(dict(option), seat, players) for option in legal]
    return policy.best(encode(observation, kind, context, rules), actions)
