"""The bot kit's protocol loop: answers ``hello`` and every ``act``, forwards the other messages
to the bot's hooks (see :mod:`arena.sdk.runner`, which starts it).

Lines are read and written by :mod:`arena.protocol.messages`, the codec the referee uses too.
Decoding is paid only for what a bot uses: ``event`` lines are skipped unless the bot overrides
``on_event``, and an ``act`` is decoded when the bot first reads its request
(:class:`~arena.sdk.line_request.LineRequest`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Protocol

from arena.errors import ProtocolError
from arena.protocol import messages
from arena.sdk import stackdump
from arena.sdk.bot import Bot, GameEnd, GameStart, Request, as_index, not_an_index
from arena.sdk.line_request import LineRequest

__all__ = ["Lines", "serve"]


class Lines(Protocol):
    """Where protocol lines come from: a binary file, or the runner's reader of a terminal."""

    def readline(self) -> bytes:
        """The next line, ``b""`` at the end."""


def serve(bot: Bot, infile: Lines, out_fd: int,
          new_bot: Callable[[], Bot] | None = None, *, stack_dump: bool = False) -> int:
    """Speak protocol v1 for ``bot`` until ``bye`` or end of input; returns the exit code.

    With ``new_bot`` (and ``bot.rematch``), ``ready`` offers a rematch: a later ``hello``
    begins a new match with a bot from ``new_bot()``, so nothing on ``self`` carries over.
    ``stack_dump``: ``ready`` says the process dumps its stack on SIGUSR1 (the runner set
    that up), so the referee names the line a timed-out ``act()`` was stuck on."""
    seat = -1
    hellos = 0
    listens_to_events = type(bot).on_event is not Bot.on_event
    # Requests stay undecoded until the bot reads one; from then on they are decoded at once
    # (a bot that reads them would only pay for the laziness).
    lazy = True
    for line in iter(infile.readline, b""):
        if not listens_to_events and line.startswith(messages.EVENT_LINE_START):
            continue
        head = messages.act_head(line) if lazy else None
        if head is not None:
            id_, kind = head
            if stack_dump:
                stackdump.keep()
            request = LineRequest(id_, kind, seat, line)
            _answer(bot, request, out_fd)
            lazy = not request.decoded
            continue
        try:
            message = messages.decode(line)
        except ProtocolError:
            bot.log(f"[runner] ignoring a line that is no protocol message: {line[:80]!r}")
            continue
        kind = message["type"]
        if kind == "act" and not messages.is_integer(message.get("id")):
            bot.log(f"[runner] ignoring an 'act' without an integer 'id': {line[:80]!r}")
        elif kind == "act":
            if stack_dump:
                stackdump.keep()
            _answer(bot, Request(**messages.act_fields(message), seat=seat), out_fd)
        elif kind == "event":
            bot.on_event(message.get("event") or {})
        elif kind == "hello":
            if hellos and new_bot is not None:
                bot = new_bot()
            hellos += 1
            bot.configure(messages.hello_options(message))
            rematch = True if new_bot is not None and bot.rematch else None
            _write(out_fd, messages.ready(**bot.metadata(), rematch=rematch,
                                          stack_dump=True if stack_dump else None))
        elif kind == "game_start":
            fields = messages.game_start_fields(message)
            seat = fields["seat"]
            bot.seed(fields["bot_seed"])
            bot.on_game_start(GameStart(**fields, raw=message))
        elif kind == "game_end":
            bot.on_game_end(GameEnd(**messages.game_end_fields(message), raw=message))
            seat = -1
        elif kind == "bye":
            return 0
        # Unknown types are ignored: that is how protocol v1 grows.
    return 0


def _answer(bot: Bot, request: Request, out_fd: int) -> None:
    """Ask the bot and write its ``action``. A result that is no index is logged and sent as
    no choice, which the referee counts as a protocol error (a strike)."""
    id_ = request.id
    choice = bot.act(request)
    index = as_index(choice)
    if index is None:
        bot.log(f"[runner] {not_an_index(bot, choice, request.legal)}; sent as no choice "
                "(a strike)")
    _write(out_fd, messages.action(id_, index))


def _write(fd: int, data: bytes) -> None:
    """Write all of ``data`` (a pipe takes a small write whole; a large one may need more)."""
    while data:
        data = data[os.write(fd, data):]
