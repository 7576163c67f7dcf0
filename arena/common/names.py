"""A bot's name: the one rule of what a bot entering results may be called (docs/BOTS.md,
"Names").

A name is 1-40 letters (of any script), digits, ``_``, ``-`` or ``.``, starting with a letter
or digit; it is the registry's file name, a command-line argument and a cell of every table,
so it holds no space, no ``@`` (the separator of ``name@version``), no ``|`` (a Markdown
table's) and no start a spreadsheet runs as a formula. It is written in plain letters: a
styled or decomposed form (fullwidth ``ｒａｎｄｏｍ``, ``u`` and a combining diaeresis) shows
like the plain one, so a name must be its own NFKC form; and it does not mix ASCII letters
with letters of another script drawn like them (``grееdy`` with Cyrillic ``е``,
:func:`arena.common.lookalike.disguise`). It is also drawn in the order it is stored, on its
own line: a letter carries at most two combining marks (more are drawn over the rows above
and below), its digits are ``0``-``9`` (Arabic-Indic ``١`` reads as a ``1``), right-to-left
letters take no digits nor left-to-right letters (``abc-דני-12`` is drawn as
``abc-12-דני``), and its letters are of one of the alphabets that share shapes (Cyrillic
``К`` among Greek letters passes for the Greek name). Whether a name looks like another
entrant's is the look-alike checks' business, beside the names it is compared with.

A table names a bot by its name alone, or by its ``name@version`` label where two versions of
it are shown (:func:`shown_names`).

Only a new entry is checked (``arena submit``, a new tournament's entrants, a league's
newcomers, ``arena match`` and ``arena play``): a database from before the rule may hold
names it refuses, and its tournaments still show and resume.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

from arena.common.lookalike import disguise
from arena.errors import BotNameError

__all__ = ["MAX_NAME_LENGTH", "NAME_RULE", "RESERVED_NAMES", "check_name", "name_problem",
           "shown_names"]

MAX_NAME_LENGTH = 40
#: What a name may be, as every refusal says it.
NAME_RULE = (f"use 1-{MAX_NAME_LENGTH} letters, digits, '_', '-' or '.', starting with a "
             "letter or digit")
#: The bots directory's own file: a directory bot's files go to ``bots/<name>``.
RESERVED_NAMES = ("registry", "registry.yaml")
#: Letters and digits (a mark goes with the letter before it: Devanagari, decomposed forms).
_LETTERS = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_MARKS = frozenset({"Mn", "Mc"})
#: Non-spacing marks one letter may carry: Thai's vowel and tone, a Devanagari nukta and
#: nasal (``ज़िं``).
MAX_MARKS = 2
#: Bidirectional classes of right-to-left letters (Hebrew, Arabic, Thaana, Syriac).
_RIGHT_TO_LEFT = frozenset({"R", "AL"})
#: Alphabets whose letters are drawn like each other's (Unicode TR39 refuses mixing them).
_ALIKE_ALPHABETS = frozenset({"LATIN", "GREEK", "CYRILLIC", "ARMENIAN", "COPTIC", "CHEROKEE"})
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
    if (misdrawn := _marks_problem(name) or _digits_problem(name) or _direction_problem(name)
            or _alphabets_problem(name)) is not None:
        return f"bot name {shown} is not allowed: {misdrawn}"
    return None


def check_name(name: str) -> None:
    """Raise :class:`~arena.errors.BotNameError` when ``name`` cannot be a new bot's name."""
    if (problem := name_problem(name)) is not None:
        raise BotNameError(problem)


def _made_of_allowed_characters(name: str) -> bool:
    if not 1 <= len(name) <= MAX_NAME_LENGTH or _kind(name[0]) != "letter":
        return False
    return all(_kind(char) in ("letter", "mark") or char in "_-." for char in name[1:])


def _marks_problem(name: str) -> str | None:
    """A stack of combining marks is drawn over the rows above and below the name's."""
    stacked, on_letter = 0, False
    for char in name:
        if (category := unicodedata.category(char)) not in _MARKS:
            stacked, on_letter = 0, category in _LETTERS - {"Nd"}
        # a spacing mark (a Devanagari vowel sign) takes its own room: only the others stack
        elif not on_letter or (stacked := stacked + (category == "Mn")) > MAX_MARKS:
            return (f"a combining mark goes with a letter, at most {MAX_MARKS} stacked on one "
                    f"({_named(char)} is drawn over its neighbours)")
    return None


def _digits_problem(name: str) -> str | None:
    """A digit of another script passes for an ASCII one or another number."""
    other = next((char for char in name if char.isdecimal() and not char.isascii()), None)
    return None if other is None else f"its digits are 0-9 ({_named(other)} reads as another)"


def _direction_problem(name: str) -> str | None:
    """Right-to-left letters beside digits or left-to-right letters are drawn in an order
    other than the stored one, the same as another name's."""
    rtl = next((char for char in name if unicodedata.bidirectional(char) in _RIGHT_TO_LEFT),
               None)
    if rtl is None or all(unicodedata.bidirectional(char) in _RIGHT_TO_LEFT | {"NSM"}
                          or char in "_-." for char in name):
        return None
    return (f"right-to-left letters ({_named(rtl)}) go with no digits nor left-to-right "
            "letters (they would be drawn in another order than written)")


def _alphabets_problem(name: str) -> str | None:
    """Alphabets sharing shapes, mixed in one name, pass for a name in one of them."""
    alphabets = sorted({alphabet for char in name if char.isalpha()
                        and (alphabet := unicodedata.name(char, "").partition(" ")[0])
                        in _ALIKE_ALPHABETS})
    if len(alphabets) < 2:
        return None
    return (f"it mixes {' and '.join(a.title() for a in alphabets)} letters (alphabets "
            "drawn alike: write it in one of them)")


def _named(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"


def _kind(char: str) -> str:
    """``letter`` (a letter or decimal digit), ``mark`` (combining) or ``other``."""
    if ord(char) in _BLANK:
        return "other"
    category = unicodedata.category(char)
    return "letter" if category in _LETTERS else "mark" if category in _MARKS else "other"


def shown_names(labels: list[str]) -> dict[str, str]:
    """Each ``name@version`` label as a table shows it: the bot's name alone, or the whole
    label where two versions of one bot are among ``labels`` (a league's, or a tournament
    continued with a new version)."""
    def name(label: str) -> str:
        return label.rsplit("@", 1)[0]

    versions = Counter(name(label) for label in set(labels))
    return {label: label if versions[name(label)] > 1 else name(label) for label in labels}
