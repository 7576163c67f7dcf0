"""Bot references, manifests, content-hash versions and submit."""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from arena.errors import BotError, BotNameError, BotNotFoundError, ManifestError, SubmitError
from arena.registry import (
    PYTHON,
    RUNNER,
    SAMPLE_BOTS_DIR,
    BotSpec,
    command_problem,
    default_bots_dir,
    files_unchanged,
    kept_versions,
    list_bots,
    module_metadata,
    option_problems,
    registered_names,
    require_named_options,
    resolve,
    startup,
    submit,
    submitted,
)

ROOT = Path(__file__).resolve().parents[1]

MODULE = textwrap.dedent('''
    import datetime
    from arena.sdk import Bot

    class Mine(Bot):
        name = "mine"
        author = "Ann"
        version = "2.1"
        last_read_page = "2026-11-20"
        last_book_finished = datetime.date(2026, 1, 1)  # not a literal: ignored

        def act(self, request):
            return 0
''')


def passing(spec: BotSpec) -> Any:
    return SimpleNamespace(ok=True, failures=lambda: [])


def failing(spec: BotSpec) -> Any:
    return SimpleNamespace(ok=False,
                           failures=lambda: ["decisions: 4 failures in 3 games: timeout 4"])


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    directory = tmp_path / "bots"
    directory.mkdir()
    (directory / "alpha.py").write_text(MODULE.replace('"mine"', '"alpha"'))
    beta = directory / "beta"
    beta.mkdir()
    (beta / "bot.yaml").write_text("name: beta\ncommand: [node, bot.js]\nauthor: Bo\n"
                                   "last_read_page: 2026-11-01\n")
    (beta / "bot.js").write_text("// a bot in another language\n")
    (directory / "_helper.py").write_text("# not a bot\n")
    (directory / "notes.txt").write_text("not a bot either\n")
    return directory


def test_module_bot_spec(tmp_path: Path) -> None:
    file = tmp_path / "mine.py"
    file.write_text(MODULE)
    spec = resolve(file)
    assert spec.name == "mine" and spec.kind == "module"
    assert spec.command == (PYTHON, *RUNNER, "mine.py")
    assert spec.path == file.resolve()
    assert spec.metadata == {"author": "Ann", "version": "2.1", "last_read_page": "2026-11-20"}
    assert re.fullmatch(r"[0-9a-f]{12}", spec.version)
    assert spec.key == f"mine@{spec.version}"


def test_version_is_the_content_hash(tmp_path: Path) -> None:
    file = tmp_path / "mine.py"
    file.write_text(MODULE)
    first = resolve(file).version
    assert resolve(file).version == first
    file.write_text(MODULE + "\n# changed\n")
    assert resolve(file).version != first


def test_a_byte_order_mark_does_not_hide_the_bots_name(tmp_path: Path) -> None:
    file = tmp_path / "saved_on_windows.py"
    file.write_bytes(b"\xef\xbb\xbf" + MODULE.encode())
    assert resolve(file).name == "mine"


def test_options_make_their_own_version(tmp_path: Path) -> None:
    file = tmp_path / "mine.py"
    file.write_text(MODULE)
    plain = resolve(file)
    tuned = plain.with_options({"depth": 2, "fast": True})
    assert re.fullmatch(r"[0-9a-f]{12}\+o[0-9a-f]{8}", tuned.version)
    assert tuned.files_version == plain.version == plain.files_version
    assert tuned.with_options({"fast": True, "depth": 2}).version == tuned.version
    assert tuned.with_options({"depth": 3}).version != tuned.version
    assert tuned.with_options({}) == plain  # no options: the plain bot again
    assert tuned.to_json()["options"] == {"depth": 2, "fast": True}


@pytest.mark.parametrize(("options", "problems"), [
    ({"depth": 2, "mode": "x", "ratio": 0.5, "on": False}, []),
    ([1], ["options: must be a mapping of option names to values, got a list"]),
    ({"depth": {"a": 1}}, ["options.depth: must be a string, number or true/false, got a "
                           "mapping"]),
    ({"depth": float("nan")}, ["options.depth: must be a string, number or true/false, got "
                               "nan"]),
    ({"-x": 1}, ["options: option name '-x' must be 1-60 letters, digits, '_', '-' or '.', "
                 "starting with a letter or digit"]),
    ({3: 1}, ["options: option name 3 must be 1-60 letters, digits, '_', '-' or '.', "
              "starting with a letter or digit"]),
    ({"it\n": 1}, ["options: option name 'it\\n' must be 1-60 letters, digits, '_', '-' or "
                   "'.', starting with a letter or digit"]),
    ({"mode": "V\x1b]0;title\x07"}, ["options.mode: must not hold control or invisible "
                                      "characters, got 'V\\\\x1b]0;title\\\\x07'"]),
])
def test_option_problems(options: Any, problems: list[str]) -> None:
    assert option_problems(options) == problems


def test_directory_version_covers_every_file_but_caches(bots: Path) -> None:
    beta = bots / "beta"
    first = resolve(beta).version
    (beta / "__pycache__").mkdir()
    (beta / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert resolve(beta).version == first
    for stray in ("old.pyc", "old.pyo"):  # an older Python's, beside the files: no launch copies it
        (beta / stray).write_bytes(b"\0")
        assert resolve(beta).version == first
    (beta / "data.json").write_text("{}")
    assert resolve(beta).version != first


def test_directories_nested_too_deep_are_refused_in_one_line(tmp_path: Path) -> None:
    """A bot of 1,200 nested directories ran the reader's walk past Python's recursion
    limit: a RecursionError traceback from check-bot, match, run and submit. (70 here: more
    would take pytest's own clean-up of old temporary directories past it.)"""
    bot = tmp_path / "deep"
    bot.mkdir()
    (bot / "bot.py").write_text(MODULE)
    nested = bot
    for _ in range(70):
        nested = nested / "a"
        nested.mkdir()
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    deepest = bot.joinpath(*["a"] * 65)
    assert str(info.value) == (f"{deepest} lies more than 64 directories deep in {bot}; a "
                               "bot's directories may nest at most 64 deep")


def test_a_file_made_a_fifo_after_the_bot_entered_does_not_hang_the_referee(
        tmp_path: Path) -> None:
    """A tournament checks a bot's files at each table's start: a bot author who made one
    of them a FIFO (or a link to /dev/zero) after the bot entered hung the worker there."""
    bot = tmp_path / "fifobot"
    bot.mkdir()
    (bot / "bot.py").write_text(MODULE)
    (bot / "data.txt").write_text("data\n")
    spec = resolve(bot)
    (bot / "data.txt").unlink()
    os.mkfifo(bot / "data.txt")
    found: list[bool] = []
    checking = threading.Thread(target=lambda: found.append(files_unchanged(spec)),
                                daemon=True)
    checking.start()
    checking.join(5)
    try:
        assert not checking.is_alive(), "blocked opening the FIFO"
        assert found == [False]
    finally:
        if checking.is_alive():  # a writer lets the blocked reader go
            os.close(os.open(bot / "data.txt", os.O_WRONLY | os.O_NONBLOCK))
    (bot / "data.txt").unlink()
    (bot / "data.txt").symlink_to("/dev/zero")
    assert files_unchanged(spec) is False


def _blocks(read: Any, fifo: Path) -> bool:
    """Whether ``read()`` waits on ``fifo`` for 5 s (then let go by a writer)."""
    done: list[Any] = []
    reading = threading.Thread(target=lambda: done.append(read()), daemon=True)
    reading.start()
    reading.join(5)
    if reading.is_alive():  # a writer lets the blocked reader go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reading.join(5)
        return True
    return False


@pytest.mark.parametrize("swap", ["fifo", "zero"])
def test_a_manifest_made_a_fifo_after_the_hashing_does_not_hang(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str) -> None:
    """bot.yaml is read after the directory was walked and hashed (and found regular): made
    a FIFO meanwhile, its reading waited for a writer for good; made a link to /dev/zero,
    it was read until memory ran out."""
    from arena.registry import manifest

    bot = tmp_path / "racer"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: racer\ncommand: [x]\n")
    hashing = manifest.content_version

    def swapping(files: list[Path], root: Path) -> str:
        version = hashing(files, root)
        (bot / "bot.yaml").unlink()
        if swap == "fifo":
            os.mkfifo(bot / "bot.yaml")
        else:
            (bot / "bot.yaml").symlink_to("/dev/zero")
        return version

    monkeypatch.setattr(manifest, "content_version", swapping)
    refused: list[str] = []

    def resolving() -> None:
        with pytest.raises(ManifestError) as info:
            resolve(bot)
        refused.append(str(info.value))

    assert not _blocks(resolving, bot / "bot.yaml")
    assert refused[0].startswith(f"cannot read {bot / 'bot.yaml'}: ")


@pytest.mark.parametrize("swap", ["fifo", "link", "gone"])
def test_a_file_changed_between_the_walk_and_the_hashing_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str) -> None:
    """A file found regular by the walk and made a FIFO or a link (or removed) before it
    was hashed ended arena check-bot in a traceback (OSError: not a regular file)."""
    from arena.registry import manifest

    bot = tmp_path / "racer"
    bot.mkdir()
    (bot / "bot.py").write_text(MODULE)
    (bot / "data.txt").write_text("data\n")
    walk = manifest._bot_files

    def swapping(root: Path) -> list[Path]:
        found = walk(root)
        (bot / "data.txt").unlink()
        if swap == "fifo":
            os.mkfifo(bot / "data.txt")
        elif swap == "link":
            (bot / "data.txt").symlink_to("/dev/zero")
        return found

    monkeypatch.setattr(manifest, "_bot_files", swapping)
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    reason = {"fifo": "not a regular file", "link": "Too many levels of symbolic links",
              "gone": "No such file or directory"}[swap]
    assert str(info.value) == f"cannot read {bot / 'data.txt'}: {reason}"


@pytest.mark.parametrize("name", ["fifo.py", "fifo"])
def test_a_fifo_given_as_the_bot_is_said_to_be_no_regular_file(tmp_path: Path,
                                                                name: str) -> None:
    """It was 'no bot at fifo.py', as if nothing were there."""
    os.mkfifo(tmp_path / name)
    with pytest.raises(BotNotFoundError) as info:
        resolve(tmp_path / name)
    assert str(info.value) == (f"{tmp_path / name} is not a Python module (.py) or a bot "
                               "directory: it is not a regular file")


def test_module_metadata_of_a_fifo_does_not_hang(tmp_path: Path) -> None:
    """A module is looked at (resolved, its size read) before its metadata: made a FIFO
    between the two, the reading waited for a writer for good."""
    fifo = tmp_path / "m.py"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        module_metadata(fifo)


def test_manifest_bot(bots: Path) -> None:
    spec = resolve("beta", bots)
    assert spec.kind == "command" and spec.command == ("node", "bot.js")
    assert spec.metadata == {"author": "Bo", "last_read_page": "2026-11-01"}


