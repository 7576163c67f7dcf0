"""Launch an untrusted command under every layer the probe found working (:func:`launch`).

The pieces: :mod:`~arena.sandbox.spawn` starts the process under a report's layers,
:mod:`~arena.sandbox.process` is the running bot and ends it, :mod:`~arena.sandbox.workdir`
its private copy of its files, :mod:`~arena.sandbox.commandline` the command (bubblewrap's
included), :mod:`~arena.sandbox.confinement` what is set between fork and exec,
:mod:`~arena.sandbox.cgroups`, :mod:`~arena.sandbox.uids` and :mod:`~arena.sandbox.strays`
(what dead referees left behind).

Threads: bubblewrap's ``--die-with-parent`` ties the sandbox to the *thread* that launched it
(Linux's parent-death signal follows the creating thread), so launch bots from a thread that
lives as long as the bots, e.g. the main thread or a match's own long-lived thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from arena.sandbox.limits import Limits
from arena.sandbox.probe import probe
from arena.sandbox.process import ExitStatus, SandboxedProcess
from arena.sandbox.report import SandboxReport
from arena.sandbox.spawn import spawn

__all__ = ["ExitStatus", "SandboxedProcess", "launch"]


def launch(command: Sequence[str], *, workdir: Path, limits: Limits | None = None,
           readable: Iterable[Path] = (), env: Mapping[str, str] | None = None,
           marker: str | None = None, report: SandboxReport | None = None,
           files_digest: str | None = None,
           files: Iterable[str] | None = None) -> SandboxedProcess:
    """Start ``command`` for the bot whose files are ``workdir`` under every working layer.

    ``workdir`` is the bot's own directory, or its single module file; it is copied into a
    private directory that becomes the working directory (read-only for the bot). Its path
    must hold no symbolic link (``Path.resolve()`` gives one that does not): the copy
    follows none, so a parent its author swapped for a link since the bot was checked
    cannot lead it to files elsewhere. ``readable``
    paths (and the entries of ``env["PYTHONPATH"]``) are made visible read-only; they must be
    readable by the bot user. ``marker`` (default: random) tags every process of the bot.
    ``report`` (default: :func:`probe`) names the layers to use. ``files_digest``, the
    version's files part the bot was checked under, is compared with the hash of the copy
    (what will run): :class:`arena.errors.FilesChangedError` when they differ; ``files``
    (relative paths) copies only those of a bot directory, the files that version names
    (one added since is not copied, so nothing runs that the version does not name). Raises
    :class:`arena.errors.SandboxError` when the command cannot be started at all.
    """
    report = report if report is not None else probe()
    limits = limits if limits is not None else Limits()
    return spawn(command, workdir=workdir, limits=limits, report=report, readable=readable,
                 env=env, marker=marker, files_digest=files_digest,
                 files=frozenset(files) if files is not None else None)
