"""A bot's files copied into the bots directory and taken out again, through descriptors.

Whoever may write the bots directory (or the submitted one) could swap a directory for a link
between a look and a use: every step opens what it works on without following links, and a
file that is no regular file (a FIFO, a device) is refused, never read without end.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from arena.common.printable import printable
from arena.errors import SubmitError
from arena.sandbox.workdir import (
    MAX_BOT_BYTES,
    MAX_BOT_FILES,
    SKIPPED_DIRS,
    SKIPPED_SUFFIXES,
)

__all__ = ["copy_module", "copy_tree", "exchange", "move", "opened_below", "remove_copy",
           "remove_opened", "swap_in"]

#: As deep as a checked bot's directories may nest (the manifest's walk refuses deeper).
_MAX_DEPTH = 64
_OPEN_NO_FOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def move(source: Path, target: Path, target_dir_fd: int | None = None, *,
         source_dir_fd: int | None = None) -> None:
    """Rename ``source`` to ``target``, in another directory: a directory moves there only
    while its owner may write it (its '..' changes), so a read-only one (a bot's files as its
    author made them) is made writable for the move, then given its mode back, through a
    descriptor (the path may be another's to swap once moved). With ``target_dir_fd``,
    ``target`` is a name in that directory (opened already, so no link swapped in for its
    path is followed); with ``source_dir_fd``, ``source`` is, the same way."""
    with _movable(source, source_dir_fd):
        os.rename(_named(source, source_dir_fd), _named(target, target_dir_fd),
                  src_dir_fd=source_dir_fd, dst_dir_fd=target_dir_fd)


def _named(path: Path, dir_fd: int | None) -> Path | str:
    """``path`` as a call takes it: its last name alone where it is relative to ``dir_fd``."""
    return path if dir_fd is None else path.name


@contextlib.contextmanager
def _movable(path: Path, dir_fd: int | None = None) -> Iterator[None]:
    """``path`` (a name in ``dir_fd``, when given) writable by its owner while it moves to
    another parent, when a directory."""
    try:
        fd = os.open(_named(path, dir_fd), _OPEN_NO_FOLLOW | os.O_DIRECTORY, dir_fd=dir_fd)
    except OSError:  # a file, or a link: renamed as a name
        yield
        return
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
        os.fchmod(fd, mode | stat.S_IWUSR)
        try:
            yield
        finally:
            os.fchmod(fd, mode)
    finally:
        os.close(fd)


#: renameat2's flag swapping two paths in one step, and "relative to the working directory".
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
#: What renameat2 answers where the kernel, or the file system, cannot exchange.
_NO_EXCHANGE = frozenset({errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP})


def _renameat2() -> Callable[..., int] | None:
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    except OSError:  # no C library to load (a static interpreter)
        return None


def exchange(first: Path, second: Path, first_dir_fd: int | None = None) -> bool:
    """Swap what the paths ``first`` (a name in ``first_dir_fd``, when given) and ``second``
    name in one step (Linux's renameat2 with RENAME_EXCHANGE): a reader of either finds one
    or the other, never nothing. False, with nothing changed, where the system cannot (no
    renameat2, a file system without it)."""
    call = _renameat2()
    if call is None:
        return False
    with _movable(first, first_dir_fd), _movable(second):
        if call(_AT_FDCWD if first_dir_fd is None else first_dir_fd,
                os.fsencode(_named(first, first_dir_fd)), _AT_FDCWD, os.fsencode(second),
                _RENAME_EXCHANGE) == 0:
            return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(second))


def swap_in(new: Path, target: Path, aside: Path, dir_fd: int | None = None) -> None:
    """Put ``new`` at ``target`` in place of what is there, so that a reader of ``target``
    finds the old files or the new, never nothing: a file renamed over the old one, a
    directory exchanged with it (the old files then at ``new``). Where the system cannot
    exchange, the old directory is renamed to ``aside`` first: a moment without it, which
    resolving the bot bridges by waiting for the submit's lock on the bots directory and
    looking again (``catalog._registered_spec``). With ``dir_fd``, ``new`` and ``aside``
    are names in that directory (a submit's staging directory, held: its path may be
    another's to swap for a link)."""
    new_is_dir = stat.S_ISDIR(os.stat(_named(new, dir_fd), dir_fd=dir_fd,
                                      follow_symlinks=False).st_mode)
    if not new_is_dir and not target.is_dir():
        os.replace(_named(new, dir_fd), target, src_dir_fd=dir_fd)
    elif not exchange(new, target, dir_fd):
        move(target, aside, dir_fd)
        move(new, target, source_dir_fd=dir_fd)


def remove_copy(staging: Path, dir_fd: int | None = None) -> None:
    """Remove a submit's copy, read-only directories and all, through descriptors: whoever
    may write the bots directory could swap it for a link meanwhile, and a walk by path
    would then reach (open up, empty) the link's target. With ``dir_fd``, ``staging`` is a
    name in that directory (opened already, so no path step is looked up again)."""
    if dir_fd is not None:
        _remove_in(dir_fd, str(staging))
        return
    try:
        parent = os.open(staging.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        _remove_in(parent, staging.name)
    finally:
        os.close(parent)


def remove_opened(top: int, staging: Path) -> None:
    """Remove the directory ``staging``, opened as ``top``: its files through that
    descriptor (never a directory swapped in at its name since), then the name, which goes
    only while it names an empty directory."""
    with contextlib.suppress(OSError):
        _empty(top)
    with contextlib.suppress(OSError):
        os.rmdir(staging)


def _remove_in(parent: int, name: str) -> None:
    """Remove the directory ``name`` of ``parent`` and everything in it."""
    try:
        top = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                      dir_fd=parent)
    except OSError:  # gone, or a link now: removed as a name, never followed
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=parent)
        return
    with contextlib.suppress(OSError):
        _empty(top)
    os.close(top)
    with contextlib.suppress(OSError):
        os.rmdir(name, dir_fd=parent)


def _empty(top: int) -> None:
    """Remove everything in the directory ``top`` (fwalk never follows a link)."""
    os.fchmod(top, 0o700)
    for _root, _dirs, _files, root_fd in os.fwalk(".", dir_fd=top):
        os.fchmod(root_fd, 0o700)  # a read-only directory of the bot's would keep its files
    for _root, dirs, files, root_fd in os.fwalk(".", topdown=False, dir_fd=top):
        for name in files:
            os.unlink(name, dir_fd=root_fd)
        for name in dirs:
            try:
                os.rmdir(name, dir_fd=root_fd)
            except NotADirectoryError:  # a link to a directory: the link goes
                os.unlink(name, dir_fd=root_fd)


def copy_module(source: Path, target: Path | str, *, dir_fd: int | None = None) -> None:
    """Copy a module bot's file (its resolved path: never through a link, which could have
    been made to /dev/zero since, copied without end) to a new file ``target`` (of
    ``dir_fd``, when given), its mode and times kept."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise SubmitError(f"{source} changed while it was checked: it is a symbolic link "
                          "now") from None
    with open(fd, "rb") as src:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SubmitError(f"{source} changed while it was checked: {source} is not a "
                              "regular file")
        _write_copy(src, target, dir_fd, info)


def _write_copy(src: BinaryIO, target: Path | str, dir_fd: int | None, info: os.stat_result,
                budget: list[int] | None = None) -> bool:
    """Write what ``src`` holds to a new file ``target`` (never through a link) with the
    mode and times of ``info``; False when ``budget`` (files, bytes left) ran out."""
    out_fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    with open(out_fd, "wb") as out:
        while chunk := src.read(1 << 20):
            if budget is not None:
                budget[1] -= len(chunk)
                if budget[1] < 0:
                    return False
            out.write(chunk)
        out.flush()
        os.fchmod(out_fd, stat.S_IMODE(info.st_mode))
        os.utime(out_fd, ns=(info.st_atime_ns, info.st_mtime_ns))
    return True


def copy_tree(source: Path, target: Path | str, *, dir_fd: int | None = None) -> None:
    """Copy a bot directory to the new directory ``target`` (of ``dir_fd``, when given)
    through descriptors, on both sides (its root, each directory below and each file opened
    without following a link, a FIFO never waited on): a path would follow a link made since
    the check, and a root or file made a link to /dev or /dev/zero would be copied without
    end. Links are copied as links, then refused in the check's words; anything else but
    regular files and directories is refused here."""
    try:
        root = os.open(source, _OPEN_NO_FOLLOW | os.O_DIRECTORY)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise SubmitError(f"{source} changed while it was checked: it is a symbolic link "
                          "now") from None
    try:
        os.mkdir(target, 0o700, dir_fd=dir_fd)
        top = os.open(target, _OPEN_NO_FOLLOW | os.O_DIRECTORY, dir_fd=dir_fd)
    except BaseException:
        os.close(root)
        raise
    try:
        modes = _copy_below(source, root, top)
        for relative, mode in reversed(modes):  # (a read-only one is filled first)
            with opened_below(top, relative) as directory:
                os.fchmod(directory, stat.S_IMODE(mode))
    finally:
        os.close(root)
        os.close(top)


def _copy_below(source: Path, root: int, top: int) -> list[tuple[str, int]]:
    """Copy what the directory ``root`` (``source``) holds into the directory ``top``; the
    copied directories and their modes, to be given once they are filled."""
    budget = [MAX_BOT_FILES, MAX_BOT_BYTES]
    modes: list[tuple[str, int]] = []
    for dirpath, dirnames, filenames, from_fd in os.fwalk(dir_fd=root):
        if dirpath.count(os.sep) >= _MAX_DEPTH and dirnames:  # before fwalk recurses
            raise SubmitError(f"{source} changed while it was checked: its directories "
                              f"nest more than {_MAX_DEPTH} deep now")
        modes.append((dirpath, os.fstat(from_fd).st_mode))
        with opened_below(top, dirpath) as into:
            linked = [d for d in dirnames if _copied(d)
                      and stat.S_ISLNK(os.lstat(d, dir_fd=from_fd).st_mode)]
            for name in linked:
                os.symlink(os.readlink(name, dir_fd=from_fd), name, dir_fd=into)
            # fwalk itself never enters a link, even one made from here on
            dirnames[:] = [d for d in dirnames if _copied(d) and d not in linked]
            for name in dirnames:
                os.mkdir(name, 0o700, dir_fd=into)
            for name in filenames:
                if _copied(name):
                    _copy_file(name, from_fd, into, source, source / dirpath / name, budget)
    return modes


@contextlib.contextmanager
def opened_below(top: int, relative: str) -> Iterator[int]:
    """The directory ``relative`` (``.``, or names joined by '/') below ``top``, each step
    opened without following a link."""
    fd = os.dup(top)
    try:
        for part in (p for p in relative.split(os.sep) if p not in ("", ".")):
            step = os.open(part, _OPEN_NO_FOLLOW | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = step
        yield fd
    finally:
        os.close(fd)


def _copied(name: str) -> bool:
    return name not in SKIPPED_DIRS and not name.endswith(SKIPPED_SUFFIXES)


def _copy_file(name: str, dir_fd: int, into: int, root: Path, shown: Path,
               budget: list[int]) -> None:
    """Copy the file ``name`` of ``dir_fd`` (``shown``, of the submitted directory ``root``)
    to ``name`` in ``into`` within ``budget`` (files, bytes left: a file may grow while it
    is read)."""
    try:
        fd = os.open(name, _OPEN_NO_FOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        os.symlink(os.readlink(name, dir_fd=dir_fd), name, dir_fd=into)
        return
    with open(fd, "rb") as src:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SubmitError(f"{root} changed while it was checked: {printable(str(shown))} "
                              "is not a regular file: a bot directory may hold only regular "
                              "files and directories")
        budget[0] -= 1
        if budget[0] < 0 or not _write_copy(src, name, into, info, budget):
            raise SubmitError(f"{root} changed while it was checked: it holds more than "
                              f"{MAX_BOT_FILES:,} files or {MAX_BOT_BYTES >> 20} MiB now")
