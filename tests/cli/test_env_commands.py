"""What ``arena env list`` and ``arena env prune`` say and do when there is nothing to remove,
a bots directory that is not one, environments whose build stopped part way or is under way,
and links in the cache."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.registry.environments import (
    environment_key,
    remove_environment,
    unbuilt_environments,
)
from arena.sandbox import probe

runner = CliRunner()


def test_prune_with_every_environment_in_use_says_there_is_nothing_to_remove(
        tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    env = {"ARENA_ENV_CACHE": str(tmp_path / "envs"), "ARENA_BOTS_DIR": str(tmp_path / "bots")}
    for args in (["env", "prune", "--dry-run"], ["env", "prune"]):
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
        assert result.stdout == "No environment is unused: nothing to remove.\n"


def test_a_bots_dir_that_is_no_directory_is_refused_and_nothing_is_pruned(
        tmp_path: Path) -> None:
    """A mistyped --bots-dir named no bot, so prune took every environment as unused."""
    built = tmp_path / "envs" / "0123456789abcdef"
    built.mkdir(parents=True)
    (built / "arena-env.json").write_text(json.dumps({
        "python": "/usr/bin/python3", "python_version": "3.11.2", "requirements": ["numpy"],
        "frozen": ["numpy==2.0.0"], "built": "2026-12-01T00:00:00Z"}))
    (tmp_path / "afile").write_text("")
    env = {"ARENA_ENV_CACHE": str(tmp_path / "envs")}
    for where, problem in ((tmp_path / "bots-typo", "does not exist"),
                           (tmp_path / "afile", "is a file")):
        for args in (["env", "prune"], ["env", "list"]):
            result = runner.invoke(app, [*args, "--bots-dir", str(where)], env=env)
            assert result.exit_code == 2, result.output
            told = f"Invalid value for '--bots-dir': dir '{where}' {problem}."
            assert result.stderr.splitlines()[0] == f"Error: {told}"
    assert (built / "arena-env.json").is_file()


def test_an_arena_bots_dir_that_is_no_directory_is_refused_and_nothing_is_pruned(
        tmp_path: Path) -> None:
    """--bots-dir was checked, ARENA_BOTS_DIR not: prune took every environment as unused."""
    built = built_environment(tmp_path / "envs" / "0123456789abcdef")
    (tmp_path / "afile").write_text("")
    for where, problem in (
            (tmp_path / "bots-typo", f"ARENA_BOTS_DIR names {tmp_path / 'bots-typo'}, which "
                                     "does not exist: no bot there would use an environment "
                                     "(a mistyped path?)"),
            (tmp_path / "afile", f"the bots directory {tmp_path / 'afile'} is a file, not a "
                                 "directory (docs/BOTS.md: $ARENA_BOTS_DIR, else ./bots, else "
                                 "$ARENA_HOME/bots or your data directory)")):
        env = {"ARENA_ENV_CACHE": str(tmp_path / "envs"), "ARENA_BOTS_DIR": str(where)}
        for args in (["env", "prune"], ["env", "list"]):
            result = runner.invoke(app, args, env=env)
            assert (result.exit_code, result.stdout, result.stderr) == (
                1, "", f"Error: {problem}\n"), args
    assert (built / "arena-env.json").is_file()


_RECORD = {"python": "/usr/bin/python3", "python_version": "3.11.2", "requirements": ["six"],
           "frozen": ["six==1.16.0"], "built": "2026-12-01T00:00:00Z"}


def built_environment(path: Path) -> Path:
    """A directory with an environment's record (what a finished build leaves)."""
    path.mkdir(parents=True)
    (path / "arena-env.json").write_text(json.dumps(_RECORD))
    return path


def cache_env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "bots").mkdir(exist_ok=True)
    return {"ARENA_ENV_CACHE": str(tmp_path / "envs"), "ARENA_BOTS_DIR": str(tmp_path / "bots"),
            "COLUMNS": "300"}


