"""How protocol lines travel between the referee and one bot.

A transport sends JSON objects (or pre-encoded lines) and receives one line at a time against a
``time.monotonic()`` deadline. Whatever the bot does, ``receive`` returns by the deadline with
one of four outcomes, so the referee's loop has no blocking call and no exception path:

* ``Line(data)``  a complete line (raw bytes without the newline; ``.text`` decodes it); blank
  lines are skipped, never returned;
* ``Timeout()``   nothing complete arrived before the deadline;
* ``Closed(status)`` the bot closed stdout (``status`` says how the process ended, if it has);
* ``Overflow(limit, line)`` the bot wrote more than ``limit`` bytes in one line (``line``), or
  in all since the referee last wrote to it (blank lines, unterminated bytes and lines the
  referee ignores included); the transport stops reading that bot (every later ``receive``
  returns the same ``Overflow``).

The deadline holds whatever the bot writes: past it, one bounded read looks for an answer that
is already there, and the call returns. Every byte read counts against the budget, so a bot
streaming newlines or spaces ends in an ``Overflow`` (or a ``Timeout``) instead of keeping the
referee reading, and the work of one call is bounded by ``limit`` plus one read.

Writes never block either: stdin is non-blocking, and bytes a bot does not read yet are kept
and flushed on later calls (a bot that never reads simply times out).

``SubprocessTransport`` wraps a :class:`~arena.sandbox.SandboxedProcess` (the protocol layer
sits above the sandbox, docs/ARCHITECTURE.md); ``MockTransport`` plays a script, for referee
tests without processes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Union

from arena.protocol.messages import dumps, encode

if TYPE_CHECKING:
    from arena.sandbox.process import ExitStatus, SandboxedProcess

__all__ = [
    "Closed",
    "Line",
    "MockTransport",
    "Overflow",
    "Received",
    "SubprocessTransport",
    "Timeout",
    "Transport",
]

#: Bytes queued for a bot that does not read its stdin before the transport gives up on it.
MAX_PENDING_BYTES = 16 * 1024 * 1024
#: Bytes asked of one ``read``. CPython allocates the whole request up front; from 128 KiB on
#: that is an mmap and munmap per call.
_READ_BYTES = 65_536
#: Leading whitespace of the unread bytes: blank lines are skipped in one step, not one by one.
_BLANK = re.compile(rb"[ \t\n\r\x0b\x0c]*")


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line from the bot, without the trailing newline (``\r\n`` also ends a
    line). ``data`` is the raw bytes (``json.loads`` takes them directly; bytes that are not
    UTF-8 make it raise a ``ValueError``); ``text`` decodes them, bad bytes replaced."""

    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class Timeout:
    """The deadline passed before a complete line arrived."""


@dataclass(frozen=True, slots=True)
class Closed:
    """The bot closed its stdout (usually: it exited). ``status`` is None when unknown."""

    status: ExitStatus | None = None


@dataclass(frozen=True, slots=True)
class Overflow:
    """The bot wrote more than ``limit`` bytes: in one line when ``line``, else in all since the
    referee last wrote to it (blank lines included); nothing more is read from it."""

    limit: int
    line: bool = True


Received = Union[Line, Timeout, Closed, Overflow]  # noqa: UP007 - a runtime alias, py3.10 safe


