"""The probe's report, the limits, the seccomp program and ``arena doctor``."""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import shutil
import struct
import sys
from dataclasses import replace
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest
from sandbox_support import bubblewrap_runs
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import SandboxError
from arena.native import native_build
from arena.sandbox import Limits, SandboxReport, kit_env, probe
from arena.sandbox import landlock as landlock_module
from arena.sandbox import seccomp as seccomp_module
from arena.sandbox.cgroups import can_freeze, v2_cgroup_of_self
from arena.sandbox.kit import make_kit
from arena.sandbox.probe import _bot_engine
from arena.sandbox.report import LAYERS, NOT_NEEDED

#: The module (``arena.sandbox.probe`` the attribute is the function of the same name).
probe_module = importlib.import_module("arena.sandbox.probe")


def test_probe_is_cached_once_per_process() -> None:
    assert probe() is probe()


def test_a_worker_adopts_its_parents_report_only_where_a_probe_would_agree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = probe()
    monkeypatch.setattr(probe_module, "_cached", None)
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", "seccomp")  # other layers switched off here
    assert not probe_module.adopt(report)
    monkeypatch.delenv("ARENA_SANDBOX_DISABLE")
    assert not probe_module.adopt(replace(report, kit_path=tmp_path / "gone"))
    assert probe_module._cached is None
    assert probe_module.adopt(report) and probe() is report
    assert not probe_module.adopt(replace(report))  # this process has its own already
    assert probe() is report


def test_report_names_every_layer_and_a_level_made_of_the_active_ones() -> None:
    report = probe()
    assert set(report.layers) == set(LAYERS)
    assert report.layers["setsid"] is True and report.layers["rlimits"] is True
    active = [name for name, status in report.layers.items() if status is True]
    assert set(report.level.split("+")) == set(active) - {"setsid"}
    for name, status in report.layers.items():
        assert status is True or (isinstance(status, str) and status), name
    missing = [n for n, s in report.layers.items()
               if s is not True and not str(s).startswith(NOT_NEEDED)]
    assert len(report.warnings) == len(missing)
    assert report.can_run
    assert json.loads(json.dumps(report.to_json()))["level"] == report.level


def test_disabling_a_layer_drops_it_from_the_level_with_a_warning(
        reports: dict[str, SandboxReport]) -> None:
    bare = reports["bare"]
    for layer in ("bwrap", "landlock", "seccomp"):
        assert not bare.active(layer)
        assert layer not in bare.level.split("+")
        assert any(f"layer {layer} " in line for line in bare.warnings)
    with pytest.raises(ValueError, match="cannot disable"):
        probe(disable={"rlimits"})


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_bubblewrap_works_here_when_installed() -> None:
    # On CI (.ci/setup-system installs bubblewrap) the namespaces must be usable; where the
    # kernel forbids them the probe must say why instead.
    status = probe().layers["bwrap"]
    assert status is True or "bwrap" in str(status)
    if bubblewrap_runs():  # then the probe's own launch must work too
        assert status is True


#: The check program's answer (or None) and why not, as ``_run_check`` gives them.
Checked = tuple[dict[str, Any] | None, str]
#: What a probe finds, to compare two probes by (the kit's directory is a fresh one each time).
_FOUND = ("layers", "level", "warnings", "python", "bwrap", "cgroup_parent", "freezer_parent",
          "freezer", "bot_engine", "bot_engine_pure", "can_run")


def _probed(monkeypatch: pytest.MonkeyPatch, disabled: frozenset[str] = frozenset(),
            **replaced: Any) -> tuple[dict[str, Any], list[SandboxReport]]:
    """A fresh probe, with some of the probe module's functions ``replaced``: what it found,
    and the reports its check program was launched under once the interpreter was found
    (the launches under bubblewrap or a cgroup)."""
    trials: list[SandboxReport] = []
    run_check = replaced.pop("_run_check", probe_module._run_check)

    def counted(report: SandboxReport, python: str, timeout: float = 20.0) -> Checked:
        if report.bwrap or report.cgroup_parent or report.freezer_parent:
            trials.append(report)
        return run_check(report, python, timeout)

    with monkeypatch.context() as patch:
        patch.setattr(probe_module, "_run_check", counted)
        for name, value in replaced.items():
            patch.setattr(probe_module, name, value)
        report = probe_module._probe(disabled)
    return {name: getattr(report, name) for name in _FOUND}, trials


