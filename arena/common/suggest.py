""""Did you mean ...?" for a name a user typed: a spec field, a bot.yaml key, a bot."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from arena.common.printable import quoted_word

__all__ = ["closest", "did_you_mean"]


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice ``word`` most likely misspells, or None when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or nothing when none is close."""
    match = closest(word, choices)
    return f" (did you mean {quoted_word(match)}?)" if match is not None else ""
