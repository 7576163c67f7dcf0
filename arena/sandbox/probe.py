"""Find out, for real and once per process, which isolation layers work on this machine.

Every layer is tested by running something under it (``bwrap ... python -c ...``, a seccomp
filter that must refuse an AF_INET socket, a process that must come back with the bot's uid),
because "the binary exists" says nothing about whether the kernel lets it work. One launch
tries every layer that should work here; only where it fails a check are the layers tried one
at a time, which names the failing one. A layer that is
missing produces one line in ``report.warnings`` (logged once per process at INFO level only:
the library reports, and a front end says it where it matters, as ``arena doctor`` and the
header of ``arena run`` do); ``level`` names the layers reached, and the referee records it
with every match.

Bot user (:func:`arena.sandbox.uids.bot_account`): when the referee runs as root, bots run as
``arena-bot`` (created with ``useradd --system`` when missing), else ``nobody``;
``ARENA_BOT_USER`` picks another account. Where each bot gets its cgroup:
:func:`arena.sandbox.cgroups.bots_cgroup_parent`.

Bot kit: the copy of the ``arena`` package bots import, made by :mod:`arena.sandbox.kit`;
the probe imports the engine in the bots' interpreter, and if the compiled modules fail to
load there, bots get a kit of the sources alone and ``bot_engine`` says why.
"""

from __future__ import annotations

import json
import logging
import os
import select
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.errors import SandboxError
from arena.sandbox import landlock, seccomp
from arena.sandbox.cgroups import bots_cgroup_parent, can_freeze, v2_cgroup_of_self
from arena.sandbox.kit import kit_path, make_kit
from arena.sandbox.limits import Limits
from arena.sandbox.report import (
    LAYERS,
    LEVEL_LAYERS,
    NOT_NEEDED,
    OPTIONAL_LAYERS,
    SandboxReport,
    level_of,
)
from arena.sandbox.spawn import spawn
from arena.sandbox.uids import bot_account, is_bot_uid

__all__ = ["adopt", "kit_env", "kit_path", "probe"]

log = logging.getLogger("arena.sandbox")


_CHECK = r"""
import json, os, socket, sys
out = {"version": list(sys.version_info[:3]), "executable": sys.executable,
       "prefix": sys.prefix, "base_prefix": sys.base_prefix, "uid": os.getuid(),
       "pid": os.getpid()}
try:
    import arena
    out["kit"] = arena.__file__
except Exception as exc:
    out["kit_error"] = repr(exc)
try:
    import arena.engine, arena.sdk.serving
    from arena.native import native_build
    out["engine"] = str(native_build())
except Exception as exc:
    out["engine_error"] = repr(exc)
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    out["inet"] = "allowed"
except OSError as exc:
    out["inet"] = exc.errno
try:
    with open("/proc/self/cgroup") as f:
        out["cgroup"] = f.read()
except OSError:
    pass
try:
    path = "/tmp/arena-probe-write-%d" % os.getpid()
    with open(path, "w"):
        pass
    os.unlink(path)
    out["tmp_write"] = True
except OSError:
    out["tmp_write"] = False
try:
    open("/proc/self/pagemap", "rb").close()
    out["pagemap"] = True
except OSError:
    out["pagemap"] = False
import resource
out["nofile"] = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
print(json.dumps(out), flush=True)
"""
_PROBE_LIMITS = Limits(memory_mb=512, open_files=32, processes=16)


_lock = threading.Lock()
_cached: SandboxReport | None = None
_logged: set[str] = set()


def _disabled(disable: Iterable[str] = ()) -> frozenset[str]:
    """The layers switched off: ``disable`` and ``ARENA_SANDBOX_DISABLE``."""
    return frozenset(d.strip() for d in os.environ.get("ARENA_SANDBOX_DISABLE", "").split(",")
                     if d.strip()) | frozenset(disable)


def probe(*, refresh: bool = False, disable: Iterable[str] = ()) -> SandboxReport:
    """The sandbox report for this machine, probed once per process and cached.

    ``disable`` (or the environment variable ``ARENA_SANDBOX_DISABLE``, comma-separated)
    switches layers off, e.g. to test the degraded paths; a report with ``disable`` given is
    probed afresh and not cached.
    """
    global _cached
    disabled = _disabled(disable)
    unknown = disabled - set(OPTIONAL_LAYERS)
    if unknown:
        raise ValueError(f"cannot disable sandbox layer(s) {', '.join(sorted(unknown))}; "
                         f"optional layers: {', '.join(OPTIONAL_LAYERS)}")
    with _lock:
        if disable:
            return _probe(disabled)
        if _cached is None or refresh:
            _cached = _probe(disabled)
        return _cached


