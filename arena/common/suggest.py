""""Did you mean ...?" for a name a user typed: a spec field, a bot.yaml key, a bot."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from arena.common.printable import quoted_word

__all__ = ["closest", "did_you_mean", "suggestion"]


#: How alike a word and a choice must be (difflib's ratio) for one to be offered: difflib's
#: default paired short names that share only their ending ('trial' and 'final'), while a
#: letter left out, doubled or swapped ('swis', 'gredy', 'nmae') stays above it
CLOSE_ENOUGH = 0.7


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice ``word`` most likely misspells, or None when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=CLOSE_ENOUGH)
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or nothing when none is close."""
    return suggestion(closest(word, choices))


def suggestion(choice: str | None) -> str:
    """`` (did you mean 'x'?)`` for ``choice``, quoted as a shell reads it back, or nothing
    for None."""
    return f" (did you mean {quoted_word(choice)}?)" if choice is not None else ""
