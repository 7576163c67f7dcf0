"""Bots in other languages (bots/examples, examples/): a C program and a Rust one, compiled
here, and a Node.js script pass the compliance check and play a match, under every sandbox
mode; so does a Java bot's check."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.referee.check import check_bot
from arena.referee.launch import sandbox_launcher
from arena.referee.match import MatchRequest, play_match
from arena.registry import resolve, spec_from_path
from arena.sandbox import SandboxReport, probe

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples"
COMPILER = shutil.which("cc") or shutil.which("gcc")
NODE = shutil.which("node")
RUSTC = shutil.which("rustc")
JAVAC = shutil.which("javac")
#: A Java bot that seeds itself from SecureRandom, which loads the JVM's java.security file
#: (on Debian, under /etc/java-*), then answers option 0 to every act.
JAVA_BOT = """\
import java.io.*;
import java.security.SecureRandom;
public class Bot {
    public static void main(String[] args) throws IOException {
        long seed = new SecureRandom().nextLong();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\\"type\\":\\"hello\\"")) {
                System.out.println("{\\"type\\":\\"ready\\",\\"name\\":\\"java_bot\\"}");
            } else if (line.startsWith("{\\"type\\":\\"act\\"")) {
                String id = line.split("[:,]")[3];
                System.out.println("{\\"type\\":\\"action\\",\\"id\\":" + id + ",\\"choice\\":0}");
            } else if (line.contains("\\"type\\":\\"bye\\"")) {
                break;
            }
        }
        System.err.println("seeded " + seed);
    }
}
"""


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if COMPILER is None:
        pytest.skip("no C compiler (cc, gcc) here")
    bot = tmp_path_factory.mktemp("c") / "c_bot"
    shutil.copytree(EXAMPLES / "c_bot", bot)
    subprocess.run([COMPILER, "-O2", "-o", "bot", "bot.c"], cwd=bot, check=True)
    return bot


@pytest.fixture(scope="module")
def rust_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if RUSTC is None:
        pytest.skip("no Rust compiler (rustc) here")
    bot = tmp_path_factory.mktemp("rust") / "rust_bot"
    shutil.copytree(EXAMPLES / "rust_bot", bot)
    subprocess.run([RUSTC, "-O", "-o", "bot", "bot.rs"], cwd=bot, check=True)  # as it says
    return bot


@pytest.fixture(scope="module")
def java_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if JAVAC is None or shutil.which("java") is None:
        pytest.skip("no java and javac here")
    bot = tmp_path_factory.mktemp("java") / "java_bot"
    bot.mkdir()
    (bot / "Bot.java").write_text(JAVA_BOT)
    subprocess.run([JAVAC, "Bot.java"], cwd=bot, check=True)
    # the command docs/BOTS.md gives a JVM to start within the default memory_mb
    (bot / "bot.yaml").write_text("name: java_bot\ncommand: [java, -XX:+UseSerialGC, -Xmx256m, "
                                  "-XX:CompressedClassSpaceSize=64m, -cp, ., Bot]\n")
    return bot


@pytest.fixture
def node_bot() -> Path:
    if NODE is None:
        pytest.skip("no node here")
    return EXAMPLES / "node_bot"


def test_a_compiled_bot_passes_the_check(report: SandboxReport, c_bot: Path) -> None:
    checked = check_bot(spec_from_path(c_bot), launcher=sandbox_launcher(report))
    assert checked.ok, checked.failures()


def test_a_rust_bot_passes_the_check(report: SandboxReport, rust_bot: Path) -> None:
    checked = check_bot(spec_from_path(rust_bot), launcher=sandbox_launcher(report))
    assert checked.ok, checked.failures()


def test_a_node_bot_passes_the_check(report: SandboxReport, node_bot: Path) -> None:
    checked = check_bot(spec_from_path(node_bot), launcher=sandbox_launcher(report))
    assert checked.ok, checked.failures()


def test_a_java_bot_using_securerandom_passes_the_check(report: SandboxReport,
                                                        java_bot: Path) -> None:
    # Debian's JVM reads java.security through a link into /etc/java-17-openjdk, which the
    # sandbox did not show: "InternalError: Error loading java.security file" at start-up
    checked = check_bot(spec_from_path(java_bot), games=1, launcher=sandbox_launcher(report))
    assert checked.ok, checked.failures()


def test_they_play_a_match(report: SandboxReport, c_bot: Path, node_bot: Path,
                           rust_bot: Path) -> None:
    outcome = play_match(MatchRequest(
        bots=[spec_from_path(c_bot), spec_from_path(node_bot), spec_from_path(rust_bot),
              resolve(ROOT / "bots" / "random.py")],
        games=3, seed=2, launcher=sandbox_launcher(report), event_date=dt.date(2026, 12, 1)))
    assert [f for game in outcome.games for f in game.failures] == []
    assert outcome.names[:3] == ["c_bot", "node_bot", "rust_bot"]
    assert all(len(game.placements) == 4 and not game.forfeits for game in outcome.games)