def test_manifest_module_and_nested_metadata(tmp_path: Path) -> None:
    bot = tmp_path / "gamma"
    bot.mkdir()
    (bot / "main.py").write_text(MODULE)
    (bot / "bot.yaml").write_text("name: gamma\nmodule: main.py\nmetadata:\n"
                                  "  last_book_finished: 2026-10-02\n")
    spec = resolve(bot)
    assert spec.command == (PYTHON, *RUNNER, "main.py")
    # what the bot.yaml leaves out is what the class sets (its ready says it), never its name
    assert spec.metadata == {"last_book_finished": "2026-10-02", "author": "Ann",
                             "version": "2.1", "last_read_page": "2026-11-20"}


def test_a_command_bots_class_is_not_taken_for_what_it_says(tmp_path: Path) -> None:
    """A command may run anything: only its ready, in the sandbox, says what the bot is."""
    bot = tmp_path / "epsilon"
    bot.mkdir()
    (bot / "bot.py").write_text(MODULE)
    (bot / "bot.yaml").write_text("name: epsilon\ncommand: [python3, bot.py]\n")
    assert resolve(bot).metadata == {}


def test_directory_with_bot_py_and_no_manifest(tmp_path: Path) -> None:
    bot = tmp_path / "delta"
    bot.mkdir()
    (bot / "bot.py").write_text(MODULE)
    spec = resolve(bot)
    assert spec.name == "mine" and spec.command[-1] == "bot.py"


@pytest.mark.parametrize(("manifest", "error"), [
    ("name: [unclosed", "bot.yaml: line 1, column 16: invalid YAML: expected ',' or ']', but "
                        "got '<stream end>' (while parsing a flow sequence)"),
    ("- just\n- a list\n", "must be a mapping with at least 'name' and 'command' or 'module'"),
    ("command: [x]\n", "'name' is required (a string)"),
    ("name: e\n", "give exactly one of 'command' (a list of arguments) or 'module'"),
    ("name: e\ncommand: [x]\nmodule: bot.py\n", "give exactly one of 'command'"),
    ("name: e\ncommand: python3 bot.py\n", "'command' must be a non-empty list of arguments, "
                                           "e.g. [python3, bot.py]; got 'python3 bot.py'"),
    ('name: e\ncommand: ["./run\\0x"]\n', "'command' arguments cannot hold a NUL character"),
    ("name: e\nmodule: missing.py\n", "'module' names missing.py, which the bot's directory "
                                      "does not hold (its Python files: none)"),
    ("!!python/object/apply:os.system ['echo unsafe']\n", "invalid YAML: could not "
                                                         "determine a constructor"),
    ("name: e\ncomand: [x]\n", "bot.yaml: give exactly one of 'command' (a list of arguments) "
                                "or 'module' (a Python file) ('comand' is not a key: "
                                "'command'?)"),
])
def test_bad_manifests(tmp_path: Path, manifest: str, error: str) -> None:
    bot = tmp_path / "e"
    bot.mkdir()
    (bot / "bot.yaml").write_text(manifest)
    with pytest.raises(ManifestError, match=re.escape(error)):
        resolve(bot)


@pytest.mark.parametrize("interpreter", ["{cache}/0123abcd/bin/python",
                                         "{tmp}/elsewhere/../envs/0123abcd/bin/python"])
def test_a_command_naming_an_environments_interpreter_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interpreter: str) -> None:
    """The launcher shows the environment a command's interpreter lies in to the bot: a
    command naming another bot's ran with that bot's packages, and learnt which they are."""
    cache = tmp_path / "envs"
    (cache / "0123abcd" / "bin").mkdir(parents=True)
    (cache / "0123abcd" / "arena-env.json").write_text("{}")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.setenv("ARENA_ENV_CACHE", str(cache))
    bot = tmp_path / "e"
    bot.mkdir()
    (bot / "bot.py").write_text(MODULE)
    command = interpreter.format(cache=cache, tmp=tmp_path)
    (bot / "bot.yaml").write_text(f"name: e\ncommand: [{command}, bot.py]\n")
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    assert str(info.value) == (
        f"{bot.resolve() / 'bot.yaml'}: 'command' runs {command}, the interpreter of a "
        "packages environment; a bot names the packages it needs in 'requirements' and runs "
        "in an environment of its own (command: [python3, ...], docs/BOTS.md)")


@pytest.mark.parametrize("module", ["../outside.py", "{tmp}/outside.py", "sub/../../outside.py"])
def test_a_manifests_module_must_lie_in_the_bots_directory(tmp_path: Path, module: str) -> None:
    """The sandbox copies the bot's directory alone: a module beside it, or anywhere else on
    the host, was accepted here and failed the bot's start-up with a missing file."""
    (tmp_path / "outside.py").write_text(MODULE)
    bot = tmp_path / "e"
    (bot / "sub").mkdir(parents=True)
    (bot / "bot.yaml").write_text(f"name: e\nmodule: {module.format(tmp=tmp_path)}\n")
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    assert str(info.value) == (f"{bot.resolve() / 'bot.yaml'}: 'module' must name a Python "
                               "file of the bot's directory, got "
                               f"{module.format(tmp=tmp_path)!r}")


_TAKES = ("(a bot.yaml takes name, command, module, metadata, requirements, python, author, "
          "version, last_read_page, last_book_finished)")


@pytest.mark.parametrize(("manifest", "metadata", "warnings"), [
    ("autor: Ann\ndescription: old\n", {},
     ["unknown key 'autor' (did you mean 'author'?) " + _TAKES,
      "unknown key 'description' " + _TAKES]),
    ("metadata: {autor: Ann, version: 3}\n", {"version": "3"},
     ["unknown metadata key 'autor' (did you mean 'author'?) (metadata takes author, "
      "version, last_read_page, last_book_finished)"]),
    # these vanished without a word
    ("author: [Ann, Bob]\nmetadata: Ann\nversion: '2'\n", {"version": "2"},
     ["'metadata' must be a mapping (e.g. metadata: {author: Ann}), got a string: left out",
      "'author' must be text, got a list: left out"]),
    ("metadata: {version: {major: 2}}\n", {},
     ["'metadata.version' must be text, got a mapping: left out"]),
    # these were shown as "True" and "False"
    ("author: yes\nmetadata: {version: off}\n", {},
     ["'metadata.version' must be text, but YAML reads an unquoted yes, no, on, off, true or "
      "false as false: quote it; left out",
      "'author' must be text, but YAML reads an unquoted yes, no, on, off, true or false as "
      "true: quote it; left out"]),
])
def test_an_unknown_manifest_key_is_a_warning_with_a_suggestion(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, manifest: str,
        metadata: dict[str, str], warnings: list[str]) -> None:
    """Not an error: a manifest registered before keys were checked may hold a note."""
    bot = tmp_path / "e"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: e\ncommand: [x]\n" + manifest)
    with caplog.at_level("WARNING", logger="arena"):
        spec = resolve(bot)
    assert spec.name == "e" and spec.metadata == metadata
    assert [r.getMessage() for r in caplog.records] == [
        f"{bot / 'bot.yaml'}: {warning}" for warning in warnings]


def test_why_a_program_would_not_start(tmp_path: Path) -> None:
    (tmp_path / "crlf.sh").write_bytes(b"#!/bin/sh\r\necho\r\n")
    (tmp_path / "gone.js").write_bytes(b"#!/usr/bin/nowhere-node --flag\n")
    (tmp_path / "fine.sh").write_bytes(b"#!/bin/sh\necho\n")
    (tmp_path / "plain").write_bytes(b"no shebang\n")
    for name in ("crlf.sh", "gone.js", "fine.sh", "plain"):
        (tmp_path / name).chmod(0o755)
    (tmp_path / "unset.sh").write_bytes(b"#!/bin/sh\necho\n")
    assert command_problem(["./crlf.sh"], tmp_path) == (
        "the #! line of ./crlf.sh ends in a Windows line ending (\\r): save it with Unix line "
        "endings")
    assert command_problem(["./gone.js", "x"], tmp_path) == (
        "the #! line of ./gone.js names /usr/bin/nowhere-node, which is not installed here")
    assert command_problem(["fine.sh"], tmp_path) == (
        "'fine.sh' is a file of the bot: write ./fine.sh to run it; a bare name is looked up "
        "on PATH")
    # "Permission denied", of a script the author sees there
    assert command_problem(["./unset.sh"], tmp_path) == (
        "./unset.sh is not executable: chmod +x ./unset.sh")
    # a tool of the host user's (~/.cargo/bin): the sandbox's PATH has none of it
    assert command_problem(["nowhere-cargo", "run"], tmp_path) == (
        "'nowhere-cargo' is not on the bot's PATH (/usr/local/bin:/usr/bin:/bin; the host "
        "user's own, ~/.cargo/bin say, is not seen): install it there, or build the bot "
        "beforehand and run its program by its path (./bot): the arena never compiles")
    for fine in (["./fine.sh"], ["./plain"], ["sh", "fine.sh"], ["sh", "./missing"], []):
        assert command_problem(fine, tmp_path) is None
    # a module bot whose import opened a missing file: the sandbox's Python ran, not PATH's
    assert command_problem([PYTHON, *RUNNER, "bot.py"], tmp_path) is None
    # a compiled bot not built yet: the system's words named /bot/..., and no cause
    for missing in ("./missing", "target/release/missing", "./sub/../missing"):
        assert command_problem([missing], tmp_path) == (
            f"{missing} is not in the bot's directory: build it first? the arena never "
            "compiles")


def test_a_directory_that_is_no_bot_is_said_so_before_its_files_are_read(
        tmp_path: Path) -> None:
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "link").symlink_to("/")  # reading its files would have failed here
    with pytest.raises(ManifestError) as info:
        resolve(tmp_path / "junk")
    assert str(info.value) == (f"{tmp_path / 'junk'} is no bot directory: it has neither "
                               "bot.yaml nor bot.py")


def test_explaining_a_start_reads_only_the_bots_own_regular_files(tmp_path: Path) -> None:
    """It runs in the referee, maybe as root, on a bot's say-so: a FIFO, a link, a path out
    of the bot or a host path must not block it, be read or tell what the host holds."""
    bot = tmp_path / "bot"
    bot.mkdir()
    os.mkfifo(bot / "fifo")  # opened blocking, this would hang the referee forever
    (bot / "link").symlink_to(tmp_path / "outside.sh")
    (tmp_path / "outside.sh").write_bytes(b"#!/bin/sh\r\n")
    (bot / "probe.sh").write_bytes(b"#!/etc/shadow\n")  # outside the system dirs: no oracle
    (bot / "probe.sh").chmod(0o755)
    for command in (["./fifo"], ["./link"], ["./probe.sh"], ["./x\0y"], ["x\0y"]):
        assert command_problem(command, bot) is None, command
    # a path out of the bot is told so from its words alone, there on the host or not
    for command in (["../outside.sh"], [str(tmp_path / "outside.sh")], ["/proc/self/fd/0"],
                    ["../gone.sh"], ["./link/../../gone.sh"], ["/nowhere/gone"]):
        problem = command_problem(command, bot)
        assert problem == (f"{command[0]} lies outside the bot's directory: the sandbox shows "
                           "a bot its own files and the system's (/usr, /bin, /lib), no other "
                           "path of the host: copy the program into the bot's directory and "
                           "run it as ./NAME"), command
    (bot / "\x1b]0;title\x07.sh").write_bytes(b"#!/bin/sh\r\n")
    (bot / "\x1b]0;title\x07.sh").chmod(0o755)
    assert command_problem(["./\x1b]0;title\x07.sh"], bot) == (
        "the #! line of ./\\x1b]0;title\\x07.sh ends in a Windows line ending (\\r): save it "
        "with Unix line endings")