@pytest.mark.skipif(not bubblewrap_runs(), reason="bubblewrap cannot run here")
@pytest.mark.parametrize("disabled", [frozenset(), frozenset({"cgroup"}),
                                      frozenset({"user"}), frozenset({"landlock"})])
def test_every_layer_tried_at_once_finds_what_one_at_a_time_finds(
        monkeypatch: pytest.MonkeyPatch, disabled: frozenset[str]) -> None:
    """Where every layer works, the probe tries them in one launch (after the one that finds
    the interpreter) instead of one launch each; it must come to the very same report."""
    at_once, quick = _probed(monkeypatch, disabled)
    one_by_one, slow = _probed(monkeypatch, disabled, _all_at_once=lambda *args: None)
    assert at_once == one_by_one
    assert at_once["layers"]["bwrap"] is True and at_once["layers"]["seccomp"] is True
    assert len(quick) == 1 < len(slow)
    assert quick[0].layers["seccomp"] is True  # the one launch had them all
    assert (quick[0].freezer_parent, quick[0].cgroup_parent) == (
        one_by_one["freezer_parent"], one_by_one["cgroup_parent"])


@pytest.mark.skipif(not bubblewrap_runs(), reason="bubblewrap cannot run here")
def test_a_layer_failing_among_all_at_once_is_found_one_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """If the launch with every layer fails its checks, the probe tries the layers one by one,
    which names the failing layer and keeps the others."""
    run_check = probe_module._run_check

    def inet_open(report: SandboxReport, python: str, timeout: float = 20.0) -> Checked:
        result, why = run_check(report, python, timeout)
        if result is not None and report.layers.get("seccomp") is True:
            result = {**result, "inet": "allowed"}  # as if the filter did not apply
        return result, why

    found, trials = _probed(monkeypatch, frozenset(), _run_check=inet_open)
    assert found["layers"]["seccomp"] == "the seccomp filter loaded but did not refuse sockets"
    assert found["layers"]["bwrap"] is True
    assert len(trials) > 2  # the launch with every layer, then one per layer


