"""The bot's captured log: a game's part of it is found by byte position, whatever the cap
dropped before, and what the bot wrote is read from the pipe when asked for, not whenever the
draining thread gets to it."""

from __future__ import annotations

import os

from arena.sandbox.stderr import StderrDrain


def _drain(cap: int) -> tuple[StderrDrain, int]:
    read, write = os.pipe()
    return StderrDrain(os.fdopen(read, "rb", buffering=0), cap), write


def test_what_is_in_the_pipe_is_read_when_asked_for() -> None:
    drain, write = _drain(4096)  # its thread never started: only the caller reads
    os.write(write, b"decision 1\n")
    assert drain.since(0) == ("decision 1\n", 11)
    os.write(write, b"decision 2\n")
    assert drain.since(11) == ("decision 2\n", 22)
    assert drain.since(22) == ("", 22)
    os.close(write)


def test_positions_count_bytes_written_past_the_cap() -> None:
    drain, write = _drain(400)  # 300 bytes of head, 100 of tail
    pieces = [f"{n:04d}|".encode() for n in range(200)]  # 1,000 bytes, 5 each
    for piece in pieces:
        os.write(write, piece)
    data = b"".join(pieces).decode()
    text, total = drain.since(0)
    assert total == 1000
    assert text == data[:300] + "[... 600 bytes of stderr dropped ...]\n" + data[900:]
    assert drain.since(950) == (data[950:], 1000)  # within the tail: exact
    assert drain.since(100) == (data[100:300] + "[... 600 bytes of stderr dropped ...]\n"
                                + data[900:], 1000)
    assert drain.since(1000) == ("", 1000)
    os.write(write, b"late")
    assert drain.since(1000) == ("late", 1004)
    os.close(write)
    assert drain.since(1004) == ("", 1004)  # end of input: nothing, and no error


def test_the_whole_log_and_its_tail_read_the_pipe_first() -> None:
    """How a bot died is judged from its last lines (``MemoryError`` is a memory_limit, the
    traceback is quoted): a bot that wrote them and exited must not be judged before the
    draining thread ran (a crash once recorded as an unexplained exit code 1)."""
    drain, write = _drain(4096)
    os.write(write, b"Traceback (most recent call last):\nMemoryError\n")
    assert drain.tail_text().endswith("MemoryError\n")
    os.write(write, b"more\n")
    assert drain.text().endswith("MemoryError\nmore\n")
    os.close(write)


def test_settle_reads_to_the_end_or_gives_up_at_its_timeout() -> None:
    drain, write = _drain(4096)
    os.write(write, b"last words\n")
    drain.settle(0.0)  # reads what is there even with no time to wait
    assert drain.since(0) == ("last words\n", 11)
    os.close(write)
    drain.settle(5.0)  # the writer is gone: returns at the end of the pipe, not at 5 s
    assert drain._eof
    held, writer = _drain(4096)  # a grandchild keeps the pipe open: the timeout ends it
    held.settle(0.01)
    assert not held._eof
    os.close(writer)
