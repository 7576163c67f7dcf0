"""Bots loaded into one process, each apart: a module name of its own and helpers of its own.

A bot loaded in-process (the bench's in-process replay, the learning environments'
opponents, ``BotAgent`` experiments) is imported as ``arena.sdk.botfiles.<name>``, a name
that holds the file's resolved path and a count of this process's loads: two bots whose
files are both ``bot.py`` never share a module, and a bot loaded again runs afresh, as a new
sandboxed process would. The bot's module is a package over its own directory, and the
``import`` statements of its code (its helpers' too, and those run later, inside ``act``)
look for the names that directory holds under that package: two bots with a
``strategy.py`` each import their own, and neither leaves a ``strategy`` in
``sys.modules`` for the next. A name found before the bot's directory (the standard library,
``arena``, installed packages) stays that module, as in the sandbox, where the directory is
the last entry of ``sys.path``: a bot's ``random.py`` never shadows ``random``. The caller's
``sys.path`` is left as it was.

The names are found again in another process (the finder is installed when this module is
imported, which the name itself does): a bot's objects pickle, and unpickle where the file
is at the same path. ``importlib.import_module`` called by the bot's code is not one of its
``import`` statements, and finds its helpers no more than any other code does.
"""

from __future__ import annotations

import base64
import builtins
import importlib.machinery
import importlib.util
import itertools
import os
import re
import sys
import threading
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.errors import BotLoadError

__all__ = ["import_bot"]

#: A package over no directory: only :class:`_BotFinder` finds the modules under it.
__path__: list[str] = []

_PREFIX = f"{__name__}."
#: The kit's own package: the sandbox puts it before the bot's directory, so it is never a
#: bot's, not even for a bot file in the arena's checkout (beside ``arena/``, found there).
_KIT = __name__.partition(".")[0]
_loads = itertools.count()
_lock = threading.Lock()


def import_bot(file: Path) -> ModuleType:
    """The bot module at ``file`` (a resolved path), imported afresh under a name of its own."""
    _install()
    with _lock:
        load = next(_loads)
    stem = re.sub(r"\W", "_", file.stem)
    path = base64.b32encode(os.fsencode(file)).decode().rstrip("=").lower()
    return importlib.import_module(f"{_PREFIX}{stem}_{load}_{path}")


def _file_of(name: str) -> Path | None:
    """The bot file a bot module's name holds (its part after the prefix), or None."""
    _, _, path = name.rpartition("_")
    try:
        return Path(os.fsdecode(base64.b32decode(path.upper() + "=" * (-len(path) % 8))))
    except ValueError:
        return None


class _BotImports:
    """One loaded bot's ``import`` statements: the names its directory holds, under its
    package; every other name as anywhere else."""

    def __init__(self, package: str, home: Path) -> None:
        self.package = package
        self.home = str(home)
        self.builtins = dict(vars(builtins))
        self.builtins["__import__"] = self.import_
        self._own: dict[str, bool] = {}

    def import_(self, name: str, globals: dict[str, Any] | None = None,
                locals: dict[str, Any] | None = None, fromlist: Sequence[str] = (),
                level: int = 0) -> ModuleType:
        top = name.partition(".")[0]
        if level or not self.owns(top):
            return builtins.__import__(name, globals, locals, fromlist, level)
        try:
            module = builtins.__import__(f"{self.package}.{name}", globals, locals, fromlist)
        except ModuleNotFoundError as exc:  # said as the bot wrote it, not under its package
            if exc.name is None or not exc.name.startswith(f"{self.package}."):
                raise
            missing = exc.name[len(self.package) + 1:]
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing) from None
        return module if fromlist else sys.modules[f"{self.package}.{top}"]

    def owns(self, top: str) -> bool:
        """Whether ``top`` is a module of the bot's directory that nothing before it is."""
        own = self._own.get(top)
        if own is None:
            own = self._own[top] = (
                top != _KIT
                and importlib.machinery.PathFinder.find_spec(top, [self.home]) is not None
                and not _found_elsewhere(top, _finder.homes()))
        return own


def _found_elsewhere(top: str, homes: set[str]) -> bool:
    """Whether ``top`` imports from outside every loaded bot's directory (the caller's path
    may hold one: run from inside it)."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):  # a module without a spec (__main__): it is there
        return True
    if spec is None:
        return False
    if spec.submodule_search_locations:  # a package: the directory that holds it
        places = {os.path.dirname(place) for place in spec.submodule_search_locations}
    elif spec.has_location and spec.origin:
        places = {os.path.dirname(spec.origin)}
    else:  # built in, frozen
        return True
    return not {os.path.realpath(place) for place in places} <= homes


class _OwnBuiltins(Loader):
    """A loader that gives the module it runs the bot's ``import`` before running it."""

    def __init__(self, loader: Loader, imports: _BotImports) -> None:
        self.loader = loader
        self.imports = imports

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__["__builtins__"] = self.imports.builtins
        self.loader.exec_module(module)

    def __getattr__(self, name: str) -> Any:  # get_source and the like, for tracebacks
        return getattr(self.loader, name)


class _BotFinder(MetaPathFinder):
    """Finds the bot modules under this package, and their helpers under each."""

    def __init__(self) -> None:
        self.bots: dict[str, _BotImports] = {}

    def homes(self) -> set[str]:
        """The directories of the bots loaded here."""
        return {imports.home for imports in self.bots.values()}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if not fullname.startswith(_PREFIX):
            return None
        bot = _PREFIX + fullname[len(_PREFIX):].partition(".")[0]
        if bot == fullname:
            return self._bot_spec(bot)
        imports = self.bots.get(bot)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if imports is None or spec is None or spec.loader is None:
            return spec
        spec.loader = _OwnBuiltins(spec.loader, imports)
        return spec

    def _bot_spec(self, name: str) -> ModuleSpec | None:
        file = _file_of(name)
        if file is None:
            return None
        if not file.is_file():  # a bot's object pickled where its file was, loaded elsewhere
            raise BotLoadError(f"bot module {file} not found (a bot loaded in-process is "
                               "found again at the path of its file)")
        imports = self.bots[name] = _BotImports(name, file.parent)
        loader = _OwnBuiltins(importlib.machinery.SourceFileLoader(name, str(file)), imports)
        return importlib.util.spec_from_file_location(
            name, file, loader=loader, submodule_search_locations=[str(file.parent)])


_finder = _BotFinder()


def _install() -> None:
    """Put the finder first on ``sys.meta_path`` (before the path finder, which would find
    a bot's helpers without the bot's ``import``); it answers only names under this package."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


_install()
