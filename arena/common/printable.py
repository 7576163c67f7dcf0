"""Text that came from a bot, made safe to print on an operator's terminal.

A bot controls its log, its ``ready`` name and metadata, and the names in its manifest or
module. Printed raw, an escape sequence in any of them could clear the screen, retitle the
window, fake a line of the referee's output or hide text (bidi overrides); a zero-width
character draws one name as another (``ze\\u200bro`` as ``zero``), and is escaped too,
except where a visible sequence needs it (an emoji's joiner, a Persian word's). Such text is
escaped where it enters the arena (the sandbox's log capture, ``ready``, the registry), so
every table, record and report holds only the visible form (``\\x1b`` for ESC). A database
or records file made elsewhere never passed that entry: the commands that print one escape
it as they print, a table's cells before it is laid out (``arena.common.fitting``), so that
the table's columns are measured on the text it shows.
"""

from __future__ import annotations

import re
import reprlib
import shlex
import unicodedata

__all__ = ["brief_repr", "controls_escaped", "isolated", "json_escaped", "printable",
           "printable_log", "quoted_command", "quoted_word", "shell_word"]

#: C0 controls, DEL, C1 controls, the line and paragraph separators (a line's end to Python's
#: splitlines, and so to a program reading a csv by lines) and the bidirectional-text controls.
_UNSAFE = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
           *range(0x202A, 0x202F), *range(0x2066, 0x206A)]


def _escaped_code(code: int) -> str:
    """A code point as Python and bash's ``$'...'`` write it: ``\\x1b``, ``\\u200b``,
    ``\\U000e0001``."""
    return (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
            else f"\\U{code:08x}")


_ONE_LINE = {c: _escaped_code(c) for c in _UNSAFE}
_LOG = {c: text for c, text in _ONE_LINE.items() if c not in (0x09, 0x0A)}
#: json.dumps escapes the C0 controls in a text itself, and writes its own lines between values
_JSON = {c: f"\\u{c:04x}" for c in _UNSAFE if c >= 0x7F}


#: The format characters (Unicode category Cf) that draw nothing, beyond the controls above:
#: a name holding a zero-width space (``ze\u200bro``) is drawn as another (``zero``). Not
#: the format characters drawn as signs (Arabic number signs, Egyptian hieroglyph controls).
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200d\u2060-\u2064\u206a-\u206f\ufeff"
                        "\ufff9-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                        "\U000e0001\U000e0020-\U000e007f]")
_ZWNJ, _ZWJ, _BLACK_FLAG, _TAGS = "\u200c", "\u200d", "\U0001f3f4", range(0xE0020, 0xE0080)


def _joined_letters(before: str, after: str) -> bool:
    """Letters (or marks) of the scripts a joiner shapes (Hebrew onwards: Arabic, Indic, ...)
    on both sides: ``\u200c`` in a Persian word is part of its spelling."""
    return all(unicodedata.category(c)[0] in "LM" and ord(c) >= 0x0590 for c in (before, after))


def _emoji(char: str, *, modified: bool) -> bool:
    """A pictograph (``modified``: or the variation selector or skin tone that ends one)."""
    return (unicodedata.category(char) == "So" and ord(char) >= 0x2000) or (
        modified and (char == "\ufe0f" or 0x1F3FB <= ord(char) <= 0x1F3FF))


def _drawn_in_sequence(text: str, at: int) -> bool:
    """Whether the format character at ``text[at]`` is part of a sequence drawn as one sign:
    a joiner inside an emoji (``👩\u200d💻``) or a word of a joining script, a tag inside a
    subdivision flag (England's: the black flag, tags, then the cancel tag)."""
    char = text[at]
    before, after = text[at - 1:at] if at else "", text[at + 1:at + 2]
    if char in (_ZWJ, _ZWNJ) and before and after:
        return (char == _ZWJ and _emoji(before, modified=True)
                and _emoji(after, modified=False)) or _joined_letters(before, after)
    if ord(char) in _TAGS:
        start = at
        while start and ord(text[start - 1]) in _TAGS:
            start -= 1
        return start > 0 and text[start - 1] == _BLACK_FLAG
    return False


def _escaped_invisible(match: re.Match[str]) -> str:
    char = match.group()
    if _drawn_in_sequence(match.string, match.start()):
        return char
    return _escaped_code(ord(char))


