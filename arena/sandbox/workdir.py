"""The bot's private copy of its files: what is copied (no links, FIFOs, devices or caches;
at most :data:`MAX_BOT_BYTES`) and how it is sealed read-only."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from arena.errors import SandboxError

__all__ = ["MAX_BOT_BYTES", "SKIPPED_DIRS", "SKIPPED_SUFFIXES", "copy_bot", "remove_tree"]

#: Directories of tools' caches: neither part of a bot's version nor copied for it.
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hypothesis", ".mypy_cache",
                          ".pytest_cache", ".ruff_cache"})
SKIPPED_SUFFIXES = (".pyc", ".pyo")
#: The most a bot's files may hold: every launch copies them (a sparse 4 GB file would cost
#: 4 GB of real disk per start).
MAX_BOT_BYTES = 256 * 1024 * 1024


def copy_bot(workdir: Path, dest: Path, gid: int | None) -> None:
    """Copy the bot's regular files and directories (never a link, FIFO or device; caches
    skipped; at most :data:`MAX_BOT_BYTES`) and make them read-only. With ``gid`` (the bot's
    own group) only that bot can read them: the owner stays root, so it cannot make them
    writable either."""

    def seal(path: str, executable: bool) -> None:
        mode = 0o555 if executable else 0o444
        os.chmod(path, mode if gid is None else mode & 0o550)
        if gid is not None:
            os.chown(path, 0, gid)

    room = MAX_BOT_BYTES

    def copy_file(source: str, target: str) -> None:
        """A regular file only (anything else is never opened), checked against the room
        left before a byte is copied."""
        nonlocal room
        if not stat.S_ISREG(os.lstat(source).st_mode):
            return
        with open(source, "rb", opener=_no_follow) as src:
            st = os.fstat(src.fileno())
            room -= st.st_size
            if room < 0:
                raise SandboxError(f"the bot's files hold more than {MAX_BOT_BYTES >> 20} MiB")
            with open(target, "wb") as out:
                shutil.copyfileobj(src, out)
        seal(target, bool(st.st_mode & 0o111))

    if workdir.is_dir():
        for dirpath, dirnames, filenames in os.walk(workdir):
            dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS
                           and not os.path.islink(os.path.join(dirpath, d))]
            rel = os.path.relpath(dirpath, workdir)
            target_dir = dest if rel == "." else dest / rel
            target_dir.mkdir()
            for name in filenames:
                if not name.endswith(SKIPPED_SUFFIXES):
                    copy_file(os.path.join(dirpath, name), str(target_dir / name))
    else:
        dest.mkdir()
        copy_file(str(workdir), str(dest / workdir.name))
    directories = [os.path.join(d, name) for d, names, _ in os.walk(dest) for name in names]
    for path in [*directories, str(dest)]:
        seal(path, executable=True)


def _no_follow(path: str, flags: int) -> int:
    """Open without following a symbolic link and without blocking on a FIFO."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)




def remove_tree(path: Path) -> None:
    """Remove a private directory even where it holds read-only subdirectories."""
    if not path.exists():
        return
    for dirpath, dirnames, _files in os.walk(path):
        for name in [".", *dirnames]:
            target = os.path.join(dirpath, name)
            if not os.path.islink(target):
                with contextlib.suppress(OSError):
                    os.chmod(target, 0o700)
    shutil.rmtree(path, ignore_errors=True)
