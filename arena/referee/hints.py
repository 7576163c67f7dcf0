"""What the referee tells a bot's author about a failure: hints for the commonest slips and
the line of the bot's log that names its error."""

from __future__ import annotations

import difflib
import importlib.util
import os
import pkgutil
import re
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from arena.common.printable import printable
from arena.errors import ProtocolError
from arena.referee.copy_paths import COPY_DIR, copy_boxes, in_copy
from arena.referee.log_lines import library_missing, writes_own_files
from arena.registry.botspec import REGISTRY_FILE
from arena.registry.manifest import module_metadata
from arena.sandbox.commandline import BOX_PREFIX, BWRAP_BOT_DIR
from arena.sdk.kitnames import kit_import_hint

__all__ = ["BAD_JSON_HINT", "HINT", "JVM_HINT", "LIBRARY_HINT", "MODULE_HINT", "NOT_JSON_HINT",
           "NO_READY_HINT", "OWN_FILE_ONLY_HINT", "READ_ONLY_ANY_HINT", "RESERVE_HINT",
           "SPLIT_JSON_HINT", "THREAD_HINT", "beside_hint", "explained",
           "hinted", "is_not_run", "log_note", "log_quote", "requirements_hint", "says_something",
           "stack_dump_ended", "stdout_note", "stuck_note", "traceback_note", "traceback_tail"]

#: Why a bot is silent at start-up, most often: a line never flushed, or a slow import.
NO_READY_HINT = (" (is each line ended with a newline and stdout flushed? is stdin read line "
                 "by line, not to its end, which never comes? a slower start-up needs "
                 "--startup-ms (arena check-bot, submit, match) or a tournament spec's "
                 "limits: {startup_ms: ...})")
#: Why a bot's first line is not JSON, most often: a banner or a debug print on stdout.
NOT_JSON_HINT = " (stdout carries protocol lines only: print logs to stderr)"
#: Why a bot's line is a piece of JSON, most often: a message pretty-printed over several lines.
SPLIT_JSON_HINT = (" (a message is one JSON object on one line: no pretty-printing, no line "
                   "break inside it)")
#: Why a whole object on one line is not JSON, most often: written by hand, not by a library.
BAD_JSON_HINT = (" (one line, but not JSON: keys and strings in double quotes, no trailing comma; "
                 "a JSON library writes it right)")
#: The JVM's own words on stdout, where it writes its warnings (unified logging, which
#: begins with the uptime and the level) and the error it stops with at start-up.
_JVM_LINE = re.compile(r"""^not JSON: (['"])(?:\[\d+\.\d+s\]\[\w+ *\]|Error occurred during """
                       r"""initialization of VM|(?:OpenJDK|Java HotSpot).* VM warning: )""")
#: Why a JVM's line is on stdout, most often: under memory_mb, a limit of address space, a
#: JVM sized for the host cannot reserve its heap, class space and threads.
JVM_HINT = (" (the JVM's own words: it writes its warnings and start-up errors to stdout; "
            "the sandbox limits a bot's address space (memory_mb) and its threads "
            "(processes), and a JVM started without the flags docs/BOTS.md gives, \"Binaries "
            "and node_modules\", cannot reserve its heap and threads within them)")
#: A line that is not JSON but looks like a piece of it: a brace, a bracket or a key first.
_JSON_PIECE = re.compile(r"""^not JSON: (['"])\s*[{}\["]""")
#: A line that is not JSON but holds a whole object: it opens with a brace and closes with
#: one (or runs past the quoted preview, which a pretty-printed piece does not).
_WHOLE_OBJECT = re.compile(r"""^not JSON: (['"])\s*\{.*(\}\s*|\.\.\.)\1$""")
#: An answer to an earlier act (ids only grow): one answered already, or a line that takes
#: no answer answered with the last id.
_EARLIER_ID = re.compile(r"^'action' answers id (\d+), expected (\d+)$")
_ANSWERED_HINT = (" (act {} is past: answer each 'act' once, and nothing else; "
                 "'game_start', 'event' and 'game_end' take no answer)")
