"""The command line a bot is started with: the interpreter and paths rewritten, and the
bubblewrap wrapper (what the bot sees read-only) when that layer is active."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.sandbox import landlock
from arena.sandbox.limits import MIB, Limits
from arena.sandbox.procview import proc_binds, proc_readable
from arena.sandbox.report import SandboxReport

__all__ = ["BOT_ACCOUNT", "BOX_PREFIX", "BWRAP_BOT_DIR", "DEVICES", "bwrap_argv", "confinement",
           "moving_stdio", "read_paths", "rewrite_command", "write_accounts"]

_PYTHON_NAME = re.compile(r"python(3(\.\d+)?)?")  # fullmatch
#: Where the bot's private copy appears inside bubblewrap.
BWRAP_BOT_DIR = "/bot"
#: How the temporary directory holding a bot's copy (``<box>/bot``) is named.
BOX_PREFIX = "arena-box-"
#: System paths bound read-only inside bubblewrap (skipped where absent).
_BWRAP_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: (OpenSSL's configuration too: Node.js reads it at start-up and, denied it by Landlock
#: rather than finding it absent, exits. Not /etc/localtime: bots run with TZ=UTC, and the
#: file is the host's zone whole, to a bot that reads it or drops TZ.)
_BWRAP_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
              "/etc/nsswitch.conf", "/etc/ssl/openssl.cnf")
#: The account files: the host's under Landlock; under bubblewrap, made for the bot
#: (:func:`write_accounts`), since the host's name its people (a class server's students).
_ACCOUNTS = ("/etc/passwd", "/etc/group")
#: The name the bot's own uid and gid have in those it is given.
BOT_ACCOUNT = "bot"
#: Runtimes' own configuration directories under /etc (globs): Python's, and the JVM's, whose
#: Debian package keeps there what its conf/ links to (java.security: without it a JVM stops
#: at its first SecureRandom, or its launcher of a source file).
_ETC_RUNTIMES = ("python3*", "java-*")
#: Devices a bot may read and write (Landlock; bubblewrap's --dev gives the same set).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


#: A shell that can move any descriptor (dash, often /bin/sh, takes 0-9 only).
_BASH = next((path for path in ("/usr/bin/bash", "/bin/bash") if os.access(path, os.X_OK)),
             None)


def moving_stdio(bot_in: int, bot_out: int, python: str,
                 confine: Mapping[str, object] | None = None) -> list[str]:
    """The command prefix that makes ``bot_in`` and ``bot_out`` the program's stdin and stdout
    (closing them) and then becomes the program: bash, else (slower to start) the interpreter
    without its site. With ``confine`` (:func:`arena.sandbox.landlock.confine_self`'s
    arguments) the interpreter, which first enforces that Landlock ruleset on itself. It runs
    isolated (``-I``): the working directory, the bot's, is not on its path, where a bot file
    named like a module it imports (``types.py``) would run in it before the ruleset."""
    moves = (f"os.dup2({bot_in}, 0); os.dup2({bot_out}, 1); "
             f"os.close({bot_in}); os.close({bot_out})\n")
    if confine is not None:
        # The rules as a literal of the program (plain strings and numbers, written by repr):
        # importing json would cost the start more than the ruleset does.
        return [python, "-I", "-S", "-c", f"{_landlock_source()}\nconfine_self(**{confine!r})\n"
                f"{moves}{_EXEC_AS_A_SHELL}"]
    if _BASH is not None:
        return [_BASH, "--norc", "--noprofile", "-c",
                f'exec 0<&{bot_in} 1>&{bot_out} {bot_in}<&- {bot_out}>&- && exec -- "$@"', "bash"]
    return [python, "-I", "-S", "-c", f"import os, sys\n{moves}{_EXEC_AS_A_SHELL}"]


#: The Python stubs' exec of the bot's program, failing as the shell does (its exit codes and
#: a line, not a traceback), which is what tells an author why the program did not run.
_EXEC_AS_A_SHELL = """\
try:
    os.execvp(sys.argv[1], sys.argv[1:])
except OSError as exc:
    sys.stderr.write(f"exec: {sys.argv[1]}: {exc.strerror}\\n")
    os._exit(127 if isinstance(exc, FileNotFoundError) else 126)
