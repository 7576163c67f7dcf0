"""Transports: the scripted mock, and the subprocess transport's line handling, deadlines,
caps and non-blocking writes against real (sandboxed) child processes."""

from __future__ import annotations

import json
import select
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.protocol.transport import (
    Closed,
    Line,
    MockTransport,
    Overflow,
    SubprocessTransport,
    Timeout,
)
from arena.sandbox import Limits, launch
from arena.sandbox.reaper import find_processes

STARTUP_S = 60.0


def later(seconds: float = STARTUP_S) -> float:
    return time.monotonic() + seconds


# -- MockTransport ---------------------------------------------------------------------------


def test_mock_plays_a_list_script_then_closes() -> None:
    mock = MockTransport([{"type": "ready", "name": "m"}, "not json", Timeout(), b"raw\n"])
    mock.send({"type": "hello", "protocol": 1})
    assert mock.receive(0) == Line(b'{"type":"ready","name":"m"}')
    assert mock.receive(0) == Line(b"not json")
    assert mock.receive(0) == Timeout()
    assert mock.receive(0) == Line(b"raw")
    assert mock.receive(0) == Closed()
    assert mock.sent == [{"type": "hello", "protocol": 1}]


def test_mock_callable_answers_each_message_and_times_out_when_silent() -> None:
    def bot(message: dict) -> object:
        if message["type"] == "act":
            return {"type": "action", "id": message["id"], "choice": 0}
        if message["type"] == "bye":
            return [Closed()]
        return None

    mock = MockTransport(bot)
    mock.send_line(b'{"type":"event"}\n')
    assert mock.receive(0) == Timeout()
    mock.send({"type": "act", "id": 4})
    got = mock.receive(0)
    assert isinstance(got, Line) and json.loads(got.data)["id"] == 4
    assert got.text == '{"type":"action","id":4,"choice":0}'
    mock.send({"type": "bye"})
    assert mock.receive(0) == Closed()
    mock.close()
    mock.send({"type": "act", "id": 5})
    assert mock.receive(0) == Closed() and len(mock.sent) == 3


# -- SubprocessTransport ---------------------------------------------------------------------


@pytest.fixture
def start(tmp_path: Path) -> Iterator:
    """``start(source, limits=None)`` runs ``source`` as a sandboxed bot; all are killed and
    checked for leftovers afterwards."""
    started = []

    def run(source: str, limits: Limits | None = None) -> SubprocessTransport:
        bot_dir = tmp_path / f"bot{len(started)}"
        bot_dir.mkdir()
        (bot_dir / "bot.py").write_text(source)
        proc = launch(["python3", "bot.py"], workdir=bot_dir, limits=limits)
        transport = SubprocessTransport(proc)
        started.append(transport)
        return transport

    yield run
    for transport in started:
        transport.close()
        transport.process.kill_all()
        assert find_processes(marker=transport.process.marker) == []


ECHO = ("import sys\n"
        "for line in sys.stdin:\n"
        "    sys.stdout.write(line)\n"
        "    sys.stdout.flush()\n")


def test_messages_round_trip_as_json_lines(start) -> None:
    transport = start(ECHO)
    message = {"type": "act", "id": 1, "legal": [{"kind": "hold"}], "text": "žluťoučký"}
    transport.send(message)
    got = transport.receive(later())
    assert isinstance(got, Line) and json.loads(got.data) == message
    transport.send_line(b'{"type":"bye"}\n')
    assert transport.receive(later()) == Line(b'{"type":"bye"}')


def test_several_lines_in_one_write_and_one_line_in_pieces(start) -> None:
    transport = start("import sys, time\n"
                      "out = sys.stdout\n"
                      "out.write('one\\ntwo\\r\\nthr'); out.flush()\n"
                      "time.sleep(0.2)\n"
                      "out.write('ee\\n'); out.flush()\n"
                      "sys.stdin.readline()\n")
    assert transport.receive(later()) == Line(b"one")
    assert transport.receive(later()) == Line(b"two")
    assert transport.receive(later()) == Line(b"three")


def test_blank_lines_are_no_message(start) -> None:
    transport = start("import sys\n"
                      "sys.stdout.write('\\n \\t\\r\\n\\r\\none\\n\\n'); sys.stdout.flush()\n"
                      "sys.stdin.readline()\n")
    assert transport.receive(later()) == Line(b"one")
    assert isinstance(transport.receive(time.monotonic() + 0.05), Timeout)


def test_a_deadline_in_the_past_still_returns_what_is_already_there(start) -> None:
    transport = start("print('hi', flush=True)\nimport sys\nsys.stdin.readline()\n")
    got = transport.receive(later())
    assert got == Line(b"hi")
    assert transport.receive(time.monotonic() - 1) == Timeout()


def test_an_answer_written_before_the_deadline_passed_is_read_after_it(start) -> None:
    """The referee may look only once the deadline has passed (it was busy): an answer
    the bot had written by then is in time, though nothing of it was read before."""
    # the answer in one write, so the pipe never holds part of it
    transport = start("import os, sys\nprint('up', flush=True)\nsys.stdin.readline()\n"
                      "os.write(1, b'answer\\n')\nsys.stdin.readline()\n")
    assert transport.receive(later()) == Line(b"up")
    transport.send_line(b'{"type":"act"}\n')
    readable, _, _ = select.select([transport.process.stdout], [], [], STARTUP_S)
    assert readable, "the bot never answered"
    assert transport.receive(time.monotonic() - 1) == Line(b"answer")


