"""A bot's stderr, drained to its end by a thread of its own and kept as head and tail."""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Callable
from typing import IO

from arena.common.printable import printable_log

__all__ = ["StderrDrain"]

#: How long a wait for more of the log polls before it looks at the log again: this thread
#: may have taken what arrived just before the poll began, which the poll would not see.
_RECHECK_S = 0.02


class StderrDrain(threading.Thread):
    """Reads a bot's stderr to EOF so the bot never blocks on it; keeps head and tail.

    The pipe is non-blocking and every read happens under the lock, by this thread when the
    pipe has data or by a caller of :meth:`since` first: what the bot wrote before its last
    answer is then in the log, never still in the pipe."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        super().__init__(name="arena-stderr", daemon=True)
        self._stream = stream  # keeps the pipe open while this reads it
        self._fd = stream.fileno()
        os.set_blocking(self._fd, False)
        self._tail_cap = min(cap // 4, 16_384)
        self._head_cap = cap - self._tail_cap
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        #: Bytes read so far: the positions ``since`` counts in.
        self._total = 0
        self._eof = False
        self._lock = threading.Lock()

    def run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        while not self._eof:
            try:
                poller.poll()
            except OSError:
                break
            self._pull()

    def _pull(self) -> None:
        """Read what the pipe holds now."""
        with self._lock:
            while not self._eof:
                try:
                    chunk = os.read(self._fd, 65_536)
                except BlockingIOError:
                    return
                except OSError:
                    chunk = b""
                if not chunk:
                    self._eof = True
                    return
                self._keep(chunk)

    def _keep(self, chunk: bytes) -> None:
        self._total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            excess = len(self._tail) - self._tail_cap
            if excess > 0:
                del self._tail[:excess]
                self._dropped += excess

    def settle(self, timeout: float) -> None:
        """Read until the pipe's end, for at most ``timeout`` seconds: once the bot has
        exited, what it wrote last (its traceback, a MemoryError) may still be in the pipe,
        and this thread may not have run yet. A grandchild holding the pipe open ends the
        wait at ``timeout``."""
        deadline = time.monotonic() + timeout
        poller: select.poll | None = None
        while True:
            self._pull()
            left = deadline - time.monotonic()
            if self._eof or left <= 0:
                return
            if poller is None:
                poller = select.poll()
                poller.register(self._fd, select.POLLIN)
            with contextlib.suppress(OSError):
                poller.poll(left * 1000)

    def wait_for(self, mark: int, done: Callable[[str], bool], timeout: float) -> str:
        """What the bot writes from byte ``mark`` on, read as it comes until ``done(text)``
        says it is complete, the pipe ends or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        while True:
            text, _ = self.since(mark)
            left = deadline - time.monotonic()
            if done(text) or self._eof or left <= 0:
                return text
            with contextlib.suppress(OSError):
                poller.poll(min(left, _RECHECK_S) * 1000)

    def close(self) -> None:
        """Close the pipe; reads end here. Marked under the lock, so no later ``_pull``
        reads a descriptor number the process may have handed to another file."""
        with self._lock:
            self._eof = True
            with contextlib.suppress(OSError):
                self._stream.close()

    def text(self) -> str:
        self._pull()
        with self._lock:
            head, tail, dropped = bytes(self._head), bytes(self._tail), self._dropped
        out = printable_log(head.decode(errors="replace"))
        if dropped:
            out += f"\n[... {dropped} bytes of stderr dropped ...]\n"
        return out + printable_log(tail.decode(errors="replace"))

    def since(self, mark: int) -> tuple[str, int]:
        """What the bot wrote from byte ``mark`` on, and the mark to pass next time. Counted
        in bytes written, not in the text kept, so it stays right once the cap drops the
        middle (what fell in the dropped part is named, not returned)."""
        self._pull()
        with self._lock:
            head, tail, total = bytes(self._head), bytes(self._tail), self._total
        tail_start = total - len(tail)
        parts = []
        position = max(mark, 0)
        if position < len(head):
            parts.append(head[position:].decode(errors="replace"))
            position = len(head)
        if position < tail_start:
            parts.append(f"[... {tail_start - position} bytes of stderr dropped ...]\n")
            position = tail_start
        parts.append(tail[position - tail_start:].decode(errors="replace"))
        return printable_log("".join(parts)), total

    def tail_text(self) -> str:
        self._pull()
        with self._lock:
            data = bytes(self._tail) if self._tail else bytes(self._head[-4096:])
        return printable_log(data.decode(errors="replace"))