def test_a_shebang_out_of_the_system_dirs_tells_nothing_of_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee (root) looked up a ``#!`` interpreter that merely began with ``/usr/``:
    ``#!/usr/../root/x``, or one through a link out (Debian's ``/usr/lib/ssl/private`` leads
    to the root-only ``/etc/ssl/private``), and a failed start said whether it existed."""
    bot = tmp_path / "bot"
    bot.mkdir()
    secret = tmp_path / "private"
    secret.mkdir()
    (secret / "there.key").write_text("key")
    system = tmp_path / "usr"
    (system / "lib").mkdir(parents=True)
    (system / "lib" / "private").symlink_to(secret)
    monkeypatch.setattr(startup, "_SYSTEM_DIRS", (f"{system}/",))
    for interpreter in (f"{system}/../private/there.key", f"{system}/../private/gone.key",
                        f"{system}/lib/private/there.key", f"{system}/lib/private/gone.key"):
        (bot / "probe.sh").write_text(f"#!{interpreter}\n")
        (bot / "probe.sh").chmod(0o755)
        assert command_problem(["./probe.sh"], bot) is None, interpreter
    (bot / "probe.sh").write_text(f"#!{system}/lib/gone\n")  # still told within the dirs
    assert command_problem(["./probe.sh"], bot) == (
        f"the #! line of ./probe.sh names {system}/lib/gone, which is not installed here")


def test_a_name_with_an_at_sign_is_refused(tmp_path: Path) -> None:
    """``name@version`` keys results: a name holding '@' would read as another version."""
    bot = tmp_path / "e"
    bot.mkdir()
    (bot / "bot.yaml").write_text('name: "x@y"\ncommand: [x]\n')
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    assert str(info.value) == (f"{bot / 'bot.yaml'}: a bot's name cannot contain '@' (it "
                               "separates the name from the version in results): 'x@y'")


@pytest.mark.parametrize("name", ['=HYPERLINK("http://evil.example/","x")', "+1+1", "-2+3"])
def test_a_name_a_spreadsheet_would_run_as_a_formula_is_refused(tmp_path: Path,
                                                                 name: str) -> None:
    """Names go into the csv exports (leaderboard, results, h2h), which people open in
    spreadsheets: a cell that starts with '=', '+' or '-' runs there as a formula."""
    bot = tmp_path / "f"
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: {name!r}\ncommand: [x]\n")
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    assert str(info.value) == (f"{bot / 'bot.yaml'}: a bot's name cannot start with '=', '+' "
                               "or '-' (a spreadsheet opening the csv exports would run it as "
                               f"a formula): '{name}'")
    module = tmp_path / "m.py"
    module.write_text(MODULE.replace('"mine"', repr(name)))
    with pytest.raises(ManifestError, match="cannot start with"):
        resolve(module)


@pytest.mark.parametrize("hidden", ["\u200b", "\u2060", "\ufeff", "\u00ad"])
def test_a_name_with_an_invisible_character_is_refused(tmp_path: Path, hidden: str) -> None:
    """'greedy' and 'greedy' + a zero-width space showed as two bots of one name in the
    leaderboard: only the version told them apart."""
    bot = tmp_path / "f"
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: \"greedy{hidden}\"\ncommand: [x]\n",
                                  encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    assert str(info.value) == (f"{bot / 'bot.yaml'}: a bot's name cannot hold an invisible "
                               f"character (U+{ord(hidden):04X}): two bots would show the "
                               f"same name in results: {ascii('greedy' + hidden)}")
    module = tmp_path / "m.py"
    module.write_text(MODULE.replace('"mine"', repr("greedy" + hidden)), encoding="utf-8")
    with pytest.raises(ManifestError, match="invisible character"):
        resolve(module)


@pytest.mark.parametrize("blank", ["\u3164", "\u2800", "\u034f", "\uffa0", "\ufe0f"])
def test_a_name_with_a_blank_letter_is_refused(tmp_path: Path, blank: str) -> None:
    """The Hangul filler, the blank braille pattern and the other blanks Unicode files as
    letters, symbols or marks show nothing, as a zero-width space does: 'greedy' + one of
    them was a second 'greedy' in the leaderboard."""
    bot = tmp_path / "f"
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: \"greedy{blank}\"\ncommand: [x]\n",
                                  encoding="utf-8")
    with pytest.raises(ManifestError, match=f"invisible character \\(U\\+{ord(blank):04X}\\)"):
        resolve(bot)
    module = tmp_path / "m.py"
    module.write_text(MODULE.replace('"mine"', repr("greedy" + blank)), encoding="utf-8")
    with pytest.raises(ManifestError, match="invisible character"):
        resolve(module)


@pytest.mark.parametrize("space", ["\u200a", "\u2009", "\u2006", "\u202f", "\u3000"])
def test_a_name_with_a_space_other_than_a_plain_one_is_refused(tmp_path: Path,
                                                              space: str) -> None:
    """'gree' + a hair space + 'dy' is drawn as 'greedy' (the gap is a pixel or none): a
    second 'greedy' in the leaderboard beside the real one, told apart by nothing."""
    bot = tmp_path / "f"
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: \"gree{space}dy\"\ncommand: [x]\n",
                                  encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        resolve(bot)
    assert str(info.value) == (f"{bot / 'bot.yaml'}: a bot's name cannot hold a space other "
                               f"than ' ' (U+{ord(space):04X}, drawn narrower, wider or not at "
                               f"all): two bots would show the same name in results: "
                               f"{ascii('gree' + space + 'dy')}")
    module = tmp_path / "m.py"
    module.write_text(MODULE.replace('"mine"', repr("gree" + space + "dy")), encoding="utf-8")
    with pytest.raises(ManifestError, match="a space other than"):
        resolve(module)
    (bot / "bot.yaml").write_text("name: \"my greedy\"\ncommand: [x]\n", encoding="utf-8")
    assert resolve(bot).name == "my greedy"


@pytest.mark.parametrize("name", ["greedy ", " greedy", "greedy\u00a0"])
def test_a_modules_name_is_stripped_as_a_manifests_is(tmp_path: Path, name: str) -> None:
    """A module's 'greedy ' showed as 'greedy' beside the real one (a manifest's name was
    already stripped), and ' =1+1' passed the formula check."""
    module = tmp_path / "m.py"
    module.write_text(MODULE.replace('"mine"', repr(name)), encoding="utf-8")
    assert resolve(module).name == "greedy"
    (tmp_path / "m.py").write_text(MODULE.replace('"mine"', repr(" =1+1")), encoding="utf-8")
    with pytest.raises(ManifestError, match="cannot start with"):
        resolve(module)
    kit = tmp_path / "k"
    kit.mkdir()
    (kit / "bot.py").write_text(MODULE.replace('"mine"', repr(name)), encoding="utf-8")
    assert resolve(kit).name == "greedy"


def test_unknown_bot_lists_the_registered(bots: Path) -> None:
    with pytest.raises(BotNotFoundError) as info:
        resolve("x", bots)
    assert str(info.value) == "unknown bot 'x' (registered: alpha, beta)"
    with pytest.raises(BotNotFoundError) as info:
        resolve("alpah", bots)
    assert str(info.value) == ("unknown bot 'alpah' (did you mean 'alpha'?) (registered: alpha, "
                               "beta)")
    with pytest.raises(BotNotFoundError) as info:  # a sample bot, when another dir is in use
        resolve("greedy", bots)
    assert str(info.value) == (f"unknown bot 'greedy' (the sample bot is {SAMPLE_BOTS_DIR}/"
                               "greedy.py) (registered: alpha, beta)")
    with pytest.raises(BotNotFoundError, match="no bot at nowhere/x.py"):
        resolve("nowhere/x.py", bots)


def test_an_unknown_name_with_a_bot_file_of_it_here_names_the_file(
        bots: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena match my_bot greedy`` beside the my_bot.py just written: the file is named
    with its .py, which the refusal says, where it listed registered names only."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (work / "my_bot.py").write_text(MODULE, encoding="utf-8")
    with pytest.raises(BotNotFoundError) as info:
        resolve("my_bot", bots)
    assert str(info.value) == ("unknown bot 'my_bot' (a file is named with its .py: my_bot.py) "
                               "(registered: alpha, beta)")


@pytest.mark.parametrize("length", [253, 300])
def test_a_name_longer_than_a_file_name_may_be_is_no_bot_not_a_crash(
        bots: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: int) -> None:
    """A name the system cannot look a file up by (a typo'd spec, a pasted line): the
    refusal, as for any unknown name, where the lookup's OSError was a traceback (at 253
    characters, the name with its .py; at 300, the name itself)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BotNotFoundError, match="longer than a file name may be"):
        resolve("x" * length, bots)


def test_registered_names_and_listing(bots: Path) -> None:
    assert [s.name for s in list_bots(bots)] == ["alpha", "beta"]
    assert resolve("alpha", bots).path == (bots / "alpha.py").resolve()


def test_module_metadata_never_runs_the_code(tmp_path: Path) -> None:
    file = tmp_path / "evil.py"
    marker = tmp_path / "ran"
    file.write_text(f"open({str(marker)!r}, 'w').close()\n" + MODULE)
    assert module_metadata(file)["author"] == "Ann"
    assert not marker.exists()


def test_the_sample_bots_resolve_by_name() -> None:
    names = [s.name for s in list_bots(ROOT / "bots")]
    assert {"random", "greedy", "collector"} <= set(names)


