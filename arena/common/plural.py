"""Counted nouns for messages: ``1 game``, ``4 games``, never ``game(s)``."""

from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``plural``, else ``noun + "s"``) unless n is 1."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
