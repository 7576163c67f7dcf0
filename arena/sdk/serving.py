"""The bot kit's protocol loop: answers ``hello`` and every ``act``, forwards the other messages
to the bot's hooks (see :mod:`arena.sdk.runner`, which starts it).

Compiled with mypyc where the bot's Python can load the build (it runs once per line the
referee sends, so its cost is in every decision's round trip); the Python source otherwise.
Standard library only (plus :mod:`arena.sdk`), so it runs under the sandbox's interpreter.
"""

from __future__ import annotations

import json
import os
from typing import Any, BinaryIO

from arena.sdk.bot import Bot, GameEnd, GameStart, Request, as_index
from arena.sdk.line_request import ACT_HEAD, LineRequest, loads, stash_line

__all__ = ["serve"]

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _writer(fd: int) -> Any:
    def write(data: bytes) -> None:
        written = os.write(fd, data)
        if written < len(data):  # a pipe takes small writes whole; this is the rare rest
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(fd, view):]
    return write


def _odd_answer(bot: Bot, id_: int, choice: object) -> bytes:
    """The answer line for an ``act()`` result that is not a plain int (:func:`as_index`):
    anything that is no index is logged and sent as a null choice, which the referee counts
    as a protocol error (a strike)."""
    index = as_index(choice)
    if index is not None:
        return b'{"type":"action","id":%d,"choice":%d}\n' % (id_, index)
    bot.log(f"[runner] act() returned {choice!r} ({type(choice).__name__}), not an int index "
            "into request.legal: sent as no choice, which the referee counts as a strike")
    return b'{"type":"action","id":%d,"choice":null}\n' % id_


def serve(bot: Bot, infile: BinaryIO, out_fd: int) -> int:
    """Speak protocol v1 for ``bot`` until ``bye`` or end of input; returns the exit code."""
    write = _writer(out_fd)
    os_write = os.write
    seat = -1
    act: Any = bot.act  # whatever bot code returns is judged below (compiled code checks types)
    # Most events go unread by simple bots: skip decoding them unless the bot listens.
    skip_events = type(bot).on_event is Bot.on_event
    # An act is decoded only if the bot reads it: a lazy request until the bot has read
    # one, then decoded at once (the bot reads them; laziness would only cost it).
    lazy = True
    act_head = ACT_HEAD.match
    new_lazy, stash = LineRequest.__new__, stash_line
    for line in iter(infile.readline, b""):
        if skip_events and line.startswith(b'{"type":"event",'):
            continue
        if lazy and (head := act_head(line)) is not None:
            id_ = int(head[1])
            pending: Request = new_lazy(LineRequest)
            pending.id, pending.kind, pending.seat = id_, head[2].decode(), seat
            stash(pending, line)
            choice = act(pending)
            lazy = type(pending) is LineRequest
            answer = (b'{"type":"action","id":%d,"choice":%d}\n' % (id_, choice)
                      if type(choice) is int else _odd_answer(bot, id_, choice))
            written = os_write(out_fd, answer)
            if written < len(answer):
                write(answer[written:])
            continue
        try:
            message = loads(line)
        except ValueError:
            bot.log(f"[runner] ignoring a line that is not JSON: {line[:80]!r}")
            continue
        if type(message) is not dict:
            continue
        kind = message.get("type")
        if kind == "act":
            asked: Any = message["id"]  # as sent (always an int from the referee)
            request = Request(asked, message["decision"], message["observation"],
                              message["legal"], message.get("time_ms"),
                              message.get("context") or {}, seat)
            choice = act(request)
            write(b'{"type":"action","id":%d,"choice":%d}\n' % (asked, choice)
                  if type(choice) is int else _odd_answer(bot, asked, choice))
        elif kind == "event":
            bot.on_event(message.get("event") or {})
        elif kind == "hello":
            options = message.get("options")
            bot.configure(dict(options) if isinstance(options, dict) else {})
            metadata: Any = bot.metadata()
            write((_dumps({"type": "ready", "protocol": 1, **metadata}) + "\n").encode())
        elif kind == "game_start":
            seat = int(message.get("seat", -1))
            sent_seed: Any = message.get("bot_seed")
            seed = int(sent_seed) if isinstance(sent_seed, int) else None
            bot.seed(seed)
            bot.on_game_start(GameStart(
                game=int(message.get("game", 0)), seat=seat,
                players=list(message.get("players", [])),
                starting_seat=int(message.get("starting_seat", 0)),
                rounds=int(message.get("rounds", 0)), raw=message, bot_seed=seed))
        elif kind == "game_end":
            bot.on_game_end(GameEnd(
                game=int(message.get("game", 0)),
                placements=list(message.get("placements", [])),
                desmos=list(message.get("desmos", [])),
                ascension=bool(message.get("ascension", False)),
                tiebreak=str(message.get("tiebreak", "")),
                forfeits={int(k): str(v) for k, v in (message.get("forfeits") or {}).items()},
                raw=message))
            seat = -1
        elif kind == "bye":
            return 0
        # Unknown types are ignored: that is how protocol v1 grows.
    return 0
