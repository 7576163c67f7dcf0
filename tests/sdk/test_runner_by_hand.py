"""The runner run by hand, as docs/BOTS.md suggests (``python -m arena.sdk.runner my_bot.py``,
typing protocol lines): a person at a terminal leaves it with Ctrl-C."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BOT = ("from arena.sdk import Bot\n\n\nclass MyBot(Bot):\n"
       "    def act(self, request):\n        return 0\n")


def _read_until(fd: int, wanted: bytes) -> bytes:
    """The terminal's output up to ``wanted`` (or its end); a generous bound so that a
    broken runner fails the test instead of hanging it."""
    seen = b""
    while wanted not in seen:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the terminal closed: the runner is gone
            break
        if not chunk:
            break
        seen += chunk
    return seen


def _ctrl_c_once_ready(bot: Path, ready: bytes = b'"type":"ready"') -> tuple[bytes, int | None]:
    """Start the runner on ``bot`` at a terminal, wait for its ``ready`` (or what else the
    terminal shows then), press Ctrl-C: what the terminal showed after, and the runner's exit
    code (None: it was still running once the terminal went quiet, and was killed)."""
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the runner, its stdin a terminal as a person's is
        # a terminal's foreground job takes Ctrl-C; pytest run as a background job of a
        # script inherits SIGINT ignored, which the runner rightly keeps ignoring
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.environ["PYTHONPATH"] = str(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "arena.sdk.runner", str(bot)])
    ended = os.pidfd_open(pid)
    try:
        os.write(terminal, b'{"type":"hello","protocol":1}\n')
        assert ready in _read_until(terminal, ready)
        os.write(terminal, b"\x03")  # Ctrl-C, as the terminal's line discipline sends it
        rest = _read_until(terminal, b"\x00never")
    finally:
        # the terminal closes a moment before the runner ends: a generous bound again
        if not select.select([ended], [], [], 60)[0]:
            os.kill(pid, signal.SIGKILL)
        os.close(ended)
        _, status = os.waitpid(pid, 0)
        os.close(terminal)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return rest, None
    return rest, os.waitstatus_to_exitcode(status)


def test_ctrl_c_at_the_terminal_stops_the_runner_without_a_traceback(tmp_path: Path) -> None:
    bot = tmp_path / "my_bot.py"
    bot.write_text(BOT)
    rest, code = _ctrl_c_once_ready(bot)
    assert b"Traceback" not in rest, rest.decode(errors="replace")
    assert b"[runner] stopped (Ctrl-C)" in rest
    assert code == 130


def test_ctrl_c_handled_while_the_runner_is_not_yet_reading_still_stops_it(
        tmp_path: Path) -> None:
    """Python runs a signal's handler between its own steps, not inside a read: a Ctrl-C that
    came just before the runner began its next read was left pending until a line came.
    Here every Ctrl-C comes so: a thread of the bot (a library's, say) takes it, the one that
    reads has it blocked."""
    bot = tmp_path / "my_bot.py"
    bot.write_text("import signal\nimport threading\n\n"
                   "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
                   "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})\n" + BOT)
    rest, code = _ctrl_c_once_ready(bot)
    assert b"[runner] stopped (Ctrl-C)" in rest, rest.decode(errors="replace")
    assert code == 130


def test_ctrl_c_while_the_bot_loads_stops_the_runner_without_a_traceback(
        tmp_path: Path) -> None:
    """A bot that takes its time to load (a large model, say) is left with Ctrl-C too."""
    bot = tmp_path / "my_bot.py"
    bot.write_text("import sys\nimport threading\n\nprint('loading', file=sys.stderr, "
                   "flush=True)\nthreading.Event().wait()\n" + BOT)
    rest, code = _ctrl_c_once_ready(bot, ready=b"loading")
    assert b"Traceback" not in rest, rest.decode(errors="replace")
    assert b"[runner] stopped (Ctrl-C)" in rest
    assert code == 130


def test_the_decision_the_docs_give_to_type_is_answered_and_an_id_less_one_skipped(
        tmp_path: Path) -> None:
    """docs/BOTS.md's line to type, which leaves out the observation, reached the bot's act
    as a KeyError raised in the kit's code, and the runner ended blaming the bot."""
    typed = re.search(r'`(\{"type":"act",.*?\})`', (ROOT / "docs" / "BOTS.md").read_text())
    assert typed is not None, "docs/BOTS.md gives no 'act' to type by hand"
    bot = tmp_path / "my_bot.py"
    reads = "len(request.legal) - 1 + len(request.observation) + len(request.context)"
    bot.write_text(BOT.replace("return 0", f"return {reads}"))
    pid, terminal = pty.fork()
    if pid == 0:
        os.environ["PYTHONPATH"] = str(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "arena.sdk.runner", str(bot)])
    try:
        for line, answer in ((b'{"type":"hello","protocol":1}', b'"type":"ready"'),
                             (typed[1].encode(), b'{"type":"action","id":0,"choice":1}'),
                             (b'{"type": "act", "decision": "turn", "legal": [{}]}',
                              b"[runner] ignoring an 'act' without an integer 'id'"),
                             (b'{"type": "act", "id": 1, "decision": "turn", "legal": [{}]}',
                              b'{"type":"action","id":1,"choice":0}')):
            os.write(terminal, line + b"\n")
            assert answer in _read_until(terminal, answer)
        os.write(terminal, b"\x04")  # Ctrl-D at the start of a line: the end of input
        rest = _read_until(terminal, b"\x00never")
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(terminal)
    assert b"Traceback" not in rest and os.waitstatus_to_exitcode(status) == 0
