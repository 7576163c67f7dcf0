"""Learned: a small neural policy trained here (numpy only), no search, no hand-written rules.

It reads each decision the way the training environments do (arena.rl.features,
arena.rl.actions: the kit ships them into the sandbox, so the bot plays on exactly the
features it was trained on) and plays the legal action with the highest logit of a two-layer
network. The weights (weights.npz) come from examples/train_learned.py with the seed in
SEED; docs/LEARNING.md tells how. A house rule added to the game since still lets them load
(``arena.rl.policy.Policy.load`` says why that is sound).
"""

from pathlib import Path

from arena.engine.houserules import DEFAULT_RULES
from arena.engine.observation import Observation
from arena.rl.policy import Policy, choose
from arena.sdk import Bot, GameStart, Request

WEIGHTS = Path(__file__).resolve().parent / "weights.npz"


class LearnedBot(Bot):
    name = "learned"
    author = "Palaestra Arena"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.policy = Policy.load(WEIGHTS)
        self.rules = DEFAULT_RULES

    def on_game_start(self, game: GameStart) -> None:
        self.rules = game.rules  # the features name them

    def act(self, request: Request) -> int:
        observation = Observation.from_json(request.observation, events=[])
        return choose(self.policy, observation, request.kind, request.legal, request.context,
                      self.rules)
