"""The bot kit: a copy of the ``arena`` package that bots' interpreters import.

The bots' interpreter must import ``arena`` (the kit, ``arena.sdk``) from a place the bot user
can read, and the repository may not be one (e.g. under ``/root``). So the ``arena`` package's
``*.py`` files are copied once per process into a fresh root-owned, world-readable
``/tmp/arena-kit-XXXX/arena`` (removed at exit); ``kit_env()`` (:mod:`arena.sandbox.probe`)
points PYTHONPATH at it. The compiled engine's extension modules go too: a bot interpreter of
the same Python minor version loads them (the engine's own guard still falls back to the
sources when they are stale or built for another version); where it cannot, the probe gives
bots a kit of the sources alone.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import tempfile
from pathlib import Path

import arena
from arena.sandbox.workdir import freeze_atimes, remove_at_exit

__all__ = ["kit_path", "make_kit"]

_kit: Path | None = None

#: What the kit holds: sources, markers, the build record, and compiled extension modules.
_SOURCE_FILES = (".py", ".typed", ".json")
_KIT_FILES = (*_SOURCE_FILES, *importlib.machinery.EXTENSION_SUFFIXES)


def kit_path() -> Path:
    """The read-only copy of the ``arena`` package's parent directory (made on first use)."""
    global _kit
    if _kit is None or not _kit.exists():
        _kit = make_kit()
    return _kit


def make_kit(extensions: bool = True) -> Path:
    """A world-readable copy of the ``arena`` package; without ``extensions``, the sources
    alone (for bots whose interpreter cannot load the compiled engine)."""
    wanted = _KIT_FILES if extensions else _SOURCE_FILES
    source = Path(arena.__file__).resolve().parent
    root = Path(tempfile.mkdtemp(prefix=f"arena-kit-{os.getpid()}-"))
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = [d for d in dirnames if d != "__pycache__" and not d.startswith(".")]
        rel = Path(dirpath).relative_to(source)
        target = root / "arena" / rel
        target.mkdir(parents=True, exist_ok=True)
        os.chmod(target, 0o755)
        for name in filenames:
            if name.endswith(wanted) and (extensions or name != "_build.json"):
                shutil.copyfile(Path(dirpath) / name, target / name)
                os.chmod(target / name, 0o644)
    os.chmod(root, 0o755)
    freeze_atimes(root)
    remove_at_exit(root)
    return root
