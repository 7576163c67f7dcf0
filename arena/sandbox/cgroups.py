"""A bot's own cgroup v2 directory (memory.max, pids.max), made and removed."""

from __future__ import annotations

import contextlib
import errno
import logging
import time
from pathlib import Path

from arena.sandbox.limits import MIB, Limits

__all__ = ["make_cgroup", "remove_cgroup"]

log = logging.getLogger("arena.sandbox")


def make_cgroup(parent: Path, marker: str, limits: Limits) -> Path:
    path = parent / f"arena-{marker}"
    path.mkdir(mode=0o755)
    (path / "memory.max").write_text(str(limits.memory_mb * MIB))
    with contextlib.suppress(OSError):
        (path / "memory.swap.max").write_text("0")
    (path / "pids.max").write_text(str(limits.processes))
    return path


def remove_cgroup(path: Path | None) -> None:
    if path is None:
        return
    for _ in range(100):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                break
            with contextlib.suppress(OSError):
                (path / "cgroup.kill").write_text("1")
            time.sleep(0.01)
    log.warning("could not remove cgroup %s", path)

