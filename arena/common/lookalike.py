"""Names that look alike: two names a reader cannot tell apart share a key of :func:`skeletons`.

A short form of the confusable skeleton of Unicode TR39: NFKC (fullwidth and styled letters
become plain ones), the letters of other scripts that are drawn like a Latin letter or a digit
(Cyrillic and Greek above all) made that letter, and case folded. It is a table of the usual
look-alikes, not TR39's whole list (which ships with ICU, or the ``confusables`` packages):
it tells apart what differs to the eye, such as accents ('Jürgen' is not 'Jurgen') and whole
names in another script, so a student may write her name in her own script.

ASCII alone has look-alikes too, and TR39 maps them: ``1`` and ``l``, ``0`` and ``O``,
``rn`` and ``m``, and a capital ``I`` and a small ``l`` (one stroke in the sans-serif fonts of
the leaderboard pages). They are mapped: ``bot1`` and ``botl``, or ``AI`` and ``Al``, in one
leaderboard are two rows a reader takes for one, and the names an author picks for distinct
bots differ in more than one such stroke (a refusal costs a rename; a pair let through,
every later reading). The small ``i`` is not one of them (its dot tells it apart), and as
case is folded too (``AI`` is ``ai`` but for case) a capital ``I`` is compared both ways: as
``l`` and as ``i``, hence two keys per name rather than one; digits never look like each
other, so numbered versions (``bot1``, ``bot10``) stay apart.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

__all__ = ["disguise", "look_alike", "look_alike_of", "looks_like", "skeleton", "skeletons",
           "spelled"]

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


#: The digits drawn like a letter (TR39's prototypes, folded); ``rn`` is read as ``m`` too.
_ASCII = {ord("0"): "o", ord("1"): "l"}


def skeleton(name: str) -> str:
    """What ``name`` looks like, case folded, to compare with another's (equal: a reader may
    take one for the other); :func:`skeletons` adds the capital I read as an l."""
    text = unicodedata.normalize("NFKC", name).translate(_LOOKS_LIKE)
    # folded, then mapped again: a capital of the table folds to a small letter of it
    text = unicodedata.normalize("NFKC", text.casefold()).translate(_LOOKS_LIKE)
    return text.translate(_ASCII).replace("rn", "m")


def skeletons(name: str) -> tuple[str, str]:
    """The keys of ``name``: another name sharing one looks like it. The capital I counts
    once as an i (its small letter) and once as an l (its shape)."""
    shape = unicodedata.normalize("NFKC", name).translate(_LOOKS_LIKE).replace("I", "l")
    return skeleton(name), skeleton(shape)


def look_alike(name: str, other: str) -> bool:
    """Whether a reader may take ``name`` for ``other``."""
    return bool(set(skeletons(name)) & set(skeletons(other)))


def look_alike_of(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` a reader may take ``name`` for (``name`` itself aside), or
    None."""
    return next((other for other in others if other != name and look_alike(name, other)), None)


def spelled(name: str) -> str:
    """``name``, and its code points escaped where it holds more than ASCII (where two
    look-alike names differ)."""
    return name if name.isascii() else f"{name} ({ascii(name)})"


def looks_like(name: str, twin: str, whose: str) -> str:
    """The words of a warning that ``name`` looks like ``twin`` (``whose`` name it is: "a
    registered bot"), said where the two are not refused: a new bot's name beside one
    entered before it, which a refusal would bar for good."""
    return (f"the name {spelled(name)} looks like {spelled(twin)}, {whose} (the same letters "
            "to the eye, or but for case)")


def _drawn_like(char: str) -> str | None:
    """The ASCII letter or digit a character other than ASCII is drawn like, if any."""
    if char.isascii():
        return None
    plain = unicodedata.normalize("NFKC", char).translate(_LOOKS_LIKE)
    return plain if len(plain) == 1 and plain.isascii() and plain.isalnum() else None


def disguise(name: str, known: Iterable[str] = ()) -> str | None:
    """Why ``name`` would pass for an ASCII name it is not, naming the code points that do
    it, or None. A name that mixes ASCII letters with letters of other scripts drawn like
    them ('grееdy' with Cyrillic 'е') does, whatever else is registered (Unicode TR39 calls
    it mixed-script confusable); a name wholly of such letters does when it looks like one
    of ``known`` (the registered names). Accents and names in another script are their own;
    an ASCII name never passes for another here (:func:`look_alike` compares those)."""
    drawn = {char: like for char in name if (like := _drawn_like(char)) is not None}
    if not drawn:
        return None
    letters = ", ".join(f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')} (drawn like "
                        f"'{like}')" for char, like in drawn.items())
    # a Latin letter of another shape ('ı' in 'Işık') is the name's own script
    if any(char.isascii() and char.isalpha() for char in name) and any(
            not unicodedata.name(char, "").startswith("LATIN ") for char in drawn):
        return f"mixes {letters} into ASCII letters"
    if (twin := look_alike_of(name, known)) is not None:
        return f"passes for {twin}: {letters}"
    return None
