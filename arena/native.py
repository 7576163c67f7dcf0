"""Which modules run compiled (mypyc), and a guard that never runs a stale build.

``pip install`` compiles the modules named here with mypyc (see ``setup.py``) and records a
hash of each source in ``arena/_build.json``. When a source has changed since (an editable
install being worked on), when the build is missing, or when ``ARENA_PURE_PYTHON=1`` is set,
every one of them is imported from its Python source instead, all together: a compiled module
never runs rules (or a protocol) that differ from the file beside it, and never calls a
compiled neighbour older than its source. ``arena/__init__.py`` asks before any other arena
import, so this module imports nothing of the arena's.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["COMPILED_MODULES", "NativeBuild", "native_build", "use_sources_if_stale"]

#: The modules compiled with mypyc when installed (names under ``arena``): the engine's play,
#: where compiling pays in a whole benchmark (docs/PERFORMANCE.md). Not desmos (its 64-bit
#: hand keys overflow mypyc's fast integers, so it runs faster as plain Python), not config
#: (built once a game).
COMPILED_MODULES = ("engine.cards", "engine.chance", "engine.decision", "engine.state",
                    "engine.observation", "engine.actions", "engine.turn", "engine.effects",
                    "engine.showdown", "engine.agents", "engine.game", "engine.start",
                    "engine.determinize")

_ROOT = os.path.dirname(os.path.abspath(__file__))
_BUILD_FILE = os.path.join(_ROOT, "_build.json")
_PACKAGE = __name__.rsplit(".", 1)[0]


def source_path(module: str) -> str:
    """The source file of ``module`` (a name of :data:`COMPILED_MODULES`)."""
    return os.path.join(_ROOT, *module.split(".")) + ".py"


def source_hash(module: str) -> str:
    with open(source_path(module), "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


class NativeBuild:
    """How the compiled modules run in this process: ``compiled`` or ``pure`` and why."""

    def __init__(self, mode: str, reason: str) -> None:
        self.mode = mode
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.mode} ({self.reason})"


def _packages() -> list[str]:
    return sorted({name.rpartition(".")[0] for name in COMPILED_MODULES})


def _extension_modules() -> set[str]:
    """Modules with a compiled extension beside their source, in the packages that hold
    compiled modules (also leftovers of an older build whose module list differed)."""
    found = set()
    for package in _packages():
        directory = os.path.join(_ROOT, *package.split("."))
        for entry in os.listdir(directory):
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                name = entry[: -len(suffix)]
                if entry.endswith(suffix) and os.path.exists(os.path.join(directory,
                                                                          name + ".py")):
                    found.add(f"{package}.{name}")
    return found


def _foreign_builds() -> list[str]:
    """Interpreter tags (``cpython-311``) of extensions this Python cannot load."""
    tags = set()
    for package in _packages():
        for entry in os.listdir(os.path.join(_ROOT, *package.split("."))):
            parts = entry.split(".")
            if (len(parts) == 3 and f"{package}.{parts[0]}" in COMPILED_MODULES
                    and parts[2] == "so"):
                tags.add("-".join(parts[1].split("-")[:2]))
    return sorted(tags)


def _check(extensions: set[str] | None = None) -> NativeBuild:
    present = (_extension_modules() if extensions is None else extensions) & set(COMPILED_MODULES)
    if not present:
        others = _foreign_builds()
        if others:  # e.g. the bot kit's copy, read by another Python than the referee's
            return NativeBuild("pure", f"compiled for {', '.join(others)}, not for "
                                       f"{sys.implementation.cache_tag}")
        return NativeBuild("pure", "not compiled: installed without mypyc or ARENA_PURE_PYTHON=1")
    if os.environ.get("ARENA_PURE_PYTHON", "") not in ("", "0"):
        return NativeBuild("pure", "ARENA_PURE_PYTHON is set")
    try:
        with open(_BUILD_FILE, encoding="utf-8") as handle:
            built = json.load(handle)["sources"]
    except (OSError, ValueError, KeyError):
        return NativeBuild("pure", "the build record arena/_build.json is missing or unreadable")
    changed = [name for name in COMPILED_MODULES
               if name not in present or built.get(name) != source_hash(name)]
    if changed:
        return NativeBuild("pure", "stale build: " + ", ".join(
            f"{name.replace('.', '/')}.py" for name in changed)
            + " changed since it was compiled; `pip install -e .` rebuilds it")
    return NativeBuild("compiled", f"mypyc, {len(present)} modules")


class _SourceFinder:
    """Imports the named modules from their ``.py`` sources (a meta path finder)."""

    def __init__(self, names: set[str]) -> None:
        self.names = {f"{_PACKAGE}.{name}" for name in names}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(
            fullname, source_path(fullname[len(_PACKAGE) + 1:]))


_BUILD: NativeBuild | None = None


def use_sources_if_stale() -> NativeBuild:
    """Decide once per process, before any compiled module is imported."""
    global _BUILD
    if _BUILD is None:
        extensions = _extension_modules()  # one scan of the directories serves both uses
        _BUILD = _check(extensions)
        # a pure build ignores every extension; a compiled one, those it did not build
        sources = extensions if _BUILD.mode == "pure" else extensions - set(COMPILED_MODULES)
        if sources:
            sys.meta_path.insert(0, _SourceFinder(sources))  # type: ignore[arg-type]
        if _BUILD.reason.startswith("stale"):
            warnings.warn(f"arena runs as pure Python: {_BUILD.reason}",
                          RuntimeWarning, stacklevel=2)
    return _BUILD


def native_build() -> NativeBuild:
    """How the compiled modules run in this process (for ``arena doctor`` and the benchmarks)."""
    return use_sources_if_stale()
