"""A bot's name: the one rule of what a bot entering results may be called (docs/BOTS.md,
"Names").

A name is 1-40 letters (of any script), digits, ``_``, ``-`` or ``.``, starting with a letter
or digit; it is the registry's file name, a command-line argument and a cell of every table,
so it holds no space, no ``@`` (the separator of ``name@version``), no ``|`` (a Markdown
table's) and no start a spreadsheet runs as a formula. It is written in plain letters: a
styled or decomposed form (fullwidth ``ｒａｎｄｏｍ``, ``u`` and a combining diaeresis) shows
like the plain one, so a name must be its own NFKC form; and it does not mix ASCII letters
with letters of another script drawn like them (``grееdy`` with Cyrillic ``е``,
:func:`arena.common.lookalike.disguise`). Whether a name looks like another entrant's is the
look-alike checks' business, beside the names it is compared with.

Only a new entry is checked (``arena submit``, a new tournament's entrants, a league's
newcomers, ``arena match`` and ``arena play``): a database from before the rule may hold
names it refuses, and its tournaments still show and resume.
"""

from __future__ import annotations

import unicodedata

from arena.common.lookalike import disguise
from arena.errors import BotNameError

__all__ = ["MAX_NAME_LENGTH", "NAME_RULE", "RESERVED_NAMES", "check_name", "name_problem"]

MAX_NAME_LENGTH = 40
#: What a name may be, as every refusal says it.
NAME_RULE = (f"use 1-{MAX_NAME_LENGTH} letters, digits, '_', '-' or '.', starting with a "
             "letter or digit")
#: The bots directory's own file: a directory bot's files go to ``bots/<name>``.
RESERVED_NAMES = ("registry", "registry.yaml")
#: Letters and digits (a mark goes with the letter before it: Devanagari, decomposed forms).
_LETTERS = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_MARKS = frozenset({"Mn", "Mc"})
#: Letters and marks that show nothing: the blank fillers of Hangul, the combining grapheme
#: joiner, the Khmer inherent vowels, variation selectors ('greedy\u3164' shows as 'greedy').
_BLANK = frozenset({0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x3164,
                    *range(0xFE00, 0xFE10), 0xFFA0, *range(0xE0100, 0xE01F0)})


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a new bot's name (one line, naming the rule), or None."""
    shown = repr(name) if name.isascii() else f"{name!r} ({ascii(name)})"
    if name in RESERVED_NAMES:
        return f"bot name {shown} is reserved (the bots directory's registry.yaml)"
    if not _made_of_allowed_characters(name):
        return f"bot name {shown} is not allowed: {NAME_RULE}"
    if (plain := unicodedata.normalize("NFKC", name)) != name:
        return (f"bot name {shown} is not allowed: {NAME_RULE}, in plain letters ({plain!r}, "
                "not a styled or decomposed form of it)")
    if (disguised := disguise(name)) is not None:
        return f"bot name {shown} is not allowed: it {disguised}"
    return None


def check_name(name: str) -> None:
    """Raise :class:`~arena.errors.BotNameError` when ``name`` cannot be a new bot's name."""
    if (problem := name_problem(name)) is not None:
        raise BotNameError(problem)


def _made_of_allowed_characters(name: str) -> bool:
    if not 1 <= len(name) <= MAX_NAME_LENGTH or _kind(name[0]) != "letter":
        return False
    return all(_kind(char) in ("letter", "mark") or char in "_-." for char in name[1:])


def _kind(char: str) -> str:
    """``letter`` (a letter or decimal digit), ``mark`` (combining) or ``other``."""
    if ord(char) in _BLANK:
        return "other"
    category = unicodedata.category(char)
    return "letter" if category in _LETTERS else "mark" if category in _MARKS else "other"
