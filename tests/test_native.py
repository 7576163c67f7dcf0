"""The compiled hot paths (mypyc): the same games and the same protocol lines as the Python
sources, and never a stale build.

``pip install`` compiles the modules in ``arena.native.COMPILED_MODULES``; a source changed
since then (or ``ARENA_PURE_PYTHON=1``) makes all of them import their ``.py`` files.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena import native as _native
from arena.native import COMPILED_MODULES, native_build

REPO = Path(__file__).resolve().parents[1]

#: Plays 40 games at every table size and prints a hash of their records, of every seat's
#: observation, of the lines the referee writes (events and acts) and reads (actions), and of
#: the answers the kit's loop gives to those lines.
GAMES_HASH = """
import hashlib, io, json, os, random, tempfile
from arena.engine import GameConfig, RandomAgent, new_game, play_game
from arena.engine.observation import observe_json
from arena.native import native_build
from arena.protocol import messages
from arena.referee.relay import EventRelay
from arena.sdk import Bot
from arena.sdk.serving import serve
digest = hashlib.sha256()
stream = [messages.hello()]
for players in (2, 3, 4, 5):
    for game in range(10):
        config = GameConfig(players=tuple(f"p{s}" for s in range(players)), seed=game * 31 + 7)
        state = play_game(config, [RandomAgent(game * 8 + s) for s in range(players)])
        digest.update(json.dumps(state.record(), sort_keys=True).encode())
        for seat in range(players):
            digest.update(json.dumps(state.observe(seat).to_json(), sort_keys=True).encode())
        state, rng = new_game(config), random.Random(game)
        relay = EventRelay(state)
        while state.decision is not None:
            decision = state.decision
            stream.append(relay.take(decision.seat))
            stream.append(messages.act(len(state.choices), decision.kind,
                                       observe_json(state, decision.seat), decision.options,
                                       1000, decision.context))
            choice = rng.randrange(len(decision.options))
            line = messages.action(len(state.choices), choice)
            assert messages.parse_action(line, len(state.choices), choice + 1) == choice
            state.apply(choice)


class Last(Bot):
    def on_event(self, event):
        self.events = getattr(self, "events", 0) + 1

    def act(self, request):
        return (len(request.legal) - 1 + self.events) % len(request.legal)


digest.update(b"".join(stream))
with tempfile.TemporaryFile() as answers:
    serve(Last(), io.BytesIO(b"".join(stream)), answers.fileno())
    answers.seek(0)
    digest.update(answers.read())
print(native_build().mode, digest.hexdigest())
"""


def _run(code: str, **env: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                            text=True, env={**os.environ, **env}, check=True)
    return result.stdout.strip()


def test_compiled_modules_play_the_same_games_and_lines_as_the_sources() -> None:
    if native_build().mode != "compiled":
        pytest.skip(f"the engine is not compiled here: {native_build().reason}")
    compiled = _run(GAMES_HASH, ARENA_PURE_PYTHON="0")
    pure = _run(GAMES_HASH, ARENA_PURE_PYTHON="1")
    assert compiled.split()[0] == "compiled" and pure.split()[0] == "pure"
    assert compiled.split()[1] == pure.split()[1]


def test_pure_python_switch_imports_the_sources() -> None:
    out = _run("import arena.engine.state as s; from arena.native import native_build;"
               "print(s.__file__.endswith('.py'), native_build().mode)", ARENA_PURE_PYTHON="1")
    assert out == "True pure"


@pytest.fixture
def fake_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory laid out like a compiled install: sources, extensions, build record."""
    sources = {}
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in COMPILED_MODULES:
        text = f"# {name}\n".encode()
        source = tmp_path.joinpath(*name.split("."))
        source.parent.mkdir(exist_ok=True)
        source.with_suffix(".py").write_bytes(text)
        source.with_name(source.name + suffix).write_bytes(b"")
        sources[name] = hashlib.sha256(text).hexdigest()
    (tmp_path / "_build.json").write_text(json.dumps({"sources": sources}))
    monkeypatch.setattr(_native, "_ROOT", str(tmp_path))
    monkeypatch.setattr(_native, "_BUILD_FILE", str(tmp_path / "_build.json"))
    monkeypatch.delenv("ARENA_PURE_PYTHON", raising=False)
    return tmp_path


def test_a_fresh_build_runs_compiled(fake_build: Path) -> None:
    build = _native._check()
    assert (build.mode, build.reason) == ("compiled", f"mypyc, {len(COMPILED_MODULES)} modules")


def test_a_source_edited_after_the_build_runs_pure_python(fake_build: Path) -> None:
    (fake_build / "engine" / "turn.py").write_text("# the rules changed\n")
    build = _native._check()
    assert build.mode == "pure"
    assert build.reason == ("stale build: engine/turn.py changed since it was compiled; "
                            "`pip install -e .` rebuilds it")


def test_a_missing_build_record_runs_pure_python(fake_build: Path) -> None:
    (fake_build / "_build.json").unlink()
    assert _native._check().reason == ("the build record arena/_build.json is missing or "
                                         "unreadable")


def test_a_missing_extension_runs_pure_python(fake_build: Path) -> None:
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (fake_build / "engine" / f"state{suffix}").unlink()
    assert _native._check().reason.startswith("stale build: engine/state.py")


def test_no_extensions_at_all_is_plain_pure_python(fake_build: Path) -> None:
    for extension in fake_build.glob("*/*.so"):
        extension.unlink()
    for extension in fake_build.glob("*/*.pyd"):
        extension.unlink()
    assert _native._check().mode == "pure"
    assert _native._check().reason.startswith("not compiled")


def test_extensions_built_for_another_python_say_so(fake_build: Path) -> None:
    """The bot kit carries the referee's extensions; a bot interpreter of another minor
    version cannot load them and runs the sources, and ``arena doctor`` says why."""
    for extension in fake_build.glob("*/*.so"):
        extension.rename(extension.parent / (extension.name.split(".")[0]
                                        + ".cpython-39-x86_64-linux-gnu.so"))
    build = _native._check()
    assert (build.mode, build.reason) == (
        "pure", f"compiled for cpython-39, not for {sys.implementation.cache_tag}")


def test_the_switch_wins_over_a_fresh_build(fake_build: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_PURE_PYTHON", "1")
    assert _native._check().reason == "ARENA_PURE_PYTHON is set"