def adopt(report: SandboxReport) -> bool:
    """Take ``report`` as this process's probe instead of probing again, and whether it was
    taken. Meant for a worker process this machine's referee has just started, handed the
    report its parent probed moments before: same kernel, binaries, user and environment,
    and the same kit (kept until the parent exits, after its workers). Refused, so that the
    next :func:`probe` probes for real, when this process has a report of its own already,
    the layers switched off differ (``ARENA_SANDBOX_DISABLE``) or the report's kit is gone:
    an adopted report never weakens what a probe here would find."""
    global _cached
    with _lock:
        if (_cached is not None or report.disabled != _disabled()
                or not (report.kit_path / "arena").is_dir()):
            return False
        _cached = report
        return True


def kit_env() -> dict[str, str]:
    """Environment entries that let a bot's Python import the kit."""
    return {"PYTHONPATH": str(probe().kit_path)}


def _run_check(report: SandboxReport, python: str,
               timeout: float = 20.0) -> tuple[dict[str, Any] | None, str]:
    """Run the check program under ``report``'s layers; (its JSON or None, why not)."""
    with tempfile.TemporaryDirectory(prefix="arena-probe-") as tmp:
        os.chmod(tmp, 0o755)
        try:
            proc = spawn([python, "-c", _CHECK], workdir=Path(tmp).resolve(), limits=_PROBE_LIMITS,
                         env={"PYTHONPATH": str(report.kit_path)}, report=report)
        except SandboxError as exc:
            return None, str(exc)
        try:
            out = _read_all(proc.stdout.fileno(), time.monotonic() + timeout)
            proc.wait(timeout)
            status = proc.exit_status()
            err = proc.stderr_text().strip()
        finally:
            proc.kill_all()
    try:
        return json.loads(out.decode().strip().splitlines()[-1]), ""
    except (ValueError, IndexError):
        reason = err.splitlines()[-1] if err else status.description
        return None, reason


def _bot_engine(result: dict[str, Any], python: str) -> tuple[str, bool]:
    """(how the engine runs in bots, whether they must be told to use the sources), from the
    check program's answer under the layers reached so far (the last one decides: a layer
    may hide what the compiled modules need, e.g. a mount that forbids mapping them)."""
    if "engine" in result:
        return str(result["engine"]), False
    return (f"pure (the compiled engine does not load in {python}: "
            f"{result.get('engine_error', 'unknown error')})"), True


