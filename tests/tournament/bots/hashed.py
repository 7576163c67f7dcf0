"""Test bot: a pseudo-random choice hashed from what it sees, so it varies but replays
exactly (unlike an RNG seeded from the operating system)."""

import hashlib
import json

from arena.sdk import Bot, Request


class HashedBot(Bot):
    name = "hashed"

    def act(self, request: Request) -> int:
        text = json.dumps([request.kind, request.observation, request.legal], sort_keys=True)
        digest = hashlib.sha256(text.encode()).digest()
        return int.from_bytes(digest[:4], "big") % len(request.legal)
