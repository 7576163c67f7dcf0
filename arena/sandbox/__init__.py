"""Run an untrusted bot command under every isolation layer this host offers.

Public API (stable; the referee, the kit runner and ``arena doctor`` build on it)::

    from arena.sandbox import Limits, probe, launch, SandboxedProcess, ExitStatus

    Limits(decision_ms=1000, time_bank_ms=10_000, startup_ms=10_000, bye_grace_ms=1000,
           memory_mb=1024, cpu_seconds=3600, open_files=64, file_size_mb=16, processes=64,
           line_bytes=1_000_000, stderr_bytes=65_536, max_strikes=3, tmp_mb=64)
    Limits.from_mapping({"decision_ms": 500, ...})   # tournament/match settings; unknown keys
                                                      # raise SandboxError

    report = probe()          # SandboxReport, probed for real once per process (cached)
    report.layers             # {"bwrap": True | "why not", "landlock": ..., "seccomp": ...,
                              #  "cgroup": ..., "user": ..., "rlimits": True, "setsid": True};
                              # "not needed: ..." marks a layer that does not apply here
    report.level              # e.g. "bwrap+seccomp+user+rlimits": what launch() will reach
                              # (without bwrap: "landlock+seccomp+user+rlimits")
    report.warnings           # one line per missing layer (also logged once per process, at INFO)
    report.python             # interpreter the bots run with (reachable by the bot user)
    report.kit_path           # directory holding a read-only copy of the ``arena`` package:
                              # put it on PYTHONPATH, e.g. env=kit_env()
    report.user, report.uid, report.gid   # who the bots run as
    report.can_run            # False only when bots cannot run at all (doctor exits 1)
    kit_env() -> {"PYTHONPATH": str(report.kit_path)}

    proc = launch([report.python, "-m", "arena.sdk.runner", "greedy.py"],
                  workdir=Path("bots/greedy.py"),   # the bot's own dir, or its single module
                  limits=Limits(), readable=[], env=kit_env(), marker=None)
    proc.pid, proc.level, proc.warnings, proc.marker
    proc.stdin, proc.stdout   # raw binary pipes (use SubprocessTransport, not these directly)
    proc.stderr_text()        # captured stderr, capped at limits.stderr_bytes (head + tail)
    proc.poll() -> int | None;  proc.returncode;  proc.wait(timeout) -> int | None
    proc.exit_status() -> ExitStatus(exit_code, signal, killed_by_referee, memory_limit,
                                     running, description)
    proc.shutdown(grace_s=None)  # close stdin, wait limits.bye_grace_ms, then kill_all()
    proc.kill_all()           # SIGKILL the whole tree (pid namespace / session / group /
                              # setsid'd descendants), reap, remove the private dirs; idempotent
    proc.cpu_seconds          # once ended: the CPU of all its processes, the sandbox's too
    with launch(...) as proc: ...   # kill_all() on exit

    arena.sandbox.reaper.find_processes(marker=..., sid=...) -> list[int]   # leftovers check

Transport (``arena.protocol.transport``) sits on top: ``SubprocessTransport(proc)`` with
``send(obj)``, ``send_line(bytes)``, ``receive(deadline) -> Line | Timeout | Closed | Overflow``,
``close()``; ``Line.data`` is the raw bytes of the line (``Line.text`` decoded), ``Closed.status``
an ``ExitStatus`` (or None), ``Overflow.limit`` the cap; ``MockTransport`` for tests;
(the benchmarks' children and floors are in :mod:`arena.bench.children`).

Semantics worth knowing:

* ``workdir`` is copied into a fresh private directory (readable, not writable, by the bot)
  that becomes the bot's working directory; arguments naming files inside ``workdir`` by
  absolute path are rewritten to the copy. Never pass a directory shared by several bots.
* A command starting with ``python``/``python3`` runs with ``report.python``.
* The environment is cleared: PATH (``BOT_PATH``), HOME/TMPDIR (a private writable scratch
  dir), LANG, PYTHONDONTWRITEBYTECODE, PYTHONUNBUFFERED, PYTHONNOUSERSITE, PYTHONHASHSEED
  (0: the same hash seed in every launch, so sets of strings iterate alike), TZ (UTC), the numeric
  libraries' thread pools at one thread (``spawn.THREAD_POOLS``), plus ``env`` (e.g.
  PYTHONPATH; its entries are made readable inside the sandbox).
* Layers can be switched off for tests or debugging with ``ARENA_SANDBOX_DISABLE=bwrap,seccomp``
  or ``probe(disable={"bwrap"})`` + ``launch(..., report=that_report)``. ``ARENA_BOT_USER``
  picks the bot account, ``ARENA_CGROUP`` a delegated cgroup v2 directory.
* Launch bots from a long-lived thread: bubblewrap's ``--die-with-parent`` follows the thread.

See docs/SANDBOX.md for the layers, what each one stops and what is left.
"""

from __future__ import annotations

from arena.sandbox.launcher import launch
from arena.sandbox.limits import Limits
from arena.sandbox.probe import kit_env, probe
from arena.sandbox.process import ExitStatus, SandboxedProcess
from arena.sandbox.report import SandboxReport
from arena.sandbox.spawn import BOT_PATH

__all__ = [
    "BOT_PATH",
    "ExitStatus",
    "Limits",
    "SandboxReport",
    "SandboxedProcess",
    "kit_env",
    "launch",
    "probe",
]
