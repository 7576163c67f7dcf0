"""A small seccomp-BPF deny list, built in pure Python (no libseccomp needed).

Why a deny list: bots are ordinary programs in any language, so an allow list would break
runtimes we cannot enumerate. What it denies is what a game bot never needs and what widens the
kernel attack surface or escapes the other layers: tracing other processes, mounting, new
namespaces, kernel modules and keyrings, BPF, io_uring, a parent-death signal other than
SIGKILL (the one that ends it with the referee), and every socket that is not AF_UNIX
(so a bot cannot reach the network even where no network namespace is available); and what would
let two bots signal each other: through the files they share read-only, file locks (made
no-ops) and inotify; System V and POSIX IPC objects; the page cache of those files (the
probes that leave a page uncached refused, its drop a no-op; reading the page itself still
tells, docs/SANDBOX.md); futexes on the pages of those files (a
wait not marked private fails with EAGAIN); and a change of its CPU affinity (a no-op:
a pinned worker's bots stay on its CPU); and the system calls that run longest after the
bot is frozen (memory populated at once, huge pages collapsed), on the CPU of the bot asked
next; and memory offered to KSM, whose merging of identical pages of two bots tells one what
the other holds. Anonymous memory files (``memfd_create``) fail
too, and a socket's buffer keeps its size (``setsockopt``, a no-op): their pages count
against no memory limit but a cgroup's. (``sysinfo``, the host's
free memory and process count, stays allowed: denied, glibc's ``sysconf(_SC_PHYS_PAGES)``
returns garbage, and runtimes size their heaps by it; docs/SANDBOX.md lists it among what is
left.) Denied calls fail with EPERM (``clone3`` with ENOSYS so libc falls back to ``clone``,
whose namespace flags we can inspect; Linux AIO, the futex2 calls and the memory files with
ENOSYS too; the populating and collapsing advice with EINVAL). Only x86_64 is encoded; elsewhere
the layer reports itself missing.
"""

from __future__ import annotations

import ctypes
import platform
import struct
import sys
from collections.abc import Callable

__all__ = ["filter_program", "installer", "supported"]

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000

_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_EPERM = 1
_ENOSYS = 38
_EOPNOTSUPP = 95
_EAGAIN = 11

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_AND_K = 0x54
_RET_K = 0x06

_OFF_NR = 0
_OFF_ARCH = 4
_OFF_ARG0 = 16  # low 32 bits of args[0] on little-endian
_OFF_ARG1 = 24
_OFF_ARG2 = 32
_OFF_ARG3 = 40
_OFF_ARG5 = 56

