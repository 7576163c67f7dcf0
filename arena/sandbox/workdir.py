"""The bot's private copy of its files: what is copied (no links, FIFOs, devices or caches;
at most :data:`MAX_BOT_BYTES`) and how it is sealed read-only."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import fcntl
import hashlib
import os
import shutil
import stat
import struct
import time
from functools import partial
from pathlib import Path

from arena.errors import SandboxError

__all__ = ["MAX_BOT_BYTES", "MAX_BOT_FILES", "SKIPPED_DIRS", "SKIPPED_SUFFIXES", "copy_bot",
           "files_version", "freeze_atimes", "mount_scratch", "remove_at_exit", "remove_tree"]

#: Directories of tools' caches: neither part of a bot's version nor copied for it.
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hypothesis", ".mypy_cache",
                          ".pytest_cache", ".ruff_cache"})
SKIPPED_SUFFIXES = (".pyc", ".pyo")
#: The most a bot's files may hold: every launch copies them (a sparse 4 GB file would cost
#: 4 GB of real disk per start).
MAX_BOT_BYTES = 256 * 1024 * 1024
#: The most files a bot may hold: each launch copies them one by one (a bot's packages live
#: in its environment, not among its files).
MAX_BOT_FILES = 10_000


def files_version(digests: dict[str, bytes]) -> str:
    """A bot's version from its files' relative paths and the sha256 of each one's content:
    the first 12 hex digits of a sha256 over them in the order of their paths."""
    digest = hashlib.sha256()
    for rel in sorted(digests):
        digest.update(rel.encode() + b"\0" + digests[rel])
    return digest.hexdigest()[:12]


def copy_bot(workdir: Path, dest: Path, gid: int | None,
             only: frozenset[str] | None = None) -> str:
    """Copy the bot's regular files and directories (never a link, FIFO or device; caches
    skipped; at most :data:`MAX_BOT_BYTES`; with ``only``, just the files of those relative
    paths) and make them read-only. With ``gid`` (the bot's own group) only that bot can read
    them: the owner stays root, so it cannot make them writable either. Returns the copy's
    version (:func:`files_version`), hashed from the bytes as they were written: what will
    run, whatever its author changes meanwhile."""
    copying = _Copying(gid, room=MAX_BOT_BYTES, files_left=MAX_BOT_FILES)
    if workdir.is_dir():
        _copy_directory(workdir, dest, only, copying)
    else:
        dest.mkdir()
        parent_fd = _open_path(workdir.parent)
        try:
            copying.file(workdir.name, str(dest / workdir.name), parent_fd)
        finally:
            os.close(parent_fd)
    _refuse_outside_links(copying.linked, dest)
    directories = [os.path.join(d, name) for d, names, _ in os.walk(dest) for name in names]
    for path in [*directories, str(dest)]:
        _seal(path, True, gid)
    return files_version(copying.digests)


class _Copying:
    """A copy of a bot's files under way: the bytes and files it has room for yet, each
    copied file's digest, and the hard links met (:func:`_refuse_outside_links`)."""

    def __init__(self, gid: int | None, *, room: int, files_left: int) -> None:
        self.gid = gid
        self.room = room
        self.files_left = files_left
        self.digests: dict[str, bytes] = {}
        self.linked: dict[tuple[int, int], tuple[int, list[str]]] = {}

    def file(self, source: str, target: str, dir_fd: int | None = None, rel: str = "") -> None:
        """A regular file only (anything else is never opened), checked against the room
        left before a byte is copied."""
        if not stat.S_ISREG(os.lstat(source, dir_fd=dir_fd).st_mode):
            return
        self.files_left -= 1
        if self.files_left < 0:
            raise SandboxError(f"the bot holds more than {MAX_BOT_FILES:,} files")
        with open(source, "rb", opener=partial(_no_follow, dir_fd=dir_fd)) as src:
            st = os.fstat(src.fileno())
            if not stat.S_ISREG(st.st_mode):
                return
            self.room -= st.st_size
            if self.room < 0:
                raise SandboxError(f"the bot's files hold more than {MAX_BOT_BYTES >> 20} MiB")
            hashed = hashlib.sha256()
            with open(target, "wb") as out:
                while chunk := src.read(1 << 20):
                    hashed.update(chunk)
                    out.write(chunk)
            self.digests[rel or source] = hashed.digest()
        if st.st_nlink > 1:
            self.linked.setdefault((st.st_dev, st.st_ino), (st.st_nlink, []))[1].append(target)
        _seal(target, bool(st.st_mode & 0o111), self.gid)


def _copy_directory(workdir: Path, dest: Path, only: frozenset[str] | None,
                    copying: _Copying) -> None:
    """Copy a bot directory's tree into ``dest`` (see :func:`copy_bot`)."""
    # Files are opened through their directory's descriptor, reached from the bot's
    # directory one name at a time without following a link: its author may swap a
    # directory for a link while the copy runs, and a path would follow it.
    root_fd = _open_path(workdir)
    try:
        for dirpath, dirnames, filenames in os.walk(workdir):
            dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS
                           and not os.path.islink(os.path.join(dirpath, d))]
            rel = os.path.relpath(dirpath, workdir)
            target_dir = dest if rel == "." else dest / rel
            target_dir.mkdir()
            dir_fd = _open_beneath(root_fd, rel)
            try:
                for name in filenames:
                    path = name if rel == "." else f"{Path(rel).as_posix()}/{name}"
                    if not name.endswith(SKIPPED_SUFFIXES) and (only is None or path in only):
                        copying.file(name, str(target_dir / name), dir_fd, path)
            finally:
                if dir_fd != root_fd:
                    os.close(dir_fd)
    finally:
        os.close(root_fd)