def _read_all(fd: int, deadline: float) -> bytes:
    chunks = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            break
        chunk = os.read(fd, 65_536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _python_candidates() -> list[str]:
    major, minor = sys.version_info[:2]
    names = [os.path.realpath(sys.executable), f"/usr/bin/python{major}.{minor}",
             f"/usr/local/bin/python{major}.{minor}", "/usr/bin/python3",
             "/usr/local/bin/python3", shutil.which("python3") or ""]
    seen: list[str] = []
    for name in names:
        if name and name not in seen and os.path.isfile(name):
            seen.append(name)
    return seen


#: A layer's status when ``disable`` or ``ARENA_SANDBOX_DISABLE`` switched it off.
_OFF = "disabled by ARENA_SANDBOX_DISABLE / probe(disable=...)"
#: A layer's status, and the check program's answer under it when it is active.
_Trial = tuple[bool | str, dict[str, Any] | None]


def _probe(disabled: frozenset[str]) -> SandboxReport:
    layers: dict[str, bool | str] = {"setsid": True, "rlimits": True}
    user, uid, gid, user_status = bot_account() if "user" not in disabled else (
        "root" if os.geteuid() == 0 else str(os.geteuid()), None, None, _OFF)
    layers["user"] = user_status
    kit = kit_path()
    base = SandboxReport(layers={**layers, "bwrap": _OFF, "landlock": _OFF, "seccomp": _OFF,
                                 "cgroup": _OFF},
                         level="", warnings=[], python=sys.executable, kit_path=kit,
                         user=user, uid=uid, gid=gid, disabled=disabled)
    python, version, prefixes, engine_check, why_python = _find_python(base, layers)
    if not python:
        for name in ("bwrap", "landlock", "seccomp", "cgroup"):
            layers[name] = "no interpreter to test with"
        report = replace(base, layers=layers, level=level_of(layers), can_run=False, warnings=[
            "no Python interpreter the bot user can run and import the kit with: "
            + "; ".join(why_python)])
        _log_once(report.warnings)
        return report
    base = replace(base, python=python, python_version=version, python_prefixes=prefixes,
                   layers=dict(layers, bwrap=_OFF, landlock=_OFF, seccomp=_OFF, cgroup=_OFF))

    found = (_all_at_once(base, python, disabled)
             or _layer_by_layer(base, python, disabled, engine_check))
    layers.update(found.status)
    bot_engine, engine_pure = _bot_engine(found.answer, python)
    report = replace(base, layers={k: layers[k] for k in LAYERS}, level=level_of(layers),
                     warnings=_missing(layers) + _signals_open(layers, uid), bwrap=found.bwrap,
                     cgroup_parent=found.cgroup_parent, freezer_parent=found.freezer_parent,
                     freezer=found.freezer, bot_engine=bot_engine,
                     bot_engine_pure=engine_pure,
                     kit_path=make_kit(extensions=False) if engine_pure else base.kit_path)
    _log_once(report.warnings)
    return report


@dataclass(frozen=True)
class _Layers:
    """What the layers' checks found: the status of bwrap, landlock, seccomp and cgroup, what
    the bots' launches take from them, and the check program's last answer (which says how
    the engine runs in bots)."""

    status: dict[str, bool | str]
    bwrap: str | None
    cgroup_parent: Path | None
    freezer_parent: Path | None
    freezer: bool | str
    answer: dict[str, Any]


def _all_at_once(base: SandboxReport, python: str, disabled: frozenset[str]) -> _Layers | None:
    """Every layer that should work here, tried in one launch; None unless each passes the
    check it gets when tried alone. Where all work (the usual case) the probe then launches
    once for the layers instead of once a layer; where one fails, :func:`_layer_by_layer`
    finds which, and why."""
    bwrap_path = shutil.which("bwrap")
    if bwrap_path is None or not seccomp.supported() or {"bwrap", "seccomp"} & disabled:
        return None
    cgroup_parent, cgroup = (None, _OFF) if "cgroup" in disabled else bots_cgroup_parent()
    freezer_parent, freezer = _freezer_candidate(disabled, cgroup_parent)
    landlock_status = _landlock_unavailable(disabled, uses_bwrap=True) or True
    trial = replace(base, bwrap=bwrap_path, cgroup_parent=cgroup_parent,
                    freezer_parent=freezer_parent,
                    layers={**base.layers, "bwrap": True, "seccomp": True,
                            "landlock": landlock_status is True,
                            "cgroup": cgroup_parent is not None})
    result, _ = _run_check(trial, python)
    if result is None or _bwrap_failed(result) or _seccomp_failed(result) or (
            landlock_status is True and _landlock_failed(result, uses_bwrap=True)) or (
            cgroup_parent is not None and _cgroup_failed(result, cgroup_parent)):
        return None
    return _Layers(status={"bwrap": True, "landlock": landlock_status, "seccomp": True,
                           "cgroup": cgroup},
                   bwrap=bwrap_path, cgroup_parent=cgroup_parent,
                   freezer_parent=freezer_parent, freezer=freezer, answer=result)


def _layer_by_layer(base: SandboxReport, python: str, disabled: frozenset[str],
                    engine_check: dict[str, Any]) -> _Layers:
    """Each layer tried on top of those found working before it: what works, and for each
    layer that does not, why."""
    status: dict[str, bool | str] = {}
    # bubblewrap: pid + network namespaces, read-only system, private /tmp.
    bwrap_path = shutil.which("bwrap")
    status["bwrap"], answer = _bwrap_layer(base, python, disabled, bwrap_path)
    engine_check = answer or engine_check
    uses_bwrap = status["bwrap"] is True
    base = replace(base, bwrap=bwrap_path if uses_bwrap else None,
                   layers={**base.layers, "bwrap": status["bwrap"]})
    # Landlock: the filesystem allow list (inside bubblewrap: its /proc narrowed).
    status["landlock"], answer = _landlock_layer(base, python, disabled, uses_bwrap)
    engine_check = answer or engine_check
    base = replace(base, layers={**base.layers, "landlock": status["landlock"]})
    # seccomp: the filter must load and refuse an AF_INET socket.
    status["seccomp"], answer = _seccomp_layer(base, python, disabled)
    engine_check = answer or engine_check
    base = replace(base, layers={**base.layers, "seccomp": status["seccomp"]})
    # cgroup v2: memory.max and pids.max per bot.
    cgroup_parent, status["cgroup"], answer = _cgroup_layer(base, python, disabled)
    engine_check = answer or engine_check
    freezer_parent, freezer = _freezer(base, python, disabled, cgroup_parent)
    return _Layers(status=status, bwrap=bwrap_path if uses_bwrap else None,
                   cgroup_parent=cgroup_parent, freezer_parent=freezer_parent,
                   freezer=freezer, answer=engine_check)


def _find_python(base: SandboxReport, layers: dict[str, bool | str]
                 ) -> tuple[str, str, tuple[str, ...], dict[str, Any], list[str]]:
    """The first candidate interpreter that runs as the bot user and imports the kit: (path,
    version, prefixes, the check's answer, why each earlier candidate failed). The answer
    also judges the ``user`` and ``rlimits`` layers (set in ``layers``)."""
    why_python: list[str] = []
    for candidate in _python_candidates():
        result, why = _run_check(replace(base, python=candidate), candidate)
        if result is None:
            why_python.append(f"{candidate}: {why}")
            continue
        if tuple(result["version"][:2]) < (3, 10):
            why_python.append(f"{candidate}: Python {result['version']} is older than 3.10")
            continue
        if "kit" not in result:
            why_python.append(f"{candidate}: cannot import the kit: {result.get('kit_error')}")
            continue
        if base.uid is not None and not is_bot_uid(result["uid"]):
            layers["user"] = (f"the bot came back with uid {result['uid']}, not one of the "
                              "bots' own")
        if result["nofile"] != _PROBE_LIMITS.open_files:
            layers["rlimits"] = "rlimits were not applied"
        prefixes = tuple(sorted({os.path.realpath(result["prefix"]),
                                 os.path.realpath(result["base_prefix"]),
                                 os.path.dirname(os.path.realpath(candidate))}))
        return candidate, ".".join(map(str, result["version"])), prefixes, result, why_python
    return "", "", (), {}, why_python


def _bwrap_layer(base: SandboxReport, python: str, disabled: frozenset[str],
                 bwrap_path: str | None) -> _Trial:
    if "bwrap" in disabled:
        return _OFF, None
    if bwrap_path is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)", None
    trial = replace(base, bwrap=bwrap_path, layers={**base.layers, "bwrap": True})
    result, why = _run_check(trial, python)
    if result is None:
        return f"bwrap does not work here: {why}", None
    why_not = _bwrap_failed(result)
    return (why_not, None) if why_not else (True, result)


