"""The hints of a quoted log line (a write into the bot's own files, a shared library not
found) and a missing file's hint read the bot's text once, whatever it holds, and say what
the regexes they replace said."""

from __future__ import annotations

import random
import re
import types
from typing import Any

from test_referee_author_paths import (
    _REPEATS,
    _fixed,
    _flat,
    _never_gives_back,
    _patterns_used,
    sre,
    sre_parse,
)

from arena.referee import hints, log_lines
from arena.referee.hints import READ_ONLY_ANY_HINT, beside_hint, log_quote

#: The regexes replaced, as they were: the reference for what the scans say.
_OWN_PATH = (r"""(?:(?!/|EACCES\b)[^\s:'"()]+|/bot/[^\s:'"()]*"""
             r"""|/[^\s:'"()]*/arena-box-[^/\s:'"()]*/bot/[^\s:'"()]*)""")
_READ_ONLY_ANY = re.compile(
    r"\bEROFS\b|read-only file system"
    rf"""|^(?!.*\bexec)(?:.*(?:^|[\s:]){_OWN_PATH}: permission denied"""
    rf"""|.*\bEACCES: permission denied, \w+ '{_OWN_PATH}'"""
    rf"""|.*(?:^|[\s:]){_OWN_PATH} \(permission denied\)"""
    rf"""|.*permission denied: '{_OWN_PATH}')""", re.IGNORECASE)
_LIBRARY_MISSING = re.compile(r"error while loading shared libraries: .*No such file")
_MISSING_FILE = re.compile(
    r"^FileNotFoundError: \[Errno 2\] No such file or directory: '"
    r"(?:/bot/|/[^']*/arena-box-[^/']*/bot/)?([^'/][^']*)'$")
#: Pieces of a log line, for the corners: the words of each runtime (in other cases too, and
#: with letters that only match ignoring case: a long s, a dotless i), paths in and out of
#: the copy, and what ends or begins a path.
_PIECES = ["/", "/bot/", "/BOT/", "bot/", "/arena-box-", "/Arena-Box-", "arena-box-", "1",
           "x.py", "EROFS", "erofs", "Read-only file system", ": permission denied",
           ": Permission denied", ": permiſſion denıed", " (Permission denied)",
           "EACCES: permission denied, ", "EACCES", "open", " '", "'", "permission denied: '",
           "exec", "execve", "_exec", "error while loading shared libraries: ", "No such file",
           " ", "\n", "\t", ":", "(", ")", '"', "é", "_", ".", "-", "\u00a0"]
#: Pieces of a missing file's name.
_NAME_PIECES = ["/", "/bot/", "bot/", "/arena-box-", "arena-box-", "1", "x.py", "..", "'",
                "\n", " ", "é", "-"]


#: How a missing file's line ends: its quote, before a newline or not, or something else.
_ENDS = ["", "'", "'\n"]


def _texts(seed: int, pieces: list[str], most: int) -> list[str]:
    draw = random.Random(seed)
    return ["".join(draw.choice(pieces) for _ in range(draw.randrange(1, most)))
            for _ in range(6000)]


def test_a_write_into_the_bots_files_is_seen_where_the_one_regex_saw_it() -> None:
    seen = 0
    for text in _texts(5, _PIECES, 14):
        expected = _READ_ONLY_ANY.search(text) is not None
        assert log_lines.writes_own_files(text) == expected, repr(text)
        seen += expected
    assert 600 < seen < 5400  # both answers are asked often


def test_a_missing_library_is_seen_where_the_one_regex_saw_it() -> None:
    seen = 0
    for text in _texts(6, _PIECES, 14):
        expected = _LIBRARY_MISSING.search(text) is not None
        assert log_lines.library_missing(text) == expected, repr(text)
        seen += expected
    assert seen > 30


def test_a_missing_file_is_read_as_the_one_regex_read_it() -> None:
    prefix = "FileNotFoundError: [Errno 2] No such file or directory: '"
    found = 0
    for index, name in enumerate(_texts(8, _NAME_PIECES, 10)):
        error = prefix + name + _ENDS[index % len(_ENDS)]
        expected = _MISSING_FILE.match(error)
        assert hints._missing_file(error) == (expected and expected[1]), repr(error)
        found += expected is not None
    assert found > 300


def test_a_huge_line_of_boxes_is_read_right() -> None:
    """The line that took seconds: a box path repeated, with or without the words."""
    boxes = "/a/arena-box-1/bot/" * 3300
    assert log_quote(boxes).endswith("...")
    assert log_quote(f"{boxes}x: Permission denied").endswith(f"; {READ_ONLY_ANY_HINT}")
    node = f"EACCES: permission denied, open '{boxes}x'"
    assert log_lines.writes_own_files(node)
    assert not log_lines.writes_own_files(node[:-1])
    assert not log_lines.writes_own_files(f"exec {boxes}x: Permission denied")


def test_a_huge_missing_file_is_read_right(tmp_path: Any) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("")
    (tmp_path / "x").write_text("")
    boxes = "/a" + "a/arena-box-1/bot/" * 4000
    error = f"FileNotFoundError: [Errno 2] No such file or directory: '{boxes}x'"
    assert hints._missing_file(error) == "x"
    assert beside_hint(error, bot) is not None
    assert hints._missing_file(error + "y") is None


def _reads_once(items: list[tuple[Any, Any]]) -> bool:
    """Whether a searched pattern repeats only its last item, one character at a time, and
    any group or alternative holds fixed items only: each attempt either fails within the
    fixed part or keeps all the repeat read, so a text of any length is read once."""
    flat = _flat(items)
    for index, (op, value) in enumerate(flat):
        if op in _REPEATS:
            body = list(value[2])
            if index != len(flat) - 1 or len(body) != 1 or not _fixed(body):
                return False
        elif op is sre.BRANCH:
            if not all(_fixed([item for item in _flat(list(branch)) if item[0] is not sre.AT])
                       for branch in value[1]):
                return False
        elif op in (sre.ASSERT, sre.ASSERT_NOT) and not _fixed(list(value[1])):
            return False
    return True


def _hint_patterns() -> list[re.Pattern[str]]:
    """The patterns the hints of a quoted log line search with: their own, or those of the
    functions that test for them."""
    found: list[re.Pattern[str]] = []
    for says, _ in hints._LOG_HINTS:
        if isinstance(says, re.Pattern):
            found.append(says)
        elif isinstance(getattr(says, "__self__", None), re.Pattern):
            found.append(says.__self__)  # a pattern's own search
        else:
            assert isinstance(says, types.FunctionType)
            found += _patterns_used(says)
    return found


def test_a_log_lines_hints_search_with_no_pattern_that_reads_it_twice() -> None:
    """A repeat followed by more (``/[^\\s:'"()]*/arena-box-``, ``.*No such file``) reads
    the rest of the line again from every place it may begin."""
    patterns = _hint_patterns()
    assert len(patterns) > 4
    for pattern in patterns:
        assert _reads_once(list(sre_parse.parse(pattern.pattern))), pattern.pattern


def test_a_missing_file_is_read_with_no_pattern_that_reads_it_twice() -> None:
    patterns = _patterns_used(beside_hint) + _patterns_used(hints._own_file_only)
    assert patterns
    for pattern in patterns:
        assert _never_gives_back(list(sre_parse.parse(pattern.pattern))), pattern.pattern
