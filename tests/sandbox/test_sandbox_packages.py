"""Bots that use packages: each runs in its own environment, built outside the sandbox once
and shown to it read-only, under every sandbox mode."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from packages_support import (
    NUMPY_BOT,
    NUMPY_HOG,
    env_cache,  # noqa: F401  (pytest fixture)
    make_wheel,
    numpy_wheel,  # noqa: F401  (pytest fixture)
    package_bot,
    wheelhouse,  # noqa: F401  (pytest fixture)
)

from arena.errors import BotEnvironmentError, FilesChangedError
from arena.referee.check import check_bot
from arena.referee.launch import sandbox_launcher
from arena.referee.match import MatchOutcome, MatchRequest, play_match
from arena.registry import environments, resolve, spec_from_path
from arena.registry.environments import (
    Environment,
    attach,
    build_count,
    environment_at,
    environment_key,
    list_environments,
    with_environment,
)
from arena.sandbox import Limits, SandboxReport, probe

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")

RANDOM = Path(__file__).resolve().parents[2] / "bots" / "random.py"
EVENT_DATE = dt.date(2026, 12, 1)


def failures(outcome: MatchOutcome) -> list[str]:
    return [f"{f['type']}: {f['detail']}" for game in outcome.games for f in game.failures]


@pytest.mark.usefixtures("numpy_wheel")
def test_a_numpy_bot_passes_check_bot_and_plays_in_every_mode(
        report: SandboxReport, env_cache: Path) -> None:  # noqa: F811
    spec = with_environment(spec_from_path(NUMPY_BOT))
    assert spec.environment is not None and spec.environment.parent == env_cache
    launcher = sandbox_launcher(report)
    checked = check_bot(spec, launcher=launcher)  # the default limits: 1 GiB of memory
    assert checked.ok, checked.failures()
    outcome = play_match(MatchRequest(bots=[spec, resolve(RANDOM)], games=2, seed=5,
                                      launcher=launcher, event_date=EVENT_DATE))
    assert failures(outcome) == []
    log = "".join(g.record["referee"]["logs"].get("0", "") for g in outcome.games)
    assert "numpy 2." in log or "numpy 1." in log
    assert str(spec.environment / "lib") in log  # the environment's numpy, not the host's


@pytest.mark.usefixtures("numpy_wheel")
def test_the_environment_is_built_once_and_reused(env_cache: Path) -> None:  # noqa: F811
    with_environment(spec_from_path(NUMPY_BOT))  # built here, or by an earlier test
    built = build_count()
    again = spec_from_path(NUMPY_BOT)  # found in the cache when resolved
    hog = with_environment(spec_from_path(NUMPY_HOG))  # another bot, the same requirements
    assert again.environment is not None and again.environment == hog.environment
    assert with_environment(again) == again
    assert build_count() == built
    assert [env.requirements for env in list_environments()].count(("numpy>=1.24",)) == 1


@pytest.mark.usefixtures("numpy_wheel")
def test_the_version_names_the_frozen_packages(env_cache: Path) -> None:  # noqa: F811
    spec = with_environment(spec_from_path(NUMPY_BOT))
    (env,) = [e for e in list_environments() if e.path == spec.environment]
    assert [p.split("==")[0] for p in env.frozen] == ["numpy"]
    files_only = spec_from_path(NUMPY_BOT.parent / "numpy_bot")  # the same as resolved
    assert files_only.version == spec.version  # once built, resolving gives its version
    assert spec.key == f"numpy_bot@{spec.version}" and len(spec.version) == 12
    assert spec.command[0] == str(env.path / "bin" / "python")


def test_a_changed_dependency_is_a_new_version(tmp_path: Path) -> None:
    bot = package_bot(tmp_path, "pinned", ["alpha-pkg"], "alpha_pkg", "beta_pkg")
    spec = spec_from_path(bot)
    assert spec.environment is None or spec.files_hash
    plain = replace(spec, environment=None, version=spec.files_digest, files_hash="")

    def built(*frozen: str) -> Environment:
        return Environment(key="k", path=tmp_path / "env", python="/usr/bin/python3.11",
                           python_version="3.11.2", requirements=("alpha-pkg",),
                           frozen=frozen, built="2026-12-01T00:00:00Z")

    one = attach(plain, built("alpha_pkg==1.0"))
    assert one.version != plain.version and one.files_digest == plain.version
    assert attach(plain, built("alpha_pkg==1.1")).version != one.version
    assert attach(plain, built("alpha_pkg==1.0")).version == one.version
    assert attach(one, built("alpha_pkg==1.0")).version == one.version  # folded once only
    with_opts = attach(plain.with_options({"depth": 2}), built("alpha_pkg==1.0"))
    assert with_opts.version.startswith(one.version + "+o")
    assert one.with_options({"depth": 2}).version == with_opts.version
    assert one.command[0] == str(tmp_path / "env" / "bin" / "python")


@pytest.mark.usefixtures("numpy_wheel")
def test_a_numpy_bot_past_its_memory_limit_ends_as_memory_limit(
        report: SandboxReport, env_cache: Path) -> None:  # noqa: F811
    limits = Limits(decision_ms=3000, time_bank_ms=0, max_strikes=2, memory_mb=256)
    outcome = play_match(MatchRequest(
        bots=[with_environment(spec_from_path(NUMPY_HOG)), resolve(RANDOM)], games=1,
        seed=3, limits=limits, launcher=sandbox_launcher(report), event_date=EVENT_DATE))
    kinds = [f["type"] for f in outcome.games[0].failures]
    assert kinds[-1] == "memory_limit" and set(kinds) <= {"memory_limit", "timeout"}


def test_two_bots_with_different_requirements_see_their_own_packages(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    alpha = package_bot(tmp_path, "alpha_bot", ["alpha_pkg"], "alpha_pkg", "beta_pkg")
    beta = package_bot(tmp_path, "beta_bot", ["beta-pkg==2.0"], "beta_pkg", "alpha_pkg")
    outcome = play_match(MatchRequest(bots=[alpha, beta], games=2, seed=1,
                                      event_date=EVENT_DATE))
    assert failures(outcome) == []
    assert [key.split("@")[0] for key in outcome.seats] == ["alpha_bot", "beta_bot"]


@pytest.mark.parametrize("gone", ["removed", "being built again"])
def test_an_environment_removed_under_a_match_is_a_recorded_start_failure(
        tmp_path: Path, env_cache: Path, gone: str) -> None:  # noqa: F811
    """An environment being built again holds its record's place with a directory until pip
    is done: the bot is not started in it half-built, as the registry counts it not built."""
    bot = package_bot(tmp_path, "gone_bot", ["alpha_pkg==1.0"], "alpha_pkg", "beta_pkg")
    spec = with_environment(spec_from_path(bot))
    assert spec.environment is not None
    if gone == "removed":
        shutil.rmtree(spec.environment)
    else:
        record = spec.environment / environments.RECORD
        record.unlink()
        record.mkdir()  # as a build mid-pip leaves it
        assert environment_at(spec.environment) is None
    outcome = play_match(MatchRequest(bots=[spec, resolve(RANDOM)], games=1, seed=1,
                                      event_date=EVENT_DATE))
    (first, *_) = outcome.games[0].failures
    assert first["type"] == "startup_failure"
    assert (f"the bot's environment {spec.environment} is gone (removed while the arena "
            "ran?): arena check-bot builds it again") in first["detail"]
    assert outcome.games[0].placements[0] == 2


def test_two_builds_of_one_environment_at_once_build_it_once(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    bots = [package_bot(tmp_path, f"twin{i}", ["alpha-pkg", "beta-pkg"], "alpha_pkg", "nope")
            for i in range(2)]
    before = build_count()
    found: list[Path | None] = []
    threads = [threading.Thread(target=lambda b=b: found.append(
        with_environment(spec_from_path(b)).environment)) for b in bots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert build_count() == before + 1
    assert len(found) == 2 and found[0] == found[1] is not None


def test_a_requirements_file_and_a_list_share_an_environment(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    listed = package_bot(tmp_path, "listed", ["alpha-pkg"], "alpha_pkg", "beta_pkg")
    filed = package_bot(tmp_path, "filed", ["alpha-pkg"], "alpha_pkg", "beta_pkg")
    (filed / "requirements.txt").write_text("# the same, as a file\nAlpha_Pkg\n")
    (filed / "bot.yaml").write_text("name: filed\nmodule: bot.py\n"
                                    "requirements: requirements.txt\n")
    first = with_environment(spec_from_path(listed))
    built = build_count()
    second = with_environment(spec_from_path(filed))
    assert second.environment == first.environment and build_count() == built
    assert check_bot(second).ok


def test_a_bot_asking_for_the_sandbox_python_runs_in_its_own_environment(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    version = probe().python_version.rsplit(".", 1)[0]
    bot = package_bot(tmp_path, "versioned", [], "json", "alpha_pkg")
    (bot / "bot.yaml").write_text(f'name: versioned\nmodule: bot.py\npython: "{version}"\n')
    spec = with_environment(spec_from_path(bot))
    assert spec.environment is not None and spec.python == version
    assert check_bot(spec).ok


def test_building_from_inside_a_bot_directory_runs_none_of_its_files(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """``cd mybot && arena check-bot .``: the build's ``python -m venv`` and ``python -m pip``
    run outside the sandbox, as the referee; a bot's ``venv.py`` or ``pip/`` in the working
    directory must not be what they import."""
    ran = tmp_path / "ran"
    bot = package_bot(tmp_path, "planted", ["alpha-pkg", "beta-pkg==2.0"], "alpha_pkg", "nope")
    plant = f"open({str(ran)!r}, 'a').write(__name__ + '\\n')\n"
    (bot / "venv.py").write_text(plant)
    (bot / "pip").mkdir()
    (bot / "pip" / "__init__.py").write_text(plant)
    (bot / "pip" / "__main__.py").write_text(plant)
    monkeypatch.chdir(bot)
    # (set, it would hide a build step's missing -I: the tests are run with it)
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    spec = with_environment(spec_from_path(bot))
    assert not ran.exists(), ran.read_text()
    assert spec.environment is not None and check_bot(spec).ok


def test_an_environment_rebuilt_with_other_packages_does_not_play_under_the_old_version(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A league's bot whose environment was pruned and built again after the index moved on
    (alpha_pkg 1.0, then 1.1) played on with the new packages under the version that names
    the old ones: only its files were checked at each launch."""
    bot = package_bot(tmp_path, "moving", ["alpha-pkg"], "alpha_pkg", "beta_pkg")
    entered = with_environment(spec_from_path(bot))
    assert entered.environment is not None
    newer = tmp_path / "newer"
    newer.mkdir()
    make_wheel(newer, "alpha_pkg", "1.1", "WHO = 'alpha, newer'\n")
    shutil.rmtree(entered.environment)  # arena env prune, then a build elsewhere
    monkeypatch.setenv("PIP_FIND_LINKS", str(newer))
    rebuilt = with_environment(spec_from_path(bot))
    assert rebuilt.environment == entered.environment and rebuilt.version != entered.version
    with pytest.raises(FilesChangedError) as info:
        play_match(MatchRequest(bots=[entered, resolve(RANDOM)], games=1, seed=1,
                                event_date=EVENT_DATE, same_files=True))
    assert str(info.value) == (
        f"bot {entered.key}: its environment {entered.environment} was built again since it "
        "entered, with other packages (alpha_pkg==1.1 now), so it was not started; 'arena run "
        "SPEC --continue' enters the bot as the new version its packages make (docs/BOTS.md)")
    # without the check of what runs (arena match), the bot plays as it is now
    assert failures(play_match(MatchRequest(bots=[entered, resolve(RANDOM)], games=1, seed=1,
                                            event_date=EVENT_DATE))) == []