"""


@functools.cache
def _landlock_source() -> str:
    """The Landlock module's own source: the stub's program, which cannot import the arena
    (the kit need not be visible in the box, and ``-I -S`` finds no package)."""
    return Path(landlock.__file__).read_text()


def confinement(report: SandboxReport, visible: list[Path], *,
                unprivileged: bool) -> dict[str, object]:
    """The Landlock ruleset of a bot inside bubblewrap (:func:`moving_stdio`'s ``confine``):
    what the box holds, read-only (its top-level directories are the ones bubblewrap binds);
    its private /tmp and /dev/shm writable; the devices; and of ``/proc`` the static files
    (its own process's entries are added once it runs)."""
    return {"read": read_paths(report, visible, Path(BWRAP_BOT_DIR))
                    + proc_readable(unprivileged=unprivileged),
            "write": ["/tmp", "/dev/shm"], "devices": list(DEVICES),
            "abi": landlock.abi_version()}


def rewrite_command(command: Sequence[str], workdir: Path, python: str) -> list[str]:
    """``python``/``python3`` -> the probed interpreter; absolute paths into workdir -> the
    same file in the private copy (relative to the working directory)."""
    argv = list(command)
    if _PYTHON_NAME.fullmatch(argv[0]):
        argv[0] = python
    root = workdir.resolve()
    for i in range(1, len(argv)):
        arg = argv[i]
        if not arg.startswith("/"):
            continue
        path = Path(arg).resolve()
        if root.is_file():
            if path == root:
                argv[i] = root.name
        elif path == root:
            argv[i] = "."
        elif path.is_relative_to(root):
            argv[i] = str(path.relative_to(root))
    return argv



def _runtime_configs() -> list[str]:
    """The runtimes' configuration directories this host has under /etc."""
    return [str(p) for pattern in _ETC_RUNTIMES for p in sorted(Path("/etc").glob(pattern))]


def read_paths(report: SandboxReport, visible: list[Path], bot_copy: Path) -> list[str]:
    """What a bot may read (and execute) under Landlock: the same view bubblewrap gives."""
    paths = [*_BWRAP_SYSTEM, *_BWRAP_ETC, *_ACCOUNTS, *_runtime_configs()]
    paths += list(report.python_prefixes) + [str(p) for p in visible]
    # Of /proc, the bot's own process is added once it exists (``landlock.restrictor``);
    # another process's command line would show the referee's arguments (a --seed), and the
    # host-wide files (meminfo, stat, loadavg, sys, ...) counters another bot moves at will.
    # Runtimes find the CPU count without them (sched_getaffinity).
    paths.append(str(bot_copy))
    return paths


def write_accounts(directory: Path, uid: int, gid: int) -> Path:
    """``directory`` made, holding the ``passwd`` and ``group`` a bot sees under bubblewrap:
    root, nobody, and its own uid and gid named :data:`BOT_ACCOUNT` (runtimes that ask for
    the user's name get one), nobody else's."""
    directory.mkdir(mode=0o755)
    users = {0: "root", 65534: "nobody"}
    groups = {0: "root", 65534: "nogroup"}
    users.setdefault(uid, BOT_ACCOUNT)
    groups.setdefault(gid, BOT_ACCOUNT)
    home = {0: "/root", 65534: "/nonexistent"}
    (directory / "passwd").write_text("".join(
        f"{name}:x:{number}:{gid if number == uid else number}:{name}:"
        f"{home.get(number, '/tmp')}:/usr/sbin/nologin\n" for number, name in users.items()))
    (directory / "group").write_text("".join(
        f"{name}:x:{number}:\n" for number, name in groups.items()))
    for path in (directory / "passwd", directory / "group"):
        os.chmod(path, 0o644)
    return directory


def bwrap_argv(report: SandboxReport, limits: Limits, bot_copy: Path, visible: list[Path],
               seccomp_fd: int | None, info_fd: int, *, unprivileged: bool,
               accounts: Path) -> list[str]:
    """bubblewrap's command line; ``accounts`` holds the bot's ``passwd`` and ``group``."""
    assert report.bwrap is not None
    argv = [report.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--hostname", "arena-bot"]
    if unprivileged:
        argv += ["--unshare-user", "--disable-userns"]
    else:
        argv += ["--cap-drop", "ALL"]
    for path in _BWRAP_SYSTEM:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for path in _BWRAP_ETC:
        argv += ["--ro-bind-try", path, path]
    for path in _ACCOUNTS:
        argv += ["--ro-bind", str(accounts / Path(path).name), path]
    for etc in _runtime_configs():
        argv += ["--ro-bind-try", etc, etc]
    for prefix in report.python_prefixes:
        if not any(prefix == p or prefix.startswith(p + "/") for p in _BWRAP_SYSTEM):
            argv += ["--ro-bind", prefix, prefix]
    # Every writable place is a size-capped tmpfs (tmpfs lives in the host's memory, and only
    # a cgroup would count it against the bot): /tmp and /dev/shm; the root bubblewrap builds
    # and /dev are made read-only (device nodes stay usable).
    tmp_bytes = str(limits.tmp_mb * MIB)
    argv += ["--proc", "/proc", *proc_binds(unprivileged=unprivileged), "--dev", "/dev",
             "--remount-ro", "/dev",
             "--size", tmp_bytes, "--perms", "1777", "--tmpfs", "/dev/shm",
             "--size", tmp_bytes, "--perms", "1777", "--tmpfs", "/tmp"]
    for seen in visible:
        resolved = str(seen.resolve())
        argv += ["--ro-bind", resolved, resolved]
        if str(seen) != resolved and seen.is_absolute():
            argv += ["--symlink", resolved, str(seen)]
    argv += ["--ro-bind", str(bot_copy), BWRAP_BOT_DIR, "--remount-ro", "/",
             "--chdir", BWRAP_BOT_DIR]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--info-fd", str(info_fd), "--"]
    return argv
