"""What travels to a Ray node besides the table (:mod:`arena.tournament.ray_bundles`): only a
bot's own files, written into a cache that is this user's alone, and a fingerprint that
tells apart any other arena code. Ray itself is not needed: a bundle is packed and written
the same way with or without it."""

from __future__ import annotations

import os
import shutil
import stat
import types
from pathlib import Path

import pytest

from arena.errors import ClusterError
from arena.registry import BotSpec, spec_from_path
from arena.tournament import ray_bundles


def _directory_bot(where: Path, command: str) -> Path:
    bot = where / "dirbot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.yaml").write_text(f"name: dirbot\ncommand: {command}\n")
    (bot / "lib" / "main.py").write_text("print('hello')\n")
    return bot


def test_only_the_files_a_bot_version_hashes_travel(tmp_path: Path) -> None:
    """The registry leaves caches, a repository's metadata and empty directories out of a
    bot's version: they stay on the driver, and the bot's copy on a node holds none of them."""
    bot = _directory_bot(tmp_path, "[python3, lib/main.py]")
    (bot / "lib" / "__pycache__").mkdir()
    (bot / "lib" / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0cached")
    (bot / "lib" / "old.pyc").write_bytes(b"\0stale")
    (bot / ".git").mkdir()
    (bot / ".git" / "config").write_text("[core]\n")
    (bot / "empty").mkdir()
    spec = spec_from_path(bot)
    bundle = ray_bundles.pack_bot(spec)
    assert sorted(rel for rel, _, _ in bundle.files) == ["bot.yaml", "lib/main.py"]
    local = ray_bundles.materialize_bot(bundle, spec, cache=tmp_path / "cache")
    assert sorted(p.relative_to(local.path).as_posix() for p in local.path.rglob("*")) == [
        "bot.yaml", "lib", "lib/main.py"]


def test_a_command_naming_the_bots_own_path_runs_the_nodes_copy(tmp_path: Path) -> None:
    """A node has no bot at the driver's path: a command that names a file of the bot by its
    absolute path runs the copy written on the node."""
    where = tmp_path / "driver"
    where.mkdir()
    bot = _directory_bot(where, f"[python3, {where / 'dirbot' / 'lib' / 'main.py'}]")
    spec = spec_from_path(bot)
    local = ray_bundles.materialize_bot(ray_bundles.pack_bot(spec), spec,
                                        cache=tmp_path / "cache")
    assert local.command == ("python3", str(local.path / "lib" / "main.py"))
    assert not any(str(where) in arg for arg in local.command)


Packed = tuple[ray_bundles.BotBundle, BotSpec]


@pytest.fixture()
def packed(tmp_path: Path) -> Packed:
    source = tmp_path / "src" / "bot.py"
    source.parent.mkdir()
    source.write_text("class Bot:\n    name = 'b'\n")
    spec = spec_from_path(source)
    return ray_bundles.pack_bot(spec), spec


def test_a_bot_cache_that_is_not_this_users_own_directory_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed: Packed) -> None:
    """Another user's directory (or a link to one) where the cache goes could swap a bot's
    files between the check and the start: nothing is written or run from it."""
    bundle, spec = packed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    monkeypatch.setenv("ARENA_RAY_CACHE", str(link))
    with pytest.raises(ClusterError) as info:
        ray_bundles.materialize_bot(bundle, spec)
    assert str(info.value) == f"the bot cache {link} is not a directory of this user"
    assert list(elsewhere.iterdir()) == []
    if os.geteuid() == 0:  # only root can give a directory to another user
        foreign = tmp_path / "foreign"
        foreign.mkdir(mode=0o700)
        os.chown(foreign, 4321, 4321)
        monkeypatch.setenv("ARENA_RAY_CACHE", str(foreign))
        with pytest.raises(ClusterError, match="is not a directory of this user"):
            ray_bundles.materialize_bot(bundle, spec)
        assert list(foreign.iterdir()) == []


def test_a_bot_cache_open_to_others_is_closed_before_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed: Packed) -> None:
    """A contest's bots' files are its entrants' secret: the node's cache is the user's
    alone even where it was made readable to others before."""
    bundle, spec = packed
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o755)
    monkeypatch.setenv("ARENA_RAY_CACHE", str(cache))
    local = ray_bundles.materialize_bot(bundle, spec)
    assert local.path.is_relative_to(cache)
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700


def test_the_fingerprint_changes_with_any_byte_of_the_code_that_plays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker with an engine edited in place (same files, other rules) refuses the
    driver's tables: the fingerprint covers the files' contents, not only their names."""
    real = Path(ray_bundles.arena.__file__).resolve().parent
    copy = tmp_path / "arena"
    for item in ray_bundles.PLAY_CODE:
        source = real / item
        files = sorted(source.rglob("*.py")) if source.is_dir() else [source]
        for file in files:
            target = copy / file.relative_to(real)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
    fake = types.SimpleNamespace(__file__=str(copy / "__init__.py"),
                                 __version__=ray_bundles.arena.__version__)
    monkeypatch.setattr(ray_bundles, "arena", fake)
    fingerprint = ray_bundles.code_fingerprint.__wrapped__  # past the process's cache
    assert fingerprint() == ray_bundles.code_fingerprint()  # a copy is the same code
    rules = copy / "engine" / "rulebook.py"
    rules.write_text(rules.read_text() + "\n# another rule\n")
    assert fingerprint() != ray_bundles.code_fingerprint()


def test_a_damaged_cache_entry_is_written_anew(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed: Packed) -> None:
    """A bot's copy on a node changed since it was written (by hand, a full disk, another
    program): the next worker to seat the bot checks it, finds another version and writes it
    again from the bundle, rather than run other code under the version's name."""
    bundle, spec = packed
    cache = tmp_path / "cache"
    first = ray_bundles.materialize_bot(bundle, spec, cache=cache)
    first.path.write_text("class Bot:\n    name = 'someone else'\n")
    monkeypatch.setattr(ray_bundles, "_verified", set())  # another worker: nothing checked yet
    again = ray_bundles.materialize_bot(bundle, spec, cache=cache)
    assert again.path == first.path
    assert again.path.read_bytes() == Path(spec.path).read_bytes()
