"""``arena check-bot`` of bots in other languages, as their authors first write them: what the
failure says when a runtime cannot start under the sandbox's default limits. Each test skips
where its tools are absent."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.referee.check import check_bot
from arena.referee.hints import JVM_HINT, LIBRARY_HINT, RESERVE_HINT, THREAD_HINT, log_quote
from arena.sandbox import probe

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="no node here")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler here")
#: A bot sees only its own files and the system's (bubblewrap, or Landlock without it).
needs_file_isolation = pytest.mark.skipif(
    not (probe().active("bwrap") or probe().active("landlock")),
    reason="no layer hides the host's files here")
#: A bot's threads count against its processes limit: it runs under a uid of its own, or the
#: referee is not root (RLIMIT_NPROC does not bind root).
needs_process_limit = pytest.mark.skipif(
    probe().uid is None and os.geteuid() == 0, reason="bots run as root here: no thread limit")
needs_java = pytest.mark.skipif(shutil.which("java") is None or shutil.which("javac") is None,
                                reason="no java and javac here")

#: A Java bot of the line protocol: ready, then option 0 for every act.
JAVA_BOT = """\
import java.io.*;
public class Bot {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\\"type\\":\\"hello\\"")) {
                System.out.println("{\\"type\\":\\"ready\\",\\"name\\":\\"javabot\\"}");
            } else if (line.startsWith("{\\"type\\":\\"act\\"")) {
                String id = line.split("[:,]")[3];
                System.out.println("{\\"type\\":\\"action\\",\\"id\\":" + id + ",\\"choice\\":0}");
            } else if (line.contains("\\"type\\":\\"bye\\"")) {
                break;
            }
        }
    }
}
"""

#: A bot that answers 'hello' with two lines of its own on stdout, the second its reason.
TWO_LINES_BOT = """\
import sys
sys.stdin.readline()
print("Warning: no config file, using defaults")
print("Fatal: weights.bin is missing")
sys.exit(3)
"""
#: The same, with its traceback on stdout: the exception ends it.
TRACEBACK_BOT = """\
import sys
sys.stdin.readline()
sys.stderr = sys.stdout
open("weights.bin")
"""


def _command_bot(tmp_path: Path, source: str) -> Path:
    bot = tmp_path / "talker"
    bot.mkdir()
    (bot / "bot.py").write_text(source)
    (bot / "bot.yaml").write_text("name: talker\ncommand: [python3, bot.py]\n")
    return bot


@needs_sandbox
def test_a_bad_answer_quotes_the_lines_after_the_first_where_the_reason_is(
        tmp_path: Path) -> None:
    code, lines = _check(_command_bot(tmp_path, TWO_LINES_BOT))
    assert code == 1
    handshake = next(line for line in lines if "handshake" in line)
    assert "not JSON: 'Warning: no config file, using defaults'" in handshake
    assert "; then on stdout: 'Fatal: weights.bin is missing'" in handshake


@needs_sandbox
def test_a_traceback_on_stdout_is_quoted_to_its_exception(tmp_path: Path) -> None:
    code, lines = _check(_command_bot(tmp_path, TRACEBACK_BOT))
    assert code == 1
    handshake = next(line for line in lines if "handshake" in line)
    assert "not JSON: 'Traceback (most recent call last):'" in handshake
    assert handshake.endswith(
        "\"FileNotFoundError: [Errno 2] No such file or directory: 'weights.bin'\"")


@needs_sandbox
def test_a_traceback_on_stdout_names_the_authors_files_to_the_author_alone(
        tmp_path: Path) -> None:
    # the log's traceback named the author's file while the stdout quote beside it named the
    # sandbox's copy (/bot/bot.py)
    bot = _command_bot(tmp_path, TRACEBACK_BOT)
    handshake = next(line for line in _check(bot)[1] if "handshake" in line)
    assert f"then on stdout: 'File \"{bot}/bot.py\", line 4, in <module>'" in handshake
    # a league's vet stores the reason and shows it to others: no path of the host
    vetted = check_bot(bot, games=1, look_beside=False).failures()[0]
    assert "then on stdout: 'File \"" in vetted and str(tmp_path) not in vetted


#: The flags docs/BOTS.md gives a JVM to start within the default memory_mb.
JVM_FLAGS = "-XX:+UseSerialGC, -Xmx256m, -XX:CompressedClassSpaceSize=64m"


def _java_bot(tmp_path: Path, flags: str) -> Path:
    bot = tmp_path / "javabot"
    bot.mkdir()
    (bot / "Bot.java").write_text(JAVA_BOT)
    subprocess.run(["javac", "Bot.java"], cwd=bot, check=True, capture_output=True)
    (bot / "bot.yaml").write_text(f"name: javabot\ncommand: [java, {flags}-cp, ., Bot]\n")
    return bot


def _check(bot: Path) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["check-bot", str(bot), "--games", "1"],
                           env={"ARENA_BOTS_DIR": str(bot.parent)})
    return result.exit_code, result.stdout.splitlines()


@needs_sandbox
@needs_java
def test_a_jvm_without_flags_is_told_its_words_are_the_jvms_and_what_starts_it(
        tmp_path: Path) -> None:
    # The JVM writes its warnings and start-up error to stdout; the first one looked like a
    # piece of a pretty-printed message, and the author was told so.
    code, lines = _check(_java_bot(tmp_path, ""))
    assert code == 1
    handshake = next(line for line in lines if "handshake" in line)
    assert handshake.startswith("✗ handshake: bad answer to 'hello': not JSON: ")
    assert JVM_HINT in handshake
    # its first line is a warning; why it stopped follows it on stdout, and is quoted too
    assert "; then on stdout" in handshake.partition(JVM_HINT)[2]


@needs_sandbox
@needs_java
def test_a_jvm_with_the_documented_flags_passes_within_the_default_limits(
        tmp_path: Path) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "BOTS.md").read_text()
    assert f"command: [java, {JVM_FLAGS}, -cp, ., Bot]" in " ".join(docs.split())
    code, lines = _check(_java_bot(tmp_path, JVM_FLAGS + ", "))
    assert code == 0, lines
    assert lines[-1] == "PASS: javabot is ready to submit."


#: A Node bot that starts a pool of worker threads and reads its first line once they are all
#: running (a pool started at leisure would fail before or after the answer, by the load).
NODE_WORKER_BOT = """\
const { Worker } = require('worker_threads');
let running = 0;
for (let i = 0; i < 8; i++) {
  new Worker('setInterval(() => {}, 1000)', { eval: true }).on('online', () => {
    if (++running === 8) serve();
  });
}
function serve() {
  require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const message = JSON.parse(line);
    if (message.type === 'hello') console.log(JSON.stringify({ type: 'ready', name: 'pool' }));
    const answer = { type: 'action', id: message.id, choice: 0 };
    if (message.type === 'act') console.log(JSON.stringify(answer));
    if (message.type === 'bye') process.exit(0);
  });
}
"""


@needs_sandbox
@needs_node
def test_a_node_worker_that_cannot_reserve_its_memory_is_told_memory_mb_is_address_space(
        tmp_path: Path) -> None:
    # V8's "Fatal process OOM in Failed to reserve virtual memory for CodeRange" was quoted
    # alone: an author reads "OOM" of a bot that has used almost nothing
    bot = tmp_path / "pool"
    bot.mkdir()
    (bot / "bot.js").write_text(NODE_WORKER_BOT)
    (bot / "bot.yaml").write_text("name: pool\ncommand: [node, bot.js]\n")
    code, lines = _check(bot)
    assert code == 1
    handshake = next(line for line in lines if "handshake" in line)
    assert "Failed to reserve virtual memory" in handshake
    assert handshake.endswith(f"; {RESERVE_HINT}")


@pytest.mark.parametrize("line", [
    "# Fatal process OOM in Failed to reserve virtual memory for CodeRange",
    "# There is insufficient memory for the Java Runtime Environment to continue.",
    "Error: Could not reserve enough space for object heap"])
def test_a_runtimes_failed_reservation_is_hinted_at_memory_mb(line: str) -> None:
    assert log_quote(f"starting\n{line}\n").endswith(f"; {RESERVE_HINT}")


def test_a_plain_crash_gets_no_memory_hint() -> None:
    assert RESERVE_HINT not in log_quote("Error: cannot read property 'legal' of undefined\n")


#: A bot that reserves 1,300 MiB of address space at start-up, as a runtime sized for the
#: host does, and touches none of it.
RESERVING_BOT = """\
import mmap