#: x86_64 syscall numbers denied with EPERM.
_DENIED_X86_64 = {
    "ptrace": 101, "syslog": 103, "vhangup": 153,
    "pivot_root": 155, "adjtimex": 159, "chroot": 161, "acct": 163, "settimeofday": 164,
    "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot": 169,
    "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173,
    "init_module": 175, "delete_module": 176, "quotactl": 179, "lookup_dcookie": 212,
    "clock_settime": 227, "kexec_load": 246, "add_key": 248, "request_key": 249,
    "keyctl": 250, "unshare": 272, "perf_event_open": 298, "name_to_handle_at": 303,
    "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308, "process_vm_readv": 310,
    "process_vm_writev": 311, "finit_module": 313, "kexec_file_load": 320, "bpf": 321,
    "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    # who opens which shared file when, seen from another bot: a covert channel
    "inotify_init": 253, "inotify_init1": 294, "fanotify_init": 300,
    # System V and POSIX IPC: objects two bots can share (and that outlive them) where no
    # IPC namespace of its own holds them (bubblewrap gives one; without it there is none)
    "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66,
    "shmdt": 67, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semtimedop": 220,
    "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
    "mq_notify": 244, "mq_getsetattr": 245,
    # page cache residency of a file range: a channel through the files bots share; mincore
    # tells it of a mapped file the bot owns (a user referee's bots own the kit and their
    # environments' files)
    "cachestat": 451, "mincore": 27,
    # another process's (or its own) memory advised through a pidfd: its huge-page collapse
    # runs on like the one below
    "process_madvise": 440,
}
#: x86_64 syscall numbers that change a file's mode, owner, times or extended attributes,
#: or its size by its path, denied with EPERM to a bot under the referee's own uid outside
#: bubblewrap: Landlock governs opening and making files, not these (``truncate`` only from
#: its ABI 3 on), and the referee's files (the kit every bot imports, the results database)
#: are that uid's to change.
_METADATA_X86_64 = {
    "truncate": 76, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94,
    "utime": 132,
    "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197,
    "lremovexattr": 198, "fremovexattr": 199, "utimes": 235, "fchownat": 260,
    "futimesat": 261, "fchmodat": 268, "utimensat": 280, "fchmodat2": 452, "setxattrat": 463,
    "removexattrat": 466,
}
#: x86_64 calls that change the limits, priority or scheduling of a process given by number,
#: with the selector its first argument must hold (``PRIO_PROCESS``, ``IOPRIO_WHO_PROCESS``;
#: None: no selector, the number is the first argument): a bot under the referee's own uid
#: lowered the referee's limits (``prlimit``: its CPU seconds, its files) and reniced it,
#: which Landlock does not govern. Allowed for the caller itself (0) only.
_OTHERS_LIMITS: dict[int, int | None] = {
    302: None,  # prlimit64(pid, ...)
    141: 0,  # setpriority(PRIO_PROCESS, who, ...)
    142: None, 144: None, 314: None,  # sched_setparam, sched_setscheduler, sched_setattr
    251: 1,  # ioprio_set(IOPRIO_WHO_PROCESS, who, ...)
}
#: ``ioctl`` commands that set a file's flags (``chattr``), which its owner may do through a
#: descriptor opened to read: a bot under the referee's own uid cleared the kit's no-atime
#: flag so. ``FS_IOC_SETFLAGS``, its 32-bit form, ``FS_IOC_FSSETXATTR``.
_IOCTL = 16
_SET_FLAGS = (0x40086602, 0x40046602, 0x401C5820)
#: Locks on a shared file (the kit, the interpreter) are a covert channel between bots, even
#: read-only ones: ``flock`` and the lock-setting ``fcntl`` commands succeed and do nothing
#: (a bot's own program still runs, an SQLite file of its own included).
_FLOCK = 73
_FCNTL = 72
#: ``sched_setaffinity`` succeeds and does nothing too: a worker pinned to one CPU
#: (``pin_workers``) pins its bots with it, and a bot that widened its own mask ran threads
#: on the other workers' CPUs, slowing their tables' bots against their clocks.
_SCHED_SETAFFINITY = 203
#: The page cache of the files every bot reads (the interpreter, /usr, the kit) is shared:
#: a page one bot reads is cached for all, one bit another reads back, a 64-bit word per
#: probe of 64 pages. The probe that needs no clock is refused (``preadv2``/``pwritev2``
#: with ``RWF_NOWAIT``: EOPNOTSUPP, as where it is unsupported; Linux AIO, which takes the
#: flag too; ``cachestat`` and ``mincore``, denied with the others) and so is the reset
#: (``fadvise`` DONTNEED, a no-op); what is left is reading the page, which its time and
#: the process's major faults tell (docs/SANDBOX.md, "Channels between bots").
#: Linux AIO takes the same flag in each request (``aio_rw_flags``), where no filter can see
#: it: the calls fail with ENOSYS, as on a kernel without AIO (glibc's ``aio_read`` uses
#: threads, not these).
_AIO_X86_64 = {"io_setup": 206, "io_destroy": 207, "io_getevents": 208, "io_submit": 209,
               "io_cancel": 210, "io_pgetevents": 333}
_PREADV2 = 327
_PWRITEV2 = 328
_RWF_NOWAIT = 0x8
_FADVISE64 = 221
_POSIX_FADV_DONTNEED = 4
#: A futex not marked private on a page of a file every bot maps (os.py, libc) is keyed by
#: the file and the offset, across uids and namespaces: one bot's threads wait on chosen
#: offsets, another's FUTEX_WAKE says how many it woke, 16 bits per probe and no clock. Such
#: a wait fails at once with EAGAIN (the word changed, as far as the caller knows: glibc
#: retries, so a process-shared lock, and pthread_join, spin instead of sleeping; threads'
#: locks, private, are untouched), so no wake ever finds a waiter. The PI locks are left:
#: they write the word, which a bot cannot on a page of a file it may only read (EFAULT; a
#: write to a private mapping makes the page its own).
#: futex_waitv and the futex2 calls carry the private flag where the filter cannot see it
#: (in a struct, or a flags word glibc never passes): ENOSYS, as on an older kernel.
_FUTEX = 202
_FUTEX_PRIVATE_FLAG = 128
#: FUTEX_CMD_MASK: the command without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME
_FUTEX_CMD_MASK = 0xFFFFFFFF & ~(128 | 256)
#: FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI: the calls that sleep on the word
_FUTEX_WAITS = (0, 9, 11)
_FUTEX2_X86_64 = {"futex_waitv": 449, "futex_wake": 454, "futex_wait": 455,
                  "futex_requeue": 456}