def test_prune_for_a_bots_directory_that_does_not_exist_removes_every_one_only_with_yes(
        tmp_path: Path) -> None:
    """A mistyped ARENA_HOME counted no bot, and prune removed every environment unasked."""
    built = built_environment(tmp_path / "envs" / "0123456789abcdef")
    killed = tmp_path / "envs" / "1111111111111111"
    killed.mkdir()  # a build that stopped part way: removed whatever the bots directory
    missing = tmp_path / "home-typo" / "bots"
    env = {"ARENA_ENV_CACHE": str(tmp_path / "envs"), "ARENA_HOME": str(tmp_path / "home-typo"),
           "ARENA_BOTS_DIR": "", "XDG_DATA_HOME": str(tmp_path / "data"), "COLUMNS": "300"}
    result = runner.invoke(app, ["env", "prune"], env=env)
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr.startswith(f"Error: the bots directory {missing} does not exist, "), (
        result.stderr)
    assert "--yes" in result.stderr and built.is_dir() and killed.is_dir()
    result = runner.invoke(app, ["env", "prune", "--dry-run"], env=env)
    assert result.exit_code == 0 and "would remove 0123456789abcdef" in result.stdout
    assert result.stderr.startswith(f"warning: the bots directory {missing} does not exist")
    assert built.is_dir() and killed.is_dir()
    result = runner.invoke(app, ["env", "prune", "--yes"], env=env)
    assert result.exit_code == 0, result.output
    assert not built.exists() and not killed.exists()


def test_prune_for_a_bots_directory_that_does_not_exist_counts_the_sample_bots_envs(
        tmp_path: Path) -> None:
    """It said prune would remove 'every one (1)' of two environments: the sample bot
    learned's numpy still counts, and stays."""
    learned = tmp_path / "envs" / environment_key(("numpy>=1.24",), None)
    built_environment(learned)
    (learned / "arena-env.json").write_text(json.dumps({**_RECORD,
                                                        "requirements": ["numpy>=1.24"]}))
    built_environment(tmp_path / "envs" / "0123456789abcdef")
    missing = tmp_path / "home-typo" / "bots"
    env = {"ARENA_ENV_CACHE": str(tmp_path / "envs"), "ARENA_HOME": str(tmp_path / "home-typo"),
           "ARENA_BOTS_DIR": "", "COLUMNS": "300"}
    listed = runner.invoke(app, ["env", "list"], env=env)
    assert "    used by: learned\n" in listed.stdout, listed.output
    result = runner.invoke(app, ["env", "prune"], env=env)
    assert (result.exit_code, result.stderr) == (1, (
        f"Error: the bots directory {missing} does not exist, so none of your bots counts as "
        "using an environment and prune would remove 1 of the 2, all but the sample bots': a "
        "mistyped $ARENA_HOME? --bots-dir DIR counts another directory's bots; --yes removes "
        "them even so\n")), result.output


def test_prune_for_a_bots_directory_that_does_not_exist_needs_no_yes_for_unbuilt_ones(
        tmp_path: Path) -> None:
    killed = tmp_path / "envs" / "1111111111111111"
    killed.mkdir(parents=True)
    env = {"ARENA_ENV_CACHE": str(tmp_path / "envs"), "ARENA_HOME": str(tmp_path / "nohome"),
           "ARENA_BOTS_DIR": "", "COLUMNS": "300"}
    result = runner.invoke(app, ["env", "prune"], env=env)
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    assert not killed.exists()


def test_environments_whose_build_stopped_part_way_are_listed_and_pruned(
        tmp_path: Path) -> None:
    """A build killed midway left a directory no command listed or removed."""
    cache = tmp_path / "envs"
    killed = cache / "1111111111111111"
    (killed / "lib").mkdir(parents=True)
    (killed / "lib" / "half.py").write_text("x = 1\n")
    cut = cache / "2222222222222222"
    cut.mkdir()
    (cut / "arena-env.json").write_text('{"python": ')
    env = cache_env(tmp_path)
    listed = runner.invoke(app, ["env", "list"], env=env)
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.splitlines() == [
        f"Environment cache: {cache} (0 environments, 2 not built)",
        "1111111111111111  not built  0.0 MiB: no arena-env.json: a build that stopped part "
        "way (killed, or a full disk); arena env prune removes it",
        "2222222222222222  not built  0.0 MiB: its arena-env.json is not an environment's "
        "record (a build cut short, or edited); arena env prune removes it"]
    listed = runner.invoke(app, ["env", "list", "--json"], env=env)
    assert [(e["key"], e["building"]) for e in json.loads(listed.stdout)["unbuilt"]] == [
        ("1111111111111111", False), ("2222222222222222", False)]
    pruned = runner.invoke(app, ["env", "prune"], env=env)
    assert pruned.exit_code == 0, pruned.output
    assert pruned.stdout.splitlines()[-1] == "2 environments not built; freed 0.0 MiB."
    assert not killed.exists() and not cut.exists()


