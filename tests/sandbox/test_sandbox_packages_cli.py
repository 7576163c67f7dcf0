"""Bots that require packages, from the command line: one clear line for each way an
environment cannot be had; ``arena submit``, ``arena env list`` and ``arena env prune``."""

from __future__ import annotations

import errno
import io
import os
import re
import shlex
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

import pytest
from packages_support import (
    NUMPY_BOT,
    env_cache,  # noqa: F401  (pytest fixture)
    make_wheel,
    numpy_wheel,  # noqa: F401  (pytest fixture)
    package_bot,
    wheelhouse,  # noqa: F401  (pytest fixture)
)
from typer.testing import CliRunner

from arena.cli.main import app
from arena.registry import environments
from arena.registry.interpreters import Interpreter
from arena.registry.pipmessages import pip_failure
from arena.sandbox import probe

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")

runner = CliRunner()
BOTS = Path(__file__).resolve().parents[2] / "bots"


def manifest_bot(root: Path, text: str, name: str = "needy") -> Path:
    bot = root / name
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: {name}\nmodule: bot.py\n{text}")
    shutil.copy(BOTS / "random.py", bot / "bot.py")
    return bot


def installing(cache: Path, *requirements: str) -> str:
    """The line a command writes (on stderr) as it starts installing ``requirements``."""
    key = environments.environment_key(requirements, None)
    return f"Installing {', '.join(requirements)} for a bot into {cache / key} (once; reused " \
           "after)\n"


def check(bot: Path, **env: str) -> tuple[int, str]:
    result = runner.invoke(app, ["check-bot", str(bot)], env=env)
    return result.exit_code, result.output


def test_a_requirement_that_does_not_resolve(tmp_path: Path, env_cache: Path,  # noqa: F811
                                             wheelhouse: Path) -> None:  # noqa: F811
    """With PIP_NO_INDEX (as here), it was said to have no release 'on the package index',
    which pip never looked at."""
    bot = manifest_bot(tmp_path, 'requirements: ["nosuch-pkg>=1"]\n')
    assert check(bot) == (1, installing(env_cache, "nosuch-pkg>=1") +
                          f"Error: needy: cannot install nosuch-pkg>=1: no matching release "
                             f"in {wheelhouse}, pip's only source (PIP_NO_INDEX: no package "
                             "index) (pip: from versions: none; only wheels are installed, "
                             "never built from source)\n")
    # removed, not left for env list to show as a build that stopped part way
    assert not (env_cache / environments.environment_key(("nosuch-pkg>=1",), None)).exists()


