"""Resource and timing limits for one bot process.

The referee takes them from the tournament or match settings; the defaults are sane for a
card-game bot on a shared machine. Time limits are in milliseconds because that is how
tournament specs state them; sizes are in MiB or bytes as named.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import SandboxError

__all__ = ["MIB", "Limits"]

#: Bytes in a MiB (the unit of the size limits).
MIB = 1024 * 1024

_DAY_MS = (86_400_000, "a day")
_TIB = (1 << 20, "1 TiB")
#: The largest value of each limit: beyond these a value is a typo, which the clock or the
#: kernel would refuse later, far from the spec that gave it.
_MAXIMA: dict[str, tuple[int, str]] = {
    "decision_ms": _DAY_MS, "time_bank_ms": _DAY_MS, "startup_ms": _DAY_MS,
    "bye_grace_ms": _DAY_MS, "memory_mb": _TIB, "file_size_mb": _TIB, "tmp_mb": _TIB,
    "cpu_seconds": (31_536_000, "a year"), "open_files": (1 << 20, "the kernel's nr_open"),
    "processes": (1 << 22, "the kernel's pid_max"), "line_bytes": (1 << 30, "1 GiB"),
    "stderr_bytes": (1 << 30, "1 GiB"), "max_strikes": (1_000_000, "a million"),
}


@dataclass(frozen=True)
class Limits:
    """Limits applied to one bot process (and everything it starts)."""

    #: Time for one decision (an ``act`` until its ``action``).
    decision_ms: int = 1000
    #: Extra time per game drawn on when a decision overruns ``decision_ms``.
    time_bank_ms: int = 10_000
    #: Time from launch until the ``ready`` answer to ``hello``.
    startup_ms: int = 10_000
    #: Time a bot gets to exit after ``bye`` before it is killed.
    bye_grace_ms: int = 1000
    #: Address space (RLIMIT_AS) and, with a cgroup, memory.max.
    memory_mb: int = 1024
    #: CPU seconds over the process lifetime (RLIMIT_CPU; SIGXCPU then SIGKILL).
    cpu_seconds: int = 3600
    #: Open file descriptors (RLIMIT_NOFILE).
    open_files: int = 64
    #: Largest file the bot may write (RLIMIT_FSIZE).
    file_size_mb: int = 16
    #: Processes the bot may run at once (RLIMIT_NPROC for the bot uid, pids.max in a cgroup).
    processes: int = 64
    #: Longest stdout line; a longer one is an ``output_limit`` failure.
    line_bytes: int = 1_000_000
    #: Captured stderr kept per process (head and tail), the rest is dropped.
    stderr_bytes: int = 65_536
    #: Timeouts or invalid answers tolerated per game before the bot forfeits.
    max_strikes: int = 3
    #: Size of the private /tmp when bubblewrap provides one (a tmpfs).
    tmp_mb: int = 64

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise SandboxError(f"limit {field.name} must be an integer, got {value!r}")
            if value < 0 or (value == 0 and field.name not in ("time_bank_ms", "max_strikes")):
                raise SandboxError(f"limit {field.name} must be positive, got {value}")
            top, meaning = _MAXIMA[field.name]
            if value > top:
                raise SandboxError(f"limit {field.name} must be at most {top:,} "
                                   f"({meaning}), got {value:,}")

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any] | None) -> Limits:
        """Limits from tournament/match settings; missing keys keep their defaults."""
        if not settings:
            return cls()
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise SandboxError(
                f"unknown limit(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**dict(settings))

    def replace(self, **changes: int) -> Limits:
        """A copy with some limits changed (validated like the constructor)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, int]:
        """The limits as a plain dict (recorded with each match)."""
        return dataclasses.asdict(self)
