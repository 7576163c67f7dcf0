"""Counted nouns in messages: singular for one, plural otherwise, never ``(s)``."""

from __future__ import annotations

from arena.common.plural import counted


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert [counted(n, "game") for n in (0, 1, 4)] == ["0 games", "1 game", "4 games"]
    assert counted(2, "entry", "entries") == "2 entries"
    assert counted(1, "entry", "entries") == "1 entry"