def test_no_network_to_the_index(tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    bot = manifest_bot(tmp_path, 'requirements: ["six"]\n')
    code, output = check(bot, PIP_CONFIG_FILE="/dev/null", PIP_NO_INDEX="", PIP_FIND_LINKS="",
                         PIP_INDEX_URL="https://127.0.0.1:9/simple")
    assert (code, output) == (1, installing(env_cache, "six") +
                              "Error: needy: cannot reach the package index (Failed to "
                                 "establish a new connection: [Errno 111] Connection refused): "
                                 "check the network and pip's index settings\n")


def test_a_full_disk_while_installing(tmp_path: Path, env_cache: Path,  # noqa: F811
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def full(path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(environments, "_open_to_bots", full)
    bot = manifest_bot(tmp_path, 'requirements: ["alpha-pkg>=1"]\n')
    key = environments.environment_key(("alpha-pkg>=1",), None)
    assert check(bot) == (1, installing(env_cache, "alpha-pkg>=1") +
                          f"Error: needy: the disk is full: cannot install into "
                             f"{env_cache / key}\n")
    assert not (env_cache / key).exists()  # nothing half-built is left to be taken as built
    assert "the disk is full" in pip_failure("ERROR: Could not install packages due to an "
                                             "OSError: [Errno 28] No space left on device", "py")


def test_a_version_that_does_not_exist_is_shown_the_newest_ones() -> None:
    releases = [f"1.{minor}.{patch}" for minor in range(10) for patch in range(5)]
    output = ("ERROR: Could not find a version that satisfies the requirement numpy==0.0.1 "
              f"(from versions: {', '.join(releases)})\nERROR: No matching distribution")
    assert pip_failure(output, "py") == (
        "cannot install numpy==0.0.1: no matching release on the package index (pip: from "
        "versions: 1.0.0, ... (41 more), 1.8.2, 1.8.3, 1.8.4, 1.9.0, 1.9.1, 1.9.2, 1.9.3, 1.9.4; "
        "only wheels are installed, never built from source)")
    few = "ERROR: Could not find a version that satisfies the requirement x>9 (from versions: 1, 2)"
    assert "(pip: from versions: 1, 2; only wheels" in pip_failure(few, "py")
    assert pip_failure(few, "py", no_index=True) == (
        "cannot install x>9: no matching release anywhere: pip is told to use no package index "
        "(PIP_NO_INDEX) and no directory of wheels (PIP_FIND_LINKS) (pip: from versions: 1, 2; "
        "only wheels are installed, never built from source)")


def test_a_requirements_file_outside_the_bot(tmp_path: Path) -> None:
    (tmp_path / "reqs.txt").write_text("numpy\n")
    bot = manifest_bot(tmp_path, "requirements: ../reqs.txt\n")
    assert check(bot) == (1, f"Error: {bot / 'bot.yaml'}: 'requirements' names ../reqs.txt, "
                             "which is outside the bot's directory: a requirements file must "
                             "be one of the bot's own files\n")


def test_a_python_the_host_lacks(tmp_path: Path) -> None:
    bot = manifest_bot(tmp_path, 'python: "3.99"\n')
    report = probe()
    assert check(bot) == (1, f"Error: needy: bot.yaml asks for Python 3.99, which this host "
                             f"lacks: the sandbox runs bots with Python {report.python_version} "
                             f"({report.python}) and there is no /usr/bin/python3.99\n")


@pytest.mark.parametrize(("text", "message"), [
    ("requirements: [\"numpy>>1\"]\n", "requirements[0]: 'numpy>>1' is not a pip requirement ("),
    ("requirements: [\"--index-url=http://evil/simple\"]\n",
     "requirements[0]: pip options ('--index-url=http://evil/simple') are not allowed in a "
     "bot's requirements: the host's pip settings choose the index"),
    ("requirements: [\"numpy @ file:///etc/passwd\"]\n",
     "requirements[0]: 'numpy @ file:///etc/passwd' is a direct reference (name @ URL); a bot "
     "may require packages of the index only, by name and version"),
    ("python: 3.11\n", "'python' must be quoted, e.g. python: \"3.11\" (YAML reads an unquoted "
                       "3.11 as a number)"),
    ("requirements: 3\n", "'requirements' must be a list of pip requirements (e.g. "
                          "[\"numpy>=1.24\"]) or the path of a requirements file of the bot's "
                          "directory, got int"),
])
def test_a_bad_manifest_entry_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    bot = manifest_bot(tmp_path, text)
    code, output = check(bot)
    assert code == 1 and output.startswith(f"Error: {bot / 'bot.yaml'}: {message}")
    assert output.count("\n") == 1


@pytest.mark.usefixtures("numpy_wheel")
def test_submit_then_list_and_prune(tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copytree(NUMPY_BOT, tmp_path / "numpy_bot")
    submitted = runner.invoke(app, ["submit", str(tmp_path / "numpy_bot")],
                              env={"ARENA_BOTS_DIR": str(bots)})
    assert submitted.exit_code == 0, submitted.output
    checked = runner.invoke(app, ["check-bot", str(NUMPY_BOT)])
    assert checked.exit_code == 0
    (line,) = [x for x in checked.output.splitlines() if x.startswith("Packages: ")]
    assert re.fullmatch(r"Packages: numpy==\d+\.\d+\S* \(installed for it; its version names "
                        r"them\)", line)
    spare = package_bot(tmp_path, "spare", ["beta-pkg"], "beta_pkg", "alpha_pkg")
    assert check(spare)[0] == 0  # builds the beta-pkg environment, used by no registered bot
    listed = runner.invoke(app, ["env", "list"], env={"ARENA_BOTS_DIR": str(bots)})
    assert listed.exit_code == 0
    assert "    used by: numpy_bot\n" in listed.output
    assert "    requires: beta-pkg\n    installed: beta_pkg==2.0\n    used by: no registered " \
           "bot\n" in listed.output
    pruned = runner.invoke(app, ["env", "prune"], env={"ARENA_BOTS_DIR": str(bots)})
    assert pruned.exit_code == 0
    (beta,) = [line for line in pruned.output.splitlines() if "beta-pkg" in line]
    assert beta.startswith("removed ") and "(beta-pkg; " in beta
    remaining = {e.requirements for e in environments.list_environments()}
    assert ("numpy>=1.24",) in remaining and ("beta-pkg",) not in remaining
    doctor = runner.invoke(app, ["doctor"])
    assert f"Bot envs:    {env_cache} (" in doctor.output


def test_a_tournament_refuses_a_bot_whose_environment_cannot_be_built(
        tmp_path: Path, env_cache: Path, wheelhouse: Path) -> None:  # noqa: F811
    bot = manifest_bot(tmp_path, 'requirements: ["nosuch-pkg>=1"]\n')
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: t\nformat: round_robin\nbots: [{bot}, {BOTS / 'random.py'}]\n"
                    f"games_per_match: 2\nseed: 1\nresults: {tmp_path / 'r.db'}\n")
    result = runner.invoke(app, ["run", str(spec)])
    assert (result.exit_code, result.output) == (1, installing(env_cache, "nosuch-pkg>=1") + (
        f"Error: {spec} is not a valid tournament spec:\n  bots[0]: needy: cannot install "
        f"nosuch-pkg>=1: no matching release in {wheelhouse}, pip's only source (PIP_NO_INDEX: "
        "no package index) (pip: from versions: none; only wheels are installed, never built "
        "from source)\n"))
    assert not (tmp_path / "r.db").exists()  # refused before anything was played


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root referee's bots run as other users")
def test_a_cache_the_bots_cannot_reach_is_refused(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    bot = manifest_bot(tmp_path, 'requirements: ["six"]\n')
    assert check(bot, ARENA_ENV_CACHE=str(closed / "envs")) == (1, (
        f"Error: needy: the environment cache {closed / 'envs'} is out of the bots' reach "
        f"({next(p for p in reversed(closed.parents) if not p.stat().st_mode & 1)} is closed "
        "to other users): set ARENA_ENV_CACHE to a directory they may enter, such as "
        "/var/cache/palaestra-arena/envs\n"))


@pytest.mark.usefixtures("numpy_wheel")
def test_a_disk_that_fills_up_while_pip_installs(env_cache: Path) -> None:  # noqa: F811
    base = Path(tempfile.mkdtemp(prefix="arena-small-"))
    base.chmod(0o755)  # within the bots' reach, as a root referee's cache must be
    small = base / "small"
    small.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs",
                              str(small)], capture_output=True, check=False)
    if mounted.returncode != 0:
        shutil.rmtree(base)
        pytest.skip("cannot mount a small tmpfs here (needs root and mount rights)")
    try:
        code, output = check(NUMPY_BOT, ARENA_ENV_CACHE=str(small / "envs"))
        key = environments.environment_key(("numpy>=1.24",), None)
        assert (code, output) == (1, installing(small / "envs", "numpy>=1.24") + (
            "Error: numpy_bot: the disk is full: pip could not install the requirements (No "
            "space left on device)\n"))
        assert not (small / "envs" / key).exists()
    finally:
        subprocess.run(["umount", str(small)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def test_a_relative_cache_is_taken_from_the_working_directory(
        monkeypatch: pytest.MonkeyPatch, env_cache: Path) -> None:  # noqa: F811
    """ARENA_ENV_CACHE=envs built the environment, then the bot, run from its own directory,
    could not find envs/KEY/bin/python."""
    base = Path(tempfile.mkdtemp(prefix="arena-relative-"))
    base.chmod(0o755)  # within the bots' reach, as a root referee's cache must be
    try:
        monkeypatch.chdir(base)
        bot = package_bot(base, "alpha", ["alpha-pkg"], "alpha_pkg", "beta_pkg")
        code, output = check(bot, ARENA_ENV_CACHE="envs")
        assert code == 0, output
        assert installing(base / "envs", "alpha-pkg") in output
    finally:
        shutil.rmtree(base)


def test_a_packages_metadata_reaches_the_terminal_escaped(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A wheel may carry a second distribution's metadata in its data (pip checks only its
    own): its name and version, from a bot's author, went raw into the environment's record,
    and check-bot's Packages line and env list wrote an escape sequence to the terminal."""
    house = tmp_path / "house"
    house.mkdir()
    planted = b"Metadata-Version: 2.1\nName: ev\x1b]0;owned\x07il\nVersion: 6.6\x1b[2J\n"
    make_wheel(house, "gamma_pkg", "1.0", "WHO = 'gamma'\n",
               {"gamma_pkg-1.0.data/purelib/evil-6.6.dist-info/METADATA": planted})
    monkeypatch.setenv("PIP_FIND_LINKS", str(house))
    bot = package_bot(tmp_path, "planter", ["gamma-pkg"], "gamma_pkg", "alpha_pkg")
    code, output = check(bot)
    assert code == 0, output
    shown = "ev\\x1b]0;owned\\x07il==6.6\\x1b[2J"
    assert f"Packages: {shown}, gamma_pkg==1.0 (installed for it; its version names them)\n" \
        in output
    (tmp_path / "bots").mkdir()
    listed = runner.invoke(app, ["env", "list"], env={"ARENA_BOTS_DIR": str(tmp_path / "bots"),
                                                      "COLUMNS": "300"})
    assert f"    installed: {shown}, gamma_pkg==1.0\n" in listed.stdout
    assert "\x1b" not in output + listed.stdout


def test_a_package_published_as_source_only_is_never_built(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Building a source distribution runs its build backend outside the sandbox, as the
    referee: a bot's author publishes one whose backend does what it likes."""
    ran = tmp_path / "ran"
    house = tmp_path / "house"
    house.mkdir()
    files = {"pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\n'
                               'backend-path = ["."]\n',
             "backend.py": f"open({str(ran)!r}, 'w').write('built as the referee')\n",
             "PKG-INFO": "Metadata-Version: 2.1\nName: sourced-pkg\nVersion: 1.0\n"}
    with tarfile.open(house / "sourced_pkg-1.0.tar.gz", "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"sourced_pkg-1.0/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    monkeypatch.setenv("PIP_FIND_LINKS", str(house))
    bot = manifest_bot(tmp_path, 'requirements: ["sourced-pkg"]\n')
    assert check(bot) == (1, installing(env_cache, "sourced-pkg") + (
        "Error: needy: cannot install sourced-pkg: no matching release in "
        f"{house}, pip's only source (PIP_NO_INDEX: no package index) (pip: from versions: "
        "none; only wheels are installed, never built from source)\n"))
    assert not ran.exists()


def test_a_pip_that_cannot_build_environments_is_named_with_its_remedy(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The arena's own Python runs pip: without pip, or with one older than --python, the
    builds failed with pip's last words, which named neither cause nor remedy."""
    fake = tmp_path / "python"
    bot = manifest_bot(tmp_path, 'requirements: ["alpha-pkg>=0.5"]\n')
    for said, told in (
            ("/usr/bin/python3: No module named pip",
             f"building a bot's environment needs pip in the arena's Python ({fake}): {fake} "
             "-m ensurepip, or pip install pip"),
            ("\nUsage:\n  pip <command> [options]\n\nno such option: --python",
             f"building a bot's environment needs pip 22.3 or later in the arena's Python "
             f"({fake}): {fake} -m pip install -U pip")):
        fake.write_text(f"#!/bin/sh\nprintf '%s\\n' {shlex.quote(said)} >&2\nexit 1\n")
        fake.chmod(0o755)
        monkeypatch.setattr(environments.sys, "executable", str(fake))
        assert check(bot) == (1, installing(env_cache, "alpha-pkg>=0.5") +
                              f"Error: needy: {told}\n")


def test_a_bot_with_packages_whose_own_file_is_missing_is_not_told_to_copy_python(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    """Its program is its environment's Python, as a module bot's is the sandbox's: its 'No
    such file or directory' is the bot's own exception, yet it was told the interpreter 'lies
    outside the bot's directory' and to copy it in."""
    bot = manifest_bot(tmp_path, 'requirements: ["alpha-pkg"]\n')
    (bot / "bot.py").write_text("import alpha_pkg\n\nMODEL = open('model.onnx', 'rb').read()\n")
    code, output = check(bot)
    (handshake,) = [line for line in output.splitlines() if "handshake" in line]
    assert code == 1 and handshake.endswith(
        "FileNotFoundError: [Errno 2] No such file or directory: 'model.onnx' (at bot.py line "
        "3, in <module>)"), output
    assert "lies outside" not in output


def test_pips_last_error_is_one_printable_line_of_bounded_length() -> None:
    """pip's error names what the index and the packages say (a wheel's file name, its
    metadata): it reached the terminal raw, escape sequences and all, and at any length."""
    said = "ERROR: Invalid wheel ev\x1b]0;owned\x07il-1.0-py3-none-any.whl: " + "x" * 400
    failure = pip_failure(f"Collecting evil\n{said}\n", "py")
    assert failure == ("pip: " + (" Invalid wheel ev\\x1b]0;owned\\x07il-1.0-py3-none-any.whl: "
                                  + "x" * 400).strip()[:297] + "...")


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (exited, or a zombie nobody reaped yet)."""
    for _ in range(100):  # SIGKILL is delivered, not awaited: give it a moment
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def _past_the_bound(cache: Path, requirement: str, step: str) -> str:
    """What check-bot says of needy's build stopped by a bound of 1.5 s during ``step``."""
    return installing(cache, requirement) + (
        f"Error: needy: {step} took longer than 1.5 s, the bound on a build, so it was "
        "stopped and nothing kept: set ARENA_ENV_BUILD_TIMEOUT to more seconds to wait "
        "longer\n")


def test_a_build_that_outlasts_its_bound_is_stopped_with_its_children(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """pip's --timeout bounds one connection: a resolver backtracking or a mirror trickling
    bytes held check-bot (and a tournament's start) as long as pip ran. Past the bound pip
    is killed, its child too, and the build is undone. pip stays in the arena's process
    group: a terminal's Ctrl-C or hang-up reaches it even where the arena dies outright."""
    fake = tmp_path / "python"
    child = tmp_path / "child.pid"
    group = tmp_path / "group"
    fake.write_text(f"#!/bin/sh\ncut -d' ' -f5 /proc/$$/stat > {group}\nsleep 60 &\n"
                    f"echo $! > {child}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setattr(environments.sys, "executable", str(fake))
    bot = manifest_bot(tmp_path, 'requirements: ["alpha-pkg>=0.3"]\n')
    key = environments.environment_key(("alpha-pkg>=0.3",), None)
    assert check(bot, ARENA_ENV_BUILD_TIMEOUT="1.5") == (1, _past_the_bound(
        env_cache, "alpha-pkg>=0.3", "installing its requirements"))
    assert _gone(int(child.read_text()))
    assert int(group.read_text()) == os.getpgrp()
    assert not (env_cache / key).exists()
    assert not environments._held(env_cache, key)  # the lock is released


def test_a_build_that_outlasts_its_bound_making_the_venv_names_that_step(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The bound ran out while the environment's venv was made, before pip installed
    anything, and the error said 'installing its requirements'."""
    fake = tmp_path / "python3.11"
    fake.write_text("#!/bin/sh\nexec sleep 60\n")
    fake.chmod(0o755)
    slow = Interpreter(str(fake), probe().python_version)
    monkeypatch.setattr(environments, "interpreter_for", lambda python: slow)
    bot = manifest_bot(tmp_path, 'requirements: ["alpha-pkg>=0.4"]\n')
    key = environments.environment_key(("alpha-pkg>=0.4",), None)
    assert check(bot, ARENA_ENV_BUILD_TIMEOUT="1.5") == (1, _past_the_bound(
        env_cache, "alpha-pkg>=0.4", "making its virtual environment"))
    assert not (env_cache / key).exists()


def test_the_notice_of_a_build_names_the_first_five_requirements(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A bot may list 200 requirements: the notice showed them all, a screenful."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'ERROR: stopped here' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(environments.sys, "executable", str(fake))
    wanted = tuple(f"pkg-{n:03}" for n in range(200))
    bot = manifest_bot(tmp_path, f"requirements: [{', '.join(wanted)}]\n")
    key = environments.environment_key(wanted, None)
    code, output = check(bot)
    assert (code, output.splitlines()[0]) == (
        1, f"Installing pkg-000, pkg-001, pkg-002, pkg-003, pkg-004 and 195 more for a bot into "
           f"{env_cache / key} (once; reused after)")
    six = wanted[:6]
    bot = manifest_bot(tmp_path, f"requirements: [{', '.join(six)}]\n", name="six")
    code, output = check(bot)
    assert output.splitlines()[0] == (
        f"Installing pkg-000, pkg-001, pkg-002, pkg-003, pkg-004 and 1 more for a bot into "
        f"{env_cache / environments.environment_key(six, None)} (once; reused after)")
    five = wanted[:5]
    bot = manifest_bot(tmp_path, f"requirements: [{', '.join(five)}]\n", name="five")
    code, output = check(bot)
    assert output.splitlines()[0] == installing(env_cache, *five).rstrip("\n")


@pytest.mark.parametrize("given", ["soon", "0", "-5", "nan", "inf"])
def test_a_build_bound_that_is_no_number_of_seconds_is_refused(
        tmp_path: Path, env_cache: Path, given: str) -> None:  # noqa: F811
    bot = manifest_bot(tmp_path, 'requirements: ["alpha-pkg>=0.2"]\n')
    assert check(bot, ARENA_ENV_BUILD_TIMEOUT=given) == (
        1, f"Error: needy: ARENA_ENV_BUILD_TIMEOUT must be a number of seconds above 0, not "
           f"'{given}'\n")


def test_a_requirement_without_a_release_is_named_cut_short(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    """The requirement pip could not satisfy is the bot author's text, up to a bot.yaml's
    64 KiB: it reached the terminal whole, where pip's other words are cut."""
    name = "nosuch" + "-x" * 2000
    bot = manifest_bot(tmp_path, f'requirements: ["{name}"]\n')
    code, output = check(bot)
    error = output.splitlines()[-1]
    assert (code, error) == (1, f"Error: needy: cannot install {name[:297]}...: no matching "
                                f"release in {os.environ['PIP_FIND_LINKS']}, pip's only source "
                                "(PIP_NO_INDEX: no package index) (pip: from versions: none; "
                                "only wheels are installed, never built from source)")
