"""``arena check-bot``: what an author reads of a bot that does not load (the end of its
traceback, with the bot's own file and line) and which version a submit would register."""

from __future__ import annotations

import json
import os
import platform
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.referee.hints import (
    MODULE_HINT,
    OWN_FILE_ONLY_HINT,
    THREAD_HINT,
    beside_hint,
    log_note,
    requirements_hint,
    traceback_note,
    traceback_tail,
)
from arena.registry import resolve
from arena.sandbox import probe

BOTS = Path(__file__).resolve().parents[2] / "bots"

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
#: A bot's threads count against its processes limit: it runs under a uid of its own, or the
#: referee is not root (RLIMIT_NPROC does not bind root).
needs_process_limit = pytest.mark.skipif(
    probe().uid is None and os.geteuid() == 0, reason="bots run as root here: no thread limit")


def _check(bot: Path) -> list[str]:
    result = runner.invoke(app, ["check-bot", str(bot), "--games", "1"],
                           env={"ARENA_BOTS_DIR": str(bot.parent)})
    assert result.exit_code == 1, result.output
    return result.stdout.splitlines()


@needs_sandbox
def test_a_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("from arena.sdk import Bot\n\n\nclass Broken(Bot)\n    pass\n")
    lines = _check(bot)
    assert lines[1] == ("✗ handshake: exited before answering 'hello' (exit code 2); "
                        "SyntaxError: expected ':' (at broken.py line 4)")
    assert lines[2:6] == [f'      File "{bot}", line 4',
                          "        class Broken(Bot)",
                          "                         ^",
                          "    SyntaxError: expected ':'"]
    assert lines[6] == "FAIL: 1 of 1 checks failed."


@needs_sandbox
def test_a_missing_module_says_the_sandbox_sees_no_installed_packages(tmp_path: Path) -> None:
    bot = tmp_path / "needy.py"
    bot.write_text("import requests\n")
    lines = _check(bot)
    assert lines[1] == ("✗ handshake: exited before answering 'hello' (exit code 2); "
                        "ModuleNotFoundError: No module named 'requests' (at needy.py line 1, "
                        "in <module>)")  # the hint comes once, after the traceback
    assert lines[2:6] == [f'      File "{bot}", line 1, in <module>',
                          "        import requests",
                          "    ModuleNotFoundError: No module named 'requests'",
                          "    hint: a bot sees Python's standard library, the arena kit and the "
                          "packages its bot.yaml requires (requirements:), not those installed "
                          "for you; see 'Using packages' in docs/BOTS.md"]


@needs_sandbox
def test_a_single_file_bot_missing_a_module_beside_it_is_told_to_become_a_directory(
        tmp_path: Path) -> None:
    bot = tmp_path / "leaning.py"
    bot.write_text("from helpers import pick\n")
    (tmp_path / "helpers.py").write_text("def pick(legal):\n    return 0\n")
    lines = _check(bot)
    assert lines[1] == ("✗ handshake: exited before answering 'hello' (exit code 2); "
                        "ModuleNotFoundError: No module named 'helpers' (at leaning.py line 1, "
                        "in <module>)")
    assert lines[5] == ("    hint: helpers.py lies beside leaning.py, but a single-file bot is "
                        "copied alone into the sandbox: make the bot a directory (bot.py and "
                        "the files it uses; 'Several files' in docs/BOTS.md)")
    assert lines[6] == "FAIL: 1 of 1 checks failed."


@needs_sandbox
def test_a_requirements_file_bot_yaml_does_not_name_is_pointed_at(tmp_path: Path) -> None:
    # the general hint ("the packages its bot.yaml requires") sent the author to the docs to
    # learn that a requirements.txt is not read by itself
    bot = tmp_path / "npbot"
    bot.mkdir()
    (bot / "bot.py").write_text("import numpy\n")
    (bot / "requirements.txt").write_text("numpy\n")
    lines = _check(bot)
    assert lines[1] == ("✗ handshake: exited before answering 'hello' (exit code 2); "
                        "ModuleNotFoundError: No module named 'numpy' (at bot.py line 1, "
                        "in <module>)")
    assert lines[5] == ("    hint: requirements.txt is read only when a bot.yaml names it: write "
                        "one ('name: npbot', 'module: bot.py', 'requirements: requirements.txt') "
                        "and the arena installs it for the bot ('Using packages' in "
                        "docs/BOTS.md)")
    (bot / "bot.yaml").write_text("name: npbot\nmodule: bot.py\n")
    assert _check(bot)[5] == ("    hint: requirements.txt is read only when bot.yaml names it: "
                              "add 'requirements: requirements.txt' to bot.yaml and the arena "
                              "installs it for the bot ('Using packages' in docs/BOTS.md)")


