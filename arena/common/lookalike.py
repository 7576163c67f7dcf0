"""Names that look alike: :func:`skeleton` is equal for two names a reader cannot tell apart.

A short form of the confusable skeleton of Unicode TR39: NFKC (fullwidth and styled letters
become plain ones), the letters of other scripts that are drawn like a Latin letter or a digit
(Cyrillic and Greek above all) made that letter, and case folded. It is a table of the usual
look-alikes, not TR39's whole list (which ships with ICU, or the ``confusables`` packages):
it tells apart what differs to the eye, such as accents ('Jürgen' is not 'Jurgen') and whole
names in another script, so a student may write her name in her own script.
"""

from __future__ import annotations

import unicodedata

__all__ = ["skeleton", "spelled"]

#: Each letter drawn like the ASCII character after it (TR39's prototypes, in their case).
_LOOKS_LIKE = {ord(a): b for a, b in zip(
    # Cyrillic capitals, then small letters
    "АВЕЅІЈКМНОРСТХҮӀԚԜЗ" "аеѕіјԁһӏорсухԛԝгпѵ"
    # Greek capitals, then small letters
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ" "αικνορυχϲϳ"
    # Latin letters of other shapes, Armenian
    "ıɑɡǀɩʏᴏᴄᴠᴡᴢ" "օսհո",
    "ABESIJKMHOPCTXYIQW3" "aesijdhlopcyxqwrnv"
    "ABEZHIKMNOPTYX" "aikvopuxcj"
    "iagliyocvwz" "ouhn", strict=True)}


def skeleton(name: str) -> str:
    """What ``name`` looks like, to compare with another's (equal: a reader may take one for
    the other)."""
    text = unicodedata.normalize("NFKC", name).translate(_LOOKS_LIKE)
    # folded, then mapped again: a capital of the table folds to a small letter of it
    return unicodedata.normalize("NFKC", text.casefold()).translate(_LOOKS_LIKE)


def spelled(name: str) -> str:
    """``name``, and its code points escaped where it holds more than ASCII (where two
    look-alike names differ)."""
    return name if name.isascii() else f"{name} ({ascii(name)})"