def test_an_environment_being_built_is_listed_as_such_and_never_pruned(
        tmp_path: Path) -> None:
    cache = tmp_path / "envs"
    building = cache / "3333333333333333"
    building.mkdir(parents=True)
    (cache / ".locks").mkdir()
    fd = os.open(cache / ".locks" / "3333333333333333.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a build in another process holds it
        env = cache_env(tmp_path)
        listed = runner.invoke(app, ["env", "list"], env=env)
        assert listed.stdout.splitlines()[1:] == [
            "3333333333333333  not built  0.0 MiB: being built now"]
        pruned = runner.invoke(app, ["env", "prune"], env=env)
        assert pruned.exit_code == 0, pruned.output
        assert pruned.stdout == "No environment is unused: nothing to remove.\n"
        assert building.is_dir()
    finally:
        os.close(fd)


def test_a_link_in_the_cache_is_removed_itself_never_what_it_leads_to(
        tmp_path: Path) -> None:
    """Prune unlinked the record through the link, rmtree failed silently on the link, and it
    said 'removed'."""
    target = built_environment(tmp_path / "elsewhere" / "env")
    cache = tmp_path / "envs"
    cache.mkdir()
    (cache / "4444444444444444").symlink_to(target)
    (cache / "5555555555555555").symlink_to(tmp_path / "gone")
    pruned = runner.invoke(app, ["env", "prune"], env=cache_env(tmp_path))
    assert pruned.exit_code == 0, pruned.output
    assert pruned.stdout.splitlines() == [
        f"removed the link 4444444444444444 (to {target}: what it leads to is left as it is)",
        f"removed the link 5555555555555555 (to {tmp_path / 'gone'}: what it leads to is left "
        "as it is)",
        "1 environment no registered bot uses and 1 environment not built; freed 0.0 MiB."]
    assert not os.path.lexists(cache / "4444444444444444")
    assert not os.path.lexists(cache / "5555555555555555")
    assert json.loads((target / "arena-env.json").read_text()) == _RECORD


def test_an_environment_that_cannot_be_removed_is_said_so_not_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rmtree's errors were ignored, and prune said 'removed' all the same."""
    built = built_environment(tmp_path / "envs" / "6666666666666666")

    def refused(path: str, ignore_errors: bool = False, **_: object) -> None:
        if not ignore_errors:  # (as rmtree does when a file is not the referee's to remove)
            raise PermissionError(13, "Permission denied", str(Path(path) / "bin"))

    monkeypatch.setattr(shutil, "rmtree", refused)
    pruned = runner.invoke(app, ["env", "prune"], env=cache_env(tmp_path))
    assert (pruned.exit_code, pruned.stdout) == (1, "")
    assert pruned.stderr == (f"Error: cannot remove the environment {built}: Permission "
                             f"denied ({built / 'bin'})\n")
    # its record went first: what is left is never taken for a built environment
    listed = runner.invoke(app, ["env", "list"], env=cache_env(tmp_path))
    assert listed.stdout.splitlines()[1:] == [
        "6666666666666666  not built  0.0 MiB: no arena-env.json: a build that stopped part "
        "way (killed, or a full disk); arena env prune removes it"]


def test_a_kept_version_of_a_bot_no_longer_registered_keeps_its_environment(
        tmp_path: Path) -> None:
    """A stored tournament may still start it (arena bots prune keeps it so): its environment
    was pruned, and rebuilt at its next start."""
    kept = tmp_path / "bots" / ".versions" / "oldbot@0123abcd4567"
    kept.mkdir(parents=True)
    (kept / "bot.yaml").write_text("name: oldbot\nmodule: bot.py\nrequirements: [six]\n")
    (kept / "bot.py").write_text("")
    key = environment_key(("six",), None)
    built = built_environment(tmp_path / "envs" / key)
    env = cache_env(tmp_path)
    listed = runner.invoke(app, ["env", "list"], env=env)
    assert "    used by: oldbot@0123abcd4567 (kept; oldbot is not registered)\n" in listed.stdout
    pruned = runner.invoke(app, ["env", "prune"], env=env)
    assert (pruned.exit_code, pruned.stdout) == (
        0, "No environment is unused: nothing to remove.\n")
    assert (built / "arena-env.json").is_file()


def test_a_cache_that_is_a_file_or_lies_under_one_is_said_so(tmp_path: Path) -> None:
    """env list found no environment in it; doctor said 0 environments; a build under a file
    was 'out of the bots' reach (... is closed to other users)' (as root)."""
    (tmp_path / "afile").write_text("")
    bot = tmp_path / "needy"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: needy\nmodule: bot.py\nrequirements: [six]\n")
    (bot / "bot.py").write_text("")
    for cache, problem in ((tmp_path / "afile", "is a file, not a directory"),
                           (tmp_path / "afile" / "envs",
                            f"cannot be a directory ({tmp_path / 'afile'} is a file)")):
        env = {**cache_env(tmp_path), "ARENA_ENV_CACHE": str(cache)}
        said = f"the environment cache {cache} {problem}: ARENA_ENV_CACHE picks another directory"
        for args in (["env", "list"], ["env", "prune"], ["check-bot", str(bot)]):
            result = runner.invoke(app, args, env=env)
            named = "needy: " if args[0] == "check-bot" else ""
            assert (result.exit_code, result.stderr) == (1, f"Error: {named}{said}\n"), args
        doctor = runner.invoke(app, ["doctor"], env=env)
        assert f"Bot envs:    {cache} (unusable: {said})\n" in doctor.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a read-only bind (needs root)")
def test_a_read_only_cache_is_said_so(tmp_path: Path) -> None:
    """A build said it could not create the cache that was there; prune named the lock."""
    base = Path(tempfile.mkdtemp(prefix="arena-envs-"))
    base.chmod(0o755)  # within the bots' reach, as a root referee's cache must be
    cache = base / "envs"
    built = built_environment(cache / "7777777777777777")
    mounted = subprocess.run(f"mount --bind {cache} {cache} && mount -o remount,ro,bind "
                             f"{cache}", shell=True, capture_output=True, check=False)
    if mounted.returncode != 0:
        subprocess.run(["umount", str(cache)], capture_output=True, check=False)
        shutil.rmtree(base)
        pytest.skip("cannot mount a read-only bind here")
    try:
        bot = tmp_path / "needy"
        bot.mkdir()
        (bot / "bot.yaml").write_text("name: needy\nmodule: bot.py\nrequirements: [six]\n")
        (bot / "bot.py").write_text("")
        env = {**cache_env(tmp_path), "ARENA_ENV_CACHE": str(cache)}
        pruned = runner.invoke(app, ["env", "prune"], env=env)
        assert (pruned.exit_code, pruned.stderr) == (1, (
            f"Error: cannot remove the environment {built}: Read-only file system (the cache "
            f"{cache} cannot be written)\n"))
        checked = runner.invoke(app, ["check-bot", str(bot)], env=env)
        assert (checked.exit_code, checked.stderr) == (1, (
            f"Error: needy: cannot write into the environment cache {cache}: Read-only file "
            "system (ARENA_ENV_CACHE picks another directory)\n"))
        assert (built / "arena-env.json").is_file()
    finally:
        subprocess.run(["umount", str(cache)], check=False)
        shutil.rmtree(base)


def test_an_entry_locked_built_or_removed_since_it_was_listed_is_left(tmp_path: Path) -> None:
    cache = tmp_path / "envs"
    (cache / "8888888888888888").mkdir(parents=True)
    (cache / "9999999999999999").mkdir()
    (cache / "aaaaaaaaaaaaaaaa").mkdir()
    first, second, third = unbuilt_environments(cache)
    (cache / ".locks").mkdir(exist_ok=True)
    fd = os.open(cache / ".locks" / f"{first.key}.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a build started since
        assert not remove_environment(first)
    finally:
        os.close(fd)
    (second.path / "arena-env.json").write_text(json.dumps(_RECORD))  # a build finished since
    assert not remove_environment(second)
    third.path.rmdir()  # another prune took it
    assert not remove_environment(third)
    assert first.path.is_dir() and (second.path / "arena-env.json").is_file()


def test_prune_as_json_lists_each_environment_it_removes(tmp_path: Path) -> None:
    cache = tmp_path / "envs"
    unused = built_environment(cache / "0123456789abcdef")
    killed = cache / "1111111111111111"
    (killed / "lib").mkdir(parents=True)
    (killed / "lib" / "half.py").write_text("x = 1\n")
    env = cache_env(tmp_path)
    expected = {
        "cache": str(cache), "bots_dir": env["ARENA_BOTS_DIR"], "dry_run": True,
        "removed": [
            {"key": "0123456789abcdef", "path": str(unused), "built": True, "link": None,
             "requirements": ["six"], "why": None,
             "bytes": len(json.dumps(_RECORD))},
            {"key": "1111111111111111", "path": str(killed), "built": False, "link": None,
             "requirements": None, "why": "no arena-env.json: a build that stopped part way "
             "(killed, or a full disk)", "bytes": 6}],
        "left": [], "bytes": len(json.dumps(_RECORD)) + 6}
    dry = runner.invoke(app, ["env", "prune", "--dry-run", "--format", "json"], env=env)
    assert dry.exit_code == 0, dry.output
    assert dry.stdout == json.dumps(expected, indent=2) + "\n"
    assert unused.is_dir() and killed.is_dir()
    done = runner.invoke(app, ["env", "prune", "-f", "json"], env=env)
    assert done.exit_code == 0, done.output
    assert done.stdout == json.dumps({**expected, "dry_run": False}, indent=2) + "\n"
    assert not unused.exists() and not killed.exists()
    again = runner.invoke(app, ["env", "prune", "-f", "json"], env=env)
    assert json.loads(again.stdout) == {**expected, "dry_run": False, "removed": [],
                                        "bytes": 0}


def registered_bot(bots: Path, name: str, manifest: str) -> Path:
    """A directory bot registered in ``bots`` (as arena submit leaves it)."""
    bot = bots / name
    bot.mkdir(parents=True)
    (bot / "bot.yaml").write_text(f"name: {name}\nmodule: bot.py\n{manifest}")
    (bot / "bot.py").write_text("")
    registry = bots / "registry.yaml"
    entries = registry.read_text() if registry.exists() else "bots:\n"
    registry.write_text(f"{entries}  {name}: {{path: {name}}}\n")
    return bot


def test_a_kept_version_of_a_registered_bot_keeps_its_environment(tmp_path: Path) -> None:
    """submit --update kept the old version (a tournament may still start it); its
    environment, of requirements the new one dropped, counted as unused and was pruned."""
    env = cache_env(tmp_path)
    bots = tmp_path / "bots"
    registered_bot(bots, "grower", "requirements: [beta-pkg]\n")
    kept = bots / ".versions" / "grower@0123abcd4567"
    kept.mkdir(parents=True)
    (kept / "bot.yaml").write_text("name: grower\nmodule: bot.py\nrequirements: [six]\n")
    (kept / "bot.py").write_text("")
    old = built_environment(tmp_path / "envs" / environment_key(("six",), None))
    new = built_environment(tmp_path / "envs" / environment_key(("beta-pkg",), None))
    listed = runner.invoke(app, ["env", "list"], env=env)
    assert listed.stdout.count("    used by: grower@0123abcd4567\n") == 1, listed.output
    assert listed.stdout.count("    used by: grower\n") == 1
    pruned = runner.invoke(app, ["env", "prune"], env=env)
    assert (pruned.exit_code, pruned.stdout) == (
        0, "No environment is unused: nothing to remove.\n")
    assert (old / "arena-env.json").is_file() and (new / "arena-env.json").is_file()


def test_a_bot_asking_for_a_python_alone_keeps_its_environment(tmp_path: Path) -> None:
    """A bot.yaml with python: and no requirements runs in an environment too: prune took it
    as unused, and the bot's next start built it again."""
    env = cache_env(tmp_path)
    version = probe().python_version.rsplit(".", 1)[0]
    registered_bot(tmp_path / "bots", "versioned", f'python: "{version}"\n')
    built = built_environment(tmp_path / "envs" / environment_key((), version))
    listed = runner.invoke(app, ["env", "list"], env=env)
    assert "    used by: versioned\n" in listed.stdout, listed.output
    pruned = runner.invoke(app, ["env", "prune"], env=env)
    assert (pruned.exit_code, pruned.stdout) == (
        0, "No environment is unused: nothing to remove.\n")
    assert (built / "arena-env.json").is_file()


def test_what_else_lies_in_the_cache_is_neither_listed_nor_pruned(tmp_path: Path) -> None:
    """Only the directories builds name (sixteen hex digits) are the arena's: an operator's
    notes, or another tool's directory, in a shared cache were listed as builds that stopped
    part way and pruned."""
    cache = tmp_path / "envs"
    (cache / "notes").mkdir(parents=True)
    (cache / "notes" / "todo.txt").write_text("keep\n")
    (cache / "README").write_text("the arena's environments\n")
    (cache / "0123456789ABCDEF").mkdir()  # not a key: keys are lower case
    env = cache_env(tmp_path)
    listed = runner.invoke(app, ["env", "list"], env=env)
    assert listed.stdout == f"Environment cache: {cache} (0 environments)\n", listed.output
    pruned = runner.invoke(app, ["env", "prune"], env=env)
    assert (pruned.exit_code, pruned.stdout) == (
        0, "No environment is unused: nothing to remove.\n")
    assert sorted(p.name for p in cache.iterdir()) == ["0123456789ABCDEF", "README", "notes"]


def test_a_records_package_names_are_listed_escaped(tmp_path: Path) -> None:
    """A record holds what the packages' metadata said (a wheel may plant any): listed raw,
    an escape sequence in it reached the operator's terminal."""
    built = built_environment(tmp_path / "envs" / "0123456789abcdef")
    (built / "arena-env.json").write_text(json.dumps(
        {**_RECORD, "frozen": ["ev\x1b]0;owned\x07il==1\x1b[2J", "six==1.16.0"]}))
    listed = runner.invoke(app, ["env", "list"], env=cache_env(tmp_path))
    assert "    installed: ev\\x1b]0;owned\\x07il==1\\x1b[2J, six==1.16.0\n" in listed.stdout, \
        listed.output
    as_json = runner.invoke(app, ["env", "list", "--json"], env=cache_env(tmp_path))
    assert json.loads(as_json.stdout)["environments"][0]["frozen"] == [
        "ev\\x1b]0;owned\\x07il==1\\x1b[2J", "six==1.16.0"]


def test_a_build_killed_while_pip_installed_is_listed_and_pruned(tmp_path: Path) -> None:
    """While pip installs, a directory holds the record's place (no package may plant a
    record): a build killed then left it, and prune failed on it, 'Is a directory'."""
    killed = tmp_path / "envs" / "bbbbbbbbbbbbbbbb"
    (killed / "arena-env.json").mkdir(parents=True)
    env = cache_env(tmp_path)
    listed = runner.invoke(app, ["env", "list"], env=env)
    assert listed.stdout.splitlines()[1:] == [
        "bbbbbbbbbbbbbbbb  not built  0.0 MiB: its arena-env.json cannot be read (Is a "
        "directory); arena env prune removes it"], listed.output
    pruned = runner.invoke(app, ["env", "prune"], env=env)
    assert (pruned.exit_code, pruned.stdout.splitlines()[-1]) == (
        0, "1 environment not built; freed 0.0 MiB."), pruned.output
    assert not killed.exists()
