"""Start a bot under the layers a :class:`SandboxReport` names (:func:`spawn`).

The bot always gets its own session and process group, rlimits, a cleared environment, closed
file descriptors, a private copy of its files as the working directory and a private writable
scratch directory; then, as the report allows: a uid of its own (when the referee is root),
bubblewrap, Landlock (where bubblewrap is not), a seccomp filter and a cgroup.

:func:`arena.sandbox.launch` is the public entry (it probes for the report); the probe itself
starts its check program here, with the report it is building.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.common.signalmask import signals_held
from arena.errors import FilesChangedError, SandboxError
from arena.sandbox import landlock, reaper, seccomp
from arena.sandbox.cgroups import make_cgroup, remove_cgroup
from arena.sandbox.commandline import (
    BOX_PREFIX,
    DEVICES,
    bwrap_argv,
    confinement,
    moving_stdio,
    read_paths,
    rewrite_command,
    write_accounts,
)
from arena.sandbox.confinement import make_preexec, rlimits
from arena.sandbox.leftovers import release_uids
from arena.sandbox.limits import MIB, Limits
from arena.sandbox.process import ExitStatus, SandboxedProcess
from arena.sandbox.report import SandboxReport
from arena.sandbox.starts import exec_deadline, starting
from arena.sandbox.strays import sweep_once
from arena.sandbox.uids import fresh_uid
from arena.sandbox.workdir import copy_bot, mount_scratch, remove_tree

__all__ = ["BOT_PATH", "THREAD_POOLS", "spawn"]

#: One thread for the numeric libraries' pools (OpenBLAS, MKL, OpenMP, BLIS, Accelerate,
#: numexpr): each pool thread reserves its own buffers, which at one per core would not fit
#: the address-space limit, and threads count against the process limit. A bot that wants
#: more may set them before its first import of such a library.
THREAD_POOLS = {name: "1" for name in (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}


def spawn(command: Sequence[str], *, workdir: Path, limits: Limits, report: SandboxReport,
          readable: Iterable[Path] = (), env: Mapping[str, str] | None = None,
          marker: str | None = None, files_digest: str | None = None,
          files: frozenset[str] | None = None) -> SandboxedProcess:
    """Start ``command`` for the bot whose files are ``workdir`` under ``report``'s layers
    (see :func:`arena.sandbox.launcher.launch` for the arguments)."""
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
    sweep_once()
    layers = _Layers.of(report)
    held = _Held(Path(tempfile.mkdtemp(prefix=f"{BOX_PREFIX}{os.getpid()}-")))
    try:
        with starting() as start:
            started = _start(held, layers, command, workdir, limits, report, readable, env,
                             marker, (files_digest, files))
            start.check()  # all bots ended meanwhile, or its exec overdue: it goes (abandon)
            return started
    except BaseException:
        held.abandon()
        raise
    finally:
        held.close_fds()


@dataclass(frozen=True)
class _Layers:
    """Which layers this launch uses, and the uid the bot runs as."""

    bwrap: bool
    seccomp: bool
    landlock: bool
    #: The uid the bot runs as (None: the referee's own).
    uid: int | None
    #: The bot's own uid and gid when a root referee drops to them: its files are its alone.
    own: int | None

    @classmethod
    def of(cls, report: SandboxReport) -> _Layers:
        uses_bwrap = report.layers.get("bwrap") is True and report.bwrap is not None
        own = fresh_uid() if report.uid is not None and os.geteuid() == 0 else None
        return cls(bwrap=uses_bwrap, seccomp=report.layers.get("seccomp") is True,
                   landlock=report.layers.get("landlock") is True,
                   uid=own if own is not None else report.uid, own=own)


class _Held:
    """What a launch holds until the bot's process owns it, or the launch fails."""

    def __init__(self, box: Path) -> None:
        self.box = box
        #: Descriptors closed once the process is started (or the launch failed).
        self.fds: list[int] = []
        self.pass_fds: list[int] = []
        self.cgroup: Path | None = None
        self.info_r: int | None = None
        self.pipes: tuple[IO[bytes], IO[bytes]] | None = None
        self.started: SandboxedProcess | None = None

    def abandon(self) -> None:
        """Undo a launch that failed (or was interrupted) part of the way."""
        for stream in self.pipes or ():
            with contextlib.suppress(OSError):
                stream.close()
        if self.started is not None:  # stopped at the unblock: it owns the box and fds now
            self.started.kill_all()
            return
        if self.info_r is not None:
            with contextlib.suppress(OSError):
                os.close(self.info_r)
        remove_cgroup(self.cgroup)
        remove_tree(self.box)

    def close_fds(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def _start(held: _Held, layers: _Layers, command: Sequence[str], workdir: Path,
           limits: Limits, report: SandboxReport, readable: Iterable[Path],
           env: Mapping[str, str] | None, marker: str,
           checked: tuple[str | None, frozenset[str] | None]) -> SandboxedProcess:
    if layers.own is not None:
        # Only the bot's own group may pass through its box: another bot that learns the path
        # of its scratch (from /proc/self/mountinfo) could otherwise stat it and read, in its
        # free inodes and blocks, what the bot writes there to signal it.
        os.chown(held.box, 0, layers.own)
        os.chmod(held.box, 0o710)
    else:
        os.chmod(held.box, 0o711)
    bot_copy = held.box / "bot"
    files_digest, files = checked
    copied = copy_bot(workdir, bot_copy, layers.own, files)
    if files_digest is not None and copied != files_digest:
        # Its author changed the files between the check and this copy: what would run is
        # another program under the checked version's name.
        raise FilesChangedError(f"the bot's files at {workdir} changed since they were "
                                f"checked (version {files_digest}, copied {copied})")
    home = _home(held.box, layers, limits)
    full_env = _environment(home, env, marker)
    visible = [Path(p) for p in readable]
    visible += [Path(p) for p in full_env.get("PYTHONPATH", "").split(os.pathsep) if p]
    for path in visible:
        if not path.exists():
            raise SandboxError(f"readable path {path} does not exist")
    argv = rewrite_command(command, workdir, report.python)
    if layers.bwrap:
        argv = _in_bwrap(held, layers, argv, report, limits, bot_copy, visible)
    procs_fd: int | None = None
    if report.cgroup_parent is not None and report.layers.get("cgroup") is True:
        held.cgroup = make_cgroup(report.cgroup_parent, marker, limits)
    elif report.freezer_parent is not None:
        held.cgroup = make_cgroup(report.freezer_parent, marker, None)
    if held.cgroup is not None:
        procs_fd = os.open(held.cgroup / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
        held.fds.append(procs_fd)
    restrict: Callable[[], None] | None = None
    if layers.landlock and not layers.bwrap:  # inside bubblewrap, the stub applies it
        ruleset_fd = landlock.ruleset(
            read=read_paths(report, visible, bot_copy), write=[home],
            devices=DEVICES, abi=landlock.abi_version())
        held.fds.append(ruleset_fd)
        restrict = landlock.restrictor(ruleset_fd, abi=landlock.abi_version(), own_proc=True)
    # The process starts in the copy (bubblewrap itself too: the referee's own working
    # directory may not be reachable by the bot user); bubblewrap then moves to /bot.
    _popen(held, layers, argv, command, str(bot_copy), full_env, limits, report, marker,
           procs_fd, restrict)
    assert held.started is not None
    return held.started


def _home(box: Path, layers: _Layers, limits: Limits) -> str:
    """The bot's writable scratch: bubblewrap's private /tmp, else a directory of the box,
    a tmpfs of its own when this referee may mount one."""
    if layers.bwrap:
        return "/tmp"
    scratch = box / "home"
    scratch.mkdir(mode=0o700)
    if layers.own is not None:
        os.chown(scratch, layers.own, layers.own)
        mount_scratch(scratch, limits.tmp_mb * MIB, layers.own)
    return str(scratch)


#: The bot's PATH, whoever runs the arena: where a bare program name in its command is
#: looked up (system directories every sandbox mode shows a bot; not the host user's own).
BOT_PATH = "/usr/local/bin:/usr/bin:/bin"


def _environment(home: str, env: Mapping[str, str] | None, marker: str) -> dict[str, str]:
    """The bot's whole environment: a fixed base, ``env``, and the sandbox's marker."""
    full_env = {
        "PATH": BOT_PATH,
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONNOUSERSITE": "1",
        # one hash seed for every launch: a bot iterating a set of strings replays its games
        "PYTHONHASHSEED": "0",
        # local time is UTC on every host: a bot's dates match the referee's day, and the
        # host's zone is not one more fact about the machine
        "TZ": "UTC",
        **THREAD_POOLS,
    }
    full_env.update(env or {})
    full_env[reaper.ENV_MARKER] = marker
    return full_env


def _in_bwrap(held: _Held, layers: _Layers, argv: list[str], report: SandboxReport,
              limits: Limits, bot_copy: Path, visible: list[Path]) -> list[str]:
    """``argv`` wrapped in bubblewrap, with the descriptors it is passed."""
    assert report.bwrap is not None
    seccomp_fd: int | None = None
    if layers.seccomp:
        program = seccomp.filter_program()
        assert program is not None
        seccomp_fd = os.memfd_create("arena-seccomp", 0)
        held.fds.append(seccomp_fd)
        os.write(seccomp_fd, program)
        os.lseek(seccomp_fd, 0, os.SEEK_SET)
        held.pass_fds.append(seccomp_fd)
    held.info_r, info_w = os.pipe()
    held.fds.append(info_w)
    os.set_blocking(held.info_r, False)
    held.pass_fds.append(info_w)
    # The protocol's pipes reach the bot as two extra fds, moved to its stdin and
    # stdout inside (:func:`moving_stdio`): bubblewrap's own processes close extra
    # fds but keep their stdio, and a stdout they held open would hide a bot that
    # closes its own (no end of file: a crash would pass for silence, a timeout).
    bot_in, stdin_w = os.pipe()
    stdout_r, bot_out = os.pipe()
    held.fds += [bot_in, bot_out]
    held.pipes = (os.fdopen(stdin_w, "wb", buffering=0), os.fdopen(stdout_r, "rb",
                                                                   buffering=0))
    held.pass_fds += [bot_in, bot_out]
    unprivileged = layers.uid is not None or os.geteuid() != 0
    confine = confinement(report, visible, unprivileged=unprivileged) if layers.landlock \
        else None
    ids = (layers.own, layers.own) if layers.own is not None else (os.getuid(), os.getgid())
    accounts = write_accounts(held.box / "accounts", *ids)
    return bwrap_argv(report, limits, bot_copy, visible, seccomp_fd, info_w,
                      unprivileged=unprivileged, accounts=accounts) + (
        moving_stdio(bot_in, bot_out, report.python, confine) + argv)


def _popen(held: _Held, layers: _Layers, argv: list[str], command: Sequence[str], cwd: str,
           full_env: dict[str, str], limits: Limits, report: SandboxReport, marker: str,
           procs_fd: int | None, restrict: Callable[[], None] | None) -> None:
    """Fork and exec the bot; ``held.started`` is its process once it runs."""
    bot_uid = layers.uid if layers.uid is not None else os.geteuid()
    popen_kwargs: dict[str, Any] = {}
    if layers.own is not None:
        popen_kwargs.update(user=layers.own, group=layers.own, extra_groups=[])
    # A Ctrl-C or SIGTERM during the fork would be lost in an at-fork hook, or leak the
    # bot before it is tracked: held, it is raised once ``started`` can reap everything.
    with signals_held() as mask:
        preexec = make_preexec(
            reaper.parent_death_setter(),
            rlimits(limits, bot_uid, 0 if layers.own is not None else None),
            procs_fd,
            restrict,
            seccomp.installer(seccomp.filter_program(
                unix_sockets=False, shares_uid=bot_uid == os.geteuid()) or b"")
            if layers.seccomp and not layers.bwrap else None,
            mask,
        )
        try:
            stdio = subprocess.DEVNULL if held.pipes is not None else subprocess.PIPE
            with exec_deadline(limits.startup_ms):
                popen = subprocess.Popen(
                    argv, stdin=stdio, stdout=stdio, stderr=subprocess.PIPE, bufsize=0,
                    cwd=cwd, env=full_env, close_fds=True,
                    pass_fds=held.pass_fds, start_new_session=True, preexec_fn=preexec,
                    **popen_kwargs)
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxError(
                f"cannot start bot command {' '.join(command)!r}: {exc}") from exc
        bot_class = _OwnUidProcess if layers.own is not None else SandboxedProcess
        held.started = bot_class(
            popen, marker=marker, level=report.level, warnings=report.warnings,
            limits=limits, box=held.box, info_fd=held.info_r, uses_bwrap=layers.bwrap,
            cgroup=held.cgroup, uid=layers.uid, pipes=held.pipes)


class _OwnUidProcess(SandboxedProcess):
    """A bot under a uid of its own: once it is ended, what that uid left in shared places
    (IPC objects, files in /tmp and /dev/shm: the bare mode lets it make them) goes too.
    Under bubblewrap there is nothing to look for: its IPC namespace and tmpfs died with it."""

    def kill_all(self) -> ExitStatus:
        first = not self._ended
        status = super().kill_all()
        if first and self._uid is not None and not self._uses_bwrap:
            release_uids({self._uid})
        return status
