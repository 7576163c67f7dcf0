"""Launch an untrusted command under every layer the probe found working, and end it cleanly.

``launch`` always gives the bot its own session and process group, rlimits, a cleared
environment, closed file descriptors, a private copy of its files as the working directory and a
private writable scratch directory; then, as available: a uid of its own (when the referee is root),
bubblewrap (pid, network, ipc and uts namespaces, a read-only view of only what the bot needs, a
private /tmp), a seccomp filter and a cgroup. ``SandboxedProcess.kill_all`` ends every process
the bot started and reaps them; see :mod:`arena.sandbox.reaper`.

Threads: bubblewrap's ``--die-with-parent`` ties the sandbox to the *thread* that launched it
(Linux's parent-death signal follows the creating thread), so launch bots from a thread that
lives as long as the bots, e.g. the main thread or a match's own long-lived thread.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import json
import logging
import os
import re
import resource
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from arena.common.printable import printable_log
from arena.common.signalmask import signals_held
from arena.errors import SandboxError
from arena.sandbox import landlock, reaper, seccomp
from arena.sandbox.limits import Limits
from arena.sandbox.workdir import copy_bot

if TYPE_CHECKING:
    from arena.sandbox.probe import SandboxReport

__all__ = ["ExitStatus", "SandboxedProcess", "launch"]

log = logging.getLogger("arena.sandbox")

_MIB = 1024 * 1024
_PYTHON_NAME = re.compile(r"python(3(\.\d+)?)?")  # fullmatch
#: Where the bot's private copy appears inside bubblewrap.
BWRAP_BOT_DIR = "/bot"
#: System paths bound read-only inside bubblewrap (skipped where absent).
#: System-wide /proc files a runtime may read (CPU count, memory, sysctls); no process's.
_PROC_SYSTEM = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/sys")
_BWRAP_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_BWRAP_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
              "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")
#: Devices a bot may read and write (Landlock; bubblewrap's --dev gives the same set).
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
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


class _StderrDrain(threading.Thread):
    """Reads a bot's stderr to EOF so the bot never blocks on it; keeps head and tail.

    The pipe is non-blocking and every read happens under the lock, by this thread when the
    pipe has data or by a caller of :meth:`since` first: what the bot wrote before its last
    answer is then in the log, never still in the pipe."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        super().__init__(name="arena-stderr", daemon=True)
        self._stream = stream  # keeps the pipe open while this reads it
        self._fd = stream.fileno()
        os.set_blocking(self._fd, False)
        self._tail_cap = min(cap // 4, 16_384)
        self._head_cap = cap - self._tail_cap
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        #: Bytes read so far: the positions ``since`` counts in.
        self._total = 0
        self._eof = False
        self._lock = threading.Lock()

    def run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        while not self._eof:
            try:
                poller.poll()
            except OSError:
                break
            self._pull()

    def _pull(self) -> None:
        """Read what the pipe holds now."""
        with self._lock:
            while not self._eof:
                try:
                    chunk = os.read(self._fd, 65_536)
                except BlockingIOError:
                    return
                except OSError:
                    chunk = b""
                if not chunk:
                    self._eof = True
                    return
                self._keep(chunk)

    def _keep(self, chunk: bytes) -> None:
        self._total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            excess = len(self._tail) - self._tail_cap
            if excess > 0:
                del self._tail[:excess]
                self._dropped += excess

    def settle(self, timeout: float) -> None:
        """Read until the pipe's end, for at most ``timeout`` seconds: once the bot has
        exited, what it wrote last (its traceback, a MemoryError) may still be in the pipe,
        and this thread may not have run yet. A grandchild holding the pipe open ends the
        wait at ``timeout``."""
        deadline = time.monotonic() + timeout
        poller: select.poll | None = None
        while True:
            self._pull()
            left = deadline - time.monotonic()
            if self._eof or left <= 0:
                return
            if poller is None:
                poller = select.poll()
                poller.register(self._fd, select.POLLIN)
            with contextlib.suppress(OSError):
                poller.poll(left * 1000)

    def close(self) -> None:
        """Close the pipe; reads end here. Marked under the lock, so no later ``_pull``
        reads a descriptor number the process may have handed to another file."""
        with self._lock:
            self._eof = True
            with contextlib.suppress(OSError):
                self._stream.close()

    def text(self) -> str:
        self._pull()
        with self._lock:
            head, tail, dropped = bytes(self._head), bytes(self._tail), self._dropped
        out = printable_log(head.decode(errors="replace"))
        if dropped:
            out += f"\n[... {dropped} bytes of stderr dropped ...]\n"
        return out + printable_log(tail.decode(errors="replace"))

    def since(self, mark: int) -> tuple[str, int]:
        """What the bot wrote from byte ``mark`` on, and the mark to pass next time. Counted
        in bytes written, not in the text kept, so it stays right once the cap drops the
        middle (what fell in the dropped part is named, not returned)."""
        self._pull()
        with self._lock:
            head, tail, total = bytes(self._head), bytes(self._tail), self._total
        tail_start = total - len(tail)
        parts = []
        position = max(mark, 0)
        if position < len(head):
            parts.append(head[position:].decode(errors="replace"))
            position = len(head)
        if position < tail_start:
            parts.append(f"[... {tail_start - position} bytes of stderr dropped ...]\n")
            position = tail_start
        parts.append(tail[position - tail_start:].decode(errors="replace"))
        return printable_log("".join(parts)), total

    def tail_text(self) -> str:
        self._pull()
        with self._lock:
            data = bytes(self._tail) if self._tail else bytes(self._head[-4096:])
        return printable_log(data.decode(errors="replace"))


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
        self._namespace_pid: int | None = None
        self._killed_by_referee = False
        self._ended = False
        if pipes is None:
            assert popen.stdin is not None and popen.stdout is not None
            pipes = (popen.stdin, popen.stdout)
        assert popen.stderr is not None
        self.stdin: IO[bytes] = pipes[0]
        self.stdout: IO[bytes] = pipes[1]
        self._stderr = _StderrDrain(popen.stderr, limits.stderr_bytes)
        self._stderr.start()
        reaper.register_child(self.pid)
        _live.add(self)

    # -- state -------------------------------------------------------------------------------

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    def poll(self) -> int | None:
        """The raw return code (negative for a signal), or None while running."""
        return self._popen.poll()

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait up to ``timeout`` seconds for the process to end; None if it is still running."""
        try:
            return self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stderr_text(self) -> str:
        """Everything captured from stderr so far (head and tail, capped)."""
        return self._stderr.text()

    def stderr_since(self, mark: int) -> tuple[str, int]:
        """Stderr written from byte ``mark`` on, and the next mark (per-game logs)."""
        return self._stderr.since(mark)

    def exit_status(self) -> ExitStatus:
        """Exit code or signal, whether the referee killed it, and whether memory ran out."""
        code = self._popen.poll()
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

    def namespace_pid(self) -> int | None:
        """Host pid of the sandbox's pid-namespace init (bubblewrap only), once known."""
        if self._namespace_pid is None and self._info_fd is not None:
            try:
                data = os.read(self._info_fd, 4096)
            except BlockingIOError:
                return None
            except OSError:
                data = b""
            with contextlib.suppress(ValueError, TypeError):
                self._namespace_pid = int(json.loads(data.decode())["child-pid"])
            os.close(self._info_fd)
            self._info_fd = None
        return self._namespace_pid

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
        if self._popen.poll() is None:
            self._killed_by_referee = True
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
        try:
            self._popen.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILLed processes end
            log.error("bot process %d did not end after SIGKILL", self.pid)
        reaper.unregister_child(self.pid)
        reaper.reap_adopted(killed - {self.pid}, wait_s=1.0)
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
        _remove_cgroup(self._cgroup)
        _remove_tree(self.box)
        return self.exit_status()

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


#: How long an exited bot's last stderr is waited for (see :meth:`_StderrDrain.settle`).
_STDERR_SETTLE_S = 0.5

_live: weakref.WeakSet[SandboxedProcess] = weakref.WeakSet()
_swept = False


@atexit.register
def _kill_survivors() -> None:
    """At interpreter exit, end every bot still running (a referee that forgot one)."""
    for proc in list(_live):
        with contextlib.suppress(Exception):
            proc.kill_all()


def _sweep_once() -> None:
    """Clean up after referees that died without doing it (once per process): kill what
    still runs in their sandboxes (:func:`kill_strays`), then remove their private
    directories, ``arena-box-<pid>-*`` and ``arena-kit-<pid>-*`` whose pid is gone."""
    global _swept
    if _swept:
        return
    _swept = True
    kill_strays()
    for path in Path(tempfile.gettempdir()).glob("arena-[bk][oi][xt]-*-*"):
        owner = path.name.split("-")[2]
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        if not _alive(int(owner)):
            with contextlib.suppress(OSError):
                if path.stat().st_uid == os.geteuid():
                    _remove_tree(path)


#: A referee's private directory in a path: its pid is the group.
_OWNED_PATH = re.compile(rb"/arena-(?:box|kit)-([0-9]+)-")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def kill_strays() -> list[int]:
    """SIGKILL the processes of sandboxes whose referee died without ending them; return
    their pids. A referee killed at the wrong moment of a bot's start-up can leave
    bubblewrap's namespace init behind (it sets its own parent-death signal only once it
    runs). A stray is a process of a bot user (of the referee's own user when bots run as
    it) whose working directory, or bubblewrap command line, names a box or kit of a pid
    that is gone; a reused pid counts as alive, so nothing of a live referee is touched."""
    me, euid = os.getpid(), os.geteuid()
    bot_uids = range(UID_BASE, UID_BASE + UID_SPAN)
    killed = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            uid = os.stat(f"/proc/{name}").st_uid
            if uid not in bot_uids and (euid == 0 or uid != euid):
                continue
            where = os.readlink(f"/proc/{name}/cwd").encode()
            argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        owners = set(_OWNED_PATH.findall(where))
        bwrap = bool(argv) and argv[0].endswith(b"bwrap")
        if bwrap:
            owners.update(*(_OWNED_PATH.findall(arg) for arg in argv))
        if not owners or any(_alive(int(owner)) for owner in owners):
            continue
        if uid not in bot_uids and not bwrap and not _marked(name):
            continue  # the referee's own user: a shell left in a box is not a bot
        with contextlib.suppress(OSError):
            os.kill(int(name), signal.SIGKILL)
            killed.append(int(name))
    return killed


def _marked(pid: str) -> bool:
    """Whether the process carries a sandbox marker in its environment."""
    try:
        return (reaper.ENV_MARKER.encode() + b"=") in Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


# -- launching ---------------------------------------------------------------------------------


def launch(command: Sequence[str], *, workdir: Path, limits: Limits | None = None,
           readable: Iterable[Path] = (), env: Mapping[str, str] | None = None,
           marker: str | None = None, report: SandboxReport | None = None) -> SandboxedProcess:
    """Start ``command`` for the bot whose files are ``workdir`` under every working layer.

    ``workdir`` is the bot's own directory, or its single module file; it is copied into a
    private directory that becomes the working directory (read-only for the bot). ``readable``
    paths (and the entries of ``env["PYTHONPATH"]``) are made visible read-only; they must be
    readable by the bot user. ``marker`` (default: random) tags every process of the bot.
    Raises :class:`SandboxError` when the command cannot be started at all.
    """
    from arena.sandbox.probe import probe

    report = report if report is not None else probe()
    limits = limits if limits is not None else Limits()
    if not command:
        raise SandboxError("empty bot command")
    if not report.can_run:
        raise SandboxError("bots cannot run on this machine: " + "; ".join(report.warnings))
    workdir = Path(workdir)
    if not workdir.exists():
        raise SandboxError(f"bot path {workdir} does not exist")
    marker = marker or secrets.token_hex(8)
    reaper.become_subreaper()
    reaper.reap_adopted()
    _sweep_once()

    uses_bwrap = report.layers.get("bwrap") is True and report.bwrap is not None
    uses_seccomp = report.layers.get("seccomp") is True
    uses_landlock = report.layers.get("landlock") is True and not uses_bwrap
    uid = report.uid
    #: the bot's own uid and gid (a root referee drops to them): its files are its alone
    own = fresh_uid() if uid is not None and os.geteuid() == 0 else None
    if own is not None:
        uid = own

    box = Path(tempfile.mkdtemp(prefix=f"arena-box-{os.getpid()}-"))
    cleanup: list[int] = []
    cgroup: Path | None = None
    info_r: int | None = None
    pipes: tuple[IO[bytes], IO[bytes]] | None = None
    started: SandboxedProcess | None = None
    try:
        os.chmod(box, 0o711)
        bot_copy = box / "bot"
        copy_bot(workdir, bot_copy, own)
        # The process starts in the copy (bubblewrap itself too: the referee's own working
        # directory may not be reachable by the bot user); bubblewrap then moves to /bot.
        cwd = str(bot_copy)
        if uses_bwrap:
            home = "/tmp"
        else:
            scratch = box / "home"
            scratch.mkdir(mode=0o700)
            if own is not None:
                os.chown(scratch, own, own)
            home = str(scratch)

        full_env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "TMPDIR": home,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "PYTHONNOUSERSITE": "1",
        }
        full_env.update(env or {})
        full_env[reaper.ENV_MARKER] = marker
        visible = [Path(p) for p in readable]
        visible += [Path(p) for p in full_env.get("PYTHONPATH", "").split(os.pathsep) if p]
        for path in visible:
            if not path.exists():
                raise SandboxError(f"readable path {path} does not exist")

        argv = _rewrite_command(command, workdir, report.python)
        pass_fds: list[int] = []
        if uses_bwrap:
            assert report.bwrap is not None
            seccomp_fd: int | None = None
            if uses_seccomp:
                program = seccomp.filter_program()
                assert program is not None
                seccomp_fd = os.memfd_create("arena-seccomp", 0)
                cleanup.append(seccomp_fd)
                os.write(seccomp_fd, program)
                os.lseek(seccomp_fd, 0, os.SEEK_SET)
                pass_fds.append(seccomp_fd)
            info_r, info_w = os.pipe()
            cleanup.append(info_w)
            os.set_blocking(info_r, False)
            pass_fds.append(info_w)
            # The protocol's pipes reach the bot as two extra fds, moved to its stdin and
            # stdout inside (:func:`_moving_stdio`): bubblewrap's own processes close extra
            # fds but keep their stdio, and a stdout they held open would hide a bot that
            # closes its own (no end of file: a crash would pass for silence, a timeout).
            bot_in, stdin_w = os.pipe()
            stdout_r, bot_out = os.pipe()
            cleanup += [bot_in, bot_out]
            pipes = (os.fdopen(stdin_w, "wb", buffering=0), os.fdopen(stdout_r, "rb",
                                                                      buffering=0))
            pass_fds += [bot_in, bot_out]
            argv = _bwrap_argv(report, limits, bot_copy, visible, seccomp_fd, info_w,
                               unprivileged=(uid is not None or os.geteuid() != 0)) + (
                _moving_stdio(bot_in, bot_out, report.python) + argv)

        if report.cgroup_parent is not None and report.layers.get("cgroup") is True:
            cgroup = _make_cgroup(report.cgroup_parent, marker, limits)
            procs_fd = os.open(cgroup / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
            cleanup.append(procs_fd)
        else:
            procs_fd = None

        restrict: Callable[[], None] | None = None
        if uses_landlock:
            ruleset_fd = landlock.ruleset(
                read=_read_paths(report, visible, bot_copy), write=[home],
                devices=_DEVICES, abi=landlock.abi_version())
            cleanup.append(ruleset_fd)
            restrict = landlock.restrictor(ruleset_fd, abi=landlock.abi_version(),
                                           own_proc=True)

        bot_uid = uid if uid is not None else os.geteuid()
        popen_kwargs: dict[str, Any] = {}
        if own is not None:
            popen_kwargs.update(user=own, group=own, extra_groups=[])
        # A Ctrl-C or SIGTERM during the fork would be lost in an at-fork hook, or leak the
        # bot before it is tracked: held, it is raised once ``started`` can reap everything.
        with signals_held() as mask:
            preexec = _make_preexec(
                reaper.parent_death_setter(),
                _rlimits(limits, bot_uid, 0 if own is not None else None),
                procs_fd,
                restrict,
                seccomp.installer(seccomp.filter_program() or b"")
                if uses_seccomp and not uses_bwrap else None,
                mask,
            )
            try:
                stdio = subprocess.DEVNULL if pipes is not None else subprocess.PIPE
                popen = subprocess.Popen(
                    argv, stdin=stdio, stdout=stdio, stderr=subprocess.PIPE, bufsize=0,
                    cwd=cwd, env=full_env, close_fds=True,
                    pass_fds=pass_fds, start_new_session=True, preexec_fn=preexec,
                    **popen_kwargs)
            except (OSError, subprocess.SubprocessError) as exc:
                raise SandboxError(
                    f"cannot start bot command {' '.join(command)!r}: {exc}") from exc
            started = SandboxedProcess(
                popen, marker=marker, level=report.level, warnings=report.warnings,
                limits=limits, box=box, info_fd=info_r, uses_bwrap=uses_bwrap,
                cgroup=cgroup, uid=uid, pipes=pipes)
    except BaseException:
        for stream in pipes or ():
            with contextlib.suppress(OSError):
                stream.close()
        if started is not None:  # stopped at the unblock: it owns the box and fds now
            started.kill_all()
            raise
        if info_r is not None:
            with contextlib.suppress(OSError):
                os.close(info_r)
        _remove_cgroup(cgroup)
        _remove_tree(box)
        raise
    finally:
        for fd in cleanup:
            with contextlib.suppress(OSError):
                os.close(fd)
    return started


#: A shell that can move any descriptor (dash, often /bin/sh, takes 0-9 only).
_BASH = next((path for path in ("/usr/bin/bash", "/bin/bash") if os.access(path, os.X_OK)),
             None)


def _moving_stdio(bot_in: int, bot_out: int, python: str) -> list[str]:
    """The command prefix that makes ``bot_in`` and ``bot_out`` the program's stdin and stdout
    (closing them) and then becomes the program: bash (2 ms), else the interpreter without
    its site (about 20 ms)."""
    if _BASH is not None:
        return [_BASH, "--norc", "--noprofile", "-c",
                f'exec 0<&{bot_in} 1>&{bot_out} {bot_in}<&- {bot_out}>&- && exec -- "$@"', "bash"]
    return [python, "-S", "-E", "-c",
            f"import os, sys; os.dup2({bot_in}, 0); os.dup2({bot_out}, 1); "
            f"os.close({bot_in}); os.close({bot_out}); os.execvp(sys.argv[1], sys.argv[1:])"]


def _rewrite_command(command: Sequence[str], workdir: Path, python: str) -> list[str]:
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


#: Bots started by a root referee run under uids of their own, one per launch, drawn from
#: this range (no account needed), each in a group of the same number. RLIMIT_NPROC counts the
#: processes of a uid: with a uid shared by all bots, one bot forking up to its limit left
#: another without room for a thread, and lost it its game. Files and signals follow the uid
#: too, so a bot cannot touch another bot's processes or scratch even without bubblewrap.
UID_BASE = 1_600_000_000
UID_SPAN = 400_000_000


def fresh_uid() -> int:
    """A uid of the bot range that no account and no running process has."""
    import pwd

    while True:
        uid = UID_BASE + secrets.randbelow(UID_SPAN)
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if reaper.processes_of_uid(uid) == 0:
                return uid


def _rlimits(limits: Limits, bot_uid: int,
             running: int | None = None) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) triples, clamped to what this process may set; ``running``:
    the processes ``bot_uid`` has now, when known (a fresh uid has none)."""
    wanted = [
        (resource.RLIMIT_AS, limits.memory_mb * _MIB, limits.memory_mb * _MIB),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * _MIB, limits.file_size_mb * _MIB),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if bot_uid != 0:
        # RLIMIT_NPROC counts every process of the uid, so leave room for those already there.
        if running is None:
            running = reaper.processes_of_uid(bot_uid)
        nproc = running + limits.processes
        wanted.append((resource.RLIMIT_NPROC, nproc, nproc))
    out = []
    for res, soft, hard in wanted:
        _cur_soft, cur_hard = resource.getrlimit(res)
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        out.append((res, soft, hard))
    return out


def _make_preexec(parent_death: Callable[[], None] | None,
                  rlimits: list[tuple[int, int, int]], cgroup_procs_fd: int | None,
                  restrict_fs: Callable[[], None] | None,
                  install_seccomp: Callable[[], None] | None,
                  signal_mask: Iterable[int]) -> Callable[[], None]:
    """The code run in the child between fork and exec: only system calls, no imports.
    ``signal_mask`` is the referee's mask from before it held the stop signals for the
    fork: the bot must not start with SIGTERM blocked."""
    setrlimit = resource.setrlimit
    write = os.write
    sigmask = signal.pthread_sigmask
    mask = set(signal_mask)

    def preexec() -> None:
        if parent_death is not None:  # first: the uid is already the bot's (Popen sets it)
            parent_death()
        for res, soft, hard in rlimits:
            setrlimit(res, (soft, hard))
        if cgroup_procs_fd is not None:
            write(cgroup_procs_fd, b"0")
        if restrict_fs is not None:
            restrict_fs()
        sigmask(signal.SIG_SETMASK, mask)
        if install_seccomp is not None:
            install_seccomp()

    return preexec


def _read_paths(report: SandboxReport, visible: list[Path], bot_copy: Path) -> list[str]:
    """What a bot may read (and execute) under Landlock: the same view bubblewrap gives."""
    paths = [*_BWRAP_SYSTEM, *_BWRAP_ETC, *(str(p) for p in sorted(Path("/etc").glob("python3*")))]
    paths += list(report.python_prefixes) + [str(p) for p in visible]
    # Of /proc, the bot's own process is added once it exists (``landlock.restrictor``);
    # another process's command line would show the referee's arguments (a --seed).
    paths += [str(bot_copy), *_PROC_SYSTEM]
    return paths


def _bwrap_argv(report: SandboxReport, limits: Limits, bot_copy: Path, visible: list[Path],
                seccomp_fd: int | None, info_fd: int, *, unprivileged: bool) -> list[str]:
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
    for etc in sorted(Path("/etc").glob("python3*")):
        argv += ["--ro-bind-try", str(etc), str(etc)]
    for prefix in report.python_prefixes:
        if not any(prefix == p or prefix.startswith(p + "/") for p in _BWRAP_SYSTEM):
            argv += ["--ro-bind", prefix, prefix]
    # Every writable place is a size-capped tmpfs (tmpfs lives in the host's memory, and only
    # a cgroup would count it against the bot): /tmp and /dev/shm; the root bubblewrap builds
    # and /dev are made read-only (device nodes stay usable).
    tmp_bytes = str(limits.tmp_mb * _MIB)
    argv += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
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


def _make_cgroup(parent: Path, marker: str, limits: Limits) -> Path:
    path = parent / f"arena-{marker}"
    path.mkdir(mode=0o755)
    (path / "memory.max").write_text(str(limits.memory_mb * _MIB))
    with contextlib.suppress(OSError):
        (path / "memory.swap.max").write_text("0")
    (path / "pids.max").write_text(str(limits.processes))
    return path


def _remove_cgroup(path: Path | None) -> None:
    if path is None:
        return
    for _ in range(100):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                break
            with contextlib.suppress(OSError):
                (path / "cgroup.kill").write_text("1")
            time.sleep(0.01)
    log.warning("could not remove cgroup %s", path)


def _remove_tree(path: Path) -> None:
    """Remove a private directory even where it holds read-only subdirectories."""
    if not path.exists():
        return
    for dirpath, dirnames, _files in os.walk(path):
        for name in [".", *dirnames]:
            target = os.path.join(dirpath, name)
            if not os.path.islink(target):
                with contextlib.suppress(OSError):
                    os.chmod(target, 0o700)
    shutil.rmtree(path, ignore_errors=True)
