"""The steps of an environment's build (:mod:`arena.registry.environments`) run as
processes of the arena's: ``venv``, then pip. A build as a whole is bounded in time
(:func:`build_bound`: ``$ARENA_ENV_BUILD_TIMEOUT`` seconds, else 15 minutes); a step past the
bound, or interrupted, is killed with every process it started; a step that fails is told in
one line, its own last words or pip's reason (:func:`run_step`).
"""

from __future__ import annotations

import math
import os
import subprocess
import time

from arena.common.printable import printable
from arena.errors import BotEnvironmentError
from arena.registry.pipmessages import pip_failure
from arena.sandbox.reaper import kill_tree

__all__ = ["build_bound", "run_step"]

# pip's --timeout bounds one connection only: a backtracking resolver or a trickling mirror
# runs on. Long enough for large wheels (a GPU framework) from a slow mirror.
_BUILD_BOUND_S = 15 * 60
_BUILD_BOUND_VARIABLE = "ARENA_ENV_BUILD_TIMEOUT"
_REAP_S = 5
_ELSEWHERE = ("PIP_USER", "PIP_TARGET", "PIP_PREFIX", "PIP_ROOT", "PYTHONUSERBASE", "PYTHONPATH",
              "VIRTUAL_ENV", "PYTHONHOME")


def build_bound() -> float:
    """Seconds a build may take in all (``$ARENA_ENV_BUILD_TIMEOUT``, default 15 minutes)."""
    given = os.environ.get(_BUILD_BOUND_VARIABLE, "").strip()
    if not given:
        return _BUILD_BOUND_S
    try:
        bound = float(given)
    except ValueError:
        bound = math.nan
    if not (math.isfinite(bound) and bound > 0):
        raise BotEnvironmentError(f"{_BUILD_BOUND_VARIABLE} must be a number of seconds above "
                                  f"0, not {printable(given[:40])!r}")
    return bound


def _bounded(argv: list[str], env: dict[str, str], deadline: float, doing: str,
             bound: float) -> tuple[int, str]:
    """Run ``argv`` until ``deadline`` (``time.monotonic()``): its exit status and its output
    (stderr, then stdout). Past the deadline, or interrupted, it is killed with every
    process it started (``pip --python`` runs a second pip, which writes the files); the
    error says it was ``doing`` that step."""
    try:
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL, text=True, env=env)
    except OSError as exc:
        raise BotEnvironmentError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    try:
        out, err = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill_tree(process)
        raise BotEnvironmentError(
            f"{doing} took longer than {bound:g} s, the bound on a build, "
            f"so it was stopped and nothing kept: set {_BUILD_BOUND_VARIABLE} to more seconds "
            "to wait longer") from None
    except BaseException:  # an exception of this process's own (SIGTERM): pip is ours
        _kill_tree(process)
        raise
    return process.returncode, err + "\n" + out


def _kill_tree(process: subprocess.Popen[str]) -> None:
    """Kill ``process`` and its descendants, then reap it. It stays in this process's group,
    so that a terminal's Ctrl-C or hang-up reaches it as it reaches the arena, even where
    the arena is killed outright; its pid stays its own until it is reaped."""
    kill_tree(root=process.pid, extra=[process.pid])
    try:
        process.communicate(timeout=_REAP_S)
    except subprocess.TimeoutExpired:  # a child that escaped the sweep holds the pipes
        process.wait()


def run_step(argv: list[str], what: str | None, deadline: float, doing: str,
             bound: float) -> None:
    """Run a build step, within the build's ``deadline``; a failure is one line: ``what``
    (or pip's own reason) and the step's last words, or, past the deadline, the step it was
    ``doing``."""
    # pip's own settings (index, mirrors, certificates) apply; not those that would install
    # elsewhere than into the environment
    env = {k: v for k, v in os.environ.items() if k not in _ELSEWHERE}
    returncode, output = _bounded(argv, env, deadline, doing, bound)
    if returncode == 0:
        return
    if what is not None and "No space left on device" in output:
        raise BotEnvironmentError(f"the disk is full: {what} (No space left on device)")
    if what is None:
        no_index = env.get("PIP_NO_INDEX", "").strip().lower() in ("1", "y", "yes", "t",
                                                                     "true", "on")
        raise BotEnvironmentError(pip_failure(output, argv[0], no_index))
    last = [line.strip() for line in output.splitlines() if line.strip()]
    raise BotEnvironmentError(f"{what}: {last[-1] if last else f'exit {returncode}'}")