def test_the_bot_yaml_a_hint_offers_keeps_the_name_the_bot_has(tmp_path: Path) -> None:
    """A class named 'my-np' in npbot/ is registered as my-np: the bot.yaml the hint offers
    said 'name: npbot', which would have renamed it."""
    bot = tmp_path / "npbot"
    bot.mkdir()
    (bot / "bot.py").write_text("import numpy\nfrom arena.sdk import Bot\n\n\n"
                                "class MyBot(Bot):\n    name = 'my-np'\n")
    (bot / "requirements.txt").write_text("numpy\n")
    assert requirements_hint(bot) == (
        "hint: requirements.txt is read only when a bot.yaml names it: write one ('name: my-np', "
        "'module: bot.py', 'requirements: requirements.txt') and the arena installs it for the "
        "bot ('Using packages' in docs/BOTS.md)")


def test_a_requirements_file_beside_a_single_file_bot_is_pointed_at(tmp_path: Path) -> None:
    bot = tmp_path / "single.py"
    bot.write_text("import numpy\n")
    log = ("Traceback (most recent call last):\n  File \"/b/single.py\", line 1, in <module>\n"
           "    import numpy\nModuleNotFoundError: No module named 'numpy'\n")
    assert traceback_tail(log, "/b", bot, look_beside=True)[-1] == MODULE_HINT
    (tmp_path / "requirements.txt").write_text("numpy\n")
    assert traceback_tail(log, "/b", bot, look_beside=True)[-1] == (
        "hint: requirements.txt beside single.py is not read: a single-file bot gets no "
        "packages; make it a directory (bot.py, requirements.txt) with a bot.yaml saying "
        "'requirements: requirements.txt' ('Using packages' in docs/BOTS.md)")
    assert requirements_hint(tmp_path / "elsewhere") is None


def test_a_misspelt_import_is_offered_the_module_it_misspells(tmp_path: Path) -> None:
    # `import collection` got the hint about packages and bot.yaml's requirements, which sent
    # the author to install a package that does not exist
    bot = tmp_path / "typo.py"
    bot.write_text("")

    def hint(module: str) -> str:
        log = ('Traceback (most recent call last):\n  File "/b/typo.py", line 1, in <module>\n'
               f"    import {module}\nModuleNotFoundError: No module named '{module}'\n")
        return traceback_tail(log, "/b", bot, look_beside=True)[-1]

    assert hint("collection") == (
        "hint: did you mean 'collections'? ('collection' is installed nowhere here); else a bot "
        "sees Python's standard library, the arena kit and the packages its bot.yaml requires "
        "(requirements:), not those installed for you; see 'Using packages' in docs/BOTS.md")
    assert hint("zzqxpackage") == MODULE_HINT  # nothing like it: a package not installed
    assert hint("json") == MODULE_HINT  # installed here: the sandbox's Python lacks it


def test_a_stored_failure_names_no_package_of_the_hosts_python(tmp_path: Path) -> None:
    # the misspelling's lookup is on the host's Python: a tournament's failure (stored, shown
    # to others) told a bot which packages the host has installed
    bot = tmp_path / "probe"
    bot.mkdir()

    def told(module: str, look_beside: bool) -> str:
        log = ('Traceback (most recent call last):\n  File "/bot/bot.py", line 1, in <module>\n'
               f"    import {module}\nModuleNotFoundError: No module named '{module}'\n")
        return log_note(log, bot, look_beside=look_beside)

    installed, absent = "trueskil", "zzqxpackage"  # the arena's rating package, misspelt
    assert told(installed, look_beside=False) == told(absent, look_beside=False).replace(
        absent, installed)
    assert told(installed, look_beside=False).endswith(f"; {MODULE_HINT}")
    # its author, at the host's terminal, is still offered it
    assert "did you mean 'trueskill'?" in told(installed, look_beside=True)