#: An anonymous memory file's pages count in no process's address space: a process held
#: its open files times its file size limit in them, past its memory limit and unseen by the
#: OOM killer, which ends the biggest process it sees (the referee) instead. ENOSYS, as on an
#: older kernel, where runtimes that try ``memfd_create`` fall back (the JVM's ZGC to a file
#: in the capped /dev/shm).
_MEMFD_X86_64 = {"memfd_create": 319, "memfd_secret": 447}
#: F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_NOTIFY
_FCNTL_LOCKS = (6, 7, 37, 38, 1024, 1026)
#: A process freezes (or stops) only when it next leaves the kernel, so one system call that
#: runs long runs on after its bot is frozen, on the CPU of the bot asked next. The longest
#: a bot could make, and none a runtime needs: memory populated at once (``mmap`` with
#: ``MAP_POPULATE``, EPERM; with ``MAP_NONBLOCK`` too the kernel populates nothing, allowed)
#: or by ``madvise`` (``MADV_POPULATE_READ``/``WRITE``), a range collapsed into huge pages
#: (``MADV_COLLAPSE``), and one reclaimed at once (``MADV_PAGEOUT``), which also evicts file
#: pages other bots read (what each took: docs/SANDBOX.md, "Layers"). The advice fails with
#: EINVAL, as on a kernel before it, where runtimes touch the pages themselves (the JVM's
#: pre-touch) and leave reclaim to the kernel.
_MMAP = 9
_MAP_POPULATE = 0x8000
_MAP_NONBLOCK = 0x10000
_MADVISE = 28
#: MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE, MADV_COLLAPSE
_LONG_ADVICE = (21, 22, 23, 25)
#: Memory offered to KSM, which merges identical pages of different processes: on a host
#: that runs it, which of a bot's pages merged (a write's time, its own /proc counts) tells
#: what another bot holds. ``MADV_MERGEABLE`` and ``prctl(PR_SET_MEMORY_MERGE)`` fail with
#: EINVAL, as on a kernel without KSM.
_MADV_MERGEABLE = 12
_PR_SET_MEMORY_MERGE = 67
_EINVAL = 22
_CLONE = 56
_CLONE3 = 435
#: ``prctl(PR_SET_PDEATHSIG, sig)``: the SIGKILL that ends a bot with the referee (under
#: bubblewrap, its init with bubblewrap) is set before the filter; a bot that cleared it, or
#: chose a signal it ignores, would outlive a referee killed without warning. Setting SIGKILL
#: (a helper tied to its parent) stays allowed.
_PRCTL = 157
_PR_SET_PDEATHSIG = 1
_SIGKILL = 9
_SOCKET = 41
_AF_UNIX = 1
#: What a socket's queue holds counts in no address space, bounded by its send buffer, which
#: ``setsockopt`` raises to twice ``net.core.wmem_max``: a few Unix socket pairs held more than
#: a process's memory limit. Raising a buffer succeeds and does nothing (a bot's sockets are
#: all Unix ones, where a buffer only bounds the queue).
_SETSOCKOPT = 54
_SOL_SOCKET = 1
#: SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE
_SOCKET_BUFFERS = (7, 8, 32, 33)
#: CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
_CLONE_NS_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 \
    | 0x20000000 | 0x40000000


