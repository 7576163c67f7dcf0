"""Logs a token of its own process at every game (``process <token>``), so a test can tell
which process was dealt which deal; plays the first legal option."""

import os

from arena.sdk import Bot, GameStart, Request

TOKEN = os.urandom(8).hex()


class Spy(Bot):
    name = "spy"

    def on_game_start(self, game: GameStart) -> None:
        self.log(f"process {TOKEN}")

    def act(self, request: Request) -> int:
        return 0
