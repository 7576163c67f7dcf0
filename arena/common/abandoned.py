"""What a process killed midway (SIGKILL, a power cut) left beside its work: a file or a
directory named by its process id and locked while that process lives, claimed here for
removal by the next process that finds it."""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

__all__ = ["claim_abandoned"]


def claim_abandoned(path: Path, *, directory: bool = False) -> int | None:
    """A descriptor of ``path`` (a directory with ``directory``, else a regular file) holding
    its lock, for the caller to remove it through and then close; ``None`` when it is a link,
    another user's, of the other kind, still locked by its maker, or no longer at its name.
    The name is looked at again once the lock is taken: whoever may write its directory
    could have swapped another in since it was opened, and that one would be removed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
                     | (os.O_DIRECTORY if directory else 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        of_its_kind = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
        if info.st_uid == os.geteuid() and of_its_kind:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            now = os.lstat(path)
            if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino):
                return fd
    except OSError:  # its maker holds it still, or it went meanwhile
        pass
    os.close(fd)
    return None
