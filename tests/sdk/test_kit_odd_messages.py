"""What a kit bot is handed for a referee's message that is odd (another implementation of
the protocol, a test harness, a person typing at the runner): a field missing or of another
type takes its default, never another type in the bot's hooks (docs/BOTS.md)."""

from __future__ import annotations

import io
import json
import os
from typing import Any

from arena.protocol import messages
from arena.sdk import Bot, GameStart, Request
from arena.sdk.serving import serve


class Hooks(Bot):
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def configure(self, options: dict[str, Any]) -> None:
        self.calls.append(("configure", options))

    def on_game_start(self, game: GameStart) -> None:
        self.calls.append(("game_start", (game.game, game.seat, game.starting_seat,
                                          game.rounds, game.bot_seed)))

    def on_event(self, event: dict[str, Any]) -> None:
        self.calls.append(("event", event))

    def act(self, request: Request) -> int:
        self.calls.append(("act", (request.kind, request.time_ms, request.context)))
        return 0


def served(lines: list[bytes]) -> list[tuple[str, Any]]:
    read, write = os.pipe()
    bot = Hooks()
    assert serve(bot, io.BytesIO(b"".join(lines)), write) == 0
    os.close(write)
    os.close(read)
    return bot.calls


def test_odd_fields_reach_the_hooks_as_their_defaults() -> None:
    calls = served([
        b'{"type":"hello","protocol":1,"options":["depth",3]}\n',
        b'{"type":"game_start","game":true,"seat":false,"starting_seat":1.0,"rounds":"5",'
        b'"bot_seed":true}\n',
        b'{"type":"event"}\n', b'{"type":"event","event":null}\n',
        b'{"type": "act", "id": 2, "decision": 7, "time_ms": true, "context": [1],'
        b' "legal": {}}\n',
        messages.bye()])
    assert calls == [("configure", {}), ("game_start", (0, -1, 0, 0, None)),
                     ("event", {}), ("event", {}), ("act", ("", None, {}))]


def test_a_type_the_kit_does_not_know_reaches_no_hook_and_gets_no_answer() -> None:
    """Unknown types are a later version's (docs/PROTOCOL.md): a type that only looks like a
    known one is none of them."""
    start = messages.game_start(0, 0, ["a", "b"], 0, 5)
    act = messages.act(4, "turn", {}, [{"a": 1}])
    lines = [start.replace(b'"type":"game_start"', b'"type":"game_start_v2"'),
             act.replace(b'"type":"act"', b'"type":"Act"'),
             act.replace(b'"type":"act"', b'"type":"actions"')]
    read, write = os.pipe()
    bot = Hooks()
    assert serve(bot, io.BytesIO(b"".join([messages.hello(), *lines, messages.bye()])),
                 write) == 0
    os.close(write)
    with os.fdopen(read, "rb") as out:
        assert [json.loads(line)["type"] for line in out.read().splitlines()] == ["ready"]
    assert bot.calls == [("configure", {})]