def test_a_bot_whose_requirements_change_gets_an_environment_of_its_new_ones(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    """A bot.yaml that adds a requirement must not reuse the environment of its old list,
    which lacks the package, nor change that environment under the bots still using it."""
    bot = package_bot(tmp_path, "growing", ["alpha-pkg>=0.9"], "alpha_pkg", "nope")
    before = with_environment(spec_from_path(bot))
    (bot / "bot.yaml").write_text("name: growing\nmodule: bot.py\n"
                                  "requirements: [alpha-pkg>=0.9, beta-pkg>=1.5]\n")
    after = with_environment(spec_from_path(bot))
    assert before.environment is not None and after.environment is not None
    assert after.environment != before.environment
    built = [environment_at(before.environment), environment_at(after.environment)]
    assert [env.frozen if env is not None else None for env in built] == [
        ("alpha_pkg==1.0",), ("alpha_pkg==1.0", "beta_pkg==2.0")]


def test_a_build_that_stopped_part_way_is_rebuilt_from_nothing(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    """What a killed build left (a package half unpacked) was kept under the new build and
    shown to the bot."""
    bot = package_bot(tmp_path, "rebuilt", ["beta-pkg>=2"], "beta_pkg", "leftover")
    half = env_cache / environment_key(("beta-pkg>=2",), None)
    site = half / "lib" / f"python{probe().python_version.rsplit('.', 1)[0]}" / "site-packages"
    site.mkdir(parents=True)
    (site / "leftover.py").write_text("HALF = True\n")
    spec = with_environment(spec_from_path(bot))
    assert spec.environment == half and not (site / "leftover.py").exists()
    assert check_bot(spec).ok


def test_pip_settings_that_install_elsewhere_are_ignored(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The operator's PIP_TARGET (or PIP_PREFIX, PIP_USER) sent the packages out of the
    environment: it was built empty, and the bot could not import them."""
    target = tmp_path / "target"
    monkeypatch.setenv("PIP_TARGET", str(target))
    monkeypatch.setenv("PIP_PREFIX", str(tmp_path / "prefix"))
    bot = package_bot(tmp_path, "targeted", ["alpha-pkg", "beta-pkg>=1"], "beta_pkg", "nope")
    spec = with_environment(spec_from_path(bot))
    assert spec.environment is not None
    env = environment_at(spec.environment)
    assert env is not None and env.frozen == ("alpha_pkg==1.0", "beta_pkg==2.0")
    assert not target.exists() and not (tmp_path / "prefix").exists()


def test_a_record_planted_by_a_package_never_marks_its_environment_built(
        tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A wheel's data files go where it says in the environment, arena-env.json too: until
    the build wrote its own record over it, another process took the half-built environment
    as built, under the packages the bot's author listed."""
    house = tmp_path / "house"
    house.mkdir()
    forged = json.dumps({"python": "/usr/bin/python3", "python_version": "3.11.2",
                         "requirements": ["forger-pkg"], "frozen": ["numpy==9.9"],
                         "built": "2026-12-01T00:00:00Z"}).encode()
    make_wheel(house, "forger_pkg", "1.0", "WHO = 'forger'\n",
               {"forger_pkg-1.0.data/data/arena-env.json": forged})
    monkeypatch.setenv("PIP_FIND_LINKS", str(house))
    seen: list[Environment | None] = []
    frozen = environments._frozen

    def looked_at_meanwhile(path: Path) -> tuple[str, ...]:  # as another process would
        seen.append(environment_at(path))
        return frozen(path)

    monkeypatch.setattr(environments, "_frozen", looked_at_meanwhile)
    bot = package_bot(tmp_path, "forger", ["forger-pkg"], "forger_pkg", "nope")
    try:
        spec = with_environment(spec_from_path(bot))
    except BotEnvironmentError as exc:  # refusing the package is as good
        assert str(exc).startswith("forger: "), exc
        assert seen == [] and not (env_cache / environment_key(("forger-pkg",), None)).exists()
        return
    assert seen == [None]
    assert spec.environment is not None
    env = environment_at(spec.environment)
    assert env is not None and env.frozen == ("forger_pkg==1.0",)


def test_an_environment_built_under_a_strict_umask_is_readable_by_its_bot(
        tmp_path: Path, env_cache: Path) -> None:  # noqa: F811
    """Under the operator's umask 077 pip wrote the packages for the referee alone, and a
    root referee's bot, run as a user of its own, could not import them."""
    bot = package_bot(tmp_path, "strict", ["alpha-pkg>=0.8", "beta-pkg>=1.8"], "beta_pkg",
                      "nope")
    old = os.umask(0o077)
    try:
        spec = with_environment(spec_from_path(bot))
    finally:
        os.umask(old)
    report = check_bot(spec)
    assert report.ok, report.failures()