def supported() -> bool:
    """Whether this interpreter's architecture has an encoded filter."""
    return sys.platform == "linux" and platform.machine() == "x86_64" and sys.maxsize > 2**32


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def filter_program(*, unix_sockets: bool = True, shares_uid: bool = False) -> bytes | None:
    """The compiled classic-BPF program (``struct sock_filter[]``), or None if unsupported.
    Without ``unix_sockets``, ``socket()`` is denied for every family (``socketpair`` still
    works): where no network namespace of its own holds them, a bot's abstract unix socket
    names are seen by every other bot (a connection refused, or denied by Landlock's scope:
    one bit per name). With ``shares_uid`` (the bot runs under the referee's own uid, outside
    bubblewrap), the calls that change a file's mode, owner, times or extended attributes
    (:data:`_METADATA_X86_64`, :data:`_SET_FLAGS`), and those that change another process's
    limits, priority or scheduling (:data:`_OTHERS_LIMITS`), are denied: Landlock governs
    neither."""
    if not supported():
        return None
    denied = sorted([*_DENIED_X86_64.values(),
                     *(_METADATA_X86_64.values() if shares_uid else ())])
    # Layout: [0] ld arch, [1] jeq arch, [2] ld nr, [3] jge x32, then one jeq per denied nr,
    # then the calls whose arguments are looked at, ret allow, and the shared tails.
    prog: list[tuple[int, int, int, int]] = []
    labels: dict[str, int] = {}
    fixups: list[tuple[int, str, str]] = []  # (index, "jt"|"jf", label)

    def emit(code: int, k: int, jt: str | int = 0, jf: str | int = 0) -> None:
        index = len(prog)
        prog.append((code, jt if isinstance(jt, int) else 0, jf if isinstance(jf, int) else 0, k))
        if isinstance(jt, str):
            fixups.append((index, "jt", jt))
        if isinstance(jf, str):
            fixups.append((index, "jf", jf))

    def label(name: str) -> None:
        labels[name] = len(prog)

    emit(_LD_W_ABS, _OFF_ARCH)
    emit(_JEQ_K, _AUDIT_ARCH_X86_64, 0, "kill")
    emit(_LD_W_ABS, _OFF_NR)
    emit(_JGE_K, _X32_BIT, "deny", 0)
    for nr in denied:
        emit(_JEQ_K, nr, "deny", 0)
    _argument_checks(emit, label, unix_sockets, shares_uid)
    label("deny")
    emit(_RET_K, _RET_ERRNO | _EPERM)
    label("noop")
    emit(_RET_K, _RET_ERRNO | 0)  # the call returns 0 and is not carried out
    label("enosys")
    emit(_RET_K, _RET_ERRNO | _ENOSYS)
    label("eagain")
    emit(_RET_K, _RET_ERRNO | _EAGAIN)
    label("eopnotsupp")
    emit(_RET_K, _RET_ERRNO | _EOPNOTSUPP)
    label("einval")
    emit(_RET_K, _RET_ERRNO | _EINVAL)
    label("kill")
    emit(_RET_K, _RET_KILL_PROCESS)

    for index, which, target in fixups:
        offset = labels[target] - index - 1
        if not 0 <= offset <= 255:  # pragma: no cover - the program is far shorter
            raise ValueError("seccomp jump out of range")
        code, jt, jf, k = prog[index]
        prog[index] = (code, offset, jf, k) if which == "jt" else (code, jt, offset, k)
    return b"".join(_insn(*insn) for insn in prog)