def _landlock_layer(base: SandboxReport, python: str, disabled: frozenset[str],
                    uses_bwrap: bool) -> _Trial:
    unavailable = _landlock_unavailable(disabled, uses_bwrap=uses_bwrap)
    if unavailable:
        return unavailable, None
    result, why = _run_check(replace(base, layers={**base.layers, "landlock": True}), python)
    if result is None:
        return f"the Landlock ruleset does not apply: {why}", None
    why_not = _landlock_failed(result, uses_bwrap=uses_bwrap)
    return (why_not, None) if why_not else (True, result)


def _landlock_unavailable(disabled: frozenset[str], *, uses_bwrap: bool) -> str | None:
    """Why Landlock cannot be tried here, or None."""
    if "landlock" in disabled:
        return _OFF
    if not landlock.abi_version():
        # Under bubblewrap it is what keeps a bot from reading, in its own /proc entries,
        # which pages of a shared file another bot maps.
        return "Landlock is not available in this kernel (needs Linux 5.13+)" + (
            ": a bot's /proc/self/pagemap and smaps tell which pages of a shared file "
            "another bot maps" if uses_bwrap else "")
    return None


def _landlock_failed(result: dict[str, Any], *, uses_bwrap: bool) -> str | None:
    """What the check program found that Landlock should have stopped, or None."""
    if result.get("pagemap"):
        return "Landlock applied but /proc/self/pagemap stayed readable"
    if result.get("tmp_write") and not uses_bwrap:  # bubblewrap's /tmp is the bot's own
        return "Landlock applied but /tmp stayed writable"
    return None


def _seccomp_layer(base: SandboxReport, python: str, disabled: frozenset[str]) -> _Trial:
    if "seccomp" in disabled:
        return _OFF, None
    if not seccomp.supported():
        return "no filter encoded for this architecture (x86_64 only)", None
    result, why = _run_check(replace(base, layers={**base.layers, "seccomp": True}), python)
    if result is None:
        return f"the seccomp filter does not load: {why}", None
    why_not = _seccomp_failed(result)
    return (why_not, None) if why_not else (True, result)