def test_only_what_lies_beside_a_single_file_bot_gets_the_directory_hint(
        tmp_path: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text("")
    (tmp_path / "weights.json").write_text("{}")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "book.txt").write_text("")
    (tmp_path / "pkg").mkdir()
    missing = "FileNotFoundError: [Errno 2] No such file or directory: '{}'"
    for name in ("weights.json", "/bot/weights.json", "/tmp/arena-box-7-x/bot/weights.json",
                 "data/book.txt"):
        hint = beside_hint(missing.format(name), bot)
        assert hint is not None and hint.startswith(f"hint: {name.rpartition('/bot/')[2]} "
                                                    "lies beside mine.py, but")
    assert beside_hint("ModuleNotFoundError: No module named 'pkg.sub'", bot) is not None
    for name in ("other.json", "../mine.py", "/etc/passwd", "/bot/../mine.py"):
        assert beside_hint(missing.format(name), bot) is None
    assert beside_hint("ModuleNotFoundError: No module named 'numpy'", bot) is None
    assert beside_hint(missing.format("weights.json"), tmp_path) is None  # a directory bot
    log = ("Traceback (most recent call last):\n  File \"/b/x.py\", line 1, in <module>\n"
           "    import numpy\nModuleNotFoundError: No module named 'numpy'\n")
    assert traceback_tail(log, "/b", bot, look_beside=True)[-1] == MODULE_HINT  # the packages


def test_a_registered_bot_learns_nothing_of_the_other_bots_beside_it(tmp_path: Path) -> None:
    # a registered single-file bot lies in the bots directory, beside other authors' bots:
    # the hint's look at what lies there told a league's author which of their files exist
    bots = tmp_path / "bots"
    (bots / "rival").mkdir(parents=True)
    (bots / "registry.yaml").write_text("bots: {}\n")
    (bots / "rival" / "opening_book.json").write_text("{}")
    spy = bots / "spy.py"
    spy.write_text("")
    missing = "FileNotFoundError: [Errno 2] No such file or directory: '{}'"
    for error in (missing.format("rival/opening_book.json"),
                  "ModuleNotFoundError: No module named 'rival'"):
        assert beside_hint(error, spy) is None
    (bots / "registry.yaml").unlink()  # an author's own directory: told, as before
    assert beside_hint(missing.format("rival/opening_book.json"), spy) is not None


def test_a_registered_bot_is_not_told_of_a_requirements_file_in_the_bots_directory(
        tmp_path: Path) -> None:
    # arena check-bot of a registered single-file bot looked for requirements.txt in the
    # bots directory, where other authors' bots lie
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "registry.yaml").write_text("bots: {}\n")
    (bots / "requirements.txt").write_text("numpy\n")
    spy = bots / "spy.py"
    spy.write_text("")
    log = ('Traceback (most recent call last):\n  File "/b/spy.py", line 1, in <module>\n'
           "    import zzqxpackage\nModuleNotFoundError: No module named 'zzqxpackage'\n")
    assert requirements_hint(spy) is None
    assert traceback_tail(log, "/b", spy, look_beside=True)[-1] == MODULE_HINT
    (bots / "registry.yaml").unlink()  # an author's own directory: told, as before
    assert traceback_tail(log, "/b", spy, look_beside=True)[-1].startswith(
        "hint: requirements.txt beside spy.py is not read")


def test_without_looking_beside_a_single_file_the_hint_is_the_same_whatever_lies_there(
        tmp_path: Path) -> None:
    # bots entered by path from one shared directory: a failure stored or shown to others
    # told whether a rival's file or module lay beside the bot's (the host looked)
    spy = tmp_path / "spy.py"
    spy.write_text("")

    def tails() -> list[list[str]]:
        errors = ("FileNotFoundError: [Errno 2] No such file or directory: 'rival_book.json'",
                  "ModuleNotFoundError: No module named 'rival'")
        return [traceback_tail('Traceback (most recent call last):\n  File "/b/spy.py", line '
                               f"1, in <module>\n    x()\n{error}\n", "/b", spy)
                for error in errors]

    before = tails()
    (tmp_path / "rival_book.json").write_text("{}")
    (tmp_path / "rival.py").write_text("")
    (tmp_path / "requirements.txt").write_text("numpy\n")
    assert tails() == before
    opened, imported = before
    assert opened[-1] == OWN_FILE_ONLY_HINT
    assert imported[-1] == f"{MODULE_HINT}; or {OWN_FILE_ONLY_HINT.removeprefix('hint: ')}"
    # its author, checking it, is told what lies beside it
    log = ('Traceback (most recent call last):\n  File "/b/spy.py", line 1, in <module>\n'
           "    x()\nFileNotFoundError: [Errno 2] No such file or directory: 'rival_book.json'\n")
    assert "rival_book.json lies beside spy.py" in traceback_tail(log, "/b", spy,
                                                                  look_beside=True)[-1]
    # a bot directory's files are its own: nothing beside it is named either way
    assert traceback_tail(log, "/b", tmp_path)[-1] != OWN_FILE_ONLY_HINT