def test_a_registered_name_that_is_also_a_local_directory_says_which_runs(
        tmp_path: Path, bots: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """``arena match student`` beside a ``student/`` directory runs the registered bot; the
    author who meant the directory (and is testing a new version) must be told."""
    source = tmp_path / "student.py"
    source.write_text(MODULE)
    registered = submit(source, name="student", bots_dir=bots, check=passing)
    local = tmp_path / "work" / "student"
    local.mkdir(parents=True)
    (local / "bot.py").write_text(MODULE + "\n# a newer version\n")
    monkeypatch.chdir(local.parent)
    with caplog.at_level(logging.WARNING, logger="arena.registry"):
        assert resolve("student", bots).version == registered.version
    assert caplog.messages == [f"'student' is the registered bot {registered.path}; the "
                               "directory of that name here is not used (write ./student "
                               "for it)"]
    caplog.clear()
    assert resolve("./student", bots).path == local.resolve()
    assert caplog.messages == []


def test_submit_module(tmp_path: Path, bots: Path) -> None:
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    spec = submit(source, bots_dir=bots, check=passing)
    assert spec.name == "mine" and spec.path == (bots / "mine.py").resolve()
    assert (bots / "mine.py").read_text() == MODULE
    entry = submitted(bots)["mine"]
    assert entry["version"] == spec.version and entry["path"] == "mine.py"
    assert entry["metadata"]["author"] == "Ann"
    assert resolve("mine", bots).version == spec.version
    registry = yaml.safe_load((bots / "registry.yaml").read_text())
    assert set(registry["bots"]) == {"mine"}


def test_submit_directory_under_a_new_name(tmp_path: Path, bots: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    (source / "__pycache__").mkdir()
    (source / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    spec = submit(source, name="renamed", bots_dir=bots, check=passing)
    assert spec.name == "renamed" and (bots / "renamed" / "bot.py").is_file()
    assert not (bots / "renamed" / "__pycache__").exists()
    assert resolve("renamed", bots).name == "renamed"
    assert submit(source, name="renamed", bots_dir=bots, check=passing) == spec
    with pytest.raises(SubmitError) as info:  # the same files, the name in other letters
        submit(source, name="Renamed", bots_dir=bots, check=passing)
    assert str(info.value) == (f"'renamed' is already registered with the same files "
                               f"(version {spec.version}); submit it as --name renamed")


def test_submit_refuses_a_taken_name(tmp_path: Path, bots: Path) -> None:
    source = tmp_path / "alpha.py"
    source.write_text(MODULE.replace('"mine"', '"alpha"'))
    before = sorted(p.name for p in bots.iterdir())
    checks: list[Any] = []
    again = submit(source, bots_dir=bots, check=lambda spec: checks.append(spec))
    assert again == resolve("alpha", bots) and checks == []  # idempotent: no check, no copy
    assert sorted(p.name for p in bots.iterdir()) == before
    with pytest.raises(SubmitError, match="the name 'BETA' is taken, but for case, by 'beta' "
                                          r"\(registered, version .*\): choose another name"):
        submit(source, name="BETA", bots_dir=bots, check=passing)
    with pytest.raises(SubmitError, match="^--update replaces a bot under its registered "
                                          "name: --name beta$"):
        submit(source, name="BETA", bots_dir=bots, check=passing, update=True)


def test_update_replaces_the_files_and_the_version(tmp_path: Path, bots: Path) -> None:
    source = tmp_path / "alpha.py"
    source.write_text(MODULE.replace('"mine"', '"alpha"') + "\n# better\n")
    old = resolve("alpha", bots).version
    with pytest.raises(SubmitError):
        submit(source, bots_dir=bots, check=failing, update=True)
    assert resolve("alpha", bots).version == old  # a failing check replaces nothing
    spec = submit(source, bots_dir=bots, check=passing, update=True)
    assert spec.version != old and resolve("alpha", bots).version == spec.version
    assert submitted(bots)["alpha"]["version"] == spec.version


def test_a_file_swapped_for_a_link_during_the_check_is_not_registered(
        tmp_path: Path, bots: Path) -> None:
    """The check runs for seconds: whoever may write the submitted directory could replace a
    checked file with a link to a file only the operator may read, which the copy would
    follow into the bots directory, where the bot reads it in the sandbox."""
    source = tmp_path / "racer"
    source.mkdir()
    (source / "bot.py").write_text(MODULE.replace('"mine"', '"racer"'))
    (source / "data.txt").write_text("harmless\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("the operator's secret\n")

    def swapping(spec: BotSpec) -> Any:
        (source / "data.txt").unlink()
        (source / "data.txt").symlink_to(secret)
        return passing(spec)

    with pytest.raises(SubmitError) as refused:
        submit(source, bots_dir=bots, check=swapping)
    assert str(refused.value) == (
        f"{source} changed while it was checked: {source / 'data.txt'} is a symbolic link (to "
        f"{secret}): a bot directory may hold only regular files and directories")
    assert "racer" not in submitted(bots) and not (bots / "racer").exists()
    assert [p.name for p in bots.iterdir() if p.name.startswith(".")] == []


def test_two_submits_at_once_both_stay_registered(tmp_path: Path, bots: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A class's students submit at once: each submit reads the registry and writes it back
    with its entry, so one that came between another's read and write was dropped from it."""
    from arena.registry import submission
    first, second = tmp_path / "one.py", tmp_path / "two.py"
    first.write_text(MODULE.replace('"mine"', '"one"'))
    second.write_text(MODULE.replace('"mine"', '"two"'))
    real = submission.read_entries
    done = threading.Event()
    failures: list[Exception] = []
    others: list[threading.Thread] = []

    def other() -> None:
        try:
            submit(second, bots_dir=bots, check=passing)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)
        finally:
            done.set()

    def reading(bots_dir: Path) -> dict[str, dict[str, Any]]:
        entries = real(bots_dir)
        if not others:  # the first has read the registry: the second submits now
            others.append(threading.Thread(target=other))
            others[0].start()
            done.wait(timeout=2)  # it waits for the first's write, where submits take turns
        return entries

    monkeypatch.setattr(submission, "read_entries", reading)
    submit(first, bots_dir=bots, check=passing)
    others[0].join()
    assert failures == []
    assert {"one", "two"} <= set(submitted(bots))


def test_a_module_edited_during_the_check_is_not_registered(tmp_path: Path, bots: Path) -> None:
    """What is registered is what was checked: a module edited (or swapped for a link)
    while the check ran is refused, and an update keeps the version it would replace."""
    source = tmp_path / "alpha.py"
    source.write_text(MODULE.replace('"mine"', '"alpha"') + "\n# better\n")
    old = resolve("alpha", bots).version

    def editing(spec: BotSpec) -> Any:
        source.write_text(source.read_text() + "# and then something else\n")
        return passing(spec)

    with pytest.raises(SubmitError) as refused:
        submit(source, bots_dir=bots, check=editing, update=True)
    assert str(refused.value).startswith(f"{source} changed while it was checked: version ")
    assert resolve("alpha", bots).version == old
    assert (bots / "alpha.py").is_file()


_SWAP_TO_ZERO = """
import resource, signal, sys
from pathlib import Path
from collections.abc import Callable
from types import SimpleNamespace
from arena.errors import SubmitError
from arena.registry import submit

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails, EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
source, bots = Path(sys.argv[1]), Path(sys.argv[2])

def swapping(spec):
    source.unlink()
    source.symlink_to("/dev/zero")
    return SimpleNamespace(ok=True, failures=lambda: [])

# the swap lands just after the copy looked at what the path is: a file, then
is_file = Path.is_file
Path.is_file = lambda self: True if self == source else is_file(self)

try:
    submit(source, bots_dir=bots, check=swapping)
except SubmitError as exc:
    print(exc)
"""


def test_a_module_made_a_link_to_a_device_during_the_check_is_not_copied(
        tmp_path: Path, bots: Path) -> None:
    """The copy of a module followed a link: one to /dev/zero, made just after the copy
    saw a file there, was copied without end into the bots directory (until the disk was
    full; here the run's 1 MiB file limit stops it)."""
    source = tmp_path / "zero.py"
    source.write_text(MODULE)
    done = subprocess.run([sys.executable, "-c", _SWAP_TO_ZERO, str(source), str(bots)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout == (f"{source} changed while it was checked: it is a symbolic link "
                           "now\n"), done.stderr
    assert not (bots / "zero.py").exists()


_SWAP_DIR_TO_DEV = """
import resource, signal, sys
from pathlib import Path
from collections.abc import Callable
from types import SimpleNamespace
from arena.errors import SubmitError
from arena.registry import submit

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails, EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
source, bots = Path(sys.argv[1]), Path(sys.argv[2])

def swapping(spec):
    source.rename(source.with_name("checked"))
    source.symlink_to("/dev")
    return SimpleNamespace(ok=True, failures=lambda: [])

try:
    submit(source, bots_dir=bots, check=swapping)
except SubmitError as exc:
    print(exc)
"""


def test_a_bot_directory_made_a_link_during_the_check_is_not_copied(
        tmp_path: Path, bots: Path) -> None:
    """The copy of a bot directory followed its root: made a link to /dev while the check
    ran, /dev/zero was copied without end into the bots directory (here the run's 1 MiB
    file limit stops it)."""
    source = tmp_path / "racer"
    source.mkdir()
    (source / "bot.py").write_text(MODULE.replace('"mine"', '"racer"'))
    done = subprocess.run([sys.executable, "-c", _SWAP_DIR_TO_DEV, str(source), str(bots)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout == (f"{source} changed while it was checked: it is a symbolic link "
                           "now\n"), done.stderr
    assert not (bots / "racer").exists()
    assert [p.name for p in bots.iterdir() if p.name.startswith(".")] == []


def test_a_fifo_made_in_a_bot_directory_during_the_check_is_named(
        tmp_path: Path, bots: Path) -> None:
    """A FIFO made while the check ran was refused in the words of shutil's error list:
    'cannot register into BOTS: [('SRC', 'DST', '`SRC` is a named pipe')]'."""
    source = tmp_path / "racer"
    source.mkdir()
    (source / "bot.py").write_text(MODULE.replace('"mine"', '"racer"'))

    def fifo(spec: BotSpec) -> Any:
        os.mkfifo(source / "pipe")
        return passing(spec)

    with pytest.raises(SubmitError) as refused:
        submit(source, bots_dir=bots, check=fifo)
    assert str(refused.value) == (
        f"{source} changed while it was checked: {source / 'pipe'} is not a regular file: a "
        "bot directory may hold only regular files and directories")
    assert "racer" not in submitted(bots) and not (bots / "racer").exists()


def test_directories_nested_during_the_check_are_refused_in_one_line(
        tmp_path: Path, bots: Path) -> None:
    """Directories nested 1,000 deep while the check ran made the copy recurse until
    Python gave up: a RecursionError traceback. (70 here: a deeper tree left behind would
    break pytest's own clean-up of old temporary directories.)"""
    source = tmp_path / "racer"
    source.mkdir()
    (source / "bot.py").write_text(MODULE.replace('"mine"', '"racer"'))

    def nesting(spec: BotSpec) -> Any:
        nested = source
        for _ in range(70):
            nested /= "d"
            nested.mkdir()
        return passing(spec)

    with pytest.raises(SubmitError) as refused:
        submit(source, bots_dir=bots, check=nesting)
    assert str(refused.value) == (f"{source} changed while it was checked: its directories "
                                  "nest more than 64 deep now")
    assert [p.name for p in bots.iterdir() if p.name.startswith(".")] == []


def test_update_of_a_sample_bots_name_leaves_the_sample_in_the_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_BOTS_DIR", raising=False)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    bots = default_bots_dir()
    sample = SAMPLE_BOTS_DIR / "collector.py"
    original = sample.read_bytes()
    old = resolve("collector", bots)
    assert old.path == sample
    mine = tmp_path / "mine.py"
    mine.write_text((SAMPLE_BOTS_DIR / "greedy.py").read_text())
    with pytest.raises(SubmitError) as refused:
        submit(mine, name="collector", bots_dir=bots, check=passing)
    assert str(refused.value) == (
        f"'collector' is a sample bot (version {old.version}); --update registers yours under "
        "its name, which then comes first (the sample stays in the checkout), or choose "
        "another name with --name")
    try:
        new = submit(mine, name="collector", bots_dir=bots, check=passing, update=True)
        left = sample.read_bytes() if sample.exists() else None
        with pytest.raises(SubmitError, match="^'collector' is a sample bot of the arena's "
                                              "checkout, which --update does not overwrite"):
            submit(mine, name="collector", bots_dir=SAMPLE_BOTS_DIR, check=passing, update=True)
        assert sample.read_bytes() == original
    finally:  # put the checkout back whatever the outcome
        sample.write_bytes(original)
        for made in (SAMPLE_BOTS_DIR / ".versions", SAMPLE_BOTS_DIR / "registry.yaml"):
            if made.is_dir():
                shutil.rmtree(made)
            elif made.exists():
                made.unlink()
    assert left == original
    assert resolve("collector", bots) == new and new.path == bots / "collector.py"
    assert resolve(f"collector@{old.version}", bots).version == old.version


def test_update_keeps_the_old_version_by_its_key(tmp_path: Path, bots: Path) -> None:
    """A tournament that started with the old version must still find it (and a match may
    want it): ``name@version`` resolves to the kept copy, with the very same version."""
    old = resolve("alpha", bots)
    source = tmp_path / "alpha.py"
    source.write_text(MODULE.replace('"mine"', '"alpha"') + "\n# better\n")
    new = submit(source, bots_dir=bots, check=passing, update=True)
    assert resolve(f"alpha@{old.version}", bots).version == old.version
    assert resolve(f"alpha@{old.version}+o1234abcd", bots).version == old.version
    assert resolve(f"alpha@{new.version}", bots) == resolve("alpha", bots)
    assert set(kept_versions("alpha", bots)) == {old.version}
    assert registered_names(bots) == ["alpha", "beta"]  # the kept copies are not listed
    with pytest.raises(BotNotFoundError) as info:
        resolve("alpha@000000000000", bots)
    assert str(info.value) == (f"no version '000000000000' of 'alpha' (there are: "
                               f"{new.version}, {old.version})")
    beta = tmp_path / "beta"  # a directory bot is kept whole
    shutil.copytree(bots / "beta", beta)
    (beta / "bot.js").write_text("// better\n")
    old_beta = resolve("beta", bots)
    submit(beta, bots_dir=bots, check=passing, update=True)
    assert resolve(f"beta@{old_beta.version}", bots).command == old_beta.command
    assert (bots / ".versions" / f"beta@{old_beta.version}" / "bot.js").read_text() == (
        "// a bot in another language\n")


def test_a_results_key_with_options_must_be_given_those_options(bots: Path) -> None:
    """A key copied from a leaderboard names its options by digest only: entered without
    them (or with others) it would play another entrant under a name that says otherwise."""
    plain = resolve("alpha", bots)
    tuned = plain.with_options({"depth": 2})
    assert require_named_options(tuned.key, tuned) == tuned
    assert require_named_options("alpha", plain) == plain
    assert require_named_options(plain.key, plain) == plain
    with pytest.raises(BotError) as info:
        require_named_options(tuned.key, resolve(tuned.key, bots))
    assert str(info.value) == (
        f"{tuned.key!r} names options (+{tuned.version.partition('+')[2]}) but was given no "
        "options: a results key cannot carry options, give them with the bot ('-o' in "
        f"'arena match', 'options:' in a spec) or enter {plain.key}")
    with pytest.raises(BotError, match=r"but was given other options \(\+o"):
        require_named_options(tuned.key, plain.with_options({"depth": 3}))


def test_a_kept_directory_bot_whose_module_is_named_like_it_stays_a_directory(
        tmp_path: Path, bots: Path) -> None:
    source = tmp_path / "modbot"
    source.mkdir()
    (source / "bot.yaml").write_text("name: modbot\nmodule: modbot.py\n")
    (source / "modbot.py").write_text(MODULE.replace('"mine"', '"modbot"'))
    old = submit(source, bots_dir=bots, check=passing)
    (source / "modbot.py").write_text(MODULE.replace('"mine"', '"modbot"') + "# v2\n")
    submit(source, bots_dir=bots, check=passing, update=True)
    kept = resolve(f"modbot@{old.version}", bots)
    assert kept.version == old.version and kept.path.is_dir()
    for pattern in ("*", "?", "[m]odbot"):  # a name is matched as written, never as a glob
        with pytest.raises(BotNotFoundError, match="unknown bot"):
            resolve(f"{pattern}@{old.version}", bots)


def test_submit_refuses_a_name_whose_files_another_bot_holds(tmp_path: Path, bots: Path) -> None:
    """A bot 'foo.py' (a directory) and a bot 'foo' (the file foo.py) would share a path: the
    second is refused before its check, and the first keeps its files and version."""
    directory = tmp_path / "dirbot"
    directory.mkdir()
    (directory / "bot.py").write_text(MODULE)
    first = submit(directory, name="foo.py", bots_dir=bots, check=passing)
    module = tmp_path / "other.py"
    module.write_text(MODULE.replace('"mine"', '"other"'))
    checks: list[Any] = []
    with pytest.raises(SubmitError) as info:
        submit(module, name="foo", bots_dir=bots, check=checks.append)
    assert str(info.value) == (f"cannot register 'foo': {bots / 'foo.py'} already holds the "
                               "files of bot 'foo.py'; choose another name with --name")
    assert checks == [] and sorted(p.name for p in (bots / "foo.py").iterdir()) == ["bot.py"]
    assert resolve("foo.py", bots).version == first.version
    with pytest.raises(SubmitError, match=r"cannot register 'alpha\.py': .* already holds the "
                                          "files of bot 'alpha'"):
        submit(directory, name="alpha.py", bots_dir=bots, check=passing)


def test_the_registry_stays_readable_by_everyone(tmp_path: Path, bots: Path) -> None:
    """Bots run as other users and other people list them: a submit must not make the
    registry private (its temporary file is), and an unreadable one is a clear error."""
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    submit(source, bots_dir=bots, check=passing)
    assert stat.S_IMODE((bots / "registry.yaml").stat().st_mode) == 0o644
    (bots / "registry.yaml").chmod(0o664)
    submit(source, name="again", bots_dir=bots, check=passing)
    assert stat.S_IMODE((bots / "registry.yaml").stat().st_mode) == 0o664
    (bots / "registry.yaml").write_bytes(b"bots: {\xff: 1}\n")
    with pytest.raises(ManifestError, match=r"^cannot read .*registry\.yaml: 'utf-8' codec"):
        list_bots(bots)


@pytest.mark.parametrize(("text", "problem"), [
    ("- alpha\n", " must be a mapping with 'bots' (arena submit writes it), got a list"),
    ("bots: [alpha, beta]\n", ": 'bots' must be a mapping of bot names to entries, got a list"),
    ("bots: 5\n", ": 'bots' must be a mapping of bot names to entries, got a number"),
    ("bots: {alpha: {path: [alpha.py]}}\n",
     ": bots.alpha.path must be the name of the bot's file or directory in {bots}, got "
     "['alpha.py']"),
    ("bots: {alpha: {path: ''}}\n",
     ": bots.alpha.path must be the name of the bot's file or directory in {bots}, got ''"),
    (f"bots: {{alpha: {{path: {'a' * 300}}}}}\n",
     f": bots.alpha.path {'a' * 60}...: File name too long"),
], ids=["list", "bots-list", "bots-number", "path-list", "path-empty", "path-too-long"])
def test_a_registry_edited_wrong_is_one_clear_error(tmp_path: Path, bots: Path, text: str,
                                                    problem: str) -> None:
    """A hand's edit that breaks registry.yaml's shape stops every command that reads it with
    one line naming the file: listing, resolving and submitting raised AttributeError or
    OSError, or followed a list's text as a path."""
    (bots / "registry.yaml").write_text(text)
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    expected = f"{bots / 'registry.yaml'}{problem.format(bots=bots)}"
    for command in (lambda: list_bots(bots), lambda: resolve("alpha", bots),
                    lambda: submit(source, bots_dir=bots, check=passing, update=True)):
        with pytest.raises(ManifestError) as info:
            command()
        assert str(info.value) == expected
    assert (bots / "registry.yaml").read_text() == text and not (bots / "mine.py").exists()


@pytest.mark.parametrize("inner", ["bots", "deep/er/bots", ""])
def test_a_bot_directory_holding_the_bots_directory_is_refused(tmp_path: Path,
                                                               inner: str) -> None:
    """'arena submit .' in a project whose ./bots is the bots directory copied the copy into
    itself until 'its directories nest more than 64 deep now', and would have made the other
    registered bots part of this one."""
    project = tmp_path / "project"
    (project / "bots").mkdir(parents=True)
    (project / "bot.py").write_text(MODULE)
    bots_dir = project / inner if inner else project
    with pytest.raises(SubmitError) as info:
        submit(project, bots_dir=bots_dir, check=passing)
    assert str(info.value) == (f"{project} holds the bots directory {bots_dir}: a bot's "
                               "directory cannot hold the bots it is registered among; move "
                               "the bot's files to a directory of their own, or give another "
                               "bots directory ($ARENA_BOTS_DIR)")
    assert sorted(p.name for p in project.iterdir()) == ["bot.py", "bots"]
    assert list((project / "bots").iterdir()) == []


def _as_a_user_not_root(work: Callable[[], None]) -> str:
    """Run ``work`` as a user other than root (in a child as nobody when the tests run as
    root: root moves and deletes whatever the modes say); its error, or ''."""
    if os.geteuid() != 0:
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - reported as the test's failure
            return f"{type(exc).__name__}: {exc}"
        return ""
    import codecs

    codecs.lookup("utf-8-sig")  # loaded now: nobody cannot read the interpreter's modules
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without pytest's clean-up
        os.close(reader)
        try:
            os.setgid(65534)
            os.setuid(65534)
            work()
            said = b""
        except BaseException as exc:  # noqa: BLE001
            said = f"{type(exc).__name__}: {exc}".encode()
        os.write(writer, said)
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        said = pipe.read().decode()
    os.waitpid(pid, 0)
    return said


def test_a_read_only_bot_directory_is_registered_updated_and_removed(tmp_path: Path) -> None:
    """A directory keeps its modes when copied, and one its owner may not write moves to
    another directory only for root: a user submitting a read-only bot directory got
    'cannot register into ...: Permission denied', and its update could not take the old
    copy away."""
    import tempfile

    from arena.registry import unregister

    work = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        work.chmod(0o777)
        source, bots_dir = work / "src", work / "bots"
        (source / "lib").mkdir(parents=True)
        (source / "bot.py").write_text(MODULE)
        (source / "lib" / "data.txt").write_text("1")
        for path in (source / "lib", source):
            path.chmod(0o555)
        versions: list[str] = []

        def register_update_remove() -> None:
            versions.append(submit(source, bots_dir=bots_dir, check=passing).version)
            for path in (source, source / "lib"):
                path.chmod(0o755)
            (source / "lib" / "data.txt").write_text("2")
            for path in (source / "lib", source):
                path.chmod(0o555)
            submit(source, bots_dir=bots_dir, check=passing, update=True)
            unregister("mine", bots_dir)

        if os.geteuid() == 0:
            shutil.chown(source / "lib" / "data.txt", 65534)
            for path in (source / "lib", source):
                shutil.chown(path, 65534)
        assert _as_a_user_not_root(register_update_remove) == ""
        assert sorted(p.name for p in bots_dir.iterdir()) == [".versions", "registry.yaml"]
        assert list((bots_dir / ".versions").iterdir()) == []
    finally:
        for path in (work / "src", work / "src" / "lib"):
            if path.exists():
                path.chmod(0o755)
        shutil.rmtree(work)


@pytest.mark.parametrize("elsewhere", ["../outside.py", "{tmp}/outside.py"])
def test_an_update_leaves_files_an_entry_names_outside_the_bots_directory(
        tmp_path: Path, bots: Path, elsewhere: str) -> None:
    """An entry pointed by hand at the author's own file: --update deleted it."""
    outside = tmp_path / "outside.py"
    outside.write_text(MODULE)
    source = tmp_path / "mine.py"
    source.write_text(MODULE.replace('"2.1"', '"2.2"'))
    (bots / "registry.yaml").write_text(yaml.safe_dump(
        {"bots": {"mine": {"path": elsewhere.format(tmp=tmp_path)}}}))
    assert resolve("mine", bots).path == outside.resolve()
    spec = submit(source, bots_dir=bots, check=passing, update=True)
    assert outside.read_text() == MODULE and spec.path == (bots / "mine.py").resolve()
    assert submitted(bots)["mine"]["path"] == "mine.py"


def test_submit_refuses_a_failing_check_and_copies_nothing(tmp_path: Path, bots: Path) -> None:
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    with pytest.raises(SubmitError) as info:
        submit(source, bots_dir=bots, check=failing)
    assert str(info.value) == (f"{source} failed the compliance check: "
                               "decisions: 4 failures in 3 games: timeout 4")
    assert not (bots / "mine.py").exists() and submitted(bots) == {}


@pytest.mark.parametrize("name", ["../escape", "a b", "", "registry", "x" * 41, "-dash",
                                  "trail\n"])
def test_submit_refuses_bad_names(tmp_path: Path, bots: Path, name: str) -> None:
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    with pytest.raises(BotNameError, match="is reserved" if name == "registry"
                       else "is not allowed"):
        submit(source, name=name, bots_dir=bots, check=passing)


def test_a_directory_bot_named_like_the_registry_file_is_refused(tmp_path: Path) -> None:
    """A directory bot named 'registry.yaml' was copied to bots/registry.yaml, where the
    registry is written: a traceback (IsADirectoryError), then one at every later submit."""
    bots = tmp_path / "fresh"
    source = tmp_path / "regbot"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    with pytest.raises(BotNameError) as info:
        submit(source, name="registry.yaml", bots_dir=bots, check=passing)
    assert str(info.value) == ("bot name 'registry.yaml' is reserved (the bots directory's "
                               "registry.yaml)")
    assert not (bots / "registry.yaml").exists()


def test_submit_nothing(tmp_path: Path, bots: Path) -> None:
    with pytest.raises(SubmitError, match="nothing to submit at"):
        submit(tmp_path / "absent.py", bots_dir=bots, check=passing)


@pytest.mark.parametrize("special", ["link_out", "link_dir", "fifo"])
def test_a_bot_directory_holds_regular_files_only(tmp_path: Path, bots: Path,
                                                  special: str) -> None:
    """submit would follow a link and copy host files where the bot can read them (the
    results database, say); a FIFO would hang the hashing. Both are refused clearly."""
    import os

    secret = tmp_path / "secret.txt"
    secret.write_text("host file")
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    if special == "link_out":
        (source / "loot.txt").symlink_to(secret)
        error = rf"^{source.resolve() / 'loot.txt'} is a symbolic link \(to {secret}\): a bot"
    elif special == "link_dir":
        (source / "results").symlink_to(tmp_path, target_is_directory=True)
        error = rf"^{source.resolve() / 'results'} is a symbolic link \(to {tmp_path}\)"
    else:
        os.mkfifo(source / "pipe")
        error = rf"^{source.resolve() / 'pipe'} is not a regular file: a bot directory"
    with pytest.raises(ManifestError, match=error):
        resolve(source)
    with pytest.raises(ManifestError, match=error):
        submit(source, name="sneaky", bots_dir=bots, check=passing)
    assert not (bots / "sneaky").exists()


def test_a_hard_link_to_a_file_outside_the_bot_is_refused_one_within_is_copied(
        tmp_path: Path, bots: Path) -> None:
    """A hard link in a bot's directory was copied as a file of its own: one to a file
    outside smuggled that file's content into the bot's reach (a file of another user, where
    the kernel lets anyone link any file), the referee reading it for the submitter."""
    secret = tmp_path / "secret.txt"
    secret.write_text("host file")
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    os.link(source / "bot.py", source / "same.py")  # both names in the bot: its own
    os.link(secret, source / "loot.txt")
    error = (rf"^{source.resolve() / 'loot.txt'} is a hard link to a file outside the bot "
             rf"{source.resolve()} \(2 names, 1 of them in the bot\): a bot may hold only "
             r"files of its own; copy the file in \(cp\) instead of linking it$")
    with pytest.raises(ManifestError, match=error):
        resolve(source)
    with pytest.raises(ManifestError, match=error):
        submit(source, name="sneaky", bots_dir=bots, check=passing)
    assert not (bots / "sneaky").exists()
    (source / "loot.txt").unlink()
    spec = submit(source, name="linked", bots_dir=bots, check=passing)
    assert (spec.path / "same.py").read_text() == MODULE
    assert (spec.path / "same.py").stat().st_nlink == 1  # copied as a file of its own
    module = tmp_path / "mod.py"
    os.link(source / "bot.py", module)
    with pytest.raises(ManifestError, match=rf"^{module} is a hard link \(3 names\): a bot's "
                                            r"file must be its own; copy it \(cp\)"):
        resolve(module)


@pytest.mark.parametrize("cached", ["__pycache__/bot.cpython-311.pyc", "bot.pyc",
                                    ".git/objects/bot"])
def test_a_hard_link_to_a_name_a_launch_does_not_copy_is_refused_by_the_check(
        tmp_path: Path, cached: str) -> None:
    """The check counted a hard link's name in a cache (or a .pyc file) as the bot's own;
    the launch's copy, which leaves those out, counted it outside the bot: the bot passed
    its check and was refused at every launch. The check now counts as the copy does."""
    from arena.sandbox.workdir import copy_bot

    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    (source / cached).parent.mkdir(parents=True, exist_ok=True)
    os.link(source / "bot.py", source / cached)
    error = (rf"^{source.resolve() / 'bot.py'} is a hard link to a file the bot "
             rf"{source.resolve()} also names where a launch copies nothing \(2 names, 1 of "
             r"them in a cache directory or a .pyc file\): a launch would take it for a link "
             r"to a file outside the bot; copy the file \(cp\) instead of linking it$")
    with pytest.raises(ManifestError, match=error):
        resolve(source)
    (source / cached).unlink()
    spec = resolve(source)  # checked: the copy a launch makes agrees
    box = tmp_path / "box"
    box.mkdir()
    assert copy_bot(spec.path, box / "bot", None) == spec.files_version


def test_a_virtual_environment_in_a_bot_directory_is_named(tmp_path: Path, bots: Path) -> None:
    """`python3 -m venv .venv` in the bot's directory (the README's first step, taken there)
    was refused as '.venv/lib64 is a symbolic link (to lib)', which said nothing of what to do."""
    import venv

    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    venv.EnvBuilder(with_pip=False, symlinks=True).create(source / ".venv")
    error = (rf"^{source.resolve() / '.venv'} is a virtual environment inside the bot "
             rf"{source.resolve()}: move it out \(the bot's Python never uses it; packages a "
             r"bot needs go in its bot.yaml, requirements:\)$")
    with pytest.raises(ManifestError, match=error):
        resolve(source)
    with pytest.raises(ManifestError, match=error):
        submit(source, name="venvy", bots_dir=bots, check=passing)
    assert not (bots / "venvy").exists()


def test_npms_command_links_are_told_the_flag_that_leaves_them_out(tmp_path: Path) -> None:
    """`npm install` links each package's commands in node_modules/.bin; the refusal named
    the link and the rule, not the flag docs/BOTS.md gives."""
    source = tmp_path / "jsbot"
    (source / "node_modules" / ".bin").mkdir(parents=True)
    (source / "node_modules" / "semver").mkdir()
    (source / "node_modules" / "semver" / "semver.js").write_text("")
    (source / "node_modules" / ".bin" / "semver").symlink_to("../semver/semver.js")
    (source / "bot.js").write_text("")
    (source / "bot.yaml").write_text("name: jsbot\ncommand: [node, bot.js]\n")
    with pytest.raises(ManifestError, match=r"is a symbolic link \(to \.\./semver/semver\.js\): "
                       r"a bot directory may hold only regular files and directories; npm "
                       r"install --no-bin-links makes node_modules without them$"):
        resolve(source)


def test_module_metadata_survives_a_syntax_tree_too_deep_to_read(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.py"
    bomb.write_text("from arena.sdk import Bot\nclass B(Bot):\n    version = "
                    + "-" * 200_000 + "1\n")
    assert module_metadata(bomb) == {}


def _manifest_bot(tmp_path: Path, manifest: str) -> Path:
    source = tmp_path / "yamlbot"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    (source / "bot.yaml").write_text(manifest)
    return source


def test_a_manifest_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    """A few hundred bytes of YAML aliases expand to a billion items once read."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    source = _manifest_bot(tmp_path, "\n".join(lines) + "\nname: x\ncommand: [python3, bot.py]"
                           "\nauthor: *a8\n")
    with pytest.raises(ManifestError, match=r"invalid YAML: aliases \(\*name\) are not "
                                            "allowed"):
        resolve(source)


@pytest.mark.parametrize(("manifest", "error"), [
    ("name: x\ncommand: [python3, bot.py]\nauthor: " + "[" * 20_000 + "]" * 20_000 + "\n",
     "nested too deeply to read"),
    ("name: x\ncommand: [python3, bot.py]\n#" + "x" * 70_000 + "\n", "is larger than 64 KiB"),
])
def test_a_manifest_too_deep_or_too_big_is_one_clear_error(tmp_path: Path, manifest: str,
                                                           error: str) -> None:
    source = _manifest_bot(tmp_path, manifest)
    with pytest.raises(ManifestError, match=error):
        resolve(source)
    assert list_bots(tmp_path) == [] or all(b.name != "x" for b in list_bots(tmp_path))


def test_manifest_metadata_keeps_scalars_only_and_cuts_long_text(tmp_path: Path) -> None:
    source = _manifest_bot(tmp_path, "name: x\ncommand: [python3, bot.py]\n"
                           "author: [a, b]\nversion: " + "v" * 500 + "\n")
    spec = resolve(source)
    assert "author" not in spec.metadata and spec.metadata["version"] == "v" * 200


def test_special_files_in_cache_directories_are_refused_too(tmp_path: Path) -> None:
    """Caches are not part of the version, but the check still walks them: a FIFO or a
    link hidden in .pytest_cache would otherwise reach the sandbox's copy."""
    import os

    source = tmp_path / "src"
    (source / ".pytest_cache").mkdir(parents=True)
    (source / "bot.py").write_text(MODULE)
    os.mkfifo(source / ".pytest_cache" / "pipe")
    with pytest.raises(ManifestError, match="pipe is not a regular file"):
        resolve(source)


@pytest.mark.parametrize("where", ["", "lib/"])
def test_a_file_name_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path,
                                                             where: str) -> None:
    """A name of bytes that are not UTF-8 (made by a tar of another system) ended check-bot
    and submit with a UnicodeEncodeError traceback from the version's hashing."""
    source = tmp_path / "src"
    (source / "lib").mkdir(parents=True)
    (source / "bot.py").write_text(MODULE)
    Path(os.fsdecode(os.fsencode(source) + f"/{where}".encode() + b"\xff\xfe.txt")).write_text("x")
    with pytest.raises(ManifestError) as info:
        resolve(source)
    assert str(info.value) == (f"{source}/{where}\\xff\\xfe.txt: the name is not valid UTF-8: "
                               "a bot's files and directories need names in UTF-8 (rename it)")


def test_a_bot_may_hold_at_most_so_many_files(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Each launch copies a bot's files one by one: 100,000 empty files made a 2-game match
    take 24 s (the limit is lowered here to keep the test small)."""
    from arena.registry import manifest

    monkeypatch.setattr(manifest, "MAX_BOT_FILES", 5)
    source = tmp_path / "src"
    (source / "__pycache__").mkdir(parents=True)
    (source / "bot.py").write_text(MODULE)
    for i in range(4):
        (source / f"data{i}.txt").write_text("x")
        (source / "__pycache__" / f"c{i}.pyc").write_text("x")  # caches are not counted
    assert resolve(source).files  # five files
    (source / "data4.txt").write_text("x")
    with pytest.raises(ManifestError) as info:
        resolve(source)
    assert str(info.value) == (f"{source} holds more than 5 files; a bot may hold at most 5 "
                               "(its packages belong in its environment: requirements:)")


def test_a_bot_may_hold_at_most_256_mib(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "bot.py").write_text(MODULE)
    with (source / "weights.bin").open("wb") as sparse:  # sparse: no real disk used
        sparse.truncate(300 * 2**20)
    (source / "notes.txt").write_text("x" * 2**20)
    with pytest.raises(ManifestError) as info:
        resolve(source)
    # the largest file is named: what the author has to move out (or shrink) first
    assert str(info.value) == (f"{source} holds 301 MiB of files; a bot may hold at most "
                               "256 MiB (the largest: weights.bin, 300 MiB)")


def test_the_registry_imports_nothing_of_the_referee() -> None:
    """The compliance check is the caller's (``submit(check=...)``): the registry sits below
    the referee."""
    import ast

    imported = []
    for path in sorted((ROOT / "arena" / "registry").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.append(node.module)
    assert imported and not [name for name in imported if name.startswith("arena.referee")]


def test_submit_asks_for_the_check_once_the_name_is_known_to_be_free(tmp_path: Path) -> None:
    """A clash is refused before the check runs; a failing check copies nothing."""
    bots = tmp_path / "bots"
    source = tmp_path / "alpha.py"
    source.write_text(MODULE)
    checks: list[Any] = []

    def failing(spec: Any) -> Any:
        checks.append(spec.name)
        return SimpleNamespace(ok=False, failures=lambda: ["handshake: no ready"])

    with pytest.raises(SubmitError, match="failed the compliance check: handshake: no ready"):
        submit(source, name="alpha", bots_dir=bots, check=failing)
    assert checks == ["alpha"] and not (bots / "alpha.py").exists()
    submit(source, name="alpha", bots_dir=bots,
           check=lambda spec: SimpleNamespace(ok=True, failures=list))
    source.write_text(MODULE + "\n# changed\n")
    with pytest.raises(SubmitError, match="already registered"):
        submit(source, name="alpha", bots_dir=bots, check=failing)
    assert checks == ["alpha"]


_SUBMIT_HELD = """
import os, signal, sys
from pathlib import Path
from collections.abc import Callable
from types import SimpleNamespace
from arena.registry import staging, submission

# the copy is made; then the submit is killed (SIGKILL: no clean-up runs), or it waits
copy = staging.copy_module

def held(source, target, **where):
    copy(source, target, **where)
    print("copied", flush=True)
    if sys.argv[1] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.stdin.read()

staging.copy_module = held
submission.submit(Path(sys.argv[2]), name=sys.argv[3], bots_dir=Path(sys.argv[4]),
                  check=lambda spec: SimpleNamespace(ok=True, failures=list))
"""


def _held_submit(how: str, source: Path, name: str, bots: Path) -> subprocess.Popen[str]:
    held = subprocess.Popen([sys.executable, "-c", _SUBMIT_HELD, how, str(source), name,
                             str(bots)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert held.stdout is not None and held.stdout.readline() == "copied\n"
    return held


def test_a_killed_submits_copy_is_removed_by_the_next_one_and_a_running_ones_kept(
        tmp_path: Path, bots: Path) -> None:
    """A submit killed with SIGKILL (or the machine's end) left its half-made copy in the
    bots directory as .incoming-XXXX for good; the next submit removes it, but never the
    copy of a submit that still runs."""
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    killed = _held_submit("kill", source, "killed", bots)
    assert killed.wait(60) == -9
    left = [p.name for p in bots.iterdir() if p.name.startswith(".incoming-")]
    assert len(left) == 1 and (bots / left[0] / "killed.py").is_file()
    running = _held_submit("wait", source, "running", bots)
    try:
        staged = [p.name for p in bots.iterdir() if p.name.startswith(".incoming-")
                  and p.name not in left]
        assert len(staged) == 1
        submit(source, name="mine", bots_dir=bots, check=passing)
        assert [p.name for p in bots.iterdir() if p.name.startswith(".incoming-")] == staged
    finally:
        assert running.stdin is not None
        running.stdin.close()
        assert running.wait(60) == 0
    assert [p.name for p in bots.iterdir() if p.name.startswith(".")] == []
    assert {"mine", "running"} <= set(submitted(bots))


def test_what_a_dead_submit_left_is_removed_though_its_pid_was_reused(
        tmp_path: Path, bots: Path) -> None:
    """A busy machine soon gives a killed submit's pid to another process: its copy and its
    registry file in the writing, made before that process started, stayed in the bots
    directory as long as it ran."""
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    reuser = subprocess.Popen(["sleep", "3600"])  # the dead submit's number, taken later
    try:
        copy, registry = (bots / f".incoming-{reuser.pid}-abcd",
                          bots / f".registry-{reuser.pid}-abcd.yaml")
        (copy / "half").mkdir(parents=True)
        registry.write_text("bots: {}\n", encoding="utf-8")
        an_hour_ago = time.time() - 3600  # when the dead submit made them
        for left in (copy, registry):
            os.utime(left, (an_hour_ago, an_hour_ago))
        submit(source, name="mine", bots_dir=bots, check=passing)
        assert [p.name for p in bots.iterdir() if p.name.startswith(".")] == []
        assert "mine" in submitted(bots)
    finally:
        reuser.kill()
        reuser.wait()


def test_a_leftover_named_with_a_number_no_process_can_have_is_removed_not_a_traceback(
        tmp_path: Path, bots: Path) -> None:
    """A copy named .incoming-<digits>-... whose digits are past any process id made every
    submit fail with a traceback (OverflowError) as it looked for that process."""
    source = tmp_path / "mine.py"
    source.write_text(MODULE)
    (bots / ".incoming-99999999999999999999-abcd").mkdir()
    submit(source, name="mine", bots_dir=bots, check=passing)
    assert [p.name for p in bots.iterdir() if p.name.startswith(".")] == []
    assert "mine" in submitted(bots)


def test_a_directory_swapped_in_for_a_dead_submits_copy_as_it_is_locked_is_left_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next submit removed a dead submit's copy by its name once it had its lock:
    whoever may write the bots directory could swap another directory in at that moment,
    and have it emptied."""
    from arena.registry import staging

    bots = tmp_path / "bots"
    left = bots / ".incoming-99999999999999999999-abcd"
    left.mkdir(parents=True)
    (left / "half.py").write_text("", encoding="utf-8")
    planted = tmp_path / "planted"
    real_flock = fcntl.flock

    def swap_then_lock(fd: int, operation: int) -> None:
        if not planted.exists():  # the swap comes between the opening and the lock
            left.rename(planted)
            left.mkdir()
            (left / "precious.txt").write_text("kept", encoding="utf-8")
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", swap_then_lock)
    staging._remove_abandoned(bots)
    assert planted.exists()
    assert (left / "precious.txt").read_text(encoding="utf-8") == "kept"


_REGISTRY_HELD = """
import os, signal, sys
from pathlib import Path
from collections.abc import Callable
from types import SimpleNamespace
from arena.registry import staging, submission

# the registry's new text has its file; then the submit is killed (SIGKILL)
mkstemp = staging.tempfile.mkstemp

def held(*args, **kwargs):
    made = mkstemp(*args, **kwargs)
    print("writing", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    return made

staging.tempfile.mkstemp = held
submission.submit(Path(sys.argv[1]), name=sys.argv[2], bots_dir=Path(sys.argv[3]),
                  check=lambda spec: SimpleNamespace(ok=True, failures=list))
"""


def _registry_files(bots: Path) -> list[str]:
    return sorted(p.name for p in bots.iterdir() if p.name.startswith(".registry-"))


def test_a_registry_file_left_by_a_killed_submit_is_removed_by_the_next_write(
        tmp_path: Path, bots: Path) -> None:
    """A submit killed inside the registry's write left its .registry-XXXX.yaml in the bots
    directory for good; the next write removes it, but never one whose writer still runs or
    holds its lock, nor one that names no process."""
    source = tmp_path / "mine.py"
    source.write_text(MODULE)

    killed = subprocess.Popen([sys.executable, "-c", _REGISTRY_HELD, str(source), "killed",
                               str(bots)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert killed.stdout is not None and killed.stdout.readline() == "writing\n"
    assert killed.wait(60) == -9 and len(_registry_files(bots)) == 1
    gone = subprocess.Popen([sys.executable, "-c", ""])
    assert gone.wait(60) == 0
    # a writer whose process id means nothing here (another machine's): its lock tells
    locked = bots / f".registry-{gone.pid}-held.yaml"
    locked.write_text("", encoding="utf-8")
    (bots / ".registry-older.yaml").write_text("", encoding="utf-8")  # names no process
    # a writer whose process runs (submits take turns, but one of another arena may not)
    running = bots / f".registry-{os.getpid()}-running.yaml"
    running.write_text("", encoding="utf-8")
    kept = sorted([running.name, locked.name, ".registry-older.yaml"])
    with locked.open() as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        submit(source, name="mine", bots_dir=bots, check=passing)
        assert _registry_files(bots) == kept
    running.unlink()
    submit(source, name="other", bots_dir=bots, check=passing)  # the lock is free now
    assert _registry_files(bots) == [".registry-older.yaml"]


def test_a_submits_copy_swapped_for_a_link_is_removed_as_a_link_its_target_untouched(
        tmp_path: Path) -> None:
    # whoever may write the bots directory could swap a copy for a link while it is removed:
    # a removal by path walked the link's target, opening up (chmod) its directories
    from arena.registry import copying

    target = tmp_path / "elsewhere"
    (target / "locked").mkdir(parents=True)
    (target / "locked" / "keep.txt").write_text("kept", encoding="utf-8")
    (target / "locked").chmod(0o500)
    bots = tmp_path / "bots"
    bots.mkdir()
    swapped = bots / ".incoming-1-abcd"
    swapped.symlink_to(target)
    copying.remove_copy(swapped)
    assert not swapped.exists() and not swapped.is_symlink()
    assert stat.S_IMODE((target / "locked").stat().st_mode) == 0o500
    assert (target / "locked" / "keep.txt").read_text(encoding="utf-8") == "kept"
    # a copy of its own is removed whole: read-only directories, files, links within
    copy = bots / ".incoming-2-abcd"
    (copy / "pkg" / "sub").mkdir(parents=True)
    (copy / "pkg" / "sub" / "a.py").write_text("", encoding="utf-8")
    (copy / "pkg" / "to_target").symlink_to(target)
    (copy / "pkg" / "sub").chmod(0o500)
    (copy / "pkg").chmod(0o500)
    copying.remove_copy(copy)
    assert list(bots.iterdir()) == []
    assert (target / "locked" / "keep.txt").exists()


def test_a_copy_swapped_for_a_link_while_it_is_removed_leaves_the_target_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.registry import copying

    target = tmp_path / "elsewhere"
    (target / "locked").mkdir(parents=True)
    (target / "locked" / "keep.txt").write_text("kept", encoding="utf-8")
    (target / "locked").chmod(0o500)
    bots = tmp_path / "bots"
    copy = bots / ".incoming-1-abcd"
    (copy / "sub").mkdir(parents=True)
    (copy / "sub" / "a.py").write_text("", encoding="utf-8")
    real_fchmod = os.fchmod
    swapped: list[Path] = []

    def swap_then_fchmod(fd: int, mode: int) -> None:
        if not swapped:  # the swap comes once the copy's removal has begun
            swapped.append(copy.rename(tmp_path / "moved"))
            copy.symlink_to(target)
        real_fchmod(fd, mode)

    monkeypatch.setattr(copying.os, "fchmod", swap_then_fchmod)
    copying.remove_copy(copy)
    assert swapped
    assert stat.S_IMODE((target / "locked").stat().st_mode) == 0o500
    assert (target / "locked" / "keep.txt").read_text(encoding="utf-8") == "kept"
    assert list((tmp_path / "moved").iterdir()) == []  # the copy it opened was emptied


@pytest.mark.parametrize("kind", ["module", "directory"])
def test_a_bot_updated_mid_tournament_is_said_to_be_kept_and_how_to_go_on(
        tmp_path: Path, bots: Path, kind: str) -> None:
    """A bot after 'arena submit --update' stopped with 'put them back to go on', though
    the registry had kept them: it names the kept copy and the two ways on; and, where that
    copy no longer matches the version, says so rather than offer it."""
    from arena.registry import files_changed

    def source(text: str) -> Path:
        where = tmp_path / f"src{len(list(tmp_path.iterdir()))}"
        where.mkdir()
        if kind == "module":
            (where / "upd.py").write_text(MODULE + text)
            return where / "upd.py"
        (where / "bot.py").write_text(MODULE + text)
        (where / "bot.yaml").write_text("name: upd\nmodule: bot.py\n")
        return where

    first = submit(source(""), name="upd", bots_dir=bots, check=passing)
    submit(source("# v2\n"), name="upd", bots_dir=bots, check=passing, update=True)
    assert files_unchanged(first) is False
    # a tournament plays on from the kept copy: what stops here is a match, which plays none
    assert files_changed(first, ", so it was not restarted") == (
        f"bot upd@{first.version}: its files at {first.path} changed since it entered, so it "
        f"was not restarted: arena submit --update replaced them, keeping this version as "
        f"upd@{first.version}: name upd@{first.version} to play it again, upd to play the "
        "new one")
    assert resolve(f"upd@{first.version}", bots).version == first.version
    # a kept copy edited since no longer matches its version, and is said to
    copy = bots / ".versions" / f"upd@{first.version}"
    with (copy / ("upd.py" if kind == "module" else "bot.py")).open("a") as edited:
        edited.write("# edited\n")
    assert files_changed(first, ", so it was not seated") == (
        f"bot upd@{first.version}: its files at {first.path} changed since it entered, so it "
        "was not seated: arena submit --update replaced them, and the copy it kept of this "
        f"version at {copy} no longer matches it (changed since); put that copy back as it "
        "was to go on with this version, or go on with the new one ('arena run SPEC "
        "--continue' in a tournament, docs/TOURNAMENTS.md)")


def test_a_did_you_mean_quotes_a_hand_edited_name_as_it_is_pasted(bots: Path) -> None:
    """registry.yaml edited by hand may name a bot with a control character: the hint quoted
    it escaped (``'gam\\x1bma'``), which pasted back names no bot."""
    from arena.registry.staging import write_registry

    write_registry(bots, {"gam\x1bma": {"path": "alpha.py"}, "go\u200bne": {"path": "gone.py"}})
    with pytest.raises(BotNotFoundError) as info:
        resolve("gamma", bots)
    assert "(did you mean $'gam\\x1bma'?)" in str(info.value), info.value
    with pytest.raises(BotNotFoundError) as info:
        resolve("go\u200bne", bots)
    assert "or arena bots remove $'go\\u200bne' drops its entry" in str(info.value), info.value


def test_an_update_from_a_module_to_a_directory_leaves_no_old_file(tmp_path: Path,
                                                                   bots: Path) -> None:
    """Left beside the new directory, alpha.py would be found again as a bot 'alpha' of the
    author's own once the registered one is removed."""
    old = resolve("alpha", bots)
    source = tmp_path / "alpha"
    source.mkdir()
    (source / "bot.py").write_text(MODULE.replace('"mine"', '"alpha"') + "\n# a package now\n")
    new = submit(source, bots_dir=bots, check=passing, update=True)
    assert new.path == (bots / "alpha").resolve() and not (bots / "alpha.py").exists()
    assert resolve(f"alpha@{old.version}", bots).version == old.version  # kept, as ever
    assert submitted(bots)["alpha"]["path"] == "alpha"


def test_a_directory_version_covers_where_each_file_lies_and_its_name(bots: Path) -> None:
    """The same bytes under another name or in another directory are other files to the
    bot (``open('data/a.json')`` fails once it moved): another version."""
    beta = bots / "beta"
    (beta / "data").mkdir()
    (beta / "data" / "a.json").write_text("{}")
    versions = [resolve(beta).version]
    (beta / "other").mkdir()
    (beta / "data" / "a.json").rename(beta / "other" / "a.json")
    versions.append(resolve(beta).version)
    (beta / "other" / "a.json").rename(beta / "other" / "b.json")
    versions.append(resolve(beta).version)
    assert len(set(versions)) == 3, versions


def test_removing_a_bot_keeps_the_versions_of_one_whose_name_it_begins(tmp_path: Path,
                                                                       bots: Path) -> None:
    from arena.registry import unregister

    kept: dict[str, str] = {}
    for name in ("foo", "foobar"):
        source = tmp_path / f"{name}.py"
        for edit in ("", "# v2\n"):
            source.write_text(MODULE.replace('"mine"', f'"{name}"') + edit)
            kept.setdefault(name, submit(source, bots_dir=bots, check=passing,
                                         update=True).version)
    assert set(kept_versions("foo", bots)) == {kept["foo"]}
    assert unregister("foo", bots).kept == 1
    assert set(kept_versions("foobar", bots)) == {kept["foobar"]}
    assert resolve(f"foobar@{kept['foobar']}", bots).version == kept["foobar"]


def test_a_kept_version_whose_files_were_changed_is_refused(tmp_path: Path, bots: Path) -> None:
    old = resolve("alpha", bots).version
    source = tmp_path / "alpha.py"
    source.write_text(MODULE.replace('"mine"', '"alpha"') + "\n# better\n")
    submit(source, bots_dir=bots, check=passing, update=True)
    copy = bots / ".versions" / f"alpha@{old}" / "alpha.py"
    copy.write_text(copy.read_text() + "# changed by hand\n")
    changed = resolve(copy).version
    with pytest.raises(ManifestError) as info:
        resolve(f"alpha@{old}", bots)
    assert str(info.value) == (f"the kept copy of alpha@{old} was changed (its files hash "
                               f"to {changed})")


def test_an_entry_with_options_plays_on_from_the_kept_copy_of_its_files(tmp_path: Path,
                                                                        bots: Path) -> None:
    """The kept copy is named by the files' version, which an entry's options do not change:
    an entry given options plays on from it as a bare one does."""
    from arena.registry import kept_copy

    entered = resolve("alpha", bots).with_options({"depth": 3})
    source = tmp_path / "alpha.py"
    source.write_text(MODULE.replace('"mine"', '"alpha"') + "\n# better\n")
    submit(source, bots_dir=bots, check=passing, update=True)
    kept = kept_copy(entered)
    assert kept is not None
    assert (kept.version, kept.options) == (entered.version, {"depth": 3})
    assert kept.path == bots / ".versions" / f"alpha@{entered.files_version}" / "alpha.py"