@pytest.mark.skipif(not bubblewrap_runs(), reason="bubblewrap cannot run here")
def test_landlock_missing_under_bubblewrap_is_a_layer_missing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under bubblewrap, Landlock keeps a bot out of the /proc files that tell which pages of
    a shared file another bot maps: a kernel without it leaves that channel open, which the
    report says as a missing layer (a warning), not as a layer not needed."""
    found, _ = _probed(monkeypatch)
    if landlock_module.abi_version():
        assert found["layers"]["landlock"] is True
        assert "landlock" in found["level"].split("+")
    monkeypatch.setattr(landlock_module, "abi_version", lambda: 0)
    found, trials = _probed(monkeypatch)
    status = found["layers"]["landlock"]
    assert found["layers"]["bwrap"] is True and isinstance(status, str)
    assert status.startswith("Landlock is not available in this kernel") and "pagemap" in status
    assert any(f"layer landlock is not active: {status}" in line for line in found["warnings"])
    assert len(trials) == 1 and trials[0].layers["landlock"] is False


def test_bots_that_may_signal_the_referee_are_warned_of(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without bubblewrap's pid namespace, a bot under the referee's own uid (a referee that
    is not root) is kept from signalling other processes only by Landlock's scope of signals
    (ABI 6, Linux 6.12): on an older kernel it may stop or kill the referee and every
    process of its user (tried with the ABI taken as 5: ``kill(getppid(), 0)`` succeeded,
    EPERM at 6). The report said nothing of it; now a warning."""
    warning = ("bots run under the referee's own uid without bubblewrap, and this kernel's "
               "Landlock (ABI 5) cannot scope signals (ABI 6, Linux 6.12): a bot may stop or "
               "kill the referee and every process of its user; run the arena as root (a "
               "uid of its own per bot) or where bubblewrap works")
    if not probe(disable={"bwrap", "user"}).active("landlock"):
        pytest.skip("no Landlock here")
    if landlock_module.abi_version() >= 6:
        assert warning.split(", and")[0] not in " ".join(
            probe(disable={"bwrap", "user"}).warnings)
    monkeypatch.setattr(landlock_module, "abi_version", lambda: 5)
    report = probe(disable={"bwrap", "user"})
    assert warning in report.warnings
    if os.geteuid() == 0:  # each bot under a uid of its own: it signals none of the referee's
        assert warning not in probe(disable={"bwrap"}).warnings
    # arena doctor says it among the warnings, and counts only the layers as missing
    monkeypatch.setattr(importlib.import_module("arena.cli.bot_commands"), "probe",
                        lambda: report)
    result = CliRunner().invoke(app, ["doctor"])
    layers = sum(line.startswith("sandbox layer ") for line in report.warnings)
    assert f"warning: {warning}" in " ".join(result.output.split())
    assert f"{layers} layer{'s' if layers > 1 else ''} missing; bots run at level" in (
        result.output)


def test_bots_are_frozen_by_a_cgroup_wherever_one_can_be_frozen() -> None:
    """A root referee with a cgroup v2 hierarchy (even beside cgroup v1) freezes each bot by
    a cgroup of its own; switching the cgroup layer off switches the freezer off too."""
    report = probe()
    own = v2_cgroup_of_self()
    if report.active("cgroup"):
        assert report.freezer is True and report.freezer_parent is None
    elif os.geteuid() == 0 and own is not None and can_freeze(own) is None:
        assert report.freezer is True and report.freezer_parent == own
    else:
        assert isinstance(report.freezer, str) and report.freezer_parent is None
    off = probe(disable={"cgroup"})
    assert off.freezer_parent is None and "disabled" in str(off.freezer)
    assert off.to_json()["freezer"] == off.freezer


def test_root_referee_runs_bots_as_an_unprivileged_user() -> None:
    report = probe()
    if os.geteuid() != 0:
        assert str(report.layers["user"]).startswith(NOT_NEEDED)
        return
    assert report.layers["user"] is True
    assert report.uid not in (None, 0) and report.user != "root"


def test_kit_is_a_read_only_world_readable_copy_of_the_arena_package() -> None:
    kit = probe().kit_path / "arena"
    assert (kit / "__init__.py").is_file() and (kit / "sandbox" / "launcher.py").is_file()
    assert not list(kit.rglob("__pycache__"))
    for path in [kit, *kit.rglob("*")]:
        mode = path.stat().st_mode
        assert mode & 0o004, path  # readable by the bot user
        assert not mode & 0o022, path  # writable by nobody but the referee
    assert os.access(probe().python, os.X_OK)


def test_kit_carries_the_compiled_modules_beside_their_sources() -> None:
    root = Path(native_build.__code__.co_filename).parent
    extensions = tuple(importlib.machinery.EXTENSION_SUFFIXES)

    def compiled(tree: Path) -> list[str]:
        return sorted(str(p.relative_to(tree)) for p in tree.rglob("*")
                      if p.name.endswith(extensions) and "__pycache__" not in p.parts)

    kit = probe().kit_path / "arena"
    assert compiled(kit) == compiled(root)
    assert (kit / "_build.json").is_file() == (root / "_build.json").is_file()


