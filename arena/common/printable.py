"""Text that came from a bot, made safe to print on an operator's terminal.

A bot controls its log, its ``ready`` name and metadata, and the names in its manifest or
module. Printed raw, an escape sequence in any of them could clear the screen, retitle the
window, fake a line of the referee's output or hide text (bidi overrides). Such text is
escaped where it enters the arena (the sandbox's log capture, ``ready``, the registry), so
every table, record and report holds only the visible form (``\\x1b`` for ESC). A database
or records file made elsewhere never passed that entry: the commands that print one escape
it as they print, a table's cells before it is laid out (``arena.common.fitting``), so that
the table's columns are measured on the text it shows.
"""

from __future__ import annotations

import shlex
import unicodedata

__all__ = ["isolated", "json_escaped", "printable", "printable_log", "quoted_command",
           "quoted_word", "shell_word"]

#: C0 controls, DEL, C1 controls, the line and paragraph separators (a line's end to Python's
#: splitlines, and so to a program reading a csv by lines) and the bidirectional-text controls.
_UNSAFE = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
           *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ONE_LINE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _UNSAFE}
_LOG = {c: text for c, text in _ONE_LINE.items() if c not in (0x09, 0x0A)}
#: json.dumps escapes the C0 controls in a text itself, and writes its own lines between values
_JSON = {c: f"\\u{c:04x}" for c in _UNSAFE if c >= 0x7F}


def printable(text: str) -> str:
    """``text`` on one line, every control character escaped."""
    return text.translate(_ONE_LINE)


def printable_log(text: str) -> str:
    """A log: lines and tabs kept (``\\r\\n`` read as a line end), any other control
    character escaped."""
    return text.replace("\r\n", "\n").translate(_LOG)


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
                      else f"\\x{ord(char):02x}" if ord(char) < 0x100
                      else f"\\u{ord(char):04x}" if ord(char) < 0x10000
                      else f"\\U{ord(char):08x}" for char in text)
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
