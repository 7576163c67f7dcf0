"""What an author reads of a bot that crashes during a game: the end of its traceback, with
its own file and line, and for a missing module where packages come from."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.referee.hints import READ_ONLY_ANY_HINT, log_note, traceback_note
from arena.sandbox import probe

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bots"
GREEDY = Path(__file__).resolve().parents[2] / "bots" / "greedy.py"

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
probe_module = importlib.import_module("arena.sandbox.probe")


def _failures(*args: str, bots_dir: Path) -> list[str]:
    result = runner.invoke(app, ["match", *args, str(GREEDY), "--games", "1", "--seed", "3"],
                           env={"ARENA_BOTS_DIR": str(bots_dir)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    return lines[lines.index("Failures:") + 1:lines.index("Failures:") + 2]


@needs_sandbox
def test_a_crash_mid_game_names_the_bots_file_line_and_exception(tmp_path: Path) -> None:
    assert _failures(str(FIXTURES / "crasher.py"), bots_dir=tmp_path) == [
        "  crasher crash (game 0): exited mid-game (exit code 1); RuntimeError: deliberate "
        "crash in the middle of a game (at crasher.py line 15, in act)"]


@needs_sandbox
def test_a_module_missing_mid_game_points_to_the_bots_requirements(tmp_path: Path) -> None:
    bot = tmp_path / "needy.py"
    bot.write_text("from arena.sdk import Bot\n\n\nclass Needy(Bot):\n    name = 'needy'\n\n"
                   "    def act(self, request):\n        import requests\n        return 0\n")
    [line] = _failures(str(bot), bots_dir=tmp_path)
    assert line.startswith("  needy crash, 2 times (game 0): exited before its first answer of "
                           "the game (exit code 1); restarted and asked again; "
                           "ModuleNotFoundError: No module named 'requests' (at needy.py line 8, "
                           "in act); hint: a bot sees Python's standard library, the arena "
                           "kit and the packages its bot.yaml requires (requirements:), not "
                           "those installed for you; see 'Using packages' in docs/BOTS.md")


@needs_sandbox
def test_a_crash_in_on_game_end_names_the_game_that_had_ended(tmp_path: Path) -> None:
    """It is filed with the next game (game_end has no answer: the referee notices the death
    there), and says which game had ended, so its author looks at the right one."""
    result = runner.invoke(app, ["match", str(FIXTURES / "end_crasher.py"), str(GREEDY),
                                 "--games", "2", "--seed", "3", "--decision-ms", "3000"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    line = lines[lines.index("Failures:") + 1]
    seen = ("restarted and asked again; " if "first answer" in line else "")
    assert line in (
        f"  end_crasher crash (game 1): exited {when}, after game 0 of the match ended "
        f"(exit code 1); {seen}RuntimeError: deliberate crash in on_game_end (at "
        "end_crasher.py line 17, in on_game_end)"
        for when in ("before its first answer of the game", "between games")), line


@needs_sandbox
def test_a_file_beside_a_single_file_bot_is_not_in_its_sandbox(tmp_path: Path) -> None:
    bot = tmp_path / "reader.py"
    bot.write_text("from pathlib import Path\nfrom arena.sdk import Bot\n\n\nclass Reader(Bot):\n"
                   "    name = 'reader'\n\n    def act(self, request):\n"
                   "        return len((Path(__file__).parent / 'book.txt').read_text()) * 0\n")
    (tmp_path / "book.txt").write_text("openings\n")
    [line] = _failures(str(bot), bots_dir=tmp_path / "registry")
    assert "FileNotFoundError: [Errno 2] No such file or directory: '" in line
    assert ("book.txt' (at reader.py line 9, in act); hint: book.txt lies beside reader.py, but a "
            "single-file bot is copied alone into the sandbox: make the bot a directory "
            "(bot.py and the files it uses; 'Several files' in docs/BOTS.md)") in line


@needs_sandbox
def test_a_bot_writing_beside_its_files_is_told_where_it_may_write(tmp_path: Path) -> None:
    bot = tmp_path / "diary.py"
    bot.write_text("from arena.sdk import Bot\n\n\nclass Diary(Bot):\n    name = 'diary'\n\n"
                   "    def act(self, request):\n"
                   "        open('history.log', 'a').write('turn')\n        return 0\n")
    [line] = _failures(str(bot), bots_dir=tmp_path / "registry")
    assert "'history.log' (at diary.py line 8, in act); hint: a bot's own files are read-only: " \
           "write in its scratch directory, $TMPDIR (tempfile.gettempdir()), at most tmp_mb " \
           "(64 MiB by default), emptied when its process ends (docs/BOTS.md)" in line


#: How each layer that guards a bot's copy refuses a write there: bubblewrap's read-only
#: mount, and Landlock alone (no mount), whose refusal is EACCES.
_REFUSALS = {"bwrap": ("", "Read-only file system"),
             "landlock": ("bwrap", "Permission denied")}


@needs_sandbox
@pytest.mark.parametrize("layer", sorted(_REFUSALS))
def test_a_write_into_its_own_files_by_a_bot_in_another_language_gets_the_scratch_hint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layer: str) -> None:
    # Node's "Error: EROFS: read-only file system, open 'log.txt'" was quoted with no word
    # of where a bot may write, and Landlock's "Permission denied" still was; a shell bot's
    # own words stand in for any runtime's
    disabled, refusal = _REFUSALS[layer]
    if not probe(disable={disabled} - {""}).active(layer):
        pytest.skip(f"{layer} does not guard a bot's files here")
    monkeypatch.setenv("ARENA_SANDBOX_DISABLE", disabled)
    monkeypatch.setattr(probe_module, "_cached", None)  # probed again, with it switched off
    bot = tmp_path / "diarist"
    bot.mkdir()
    (bot / "bot.sh").write_text(
        'while read -r line; do\n'
        '  case "$line" in\n'
        '    *\'"type":"hello"\'*) echo \'{"type":"ready","name":"diarist"}\' ;;\n'
        '    *\'"type":"act"\'*) echo "$line" > history.log || exit 1 ;;\n'
        '  esac\n'
        'done\n')
    (bot / "bot.yaml").write_text("name: diarist\ncommand: [sh, bot.sh]\n")
    line, = _failures(str(bot), bots_dir=tmp_path)
    assert f"history.log: {refusal}; {READ_ONLY_ANY_HINT}" in line


@pytest.mark.parametrize(("line", "hinted"), [
    ("bot.sh: 4: cannot create history.log: Read-only file system", True),
    ("Error: EROFS: read-only file system, open 'log.txt'", True),
    ("bot.sh: 4: cannot create history.log: Permission denied", True),
    ("bot.sh: line 4: history.log: Permission denied", True),
    ("Error: EACCES: permission denied, open 'cache/log.txt'", True),
    ("Error: EACCES: permission denied, open '/bot/log.txt'", True),
    ("java.io.FileNotFoundException: log.txt (Permission denied)", True),
    ("open /tmp/arena-box-12-ab/bot/log.txt: permission denied", True),
    ("/etc/shadow: Permission denied", False),
    ("cat: /etc/shadow: Permission denied", False),
    ("Error: EACCES: permission denied, open '/home/ann/book.txt'", False),
    ("java.io.FileNotFoundException: /home/ann/x (Permission denied)", False),
    ("exec: /bot/bot.sh: cannot execute: Permission denied", False),
    ("Permission denied (os error 13)", False),
])
def test_a_refused_write_into_the_bots_copy_gets_the_scratch_hint_in_any_words(
        line: str, hinted: bool) -> None:
    """Landlock alone refuses the write with EACCES where bubblewrap's mount says EROFS: the
    same mistake, the same hint; a denied path outside the copy, or an exec, is another."""
    assert log_note(f"starting\n{line}\n").endswith(f"; {READ_ONLY_ANY_HINT}") is hinted


def test_only_a_write_into_the_bots_own_files_gets_the_scratch_hint(tmp_path: Path) -> None:
    """Without bubblewrap the copy is a read-only directory of the box: the write is denied."""
    def hint(error: str) -> bool:
        log = "\n".join(["Traceback (most recent call last):",
                         '  File "/bot/bot.py", line 3, in act', "    open(p, 'w')", error])
        return "hint: a bot's own files are read-only" in log_note(log)

    assert hint("OSError: [Errno 30] Read-only file system: '/bot/notes.txt'")
    assert hint("PermissionError: [Errno 13] Permission denied: 'notes.txt'")
    assert hint("PermissionError: [Errno 13] Permission denied: "
                "'/tmp/arena-box-12-ab/bot/notes.txt'")
    assert not hint("PermissionError: [Errno 13] Permission denied: '/etc/shadow'")


def test_the_note_reads_the_bots_copy_with_or_without_bubblewrap() -> None:
    frames = {
        "/bot": '  File "/bot/pkg/brain.py", line 3, in think',
        "box": '  File "/tmp/arena-box-12-ab/bot/pkg/brain.py", line 3, in think',
    }
    for frame in frames.values():
        log = "\n".join(["Traceback (most recent call last):",
                         '  File "/kit/arena/sdk/serving.py", line 40, in serve',
                         "    choice = bot.act(state)", frame, "    return 1 / 0",
                         "ZeroDivisionError: division by zero", "[runner] exiting"])
        assert traceback_note(log) == ("; ZeroDivisionError: division by zero (at pkg/brain.py "
                                       "line 3, in think)")
    # No frame in the bot's files (a compiled bot's log): the last error line, as before.
    assert log_note("starting\npanicked at src/main.rs:3\n") == (
        "; last log line: panicked at src/main.rs:3")


@needs_sandbox
def test_a_runtime_failing_at_start_up_is_quoted_with_its_reason_and_exit(
        tmp_path: Path) -> None:
    """A runtime that fails at start-up (a JVM out of memory) writes a line to stdout and its
    reason to stderr as it exits: the failure was judged at the stdout line and the process
    killed at once, so whether the reason was quoted depended on which came first."""
    bot = tmp_path / "failing"
    bot.mkdir()
    (bot / "bot.sh").write_text("echo 'Error occurred during initialization of VM'\n"
                                "echo 'Could not reserve enough space for object heap' >&2\n"
                                "exit 3\n")
    (bot / "bot.yaml").write_text("name: failing\ncommand: [sh, bot.sh]\n")
    result = runner.invoke(app, ["check-bot", str(bot), "--games", "1"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    handshake = next(line for line in result.stdout.splitlines() if "handshake" in line)
    assert "not JSON: 'Error occurred during initialization of VM'" in handshake
    assert "(exit code 3)" in handshake
    assert "Could not reserve enough space for object heap" in handshake
