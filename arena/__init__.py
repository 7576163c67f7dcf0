# ruff: noqa: E402  (the stale-build rule must run before any other arena import)
"""Palaestra Arena: the reference rules engine for Palaestra and an arena for its bots."""

from arena.native import remove_stale_build

remove_stale_build()  # never run a compiled module older than its source (arena/native.py)

from arena.errors import ArenaError

__all__ = ["ArenaError", "__version__"]
__version__ = "0.1.0"