def controls_escaped(text: str) -> str:
    """``text`` with its control characters escaped, and nothing else: what a check of a
    new name reads, which refuses an invisible character rather than showing it escaped."""
    return text.translate(_ONE_LINE)


def printable(text: str) -> str:
    """``text`` on one line, every control character escaped, and every format character
    that draws nothing (a zero-width space) where no visible sequence needs it."""
    return _INVISIBLE.sub(_escaped_invisible, controls_escaped(text))


def printable_log(text: str) -> str:
    """A log: lines and tabs kept (``\\r\\n`` read as a line end), any other control
    character escaped, and the format characters that draw nothing as :func:`printable`
    escapes them."""
    return _INVISIBLE.sub(_escaped_invisible, text.replace("\r\n", "\n").translate(_LOG))


def json_escaped(text: str) -> str:
    """JSON text with every control character as a ``\\u`` escape: the same JSON, read back,
    and nothing a terminal would act on (``json.dumps(ensure_ascii=False)`` escapes the C0
    controls but writes the C1 ones and the bidirectional-text controls as they are)."""
    return text.translate(_JSON)


def isolated(text: str) -> str:
    """``text`` (printable) between Unicode's first-strong isolate and its pop, for a name
    shown inside other words where no markup can be (a tooltip, a select's option, an SVG
    label): a right-to-left name keeps to itself instead of reordering the words beside it,
    as HTML's ``<bdi>`` does."""
    return f"\u2068{printable(text)}\u2069"


def _typed_as_shown(char: str) -> bool:
    """Whether ``char`` reaches a shell as it is when copied off a terminal: not a control,
    nor a character that shows nothing (a zero-width space, a bidi mark)."""
    return ord(char) not in _ONE_LINE and unicodedata.category(char) not in ("Cc", "Cf", "Zl",
                                                                            "Zp")


def shell_word(text: str) -> str:
    """``text`` as one word a shell reads back as ``text``, in printable characters: as it is,
    or in single quotes where it holds a space or a quote (``shlex.quote``); where it holds a
    character no one can type or copy off a terminal (a handed database's name with an
    escape sequence, a zero-width space), bash's ``$'...'`` form with those characters
    escaped (``$'al\\x1b[2Jice'``, which bash, zsh and ksh read; a plain ``sh`` does not)."""
    if all(_typed_as_shown(char) for char in text):
        return shlex.quote(text)
    escaped = "".join(char if _typed_as_shown(char) and char not in "\\'"
                      else "\\" + char if char in "\\'"
                      else _escaped_code(ord(char)) for char in text)
    return f"$'{escaped}'"


def quoted_word(text: str) -> str:
    """:func:`shell_word` in quotes where it needs none, for a name quoted in a sentence (``did
    you mean 'alpha'?``) that the reader may paste into a command as it is shown."""
    word = shell_word(text)
    return word if word.startswith(("'", "$'")) else f"'{word}'"


def quoted_command(command: str, word: str) -> str:
    """``command`` and ``word`` (a name) as a sentence quotes the command to paste: in quotes
    (``'arena bots remove alpha'``), or where the word needs quotes of its own, as the
    shell words alone (``arena bots remove $'al\\x1b[2Jice'``)."""
    pasted = shell_word(word)
    return f"'{command} {word}'" if pasted == word else f"{command} {pasted}"


#: A value quoted in a one-line message: a few items of a list or mapping, a few levels deep,
#: the start of a long text. A YAML file's aliases make a list of millions of items from a
#: few lines, whose whole repr took minutes and hundreds of megabytes.
_BRIEF = reprlib.Repr()
_BRIEF.maxlevel, _BRIEF.maxlist, _BRIEF.maxdict, _BRIEF.maxtuple, _BRIEF.maxset = 2, 4, 4, 4, 4
_BRIEF.maxstring, _BRIEF.maxother, _BRIEF.maxlong = 80, 80, 80


def brief_repr(value: object) -> str:
    """``repr(value)`` cut short where it is long or deep (``[[1, 2, 3, 4, ...], ...]``,
    ``'aaaaaa...aaaa'``), in time and space bounded whatever its size."""
    return _BRIEF.repr(value)
