"""What confines a bot from inside its own process, set between fork and exec: rlimits, its
cgroup, Landlock, the signal mask and seccomp."""

from __future__ import annotations

import os
import resource
import signal
from collections.abc import Callable, Iterable

from arena.common.signalmask import STOP_SIGNALS
from arena.sandbox import reaper
from arena.sandbox.limits import MIB, Limits

__all__ = ["make_preexec", "rlimits"]


def rlimits(limits: Limits, bot_uid: int,
             running: int | None = None) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) triples, clamped to what this process may set; ``running``:
    the processes ``bot_uid`` has now, when known (a fresh uid has none)."""
    wanted = [
        (resource.RLIMIT_AS, limits.memory_mb * MIB, limits.memory_mb * MIB),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * MIB, limits.file_size_mb * MIB),
        (resource.RLIMIT_CORE, 0, 0),
        # Locking memory populates it in the same call, which runs on after a freeze, on the
        # CPU of the bot asked next; no runtime needs it (a failed lock is a common case).
        (resource.RLIMIT_MEMLOCK, 0, 0),
    ]
    if bot_uid != 0:
        # RLIMIT_NPROC counts every process of the uid, so leave room for those already there.
        if running is None:
            running = reaper.processes_of_uid(bot_uid)
        nproc = running + limits.processes
        wanted.append((resource.RLIMIT_NPROC, nproc, nproc))
    out = []
    for res, soft, hard in wanted:
        _cur_soft, cur_hard = resource.getrlimit(res)
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        out.append((res, soft, hard))
    return out


def make_preexec(parent_death: Callable[[], None] | None,
                  rlimits: list[tuple[int, int, int]], cgroup_procs_fd: int | None,
                  restrict_fs: Callable[[], None] | None,
                  install_seccomp: Callable[[], None] | None,
                  signal_mask: Iterable[int]) -> Callable[[], None]:
    """The code run in the child between fork and exec: only system calls, no imports.
    ``signal_mask`` is the referee's mask from before it held the stop signals for the
    fork. The bot starts with the stop signals neither blocked nor ignored, whatever the
    referee does with them (a tournament worker ignores Ctrl-C, a league's vet thread blocks
    both): it must behave in a tournament as when checked."""
    setrlimit = resource.setrlimit
    write = os.write
    sigmask = signal.pthread_sigmask
    handle = signal.signal
    mask = set(signal_mask) - STOP_SIGNALS

    def preexec() -> None:
        if parent_death is not None:  # first: the uid is already the bot's (Popen sets it)
            parent_death()
        for res, soft, hard in rlimits:
            setrlimit(res, (soft, hard))
        if cgroup_procs_fd is not None:
            write(cgroup_procs_fd, b"0")
        if restrict_fs is not None:
            restrict_fs()
        for signum in STOP_SIGNALS:  # an ignored signal stays ignored across exec
            handle(signum, signal.SIG_DFL)
        sigmask(signal.SIG_SETMASK, mask)
        if install_seccomp is not None:
            install_seccomp()

    return preexec