def test_the_tail_shows_the_bots_frame_and_the_frame_that_raised() -> None:
    log = "\n".join([
        "[runner] the bot raised:",
        "Traceback (most recent call last):",
        '  File "/kit/arena/sdk/serving.py", line 40, in serve',
        "    choice = bot.act(state)",
        '  File "/home/me/bot/bot.py", line 7, in act',
        "    return json.loads(state)",
        '  File "/usr/lib/python3.12/json/__init__.py", line 346, in loads',
        "    return _default_decoder.decode(s)",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    ])
    assert traceback_tail(log, "/home/me/bot") == [
        '  File "/home/me/bot/bot.py", line 7, in act',
        "    return json.loads(state)",
        '  File "/usr/lib/python3.12/json/__init__.py", line 346, in loads',
        "    return _default_decoder.decode(s)",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"]
    assert traceback_tail("just a log line\n", "/home/me/bot") == []
    missing = "Traceback (most recent call last):\n  File \"/b/x.py\", line 1, in <module>\n" \
              "    import numpy\nModuleNotFoundError: No module named 'numpy'\n"
    assert traceback_tail(missing, "/b")[-1] == MODULE_HINT


@needs_sandbox
@needs_process_limit
def test_a_python_thread_past_the_process_limit_is_told_so(tmp_path: Path) -> None:
    """Python's "can't start new thread" was quoted alone, where other runtimes' words for it
    got the hint that a bot's threads count against its processes."""
    bot = tmp_path / "pool.py"
    bot.write_text("import threading, time\n\n"
                   "for _ in range(100):  # a pool sized to a big host's cores\n"
                   "    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n")
    lines = _check(bot)
    assert lines[1] == ("✗ handshake: exited before answering 'hello' (exit code 2); "
                        "RuntimeError: can't start new thread (at pool.py line 4, in <module>)")
    tail = lines[2:lines.index("FAIL: 1 of 1 checks failed.")]
    assert tail[-2:] == ["    RuntimeError: can't start new thread", f"    {THREAD_HINT}"]
    log = ('Traceback (most recent call last):\n  File "/bot/pool.py", line 4, in <module>\n'
           "    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
           "RuntimeError: can't start new thread\n")
    assert traceback_note(log) == ("; RuntimeError: can't start new thread (at pool.py line 4, "
                                   f"in <module>); {THREAD_HINT}")  # as a match says it


@needs_sandbox
def test_check_bot_says_which_version_a_submit_registers(tmp_path: Path) -> None:
    """A file named otherwise than its bot is registered as ``<bot>.py``: another version."""
    source = tmp_path / "src" / "my_bot.py"
    source.parent.mkdir()
    shutil.copy(BOTS / "random.py", source)
    bots_dir = tmp_path / "bots"
    bots_dir.mkdir()
    env = {"ARENA_BOTS_DIR": str(bots_dir)}
    checked = runner.invoke(app, ["check-bot", str(source), "--games", "1"], env=env)
    assert checked.exit_code == 0, checked.output
    own = resolve(str(source)).version
    lines = checked.stdout.splitlines()
    assert lines[0].startswith(f"Checking random (version {own}) ")
    shown = lines[1].split("version ")[1].split(" ")[0]
    assert shown != own
    assert lines[1] == (f"Note: arena submit registers this file as random.py, version {shown} "
                        "(a version covers the file's name, so --name NAME gives NAME.py "
                        "another)")
    submitted = runner.invoke(app, ["submit", str(source)], env=env)
    assert submitted.exit_code == 0, submitted.output
    assert submitted.stdout.splitlines()[-1] == (
        f"Registered random version {shown} at {bots_dir / 'random.py'}")
    data = json.loads(runner.invoke(app, ["check-bot", str(source), "--games", "1", "--json"],
                                    env=env).stdout)
    assert (data["version"], data["submit_version"]) == (own, shown)
    again = runner.invoke(app, ["check-bot", "random", "--games", "1"], env=env)
    assert "Note:" not in again.stdout  # the registered copy is what a submit registers


@needs_sandbox
def test_check_bot_promises_no_version_for_a_name_submit_refuses(tmp_path: Path) -> None:
    """'Mon bot' fails the registry name check: no note may say which file and version a
    submit would register, as a submit registers nothing under that name."""
    source = tmp_path / "src" / "mon.py"
    source.parent.mkdir()
    source.write_text((BOTS / "random.py").read_text(encoding="utf-8").replace(
        'name = "random"', 'name = "Mon bot"'), encoding="utf-8")
    assert resolve(str(source)).name == "Mon bot"
    bots_dir = tmp_path / "bots"
    bots_dir.mkdir()
    checked = runner.invoke(app, ["check-bot", str(source), "--games", "1"],
                            env={"ARENA_BOTS_DIR": str(bots_dir)})
    assert checked.exit_code == 1, checked.output
    assert "Note:" not in checked.stdout
    assert "✗ registry name: bot name 'Mon bot' is not allowed" in checked.stdout
    # nor --json (it gave the version of a copy a submit never makes)
    as_json = runner.invoke(app, ["check-bot", str(source), "--games", "1", "--json"],
                            env={"ARENA_BOTS_DIR": str(bots_dir)})
    assert json.loads(as_json.stdout)["submit_version"] is None


def test_check_bot_says_what_it_waits_for_while_a_bot_is_silent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The library tells of a long wait (tests/referee: when); the CLI says it on stderr."""
    from arena.cli import bot_commands
    from arena.referee.check import CheckItem, CheckReport

    def slow_check(bot: object, **kw: Any) -> CheckReport:
        kw["on_wait"]("mybot", "'hello'", 10_000)
        kw["on_wait"]("mybot", "a 'turn' decision", 11_000)
        report = CheckReport("mybot", "0123456789ab")
        report.add(CheckItem("handshake", False, "no 'ready' within 10000 ms"))
        return report

    monkeypatch.setattr(bot_commands, "check_bot", slow_check)
    result = runner.invoke(app, ["check-bot", "mybot.py"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "waiting for mybot to answer 'hello' (limit 10 s)...",
        "waiting for mybot to answer a 'turn' decision (limit 11 s)..."]


@needs_sandbox
def test_the_examples_of_failures_are_told_apart(tmp_path: Path) -> None:
    bot = tmp_path / "boom.py"
    bot.write_text("from arena.sdk import Bot\n\n\nclass Boom(Bot):\n    name = 'boom'\n\n"
                   "    def act(self, request):\n        raise RuntimeError('boom')\n")
    lines = _check(bot)
    crash = "RuntimeError: boom (at boom.py line 8, in act)"
    assert [line for line in lines if "decisions" in line] == [
        "✗ decisions: 2 failures in 1 game: crash 2 (e.g. exited before its first answer of "
        f"the game (exit code 1); restarted and asked again; {crash} | exited mid-game (exit "
        f"code 1); {crash}); it forfeited the game (crash); the bot was restarted once "
        "after them"]


@needs_sandbox
def test_a_compiled_bot_not_built_yet_is_told_to_build_it(tmp_path: Path) -> None:
    # the bots/examples/c_bot of a fresh checkout: exit code 127 and the sandbox's path,
    # /bot/bot, used to be all an author read
    bot = tmp_path / "c_bot"
    shutil.copytree(BOTS / "examples" / "c_bot", bot)
    assert not (bot / "bot").exists()
    lines = _check(bot)
    assert lines[1].startswith("✗ handshake: exited before answering 'hello' (exit code 127)")
    assert lines[1].endswith("No such file or directory (./bot is not in the bot's "
                             "directory: build it first? the arena never compiles)")


@needs_sandbox
def test_a_program_of_the_host_users_path_is_told_to_be_on_the_bots(tmp_path: Path) -> None:
    # command: [cargo, run] with cargo in ~/.cargo/bin: "cargo: not found" was all it said
    bot = tmp_path / "rusty"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: rusty\ncommand: [nowhere-cargo, run]\n")
    lines = _check(bot)
    assert lines[1].startswith("✗ handshake: ")
    assert lines[1].endswith("('nowhere-cargo' is not on the bot's PATH (/usr/local/bin:"
                             "/usr/bin:/bin; the host user's own, ~/.cargo/bin say, is not "
                             "seen): install it there, or build the bot beforehand and run "
                             "its program by its path (./bot): the arena never compiles)")


@needs_sandbox
@pytest.mark.parametrize("program", ["../target/release/rusty", "/opt/build/rusty"])
def test_a_program_outside_the_bot_is_told_the_sandbox_shows_only_the_bots_files(
        tmp_path: Path, program: str) -> None:
    # a binary left in a target directory beside the bot: "No such file or directory" of a
    # path the author sees on the host was all it said
    bot = tmp_path / "rusty"
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: rusty\ncommand: [{program}]\n")
    lines = _check(bot)
    assert lines[1].startswith("✗ handshake: ")
    assert lines[1].endswith(f"({program} lies outside the bot's directory: the sandbox "
                             "shows a bot its own files and the system's (/usr, /bin, /lib), "
                             "no other path of the host: copy the program into the bot's "
                             "directory and run it as ./NAME)")


@needs_sandbox
def test_a_command_given_as_one_argument_is_told_to_list_its_arguments_apart(
        tmp_path: Path) -> None:
    # command: ["node bot.js"] was told "'node bot.js' is not on the bot's PATH ...: install
    # it there", as if a program of that name were missing
    bot = tmp_path / "spaced"
    bot.mkdir()
    (bot / "bot.sh").write_text("echo '{\"type\":\"ready\",\"name\":\"spaced\"}'\n")
    (bot / "bot.yaml").write_text('name: spaced\ncommand: ["sh bot.sh --fast"]\n')
    lines = _check(bot)
    assert lines[1].startswith("✗ handshake: ")
    assert lines[1].endswith("('sh bot.sh --fast' is one argument with spaces in it: bot.yaml's "
                             "command lists each argument apart, [sh, bot.sh, --fast])")


@needs_sandbox
@pytest.mark.parametrize("system", ["macOS", "another processor"])
def test_a_binary_built_for_another_system_is_told_to_be_built_here(
        tmp_path: Path, system: str) -> None:
    # a bot built on the author's Mac, or for an ARM board: "cannot execute binary file: Exec
    # format error" was all it said
    bot = tmp_path / "elsewhere"
    bot.mkdir()
    here = platform.machine()
    if system == "macOS":
        program = b"\xcf\xfa\xed\xfe\x07\x00\x00\x01" + bytes(56)
        said = (f"./bot is a program for macOS, not for Linux: build it on this machine "
                f"(Linux, {here})")
    else:
        other, machine = ("aarch64", 0xB7) if here != "aarch64" else ("x86_64", 0x3E)
        program = bytearray(Path("/bin/true").read_bytes())
        program[18:20] = machine.to_bytes(2, "little")
        said = f"./bot is a program for {other} processors, not for this machine's {here}"
    (bot / "bot").write_bytes(bytes(program))
    (bot / "bot").chmod(0o755)
    (bot / "bot.yaml").write_text("name: elsewhere\ncommand: [./bot]\n")
    lines = _check(bot)
    assert lines[1].startswith("✗ handshake: ")
    assert f"Exec format error: './bot' ({said}" in lines[1] or \
        f"Exec format error ({said}" in lines[1]
    assert lines[1].endswith(f"or cross-compile it for Linux {here})")


@needs_sandbox
def test_two_bot_classes_are_told_to_keep_one_within_the_quoted_line(tmp_path: Path) -> None:
    # the failure quotes 200 characters of the runner's line: the advice, last, was cut off
    bot = tmp_path / "two.py"
    bot.write_text("from arena.sdk import Bot\n\n\n"
                   "class FirstAttemptAtAVeryCleverBot(Bot):\n    def act(self, r):\n"
                   "        return 0\n\n\n"
                   "class SecondAttemptAtAnEvenClevererBot(Bot):\n    def act(self, r):\n"
                   "        return 0\n")
    line = _check(bot)[1]
    # and then the command that picks one was cut off, after the sandbox's path /bot/two.py
    assert line == ("✗ handshake: exited before answering 'hello' (exit code 2); "
                    "last log line: [runner] several Bot subclasses in two.py: keep one, or name "
                    "one in a bot directory's bot.yaml: command: [python3, -m, arena.sdk.runner, "
                    "two.py, --class, FirstAttemptAtAVeryCleverBot]; found FirstAtte...")


@needs_sandbox
def test_on_a_terminal_the_checklist_wraps_at_words_under_each_checks_text(
        tmp_path: Path) -> None:
    # at 80 columns the terminal broke the lines anywhere: "(bwrap+seccomp+user+rlimit|s)",
    # "all legal and in t|ime", the rest of a check's line under its mark
    import os
    import re
    import sys

    import pexpect

    env = {**os.environ, "PYTHONPATH": str(BOTS.parent), "TERM": "xterm-256color",
           "ARENA_BOTS_DIR": str(tmp_path)}
    env.pop("COLUMNS", None)
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli.main", "check-bot",
                                           str(BOTS / "greedy.py")], env=env,
                          dimensions=(24, 60), encoding="utf-8", timeout=120)
    shown = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\r", "", child.read())
    child.close()
    assert child.exitstatus == 0, shown
    lines = [line for line in shown.splitlines() if not line.startswith("waiting for")]
    assert max(map(len, lines)) <= 60, shown
    decisions = next(i for i, line in enumerate(lines) if line.startswith("✓ decisions: "))
    assert lines[decisions + 1].startswith("  ") and lines[decisions + 1][2] != " ", shown
    assert "all legal and in time" in " ".join(shown.split())
    # a pipe gets each check on one line
    result = runner.invoke(app, ["check-bot", str(BOTS / "greedy.py")],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert any(line.startswith("✓ decisions: ") and "all legal and in time" in line
               for line in result.stdout.splitlines())


@needs_sandbox
def test_a_bot_flooding_its_log_passes_with_a_warning_of_what_is_lost(tmp_path: Path) -> None:
    """A debug-printing bot plays well, but a game's record keeps the end of its log only:
    the check says how much it wrote, and that no limit fails it in a tournament."""
    bot = tmp_path / "talker.py"
    bot.write_text("import sys\nfrom arena.sdk import Bot\n\n\nclass Talker(Bot):\n"
                   "    name = 'talker'\n\n    def on_game_start(self, game):\n"
                   "        sys.stderr.write('x' * 99_999 + '\\n')\n        sys.stderr.flush()\n\n"
                   "    def act(self, request):\n        return 0\n")
    result = runner.invoke(app, ["check-bot", str(bot), "--games", "2"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert ("! log size: the bot wrote up to 100,000 bytes to stderr in a game (200,000 in "
            "both games); a game's record keeps only its last 8,192 characters ('[... N bytes "
            "dropped]' before them), and the referee holds at most stderr_bytes (65,536 bytes) "
            "of a process's log; a tournament fails no bot for what it writes there, but the "
            "writing takes from its own time: log less") in lines
    assert lines[-1] == "PASS: talker is ready to submit (with 1 warning, above)."


@needs_sandbox
def test_a_quiet_bot_gets_no_log_warning(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check-bot", str(BOTS / "greedy.py"), "--games", "2"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    assert not any(line.startswith("! ") for line in result.stdout.splitlines())
    assert result.stdout.splitlines()[-1] == "PASS: greedy is ready to submit."


@needs_sandbox
def test_a_log_the_record_keeps_whole_gets_no_warning_however_many_bytes(
        tmp_path: Path) -> None:
    """The record keeps a game's last 8,192 characters: 5,000 accented letters are 10,000
    bytes, all kept, and the warning said the log was lost."""
    bot = tmp_path / "accents.py"
    bot.write_text("import sys\nfrom arena.sdk import Bot\n\n\nclass Accents(Bot):\n"
                   "    name = 'accents'\n\n    def on_game_start(self, game):\n"
                   "        sys.stderr.write('\\u00e9' * 5_000 + '\\n')\n"
                   "        sys.stderr.flush()\n\n"
                   "    def act(self, request):\n        return 0\n")
    result = runner.invoke(app, ["check-bot", str(bot), "--games", "2"],
                           env={"ARENA_BOTS_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    assert not any(line.startswith("! ") for line in result.stdout.splitlines())
    assert result.stdout.splitlines()[-1] == "PASS: accents is ready to submit."
