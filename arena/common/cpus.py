"""The CPUs a process may run on, and pinning it to one of them (Linux's
``sched_setaffinity``; elsewhere nothing is pinned and the callers are told).

Affinity belongs to a thread and is inherited by the threads and processes it starts: pin
before starting any, and everything started after runs on the same CPU.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["allowed_cpus", "one_core", "pin_to"]


def allowed_cpus() -> list[int]:
    """The CPUs this thread may run on, in order (empty where the system cannot tell)."""
    getter = getattr(os, "sched_getaffinity", None)
    return sorted(getter(0)) if getter is not None else []


def pin_to(cpu: int) -> str | None:
    """Pin this thread (and what it starts from now on) to ``cpu``; why it could not be, or
    None once it is."""
    try:
        os.sched_setaffinity(0, {cpu})
    except (OSError, AttributeError) as exc:  # a CPU gone offline, a cpuset changed, no Linux
        return f"could not pin to CPU {cpu} ({exc})"
    return None


@contextmanager
def one_core() -> Iterator[int | None]:
    """Pin this process to one CPU while inside (restored after); yields the CPU or None."""
    before = allowed_cpus()
    if not before or pin_to(before[0]) is not None:
        yield None
        return
    try:
        yield before[0]
    finally:
        os.sched_setaffinity(0, set(before))
