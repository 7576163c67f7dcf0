"""What a bot sees of ``/proc`` under bubblewrap: its own processes, and host-wide files that
never change.

The ``/proc`` of a bot's pid namespace still shows host-wide counters (free memory in
``meminfo``, ``procs_running`` and ``processes`` in ``stat``, ``loadavg``, ``vmstat``,
``pressure``, the open-file count under ``sys``, the lock list in ``locks``, ...). One bot moves
them at will and another reads them: a channel between two bots at one table. So every
top-level entry that is not a process's is covered with a bind of a static file: ``stat`` with
the host's CPU lines and zero counters, snapshots of ``meminfo``, ``cpuinfo`` and ``uptime``, a
fixed ``loadavg``, a few constant sysctls under ``sys``; every other one an empty file or
directory. Kept as they are: the bot's own processes, and what its namespaces make its own
(``self``, ``net``, ``sysvipc``, ``mounts``) or never changes (``version``, ``cmdline``,
``filesystems``). The static files are made once per process in a root-owned, world-readable
``arena-kit-<pid>-*`` directory (swept like the kit when a referee died).
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path

from arena.sandbox.workdir import remove_at_exit

__all__ = ["proc_binds", "proc_readable", "proc_view"]

#: Top-level entries kept that are constant for the host's lifetime (or the namespace's own).
_CONSTANT = frozenset({"sysvipc", "version", "cmdline", "filesystems"})
#: Top-level entries kept: those, and links to a process's own view.
_KEPT = _CONSTANT | {"self", "thread-self", "net", "mounts"}
#: Sysctls a runtime may read; constant while the host runs.
_SYSCTLS = ("kernel/ostype", "kernel/osrelease", "kernel/pid_max", "kernel/ngroups_max",
            "kernel/threads-max", "kernel/random/boot_id", "vm/overcommit_memory",
            "fs/nr_open")
_EMPTY_FILE = ".empty"
_EMPTY_DIR = ".empty.d"

_lock = threading.Lock()
_view: Path | None = None


def proc_view() -> Path:
    """The directory of static ``/proc`` files (made on first use, removed at exit)."""
    global _view
    with _lock:
        if _view is None or not _view.exists():
            _view = _make_view()
        return _view


def proc_binds(*, unprivileged: bool) -> list[str]:
    """bubblewrap arguments covering ``/proc``'s host-wide entries (after ``--proc /proc``).
    An ``unprivileged`` bot (a user namespace of its own) cannot read the root-only ones
    anyway: they are left out (each bind costs bubblewrap a remount)."""
    argv: list[str] = []
    for static, host in _covers(unprivileged):
        argv += ["--ro-bind", static, host]
    return argv


def proc_readable(*, unprivileged: bool) -> list[str]:
    """The top-level ``/proc`` entries Landlock lets a bot read inside bubblewrap: the static
    covers and the constant entries (its own process's are added once it runs)."""
    return [host for _static, host in _covers(unprivileged)] + [
        f"/proc/{name}" for name in sorted(_CONSTANT)]


def _covers(unprivileged: bool) -> list[tuple[str, str]]:
    """(static file, ``/proc`` entry it covers) for every host-wide top-level entry."""
    view = proc_view()
    covers = []
    for name in sorted(os.listdir("/proc")):
        host = Path("/proc") / name
        if name.isdigit() or name in _KEPT or host.is_symlink():
            continue
        if unprivileged and not host.stat().st_mode & stat.S_IROTH:
            continue
        static = view / name
        if not static.exists():
            static = view / (_EMPTY_DIR if host.is_dir() else _EMPTY_FILE)
        covers.append((str(static), str(host)))
    return covers


def _make_view() -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"arena-kit-{os.getpid()}-"))
    (root / _EMPTY_FILE).touch()
    (root / _EMPTY_DIR).mkdir()
    _write(root / "stat", _static_stat(_read("/proc/stat")))
    _write(root / "meminfo", _read("/proc/meminfo"))
    _write(root / "cpuinfo", _read("/proc/cpuinfo"))
    _write(root / "uptime", _read("/proc/uptime"))
    _write(root / "loadavg", "0.00 0.00 0.00 1/1 1\n")
    for name in _SYSCTLS:
        text = _read(f"/proc/sys/{name}")
        if text:
            (root / "sys" / name).parent.mkdir(parents=True, exist_ok=True)
            _write(root / "sys" / name, text)
    (root / "sys").mkdir(exist_ok=True)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o444)
    os.chmod(root, 0o755)
    remove_at_exit(root)
    return root


def _static_stat(text: str) -> str:
    """``/proc/stat`` with the host's CPU lines (runtimes count CPUs there) and every counter
    zero; the boot time kept."""
    lines = []
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if name.startswith("cpu"):
            lines.append(" ".join([name if name != "cpu" else "cpu ",
                                   *("0" for _ in rest.split())]))
        elif name == "btime":
            lines.append(line)
    lines += ["intr 0", "ctxt 0", "processes 1", "procs_running 1", "procs_blocked 0",
              "softirq 0"]
    return "\n".join(lines) + "\n"


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _write(path: Path, text: str) -> None:
    path.write_text(text)
