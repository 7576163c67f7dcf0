"""The rule of a bot's name (arena.common.names): what docs/BOTS.md "Names" says, exactly."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from arena.common.lookalike import disguise
from arena.common.names import check_name, name_problem, shown_names
from arena.errors import BotError, BotNameError

#: The characters the docs call invisible though Unicode calls them letters or marks.
_FILLERS = {"\u3164", "\u115f", "\u1160", "\uffa0", "\u034f", "\u17b4", "\u17b5",
            *map(chr, range(0x180B, 0x1810)), *map(chr, range(0xFE00, 0xFE10)),
            *map(chr, range(0xE0100, 0xE01F0))}


def _documented(name: str) -> bool:
    """docs/BOTS.md's table, read plainly: 1-40 letters (of any script), digits, '_', '-' or
    '.', starting with a letter or digit, its own NFKC form, not mixing ASCII letters with
    letters drawn like them, not the registry's file."""
    def letter(char: str) -> bool:
        return (char.isalpha() or char.isdecimal()) and char not in _FILLERS

    def mark(char: str) -> bool:  # goes with the letter before it
        return unicodedata.category(char) in ("Mn", "Mc") and char not in _FILLERS

    return (name not in ("registry", "registry.yaml") and 1 <= len(name) <= 40
            and letter(name[0]) and all(letter(c) or mark(c) or c in "_-." for c in name[1:])
            and unicodedata.normalize("NFKC", name) == name and disguise(name) is None
            and _drawn_as_stored(name))


def _drawn_as_stored(name: str) -> bool:
    """The table's rows on drawing: at most two stacked (non-spacing) marks on a letter, digits
    0-9, right-to-left letters with no digits nor left-to-right letters, one alphabet of those
    drawn alike."""
    stacks = [(base, [m for m in run if unicodedata.category(m) in ("Mn", "Mc")])
              for base, run in _mark_runs(name)]
    rtl = {c for c in name if unicodedata.bidirectional(c) in ("R", "AL")}
    alphabets = {unicodedata.name(c, "?").split()[0] for c in name if c.isalpha()} & {
        "LATIN", "GREEK", "CYRILLIC", "ARMENIAN", "COPTIC", "CHEROKEE"}
    return (all(not run or (base.isalpha() and sum(unicodedata.category(m) == "Mn"
                                                   for m in run) <= 2) for base, run in stacks)
            and all(c in "0123456789" for c in name if c.isdecimal())
            and (not rtl or all(unicodedata.bidirectional(c) in ("R", "AL", "NSM") or c in "_-."
                                for c in name))
            and len(alphabets) <= 1)


def _mark_runs(name: str) -> list[tuple[str, str]]:
    """Each character that is no mark, with the marks after it."""
    runs: list[tuple[str, str]] = []
    for char in name:
        if unicodedata.category(char) in ("Mn", "Mc") and runs:
            runs[-1] = (runs[-1][0], runs[-1][1] + char)
        else:
            runs.append((char, ""))
    return runs


_ODD = ("aZ09_-.é\u0308 @|/:\\=+\t\n\u0435\u043e\uff52\u3164\u200b\u00a0\u674e\u0928\u094d"
        "\u0131\u0251\ufe0f\u00b2\u0661\u0300\u0301\u093f\u0e01\u0e48\u05d3\u0627\u0416"
        "\u03ba\u03c0")


@given(st.text(alphabet=st.sampled_from(_ODD), max_size=44)
       | st.text(alphabet=st.characters(codec="utf-8"), max_size=44))
@example("\U00017000")  # a letter without a name in Python's tables (Tangut)
def test_the_rule_accepts_exactly_what_the_docs_table_says(name: str) -> None:
    problem = name_problem(name)
    assert (problem is None) == _documented(name), (name, problem)
    if problem is not None:
        assert problem.startswith("bot name ") and "\n" not in problem
        with pytest.raises(BotNameError, match="^bot name "):
            check_name(name)


@pytest.mark.parametrize("name", ["greedy", "own-sigusr1", "ismcts40", "random-2", "a.b_c",
                                  "J\u00fcrgen", "\u0416\u0435\u043d\u044f", "\u674e\u96f7",
                                  "I\u015f\u0131k", "\u0251lice", "x" * 40,
                                  "\u091c\u093c\u093f\u0902\u0926\u0917\u0940",
                                  "\u0e01\u0e35\u0e48", "\u05d3\u05e0\u05d9_\u05db\u05d4\u05df",
                                  "\u03ba\u03ac\u03c0\u03c0\u03b1", "bot\u674e"])
