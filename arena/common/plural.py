"""Counted nouns for messages: ``1 game``, ``4 games``, never ``game(s)``; ordinals: ``2nd``."""

from __future__ import annotations

__all__ = ["counted", "ordinal"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``plural``, else ``noun + "s"``) unless n is 1."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    teen = 10 <= n % 100 <= 20
    return f"{n}{'th' if teen else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
