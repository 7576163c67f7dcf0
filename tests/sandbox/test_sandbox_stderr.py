"""The bot's captured log: a game's part of it is found by byte position, whatever the cap
dropped before, and what the bot wrote is read from the pipe when asked for, not whenever the
draining thread gets to it."""

from __future__ import annotations

import os

from arena.sandbox.launcher import _StderrDrain


def _drain(cap: int) -> tuple[_StderrDrain, int]:
    read, write = os.pipe()
    return _StderrDrain(os.fdopen(read, "rb", buffering=0), cap), write


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