#: How a hint begins, where it closes a traceback's tail.
HINT = "hint: "
#: Why a module a bot imports is missing, most often: it was installed for the user, and the
#: sandbox's interpreter sees none of the user's packages.
MODULE_HINT = (f"{HINT}a bot sees Python's standard library, the arena kit and the packages its "
               "bot.yaml requires (requirements:), not those installed for you; see "
               "'Using packages' in docs/BOTS.md")
#: A single-file bot's failure where nothing beside its file may be looked at (a failure
#: stored or shown to others): whether a name lies there would tell of files not the bot's.
OWN_FILE_ONLY_HINT = (f"{HINT}a single-file bot is copied alone into the sandbox and sees only "
                      "its own file: make it a directory holding what it opens or imports "
                      "(bot.py and the files it uses; 'Several files' in docs/BOTS.md)")
#: What a single-file bot's error names that may lie beside its file, which the sandbox does
#: not copy: a module it imports, a file it opens (relative, or in the bot's copy).
_MISSING_MODULE = re.compile(r"^ModuleNotFoundError: No module named '([A-Za-z_]\w*)")
#: How Python's error for a missing file begins: the file's name follows, quoted, and ends
#: the line (:func:`_missing_file`).
_FILE_NOT_FOUND = "FileNotFoundError: [Errno 2] No such file or directory: '"
#: A write into the bot's own files, which the sandbox copies read-only: the error bubblewrap
#: gives for any path there, or a denied relative path (the copy is the working directory).
_READ_ONLY = re.compile(
    r"^(?:OSError: \[Errno 30\] Read-only file system: |PermissionError: \[Errno 13\] "
    rf"Permission denied: '(?:[^/]|{re.escape(BWRAP_BOT_DIR)}/|/[^']*/{re.escape(BOX_PREFIX)}))")
READ_ONLY_HINT = (f"{HINT}a bot's own files are read-only: write in its scratch directory, "
                  "$TMPDIR (tempfile.gettempdir()), at most tmp_mb (64 MiB by default), "
                  "emptied when its process ends (docs/BOTS.md)")
#: The same write as any runtime tells it in its log (:func:`writes_own_files`).
READ_ONLY_ANY_HINT = (f"{HINT}a bot's own files are read-only: write in its scratch directory, "
                      "$TMPDIR (also HOME), at most tmp_mb (64 MiB by default), emptied when "
                      "its process ends (docs/BOTS.md)")
#: A runtime that could not reserve its address space up front: V8's (a Node worker's code
#: range), a JVM's, Go's.
_RESERVE_FAILED = re.compile(r"failed to reserve|could not reserve|cannot reserve|"
                             r"insufficient memory for the Java Runtime", re.IGNORECASE)
RESERVE_HINT = (f"{HINT}memory_mb limits the bot's address space, reserved or used: a runtime "
                "that reserves ranges up front (Node's worker threads, a JVM, Go) needs flags "
                "that reserve less or a bigger memory_mb (--memory-mb of arena check-bot, "
                "submit, match; a tournament spec's limits: {memory_mb: ...}; docs/BOTS.md, "
                "\"Binaries and node_modules\")")
#: A thread that could not start: the kernel's EAGAIN as the JVM, Rust and glibc tell it.
_THREAD_FAILED = re.compile(r"unable to create native thread|pthread_create failed|"
                            r"failed to spawn thread|Resource temporarily unavailable",
                            re.IGNORECASE)
#: The same as Python's ``threading`` raises it, the last line of the bot's traceback.
_PYTHON_THREAD_FAILED = re.compile(r"^RuntimeError: can't start new thread\b")
THREAD_HINT = (f"{HINT}a thread could not start: the sandbox allows a bot's processes and "
               "threads together up to processes (64 by default), and each thread's stack "
               "takes from its address space (memory_mb): size a thread pool to a few "
               "threads, not to the host's cores (docs/BOTS.md, \"Limits and what happens on "
               "failure\")")
