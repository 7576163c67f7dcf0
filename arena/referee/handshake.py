"""A bot's handshake: the ``hello`` it is sent at each start (its limits and options) and the
``ready`` it must answer within the start-up time, read and judged (docs/PROTOCOL.md).
:class:`~arena.referee.lifecycle.BotLifecycle` does it at every launch and rematch."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from arena.errors import ProtocolError
from arena.protocol import messages
from arena.referee.connection import OUT_OF_TIME, Connection, Received, overflow_detail
from arena.referee.hints import NO_READY_HINT, hinted, says_something, stdout_note
from arena.referee.timeouts import ignored_note, unended_note
from arena.sandbox import Limits

__all__ = ["Ready", "hello_line", "judge_ready"]


class Ready(NamedTuple):
    """What a valid ``ready`` said: the bot's own name and metadata, whether it offers its
    process for later matches, and whether it dumps its stack on SIGUSR1."""

    name: str
    metadata: dict[str, Any]
    offers_rematch: bool
    stack_dump: bool


def hello_line(limits: Limits, options: Mapping[str, Any]) -> bytes:
    """The ``hello`` a bot is sent: the limits it plays under and its entry's options."""
    told = {"decision_ms": limits.decision_ms, "time_bank_ms": limits.time_bank_ms,
            "startup_ms": limits.startup_ms, "max_strikes": limits.max_strikes,
            "bye_grace_ms": limits.bye_grace_ms, "line_bytes": limits.line_bytes}
    return messages.hello(told, options=options)


def judge_ready(conn: Connection, got: Received, deadline: float, limits: Limits,
                ended_how: Callable[[], str],
                now: Callable[[], float]) -> Ready | str:
    """The answer to ``hello`` from its first read ``got`` (lines of a later protocol's
    types skipped until ``deadline``): a valid ``ready``, else what went wrong (``ended_how``:
    how the process ended, said of one that exited; ``now``: the time source ``deadline`` is
    measured by)."""
    ignored = None
    while got.kind == "line" and (seen := messages.unknown_type(got.data)) is not None:
        # A later protocol version's message; a flood of them does not stop the clock.
        ignored = ignored or seen
        got = conn.receive(deadline) if now() < deadline else OUT_OF_TIME
    if got.kind == "timeout":
        noted = unended_note(conn.unterminated()) + ignored_note(ignored, "ready")
        return f"no 'ready' within {limits.startup_ms} ms{noted or NO_READY_HINT}"
    if got.kind == "overflow":
        return ("answered 'hello' with more than the output limit: "
                f"{overflow_detail(got, limits.line_bytes)}")
    if got.kind == "closed":
        return "exited before answering 'hello'" + ended_how()
    try:
        message = messages.decode(got.data)
        name, metadata = messages.parse_ready(message)
    except ProtocolError as exc:
        # a runtime that failed says so on stdout and its reason on stderr as it exits: how
        # it ended is waited for (briefly), so the log its failure quotes holds the reason,
        # and what it wrote on stdout after its first line is there to read
        ended = ended_how()
        return f"bad answer to 'hello': {hinted(exc)}{ended}{stdout_note(*_written(conn, now))}"
    return Ready(name, metadata, messages.offers_rematch(message),
                 messages.offers_stack_dump(message))


#: Lines read, at most, of what a bot wrote after a bad answer (a bot that keeps writing
#: does not keep the referee reading), and of those, the lines kept that say something.
_LINES_READ = 2000
_LINES_KEPT = 50


def _written(conn: Connection, now: Callable[[], float]) -> tuple[list[bytes], int, bool]:
    """The last lines that say something of those the bot has written and the referee not
    read yet, without waiting for more; how many said something; whether lines were still
    coming when the reading stopped."""
    kept: deque[bytes] = deque(maxlen=_LINES_KEPT)
    said = 0
    for _ in range(_LINES_READ):
        got = conn.receive(now())
        if got.kind != "line":
            return list(kept), said, False
        if says_something(got.data):
            kept.append(got.data)
            said += 1
    return list(kept), said, conn.receive(now()).kind == "line"
