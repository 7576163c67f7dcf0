"""Which modules run compiled (mypyc), and the one rule for a stale build.

``pip install`` compiles the modules named in :data:`COMPILED_MODULES` (see ``setup.py``) and
records a hash of each source in ``arena/_build.json``. Python itself then imports a compiled
extension where one lies beside its source, and the source where none does: there is no import
hook. The rule for a build that no longer matches its sources (an editable install being worked
on, a leftover of an older build):

    ``import arena`` removes the compiled files, with one warning naming the changed source,
    and the sources run until ``pip install -e .`` compiles them again.

So a compiled module never runs rules that differ from the file beside it, and never calls a
compiled neighbour older than its source. ``arena/__init__.py`` applies the rule before any other
arena import, so this module imports nothing of the arena's.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import json
import os
import sys
import warnings

__all__ = ["COMPILED_MODULES", "NativeBuild", "native_build", "remove_stale_build"]

#: The modules compiled with mypyc when installed (names under ``arena``): the engine's play,
#: where compiling pays in a whole benchmark (docs/PERFORMANCE.md), and the learning
#: environments' views (rl.encoder, rl.view: built at every step; they compile without numpy,
#: which they import only when run, and nothing of the engine imports them). Not desmos (its 64-bit
#: hand keys overflow mypyc's fast integers, so it runs faster as plain Python), not config
#: (built once a game).
COMPILED_MODULES = ("engine.cards", "engine.chance", "engine.decision", "engine.state",
                    "engine.observation", "engine.actions", "engine.turn", "engine.effects",
                    "engine.showdown", "engine.agents", "engine.game", "engine.start",
                    "engine.determinize", "engine.result", "engine.rulebook", "rl.encoder",
                    "rl.view")

#: The shared library that holds the compiled code of every module (mypyc's group).
GROUP = "_compiled__mypyc"

_ROOT = os.path.dirname(os.path.abspath(__file__))
_BUILD_FILE = os.path.join(_ROOT, "_build.json")


class NativeBuild:
    """How the compiled modules run in this process: ``compiled`` or ``pure``, and why."""

    def __init__(self, mode: str, reason: str) -> None:
        self.mode = mode
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.mode} ({self.reason})"


def source_path(module: str) -> str:
    """The source file of ``module`` (a name under ``arena``, such as ``engine.state``)."""
    return os.path.join(_ROOT, *module.split(".")) + ".py"


def source_hash(module: str) -> str:
    with open(source_path(module), "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def _extensions() -> dict[str, list[str]]:
    """Extension files this Python can load, by the module they stand for (a module with a
    source beside it, or mypyc's shared library); the whole tree is searched, so leftovers of
    an older build with another module list are found too."""
    found: dict[str, list[str]] = {}
    for directory, dirnames, filenames in os.walk(_ROOT):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        package = os.path.relpath(directory, _ROOT).replace(os.sep, ".")
        for entry in filenames:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                name = entry[: -len(suffix)]
                module = name if package == "." else f"{package}.{name}"
                if entry.endswith(suffix) and (
                        module == GROUP or os.path.exists(os.path.join(directory, name + ".py"))):
                    found.setdefault(module, []).append(os.path.join(directory, entry))
                    break
    return found


def _foreign_builds() -> list[str]:
    """Interpreter tags (``cpython-311``) of compiled modules this Python cannot load: the bot
    kit's copy read by a bot interpreter of another version."""
    tags = set()
    for module in COMPILED_MODULES:
        package, _, name = module.rpartition(".")
        directory = os.path.join(_ROOT, *package.split("."))
        with contextlib.suppress(OSError):
            for entry in os.listdir(directory):
                parts = entry.split(".")
                if len(parts) == 3 and parts[0] == name and parts[2] in ("so", "pyd"):
                    tags.add("-".join(parts[1].split("-")[:2]))
    return sorted(tags)


def _staleness(present: set[str]) -> str:
    """Why the compiled files do not match their sources, or ``""`` when they do."""
    try:
        with open(_BUILD_FILE, encoding="utf-8") as handle:
            built = json.load(handle)["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return "the build record arena/_build.json is missing or unreadable"
    modules = present - {GROUP}
    changed = [name for name in COMPILED_MODULES
               if name not in modules or built.get(name) != source_hash(name)]
    changed += sorted(modules - set(COMPILED_MODULES))
    if not changed:
        return ""
    return ", ".join(f"{name.replace('.', '/')}.py" for name in changed) + \
        " changed since it was compiled"


def _remove(files: list[str]) -> None:
    for path in [*files, _BUILD_FILE]:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass  # another process removed it first
        except OSError as exc:
            raise ImportError(f"arena's compiled build is stale and cannot be removed "
                              f"({exc}); run `pip install -e .` to compile it again") from None


def _install_note() -> str:
    """Why the install did not compile, as setup.py recorded it."""
    try:
        with open(_BUILD_FILE, encoding="utf-8") as handle:
            return str(json.load(handle)["reason"])
    except (OSError, ValueError, KeyError, TypeError):
        return "installed without compiling"


def _check() -> NativeBuild:
    extensions = _extensions()
    if not extensions:
        others = _foreign_builds()
        if others:
            return NativeBuild("pure", f"compiled for {', '.join(others)}, not for "
                                       f"{sys.implementation.cache_tag}")
        return NativeBuild("pure", f"not compiled: {_install_note()}")
    stale = _staleness(set(extensions))
    if not stale:
        return NativeBuild("compiled", f"mypyc, {len(COMPILED_MODULES)} modules")
    _remove([path for paths in extensions.values() for path in paths])
    return NativeBuild("pure", f"stale build removed: {stale}; `pip install -e .` compiles "
                               "it again")


_BUILD: NativeBuild | None = None


def remove_stale_build() -> NativeBuild:
    """Apply the stale-build rule once per process, before any compiled module is imported."""
    global _BUILD
    if _BUILD is None:
        _BUILD = _check()
        if _BUILD.reason.startswith("stale"):
            warnings.warn(f"arena runs as pure Python: {_BUILD.reason}", RuntimeWarning,
                          stacklevel=2)
    return _BUILD


def native_build() -> NativeBuild:
    """How the compiled modules run in this process (for ``arena doctor`` and the benchmarks)."""
    return remove_stale_build()