#: How alike a missing module's name and an installed one must be to be taken for a typo.
_MISSPELT = 0.8
#: The file of requirements authors write by pip's convention.
_REQUIREMENTS_FILE = "requirements.txt"
#: Python's first line of a traceback, and of one of its frames.
_TRACEBACK = "Traceback (most recent call last):"
_FRAME = '  File "'
#: A traceback's frame. Groups: the file, the line, the function. Which files are the bot's
#: own is :func:`~arena.referee.copy_paths.in_copy`'s to say: a pattern looking for its box
#: in the file reads a long file's name again from every slash.
_FRAME_LINE = re.compile(r'^  File "([^"]+)", line (\d+)(?:, in (.+))?$')
#: The same frame as ``faulthandler`` dumps it (no comma before ``in``).
_DUMPED_FRAME_LINE = re.compile(r'^  File "([^"]+)", line (\d+) in (.+)$')
#: A thread's heading in a ``faulthandler`` dump; its frames follow, innermost first.
_DUMP_THREAD = re.compile(r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):$"
                          r"|^Stack \(most recent call first\):$")
#: A dumped frame that is a main thread's outermost, or close to it: the dump ends there.
_DUMP_OUTERMOST = re.compile(r'^  File ".*", line \d+ in (?:<module>|_run_module_as_main)$',
                             re.M)
#: The kit's loop: the thread that runs it is the one answering the referee.
_KIT_LOOP = "/arena/sdk/serving.py\""
#: Lines of a traceback quoted at most.
_TRACEBACK_LINES = 8
#: The system could not run the bot's program (the shell's, bubblewrap's or Python's words).
_NOT_RUN = re.compile(r"not found|No such file or directory|Permission denied|Exec format error")
#: A log line naming an error: ``ValueError: ...``, ``panicked at``, ``Exception in ...``.
_ERROR_LINE = re.compile(r"(?i)\b(\w*(error|exception)|panic(ked)?|fatal|abort(ed)?)\b")
#: How the kit's runner begins its note on an ``act()`` result that is no index.
_KIT_NOTE = "[runner] act() "
#: A frame of a Java stack trace, and the line that stands for the frames a cause shares.
_JAVA_FRAME = re.compile(r"^(?:at [\w$.<>/-]+\(.*\)|\.\.\. \d+ more)$")
#: How many lines back from the end of the log an error line is looked for.
_ERROR_LOOKBACK = 30
#: Characters of the bot's log quoted in a failure.
QUOTE_CHARS = 200


def hinted(exc: ProtocolError) -> str:
    """The protocol error, with :data:`NOT_JSON_HINT` when the line was no JSON at all,
    :data:`JVM_HINT` when it is the JVM's own (a warning, its start-up error),
    :data:`BAD_JSON_HINT` when it holds a whole object that is not JSON (single quotes, a
    trailing comma), or :data:`SPLIT_JSON_HINT` when it looks like a piece of a message split
    over lines."""
    detail = str(exc)
    if _JVM_LINE.match(detail):
        return detail + JVM_HINT
    if _WHOLE_OBJECT.match(detail):
        return detail + BAD_JSON_HINT
    if _JSON_PIECE.match(detail):
        return detail + SPLIT_JSON_HINT
    return detail + NOT_JSON_HINT if detail.startswith("not JSON") else detail


#: Lines quoted of what a bot wrote on stdout after a bad first line: a runtime's reason
#: follows its warning (a JVM's), a traceback ends with its exception.
_STDOUT_LINES = 3
#: Characters quoted of each of them.
_STDOUT_CHARS = 120
#: A line with a word or a figure in it (Python's carets under a failed expression have none).
_SAYS_SOMETHING = re.compile(r"\w")


def says_something(line: bytes) -> bool:
    """Whether a line a bot wrote says something (not blank, not a traceback's carets)."""
    return _SAYS_SOMETHING.search(line.decode("utf-8", "replace")) is not None


def stdout_note(lines: list[bytes], said: int | None = None, more: bool = False) -> str:
    """``; then on stdout: '...' | '...'`` for a bad answer's detail: the last few ``lines``
    the bot wrote after it that say something (no blank line, no traceback's carets), a long
    line cut, each quoted as the answer is, and how many there were (``said``, when more were
    read than ``lines`` holds; ``more``: the reading stopped with lines still coming); empty
    for none."""
    texts = [text for line in lines
             if _SAYS_SOMETHING.search(text := line.decode("utf-8", "replace").strip())]
    if not texts:
        return ""
    shown = texts[-_STDOUT_LINES:]
    quoted = " | ".join(repr(text if len(text) <= _STDOUT_CHARS
                             else text[:_STDOUT_CHARS] + "...") for text in shown)
    count = len(texts) if said is None else said
    if len(shown) < count or more:
        return (f"; then on stdout, {count}{' or more' if more else ''} lines, the last "
                f"{len(shown)}: {quoted}")
    return f"; then on stdout: {quoted}"


