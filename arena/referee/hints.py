"""What the referee tells a bot's author about a failure: hints for the commonest slips and
the line of the bot's log that names its error."""

from __future__ import annotations

import re
from collections.abc import Callable

from arena.common.printable import printable
from arena.errors import ProtocolError

__all__ = ["NOT_JSON_HINT", "NO_READY_HINT", "explained", "hinted", "is_not_run", "log_quote"]

#: Why a bot is silent at start-up, most often: a line never flushed, or a slow import.
NO_READY_HINT = (" (is each line ended with a newline and stdout flushed? is stdin read line "
                 "by line, not to its end, which never comes? a slower start-up needs a higher "
                 "startup_ms)")
#: Why a bot's first line is not JSON, most often: a banner or a debug print on stdout.
NOT_JSON_HINT = " (stdout carries protocol lines only: print logs to stderr)"
#: The system could not run the bot's program (the shell's, bubblewrap's or Python's words).
_NOT_RUN = re.compile(r"not found|No such file or directory|Permission denied|Exec format error")
#: A log line naming an error: ``ValueError: ...``, ``panicked at``, ``Exception in ...``.
_ERROR_LINE = re.compile(r"(?i)\b(\w*(error|exception)|panic(ked)?|fatal|abort(ed)?)\b")
#: How the kit's runner begins its note on an ``act()`` result that is no index.
_KIT_NOTE = "[runner] act() returned "
#: How many lines back from the end of the log an error line is looked for.
_ERROR_LOOKBACK = 30
#: Characters of the bot's log quoted in a failure.
QUOTE_CHARS = 200


def hinted(exc: ProtocolError) -> str:
    """The protocol error, with :data:`NOT_JSON_HINT` when the line was no JSON at all."""
    detail = str(exc)
    return detail + NOT_JSON_HINT if detail.startswith("not JSON") else detail


def explained(exc: ProtocolError, log: Callable[[], str]) -> str:
    """The protocol error of an answer, hinted; a null choice also quotes the kit's note on
    what ``act()`` returned (a string, a float, None...), which ends the bot's ``log()``."""
    detail = hinted(exc)
    if detail.endswith("'choice', got null"):
        tail = log().rstrip().rpartition("\n")[2]
        if tail.startswith(_KIT_NOTE):
            detail += f"; the bot's log says: {printable(tail)[:QUOTE_CHARS]}"
    return detail


def log_quote(log: str) -> str:
    """``; last log line: ...`` for a failure's detail: the last line of the bot's ``log``
    (its exception, usually), or the last one naming an error; empty for an empty log."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    if not lines:
        return ""
    # Many runtimes print something after the error (Node its version, Rust a note on
    # backtraces, a JVM the stack): quote the last line that names an error, if any.
    label, last = "last log line", lines[-1]
    if not _ERROR_LINE.search(last):
        for line in reversed(lines[-_ERROR_LOOKBACK:-1]):
            if _ERROR_LINE.search(line):
                label, last = "last error in its log", line
                break
    if len(last) > QUOTE_CHARS:
        last = last[:QUOTE_CHARS] + "..."
    return f"; {label}: {last}"


def is_not_run(detail: str) -> bool:
    """Whether a start-up failure's words say the system could not run the program at all
    (the files may be to blame: the registry can tell)."""
    return _NOT_RUN.search(detail) is not None