def test_the_names_the_arena_and_its_docs_use_are_names(name: str) -> None:
    assert name_problem(name) is None
    check_name(name)


@pytest.mark.parametrize(("name", "problem"), [
    ("Mon bot", "bot name 'Mon bot' is not allowed: use 1-40 letters, digits, '_', '-' or '.', "
                "starting with a letter or digit"),
    ("x" * 41, f"bot name '{'x' * 41}' is not allowed: use 1-40 letters, digits, '_', '-' or "
               "'.', starting with a letter or digit"),
    ("registry", "bot name 'registry' is reserved (the bots directory's registry.yaml)"),
    ("greedy\u3164", "bot name 'greedy\u3164' ('greedy\\u3164') is not allowed: use 1-40 "
                     "letters, digits, '_', '-' or '.', starting with a letter or digit"),
    ("\uff52\uff41\uff4e\uff44\uff4f\uff4d",
     "bot name '\uff52\uff41\uff4e\uff44\uff4f\uff4d' ('\\uff52\\uff41\\uff4e\\uff44\\uff4f"
     "\\uff4d') is not allowed: use 1-40 letters, digits, '_', '-' or '.', starting with a "
     "letter or digit, in plain letters ('random', not a styled or decomposed form of it)"),
    ("gr\u0435\u0435dy", "bot name 'gr\u0435\u0435dy' ('gr\\u0435\\u0435dy') is not allowed: "
                         "it mixes U+0435 CYRILLIC SMALL LETTER IE (drawn like 'e') into "
                         "ASCII letters"),
    ("Zal\u0300\u0301\u0302go", "bot name 'Zal\u0300\u0301\u0302go' ('Zal\\u0300\\u0301"
     "\\u0302go') is not allowed: a combining mark goes with a letter, at most 2 stacked on "
     "one (U+0302 COMBINING CIRCUMFLEX ACCENT is drawn over its neighbours)"),
    ("bot\u0661", "bot name 'bot\u0661' ('bot\\u0661') is not allowed: its digits are 0-9 "
                  "(U+0661 ARABIC-INDIC DIGIT ONE reads as another)"),
    ("abc-\u05d3\u05e0\u05d9-12",
     "bot name 'abc-\u05d3\u05e0\u05d9-12' ('abc-\\u05d3\\u05e0\\u05d9-12') is not allowed: "
     "right-to-left letters (U+05D3 HEBREW LETTER DALET) go with no digits nor left-to-right "
     "letters (they would be drawn in another order than written)"),
    ("\u041a\u03ac\u03c0\u03c0\u03b1",
     "bot name '\u041a\u03ac\u03c0\u03c0\u03b1' ('\\u041a\\u03ac\\u03c0\\u03c0\\u03b1') is "
     "not allowed: it mixes Cyrillic and Greek letters (alphabets drawn alike: write it in "
     "one of them)"),
])
def test_a_refusal_names_the_rule(name: str, problem: str) -> None:
    assert name_problem(name) == problem
    with pytest.raises(BotNameError) as info:
        check_name(name)
    assert str(info.value) == problem and isinstance(info.value, BotError)


def test_a_name_in_another_script_is_registered_and_found(tmp_path: Path) -> None:
    """The registry took ASCII alone, so a student could enter her own name by path but not
    submit it; one rule lets her do both."""
    from arena.registry import registered_names, resolve, submit

    source = tmp_path / "mine.py"
    source.write_text("from arena.sdk import Bot\n\n\nclass Mine(Bot):\n    name = 'mine'\n")
    bots = tmp_path / "bots"
    name = "\u0416\u0435\u043d\u044f"
    passing = SimpleNamespace(ok=True, failures=lambda: [])
    registered = submit(source, name=name, bots_dir=bots, check=lambda spec: passing)
    assert registered.name == name and registered_names(bots) == [name]
    assert resolve(name, bots).version == registered.version


def test_a_label_shows_its_name_alone_unless_two_versions_of_the_bot_are_shown() -> None:
    labels = ["greedy@v1", "random@v1", "greedy@v2", "al@home@v3"]
    assert shown_names(labels) == {"greedy@v1": "greedy@v1", "random@v1": "random",
                                   "greedy@v2": "greedy@v2", "al@home@v3": "al@home"}
