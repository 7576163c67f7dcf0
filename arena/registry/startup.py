"""Why a bot's program would not start, as far as its files tell (:func:`command_problem`)."""

from __future__ import annotations

import os
import platform
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

from arena.common.printable import printable
from arena.registry.botspec import PYTHON
from arena.registry.environments import environment_of_command
from arena.sandbox import BOT_PATH
from arena.sandbox.commandline import BWRAP_BOT_DIR

__all__ = ["command_problem"]


def command_problem(command: Sequence[str], workdir: str | Path) -> str | None:
    """Why a bot's program would not start, as far as its files tell: a bare name of one of
    the bot's own files (looked up on PATH, not in the bot's directory) or of a program not
    on the bot's PATH (a tool of the host user's, as ``cargo``), a path out of the bot's
    directory and the system's (a binary built elsewhere), a program and its arguments given
    as one argument (``"node bot.js"``), a path in the bot's directory that names nothing
    there (a binary not built yet), a file not executable or built for another system or
    processor, or a script whose ``#!`` line ends in a Windows line ending or names an
    interpreter that is not here. The system's own words ("not found", "No such file or
    directory", with the path inside the sandbox) name the program, not the cause.

    Runs in the referee, maybe as root, on a bot's say-so: it reads only a regular file of
    the bot's own directory (no absolute path, no way out with "..", no link, FIFO or
    device, never blocking), and of the host it tells only whether an interpreter exists in
    the system directories every bot sees anyway. A module bot's program is the sandbox's own
    Python, never its files' fault: its "No such file or directory" is the bot's own
    exception, told by its traceback; so is a bot's that runs in its packages' environment
    (that environment's Python)."""
    if not command or command[0] == PYTHON or environment_of_command(command) is not None:
        return None
    program = str(command[0])
    directory = Path(workdir)
    if "\0" in program:
        return None
    if program.split() != [program] and not _is_own_file(directory, program):
        apart = ", ".join(printable(word) for word in program.split())
        return (f"{printable(program)!r} is one argument with spaces in it: bot.yaml's command "
                f"lists each argument apart, [{apart}]")
    if "/" not in program:
        return _bare_problem(directory, program)
    if _outside(directory, program):
        return (f"{printable(program)} lies outside the bot's directory: the sandbox shows a "
                "bot its own files and the system's (/usr, /bin, /lib), no other path of the "
                "host: copy the program into the bot's directory and run it as ./NAME")
    if _missing(directory, program):
        return (f"{printable(program)} is not in the bot's directory: build it first? the "
                "arena never compiles")
    head = _head(directory, program)
    if head is None:
        return None
    start, executable = head
    first = start.split(b"\n", 1)[0]
    shown = printable(program)
    if not executable:  # "Permission denied", of a file the author sees
        return f"{shown} is not executable: chmod +x {shown}"
    if not first.startswith(b"#!"):
        return _foreign_binary(start, shown)
    if first.endswith(b"\r"):
        return (f"the #! line of {shown} ends in a Windows line ending (\\r): save it with "
                "Unix line endings")
    words = first[2:].split()
    interpreter = words[0].decode(errors="replace") if words else ""
    if _in_system_dirs(interpreter) and not os.path.lexists(interpreter):
        return (f"the #! line of {shown} names {printable(interpreter)}, which is not "
                "installed here")
    return None


def _in_system_dirs(path: str) -> bool:
    """Whether ``path`` leads into the system directories and stays there: no ``..`` (the
    words ``/usr/../root/x`` start in ``/usr``) and no link out on the way (Debian's
    ``/usr/lib/ssl/private`` leads to the root-only ``/etc/ssl/private``). Else whether it
    exists would tell the bot what the host holds where it may not look."""
    if "\0" in path or not path.startswith(_SYSTEM_DIRS) or ".." in path.split("/"):
        return False
    return os.path.realpath(path).startswith(_SYSTEM_DIRS)


