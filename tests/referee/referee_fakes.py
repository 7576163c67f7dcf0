"""Scripted, in-process bots behind the referee's Connection interface.

No process, no pipe, no clock: a fake answers at once or not at all, so a "timeout" costs no
wall time and the referee's rules are tested exactly and fast. Real processes are covered by
the end-to-end tests with the sandbox.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.protocol.schema import validate
from arena.referee.connection import Ended, Received
from arena.sandbox import Limits

#: What a responder returns for an ``act``: an int (a proper action with that choice), bytes
#: (raw lines to send), None (no answer: a timeout), "crash", "overflow" or "oom".
Response = int | bytes | None | str
Responder = Callable[[dict[str, Any]], Response]

FAST = Limits(decision_ms=200, time_bank_ms=0, startup_ms=500, bye_grace_ms=100, max_strikes=3)


def first_option(message: dict[str, Any]) -> Response:
    return 0


def random_responder(seed: int = 0) -> Responder:
    rng = random.Random(seed)

    def respond(message: dict[str, Any]) -> Response:
        return rng.randrange(len(message["legal"]))

    return respond


@dataclass
class FakeConnection:
    """One fake bot process."""

    respond: Responder = first_option
    ready: bytes | None = b'{"type":"ready","name":"fake","last_read_page":"2026-01-01"}\n'
    exit_on_bye: bool = True
    on_message: Callable[[dict[str, Any]], None] | None = None
    pid: int | None = 4242
    level: str = "fake"
    marker: str | None = None
    sent: list[dict[str, Any]] = field(default_factory=list)
    queue: list[Received] = field(default_factory=list)
    closed: bool = False
    exit_code: int | None = None
    memory: bool = False
    killed: bool = False
    log: str = ""
    #: Whether the referee has the bot stopped now, and how often it stopped it.
    paused: bool = False
    pauses: int = 0
    #: Messages written while the bot was stopped: it answers them once continued.
    unanswered: list[dict[str, Any]] = field(default_factory=list)
    #: What the bot logs when asked for its stack, and how often it was asked.
    stack: str = ""
    stack_dumps: int = 0
    #: Bytes the bot wrote that no newline ended (an answer never finished).
    unended: int = 0
    #: Reads that time out before the answers queued are read (answers after the deadline).
    late: int = 0
    #: The CPU (seconds) it used since it was stopped, read after read (the last repeats);
    #: and how often it was read.
    cpu_readings: list[float] = field(default_factory=list)
    cpu_reads: int = 0

    def send(self, data: bytes) -> bool:
        if self.closed:
            return False
        for raw in data.splitlines():
            message = json.loads(raw)
            # Every message the referee sends must match its published schema.
            assert validate(message) == [], (validate(message), message)
            self.sent.append(message)
            if self.on_message is not None:
                self.on_message(message)
            if self.paused:
                self.unanswered.append(message)
            else:
                self._react(message)
        return True

    def _react(self, message: dict[str, Any]) -> None:
        if not self.closed:
            kind = message["type"]
            if kind == "hello" and self.ready is not None:
                self.queue.append(Received("line", self.ready))
            elif kind == "act":
                self._answer(message, self.respond(message))
            elif kind == "bye" and self.exit_on_bye:
                self._exit(0)

    def _answer(self, message: dict[str, Any], response: Response) -> None:
        if isinstance(response, bool):
            raise TypeError("responder returned a bool")
        if isinstance(response, int):
            line = b'{"type":"action","id":%d,"choice":%d}\n' % (message["id"], response)
            self.queue.append(Received("line", line))
        elif isinstance(response, bytes):
            for raw in response.splitlines():
                self.queue.append(Received("line", raw))
        elif response == "crash":
            self.log += "Traceback: boom\n"
            self._exit(1)
        elif response == "oom":
            self.memory = True
            self._exit(-9)
        elif response == "overflow":
            self.queue.append(Received("overflow"))

    def _exit(self, code: int) -> None:
        self.closed = True
        self.exit_code = code

    def receive(self, deadline: float) -> Received:
        if self.paused and not self.closed:
            raise AssertionError("waited for an answer of a stopped bot")
        if self.late and not self.closed:
            self.late -= 1
            return Received("timeout")
        if self.queue:
            return self.queue.pop(0)
        return Received("closed") if self.closed else Received("timeout")

    def ended(self, wait_s: float) -> Ended | None:
        if not self.closed:
            return None
        if self.killed:
            return Ended("killed by the referee", None, False, self.memory)
        return Ended(f"exit code {self.exit_code}", self.exit_code, True, self.memory)

    def stderr_text(self) -> str:
        return self.log

    def stderr_since(self, mark: int) -> tuple[str, int]:
        return self.log[mark:], len(self.log)

    def shutdown(self, grace_s: float) -> Ended:
        if not self.closed:
            self.killed = True
            self.closed = True
        ended = self.ended(0)
        assert ended is not None
        return ended

    def kill(self) -> None:
        if not self.closed:
            self.killed = True
            self.closed = True

    def kill_from_elsewhere(self) -> None:
        self.kill()

    def unterminated(self) -> int:
        return self.unended

    def pause(self) -> None:
        self.paused = True
        self.pauses += 1

    def resume(self) -> None:
        self.paused = False
        waiting, self.unanswered = self.unanswered, []
        for message in waiting:
            self._react(message)

    def cpu_since_pause(self) -> float | None:
        if not self.paused or not self.cpu_readings:
            return None
        self.cpu_reads += 1
        return (self.cpu_readings.pop(0) if len(self.cpu_readings) > 1
                else self.cpu_readings[0])

    def dump_stack(self, wait_s: float) -> str:
        self.stack_dumps += 1
        self.log += self.stack
        return self.stack

    def acts(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m["type"] == "act"]


class FakeLauncher:
    """Launches fake bots from a factory; remembers every connection it made."""

    def __init__(self, factory: Callable[[], FakeConnection] | Sequence[FakeConnection],
                 fail: bool = False) -> None:
        self.factory = factory
        self.made: list[FakeConnection] = []
        self.fail = fail

    def __call__(self, command: Sequence[str], workdir: Any, limits: Any) -> FakeConnection:
        if self.fail:
            raise OSError("no such interpreter")
        if callable(self.factory):
            conn = self.factory()
        else:
            conn = self.factory[len(self.made)]
        self.made.append(conn)
        return conn


def fake_spec(name: str, tmp: Path | None = None) -> Any:
    """A BotSpec whose files do not matter (the fake launcher ignores them)."""
    from arena.registry import BotSpec

    return BotSpec(name=name, version="0" * 12, path=tmp or Path("."), command=("fake",))