def test_bots_run_the_compiled_engine_when_their_python_loads_it() -> None:
    """Bots search with the engine: where the referee runs it compiled and the bots' Python is
    the same minor version, they get it compiled too (checked in the sandbox itself)."""
    report = probe()
    same_minor = report.python_version.startswith("{}.{}.".format(*sys.version_info[:2]))
    if native_build().mode == "compiled" and same_minor:
        assert report.bot_engine == str(native_build())
    else:
        assert report.bot_engine.startswith("pure")
    assert not report.bot_engine_pure
    assert kit_env() == {"PYTHONPATH": str(report.kit_path)}


def test_a_compiled_engine_that_fails_in_bots_falls_back_to_the_sources(
        monkeypatch: pytest.MonkeyPatch) -> None:
    engine, pure = _bot_engine({"engine_error": "ImportError('undefined symbol')"},
                               "/usr/bin/python3")
    assert (engine, pure) == ("pure (the compiled engine does not load in /usr/bin/python3: "
                              "ImportError('undefined symbol'))", True)
    assert _bot_engine({"engine": "compiled (mypyc, 16 modules)"}, "/usr/bin/python3") == (
        "compiled (mypyc, 16 modules)", False)
    sources = make_kit(extensions=False)
    files = [path.name for path in sources.rglob("*") if path.is_file()]
    assert "state.py" in files and "_build.json" not in files
    assert not [name for name in files if name.endswith(tuple(EXTENSION_SUFFIXES))]
    monkeypatch.setattr(probe_module, "_cached", replace(probe(), bot_engine=engine,
                                                         bot_engine_pure=pure, kit_path=sources))
    assert kit_env() == {"PYTHONPATH": str(sources)}


def test_limits_validate_and_come_from_settings() -> None:
    assert Limits().decision_ms == 1000 and Limits().max_strikes == 3
    limits = Limits.from_mapping({"decision_ms": 200, "memory_mb": 256})
    assert (limits.decision_ms, limits.memory_mb, limits.startup_ms) == (200, 256, 10_000)
    assert Limits.from_mapping(None) == Limits()
    assert limits.replace(decision_ms=5).decision_ms == 5
    assert limits.to_json()["memory_mb"] == 256
    with pytest.raises(SandboxError, match="unknown limit"):
        Limits.from_mapping({"decison_ms": 1})
    with pytest.raises(SandboxError, match="positive"):
        Limits(memory_mb=0)
    with pytest.raises(SandboxError, match="integer"):
        Limits(decision_ms=1.5)  # type: ignore[arg-type]


@pytest.mark.skipif(not seccomp_module.supported(), reason="no seccomp filter for this arch")
def test_seccomp_program_is_well_formed_classic_bpf() -> None:
    program = seccomp_module.filter_program()
    assert program is not None and len(program) % 8 == 0
    count = len(program) // 8
    assert count < 256
    instructions = [struct.unpack("<HBBI", program[i * 8:i * 8 + 8]) for i in range(count)]
    for index, (code, jt, jf, _k) in enumerate(instructions):
        if code & 0x07 == 0x05:  # BPF_JMP: both targets inside the program
            assert index + 1 + max(jt, jf) < count
    assert instructions[-1][0] == 0x06  # ends in a return


def test_doctor_prints_the_checklist_and_exits_zero() -> None:
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    report = probe()
    assert f"Sandbox level: {report.level}" in result.output
    for layer in LAYERS:
        assert f"] {layer}" in result.output
    assert report.python in result.output
    runs_as = ("Runs as:     a uid and group of its own per bot (from 1,600,000,000)"
               if report.uid is not None and os.geteuid() == 0 else
               f"Runs as:     {report.user}")
    assert runs_as in result.output
    assert ("Paused by:   its cgroup frozen between its decisions" in result.output) == (
        report.freezer is True)
    assert (f"Build:       {native_build()} in the referee; {report.bot_engine} in bots"
            in result.output)


def test_doctor_json_is_the_report() -> None:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["level"] == probe().level and data["python"] == probe().python
    assert Path(data["kit_path"]) == probe().kit_path
    assert data["engine"] == str(native_build())
