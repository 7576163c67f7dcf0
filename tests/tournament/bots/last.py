"""Test bot: always the last legal option. Deterministic."""

from arena.sdk import Bot, Request


class LastBot(Bot):
    name = "last"

    def act(self, request: Request) -> int:
        return len(request.legal) - 1