def _seal(path: str, executable: bool, gid: int | None) -> None:
    """Make a copied file or directory read-only; with ``gid``, readable by that group only."""
    mode = 0o555 if executable else 0o444
    os.chmod(path, mode if gid is None else mode & 0o550)
    if gid is not None:
        os.chown(path, 0, gid)


def _refuse_outside_links(linked: dict[tuple[int, int], tuple[int, list[str]]],
                          dest: Path) -> None:
    """Refuse a copied file with more names than the bot holds (``linked``: by inode, its
    names in all and its copies), its copies removed first: the bot's check refused it, but
    its author may make the link after the check, before a launch or a restart, and the
    referee would copy another user's file into the bot's reach."""
    for names, copies in linked.values():
        if names > len(copies):
            for copy in copies:
                with contextlib.suppress(OSError):
                    os.unlink(copy)
            shown = os.path.relpath(copies[0], dest)
            raise SandboxError(f"the bot's files changed while they were copied: {shown} is a "
                               f"hard link to a file outside the bot now ({names} names, "
                               f"{len(copies)} of them in the bot)")


def _open_path(path: Path) -> int:
    """The directory ``path``, each of its names opened without following a link (from ``/``
    or the working directory). A bot's path is resolved when it is checked: a link in it
    now is a parent its author swapped for one since, which a path would follow to a
    same-named bot elsewhere, files of others and all."""
    fd = os.open("/" if path.is_absolute() else ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    reached = Path(path.anchor)
    for part in path.parts[1:] if path.is_absolute() else path.parts:
        reached /= part
        try:
            step = _open_directory_at(fd, part, reached)
        finally:
            os.close(fd)
        fd = step
    return fd


def _open_beneath(root_fd: int, rel: str) -> int:
    """The directory ``rel`` under ``root_fd``, each step opened without following a link
    (``root_fd`` itself for ".")."""
    fd = root_fd
    for part in Path(rel).parts if rel != "." else ():
        try:
            step = _open_directory_at(fd, part, rel)
        finally:
            if fd != root_fd:
                os.close(fd)
        fd = step
    return fd


def _open_directory_at(fd: int, name: str, shown: str | Path) -> int:
    """The directory ``name`` in ``fd``, not followed if it is a link (then the bot's files
    changed since they were checked: an error naming ``shown``)."""
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                       dir_fd=fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise SandboxError(f"the bot's files changed while they were copied: {shown} is a "
                           "symbolic link now") from None


def _no_follow(path: str, flags: int, dir_fd: int | None = None) -> int:
    """Open without following a symbolic link and without blocking on a FIFO."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)




def remove_tree(path: Path) -> None:
    """Remove a private directory even where it holds read-only subdirectories or a scratch
    filesystem (:func:`mount_scratch`). A link is removed, never followed: its target's
    mounts would be detached and its directories opened up."""
    if path.is_symlink():
        with contextlib.suppress(OSError):
            path.unlink()
        return
    if not path.exists():
        return
    _unmount_beneath(path)
    # Through the descriptors of the directories themselves: a helper a bot left may still
    # reach its scratch (its tmpfs detached) and swap a directory there for a link between
    # a look at its name and a chmod by path, which would follow it (fwalk checks that
    # what it opens is what it listed, and follows no link).
    own_user = os.geteuid() != 0
    for _dirpath, dirnames, _files, dir_fd in os.fwalk(path):
        with contextlib.suppress(OSError):
            os.fchmod(dir_fd, 0o700)
        for name in dirnames if own_user else ():
            # a directory made unreadable (0) can be opened only once opened up: through a
            # descriptor that opens no content (O_PATH) and no link (fwalk lists a link to a
            # directory among the directories; by name, chmod followed it out of the box)
            _open_up(name, dir_fd)
    shutil.rmtree(path, ignore_errors=True)


_FS_IOC_GETFLAGS = 0x80086601
_FS_IOC_SETFLAGS = 0x40086602
_FS_NOATIME_FL = 0x80
#: An access time this far ahead is never updated under ``relatime`` (the usual mount option).
_FUTURE_S = 100 * 365 * 86_400


def freeze_atimes(root: Path) -> None:
    """Keep the access times of everything under ``root`` from changing: files several bots
    read (the kit) would otherwise tell each one which files another opened, a channel
    between them where no read-only mount hides it (bubblewrap's does). The no-atime file
    attribute, else (a filesystem without it) an access time far ahead, which ``relatime``
    never moves."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for path in [dirpath, *(os.path.join(dirpath, name) for name in filenames)]:
            if not _set_noatime(path):
                st = os.lstat(path)
                os.utime(path, ns=(time.time_ns() + _FUTURE_S * 10**9, st.st_mtime_ns),
                         follow_symlinks=False)


def _set_noatime(path: str) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, struct.pack("i", 0)))[0]
        fcntl.ioctl(fd, _FS_IOC_SETFLAGS, struct.pack("i", flags | _FS_NOATIME_FL))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


