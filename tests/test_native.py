"""The compiled engine (mypyc): the same games as the Python sources, and the one rule for a
stale build (its compiled files are removed and the sources run).

``pip install`` compiles the modules in ``arena.native.COMPILED_MODULES`` and records their
sources' hashes in ``arena/_build.json`` (setup.py).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import native as _native
from arena.native import COMPILED_MODULES, native_build

REPO = Path(__file__).resolve().parents[1]

#: Plays 40 games at every table size and prints a hash of their records, of every seat's
#: observation at the end, and of the acting seat's observation at every decision.
GAMES_HASH = """
import hashlib, json, random
from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.native import native_build
digest = hashlib.sha256()
for players in (2, 3, 4, 5):
    for game in range(10):
        config = GameConfig(players=tuple(f"p{s}" for s in range(players)), seed=game * 31 + 7)
        state = play_game(config, [RandomAgent(game * 8 + s) for s in range(players)])
        digest.update(json.dumps(state.record(), sort_keys=True).encode())
        for seat in range(players):
            digest.update(json.dumps(state.observe(seat).to_json(), sort_keys=True).encode())
        state, rng = new_game(config), random.Random(game)
        while state.decision is not None:
            decision = state.decision
            digest.update(json.dumps(state.observe_json(decision.seat)).encode())
            state.apply(rng.randrange(len(decision.options)))
print(native_build().mode, digest.hexdigest())
"""


def _run(code: str, pythonpath: Path = REPO) -> str:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    result = subprocess.run([sys.executable, "-c", code], cwd=pythonpath, capture_output=True,
                            text=True, env=env, check=True)
    return result.stdout.strip()


def test_the_compiled_engine_plays_the_same_games_as_the_sources(tmp_path: Path) -> None:
    if native_build().mode != "compiled":
        pytest.skip(f"the engine is not compiled here: {native_build().reason}")
    sources = tmp_path / "sources"
    shutil.copytree(REPO / "arena", sources / "arena", ignore=shutil.ignore_patterns(
        "__pycache__", "_build.json", *(f"*{s}" for s in importlib.machinery.EXTENSION_SUFFIXES)))
    compiled = _run(GAMES_HASH).split()
    pure = _run(GAMES_HASH, sources).split()
    assert (compiled[0], pure[0]) == ("compiled", "pure")
    assert compiled[1] == pure[1]


SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def fake_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory laid out like a compiled install: sources, extensions, build record."""
    sources = {}
    for name in COMPILED_MODULES:
        text = f"# {name}\n".encode()
        source = tmp_path.joinpath(*name.split("."))
        source.parent.mkdir(exist_ok=True)
        source.with_suffix(".py").write_bytes(text)
        source.with_name(source.name + SUFFIX).write_bytes(b"")
        sources[name] = hashlib.sha256(text).hexdigest()
    (tmp_path / f"{_native.GROUP}{SUFFIX}").write_bytes(b"")
    (tmp_path / "_build.json").write_text(json.dumps({"sources": sources}))
    monkeypatch.setattr(_native, "_ROOT", str(tmp_path))
    monkeypatch.setattr(_native, "_BUILD_FILE", str(tmp_path / "_build.json"))
    return tmp_path


def _compiled_files(root: Path) -> list[Path]:
    return sorted(root.rglob(f"*{SUFFIX}"))


def test_a_fresh_build_runs_compiled(fake_build: Path) -> None:
    build = _native._check()
    assert (build.mode, build.reason) == ("compiled", f"mypyc, {len(COMPILED_MODULES)} modules")
    assert len(_compiled_files(fake_build)) == len(COMPILED_MODULES) + 1


def test_a_source_edited_after_the_build_removes_the_build(fake_build: Path) -> None:
    (fake_build / "engine" / "turn.py").write_text("# the rules changed\n")
    build = _native._check()
    assert (build.mode, build.reason) == (
        "pure", "stale build removed: engine/turn.py changed since it was compiled; "
                "`pip install -e .` compiles it again")
    assert _compiled_files(fake_build) == []
    assert not (fake_build / "_build.json").exists()
    assert _native._check().mode == "pure"  # and the next process finds only sources


def test_a_missing_build_record_removes_the_build(fake_build: Path) -> None:
    (fake_build / "_build.json").unlink()
    assert _native._check().reason == (
        "stale build removed: the build record arena/_build.json is missing or unreadable; "
        "`pip install -e .` compiles it again")
    assert _compiled_files(fake_build) == []


def test_a_missing_extension_removes_the_rest(fake_build: Path) -> None:
    (fake_build / "engine" / f"state{SUFFIX}").unlink()
    assert _native._check().reason.startswith("stale build removed: engine/state.py changed")
    assert _compiled_files(fake_build) == []


def test_a_leftover_of_an_older_build_is_removed(fake_build: Path) -> None:
    """A module compiled by an older build and no longer in the list would shadow its source."""
    (fake_build / "referee").mkdir()
    (fake_build / "referee" / "client.py").write_text("# plain Python now\n")
    (fake_build / "referee" / f"client{SUFFIX}").write_bytes(b"")
    assert _native._check().reason.startswith("stale build removed: referee/client.py changed")
    assert _compiled_files(fake_build) == []


def test_an_install_that_did_not_compile_says_why(fake_build: Path) -> None:
    for extension in _compiled_files(fake_build):
        extension.unlink()
    (fake_build / "_build.json").write_text(json.dumps(
        {"compiler": None, "reason": "the C compiler cc exited with status 1"}))
    build = _native._check()
    assert (build.mode, build.reason) == (
        "pure", "not compiled: the C compiler cc exited with status 1")


def test_extensions_built_for_another_python_say_so(fake_build: Path) -> None:
    """The bot kit carries the referee's extensions; a bot interpreter of another minor
    version cannot load them and runs the sources, and ``arena doctor`` says why."""
    for extension in _compiled_files(fake_build):
        extension.rename(extension.parent / (extension.name.split(".")[0]
                                             + ".cpython-39-x86_64-linux-gnu.so"))
    build = _native._check()
    assert (build.mode, build.reason) == (
        "pure", f"compiled for cpython-39, not for {sys.implementation.cache_tag}")
    assert len(list(fake_build.rglob("*.cpython-39-x86_64-linux-gnu.so"))) == len(
        COMPILED_MODULES) + 1  # not ours to remove