def _bare_problem(directory: Path, program: str) -> str | None:
    """Why a bare program name would not run: none where the bot's PATH holds it."""
    if shutil.which(program, path=BOT_PATH) is not None:
        return None
    shown = printable(program)
    if (directory / program).is_file():
        return (f"{shown!r} is a file of the bot: write ./{shown} to run it; a bare name is "
                "looked up on PATH")
    return (f"{shown!r} is not on the bot's PATH ({BOT_PATH}; the host user's own, "
            "~/.cargo/bin say, is not seen): install it there, or build the bot beforehand "
            "and run its program by its path (./bot): the arena never compiles")


#: Where a bot's interpreter may live: the system directories every bot sees read-only.
_SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/")


def _is_own_file(directory: Path, program: str) -> bool:
    """Whether ``program`` names a file of the bot's directory (whose name may hold a
    space)."""
    return not _outside(directory, program if "/" in program else f"./{program}") and \
        os.path.lexists(directory / program)


def _outside(directory: Path, program: str) -> bool:
    """Whether ``program`` names a path out of the bot's directory that is none of the system
    directories (a binary built in a target directory elsewhere, ``../build/bot``), judged
    from the words alone: whether the host holds that path is not the bot's to learn."""
    if program.startswith("/"):
        return not program.startswith((*_SYSTEM_DIRS, f"{BWRAP_BOT_DIR}/"))
    return not os.path.normpath(directory / program).startswith(
        os.path.normpath(directory) + os.sep)


def _missing(directory: Path, program: str) -> bool:
    """Whether ``program``, a path inside ``directory``, names nothing there (a compiled
    bot's binary not built yet). False for a path out of it: that would tell what the host
    holds."""
    if program.startswith("/"):
        return False
    root = directory.resolve()
    path = (root / program).resolve()
    return path.is_relative_to(root) and not os.path.lexists(path)


#: ELF machine numbers (the header's ``e_machine``) a bot may have been built for, and the
#: name ``uname -m`` gives each.
_MACHINES = {0x03: "i386", 0x28: "arm", 0x3E: "x86_64", 0xB7: "aarch64", 0xF3: "riscv64"}
#: The first bytes of programs of other systems: macOS (Mach-O, 32 and 64 bits, either byte
#: order) and Windows.
_FOREIGN = ((b"\xcf\xfa\xed\xfe", "macOS"), (b"\xce\xfa\xed\xfe", "macOS"),
            (b"\xfe\xed\xfa\xcf", "macOS"), (b"\xfe\xed\xfa\xce", "macOS"), (b"MZ", "Windows"))


def _foreign_binary(start: bytes, shown: str) -> str | None:
    """Why a program's first bytes would not run here ("Exec format error"): built for
    another system, or for another processor; None for anything else."""
    here = platform.machine()
    system = next((name for magic, name in _FOREIGN if start.startswith(magic)), None)
    if system is not None:
        return (f"{shown} is a program for {system}, not for Linux: build it on this machine "
                f"(Linux, {here}), or cross-compile it for Linux {here}")
    if not start.startswith(b"\x7fELF") or len(start) < 20:
        return None
    machine = int.from_bytes(start[18:20], "little" if start[5] == 1 else "big")
    built = _MACHINES.get(machine)
    if built is None or built == here or here not in _MACHINES.values():
        return None
    return (f"{shown} is a program for {built} processors, not for this machine's {here}: "
            f"build it here, or cross-compile it for Linux {here}")


def _head(directory: Path, program: str) -> tuple[bytes, bool] | None:
    """The first 512 bytes of ``program`` and whether it may be executed, when it is a
    regular file inside ``directory``; None for anything else."""
    if program.startswith("/"):
        return None
    root = directory.resolve()
    script = (root / program).resolve()
    if not script.is_relative_to(root):
        return None
    try:
        fd = os.open(script, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY)
    except (OSError, ValueError):
        return None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            return None
        return os.read(fd, 512), bool(mode & 0o111)
    except OSError:
        return None
    finally:
        os.close(fd)


