"""Palaestra Arena: the reference rules engine for Palaestra and an arena for its bots."""

from arena.errors import ArenaError

__all__ = ["ArenaError", "__version__"]
__version__ = "0.1.0"
