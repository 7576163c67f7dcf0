"""A hook defined without the argument the runner passes (``def act(self)``) is refused at
start-up, naming the hook, its line and what to write, where the call itself used to raise a
``TypeError`` at the first decision that named no line of the bot's file; the same bot run
in-process (``BotAgent``: ``arena game --rerun``, ``arena bench``, the RL opponents) is
refused in the same words when its agent is made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import BotLoadError
from arena.protocol import messages
from arena.sandbox import probe
from arena.sdk.local import BotAgent
from arena.sdk.runner import load_bot

ROOT = Path(__file__).resolve().parents[2]
HEAD = "from arena.sdk import Bot\n\n\nclass MyBot(Bot):\n"


def _run(tmp_path: Path, body: str) -> subprocess.CompletedProcess[bytes]:
    bot = tmp_path / "my_bot.py"
    bot.write_text(HEAD + body)
    acts = [messages.act(0, "turn", {}, [{"action": "hold"}])]
    return subprocess.run([sys.executable, "-m", "arena.sdk.runner", str(bot)],
                          input=b"".join([messages.hello(), *acts, messages.bye()]),
                          capture_output=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


#: Bots the kit cannot call, each with what it is told.
_REFUSED = [
    ("    def act(self):\n        return 0\n",
     "MyBot.act(self) (my_bot.py line 5) is called with one argument, the request: write def "
     "act(self, request)"),
    ("    def on_game_start(self):\n        self.n = 0\n\n"
     "    def act(self, request):\n        return 0\n",
     "MyBot.on_game_start(self) (my_bot.py line 5) is called with one argument, the game: "
     "write def on_game_start(self, game)"),
    ("    def act(self, request, depth):\n        return 0\n",
     "MyBot.act(self, request, depth) (my_bot.py line 5) is called with one argument, the "
     "request: write def act(self, request)"),
    ("    def choose(self, request):\n        return 0\n",
     "MyBot has no act(self, request), which the kit calls at every decision (MyBot defines "
     "choose): write def act(self, request)"),
]


@pytest.mark.parametrize(("body", "told"), _REFUSED)
def test_a_hook_missing_its_argument_is_refused_at_start_up(
        tmp_path: Path, body: str, told: str) -> None:
    done = _run(tmp_path, body)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines() == [f"[runner] {told}"]


@pytest.mark.parametrize(("body", "told"), _REFUSED)
def test_a_hook_missing_its_argument_is_refused_in_process(
        tmp_path: Path, body: str, told: str) -> None:
    bot = tmp_path / "my_bot.py"
    bot.write_text(HEAD + body)
    with pytest.raises(BotLoadError) as refused:
        BotAgent(load_bot(bot))
    assert str(refused.value) == told


@pytest.mark.parametrize("body", [
    "    def act(self, request, depth=2):\n        return 0\n",
    "    def act(self, *args):\n        return 0\n",
    "    @staticmethod\n    def act(request):\n        return 0\n",
    "    def on_event(self, event, *rest):\n        pass\n\n"
    "    def act(self, r):\n        return 0\n",
])
def test_a_hook_the_runner_can_call_is_served(tmp_path: Path, body: str) -> None:
    done = _run(tmp_path, body)
    assert done.returncode == 0, done.stderr.decode()
    assert [line for line in done.stdout.splitlines() if b'"action"' in line]


@pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
def test_check_bot_tells_a_student_which_line_to_change(tmp_path: Path) -> None:
    bot = tmp_path / "noarg.py"
    bot.write_text(HEAD + "    name = 'noarg'\n\n    def act(self) -> int:\n        return 0\n")
    result = CliRunner().invoke(app, ["check-bot", str(bot), "--games", "1"],
                                env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 1
    assert result.stdout.splitlines()[1:] == [
        "✗ handshake: exited before answering 'hello' (exit code 2); last log line: [runner] "
        "MyBot.act(self) (noarg.py line 7) is called with one argument, the request: write "
        "def act(self, request)",
        "FAIL: 1 of 1 checks failed."]
