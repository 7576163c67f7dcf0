"""Test bot: always the first legal option (the safe default). Deterministic."""

from arena.sdk import Bot, Request


class FirstBot(Bot):
    name = "first"

    def act(self, request: Request) -> int:
        return 0
