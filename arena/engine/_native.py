"""Which engine modules run compiled (mypyc), and a guard that never runs a stale build.

``pip install`` compiles the modules named here with mypyc (see ``setup.py``) and records a
hash of each source in ``_build.json``. When a source has changed since (an editable install
being worked on), when the build is missing, or when ``ARENA_PURE_PYTHON=1`` is set, the
engine is imported from its Python sources instead, all modules together: a compiled module
never runs rules that differ from the file beside it. Kept free of engine imports, since it
must act before any of them.
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

__all__ = ["COMPILED_MODULES", "EngineBuild", "engine_build", "use_sources_if_stale"]

#: The engine's hot path, compiled with mypyc when installed (module names in arena.engine).
#: Not desmos: its 64-bit hand keys overflow mypyc's fast integers, so it runs faster as
#: plain Python (measured: evaluate() 0.6 us against 1.25 us compiled). Not config: built
#: once a game, it checks what it is given itself (ISO dates are taken, a bad seed is a
#: RulesError), the same way in both builds.
COMPILED_MODULES = ("cards", "chance", "decision", "state", "observation", "actions",
                    "turn", "effects", "showdown", "agents", "game", "start", "determinize")

_HERE = os.path.dirname(os.path.abspath(__file__))
_BUILD_FILE = os.path.join(_HERE, "_build.json")
_PACKAGE = __name__.rsplit(".", 1)[0]


def source_hash(module: str) -> str:
    with open(os.path.join(_HERE, module + ".py"), "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


class EngineBuild:
    """How the engine runs in this process: ``compiled`` or ``pure`` and why."""

    def __init__(self, mode: str, reason: str) -> None:
        self.mode = mode
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.mode} ({self.reason})"


def _extension_modules() -> set[str]:
    """Engine modules with a compiled extension beside their source (also leftovers of an
    older build whose module list differed)."""
    found = set()
    for entry in os.listdir(_HERE):
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            name = entry[: -len(suffix)]
            if entry.endswith(suffix) and os.path.exists(os.path.join(_HERE, name + ".py")):
                found.add(name)
    return found


def _foreign_builds() -> list[str]:
    """Interpreter tags (``cpython-311``) of engine extensions this Python cannot load."""
    tags = set()
    for entry in os.listdir(_HERE):
        parts = entry.split(".")
        if len(parts) == 3 and parts[0] in COMPILED_MODULES and parts[2] == "so":
            tags.add("-".join(parts[1].split("-")[:2]))
    return sorted(tags)


def _check(extensions: set[str] | None = None) -> EngineBuild:
    present = (_extension_modules() if extensions is None else extensions) & set(COMPILED_MODULES)
    if not present:
        others = _foreign_builds()
        if others:  # e.g. the bot kit's copy, read by another Python than the referee's
            return EngineBuild("pure", f"compiled for {', '.join(others)}, not for "
                                       f"{sys.implementation.cache_tag}")
        return EngineBuild("pure", "not compiled: installed without mypyc or ARENA_PURE_PYTHON=1")
    if os.environ.get("ARENA_PURE_PYTHON", "") not in ("", "0"):
        return EngineBuild("pure", "ARENA_PURE_PYTHON is set")
    try:
        with open(_BUILD_FILE, encoding="utf-8") as handle:
            built = json.load(handle)["sources"]
    except (OSError, ValueError, KeyError):
        return EngineBuild("pure", "the build record _build.json is missing or unreadable")
    changed = [name for name in COMPILED_MODULES
               if name not in present or built.get(name) != source_hash(name)]
    if changed:
        return EngineBuild("pure", "stale build: " + ", ".join(f"{n}.py" for n in changed)
                           + " changed since it was compiled; `pip install -e .` rebuilds it")
    return EngineBuild("compiled", f"mypyc, {len(present)} modules")


class _SourceFinder:
    """Imports the named engine modules from their ``.py`` sources (a meta path finder)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != _PACKAGE or name not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, os.path.join(_HERE, name + ".py"))


_BUILD: EngineBuild | None = None


def use_sources_if_stale() -> EngineBuild:
    """Decide once per process, before any engine module is imported."""
    global _BUILD
    if _BUILD is None:
        extensions = _extension_modules()  # one scan of the directory serves both uses
        _BUILD = _check(extensions)
        # a pure engine ignores every extension; a compiled one, those it did not build
        sources = extensions if _BUILD.mode == "pure" else extensions - set(COMPILED_MODULES)
        if sources:
            sys.meta_path.insert(0, _SourceFinder(sources))  # type: ignore[arg-type]
        if _BUILD.reason.startswith("stale"):
            warnings.warn(f"arena.engine runs as pure Python: {_BUILD.reason}",
                          RuntimeWarning, stacklevel=2)
    return _BUILD


def engine_build() -> EngineBuild:
    """How the engine runs in this process (for ``arena doctor`` and the benchmarks)."""
    return use_sources_if_stale()
