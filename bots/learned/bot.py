"""Learned: a small neural policy trained here (numpy only), no search, no hand-written rules.

It reads each decision the way the training environments do (arena.rl.features,
arena.rl.actions: the kit ships them into the sandbox, so the bot plays on exactly the
features it was trained on) and plays the legal action with the highest logit of a two-layer
network. The weights (weights.npz) come from examples/train_learned.py with the seed in
SEED; docs/LEARNING.md tells how. A house rule added to the game since still lets them load
(``load_policy`` says why that is sound).
"""

from pathlib import Path

import numpy as np

from arena.engine.houserules import DEFAULT_RULES, RULE_CHOICES
from arena.engine.observation import Observation
from arena.rl.features import OBS_SIZE, OFFSET
from arena.rl.policy import WEIGHTS as ARRAYS
from arena.rl.policy import Policy, choose
from arena.sdk import Bot, GameStart, Request

WEIGHTS = Path(__file__).resolve().parent / "weights.npz"
#: The house rules the weights were trained knowing, in the order of the features' RULES
#: block (arena.rl.features): the rules of the game when they were trained.
TRAINED_RULES = ("kinds", "dealt_palaestron", "reclaim", "trap_windows")


def load_policy(path: Path) -> Policy:
    """The network in ``path``, its first layer fitted to the house rules this kit knows.

    A rule added to the game since the weights were trained is one more feature, 1 where a
    game reads the rule otherwise than by default: a zero row of ``w1`` for it plays every
    game at the default reading exactly as trained, and a game at another as if at the
    default, the only reading the weights know. Any other change of the features (a rule
    gone, a block grown) is refused in one line: the weights must be trained again."""
    with np.load(path) as data:
        w1, b1, w2, b2 = (np.asarray(data[name], np.float32) for name in ARRAYS)
        meta = {key[5:]: data[key].item() for key in data.files if key.startswith("meta_")}
    return Policy(_rules_fitted(w1, path.name), b1, w2, b2, meta=meta)


def _rules_fitted(w1: np.ndarray, name: str) -> np.ndarray:
    rules = tuple(RULE_CHOICES)
    gone = [rule for rule in TRAINED_RULES if rule not in rules]
    if gone or w1.shape[0] != OBS_SIZE - len(rules) + len(TRAINED_RULES):
        why = f" (house rule {gone[0]} is gone)" if gone else ""
        raise ValueError(f"{name} was trained on {w1.shape[0]} features and this arena has "
                         f"{OBS_SIZE}{why}: train it again (examples/train_learned.py, "
                         "docs/LEARNING.md)")
    if rules == TRAINED_RULES:
        return w1
    start = OFFSET["RULES"]
    fitted = np.zeros((OBS_SIZE, w1.shape[1]), np.float32)
    fitted[:start] = w1[:start]
    for i, rule in enumerate(rules):
        if rule in TRAINED_RULES:
            fitted[start + i] = w1[start + TRAINED_RULES.index(rule)]
    fitted[start + len(rules):] = w1[start + len(TRAINED_RULES):]
    return fitted


class LearnedBot(Bot):
    name = "learned"
    author = "Palaestra Arena"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.policy = load_policy(WEIGHTS)
        self.rules = DEFAULT_RULES

    def on_game_start(self, game: GameStart) -> None:
        self.rules = game.rules  # the features name them

    def act(self, request: Request) -> int:
        observation = Observation.from_json(request.observation, events=[])
        return choose(self.policy, observation, request.kind, request.legal, request.context,
                      self.rules)
