"""What a bot can leave outside its own directories, removed once it ended: System V IPC objects
and files in the host's shared temporary places.

Under bubblewrap a bot has an IPC namespace and a ``/tmp`` and ``/dev/shm`` of its own, which
die with it; under Landlock the seccomp layer denies IPC and Landlock every write outside its
scratch. In the bare mode neither holds: a bot may create a shared memory segment, a semaphore
set, a message queue (they outlive every process, and another bot may attach to them) or
files, sockets and FIFOs in ``/tmp``, ``/var/tmp`` and ``/dev/shm``. A bot of a root referee
runs under a uid of its own (:mod:`arena.sandbox.uids`), so what that uid owns once its
processes are gone is its leftovers: :func:`release_uids` removes them when it ends, and
:func:`sweep_dead_uids` (the next referee) what a referee killed without warning left.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from arena.sandbox import reaper
from arena.sandbox.uids import is_bot_uid

__all__ = ["SHARED_TEMP", "ipc_objects", "release_uids", "sweep_dead_uids"]

#: World-writable places a bot without a filesystem layer may write to (and the POSIX message
#: queues, through a mount of their filesystem).
SHARED_TEMP = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
_IPC_RMID = 0
_MNT_DETACH = 0x2
#: /proc/sysvipc file -> the id column's name.
_IPC_KINDS = {"shm": "shmid", "sem": "semid", "msg": "msqid"}


def ipc_objects() -> list[tuple[str, int, int, int]]:
    """Every System V IPC object of this IPC namespace: (kind, id, owner uid, creator uid)."""
    found = []
    for kind, id_column in _IPC_KINDS.items():
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        header = lines[0].split()
        at = {name: header.index(name) for name in (id_column, "uid", "cuid")}
        for line in lines[1:]:
            fields = line.split()
            with contextlib.suppress(ValueError, IndexError):
                found.append((kind, int(fields[at[id_column]]), int(fields[at["uid"]]),
                              int(fields[at["cuid"]])))
    return found


def _remove_ipc(kind: str, ident: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if kind == "shm":
        libc.shmctl(ident, _IPC_RMID, None)
    elif kind == "sem":
        libc.semctl(ident, 0, _IPC_RMID)
    else:
        libc.msgctl(ident, _IPC_RMID, None)


def release_uids(uids: set[int]) -> int:
    """Remove the IPC objects and shared temporary files owned (or created) by ``uids``,
    whose processes have all ended; return how many were removed. Only directories anyone
    may write to are searched: no other directory can hold a file of such a uid."""
    removed = 0
    for kind, ident, uid, cuid in ipc_objects():
        if uid in uids or cuid in uids:
            _remove_ipc(kind, ident)
            removed += 1
    with _mqueue() as queues:
        for place in (*SHARED_TEMP, *queues):
            removed += _remove_owned(place, uids)
    return removed


@contextlib.contextmanager
def _mqueue() -> Iterator[list[str]]:
    """The POSIX message queues of this IPC namespace as files: a mount of their
    filesystem, made for the moment (root only; none where /dev/mqueue is one already)."""
    if os.geteuid() != 0 or os.path.ismount("/dev/mqueue"):
        yield []
        return
    where = tempfile.mkdtemp(prefix="arena-mqueue-")
    libc = ctypes.CDLL(None, use_errno=True)
    mounted = libc.mount(b"mqueue", where.encode(), b"mqueue", ctypes.c_ulong(0), None) == 0
    try:
        yield [where] if mounted else []
    finally:
        if mounted:
            libc.umount2(where.encode(), _MNT_DETACH)
        with contextlib.suppress(OSError):
            os.rmdir(where)


def _remove_owned(directory: str, uids: set[int]) -> int:
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_uid in uids:
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(entry.path)  # root's: modes do not stop it
                else:
                    os.unlink(entry.path)
                removed += 1
        elif stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
            removed += _remove_owned(entry.path, uids)
    return removed


def sweep_dead_uids() -> int:
    """What bots of the uid range left whose processes have all ended (a referee killed
    before it could remove them); bots of a live referee still run, and are left alone."""
    candidates = {uid for _kind, _ident, owner, creator in ipc_objects()
                  for uid in (owner, creator) if is_bot_uid(uid)}
    with _mqueue() as queues:
        for place in (*SHARED_TEMP, *queues):
            candidates |= _owners(place)
    dead = {uid for uid in candidates if reaper.processes_of_uid(uid) == 0}
    return release_uids(dead) if dead else 0


def _owners(directory: str) -> set[int]:
    """Bot uids owning entries of ``directory`` or of its world-writable subdirectories."""
    owners: set[int] = set()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return owners
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if is_bot_uid(st.st_uid):
            owners.add(st.st_uid)
        elif stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
            owners |= _owners(entry.path)
    return owners
