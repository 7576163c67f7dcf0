"""Landlock: an unprivileged filesystem allow list, the fallback when bubblewrap cannot run.

Where user namespaces are unavailable (kernels or distributions that forbid them for
unprivileged users, containers without them) bubblewrap fails, but Landlock (Linux 5.13+) still
lets a process give up filesystem access for itself and its children. The bot may then read and
execute only the system directories, its own copy, the kit and the given paths; write only its
scratch directory and a few devices; and (ABI 6+) not signal processes or reach abstract unix
sockets outside its own sandbox; (ABI 4+) not bind or connect TCP. Of ``/proc`` it reads its
own process, never another process (as in bubblewrap's pid namespace).

Under bubblewrap too (:func:`confine_self`, run by the stub that becomes the bot inside the
box, after bubblewrap's mounts: a Landlock domain may not mount): the mount namespace gives
the view, but its ``/proc`` holds every process's entries, the bot's own ``pagemap`` and
``smaps`` among them, which no bind can cover (the processes do not exist yet); the ruleset
allows what the box holds and, of ``/proc``, its static files and the bot's own entries but
those (:data:`_PROC_SKIPPED`).
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from collections.abc import Callable, Iterable

__all__ = ["abi_version", "confine_self", "restrictor", "ruleset"]

_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

_EXECUTE = 1 << 0
_WRITE_FILE = 1 << 1
_READ_FILE = 1 << 2
_READ_DIR = 1 << 3
_TRUNCATE = 1 << 14
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | (1 << 15)
_READ = _EXECUTE | _READ_FILE | _READ_DIR

_NET_BIND_TCP = 1 << 0
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
_SCOPE_SIGNAL = 1 << 1

_PR_SET_NO_NEW_PRIVS = 38
#: Entries of a bot's own /proc/<pid> that get no rule (see :func:`restrictor`).
_PROC_SKIPPED = frozenset({"net", "task", "root", "cwd", "exe", "pagemap", "smaps",
                           "smaps_rollup", "numa_maps"})


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is unavailable."""
    if sys.platform != "linux" or os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    try:
        libc = _libc()
        libc.syscall.restype = ctypes.c_long
        version = libc.syscall(ctypes.c_long(_SYS_CREATE_RULESET), None, ctypes.c_size_t(0),
                               ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= 1 << 13  # refer
    if abi >= 3:
        rights |= 1 << 14  # truncate
    if abi >= 5:
        rights |= 1 << 15  # ioctl_dev
    return rights


def ruleset(*, read: Iterable[str], write: Iterable[str], devices: Iterable[str],
            abi: int) -> int:
    """Build a ruleset in this process and return its fd (the caller closes it)."""
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    handled = _handled_fs(abi)
    attr = _RulesetAttr(handled, 0, 0)
    size = 8
    if abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    fd = libc.syscall(ctypes.c_long(_SYS_CREATE_RULESET), ctypes.byref(attr),
                      ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, rights in ((read, _READ), (devices, _READ_FILE | _WRITE_FILE),
                              (write, handled)):
            for path in paths:
                _add(libc, int(fd), path, rights & handled)
    except BaseException:
        os.close(fd)
        raise
    return int(fd)


def _add(libc: ctypes.CDLL, ruleset_fd: int, path: str, rights: int) -> None:
    try:
        path_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist here needs no rule
    try:
        if not stat.S_ISDIR(os.fstat(path_fd).st_mode):
            rights &= _FILE_RIGHTS
        beneath = _PathBeneathAttr(rights, path_fd)
        if libc.syscall(ctypes.c_long(_SYS_ADD_RULE), ctypes.c_int(ruleset_fd),
                        ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(beneath),
                        ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        try:  # not contextlib: the stub in bubblewrap, which runs this module, starts faster
            os.close(path_fd)
        except OSError:
            pass


def restrictor(ruleset_fd: int, *, abi: int = 1,
               own_proc: bool = False) -> Callable[[], None]:
    """A function enforcing the ruleset on the calling process (for ``preexec_fn``). With
    ``own_proc`` it first allows reading the process's own ``/proc/<pid>``, known only once
    forked: the rest of ``/proc`` (every other process's command line, the referee's seed
    among them) stays out of reach."""
    libc = _libc()
    prctl, syscall = libc.prctl, libc.syscall
    ul = ctypes.c_ulong
    fd_arg, zero = ctypes.c_int(ruleset_fd), ctypes.c_uint32(0)
    number = ctypes.c_long(_SYS_RESTRICT_SELF)
    proc_rights = _READ & _handled_fs(abi)

    # Every entry of its own /proc/<pid> but net (and task, whose threads hold net too):
    # without a network namespace, net shows the host's sockets (sockstat, unix names),
    # which another bot changes at will; not the links root, cwd and exe, whose rule would
    # be on what they point to (root: the whole filesystem); and not the files that tell
    # which of its pages of a shared file another process maps too (a bit per page that
    # another bot sets and clears at will).
    own = [f"/proc/self/{name}" for name in sorted(os.listdir("/proc/self"))
           if name not in _PROC_SKIPPED] if own_proc else []

    def restrict() -> None:
        if own:
            _add(libc, ruleset_fd, "/proc/self", proc_rights & _READ_DIR)
        for path in own:
            _add(libc, ruleset_fd, path, proc_rights)
        if prctl(_PR_SET_NO_NEW_PRIVS, ul(1), ul(0), ul(0), ul(0)) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if syscall(number, fd_arg, zero) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")

    return restrict


def confine_self(*, read: Iterable[str], write: Iterable[str], devices: Iterable[str],
                 abi: int) -> None:
    """Enforce a ruleset on this process and what it becomes: ``read``, ``write`` and
    ``devices`` as :func:`ruleset` takes them, and its own ``/proc/<pid>`` entries as
    :func:`restrictor` allows them. Run inside bubblewrap by the stub that then execs the bot
    (this module's source is its program: it imports nothing of the arena)."""
    fd = ruleset(read=read, write=write, devices=devices, abi=abi)
    try:
        restrictor(fd, abi=abi, own_proc=True)()
    finally:
        os.close(fd)
