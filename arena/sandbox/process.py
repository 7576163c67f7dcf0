"""A running bot (:class:`SandboxedProcess`): its pipes, its stderr, and ending all of it.

``SandboxedProcess.kill_all`` ends every process the bot started and reaps them; see
:mod:`arena.sandbox.reaper`. At interpreter exit every bot still running is ended. Its
freezes are its cgroup's (:mod:`arena.sandbox.freezer`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from arena.sandbox import reaper
from arena.sandbox.cgroups import remove_cgroup
from arena.sandbox.freezer import CgroupFreezer
from arena.sandbox.limits import Limits
from arena.sandbox.procstat import cpu_seconds, start_time, stat_fields
from arena.sandbox.starts import end_starts
from arena.sandbox.stderr import StderrDrain
from arena.sandbox.workdir import remove_tree

__all__ = ["ExitStatus", "SandboxedProcess", "kill_survivors"]

log = logging.getLogger("arena.sandbox")

#: Markers in the tail of stderr that mean the bot ran out of memory.
_MEMORY_MARKERS = ("MemoryError", "std::bad_alloc", "out of memory", "Cannot allocate memory",
                   "cannot allocate memory", "memory allocation failed")



@dataclass(frozen=True)
class ExitStatus:
    """How a bot process ended, in terms the referee records."""

    running: bool
    exit_code: int | None
    signal: int | None
    killed_by_referee: bool
    memory_limit: bool
    description: str

    def to_json(self) -> dict[str, Any]:
        return {"running": self.running, "exit_code": self.exit_code, "signal": self.signal,
                "killed_by_referee": self.killed_by_referee, "memory_limit": self.memory_limit,
                "description": self.description}


class SandboxedProcess:
    """One running bot: its pipes, its captured stderr, and the means to end all of it."""

    def __init__(self, popen: subprocess.Popen[bytes], *, marker: str, level: str,
                 warnings: list[str], limits: Limits, box: Path, info_fd: int | None,
                 uses_bwrap: bool, cgroup: Path | None, uid: int | None = None,
                 pipes: tuple[IO[bytes], IO[bytes]] | None = None) -> None:
        self._popen = popen
        self._uid = uid
        self.pid: int = popen.pid
        #: Session and process group id (the launcher always starts a new session).
        self.sid: int = popen.pid
        self.marker = marker
        self.level = level
        self.warnings = list(warnings)
        self.limits = limits
        self.box = box
        self._info_fd = info_fd
        self._uses_bwrap = uses_bwrap
        self._cgroup = cgroup
        self._freezer = CgroupFreezer(cgroup, self.pid)
        self._namespace_pid: int | None = None
        #: The init's start time (clock ticks since boot) when its number was read: the
        #: number names it while a process of that number started then.
        self._namespace_start: str | None = None
        self._killed_by_referee = False
        self._ended = False
        #: The launched process is reaped here, with its rusage (``os.wait4``), not by
        #: ``subprocess``: one reaper at a time.
        self._reap_lock = threading.Lock()
        self._rusage_s = 0.0
        self._cpu_s: float | None = None
        self._cpu_source = ""
        if pipes is None:
            assert popen.stdin is not None and popen.stdout is not None
            pipes = (popen.stdin, popen.stdout)
        assert popen.stderr is not None
        self.stdin: IO[bytes] = pipes[0]
        self.stdout: IO[bytes] = pipes[1]
        self._stderr = StderrDrain(popen.stderr, limits.stderr_bytes)
        self._stderr.start()
        reaper.register_child(self.pid)
        _live.add(self)

    # -- state -------------------------------------------------------------------------------

    @property
    def uid(self) -> int | None:
        """The uid the bot runs as (None: the referee's own)."""
        return self._uid

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    def poll(self) -> int | None:
        """The raw return code (negative for a signal), or None while running."""
        return self._reap(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait up to ``timeout`` seconds for the process to end; None if it is still running.
        Polled as ``subprocess`` polls a wait with a timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while (code := self._reap(os.WNOHANG)) is None:
            remaining = 0.05 if deadline is None else deadline - time.monotonic()
            if remaining <= 0:
                return None
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.05)
        return code

    def _reap(self, flags: int) -> int | None:
        """Reap the launched process if it ended (``flags``: ``os.WNOHANG`` or 0), keeping
        its CPU and that of the descendants it reaped itself (bubblewrap's init and the
        program, when they end by themselves): the bot's CPU where it has no cgroup."""
        with self._reap_lock:
            if self._popen.returncode is not None:
                return self._popen.returncode
            self._learn_namespace_pid()  # before bubblewrap's exit orphans the init
            try:
                pid, status, usage = os.wait4(self.pid, flags)
            except ChildProcessError:  # reaped by someone else: what subprocess makes of it
                return self._popen.poll()
            if pid == 0:
                return None
            self._rusage_s += usage.ru_utime + usage.ru_stime
            self._popen.returncode = os.waitstatus_to_exitcode(status)
            return self._popen.returncode

    @property
    def cpu_seconds(self) -> float | None:
        """The CPU (user + system seconds) every process of the bot used, the sandbox's own
        (bubblewrap's) included; known once :meth:`kill_all` has ended it all (None before).
        Its cgroup's count where it has one; else the rusage of the launched process and of
        the bot's processes the referee killed and reaped."""
        return self._cpu_s

    @property
    def cpu_source(self) -> str:
        """Where :attr:`cpu_seconds` came from: ``cgroup`` or ``rusage`` (empty before)."""
        return self._cpu_source

    def stderr_text(self) -> str:
        """Everything captured from stderr so far (head and tail, capped)."""
        return self._stderr.text()

    def stderr_since(self, mark: int) -> tuple[str, int]:
        """Stderr written from byte ``mark`` on, and the next mark (per-game logs)."""
        return self._stderr.since(mark)

    def stderr_wait(self, mark: int, done: Callable[[str], bool], timeout: float) -> str:
        """Stderr from byte ``mark`` on, as it comes, until ``done(text)`` or ``timeout``."""
        return self._stderr.wait_for(mark, done, timeout)

    def program_pid(self) -> int | None:
        """Host pid of the bot's program: the command the sandbox ran, not bubblewrap's own
        processes (under bubblewrap, the eldest child of its pid namespace's init: a helper
        the program orphaned is adopted by the init too, later). None when it is gone."""
        if not self._uses_bwrap:
            return self.pid if self.poll() is None else None
        init = self.namespace_pid()
        if init is None:
            return None
        children = []
        for name in os.listdir("/proc"):
            fields = stat_fields(int(name)) if name.isdigit() else None
            if fields is None:
                continue
            # fields[1]: the parent; fields[19]: the start time, in clock ticks since boot
            if len(fields) > 19 and fields[1] == str(init) and fields[0] not in ("Z", "X"):
                children.append((int(fields[19]), int(name)))
        return min(children)[1] if children else None

    def signal_program(self, sig: int) -> bool:
        """Send ``sig`` to the bot's program (:meth:`program_pid`) alone; False when it is
        gone. Through a pidfd, checked to be the program once open: a pid freed and reused
        meanwhile never passes a referee's signal to another process."""
        pid = self.program_pid()
        if pid is None:
            return False
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            return False
        try:
            if self.program_pid() != pid:
                return False
            signal.pidfd_send_signal(fd, sig)
        except OSError:
            return False
        finally:
            os.close(fd)
        return True

    def exit_status(self) -> ExitStatus:
        """Exit code or signal, whether the referee killed it, and whether memory ran out."""
        code = self.poll()
        if code is None:
            return ExitStatus(True, None, None, False, False, "still running")
        exit_code: int | None = code if code >= 0 else None
        sig: int | None = -code if code < 0 else None
        if self._uses_bwrap and exit_code is not None and 128 < exit_code < 128 + 65:
            # bubblewrap reports a signal-killed command as exit code 128 + signal.
            sig, exit_code = exit_code - 128, None
        self._stderr.settle(_STDERR_SETTLE_S)
        memory = self._memory_exhausted()
        if self._killed_by_referee:
            description = "killed by the referee"
        elif sig is not None:
            description = f"killed by {_signal_name(sig)}"
        else:
            description = f"exit code {exit_code}"
        if memory:
            description += " (out of memory)"
        return ExitStatus(False, exit_code, sig, self._killed_by_referee, memory, description)

    def _memory_exhausted(self) -> bool:
        if self._cgroup is not None:
            with contextlib.suppress(OSError, ValueError):
                events = (self._cgroup / "memory.events").read_text().split()
                pairs = dict(zip(events[::2], events[1::2], strict=False))
                if int(pairs.get("oom_kill", "0")) > 0 or int(pairs.get("max", "0")) > 0:
                    return True
        tail = self._stderr.tail_text()
        return any(marker in tail for marker in _MEMORY_MARKERS)

    @property
    def cgroup(self) -> Path | None:
        """The bot's own cgroup directory, if it has one."""
        return self._cgroup

    @property
    def runs_on(self) -> bool:
        """Whether the bot was seen to run on after its freezes: its freezes wait for it."""
        return self._freezer.runs_on

    @property
    def frozen(self) -> bool:
        """Whether :meth:`freeze` froze the bot last (and it was not thawed since)."""
        return self._freezer.frozen

    def freeze(self, frozen: bool) -> bool:
        """Freeze every process of the bot, or thaw them, by its cgroup
        (:meth:`CgroupFreezer.freeze`); False where the caller stops it with signals."""
        return self._freezer.freeze(frozen)

    def cpu_since_freeze_us(self) -> int | None:
        """The CPU the bot used since :meth:`freeze` froze it (None when it is not frozen, or
        its cgroup tells no CPU)."""
        return self._freezer.cpu_since_freeze_us()

    def wait_frozen(self, timeout_s: float) -> bool:
        """After :meth:`freeze`: wait until every process of the bot is frozen
        (:meth:`CgroupFreezer.wait_frozen`)."""
        return self._freezer.wait_frozen(timeout_s)

    def namespace_pid(self) -> int | None:
        """Host pid of the sandbox's pid-namespace init (bubblewrap only), once known; None
        once that number no longer names the init: reaped, its number is free, and once the
        kernel's numbers wrap (32,768 of them by default) another process's, which the bot's
        end would kill, its freezes stop and its CPU count read."""
        self._learn_namespace_pid()
        pid = self._namespace_pid
        if pid is None or self._namespace_start is None:
            return None
        return pid if start_time(pid) == self._namespace_start else None

    def _learn_namespace_pid(self) -> None:
        """Read the init's pid from bubblewrap's ``--info-fd`` once it is there, with its
        start time, and keep it from the other bots' reaping: orphaned when bubblewrap exits
        (a bot that exited by itself), the init is the referee's to reap, and this bot's end
        alone reaps it, with its CPU (the program's, which it reaped)."""
        if self._namespace_pid is not None or self._info_fd is None:
            return
        try:
            data = os.read(self._info_fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        with contextlib.suppress(ValueError, TypeError):
            self._namespace_pid = int(json.loads(data.decode())["child-pid"])
            self._namespace_start = start_time(self._namespace_pid)
            if self._namespace_start is not None:
                reaper.register_child(self._namespace_pid)
        os.close(self._info_fd)
        self._info_fd = None

    # -- ending ------------------------------------------------------------------------------

    def shutdown(self, grace_s: float | None = None) -> ExitStatus:
        """Close stdin, give the bot ``grace_s`` (default ``bye_grace_ms``) to exit, then
        kill everything left. Call after sending ``bye``."""
        grace = self.limits.bye_grace_ms / 1000 if grace_s is None else grace_s
        with contextlib.suppress(OSError):
            self.stdin.close()
        self.wait(grace)
        return self.kill_all()

    def kill_all(self) -> ExitStatus:
        """SIGKILL every process of the bot, reap them all, remove the private directories.

        Idempotent; safe to call whether the bot is running, exited or half-started.
        """
        if self._ended:
            return self.exit_status()
        if self.poll() is None:
            self._killed_by_referee = True
        doomed_s = 0.0 if self._freezer.counts_cpu else self._namespace_cpu()
        extra: list[int] = [self.pid]
        ns_pid = self.namespace_pid()
        if ns_pid:
            extra.append(ns_pid)
        for pid in extra:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if self._cgroup is not None:
            with contextlib.suppress(OSError):
                (self._cgroup / "cgroup.kill").write_text("1")
        killed = reaper.kill_tree(root=self.pid, sid=self.sid, pgid=self.sid,
                                  marker=self.marker, extra=extra)
        if self._uid is not None and self._uid != os.geteuid():
            # Orphans that hid every trace of their bot are still the subreaper's children,
            # and still run as the bot's own uid, which no other bot has (fresh_uid).
            for _ in range(20):
                orphans = reaper.adopted_orphans(self._uid)
                if not orphans:
                    break
                for orphan in orphans:
                    killed |= reaper.kill_tree(root=orphan, extra=[orphan], rounds=3)
                time.sleep(0.001)
        if self.wait(10) is None:  # pragma: no cover - SIGKILLed processes end
            log.error("bot process %d did not end after SIGKILL", self.pid)
        reaper.unregister_child(self.pid)
        if self._namespace_pid is not None:
            reaper.unregister_child(self._namespace_pid)
        orphans_cpu: dict[int, float] = {}
        reaper.reap_adopted(killed - {self.pid}, wait_s=1.0, cpu_of=orphans_cpu)
        self._count_cpu(sum(orphans_cpu.values()) + doomed_s)
        self._ended = True
        _live.discard(self)
        self._stderr.join(timeout=2)
        self._stderr.close()
        for stream in (self.stdin, self.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        if self._info_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._info_fd)
            self._info_fd = None
        self._freezer.close()
        remove_cgroup(self._cgroup)
        remove_tree(self.box)
        return self.exit_status()

    def kill_without_reaping(self) -> None:
        """SIGKILL every process of the bot and nothing more: safe from a thread other than
        the one using the bot (no pipe or file closed under it, nothing reaped), which sees
        it end on its next read and reaps it with :meth:`kill_all`."""
        if self._cgroup is not None:
            with contextlib.suppress(OSError):
                (self._cgroup / "cgroup.kill").write_text("1")
        extra: list[int] = []
        # Held, the lock keeps the launched process unreaped: its number, and its session's,
        # name nothing else.
        with self._reap_lock:
            if self._ended or self._popen.returncode is not None:
                return
            self._killed_by_referee = True
            extra.append(self.pid)
            pid, started = self._namespace_pid, self._namespace_start
            if pid is not None and started is not None and start_time(pid) == started:
                extra.append(pid)
            reaper.kill_tree(root=self.pid, sid=self.sid, pgid=self.sid, marker=self.marker,
                             extra=extra)

    def _namespace_cpu(self) -> float:
        """Before a kill without a cgroup to count by: the CPU of the processes in the bot's
        pid namespace but its init. The init's death kills them, and they are reaped
        unaccounted (it ignores SIGCHLD as it goes), so they are read now, to the tick."""
        init = self.namespace_pid() if self._uses_bwrap else None
        if init is None:
            return 0.0
        inside = set(reaper.find_processes(descendants_of=[init])) - {init}
        return sum(cpu_seconds(pid) or 0.0 for pid in inside)

    def _count_cpu(self, others_s: float) -> None:
        """Set :attr:`cpu_seconds` once every process of the bot is reaped: the cgroup
        counts all of them, whoever reaped them; the rusage counts the launched process,
        what it reaped, and ``others_s``: the bot's processes reaped here, and those the
        kill of its pid namespace took."""
        used_us = self._freezer.cpu_used_us()
        if used_us is not None:
            self._cpu_s, self._cpu_source = used_us / 1e6, "cgroup"
        else:
            self._cpu_s, self._cpu_source = self._rusage_s + others_s, "rusage"

    def __enter__(self) -> SandboxedProcess:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.kill_all()

    def __del__(self) -> None:  # last resort: never leave a bot running behind a lost object
        if not getattr(self, "_ended", True):
            with contextlib.suppress(Exception):
                self.kill_all()

    def __repr__(self) -> str:
        return f"<SandboxedProcess pid={self.pid} level={self.level} marker={self.marker}>"


#: How long an exited bot's last stderr is waited for (see :meth:`StderrDrain.settle`).
_STDERR_SETTLE_S = 0.5

_live: weakref.WeakSet[SandboxedProcess] = weakref.WeakSet()


@atexit.register
def kill_survivors() -> None:
    """At interpreter exit, end every bot still running (a referee that forgot one), and
    every start under way (:func:`arena.sandbox.starts.end_starts`)."""
    end_starts()  # first: a start it ends after this list is taken ends its own bot
    for proc in list(_live):
        with contextlib.suppress(Exception):
            proc.kill_all()


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"