def test_line_cap_is_inclusive_and_one_byte_more_overflows(start) -> None:
    limits = Limits(line_bytes=1000)
    exact = start("import sys\nprint('a' * 1000, flush=True)\nsys.stdin.readline()\n", limits)
    assert exact.receive(later()) == Line(b"a" * 1000)
    over = start("import sys\nprint('a' * 1001, flush=True)\nsys.stdin.readline()\n", limits)
    assert over.receive(later()) == Overflow(1000)
    assert over.receive(later()) == Overflow(1000)


#: A bot that writes ``CHUNK`` (a Python bytes literal) at ``PACE`` seconds apart, forever.
STREAM = ("import os, sys, time\n"
          "print('ready', flush=True)\n"
          "sys.stdin.readline()\n"
          "while True:\n"
          "    os.write(1, CHUNK)\n"
          "    time.sleep(PACE)\n")


def streaming(chunk: bytes, pace: float) -> str:
    return STREAM.replace("CHUNK", repr(chunk)).replace("PACE", repr(pace))


def asked(transport: SubprocessTransport) -> None:
    assert transport.receive(later()) == Line(b"ready")
    transport.send_line(b'{"type":"act","id":0}\n')


@pytest.mark.parametrize(("chunk", "one_line"), [
    (b"\n" * 4096, False), (b" \t \r\n" * 1024, False), (b"{" * 4096, True), (b" " * 4096, True),
])
def test_a_stream_of_blank_lines_or_a_partial_line_overflows(start, chunk: bytes,
                                                             one_line: bool) -> None:
    """Every byte counts: a flood of blank lines (or of one endless line) ends in an
    overflow well before a deadline far away, and reading stops there."""
    transport = start(streaming(chunk, 0.0), Limits(line_bytes=10_000))
    asked(transport)
    got = transport.receive(later())
    assert got == Overflow(10_000, line=one_line)
    assert transport.receive(later()) == got


@pytest.mark.parametrize("chunk", [b"\n", b"  \r\n", b"{"])
def test_a_trickle_of_blank_lines_or_of_a_partial_line_times_out(start, chunk: bytes) -> None:
    """A bot writing a little all the time, within its budget, is timed out at the deadline:
    the bytes arriving do not hold the clock."""
    transport = start(streaming(chunk, 0.001))
    asked(transport)
    assert transport.receive(time.monotonic() + 0.3) == Timeout()
    assert transport.receive(time.monotonic() - 1) == Timeout()  # past it: one look, no more
    if chunk == b"{":
        assert transport.unterminated() > 0


def test_a_new_message_gives_a_new_budget(start) -> None:
    """The budget is per message of the referee: blank lines before each answer add up only
    until the referee writes again."""
    transport = start("import sys\n"
                      "for line in sys.stdin:\n"
                      "    sys.stdout.write('\\n' * 600 + 'ok\\n'); sys.stdout.flush()\n",
                      Limits(line_bytes=1000))
    for _ in range(3):
        transport.send_line(b"go\n")
        assert transport.receive(later()) == Line(b"ok")


def test_closed_carries_the_exit_status(start) -> None:
    transport = start("import sys\nprint('bye', flush=True)\nsys.exit(5)\n")
    assert transport.receive(later()) == Line(b"bye")
    got = transport.receive(later())
    assert isinstance(got, Closed) and got.status is not None and got.status.exit_code == 5
    transport.send({"type": "act"})  # writing to a dead bot is not an error
    assert isinstance(transport.receive(later()), Closed)
    transport.close()
    assert isinstance(transport.receive(later()), Closed)


def test_sending_to_a_bot_that_never_reads_does_not_block(start) -> None:
    transport = start("import time\nprint('up', flush=True)\ntime.sleep(3600)\n")
    assert transport.receive(later()) == Line(b"up")
    payload = b'{"type":"event","pad":"' + b"x" * 100_000 + b'"}\n'

    def flood() -> None:
        for _ in range(50):  # 5 MB, far beyond any pipe buffer
            transport.send_line(payload)

    sender = threading.Thread(target=flood, daemon=True)
    sender.start()
    sender.join(STARTUP_S)
    assert not sender.is_alive()
    assert transport.receive(time.monotonic() + 0.1) == Timeout()


def test_a_message_larger_than_the_pipe_is_written_while_the_referee_waits(start) -> None:
    """What the pipe does not take at once is written by ``receive`` as the bot reads."""
    transport = start("import sys\n"
                      "for line in sys.stdin:\n"
                      "    print(len(line), flush=True)\n")
    payload = b'{"pad":"' + b"x" * 1_000_000 + b'"}\n'
    transport.send_line(payload)
    assert transport.receive(later()) == Line(str(len(payload)).encode())
    transport.send_line(b"short\n")  # nothing left over from the long one
    assert transport.receive(later()) == Line(b"6")


def test_a_bot_that_closes_its_input_with_bytes_pending_still_answers(start) -> None:
    transport = start("import os, sys, time\n"
                      "print('up', flush=True)\n"
                      "time.sleep(0.2)\n"
                      "os.close(0)\n"
                      "time.sleep(0.2)\n"
                      "print('done', flush=True)\n"
                      "time.sleep(3600)\n")
    assert transport.receive(later()) == Line(b"up")
    transport.send_line(b'{"pad":"' + b"x" * 1_000_000 + b'"}\n')  # more than the pipe takes
    assert transport.receive(later()) == Line(b"done")
    transport.send_line(b"more\n")  # writing to a closed input is not an error
    assert transport.receive(time.monotonic() + 0.1) == Timeout()
