"""The runner as a bot author meets it: its command line, and its standard streams
(docs/BOTS.md): stdout and stdin belong to the protocol, so bot code reading stdin gets
nothing and takes no line of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.protocol import messages
from arena.sdk import runner

ROOT = Path(__file__).resolve().parents[2]


def test_a_bot_that_reads_stdin_gets_nothing_and_the_protocol_goes_on(tmp_path: Path) -> None:
    bot = tmp_path / "reader.py"
    bot.write_text("import sys\nfrom arena.sdk import Bot\n\n\nclass Reader(Bot):\n"
                   "    def act(self, request):\n"
                   "        self.log(f'stdin gave {sys.stdin.readline()!r}')\n"
                   "        return 1\n")
    acts = [messages.act(n, "turn", {}, [{"a": 1}, {"b": 2}]) for n in range(2)]
    done = subprocess.run([sys.executable, "-m", "arena.sdk.runner", str(bot)],
                          input=b"".join([messages.hello(), *acts, messages.bye()]),
                          capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr.decode()
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a["type"], a.get("id")) for a in answers] == [
        ("ready", None), ("action", 0), ("action", 1)]
    assert done.stderr.decode().splitlines() == ["stdin gave ''"] * 2


@pytest.mark.parametrize("argv", [[], ["bot.py", "--class"], ["--class", "B"],
                                  ["a.py", "b.py"], ["bot.py", "--class", "B", "extra"]])
def test_a_command_line_the_runner_cannot_use_gets_its_usage(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert runner.main(argv) == 2
    assert capsys.readouterr().err == "usage: python -m arena.sdk.runner BOT.py [--class NAME]\n"


def test_the_runner_plays_the_class_its_command_line_names(tmp_path: Path) -> None:
    """The command docs/BOTS.md gives for a file of several bots; a Bot subclass the file
    only imports (the kit's SearchBot here) is none of them."""
    bot = tmp_path / "two.py"
    bot.write_text("from arena.sdk import Bot\nfrom arena.sdk.search import SearchBot\n\n\n"
                   "class First(Bot):\n    def act(self, request):\n        return 0\n\n\n"
                   "class Second(Bot):\n    def act(self, request):\n        return 1\n")
    lines = [messages.hello(), messages.act(0, "turn", {}, [{"a": 1}, {"b": 2}]), messages.bye()]
    for chosen, choice in (("First", 0), ("Second", 1)):
        done = subprocess.run(
            [sys.executable, "-m", "arena.sdk.runner", str(bot), "--class", chosen],
            input=b"".join(lines), capture_output=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr.decode()
        ready, action = (json.loads(line) for line in done.stdout.splitlines())
        assert (ready["name"], action["choice"]) == (chosen, choice)
    alone = tmp_path / "alone.py"
    alone.write_text(bot.read_text().split("class Second")[0])
    assert runner.load_bot_class(alone).__name__ == "First"