class Transport(Protocol):
    """What the referee needs from a bot connection."""

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue one message (encoded as one JSON line) and write what the pipe takes now."""

    def send_line(self, line: bytes) -> None:
        """Queue one pre-encoded line (must end with ``\\n``)."""

    def receive(self, deadline: float) -> Received:
        """The next line, or why there is none, by ``deadline`` (``time.monotonic()``)."""

    def close(self) -> None:
        """Stop talking; further receives return ``Closed``."""

    def unterminated(self) -> int:
        """Bytes read that no newline has ended yet (a bot that forgot one)."""


class SubprocessTransport:
    """Non-blocking line I/O with a sandboxed bot process (see the module docstring)."""

    def __init__(self, process: SandboxedProcess, *, line_bytes: int | None = None) -> None:
        self.process = process
        self.line_bytes = line_bytes if line_bytes is not None else process.limits.line_bytes
        #: Bytes a bot may write for one message of the referee: a longest line, newline
        #: included (blank lines and ignored lines take from it too).
        self._budget = self.line_bytes + 1
        self._in = process.stdin.fileno()
        self._out = process.stdout.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._buffer = bytearray()
        #: Where the unread bytes of ``_buffer`` start (consumed bytes are dropped in bulk).
        self._head = 0
        self._scan_from = 0
        #: Bytes consumed since the referee last wrote: with the unread ones, the budget.
        self._spent = 0
        self._pending = bytearray()
        self._eof = False
        self._stdin_closed = False
        self._overflow: Overflow | None = None
        self._closed = False
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._writing = False

    # -- sending -----------------------------------------------------------------------------

    def send(self, message: Mapping[str, Any]) -> None:
        self.send_line(encode(message))

    def send_line(self, line: bytes) -> None:
        if self._closed or self._stdin_closed:
            return
        self._spent = 0  # a new message: a new output budget for what answers it
        if self._pending:
            self._pending += line
        else:
            self._pending = bytearray(line)
        self._flush()

    def _flush(self) -> None:
        """Write what the pipe takes now; keep the rest for later calls."""
        while self._pending and not self._stdin_closed:
            try:
                written = os.write(self._in, self._pending)
            except BlockingIOError:
                break
            except OSError:  # BrokenPipe and friends: the bot is gone; receive says Closed
                self._drop_stdin()
                return
            del self._pending[:written]
        if len(self._pending) > MAX_PENDING_BYTES:
            self._drop_stdin()
        self._update_write_interest()

    def _drop_stdin(self) -> None:
        self._pending.clear()
        self._stdin_closed = True
        self._update_write_interest()

    def _update_write_interest(self) -> None:
        want = bool(self._pending) and not self._stdin_closed and not self._closed
        if want and not self._writing:
            self._poll.register(self._in, select.POLLOUT)
            self._writing = True
        elif not want and self._writing:
            with contextlib.suppress(KeyError):
                self._poll.unregister(self._in)
            self._writing = False

    # -- receiving ---------------------------------------------------------------------------

    def receive(self, deadline: float) -> Received:
        if self._closed:
            return Closed(self.process.exit_status())
        while True:
            if self._scan_from < len(self._buffer):  # bytes not yet searched for a newline
                line = self._take_line()
                if line is not None:
                    return line
            if self._overflow is not None:
                return self._overflow
            if self._eof:
                return Closed(self._status_after_eof(deadline))
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                return self._last_look()
            # No read before the wait: poll returns at once if the answer is already there.
            for fd, _events in self._poll.poll(timeout * 1000):
                if fd == self._in:  # writable, or the bot closed its stdin (the write says)
                    self._flush()
            self._read_available()

    def _last_look(self) -> Received:
        """Past the deadline: one read, so an answer already written is not late, and no more
        (a bot that keeps writing must not keep the referee reading)."""
        self._read_available(once=True)
        line = self._take_line()
        if line is not None:
            return line
        if self._overflow is not None:
            return self._overflow
        if self._eof:
            return Closed(self._status_after_eof(0.0))
        return Timeout()

    def unterminated(self) -> int:
        return len(self._buffer) - self._head

    def _take_line(self) -> Line | None:
        """The next non-blank line of the buffer, or None; blank lines are consumed, and
        every byte consumed or waiting counts against the budget."""
        buffer = self._buffer
        start = self._head
        match = _BLANK.match(buffer, start)
        blank_end = match.end() if match is not None else start
        last_newline = buffer.rfind(b"\n", start, blank_end)
        if last_newline >= 0:  # whole blank lines: consumed, and counted
            self._spent += last_newline + 1 - start
            start = self._head = last_newline + 1
            self._scan_from = max(self._scan_from, start)
        index = buffer.find(b"\n", max(self._scan_from, start))
        if index < 0:
            self._scan_from = len(buffer)
            if len(buffer) - start > self.line_bytes:
                return self._overflowed(line=True)
            if self._spent + len(buffer) - start > self._budget:
                return self._overflowed(line=False)
            return None
        if index - start > self.line_bytes:
            return self._overflowed(line=True)
        if self._spent + index + 1 - start > self._budget:
            return self._overflowed(line=False)
        raw = bytes(buffer[start:index])
        self._spent += index + 1 - start
        self._head = self._scan_from = index + 1
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        return Line(raw)

    def _overflowed(self, *, line: bool) -> Line | None:
        """Stop reading for good; None (no line), for ``_take_line`` to return."""
        self._overflow = Overflow(self.line_bytes, line)
        self._stop_reading()
        return None

    def _compact(self) -> None:
        """Drop the consumed bytes (once per read, so skipping lines stays linear)."""
        if self._head:
            del self._buffer[: self._head]
            self._scan_from = max(self._scan_from - self._head, 0)
            self._head = 0

    def _read_available(self, *, once: bool = False) -> None:
        """Read what the pipe holds now, up to a newline or past the budget (one read at most
        with ``once``)."""
        while not self._eof and self._overflow is None:
            self._compact()
            try:
                chunk = os.read(self._out, _READ_BYTES)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
                with contextlib.suppress(KeyError):
                    self._poll.unregister(self._out)
                break
            self._buffer += chunk
            if once or b"\n" in chunk or self._spent + len(self._buffer) > self._budget:
                break

    def _stop_reading(self) -> None:
        self._buffer.clear()
        self._head = self._scan_from = 0
        with contextlib.suppress(KeyError):
            self._poll.unregister(self._out)

    def _status_after_eof(self, deadline: float) -> ExitStatus:
        # The kernel closes a dying process's pipes just before its exit status is ready.
        self.process.wait(min(max(deadline - time.monotonic(), 0.05), 1.0))
        return self.process.exit_status()

    def close(self) -> None:
        """Stop talking to the bot (does not end the process: see ``SandboxedProcess``)."""
        if self._closed:
            return
        self._closed = True
        self._pending.clear()
        with contextlib.suppress(OSError):
            self.process.stdin.close()


class MockTransport:
    """A scripted bot for referee tests: no processes, no timing.

    ``script`` is either a sequence of replies handed out one per ``receive``, or a callable
    that is given every sent message and returns the replies it causes (one, a list, or None).
    A reply is a dict (sent back as its JSON line), a str or bytes (the raw line), or any
    ``Received``
    (e.g. ``Timeout()``, ``Closed()``, ``Overflow(10)``) returned as is. With nothing queued,
    ``receive`` returns ``Timeout()`` for a callable script and ``Closed()`` for an exhausted
    sequence. Everything sent is kept in ``sent`` (decoded), in order.
    """

    def __init__(self, script: Sequence[Any] | Callable[[dict[str, Any]], Any]) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = False
        self._replies: deque[Any] = deque()
        self._respond: Callable[[dict[str, Any]], Any] | None = None
        if callable(script):
            self._respond = script
        else:
            self._replies.extend(script)

    def send(self, message: Mapping[str, Any]) -> None:
        self._deliver(dict(message))

    def send_line(self, line: bytes) -> None:
        self._deliver(json.loads(line))

    def _deliver(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        self.sent.append(message)
        if self._respond is not None:
            replies = self._respond(message)
            if replies is None:
                return
            if isinstance(replies, list | tuple):
                self._replies.extend(replies)
            else:
                self._replies.append(replies)

    def receive(self, deadline: float) -> Received:
        if self.closed:
            return Closed()
        if not self._replies:
            return Timeout() if self._respond is not None else Closed()
        reply = self._replies.popleft()
        if isinstance(reply, Line | Timeout | Closed | Overflow):
            return reply
        if isinstance(reply, str):
            return Line(reply.encode())
        if isinstance(reply, bytes):
            return Line(reply.rstrip(b"\n"))
        return Line(dumps(reply).encode())

    def close(self) -> None:
        self.closed = True

    def unterminated(self) -> int:
        return 0  # scripted replies are whole lines