def explained(exc: ProtocolError, log: Callable[[], str]) -> str:
    """The protocol error of an answer, hinted; a null choice is told in the words of the
    kit's note on what ``act()`` returned (a string, a float, None...) and what to return,
    which ends the bot's ``log()``: its author wrote no 'action' line to look for."""
    detail = hinted(exc)
    earlier = _EARLIER_ID.match(detail)
    if earlier and int(earlier[1]) < int(earlier[2]):
        detail += _ANSWERED_HINT.format(earlier[1])
    if detail.endswith("'choice', got null"):
        tail = log().rstrip().rpartition("\n")[2]
        if tail.startswith(_KIT_NOTE):
            detail = printable(tail.removeprefix("[runner] "))[:2 * QUOTE_CHARS]
    return detail


#: A compiled bot's shared library that the sandbox does not show.
LIBRARY_HINT = (f"{HINT}the sandbox shows a bot its own files and the system's libraries "
                "(/usr, /lib), no other path of the host: link the library statically, or ship "
                "it in the bot's directory and link with -Wl,-rpath,'$ORIGIN' (docs/BOTS.md)")
#: The hints of a quoted log line, in the order they are tried: each test reads it once.
_LOG_HINTS: tuple[tuple[Callable[[str], object], str], ...] = (
    (writes_own_files, READ_ONLY_ANY_HINT), (_RESERVE_FAILED.search, RESERVE_HINT),
    (_THREAD_FAILED.search, THREAD_HINT), (library_missing, LIBRARY_HINT))


