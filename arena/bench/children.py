"""The benchmarks' sandboxed children: small Python programs run like bots behind a
:class:`~arena.protocol.transport.SubprocessTransport`, the floors the referee's cost per
decision is measured against."""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from arena.errors import SandboxError
from arena.protocol.messages import encode
from arena.protocol.transport import Line, SubprocessTransport
from arena.sandbox.launcher import launch
from arena.sandbox.limits import Limits

__all__ = ["EchoChild", "TrivialChild", "measure_ping_pong_floor"]

_ECHO = ("import sys\n"
         "r, w = sys.stdin.buffer.readline, sys.stdout.buffer\n"
         "for line in iter(r, b''):\n"
         "    w.write(line); w.flush()\n")


_Child = TypeVar("_Child", bound="TrivialChild")


class TrivialChild:
    """A small Python program run sandboxed like a bot behind a :class:`SubprocessTransport`,
    kept for many measurements (a context manager): the floors' children."""

    def __init__(self, code: str, limits: Limits | None = None) -> None:
        self._scratch = Path(_scratch_dir()).resolve()  # the copy takes no link in it
        self.process = launch(["python3", "-c", code], workdir=self._scratch, limits=limits)
        try:
            self.transport = SubprocessTransport(self.process)
        except BaseException:
            self.process.kill_all()
            raise

    def close(self) -> None:
        self.transport.close()
        self.process.kill_all()
        with contextlib.suppress(OSError):
            self._scratch.rmdir()

    def __enter__(self: _Child) -> _Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EchoChild(TrivialChild):
    """A trivial echoing child: ``ping_pong`` times round trips of one line through
    :class:`SubprocessTransport`, the floor the referee's cost per decision is measured
    against."""

    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__(_ECHO, limits)

    def ping_pong(self, line: bytes, n: int, warmup: int = 0) -> list[float]:
        """Seconds of each of ``n`` round trips of ``line``, back to back (after ``warmup``
        untimed ones)."""
        return _ping_pong(self.transport, line, warmup, n)


def measure_ping_pong_floor(n: int, message: Mapping[str, Any] | bytes | None = None, *,
                            limits: Limits | None = None, warmup: int = 20,
                            samples: list[float] | None = None) -> float:
    """Median seconds of one round trip of ``message`` to a trivial echoing child and back
    (:class:`EchoChild`, started for this call).

    ``message`` may be a dict or a pre-encoded line (default: a small ``act``-like object);
    ``samples``, if given, receives every measured round trip.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    if message is None:
        message = {"type": "act", "id": 1, "decision": "turn", "observation": {},
                   "legal": [{"kind": "hold"}]}
    line = message if isinstance(message, bytes) else encode(message)
    with EchoChild(limits) as child:
        times = child.ping_pong(line, n, warmup)
    if samples is not None:
        samples.extend(times)
    return statistics.median(times)


def _ping_pong(transport: SubprocessTransport, line: bytes, warmup: int, n: int) -> list[float]:
    times: list[float] = []
    clock = time.perf_counter
    for i in range(warmup + n):
        start = clock()
        transport.send_line(line)
        reply = transport.receive(time.monotonic() + 30.0)
        elapsed = clock() - start
        if not isinstance(reply, Line):
            raise SandboxError(f"the echo child failed: {reply}: "
                               f"{transport.process.stderr_text()[-500:]}")
        if i >= warmup:
            times.append(elapsed)
    return times


def _scratch_dir() -> str:
    path = tempfile.mkdtemp(prefix="arena-echo-")
    os.chmod(path, 0o755)
    return path