def _cgroup_layer(base: SandboxReport, python: str, disabled: frozenset[str]
                  ) -> tuple[Path | None, bool | str, dict[str, Any] | None]:
    """(the cgroup parent bots go under, or None; the layer's status; the check's answer)."""
    if "cgroup" in disabled:
        return None, _OFF, None
    parent, status = bots_cgroup_parent()
    if parent is None:
        return None, status, None
    trial = replace(base, cgroup_parent=parent, layers={**base.layers, "cgroup": True})
    result, why = _run_check(trial, python)
    if result is None:
        return None, f"cannot place a bot in a cgroup under {parent}: {why}", None
    why_not = _cgroup_failed(result, parent)
    if why_not:
        return None, why_not, None
    return parent, status, result


# What the check program's answer must show of each layer (None: it does), tried alone or
# all at once.
def _bwrap_failed(answer: dict[str, Any]) -> str | None:
    return "bwrap ran but without a new pid namespace" if answer["pid"] > 3 else None


def _seccomp_failed(answer: dict[str, Any]) -> str | None:
    return ("the seccomp filter loaded but did not refuse sockets"
            if answer["inet"] == "allowed" else None)


def _cgroup_failed(answer: dict[str, Any], parent: Path) -> str | None:
    return (None if "/arena-" in answer.get("cgroup", "")
            else f"the bot did not land in its cgroup under {parent}")


def _freezer(base: SandboxReport, python: str, disabled: frozenset[str],
             cgroup_parent: Path | None) -> tuple[Path | None, bool | str]:
    """(where bots get a bare cgroup to be frozen in, or None; whether bots are frozen by
    their cgroup, or why not): :func:`_freezer_candidate`, tried with a launch."""
    candidate, status = _freezer_candidate(disabled, cgroup_parent)
    if candidate is None:
        return None, status
    result, why = _run_check(replace(base, freezer_parent=candidate), python)
    if result is None:
        return None, f"cannot place a bot in a cgroup under {candidate}: {why}"
    return candidate, True


def _freezer_candidate(disabled: frozenset[str], cgroup_parent: Path | None
                       ) -> tuple[Path | None, bool | str]:
    """Where bots would get a bare cgroup to be frozen in, to be tried (and True); or None
    and the freezer's status, known without a launch. With the ``cgroup`` layer each bot's
    own cgroup is frozen; without it, a root referee gives each bot a bare cgroup beside its
    own in the cgroup v2 hierarchy, also where only cgroup v1 has the controllers (a hybrid
    machine)."""
    if "cgroup" in disabled:
        return None, _OFF
    parent = cgroup_parent or (v2_cgroup_of_self() if os.geteuid() == 0 else None)
    if parent is None:
        return None, ("no cgroup v2 directory to make the bots' cgroups in (the cgroup layer "
                      "is not active and the referee is not root)")
    why = can_freeze(parent)
    if why is not None:
        return None, why
    if cgroup_parent is not None:
        return None, True
    return parent, True


def _missing(layers: dict[str, bool | str]) -> list[str]:
    """One warning per layer of the level that is not active (and is needed here)."""
    warnings = []
    for name, status in layers.items():
        if status is True or name not in LEVEL_LAYERS:
            continue
        assert isinstance(status, str)
        if status.startswith(NOT_NEEDED):
            continue
        warnings.append(f"sandbox layer {name} is not active: {status}")
    return warnings


def _signals_open(layers: dict[str, bool | str], uid: int | None) -> list[str]:
    """A warning where bots may signal the referee: they run under its own uid (``uid`` is
    None), no pid namespace of bubblewrap's holds them, and Landlock, where active, predates
    its scope of signals (ABI 6)."""
    if uid is not None or layers.get("bwrap") is True:
        return []
    abi = landlock.abi_version() if layers.get("landlock") is True else 0
    if abi >= 6:
        return []
    kept = (f"this kernel's Landlock (ABI {abi}) cannot scope signals (ABI 6, Linux 6.12)"
            if abi else "no Landlock scopes their signals (ABI 6, Linux 6.12)")
    return [f"bots run under the referee's own uid without bubblewrap, and {kept}: a bot may "
            "stop or kill the referee and every process of its user; run the arena as root "
            "(a uid of its own per bot) or where bubblewrap works"]


def _log_once(warnings: list[str]) -> None:
    # INFO, not WARNING: a warning would be printed by every command that starts a bot.
    for line in warnings:
        if line not in _logged:
            _logged.add(line)
            log.info("%s", line)
