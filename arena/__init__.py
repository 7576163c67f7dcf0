# ruff: noqa: E402  (the build check must run before any other arena import)
"""Palaestra Arena: the reference rules engine for Palaestra and an arena for its bots."""

from arena.native import use_sources_if_stale

use_sources_if_stale()  # before any other arena import: never run a stale compiled build

from arena.errors import ArenaError

__all__ = ["ArenaError", "__version__"]
__version__ = "0.1.0"
