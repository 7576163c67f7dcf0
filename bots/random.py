"""The baseline: every choice uniformly at random among the legal options.

Run it alone with ``python -m arena.sdk.runner bots/random.py``; play it with
``arena match bots/random.py bots/greedy.py --games 10 --seed 1``.
"""

from arena.sdk import Bot, Request


class RandomBot(Bot):
    name = "random"
    author = "Palaestra Arena"
    version = "1"

    def act(self, request: Request) -> int:
        # self.rng is reseeded by the referee at every game: the same tournament replays
        return self.rng.randrange(len(request.legal))
