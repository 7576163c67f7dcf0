"""A bot's failure text names its files as its author knows them (``author_paths``): the bot
writes that text, so the rewrite reads it once, whatever it holds, and says what the one
regex it replaces said."""

from __future__ import annotations

import random
import re
import types
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

from arena.referee import hints
from arena.referee.hints import author_paths

#: The rewrite as one regex did it: the reference for what the scan says.
_ONE_REGEX = re.compile(r"(?<![\w./-])(?:/bot|/[^\s\"']*/arena-box-[^/\s\"']*/bot)/")
#: Pieces a bot's text is made of, for the rewrite's corners: paths in and out of the copy,
#: the characters that end or begin one, quotes, spaces and a non-ASCII letter.
_PIECES = ["/", "/bot", "/bot/", "bot/", "/arena-box-", "arena-box-", "/tmp", "12-ab", "x.py",
           ",", ".", "-", "_", " ", "\n", "\t", '"', "'", "é", "\u00a0", "(", "=", ":"]


def _regex_rewrite(text: str, home: str | None) -> str:
    prefix = f"{home.rstrip('/')}/" if home else ""
    return _ONE_REGEX.sub(lambda _: prefix, text)


def test_the_rewrite_says_what_the_one_regex_said() -> None:
    draw = random.Random(7)
    for _ in range(4000):
        text = "".join(draw.choice(_PIECES) for _ in range(draw.randrange(1, 30)))
        for home in (None, "/home/ann/bot", "/home/ann/bot/"):
            assert author_paths(text, home) == _regex_rewrite(text, home), repr(text)


def test_a_huge_text_of_path_starts_is_rewritten_right() -> None:
    """Every ``/`` after a comma may begin a path; the last box of the run ends it."""
    starts = ",/" * 200_000
    box = "/tmp/arena-box-12-ab/bot/"
    assert author_paths(f"{starts}{box}bot.py", "/home/ann/b") == ",/home/ann/b/bot.py"
    assert author_paths(f"{starts}{box}bot.py {starts}") == f",bot.py {starts}"
    decoys = ",/arena-box-1/tmp" * 30_000
    assert author_paths(f"{decoys} {box}x.py") == f"{decoys} x.py"
    assert author_paths(f",/a{decoys}{box}x.py") == ",x.py"


def _patterns_used(function: types.FunctionType) -> list[re.Pattern[str]]:
    """The compiled patterns of :mod:`hints` that ``function`` reads, and those of the
    functions of :mod:`hints` it calls, named in its code or in code nested in it."""
    found: list[re.Pattern[str]] = []
    seen: set[str] = set()
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
        assert "re" not in code.co_names, f"{code.co_name} compiles a pattern as it runs"
        for name in set(code.co_names) - seen:
            seen.add(name)
            value = getattr(hints, name, None)
            if isinstance(value, re.Pattern):
                found.append(value)
            elif isinstance(value, types.FunctionType) and value.__module__ == hints.__name__:
                codes.append(value.__code__)
    return found


def _repeats_only_last(items: list[tuple[object, object]]) -> bool:
    """Whether a parsed pattern repeats only its last item, one character at a time, and
    holds no group or alternative that could."""
    for index, (op, value) in enumerate(items):
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            body = list(value[2])  # type: ignore[index]
            if index != len(items) - 1 or len(body) != 1 or body[0][0] not in (
                    sre.IN, sre.ANY, sre.LITERAL, sre.NOT_LITERAL):
                return False
        elif op in (sre.SUBPATTERN, sre.BRANCH, sre.ATOMIC_GROUP):
            return False
        elif op in (sre.ASSERT, sre.ASSERT_NOT) and not _fixed(value[1]):  # type: ignore[index]
            return False
    return True


def _fixed(items: list[tuple[object, object]]) -> bool:
    return all(op in (sre.IN, sre.ANY, sre.LITERAL, sre.NOT_LITERAL) for op, _ in items)


def test_the_rewrite_searches_with_no_pattern_that_reads_text_twice() -> None:
    """A search whose one repeat ends its pattern either fails within the fixed part before
    it or keeps all the repeat read: a text of any length is read once. A repeat followed
    by more (``/[^\\s"']*/arena-box-``) reads the rest of its run again from every start."""
    patterns = _patterns_used(author_paths)
    assert patterns
    for pattern in patterns:
        assert _repeats_only_last(list(sre_parse.parse(pattern.pattern))), pattern.pattern
