"""Text from bots is escaped before anything prints it: no control character reaches a
terminal (arena.common.printable)."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.common.printable import (
    printable,
    printable_log,
    quoted_command,
    quoted_word,
    shell_word,
)
from arena.protocol import messages

ROOT = Path(__file__).resolve().parents[1]


def _unsafe(char: str) -> bool:
    code = ord(char)
    return (code < 0x20 or 0x7F <= code < 0xA0 or code in (0x061C, 0x200E, 0x200F)
            or 0x2028 <= code <= 0x202E or 0x2066 <= code <= 0x2069)


def test_printable_text_is_one_line_to_python_too() -> None:
    """A bot's exception with a line separator (U+2028) reached the csv whole: a program
    reading it by lines (str.splitlines) started a row in the middle, at the bot's text."""
    assert printable("x\u2028=1+2\u2029y").splitlines() == ["x\\u2028=1+2\\u2029y"]


def test_escape_sequences_become_visible_text() -> None:
    assert printable("\x1b[2J\x1b]0;title\x07ok") == "\\x1b[2J\\x1b]0;title\\x07ok"
    assert printable("a\nb\tc\u202ed") == "a\\x0ab\\x09c\\u202ed"
    assert printable_log("line 1\r\nline\t2\rfake\n\x9b31m") == (
        "line 1\nline\t2\\x0dfake\n\\x9b31m")
    assert printable("Ἀθηνᾶ — plain text") == "Ἀθηνᾶ — plain text"


@given(st.text())
def test_nothing_unsafe_survives(text: str) -> None:
    assert not any(_unsafe(c) for c in printable(text))
    assert not any(_unsafe(c) and c not in "\n\t" for c in printable_log(text))
    safe = "".join(c for c in text if not _unsafe(c) and c not in _INVISIBLE)
    assert printable(safe) == safe  # what was safe is left alone


#: The format characters (Cf) that draw nothing, as Unicode lists them today
_INVISIBLE = {chr(c) for c in (0xAD, 0x180E, *range(0x200B, 0x200E), *range(0x2060, 0x2065),
                               *range(0x206A, 0x2070), 0xFEFF, *range(0xFFF9, 0xFFFC),
                               *range(0x1BCA0, 0x1BCA4), *range(0x1D173, 0x1D17B), 0xE0001,
                               *range(0xE0020, 0xE0080))}


def test_the_invisible_characters_are_format_characters() -> None:
    import unicodedata

    assert {unicodedata.category(c) for c in _INVISIBLE} == {"Cf"}


@given(st.text())
def test_no_invisible_character_survives_outside_a_sequence(text: str) -> None:
    """Only a joiner between two emoji or two letters of a joining script, or a flag's tag,
    is left as it is."""
    for shown in (printable(text), printable_log(text)):
        assert {c for c in shown if c in _INVISIBLE} <= {"\u200c", "\u200d",
                                                          *map(chr, range(0xE0020, 0xE0080))}


@pytest.mark.parametrize(("text", "shown"), [
    ("ze\u200bro", "ze\\u200bro"), ("zer\u2060o\ufeff", "zer\\u2060o\\ufeff"),
    ("soft\xadhyphen", "soft\\xadhyphen"), ("Fa\u200dce", "Fa\\u200dce"),
    ("\u200d", "\\u200d"), ("x\U000e0067", "x\\U000e0067"),
    ("\U0001f469\u200d\U0001f4bb", "\U0001f469\u200d\U0001f4bb"),  # woman technologist
    ("\u2764\ufe0f\u200d\U0001f525", "\u2764\ufe0f\u200d\U0001f525"),  # heart on fire
    ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
     "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"),  # a Persian word's ZWNJ
    ("\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
     "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"),  # England
])
def test_an_invisible_character_is_escaped_unless_a_sequence_is_drawn_with_it(
        text: str, shown: str) -> None:
    assert printable(text) == shown


def test_ready_name_and_metadata_are_escaped() -> None:
    name, meta = messages.parse_ready({"type": "ready", "name": "evil\x1b[2J",
                                       "author": "\x1b]8;;http://x\x07Ann\u202e"})
    assert name == "evil\\x1b[2J" and meta == {"author": "\\x1b]8;;http://x\\x07Ann\\u202e"}


def test_a_bot_with_escapes_everywhere_prints_none(tmp_path: Path) -> None:
    """Its module name and metadata, its ready, its log: all escaped in the match outcome."""
    from arena.referee.match import MatchRequest, play_match
    from arena.registry import resolve
    from arena.sandbox import Limits, probe

    if not probe().can_run:
        import pytest
        pytest.skip("bots cannot run on this machine")
    bot = tmp_path / "esc.py"
    bot.write_text(
        'from arena.sdk import Bot\n'
        'class Esc(Bot):\n'
        '    name = "esc\\x1b[2J"\n'
        '    author = "\\x1b]0;pwned\\x07"\n'
        '    def act(self, request):\n'
        '        self.log("\\x1b[31mred\\u202e\\r\\x1b[Afake line")\n'
        '        return 0\n')
    spec = resolve(bot)
    assert spec.name == "esc\\x1b[2J" and spec.metadata["author"] == "\\x1b]0;pwned\\x07"
    outcome = play_match(MatchRequest(bots=[spec, resolve(ROOT / "bots" / "random.py")],
                                      games=1, seed=1, limits=Limits(),
                                      event_date=dt.date(2026, 11, 30)))
    game = outcome.games[0]
    log = game.record["referee"]["logs"]["0"]
    assert "\\x1b[31mred\\u202e\\x0d\\x1b[Afake line" in log
    texts = [log, *game.names, *(str(v) for b in outcome.bots for v in b.values())]
    assert not any(_unsafe(c) and c not in "\n\t" for text in texts for c in text)


def test_json_escaped_is_the_same_json_with_no_control_character_left() -> None:
    import json

    from arena.common.printable import json_escaped

    value = {"name": "a\x1b[2J\x9b\u202e\u2028\x7fb", "plain": "ünï"}
    text = json_escaped(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    assert not [c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0
                or c in "\u202e\u2028"]
    assert "ünï" in text


#: Names a handed database or a hand-edited registry.yaml may hold, and plain ones.
_WORDS = ["alpha", "Mon bot", "it's", "al\x1b[2Jice", "bob\u202e", "ze\u200bro", "a\\b\x07'",
          "漢字", "$HOME;rm", "cup\x1b]0;retitled\x07/r0/t0/g0", "\U000e0001tag"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
def test_a_shell_word_pastes_back_as_the_name_it_shows() -> None:
    """A hint quoted the escaped name (``al\\x1b[2Jice``): pasted, it named no bot."""
    for word in _WORDS:
        pasted = shell_word(word)
        assert printable(pasted) == pasted and pasted.isprintable(), pasted
        echoed = subprocess.run(["bash", "-c", f"printf %s {pasted}"], capture_output=True,
                                check=True, env={"LC_ALL": "C.UTF-8"}).stdout
        assert echoed.decode() == word, pasted
    assert shell_word("alpha") == "alpha" and quoted_word("alpha") == "'alpha'"
    assert quoted_word("al\x1b[2Jice") == "$'al\\x1b[2Jice'"
    assert quoted_command("arena bots remove", "gone") == "'arena bots remove gone'"
    assert quoted_command("arena bots remove", "ze\u200bro") == "arena bots remove $'ze\\u200bro'"
