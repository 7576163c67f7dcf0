"""What a single-file bot's stored failure says of the files beside it: nothing the host holds
(a rival's file in a shared directory), while its author's own match still looks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from referee_fakes import FAST, FakeConnection, fake_spec

from arena.referee.hints import OWN_FILE_ONLY_HINT
from arena.referee.match import MatchRequest, play_match

#: The spy's last words: it opened a file it hoped lies beside it, and crashed.
_OPENED = ('Traceback (most recent call last):\n'
           '  File "/bot/spy.py", line 9, in act\n'
           "    open('{name}')\n"
           "FileNotFoundError: [Errno 2] No such file or directory: '{name}'\n")


def _spy_failure(students: Path, opened: str, look_beside: bool) -> str:
    """The failure stored for ``students/spy.py``, which opens ``opened`` and crashes, in a
    match against an honest bot: what a tournament's game keeps when ``look_beside`` is
    false."""
    spy = fake_spec("spy", students / "spy.py")
    object.__setattr__(spy, "command", ("spy",))
    honest = fake_spec("honest", students / "honest.py")
    object.__setattr__(honest, "command", ("honest",))

    def launch(command: Any, workdir: Any, limits: Any) -> FakeConnection:
        if command[0] == "honest":
            return FakeConnection()
        return FakeConnection(respond=lambda message: "crash",
                              log=_OPENED.format(name=opened))

    request = MatchRequest(bots=[spy, honest], games=1, limits=FAST, launcher=launch,
                           event_date=dt.date(2026, 11, 29), look_beside=look_beside)
    (game,) = play_match(request).games
    details = [f["detail"] for f in game.failures if f["bot"].startswith("spy")]
    return details[-1]


@pytest.fixture
def students(tmp_path: Path) -> Path:
    """A class contest's shared directory: bots entered by path, side by side."""
    shared = tmp_path / "students"
    shared.mkdir()
    for name in ("spy.py", "honest.py"):
        (shared / name).write_text("")
    return shared


def test_a_stored_failure_says_nothing_of_a_rivals_file(students: Path) -> None:
    absent = _spy_failure(students, "honest_book.json", look_beside=False)
    (students / "honest_book.json").write_text("{}")
    present = _spy_failure(students, "honest_book.json", look_beside=False)
    assert present == absent  # nothing tells whether the rival's file exists
    assert present.endswith(OWN_FILE_ONLY_HINT)
    assert "lies beside" not in present


def test_the_authors_own_match_still_says_what_lies_beside_the_bot(students: Path) -> None:
    (students / "book.json").write_text("{}")
    told = _spy_failure(students, "book.json", look_beside=True)
    assert "hint: book.json lies beside spy.py, but a single-file bot is copied alone" in told
    assert "lies beside" not in _spy_failure(students, "nothing.json", look_beside=True)


def test_a_tournaments_match_does_not_look_beside_by_default() -> None:
    assert MatchRequest(bots=[]).look_beside is False