from arena.sdk import Bot

RESERVED = mmap.mmap(-1, 1300 * 2**20)


class Reserving(Bot):
    name = "reserving"

    def act(self, request):
        return 0
"""


def _reserving(tmp_path: Path) -> Path:
    bot = tmp_path / "reserving.py"
    bot.write_text(RESERVING_BOT)
    return bot


@needs_sandbox
def test_check_bot_and_submit_check_under_the_memory_mb_a_tournament_would_give(
        tmp_path: Path) -> None:
    # such a bot could play under a spec's limits: {memory_mb: 2048}, but neither check-bot
    # nor submit had a way to give it more than the default: it could never be registered
    bot = _reserving(tmp_path)
    env = {"ARENA_BOTS_DIR": str(tmp_path / "registry")}
    (tmp_path / "registry").mkdir()
    failed = runner.invoke(app, ["check-bot", str(bot), "--games", "1"], env=env)
    assert failed.exit_code == 1
    # the limit it ran into is named at start-up as it is mid-game
    assert "(out of memory)); its memory limit: 1024 MiB (memory_mb; --memory-mb of arena " \
           "check-bot, submit, match); OSError: [Errno 12] Cannot allocate memory (at " \
           "reserving.py line 5, in <module>)" in failed.stdout
    checked = runner.invoke(app, ["check-bot", str(bot), "--games", "1", "--memory-mb", "2048"],
                            env=env)
    assert checked.exit_code == 0, checked.output
    submitted = runner.invoke(app, ["submit", str(bot), "--memory-mb", "2048"], env=env)
    assert submitted.exit_code == 0, submitted.output
    assert "Registered reserving version " in submitted.stdout


@needs_sandbox
def test_match_plays_under_the_memory_mb_given(tmp_path: Path) -> None:
    bot = _reserving(tmp_path)
    played = runner.invoke(app, ["match", str(bot), str(bot), "--games", "1", "--seed",
                                 str(2**62), "--memory-mb", "2048"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert played.exit_code == 0, played.output
    assert "No timeouts, failures or restarts." in played.stdout


#: A C bot that starts a pool of a hundred threads, one per core of a big host, before it
#: answers 'hello'.
C_POOL_BOT = """\
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *idle(void *arg) { (void)arg; pause(); return NULL; }