def log_quote(log: str) -> str:
    """``; last log line: ...`` for a failure's detail: the last line of the bot's ``log``
    (its exception, usually), or the last one naming an error, with
    :data:`READ_ONLY_ANY_HINT` after a write into the bot's files, :data:`RESERVE_HINT` after
    a runtime's failed reservation of address space, :data:`THREAD_HINT` after a thread
    that could not start, :data:`LIBRARY_HINT` after a shared library not found; empty for
    an empty log."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    if not lines:
        return ""
    # A JVM's stack, frame by frame, follows its exception's line: a deep one (a library's)
    # would push that line past the look back
    framed = _JAVA_FRAME.match(lines[-1]) is not None
    lines = [line for line in lines if not _JAVA_FRAME.match(line)] or lines
    # Many runtimes print something after the error (Node its version, Rust a note on
    # backtraces): quote the last line that names an error, if any.
    label, at = "last error in its log" if framed else "last log line", len(lines) - 1
    if not _ERROR_LINE.search(lines[at]):
        for index in range(at - 1, max(len(lines) - _ERROR_LOOKBACK, 0) - 1, -1):
            if _ERROR_LINE.search(lines[index]):
                label, at = "last error in its log", index
                break
    last = lines[at]
    if last.endswith(":") and at + 1 < len(lines):
        # Its message follows on the next line (Rust's "panicked at src/main.rs:9:5:").
        last += " " + lines[at + 1]
    hint = next((f"; {hint}" for says, hint in _LOG_HINTS if says(last)), "")
    if len(last) > QUOTE_CHARS:
        last = last[:QUOTE_CHARS] + "..."
    return f"; {label}: {last}{hint}"


def is_not_run(detail: str) -> bool:
    """Whether a start-up failure's words say the system could not run the program at all
    (the files may be to blame: the registry can tell)."""
    return _NOT_RUN.search(detail) is not None


def traceback_tail(log: str, bot_dir: str, bot_path: str | Path | None = None, *,
                   look_beside: bool = False) -> list[str]:
    """The end of the last Python traceback in ``log``: the last frame in the bot's own files
    (under ``bot_dir``: the line that failed), the frame that raised when it is another one,
    and the exception; with :data:`MODULE_HINT` after a ``ModuleNotFoundError``,
    :data:`THREAD_HINT` after a thread that could not start, or, when the bot is the single
    file ``bot_path``, :func:`beside_hint` (with ``look_beside``: its author's own run) or
    :data:`OWN_FILE_ONLY_HINT` (without) for what it misses. Empty when the log holds no
    traceback."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(_TRACEBACK)]
    if not starts:
        return []
    body = lines[starts[-1] + 1:]
    frames = [i for i, line in enumerate(body) if line.startswith(_FRAME)]
    if not frames:
        return []
    own = [i for i in frames if body[i].startswith(f"{_FRAME}{bot_dir.rstrip('/')}/")]
    shown = [own[-1]] if own else []
    if frames[-1] not in shown:
        shown.append(frames[-1])
    tail: list[str] = []
    for start in shown:
        tail.append(body[start])
        rest = body[start + 1:]
        for line in rest:
            if line.startswith(_FRAME) or not line.startswith(" "):
                break
            tail.append(line)
    error = next((line for line in body[frames[-1] + 1:] if line and not line.startswith(" ")),
                 "")
    if error:
        tail.append(error)
    tail = [printable(line)[:QUOTE_CHARS] for line in tail][-_TRACEBACK_LINES:]
    hint = _error_hint(error, bot_path, look_beside)
    if hint:
        tail.append(hint)
    return tail


def traceback_note(log: str, bot_path: str | Path | None = None, *,
                   look_beside: bool = False) -> str:
    """``; SomeError: ... (at bot.py line 15, in act)`` for a failure's detail: the exception
    of the last Python traceback in ``log`` and the last frame in the bot's own files (the
    line that failed), with a hint as :func:`traceback_tail` adds one; empty when the log
    holds no traceback through the bot's files."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(_TRACEBACK)]
    if not starts:
        return ""
    body = lines[starts[-1] + 1:]
    own = [frame for line in body if (frame := _own_frame(line, _FRAME_LINE))]
    if not own:
        return ""
    file, line_no, function = own[-1]
    where = f"at {printable(file)} line {line_no}"
    where += f", in {printable(function)}" if function else ""
    last = max(i for i, line in enumerate(body) if line.startswith(_FRAME))
    error = next((line for line in body[last + 1:] if line and not line.startswith(" ")), "")
    note = f"; {printable(error)[:QUOTE_CHARS]} ({where})" if error else f"; exception {where}"
    hint = _error_hint(error, bot_path, look_beside)
    return note + (f"; {hint}" if hint else "")


def stack_dump_ended(text: str) -> bool:
    """Whether ``text`` holds a ``faulthandler`` dump through the main thread's outermost
    frames (a dump's last thread), so no more of it is waited for."""
    return _DUMP_OUTERMOST.search(text) is not None


def stuck_note(dump: str) -> str:
    """`` (at bot.py line 6, in think)``: the innermost frame in the bot's own files of the
    thread answering the referee (the kit's loop runs in it; else the thread the signal
    interrupted, else the first) in a ``faulthandler`` dump; empty without one."""
    threads: list[list[str]] = []
    current = -1
    for line in dump.splitlines():
        if _DUMP_THREAD.match(line):
            if line.startswith("Current"):
                current = len(threads)
            threads.append([])
        elif threads and line.startswith(_FRAME):
            threads[-1].append(line)
    answering = [t for t in threads if any(_KIT_LOOP in line for line in t)]
    if answering:
        ordered = answering
    else:
        ordered = ([threads[current]] if current >= 0 else []) + threads
    for frames in ordered:
        for line in frames:
            own = _own_frame(line, _DUMPED_FRAME_LINE)
            if own is not None:
                return (f" (at {printable(own[0])[:QUOTE_CHARS]} line {own[1]}, in "
                        f"{printable(own[2] or '')[:QUOTE_CHARS]})")
    return ""


def _own_frame(line: str, frame: re.Pattern[str]) -> tuple[str, str, str | None] | None:
    """The file (relative to the bot's copy), line and function of ``line``, a frame written
    as ``frame`` reads one, when the file is the bot's own; else ``None``."""
    found = frame.match(line)
    if found is None:
        return None
    file = in_copy(found[1])
    return None if file is None else (file, found[2], found[3])


def _missing_file(error: str) -> str | None:
    """The file a ``FileNotFoundError`` (a traceback's last line) names: relative, or in the
    bot's copy (``/bot/`` or the last box's ``bot/`` it goes through, relative to it), and
    not beginning with a slash there; ``None`` for another error or file. A scan: a pattern
    looking for a box from every slash of the name read the rest of it again."""
    start = len(_FILE_NOT_FOUND)
    end = error.find("'", start)
    if not error.startswith(_FILE_NOT_FOUND) or end < 0 or error[end + 1:] not in ("", "\n"):
        return None
    copied = start + len(COPY_DIR)
    if error.startswith(COPY_DIR, start) and copied < end and error[copied] != "/":
        return error[copied:end]
    if error.startswith("/", start):
        return next((error[copy_end:end] for _, copy_end in copy_boxes(error, start + 1, end)
                     if copy_end < end and error[copy_end] != "/"), None)
    return error[start:end] if end > start else None


def log_note(log: str, bot_path: str | Path | None = None, *,
             look_beside: bool = False) -> str:
    """What a failure's detail quotes of the bot's log: the end of its traceback through its
    own files (:func:`traceback_note`) when there is one, else its last error line
    (:func:`log_quote`). ``bot_path``: the bot's file or directory, for hints;
    ``look_beside``: whether they may say what lies beside a single-file bot's file, or which
    module of the host's Python a missing one misspells (its author's own run, not a failure
    stored or shown to others)."""
    return traceback_note(log, bot_path, look_beside=look_beside) or log_quote(log)


def _error_hint(error: str, bot_path: str | Path | None, look_beside: bool) -> str:
    """The hint for a traceback's last line: what a single-file bot misses beside its file
    (:func:`beside_hint` with ``look_beside``, else :func:`_own_file_only`), else
    :data:`READ_ONLY_HINT` after a write into the bot's files, else :data:`THREAD_HINT`
    after a thread that could not start, else :data:`MODULE_HINT` after a
    ``ModuleNotFoundError``; empty for other errors."""
    single = bot_path is not None and Path(bot_path).is_file()
    if bot_path is not None:
        beside = (beside_hint(error, bot_path) if look_beside
                  else _own_file_only(error) if single else None)
        if beside is not None:
            return beside
    if _READ_ONLY.match(error):
        return READ_ONLY_HINT
    if _PYTHON_THREAD_FAILED.match(error):
        return THREAD_HINT
    if not error.startswith("ModuleNotFoundError"):
        return kit_import_hint(error) or ""
    # beside a single file lie files not the bot's, unless its author runs it
    unread = (requirements_hint(bot_path) if bot_path is not None
              and (look_beside or not single) else None)
    if unread is not None:
        return unread
    missing = _MISSING_MODULE.match(error)
    # the lookup is on the host's Python: which packages it has is for its own user alone
    meant = (_misspelt_module(missing[1]) if missing is not None and look_beside
             else None)
    hint = MODULE_HINT
    if missing is not None and meant is not None:
        hint = (f"{HINT}did you mean '{meant}'? ('{missing[1]}' is installed nowhere here); "
                f"else {MODULE_HINT.removeprefix(HINT)}")
    if single and not look_beside and missing is not None and meant is None:
        hint += f"; or {OWN_FILE_ONLY_HINT.removeprefix(HINT)}"
    return hint


def _own_file_only(error: str) -> str | None:
    """:data:`OWN_FILE_ONLY_HINT` for a single-file bot whose ``error`` is a file it opened
    by a relative name (or in its copy), which is not its own file: whatever lies beside it
    on the host is not looked at. None otherwise."""
    opened = _missing_file(error)
    if opened is None or "\0" in opened or ".." in PurePosixPath(opened).parts:
        return None
    return OWN_FILE_ONLY_HINT


def _misspelt_module(name: str) -> str | None:
    """The modules of the standard library or of this host's Python that ``name`` (not one of
    them) most likely misspells (``requets``: ``requests``), joined by ``' or '``, or None.
    Strict, so that a package simply not installed (``torch``) is not taken for a misspelling
    of another. Looks at the host's Python, so it is asked only where the person reading is
    the host's user (``look_beside``); the standard library alone would not do without it
    (``ujson`` is no misspelt ``json``)."""
    if name in sys.stdlib_module_names or importlib.util.find_spec(name) is not None:
        return None
    known = set(sys.stdlib_module_names) | {m.name for m in pkgutil.iter_modules()}
    scored = sorted((-difflib.SequenceMatcher(None, name, k).ratio(), k) for k in known)
    best = [k for score, k in scored if score == scored[0][0] and -score >= _MISSPELT]
    # equally close names are all offered: nunpy is numpy or runpy
    return "' or '".join(best[:3]) if best else None


def requirements_hint(bot_path: str | Path) -> str | None:
    """A hint for a bot whose ``requirements.txt`` the arena does not read: a bot directory
    whose ``bot.yaml`` (if any) has no ``requirements:``, or a single file with one beside
    it. None otherwise. Authors expect the file to be read as pip's convention has it; the
    arena installs only what ``bot.yaml`` names, so the general hint sent them looking.
    Never for a single file in a bots directory: the file there is no author's own (as
    :func:`beside_hint` has it)."""
    path = Path(bot_path)
    if path.is_file() and _in_a_bots_directory(path):
        return None
    home = path if path.is_dir() else path.parent
    if not (path.is_dir() or path.is_file()) or not (home / _REQUIREMENTS_FILE).is_file():
        return None
    if path.is_file():
        return (f"{HINT}{_REQUIREMENTS_FILE} beside {printable(path.name)} is not read: a "
                "single-file bot gets no packages; make it a directory (bot.py, "
                f"{_REQUIREMENTS_FILE}) with a bot.yaml saying 'requirements: "
                f"{_REQUIREMENTS_FILE}' ('Using packages' in docs/BOTS.md)")
    manifest = home / "bot.yaml"
    if not manifest.is_file():
        # a bot.yaml holding the requirements alone is refused ('name' is required); the
        # name it is registered under now (its class's), which a bot.yaml's would replace
        own = module_metadata(home / "bot.py").get("name") if (home / "bot.py").is_file() else None
        return (f"{HINT}{_REQUIREMENTS_FILE} is read only when a bot.yaml names it: write one "
                f"('name: {printable(str(own or home.name))[:QUOTE_CHARS]}', 'module: bot.py', "
                f"'requirements: {_REQUIREMENTS_FILE}') and the arena installs it for the bot "
                "('Using packages' in docs/BOTS.md)")
    try:
        text = manifest.read_text(errors="replace")
    except OSError:
        return None
    if re.search(r"(?m)^requirements\s*:", text):
        return None
    return (f"{HINT}{_REQUIREMENTS_FILE} is read only when bot.yaml names it: add "
            f"'requirements: {_REQUIREMENTS_FILE}' to bot.yaml and the arena installs it for "
            "the bot ('Using packages' in docs/BOTS.md)")


def _in_a_bots_directory(path: Path) -> bool:
    """Whether the bot's file ``path`` lies in a bots directory (its registry file marks it,
    whichever directory is in use): what else lies there is other bots, not its author's to
    learn."""
    return (path.parent / REGISTRY_FILE).exists()


def beside_hint(error: str, bot_path: str | Path) -> str | None:
    """A hint for a single-file bot whose ``error`` (a traceback's last line) names a module
    or file lying beside its file: the sandbox copies the file alone, so what works from the
    author's directory is missing there. None for a bot directory, or anything else.

    Runs in the referee on the bot's words: it only asks whether a relative name, without
    ``..``, exists in the directory of the bot's file, and never in a bots directory, where
    other authors' bots lie beside a registered one (copied there alone anyway). Asked only
    in its author's own runs (``look_beside``): a failure stored or shown to others gets
    :data:`OWN_FILE_ONLY_HINT`, whatever lies there."""
    path = Path(bot_path)
    if not path.is_file() or _in_a_bots_directory(path):
        return None
    module, opened = _MISSING_MODULE.match(error), _missing_file(error)
    if module is not None:
        name = module[1]
        if not ((path.parent / f"{name}.py").is_file() or (path.parent / name).is_dir()):
            return None
        what = f"{name}.py" if (path.parent / f"{name}.py").is_file() else f"{name}/"
    elif opened is not None:
        what = opened
        parts = PurePosixPath(what).parts
        if "\0" in what or ".." in parts or not os.path.lexists(path.parent / what):
            return None
    else:
        return None
    return (f"{HINT}{printable(what)[:QUOTE_CHARS]} lies beside {printable(path.name)}, but a "
            "single-file bot is copied alone into the sandbox: make the bot a directory "
            "(bot.py and the files it uses; 'Several files' in docs/BOTS.md)")
