"""A submit's files in the bots directory, and the registry file beside them.

The copy is staged beside the bots (``.incoming-``) and compared with what was checked, put
in place whole (the version it replaces kept under ``.versions/`` first), and a copy is
taken out whole; the registry file is written whole under the bots directory's lock; and
what submits killed midway left is removed. Which name and which entry is
:mod:`arena.registry.submission`'s bookkeeping.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from arena.common.abandoned import claim_abandoned
from arena.common.printable import printable
from arena.errors import BotError, SubmitError
from arena.registry.botspec import REGISTRY_FILE, VERSIONS_DIR, BotSpec
from arena.registry.copying import (
    copy_module,
    copy_tree,
    move,
    opened_below,
    remove_copy,
    remove_opened,
    swap_in,
)
from arena.registry.manifest import spec_from_path
from arena.sandbox import reaper

__all__ = ["Staged", "discard", "put_in_place", "registry_lock", "staged_copy",
           "versions_held", "write_registry"]

#: The prefix of the registry file in the writing, followed by its writer's process id.
_REGISTRY_TMP = ".registry-"

#: The prefix of a submit's copy in the making, followed by its process id.
_STAGING = ".incoming-"

_NO_FOLLOW_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@contextlib.contextmanager
def registry_lock(bots_dir: Path) -> Iterator[None]:
    """Submits one at a time from their copy to their registry entry: two at once would
    each write the registry as they read it, and the later would drop the other's entry.
    The lock is the bots directory's own (no lock file is left behind)."""
    try:
        bots_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(bots_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise SubmitError(f"cannot register into {bots_dir}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_registry(bots_dir: Path, entries: dict[str, dict[str, Any]]) -> None:
    """Write ``registry.yaml`` whole: its new text in a file of its own, renamed over it."""
    text = ("# Bots registered with `arena submit` (name -> content-hash version, path, "
            "metadata).\n" + yaml.safe_dump({"bots": entries}, sort_keys=True))
    _remove_abandoned(bots_dir, _REGISTRY_TMP)
    fd, tmp = tempfile.mkstemp(dir=bots_dir, prefix=f"{_REGISTRY_TMP}{os.getpid()}-",
                               suffix=".yaml")
    fcntl.flock(fd, fcntl.LOCK_EX)  # held until it is the registry (_remove_abandoned)
    try:  # mkstemp makes it private (0600): keep the registry's mode, or a plain file's
        mode = stat.S_IMODE((bots_dir / REGISTRY_FILE).stat().st_mode)
    except OSError:
        mode = 0o644
    os.fchmod(fd, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.replace(tmp, bots_dir / REGISTRY_FILE)


class Staged(NamedTuple):
    """A submit's checked copy: its name in the staging directory held by ``dir_fd`` (the
    staging directory's path may be another's to swap for a link once made), and its path,
    for messages."""

    path: Path
    dir_fd: int


@contextlib.contextmanager
def staged_copy(bots_dir: Path, spec: BotSpec) -> Iterator[Staged]:
    """A copy of the checked bot beside the bots (under ``.incoming-``), compared with what
    was checked: the check took seconds, in which whoever may write the submitted files
    could have changed them (or made one a link to a file of the host's). What is not put
    in place is removed on the way out."""
    try:
        bots_dir.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(bots_dir)
        staging = Path(tempfile.mkdtemp(dir=bots_dir, prefix=f"{_STAGING}{os.getpid()}-"))
        held = _hold(staging)
    except OSError as exc:
        raise SubmitError(f"cannot register into {bots_dir}: {exc.strerror or exc}") from None
    try:
        staged = staging / (f"{spec.name}.py" if spec.path.is_file() else spec.name)
        # written through the held descriptor: the staging directory may be another's to
        # swap for a link once made
        if spec.files == (spec.path,):  # as it was checked: a module, not what it is now
            copy_module(spec.path, staged.name, dir_fd=held)
        else:  # links copied as links (never followed), then refused below
            copy_tree(spec.path, staged.name, dir_fd=held)
        _same_as_checked(_through(held, staged), spec)
        yield Staged(staged, held)
    except OSError as exc:
        raise SubmitError(f"cannot register into {bots_dir}: {exc.strerror or exc}") from None
    finally:
        remove_copy(staging)
        os.close(held)


def _through(held: int, staged: Path) -> Path:
    """``staged`` as a path through the descriptor of its directory, ``held``: the copy
    made, whatever its directory's path names now (its path where /proc is not mounted)."""
    made = Path(f"/proc/self/fd/{held}")
    return made / staged.name if made.is_dir() else staged


def _same_as_checked(staged: Path, spec: BotSpec) -> None:
    """Refuse a copy that is not the bot that was checked."""
    try:
        version = spec_from_path(staged, spec.name).version
    except BotError as exc:  # named by the submitted files, not the copy about to go
        reason = str(exc)
        for copy in (staged.resolve(), staged):  # (read through /proc, it names the copy)
            reason = reason.replace(str(copy), str(spec.path))
        raise SubmitError(f"{spec.path} changed while it was checked: {reason}") from None
    if version != spec.version:
        raise SubmitError(f"{spec.path} changed while it was checked: version {spec.version} "
                          f"was checked, the files now make {version}; nothing was "
                          "registered (submit it again)")


def put_in_place(bots_dir: Path, spec: BotSpec, staged: Staged, target: Path,
                 replaced: Path | None) -> None:
    """Put the staged copy at ``target``, the files of the version it replaces kept aside
    under ``.versions/`` first. In their place, they are swapped whole (a league launching or
    restarting the bot meanwhile reads the old files or the new, never nothing), the old ones
    going with the staging directory; at another path (a module bot made a directory) they
    go once the registry names the new ones (the submit removes them then)."""
    try:
        if replaced is not None:
            _keep_version(bots_dir, spec.name, replaced)
        # from the staging directory held, never by its path: a link swapped in for it would
        # take the registered files out to its target, or its target's files in as the bot
        if replaced == target:
            # (a name no bot's can be: the old files, were they renamed aside, go with it)
            swap_in(staged.path, target, Path(".replaced"), staged.dir_fd)
        else:
            move(staged.path, target, source_dir_fd=staged.dir_fd)
    except OSError as exc:
        raise SubmitError(f"cannot register into {bots_dir}: {exc.strerror or exc}") from None


def _keep_version(bots_dir: Path, name: str, where: Path) -> None:
    """Copy a registered bot's files to ``.versions/<name>@<version>/`` before an update
    replaces them: a tournament that started with that version still resumes with it, and
    ``name@version`` names it in a spec or a match. Through descriptors: whoever may write
    the bots directory could make ``.versions`` (or the entry) a link between a look and a
    write by path, and the copy would be written at its target, outside the bots directory,
    or the target's files taken for the kept version."""
    old = spec_from_path(where, name)
    kept = f"{name}@{old.version}"
    with _versions_directory(bots_dir) as versions:
        try:
            info: os.stat_result | None = os.lstat(kept, dir_fd=versions)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            raise _linked(bots_dir / VERSIONS_DIR / kept, os.readlink(kept, dir_fd=versions))
        if info is not None:
            return
        if not where.is_dir():
            os.mkdir(kept, dir_fd=versions)
            with opened_below(versions, kept) as into:  # (its bytes, never a link's)
                copy_module(where.resolve(), f"{name}.py", dir_fd=into)
            return
        # a link made by hand at the registered path is read where it leads, as looked; links
        # within are copied as links, refused below: the files may have changed since the look
        copy_tree(where.resolve(), kept, dir_fd=versions)
        with opened_below(versions, kept) as copy:
            made = Path(f"/proc/self/fd/{copy}")  # the copy made, wherever it is named now
            if not made.is_dir():  # (no /proc mounted)
                made = bots_dir / VERSIONS_DIR / kept
            try:
                same = spec_from_path(made, name).version == old.version
            except BotError:
                same = False
        if not same:
            remove_copy(Path(kept), dir_fd=versions)
            raise SubmitError(f"the registered copy of {name!r} at {printable(str(where))} "
                              "changed while it was kept (whoever may write the bots "
                              "directory changed it); nothing was registered")


@contextlib.contextmanager
def _versions_directory(bots_dir: Path) -> Iterator[int]:
    """A descriptor of the bots directory's ``.versions``, made if missing; refused when it
    is a link (what lies at its target is not the bots directory's)."""
    bots = os.open(bots_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(VERSIONS_DIR, dir_fd=bots)
        try:
            versions = os.open(VERSIONS_DIR, _NO_FOLLOW_DIRECTORY, dir_fd=bots)
        except OSError:
            if stat.S_ISLNK(os.lstat(VERSIONS_DIR, dir_fd=bots).st_mode):
                raise _linked(bots_dir / VERSIONS_DIR,
                              os.readlink(VERSIONS_DIR, dir_fd=bots)) from None
            raise
    finally:
        os.close(bots)
    try:
        yield versions
    finally:
        os.close(versions)


@contextlib.contextmanager
def versions_held(bots_dir: Path) -> Iterator[int | None]:
    """A descriptor of the bots directory's ``.versions`` (None: there is none), to take kept
    versions out of by name: looked at first, it may be made a link before a removal by path,
    which would take the files of that name at the link's target."""
    try:
        fd = os.open(bots_dir / VERSIONS_DIR, _NO_FOLLOW_DIRECTORY)
    except FileNotFoundError:
        yield None
        return
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        raise SubmitError(f"{printable(str(bots_dir / VERSIONS_DIR))} is no directory of the "
                          "bots directory's own now (a symbolic link?); nothing more was "
                          "removed") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _linked(path: Path, target: str) -> SubmitError:
    return SubmitError(f"{printable(str(path))} is a symbolic link (to {printable(target)}): "
                       "the kept versions must be the bots directory's own; nothing was "
                       "registered (make it a directory of the bots directory, or remove it)")


def _hold(staging: Path) -> int:
    """A descriptor holding a lock on ``staging`` while this submit lives: another submit
    that can take the lock knows it abandoned, even where its process id means nothing (a
    submit of another machine, or of another pid namespace, sharing the bots directory)."""
    fd = os.open(staging, _NO_FOLLOW_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def discard(bots_dir: Path, path: Path, parent_fd: int | None = None) -> None:
    """Take ``path`` (a bot's copy) out of the bots directory at once, by a rename into a
    submit's kind of staging directory, then remove it there through descriptors: a removal
    killed midway leaves a directory the next submit clears, not half a bot. With
    ``parent_fd``, ``path`` is a name in that directory (:func:`versions_held`)."""
    staging = Path(tempfile.mkdtemp(dir=bots_dir, prefix=f"{_STAGING}{os.getpid()}-"))
    held = _hold(staging)
    try:
        move(path, staging / path.name, target_dir_fd=held, source_dir_fd=parent_fd)
    finally:
        remove_copy(staging)
        os.close(held)


def _remove_abandoned(bots_dir: Path, prefix: str = _STAGING) -> None:
    """Remove what submits killed before they could (SIGKILL, a power cut) left under
    ``prefix``: their copies (``.incoming-``, directories), their registry files in the
    writing (``.registry-``, files); only those whose process is gone (or started after
    them: it took a dead submit's number) and whose lock nobody holds. The process id
    covers the moment between the creation and the lock; the lock, a process of the same
    id that is not ours to see."""
    directory = prefix == _STAGING
    for entry in bots_dir.glob(f"{prefix}*"):
        owner = re.fullmatch(rf"{re.escape(prefix)}(\d+)-.+", entry.name)
        if owner is None or reaper.may_have_made(int(owner[1]), entry):
            continue  # (one made by an older arena names no process: left alone)
        held = claim_abandoned(entry, directory=directory)
        if held is None:
            continue  # its submit runs still, or it is not one of ours (planted, a link)
        try:
            if directory:  # emptied through the descriptor: never one swapped in since
                remove_opened(held, entry)
            else:  # a name removed, never followed
                with contextlib.suppress(OSError):
                    entry.unlink()
        finally:
            os.close(held)
