"""A bot's failure text names its files as its author knows them (``author_paths``), and a
traceback's note finds the frame in its own files (``traceback_note``, ``stuck_note``): the
bot writes that text, so each reads it once, whatever it holds, and says what the regexes
they replace said."""

from __future__ import annotations

import random
import re
import types
from typing import Any

try:
    from re import _compiler as sre_compile  # type: ignore[attr-defined]
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # Python 3.10 names the regex parser's modules at the top level
    import sre_compile  # type: ignore[no-redef]
    import sre_constants as sre  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

from arena.referee import hints
from arena.referee.copy_paths import author_paths
from arena.referee.hints import stuck_note, traceback_note

#: The parser's repeats and atomic group, those Python 3.10 has (no possessive repeat, no
#: atomic group).
_REPEATS = tuple(getattr(sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(sre, name))
_ATOMIC = tuple(getattr(sre, name) for name in ("ATOMIC_GROUP",) if hasattr(sre, name))

#: The rewrite as one regex did it: the reference for what the scan says.
_ONE_REGEX = re.compile(r"(?<![\w./-])(?:/bot|/[^\s\"']*/arena-box-[^/\s\"']*/bot)/")
#: Pieces a bot's text is made of, for the rewrite's corners: paths in and out of the copy,
#: the characters that end or begin one, quotes, spaces and a non-ASCII letter.
_PIECES = ["/", "/bot", "/bot/", "bot/", "/arena-box-", "arena-box-", "/tmp", "12-ab", "x.py",
           ",", ".", "-", "_", " ", "\n", "\t", '"', "'", "é", "\u00a0", "(", "=", ":"]

#: A frame in the bot's own files as one regex read it (a traceback's; a dump's), the
#: reference for what the frames are read as.
_OWN_FILE = r'^  File "(?:/bot|/[^"]*/arena-box-[^/"]*/bot)/'
_OWN_FRAME = re.compile(_OWN_FILE + r'([^"]+)", line (\d+)(?:, in (.+))?$')
_DUMPED_OWN_FRAME = re.compile(_OWN_FILE + r'([^"]+)", line (\d+) in (.+)$')


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


def _patterns_used(function: types.FunctionType, *,
                   calls: bool = True) -> list[re.Pattern[str]]:
    """The compiled patterns of its module that ``function`` reads, named in its code or in
    code nested in it, and (``calls``) those of the functions of its module it calls."""
    found: list[re.Pattern[str]] = []
    seen: set[str] = set()
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        codes += [const for const in code.co_consts if isinstance(const, types.CodeType)]
        assert "re" not in code.co_names, f"{code.co_name} compiles a pattern as it runs"
        for name in set(code.co_names) - seen:
            seen.add(name)
            value = function.__globals__.get(name)
            if isinstance(value, re.Pattern):
                found.append(value)
            elif (calls and isinstance(value, types.FunctionType)
                  and value.__module__ == function.__module__):
                codes.append(value.__code__)
    return found


def _repeats_only_last(items: list[tuple[object, object]]) -> bool:
    """Whether a parsed pattern repeats only its last item, one character at a time, and
    holds no group or alternative that could."""
    for index, (op, value) in enumerate(items):
        if op in _REPEATS:
            body = list(value[2])  # type: ignore[index]
            if index != len(items) - 1 or len(body) != 1 or body[0][0] not in (
                    sre.IN, sre.ANY, sre.LITERAL, sre.NOT_LITERAL):
                return False
        elif op in (sre.SUBPATTERN, sre.BRANCH, *_ATOMIC):
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


def test_a_frame_is_the_bots_own_where_the_one_regex_said_so() -> None:
    draw = random.Random(11)
    for _ in range(4000):
        path = "".join(draw.choice(_PIECES) for _ in range(draw.randrange(1, 12)))
        tail = draw.choice(['", line 3, in act', '", line 3', '", line 3 in act', '", line x'])
        line = f'  File "{path}{tail}'
        for frame, reference in ((hints._FRAME_LINE, _OWN_FRAME),
                                 (hints._DUMPED_FRAME_LINE, _DUMPED_OWN_FRAME)):
            found = reference.match(line)
            assert hints._own_frame(line, frame) == (found and found.groups()), repr(line)


def test_a_huge_frame_is_read_right() -> None:
    """A file's name of a thousand boxes: the last one with a file after it is the copy."""
    boxes = "/arena-box-1/bot/" * 20_000
    log = (f'Traceback (most recent call last):\n  File "/tmp{boxes}x.py", line 4, in act\n'
           "ValueError: no\n")
    assert traceback_note(log) == "; ValueError: no (at x.py line 4, in act)"
    unquoted = f'Traceback (most recent call last):\n  File "/tmp{boxes}x.py, line 4\nE: e\n'
    assert traceback_note(unquoted) == ""
    # the last box names no file: the one before it does, its copy's file the last box
    dump = f'Current thread 0x01 (most recent call first):\n  File "/t{boxes}", line 4 in act\n'
    assert stuck_note(dump) == " (at /arena-box-1/bot/ line 4, in act)"


def _flat(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """``items`` with each group's items in its place."""
    flat: list[tuple[Any, Any]] = []
    for op, value in items:
        flat += _flat(list(value[3])) if op is sre.SUBPATTERN else [(op, value)]
    return flat


def _never_gives_back(items: list[tuple[Any, Any]]) -> bool:
    """Whether a match of the parsed pattern at one place reads each character once: every
    repeat is of one character and followed by a character it cannot match or by the end
    (an optional part's first, and what follows it), and an alternative holds only literals
    unless nothing follows it."""
    flat = _flat(items)
    for index, (op, value) in enumerate(flat):
        if op is sre.BRANCH:
            last = index == len(flat) - 1
            if not all(_never_gives_back(list(branch)) if last else
                       all(item[0] is sre.LITERAL for item in _flat(list(branch)))
                       for branch in value[1]):
                return False
        elif op in _REPEATS:
            low, high, body = value
            if (low, high) == (0, 1):  # an optional part: its own items must hold
                if not _never_gives_back(list(body)):
                    return False
            elif not _followed_by_other(list(body), flat[index + 1:]):
                return False
    return True


def _followed_by_other(body: list[tuple[Any, Any]], after: list[tuple[Any, Any]]) -> bool:
    """Whether ``body``, a repeat's, is one character and what may come next (``after``'s
    first item, past an optional part) is a literal it cannot match or the end."""
    if len(body) != 1 or body[0][0] not in (sre.IN, sre.ANY, sre.NOT_LITERAL, sre.LITERAL):
        return False
    one = sre_compile.compile(sre_parse.SubPattern(sre_parse.State(), body))
    following = after[:1]
    if following and following[0][0] is sre.MAX_REPEAT and following[0][1][0] == 0:
        following = [*_flat(list(following[0][1][2]))[:1], *after[1:2]]
    return all(op is sre.AT or (op is sre.LITERAL and not one.fullmatch(chr(value)))
               for op, value in following)


def test_a_frame_is_read_with_no_pattern_that_reads_a_line_twice() -> None:
    """``[^"]*`` followed by ``/arena-box-`` went back over a long file's name for every
    slash in it; a repeat followed only by what it cannot match never goes back."""
    for function in (traceback_note, stuck_note):
        patterns = _patterns_used(function, calls=False)
        assert patterns
        for pattern in patterns:
            assert _never_gives_back(list(sre_parse.parse(pattern.pattern))), pattern.pattern
