"""The referee's bridge to the sandbox: :class:`TransportConnection` puts a transport (and the
sandboxed process behind it, if any) behind the client's
:class:`~arena.referee.connection.Connection` interface.

Kept apart from the client so the client's rules are tested with scripted connections
(``MockTransport``) and the sandbox can change without touching them.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.errors import FilesChangedError, SandboxError
from arena.protocol.transport import Closed, Line, Overflow, SubprocessTransport, Transport
from arena.referee.connection import Connection, Ended, Launcher, Received
from arena.referee.hints import stack_dump_ended
from arena.referee.pause import cpu_since_pause, pause, resume
from arena.registry import PYTHON, BotSpec, files_changed, files_unchanged, kept_copy
from arena.registry.environments import (
    environment_at,
    environment_changed,
    environment_of_command,
)
from arena.sandbox import (
    ExitStatus,
    Limits,
    SandboxedProcess,
    SandboxReport,
    kit_env,
    launch,
    probe,
)

__all__ = ["TransportConnection", "ended_bots_cpu", "sandbox_launcher", "sandbox_warnings"]

_TIMEOUT = Received("timeout")
_CLOSED = Received("closed")
#: ``data`` says which output limit: one line too long, or too much written in all.
_OVERFLOW = Received("overflow", b"line")
_FLOOD = Received("overflow", b"total")


def _ended(status: ExitStatus) -> Ended:
    return Ended(status.description, status.exit_code, not status.killed_by_referee,
                 bool(status.memory_limit))


_ended_cpu: dict[str, float] = {}
_ended_cpu_lock = threading.Lock()


def ended_bots_cpu() -> dict[str, float]:
    """The CPU seconds of the bot processes this process's launchers ended since it was last
    asked (each process's whole sandbox: :attr:`SandboxedProcess.cpu_seconds`), by bot
    (``name@version``); launches of no named bot (a check, a trial start) are not in it."""
    global _ended_cpu
    with _ended_cpu_lock:
        taken, _ended_cpu = _ended_cpu, {}
    return taken


class TransportConnection:
    """A bot behind a :class:`~arena.protocol.transport.Transport`; ``proc`` is the sandboxed
    process when there is one (a ``MockTransport`` has none); ``key``, the bot's
    ``name@version``, counts its CPU into :func:`ended_bots_cpu` once it is ended."""

    def __init__(self, transport: Transport, proc: SandboxedProcess | None = None,
                 level: str = "", key: str | None = None) -> None:
        self.transport = transport
        self.proc = proc
        self.key = key
        self.pid: int | None = proc.pid if proc is not None else None
        self.level: str = proc.level if proc is not None else level
        self.marker: str | None = proc.marker if proc is not None else None
        self._closed_status: ExitStatus | None = None
        self._closed = False
        self._paused = False
        # The pipe takes several lines in one write (one syscall per decision); other
        # transports (MockTransport) get them one by one.
        self._batches = isinstance(transport, SubprocessTransport)

    def send(self, data: bytes) -> bool:
        # Writes never block and never raise: a bot that stopped reading is noticed as Closed
        # (or a timeout) on the next receive.
        if self._batches:
            self.transport.send_line(data)
        else:
            for line in data.splitlines(keepends=True):
                self.transport.send_line(line)
        return True

    def receive(self, deadline: float) -> Received:
        got = self.transport.receive(deadline)
        if isinstance(got, Line):
            return Received("line", got.data)
        if isinstance(got, Overflow):
            return _OVERFLOW if got.line else _FLOOD
        if isinstance(got, Closed):
            self._closed = True
            self._closed_status = got.status
            return _CLOSED
        return _TIMEOUT

    def ended(self, wait_s: float) -> Ended | None:
        if self.proc is None:
            if not self._closed:
                return None
            status = self._closed_status
            return _ended(status) if status is not None else Ended("closed its output")
        code = self.proc.poll() if wait_s <= 0 else self.proc.wait(wait_s)
        if code is None:
            return None
        return _ended(self.proc.exit_status())

    def unterminated(self) -> int:
        return self.transport.unterminated()

    def stderr_text(self) -> str:
        return self.proc.stderr_text() if self.proc is not None else ""

    def stderr_since(self, mark: int) -> tuple[str, int]:
        return self.proc.stderr_since(mark) if self.proc is not None else ("", mark)

    def pause(self) -> None:
        if self.proc is not None and not self._paused and self.proc.poll() is None:
            self._paused = True
            pause(self.proc)

    def resume(self) -> None:
        if self.proc is not None and self._paused:
            self._paused = False
            resume(self.proc)

    def cpu_since_pause(self) -> float | None:
        if self.proc is None or not self._paused:
            return None
        return cpu_since_pause(self.proc)

    def dump_stack(self, wait_s: float) -> str:
        proc = self.proc
        if proc is None:
            return ""
        _, mark = proc.stderr_since(0)
        stopped = self._paused
        self.resume()  # a frozen or stopped bot would take the signal only once continued
        try:
            if not proc.signal_program(signal.SIGUSR1):
                return ""
            return proc.stderr_wait(mark, stack_dump_ended, wait_s)
        finally:
            if stopped:
                self.pause()

    def shutdown(self, grace_s: float) -> Ended:
        with contextlib.suppress(OSError):
            self.transport.close()
        if self.proc is None:
            return Ended("closed by the referee", 0, True)
        self.resume()  # a stopped bot could not see its stdin close and exit by itself
        self.proc.shutdown(grace_s)
        self._count_cpu()
        return _ended(self.proc.exit_status())

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.transport.close()
        if self.proc is not None:
            self.proc.kill_all()
            self._count_cpu()

    def kill_from_elsewhere(self) -> None:
        """End the bot's processes from a thread other than the one using this connection:
        that thread's next read finds the bot closed, and its own end of the connection
        (:meth:`kill`, :meth:`shutdown`) reaps them. With no process behind the transport,
        closing it is the whole of the bot's end."""
        if self.proc is not None:
            self.proc.kill_without_reaping()
        else:
            with contextlib.suppress(OSError):
                self.transport.close()

    def _count_cpu(self) -> None:
        """Add the ended process's CPU to its bot's (once)."""
        key, self.key = self.key, None
        used = self.proc.cpu_seconds if self.proc is not None else None
        if key is not None and used is not None:
            with _ended_cpu_lock:
                _ended_cpu[key] = _ended_cpu.get(key, 0.0) + used


def _command(command: Sequence[str]) -> list[str]:
    # Module bots say "{python}"; the sandbox runs any command starting with python3 under
    # the interpreter it has made reachable for the bot user (report.python).
    return ["python3" if arg == PYTHON else arg for arg in command]


def sandbox_launcher(report: SandboxReport | None = None, bot: BotSpec | None = None,
                     kept_copies: bool = False,
                     on_kept_copy: Callable[[BotSpec], None] | None = None) -> Launcher:
    """A launcher running bots in the sandbox with the kit on their PYTHONPATH; a bot run by
    its environment's interpreter sees that environment, read-only. With ``bot``, each launch
    runs only a copy of files that hash to its version (else :class:`FilesChangedError`,
    which stops the match as a changed bot's restart does, not a start-up failure; so do files
    gone from its path). With ``kept_copies`` too (a tournament's), a launch after ``arena
    submit --update`` replaced the files, or finding none, runs the copy the update kept of
    them, the version's very files, where there is one, and tells ``on_kept_copy`` so."""

    def start(command: Sequence[str], workdir: Path | str, limits: Limits) -> Connection:
        environment = environment_of_command(command)
        # built as the registry counts it: a build under way holds its record's place
        if environment is not None and environment_at(environment) is None:
            raise SandboxError(f"the bot's environment {environment} is gone (removed while "
                               "the arena ran?): arena check-bot builds it again")
        changed = environment_changed(bot) if bot is not None else None
        if changed is not None:
            assert bot is not None
            raise FilesChangedError(f"bot {bot.key}: {changed}, so it was not started; 'arena "
                                    "run SPEC --continue' enters the bot as the new version its "
                                    "packages make (docs/BOTS.md)")
        try:
            proc = launch(_command(command), workdir=Path(workdir), limits=limits,
                          readable=[environment] if environment is not None else [],
                          env=kit_env(), report=report,
                          files_digest=bot.files_digest if bot is not None else None,
                          files=_version_files(bot))
        except (FilesChangedError, SandboxError, OSError) as exc:
            # files gone from the bot's path fail the copy: the update's, not the bot's doing
            if bot is None or (not isinstance(exc, FilesChangedError) and files_unchanged(bot)):
                raise
            kept = kept_copy(bot) if kept_copies else None
            if kept is None:
                raise FilesChangedError(files_changed(bot, ", so it was not started")) from None
            if on_kept_copy is not None:
                on_kept_copy(bot)
            return sandbox_launcher(report, kept)(kept.command, kept.path, limits)
        try:
            transport = SubprocessTransport(proc)
        except BaseException:
            proc.kill_all()
            raise
        return TransportConnection(transport, proc, key=bot.key if bot is not None else None)

    return start


def _version_files(bot: BotSpec | None) -> list[str] | None:
    """The relative paths of a bot directory's files as its version names them (None: copy
    the whole directory, or the module file)."""
    path = Path(bot.path) if bot is not None else None
    if bot is None or path is None or not bot.files or not path.is_dir():
        return None
    return [Path(file).relative_to(path).as_posix() for file in bot.files]


def sandbox_warnings() -> list[str]:
    """The sandbox's one-line warnings about missing layers (recorded with each match)."""
    return list(probe().warnings)