_MS_NOSUID = 0x2
_MS_NODEV = 0x4
_MNT_DETACH = 0x2


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def mount_scratch(path: Path, size_bytes: int, uid: int) -> bool:
    """Make ``path`` a tmpfs of ``size_bytes`` owned by ``uid`` alone (a root referee's
    bots without bubblewrap); False where this process may not mount. A scratch directory
    on a shared filesystem is a channel between bots: creating files there changes the free
    blocks and inodes every bot sees (``statfs``) and the inode numbers the next file gets;
    a tmpfs of its own has counters no other bot moves, and caps what the bot writes."""
    options = f"size={size_bytes},nr_inodes={max(size_bytes // 4096, 1024)},mode=0700," \
              f"uid={uid},gid={uid}"
    libc = _libc()
    done = libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs",
                      ctypes.c_ulong(_MS_NOSUID | _MS_NODEV), options.encode())
    return bool(done == 0)


def _open_up(name: str, dir_fd: int) -> None:
    """Make the directory ``name`` (in ``dir_fd``) 0700, never what a link there names."""
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC,
                     dir_fd=dir_fd)
    except OSError:
        return  # a link, or gone
    try:
        with contextlib.suppress(OSError):  # fchmod refuses an O_PATH descriptor, not its name
            os.chmod(f"/proc/self/fd/{fd}", 0o700)
    finally:
        os.close(fd)


def _unmount_beneath(path: Path) -> None:
    """Detach every mount at or under ``path`` (deepest first)."""
    root = os.fsencode(os.path.realpath(path))
    try:
        with open("/proc/self/mountinfo", "rb") as info:
            points = [line.split()[4] for line in info]
    except OSError:
        return
    mine = [p for p in points if p == root or p.startswith(root + b"/")]
    if not mine:
        return
    libc = _libc()
    for point in sorted(mine, key=len, reverse=True):
        libc.umount2(point, _MNT_DETACH)


def remove_at_exit(root: Path) -> None:
    """Remove ``root`` when this process exits; not in forked workers, whose parent still
    uses it."""
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:
            shutil.rmtree(root, ignore_errors=True)

    atexit.register(remove)