def _argument_checks(emit: Callable[..., None], label: Callable[[str], None],
                     unix_sockets: bool, shares_uid: bool) -> None:
    """The calls allowed or not by their arguments (the syscall number is loaded): each jumps
    to its own check, which ends at ``allow2`` or one of the shared tails."""
    emit(_JEQ_K, _MMAP, "mmap", 0)
    emit(_JEQ_K, _FUTEX, "futex", 0)
    emit(_JEQ_K, _MADVISE, "madvise", 0)
    emit(_JEQ_K, _CLONE3, "enosys", 0)
    for nr in sorted([*_AIO_X86_64.values(), *_FUTEX2_X86_64.values(),
                      *_MEMFD_X86_64.values()]):
        emit(_JEQ_K, nr, "enosys", 0)
    emit(_JEQ_K, _CLONE, "clone", 0)
    emit(_JEQ_K, _SOCKET, "socket" if unix_sockets else "deny", 0)
    emit(_JEQ_K, _FLOCK, "noop", 0)
    emit(_JEQ_K, _SCHED_SETAFFINITY, "noop", 0)
    emit(_JEQ_K, _FCNTL, "fcntl", 0)
    emit(_JEQ_K, _PRCTL, "prctl", 0)
    emit(_JEQ_K, _PREADV2, "rwf", 0)
    emit(_JEQ_K, _PWRITEV2, "rwf", 0)
    emit(_JEQ_K, _FADVISE64, "fadvise", 0)
    emit(_JEQ_K, _SETSOCKOPT, "setsockopt", 0)
    if shares_uid:
        for nr, which in _OTHERS_LIMITS.items():
            emit(_JEQ_K, nr, f"own-{which}", 0)
        emit(_JEQ_K, _IOCTL, "ioctl", 0)
    label("allow")
    emit(_RET_K, _RET_ALLOW)
    label("futex")
    emit(_LD_W_ABS, _OFF_ARG1)
    emit(_JSET_K, _FUTEX_PRIVATE_FLAG, "allow2", 0)
    emit(_AND_K, _FUTEX_CMD_MASK)
    for command in _FUTEX_WAITS:
        emit(_JEQ_K, command, "eagain", 0)
    emit(_RET_K, _RET_ALLOW)
    label("mmap")
    emit(_LD_W_ABS, _OFF_ARG3)
    emit(_JSET_K, _MAP_POPULATE, 0, "allow2")
    emit(_JSET_K, _MAP_NONBLOCK, "allow2", "deny")
    label("madvise")
    emit(_LD_W_ABS, _OFF_ARG2)
    for advice in (*_LONG_ADVICE, _MADV_MERGEABLE):
        emit(_JEQ_K, advice, "einval", 0)
    emit(_RET_K, _RET_ALLOW)
    label("fcntl")
    emit(_LD_W_ABS, _OFF_ARG1)
    for command in _FCNTL_LOCKS:
        emit(_JEQ_K, command, "noop", 0)
    emit(_RET_K, _RET_ALLOW)
    label("prctl")
    emit(_LD_W_ABS, _OFF_ARG0)
    emit(_JEQ_K, _PR_SET_MEMORY_MERGE, "einval", 0)
    emit(_JEQ_K, _PR_SET_PDEATHSIG, 0, "allow2")
    emit(_LD_W_ABS, _OFF_ARG1)
    emit(_JEQ_K, _SIGKILL, "allow2", "deny")
    label("clone")
    emit(_LD_W_ABS, _OFF_ARG0)
    emit(_JSET_K, _CLONE_NS_FLAGS, "deny", "allow2")
    label("socket")
    emit(_LD_W_ABS, _OFF_ARG0)
    emit(_JEQ_K, _AF_UNIX, "allow2", "deny")
    label("rwf")
    emit(_LD_W_ABS, _OFF_ARG5)
    emit(_JSET_K, _RWF_NOWAIT, "eopnotsupp", "allow2")
    label("fadvise")
    emit(_LD_W_ABS, _OFF_ARG3)
    emit(_JEQ_K, _POSIX_FADV_DONTNEED, "noop", "allow2")
    label("setsockopt")
    emit(_LD_W_ABS, _OFF_ARG1)
    emit(_JEQ_K, _SOL_SOCKET, 0, "allow2")
    emit(_LD_W_ABS, _OFF_ARG2)
    for option in _SOCKET_BUFFERS:
        emit(_JEQ_K, option, "noop", 0)
    if shares_uid:
        _shared_uid_checks(emit, label)
    label("allow2")
    emit(_RET_K, _RET_ALLOW)


def _shared_uid_checks(emit: Callable[..., None], label: Callable[[str], None]) -> None:
    """The checks of a bot under the referee's own uid: ``ioctl`` setting a file's flags
    (:data:`_SET_FLAGS`) is denied; a call of :data:`_OTHERS_LIMITS` is allowed when its
    selector argument (if any) names a process and its target argument is 0, the caller."""
    label("ioctl")
    emit(_LD_W_ABS, _OFF_ARG1)
    for command in _SET_FLAGS:
        emit(_JEQ_K, command, "deny", 0)
    emit(_RET_K, _RET_ALLOW)
    for which in sorted(set(_OTHERS_LIMITS.values()), key=str):
        label(f"own-{which}")
        if which is not None:
            emit(_LD_W_ABS, _OFF_ARG0)
            emit(_JEQ_K, which, 0, "deny")
        emit(_LD_W_ABS, _OFF_ARG1 if which is not None else _OFF_ARG0)
        emit(_JEQ_K, 0, "allow2", "deny")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def installer(program: bytes) -> Callable[[], None]:
    """A function that installs ``program`` on the calling process (for ``preexec_fn``).

    Everything is allocated here, in the parent, so the child after fork only makes two
    ``prctl`` calls: no imports, no allocation worth mentioning.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.restype = ctypes.c_int
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    fprog_ref = ctypes.byref(fprog)
    ul = ctypes.c_ulong

    def install() -> None:
        _keep = (buffer, fprog)  # noqa: F841 - keep the buffers alive in the closure
        if prctl(_PR_SET_NO_NEW_PRIVS, ul(1), ul(0), ul(0), ul(0)) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if prctl(_PR_SET_SECCOMP, ul(_SECCOMP_MODE_FILTER), fprog_ref, ul(0), ul(0)) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")

    return install