int main(void) {
    for (int i = 0; i < 100; i++) {
        pthread_t thread;
        int error = pthread_create(&thread, NULL, idle, NULL);
        if (error) {
            fprintf(stderr, "pthread_create failed: %s\\n", strerror(error));
            return 1;
        }
    }
    puts("{\\"type\\":\\"ready\\",\\"name\\":\\"pool\\"}");
    return 0;
}
"""


@needs_sandbox
@needs_process_limit
@needs_cc
def test_a_thread_pool_past_the_process_limit_is_told_so(tmp_path: Path) -> None:
    # "pthread_create failed: Resource temporarily unavailable" was quoted alone; nothing
    # said that a bot's threads count against its processes
    bot = tmp_path / "pool"
    bot.mkdir()
    (bot / "bot.c").write_text(C_POOL_BOT)
    subprocess.run(["cc", "-O2", "-pthread", "-o", "bot", "bot.c"], cwd=bot, check=True,
                   capture_output=True)
    (bot / "bot.yaml").write_text("name: pool\ncommand: [./bot]\n")
    code, lines = _check(bot)
    assert code == 1
    handshake = next(line for line in lines if "handshake" in line)
    assert handshake.endswith(
        f"pthread_create failed: Resource temporarily unavailable; {THREAD_HINT}")


@pytest.mark.parametrize("log", [
    "thread 'main' panicked at library/std/src/thread/mod.rs:686:29:\nfailed to spawn "
    'thread: Os { code: 11, kind: WouldBlock, message: "Resource temporarily unavailable" }\n'
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
    'Exception in thread "main" java.lang.OutOfMemoryError: unable to create native thread: '
    "possibly out of memory or process/resource limits reached\n\tat Bot.main(Bot.java:6)\n"])
def test_a_runtimes_thread_that_could_not_start_is_hinted_at_the_limits(log: str) -> None:
    assert log_quote(log).endswith(f"; {THREAD_HINT}")


@needs_sandbox
@needs_file_isolation
@needs_cc
@pytest.mark.parametrize("rpath", ["{library}", "$ORIGIN"])
def test_a_binary_linked_to_a_library_outside_the_bot_is_told_where_to_put_it(
        tmp_path: Path, rpath: str) -> None:
    # the dynamic loader's "cannot open shared object file" was quoted alone, of a library
    # the author sees on the host
    library, bot = tmp_path / "lib", tmp_path / "linked"
    library.mkdir()
    bot.mkdir()
    (library / "helper.c").write_text("int helper(void) { return 0; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", "libhelper.so", "helper.c"], cwd=library,
                   check=True, capture_output=True)
    (bot / "bot.c").write_text("#include <stdio.h>\nint helper(void);\nint main(void) {\n"
                               '    puts("{\\"type\\":\\"ready\\",\\"name\\":\\"linked\\"}");\n'
                               "    return helper();\n}\n")
    if rpath == "$ORIGIN":  # what the hint says: the library shipped with the bot
        (bot / "libhelper.so").write_bytes((library / "libhelper.so").read_bytes())
    subprocess.run(["cc", "-o", "bot", "bot.c", f"-L{library}", "-lhelper",
                    f"-Wl,-rpath,{rpath.format(library=library)}"], cwd=bot, check=True,
                   capture_output=True)
    (bot / "bot.yaml").write_text("name: linked\ncommand: [./bot]\n")
    code, lines = _check(bot)
    handshake = next(line for line in lines if "handshake" in line)
    if rpath == "$ORIGIN":
        assert handshake.startswith("✓ handshake"), lines
        return
    assert code == 1
    assert "libhelper.so: cannot open shared object file: No such file or directory" in handshake
    assert handshake.endswith(f"; {LIBRARY_HINT}")


def test_a_deep_java_stack_is_quoted_by_its_exception_not_its_outermost_frame() -> None:
    # javac's launcher failing in the sandbox left 40 frames under its exception: the quote
    # was "at jdk.compiler/com.sun.tools.javac.launcher.Main.main(Main.java:132)"
    frames = [f"\tat java.base/java.util.Frame{n}.call(Frame{n}.java:{n})" for n in range(40)]
    log = "\n".join(['Exception in thread "main" java.lang.InternalError: Error loading '
                     "java.security file", *frames, "\tat jdk.compiler/com.sun.tools.javac."
                     "launcher.Main.main(Main.java:132)", ""])
    assert log_quote(log) == ('; last error in its log: Exception in thread "main" '
                              "java.lang.InternalError: Error loading java.security file")
    caused = log + "Caused by: java.io.FileNotFoundException: x (No such file)\n\t... 41 more\n"
    assert log_quote(caused) == ("; last error in its log: Caused by: "
                                 "java.io.FileNotFoundException: x (No such file)")
