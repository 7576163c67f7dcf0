"""Which Python a bot's environment is made with: the sandbox's own, or another version a
``bot.yaml`` asks for (``python: "3.12"``) where the host has it with ``venv``; and why a bot
cannot run here at all when it has none (``arena submit``, ``arena bots``)."""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass

from arena.errors import BotEnvironmentError
from arena.sandbox import probe

__all__ = ["PYTHON_DIRS", "Interpreter", "interpreter_for", "missing_python"]


@dataclass(frozen=True)
class Interpreter:
    """A Python the sandbox can run bots with."""

    path: str
    version: str  # e.g. "3.11.2"


def interpreter_for(python: str | None) -> Interpreter:
    """The interpreter for a bot asking for ``python`` (``"3.11"``; None: the sandbox's)."""
    report = probe()
    if python is None or report.python_version.rsplit(".", 1)[0] == python:
        return Interpreter(report.python, report.python_version)
    found = _other_python(python)
    if isinstance(found, Interpreter):
        return found
    raise BotEnvironmentError(
        f"bot.yaml asks for Python {python}, which this host lacks: the sandbox runs bots "
        f"with Python {report.python_version} ({report.python}) and {found}")


def missing_python(python: str | None) -> str | None:
    """Why a bot asking for ``python`` cannot run on this machine at all ("needs Python
    3.99, not on this machine ..."), or None when it can (its packages may still wait to be
    installed: that is a matter of time, this one of the host)."""
    try:
        interpreter_for(python)
    except BotEnvironmentError:
        found = _other_python(str(python))
        if isinstance(found, str) and not found.startswith("there is no "):
            return f"needs Python {python}, which cannot run bots here: {found}"
        return (f"needs Python {python}, not on this machine (bots run with Python "
                f"{probe().python_version} here)")
    return None


#: Where a Python other than the sandbox's is looked for (every sandbox mode shows them).
PYTHON_DIRS = ("/usr/bin", "/usr/local/bin")


@functools.cache
def _other_python(python: str) -> Interpreter | str:
    """``/usr/bin/pythonX.Y`` (or ``/usr/local/bin``) when it runs and has ``venv``, else
    why not (there is none; or one that fails, Debian's without its ``-venv`` package);
    looked up once per process."""
    why = f"there is no {PYTHON_DIRS[0]}/python{python}"
    for directory in PYTHON_DIRS:
        candidate = f"{directory}/python{python}"
        if os.access(candidate, os.X_OK):
            try:
                done = subprocess.run([candidate, "-I", "-c", "import platform, venv; "
                                       "print(platform.python_version())"],
                                      capture_output=True, text=True, check=False)
            except OSError as exc:  # not a program after all (a broken file, a directory)
                why = f"{candidate} does not run ({exc.strerror or exc})"
                continue
            if done.returncode == 0:
                return Interpreter(candidate, done.stdout.strip())
            last = [line.strip() for line in done.stderr.splitlines() if line.strip()]
            why = (f"{candidate} cannot make a virtual environment ("
                   f"{last[-1] if last else f'exit code {done.returncode}'}; on Debian its "
                   f"python{python}-venv package adds the venv module)")
    return why
