"""``arena check-bot | submit | match | bots | bench protocol``: outputs, exact errors, exit codes.

These run real sandboxed bots (the sample bots and the hostile fixtures) with small limits.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import bot_commands
from arena.cli.main import app
from arena.rating.sprt import Score, describe_elo
from arena.registry import resolve
from arena.sandbox import SandboxReport, probe

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
FIXTURES = ROOT / "tests" / "fixtures" / "bots"

runner = CliRunner()
probe_module = importlib.import_module("arena.sandbox.probe")  # the package's name is the function
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")


def _run(*args: str, bots_dir: Path = BOTS):
    return runner.invoke(app, list(args), env={"ARENA_BOTS_DIR": str(bots_dir)})


@pytest.mark.parametrize("command", [["check-bot"], ["submit"], ["match"], ["bots"],
                                     ["bench", "protocol"]])
def test_help_carries_an_example(command: list[str]) -> None:
    result = _run(*command, "--help")
    assert result.exit_code == 0
    assert "Example: arena " + " ".join(command) in result.stdout


@needs_sandbox
def test_check_bot_passes_a_good_bot() -> None:
    result = _run("check-bot", str(BOTS / "random.py"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    version = resolve(BOTS / "random.py").version
    assert lines[0] == (f"Checking random (version {version}) in the sandbox "
                        f"({probe().level})")
    # the time it took, for an author to see how near a slow start comes to the limit
    assert re.fullmatch(r"✓ handshake: answered 'hello' with 'ready' in \d+ ms \(limit 10000 "
                        r"ms\)", lines[1])
    assert lines[2] == "✓ metadata: name 'random'; author Palaestra Arena, version 1"
    assert re.fullmatch(r"✓ decisions: \d+ decisions in 4 games \(2, 3, 4 and 5 players\), all "
                        r"legal and in time \(median [\d.]+ ms, max [\d.]+ ms; limit 1000 ms\)",
                        lines[3])
    assert lines[4:] == ["✓ game boundaries: one process served all 4 games",
                         "✓ clean exit: exited with code 0 after 'bye'",
                         "PASS: random is ready to submit."]


@needs_sandbox
@pytest.mark.parametrize("module", ["json", "types", "copy"])
def test_a_bot_file_named_like_a_standard_module_runs(tmp_path: Path, module: str) -> None:
    """The runner leaves the bot's directory off the front of the path: a bot file named
    like a module Python imports while it starts (the runner's, runpy's) used to hide it."""
    bot = tmp_path / f"{module}.py"
    shutil.copy(BOTS / "random.py", bot)
    os.chmod(tmp_path, 0o755)
    result = _run("check-bot", str(bot), "--games", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "PASS: random is ready to submit."


@needs_sandbox
def test_check_bot_lists_what_failed() -> None:
    # The bot answers at once: a generous limit only keeps a loaded machine from adding a
    # timeout to the count.
    result = _run("check-bot", str(FIXTURES / "garbage"), "--games", "2", "--decision-ms",
                  "2000")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[3] == ("✗ decisions: 8 failures in 2 games: protocol_error 8 (e.g. not JSON: "
                        "'%%% this is not json %%%' (stdout carries protocol lines only: print "
                        "logs to stderr)); it forfeited both games (more than 3 strikes in "
                        "each); the bot was restarted once after them")
    assert lines[4:] == ["✓ clean exit: exited with code 0 after 'bye'",
                         "FAIL: 1 of 4 checks failed."]


@needs_sandbox
def test_a_program_that_cannot_run_is_told_why(tmp_path: Path) -> None:
    """The system says "not found" of a script that is there: its files tell the cause."""
    bot = tmp_path / "crlf"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: crlf\ncommand: [./bot.sh]\n")
    (bot / "bot.sh").write_bytes(b"#!/bin/sh\r\nexec python3 -c 'print(1)'\r\n")
    (bot / "bot.sh").chmod(0o755)
    result = _run("check-bot", str(bot))
    assert result.exit_code == 1
    line = result.stdout.splitlines()[1]
    assert line.startswith("✗ handshake: ") and line.endswith(
        "(the #! line of ./bot.sh ends in a Windows line ending (\\r): save it with Unix line "
        "endings)"), line


@needs_sandbox
def test_a_script_not_executable_is_told_to_be_made_so(tmp_path: Path) -> None:
    # "exec: /bot/bot.sh: cannot execute: Permission denied" (exit code 126) was all it said
    bot = tmp_path / "noexec"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: noexec\ncommand: [./bot.sh]\n")
    (bot / "bot.sh").write_bytes(b"#!/bin/sh\nexec python3 -c 'print(1)'\n")
    result = _run("check-bot", str(bot))
    assert result.exit_code == 1
    line = result.stdout.splitlines()[1]
    assert line.startswith("✗ handshake: exited before answering 'hello' (exit code 126)")
    assert line.endswith("Permission denied (./bot.sh is not executable: chmod +x ./bot.sh)")


def test_check_bot_json() -> None:
    result = _run("check-bot", str(FIXTURES / "sigterm"), "--games", "1", "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["bot"] == "sigterm"
    assert data["items"][-1] == {"title": "clean exit", "ok": False,
                                 "warning": False,
                                 "detail": "still running 1000 ms after 'bye'; killed",
                                 "notes": []}


@needs_sandbox
def test_check_bot_with_options() -> None:
    """A bot author checks that the bot reads its options, and that a bad one is refused."""
    good = _run("check-bot", "ismcts", "-o", "iterations=4", "--games", "1")
    assert good.exit_code == 0, good.output
    version = resolve("ismcts").with_options({"iterations": 4}).version
    assert good.stdout.splitlines()[0].startswith(f"Checking ismcts (version {version})")
    bad = _run("check-bot", "ismcts", "-o", "iterations=-4", "--games", "1")
    assert bad.exit_code == 1
    assert bad.stdout.splitlines()[1].startswith(
        "✗ handshake: exited before answering 'hello' (exit code 1); ValueError: ismcts: "
        "option iterations must be a whole number of at least 0, got -4 (at ismcts.py line ")
    usage = _run("check-bot", "ismcts", "-o", "iterations")
    assert usage.exit_code == 2 and "expected KEY=VALUE, got 'iterations'" in usage.stderr


@pytest.fixture
def two_bots(tmp_path: Path) -> Path:
    bots = tmp_path / "two"
    bots.mkdir()
    for name in ("random", "greedy"):
        shutil.copy(BOTS / f"{name}.py", bots)
    return bots


def test_check_bot_unknown(two_bots: Path) -> None:
    result = _run("check-bot", "nobody", bots_dir=two_bots)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "Error: unknown bot 'nobody' (registered: greedy, random)\n"


def test_a_mistyped_bot_path_names_the_bot_beside_it(tmp_path: Path) -> None:
    """A newcomer's typo (my_bto.py) was 'no bot at my_bto.py', with my_bot.py right there;
    a module beside it of another name is no suggestion (".py" alone makes names alike)."""
    (tmp_path / "my_bot.py").write_text("")
    (tmp_path / "inproc.py").write_text("")
    (tmp_path / "mybot").mkdir()
    typed = f"{tmp_path}/my_bto.py"
    hint = f" (did you mean '{tmp_path}/my_bot.py'?)"
    for args, said in ((["check-bot", typed], f"no bot at {typed}{hint}"),
                       (["match", typed, "greedy"], f"no bot at {typed}{hint}"),
                       (["play", typed], f"no bot at {typed}{hint}"),
                       (["submit", typed], f"nothing to submit at {typed}{hint}"),
                       (["check-bot", f"{tmp_path}/mybto/"],
                        f"no bot at {tmp_path}/mybto/ (did you mean '{tmp_path}/mybot'?)"),
                       (["check-bot", f"{tmp_path}/nosuch.py"], f"no bot at {tmp_path}/nosuch.py")):
        result = _run(*args, bots_dir=tmp_path / "bots")
        assert (result.exit_code, result.stderr) == (1, f"Error: {said}\n"), args



def test_a_sample_bot_path_that_is_not_here_names_where_the_sample_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With $ARENA_BOTS_DIR set, the samples are named by path, as docs/BOTS.md says: an
    author outside the arena's checkout who typed bots/greedy.py was told 'no bot at
    bots/greedy.py' and not where the sample is."""
    monkeypatch.chdir(tmp_path)
    for typed, sample in (("bots/greedy.py", "greedy.py"), ("bots/learned", "learned"),
                          ("bots/learned/", "learned")):
        result = _run("match", typed, "random", bots_dir=tmp_path / "mine")
        assert (result.exit_code, result.stderr) == (
            1, f"Error: no bot at {typed} (the sample bot is {BOTS / sample})\n"), typed
    result = _run("check-bot", "bots/nosuch.py", bots_dir=tmp_path / "mine")
    assert result.stderr == "Error: no bot at bots/nosuch.py\n"


@needs_sandbox
def test_a_path_starting_with_a_tilde_is_the_home_directory_in_a_spec(tmp_path: Path) -> None:
    """No shell reads a spec: '~/my_bot.py' there was 'no bot at ~/my_bot.py', and
    'results: ~/r/cup.db' made a directory named '~' in the working directory. On the command
    line, where the shell expands it unless quoted, a quoted one is told how it reads."""
    (tmp_path / "my_bot.py").write_text("from arena.sdk import Bot\n\n\nclass Mine(Bot):\n"
                                        "    def act(self, request) -> int:\n        return 0\n")
    (tmp_path / "book.txt").write_text("7364021938475610293\n")
    spec = tmp_path / "cup.yaml"
    spec.write_text("name: cup\nformat: round_robin\nbots: [greedy, ~/my_bot.py]\n"
                    "results: ~/r/cup.db\ndeals: ~/book.txt\n")
    env = {"ARENA_BOTS_DIR": str(BOTS), "HOME": str(tmp_path)}
    result = runner.invoke(app, ["run", str(spec), "--check", "--no-trial"], env=env)
    assert result.exit_code == 0, result.output
    assert f"Results: {tmp_path}/r/cup.db, not created yet" in result.stdout.splitlines()
    quoted = runner.invoke(app, ["check-bot", "~/my_bot.py"], env=env)
    assert (quoted.exit_code, quoted.stderr) == (1, (
        "Error: no bot at ~/my_bot.py (~ is a shell's shorthand, not expanded here: write "
        f"{tmp_path}/my_bot.py)\n"))


@needs_sandbox
def test_submit_registers_then_refuses_the_same_name(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    source = tmp_path / "mine.py"
    shutil.copy(BOTS / "collector.py", source)
    result = _run("submit", str(source), "--name", "mine", bots_dir=bots)
    assert result.exit_code == 0, result.output
    version = resolve(bots / "mine.py").version
    assert result.stdout.splitlines()[-1] == f"Registered mine version {version} at " \
                                             f"{bots / 'mine.py'}"
    # the check names the version the registered copy has (the file name counts in it)
    assert result.stdout.splitlines()[0].startswith(f"Checking mine (version {version})")
    assert "✓ clean exit" in result.stdout
    listing = _run("bots", bots_dir=bots)
    assert listing.exit_code == 0
    assert re.search(rf"^mine\s+{version}\s+module\s+Palaestra Arena\s+1\s+mine.py$",
                     listing.stdout, re.M)
    again = _run("submit", str(source), "--name", "mine", bots_dir=bots)
    assert again.exit_code == 0, again.output  # scripts may submit the same bot repeatedly
    assert again.stdout == (f"Already registered: mine version {version} at "
                            f"{bots / 'mine.py'} has the same files; nothing to do\n")
    source.write_text(source.read_text() + "\n# improved\n")
    changed = _run("submit", str(source), "--name", "mine", bots_dir=bots)
    assert changed.exit_code == 1 and changed.stdout == ""  # refused before any check
    assert changed.stderr == (f"Error: a bot named 'mine' is already registered (version "
                              f"{version}); --update replaces it with this version (its "
                              "results stay with the old one), or choose another name with "
                              "--name\n")
    # another case of the name, often another author's bot (a class's 'Bea' beside 'bea'):
    # the refusal says the names differ in case, offers another name first, and names the
    # command that replaces the registered bot only for its own author
    cased = _run("submit", str(source), "--name", "Mine", bots_dir=bots)
    assert cased.stderr == (f"Error: the name 'Mine' is taken, but for case, by 'mine' "
                            f"(registered, version {version}): choose another name with --name "
                            "NAME, or, if 'mine' is this bot, --update --name mine replaces it "
                            "with this version (its results stay with the old one)\n")
    updated = _run("submit", str(source), "--name", "mine", "--update", bots_dir=bots)
    assert updated.exit_code == 0, updated.output
    new = resolve(bots / "mine.py").version
    assert new != version and (bots / "mine.py").read_text() == source.read_text()
    assert updated.stdout.splitlines()[-1] == f"Registered mine version {new} at " \
                                              f"{bots / 'mine.py'}"
    assert re.search(rf"^mine\s+{new}\s", _run("bots", bots_dir=bots).stdout, re.M)


@needs_sandbox
def test_submit_warns_of_files_registered_already_under_another_name(tmp_path: Path) -> None:
    """Two students handing in one file: registered both, but the second is told, so the
    teacher sees the copy before the games, not in the standings."""
    bots = tmp_path / "bots"
    for student in ("kim", "lou"):
        shutil.copy(BOTS / "collector.py", tmp_path / f"{student}.py")
    first = _run("submit", str(tmp_path / "kim.py"), "--name", "kim", bots_dir=bots)
    assert (first.exit_code, first.stderr) == (0, "")
    second = _run("submit", str(tmp_path / "lou.py"), "--name", "lou", bots_dir=bots)
    assert second.exit_code == 0, second.output
    assert second.stderr == ("warning: lou's files are the same, byte for byte, as kim's, a "
                             "registered bot: one program under two names (a copy handed in "
                             "twice?)\n")
    assert second.stdout.splitlines()[-1].startswith("Registered lou version ")
    # a changed copy is its own program
    (tmp_path / "max.py").write_text((BOTS / "collector.py").read_text() + "# mine\n")
    third = _run("submit", str(tmp_path / "max.py"), "--name", "max", bots_dir=bots)
    assert (third.exit_code, third.stderr) == (0, "")


@needs_sandbox
def test_check_bot_fails_a_name_submit_would_refuse(tmp_path: Path) -> None:
    source = tmp_path / "odd.py"
    source.write_text((BOTS / "random.py").read_text().replace('name = "random"',
                                                              'name = "my bot: v1"'))
    assert 'name = "my bot: v1"' in source.read_text()
    result = _run("check-bot", str(source), bots_dir=tmp_path)
    assert result.exit_code == 1
    assert ("✗ registry name: bot name 'my bot: v1' is not allowed: use 1-40 letters, digits, "
            "'_', '-' or '.', starting with a letter or digit (arena submit --name NAME picks "
            "one)") in result.stdout
    # submit, refusing the bot's own name, said only what a name may hold, not how to give one
    refused = _run("submit", str(source), bots_dir=tmp_path / "bots")
    assert (refused.exit_code, refused.stderr) == (1, (
        "Error: bot name 'my bot: v1' is not allowed: use 1-40 letters, digits, '_', '-' or "
        "'.', starting with a letter or digit (--name NAME registers it under another)\n"))
    named = _run("submit", str(source), "--name", "mine", bots_dir=tmp_path / "bots")
    assert named.exit_code == 0, named.output


@needs_sandbox
def test_submit_refuses_a_failing_bot(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    source = FIXTURES / "out_of_range.py"
    result = _run("submit", str(source), bots_dir=bots)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {source} failed the compliance check: decisions: ")
    assert "illegal_choice" in result.stderr
    assert "✗ decisions" in result.stdout
    assert not (bots / "out_of_range.py").exists()


@needs_sandbox
def test_match_prints_placements_and_diagnostics(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    result = _run("match", "random", str(BOTS / "collector.py"), "--games", "2", "--seed",
                  "1", "--records", str(records))
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0] == f"Match random vs collector: 2 games, sandbox {probe().level}"
    assert out[1] == "Seed 1"
    assert out[2].split() == ["game", "starts", "places", "(random,", "collector)", "desmos",
                              "tiebreak", "failures"]
    assert out[-1] == (f"Wrote 2 game records to {records} (arena game {records} -n 1 shows "
                          "game 0)")
    assert any(line.startswith("random ") for line in out)
    # nothing failed: the table leaves out the empty columns and says so, fitting 100 columns
    at = next(i for i, line in enumerate(out) if line.startswith("bot "))
    assert out[at].split() == ["bot", "version", "wins", "mean", "place", "decisions", "median",
                               "ms", "max", "ms"]
    assert out[at + 4] == "No timeouts, failures or restarts."
    assert max(len(line) for line in out[at:at + 5]) <= 100
    lines = records.read_text().splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["referee"]["seats"][0].startswith("random@")
    replay = _run("replay", str(records))
    assert replay.exit_code == 0, replay.output


@needs_sandbox
def test_match_counts_one_record_in_the_singular(tmp_path: Path) -> None:
    records = tmp_path / "one.jsonl"
    result = _run("match", "random", "greedy", "--games", "1", "--seed", "2", "--quiet",
                  "--records", str(records))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (f"Wrote 1 game record to {records} (arena game "
                                              f"{records} -n 1 shows game 0)")


def test_match_refuses_a_records_path_that_cannot_take_a_file(tmp_path: Path) -> None:
    """Refused before any bot starts (a folder used to fail with a traceback after game 0)."""
    for path, why in ((tmp_path, f"{tmp_path} is a directory; give a file name"),
                      (tmp_path / "no" / "g.jsonl", f"directory {tmp_path / 'no'} does not "
                                                    "exist")):
        result = _run("match", "random", "greedy", "--records", str(path))
        assert result.exit_code == 2
        assert why in " ".join(result.output.replace("│", " ").split())


@needs_sandbox
def test_match_stops_with_one_line_when_its_records_cannot_be_written() -> None:
    result = _run("match", "random", "greedy", "--games", "2", "--records", "/dev/full")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == ("Error: cannot write game records to /dev/full: "
                                              "No space left on device")


NO_NEWLINE = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "forgetful"}), flush=True)
    elif message["type"] == "act":  # the answer, but no newline after it
        sys.stdout.write(json.dumps({"type": "action", "id": message["id"], "choice": 0}))
        sys.stdout.flush()
"""


@needs_sandbox
def test_a_timeout_says_when_an_answer_came_without_its_newline(tmp_path: Path) -> None:
    bot = tmp_path / "forgetful"
    bot.mkdir(parents=True)
    (bot / "bot.yaml").write_text("name: forgetful\ncommand: [python3, bot.py]\n")
    (bot / "bot.py").write_text(NO_NEWLINE)
    os.chmod(tmp_path, 0o755)
    result = _run("match", str(bot), "random", "--games", "1", "--decision-ms", "200",
                  "--time-bank-ms", "0", "--json")
    assert result.exit_code == 0, result.output
    failures = json.loads(result.stdout)["games"][0]["failures"]
    assert failures and failures[0]["type"] == "timeout"
    assert failures[0]["detail"] == ("no answer within 200 ms; 40 bytes arrived without a "
                                     "newline (end each line with \\n and flush stdout)")


@needs_sandbox
@pytest.mark.parametrize("command", ["check-bot", "match"])
def test_startup_ms_gives_a_bot_its_start_up_time(tmp_path: Path, command: str) -> None:
    """Only a tournament spec could raise the start-up time: check-bot and match take it as
    --startup-ms (a bot that never answers shows the limit it was given)."""
    bot = tmp_path / "mute"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: mute\ncommand: [sleep, '600']\n")
    args = [str(bot), "random", "--games", "1"] if command == "match" else [str(bot)]
    result = _run(command, *args, "--startup-ms", "321", "--json")
    assert "no 'ready' within 321 ms" in result.stdout, result.output


@needs_sandbox
def test_match_json_reports_failures() -> None:
    result = _run("match", str(FIXTURES / "out_of_range.py"), "random", "--games", "1",
                  "--json", "--max-strikes", "1", "--decision-ms", "2000", "--seed", "7")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"][0]["forfeits"] == {"0": "illegal_choice"}
    assert [f["type"] for f in data["games"][0]["failures"]] == ["illegal_choice"] * 2
    assert data["bots"][0]["failures"] == {"illegal_choice": 2}
    assert data["standings"][1]["wins"] == 1
    assert data["sandbox_level"] == probe().level


@needs_sandbox
def test_match_says_why_a_bot_failed() -> None:
    result = _run("match", str(FIXTURES / "out_of_range.py"), "random", "--games", "1",
                  "--max-strikes", "1", "--decision-ms", "2000", "--seed", "7")
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    at = out.index("Failures:")
    assert re.fullmatch(r"  out_of_range illegal_choice(, \d+ times)? \(game 0\): choice "
                        r"(\d+) is outside the \2 legal options \(valid: 0-(\d+)\)"
                        r"( \(and \d+ other details?\))?",
                        out[at + 1]), out[at:]
    if "other detail" in out[at + 1]:  # the choices differ: where every one is listed
        at += 1
        assert out[at + 1] == "  (--failures lists every reason, with how often)"
    assert out[at + 2] == "" and out[at + 3].startswith(  # one failure line, then the score
        "out_of_range against random: 0 wins, 0 shared places, 1 loss; score 0.0%")
    assert len(out) == at + 4
    clean = _run("match", "random", "random", "--games", "1")
    assert clean.exit_code == 0 and "Failures:" not in clean.stdout


@needs_sandbox
def test_in_a_duplicate_match_the_failures_name_the_bot_that_failed_in_any_seat() -> None:
    result = _run("match", "random", str(FIXTURES / "out_of_range.py"), "--duplicate",
                  "rotations", "--games", "2", "--max-strikes", "1", "--decision-ms", "2000",
                  "--seed", "7", "--json")
    data = json.loads(result.stdout)
    assert [sorted(g["forfeits"].items()) for g in data["games"]] == [[("1", "illegal_choice")],
                                                                      [("0", "illegal_choice")]]
    text = _run("match", "random", str(FIXTURES / "out_of_range.py"), "--duplicate",
                "rotations", "--games", "2", "--max-strikes", "1", "--decision-ms", "2000",
                "--seed", "7")
    out = text.stdout.splitlines()
    at = out.index("Failures:")
    assert out[at + 1].startswith("  out_of_range illegal_choice, 4 times (games 0, 1): ")
    assert not any(line.startswith("  random ") for line in out[at:])


def _dated_bot(directory: Path, name: str, last_read_page: str) -> Path:
    path = directory / f"{name}.py"
    path.write_text("from arena.sdk import Bot\n\n\n"
                    f"class Dated(Bot):\n    name = {name!r}\n"
                    f"    last_read_page = {last_read_page!r}\n\n"
                    "    def act(self, request):\n        return 0\n")
    return path


@needs_sandbox
def test_match_event_date_fixes_the_day_its_games_are_played(tmp_path: Path) -> None:
    """The first game's starting seat depends on the day (a page read in the future counts
    as never read): --event-date replays a match on any day."""
    eve = _dated_bot(tmp_path, "eve", "2030-05-31")
    later = _dated_bot(tmp_path, "later", "2030-06-02")

    def first_starter(day: str) -> tuple[str, int]:
        result = _run("match", str(eve), str(later), "--seed", "3", "--json",
                      "--event-date", day)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        return data["event_date"], data["games"][0]["starting_seat"]

    assert first_starter("2030-06-01") == ("2030-06-01", 0)
    assert first_starter("2030-06-03") == ("2030-06-03", 1)
    bad = _run("match", str(eve), str(later), "--event-date", "tomorrow")
    assert bad.exit_code == 2
    assert "'--event-date': must be a date (YYYY-MM-DD), not" in bad.output


@needs_sandbox
def test_match_without_a_seed_draws_a_secret_one_and_says_it_after() -> None:
    """A bot that knew the match seed could compute every deal (the engine is public), so
    the default is not a fixed seed; the seed printed at the end replays the match."""
    def play(*flags: str) -> tuple[int, list]:
        result = _run("match", "random", "greedy", "--games", "2", "--json", *flags)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        return data["seed"], [(g["seed"], g["placements"]) for g in data["games"]]

    first, games = play()
    second, _ = play()
    assert first != second and first >= 1 << 20 and second >= 1 << 20
    assert play("--seed", str(first)) == (first, games)
    text = _run("match", "random", "random", "--games", "1")
    seed = int(re.search(r"^Seed (\d+) \(drawn for this match; --seed \1 --event-date "
                         r"\d{4}-\d\d-\d\d --games 1 plays the same games\)$", text.stdout,
                         re.M).group(1))
    assert seed >= 0
    fixed = _run("match", "random", "random", "--games", "1", "--seed", "7")
    assert fixed.stdout.splitlines()[1] == "Seed 7"


@pytest.mark.parametrize(("args", "code", "error"), [
    # a wrong number of bots is a mistyped command line, as a missing one is: exit 2 with
    # the hint, where it used to be a refusal (exit 1) that the README called a usage error
    (["random"], 2, "Error: Invalid value for 'BOTS': a match needs 2 to 5 bots, got 1\n"
                    "Try 'arena match --help'.\n"),
    (["random"] * 6, 2, "Error: Invalid value for 'BOTS': a match needs 2 to 5 bots, got 6\n"
                        "Try 'arena match --help'.\n"),
    (["random", "nobody"], 1, "Error: unknown bot 'nobody' (registered: greedy, random)\n"),
    (["random", "greedy", "--decision-ms", "0"], 2, None),  # click's own, out of range
])
def test_match_errors(two_bots: Path, args: list[str], code: int, error: str | None) -> None:
    result = _run("match", *args, bots_dir=two_bots)
    assert result.exit_code == code
    if error is not None:
        assert result.stderr == error


@pytest.mark.parametrize(("flag", "error"), [
    ("iterations=5", "expected N:KEY=VALUE, got 'iterations=5'"),
    ("1:iterations", "expected N:KEY=VALUE, got '1:iterations'"),
    ("3:iterations=5", "'3:iterations=5': there is no bot 3 (give 1 to 2)"),
    ("1:depth=[1, 2]", "bot 1 options.depth: must be a string, number or true/false, got a "
                       "list"),
])
def test_match_option_errors(two_bots: Path, flag: str, error: str) -> None:
    result = _run("match", "random", "greedy", "-o", flag, bots_dir=two_bots)
    assert result.exit_code == 2
    assert error in " ".join(result.stderr.replace("│", " ").split())


@needs_sandbox
def test_a_duplicate_match_plays_one_deal_per_seating_and_shows_who_sat_where() -> None:
    """Without --games, one deal in each seating; the table lists each game's seats and
    keeps the places in the bots' order."""
    result = _run("match", "random", "collector", "--duplicate", "rotations", "--seed", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0].startswith("Match random vs collector: 2 games, sandbox ")
    assert out[2].split() == ["game", "seats", "starts", "places", "(random,", "collector)",
                              "desmos", "(same", "order)", "tiebreak", "failures"]
    assert out[4].split()[:3] == ["0", "random", "collector"]
    assert out[5].split()[:3] == ["1", "collector", "random"]
    data = json.loads(_run("match", "random", "collector", "--duplicate", "rotations",
                           "--seed", "1", "--json").stdout)
    places = [g["placements"][g["entrants"].index(0)] for g in data["games"]]
    assert out[4].split()[4] == str(places[0]) and out[5].split()[4] == str(places[1])
    assert data["standings"][0]["mean_place"] == sum(places) / 2


@needs_sandbox
def test_a_sequential_test_stops_the_match_once_it_decides() -> None:
    """greedy beats random nine games in ten: "at least 50 Elo stronger" is accepted long
    before the 2,000 games --sprt allows, and the same seed decides the same way."""
    result = _run("match", "greedy", "random", "--sprt", "0,50", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    sprt, elo, played = data["sprt"], data["elo"], len(data["games"])
    assert sprt["decision"] == "H1" and sprt["llr"] >= sprt["bounds"][1]
    assert 10 < played < 200
    assert elo["wins"] + elo["draws"] + elo["losses"] == played
    # each deal both ways round (--duplicate rotations), and the test waits for the pair
    assert played % 2 == 0
    assert [g["entrants"] for g in data["games"][:4]] == [[0, 1], [1, 0]] * 2
    assert data["games"][0]["seed"] == data["games"][1]["seed"] != data["games"][2]["seed"]
    greedy_first = [g["placements"][g["entrants"].index(0)] < g["placements"][
        g["entrants"].index(1)] for g in data["games"]]
    assert sum(greedy_first) == elo["wins"]
    assert elo["score"] > 0.5
    # the interval lies above even; every game won leaves it open above, and the line gives
    # the bound ("Elo difference +inf" said nothing of how far the games go)
    assert elo["elo_95"][0] is not None and elo["elo_95"][0] > 0
    assert (elo["elo_95"][1] is None) == (elo["losses"] + elo["draws"] == 0)
    text = _run("match", "greedy", "random", "--sprt", "0,50", "--seed", "1")
    assert text.exit_code == 0
    shown = describe_elo(Score(elo["wins"], elo["draws"], elo["losses"]))
    assert f"Elo difference {shown};" in text.stdout and "inf" not in shown
    assert text.stdout.splitlines()[-1] == (
        f"SPRT elo0=0 elo1=50 alpha=0.05 beta=0.05: LLR {sprt['llr']:.2f} (bounds -2.94, "
        f"2.94) after {played} games: H1 accepted: greedy is stronger than random")


@pytest.mark.parametrize(("args", "error"), [
    (["greedy", "random", "collector", "--sprt", "0,10"],
     "a sequential test compares two bots, not 3"),
    (["greedy", "random", "--sprt", "10"], "expected ELO0,ELO1 such as 0,10, got '10'"),
    (["greedy", "random", "--sprt", "5,5"], "elo0 must be below elo1, got 5 and 5"),
    (["greedy", "random", "--sprt", "10,0"], "elo0 must be below elo1, got 10 and 0"),
    (["greedy", "random", "--sprt", "0,5", "--alpha", "0.7"],
     "alpha must be between 0 and 0.5, got 0.7"),
    (["greedy", "random", "--sprt", "0,1e6"], "elo1 must lie within ±2000, got 1e+06"),
    (["greedy", "random", "--alpha", "0.1"], "--alpha only set the error rates of a "
                                               "sequential test: give --sprt ELO0,ELO1 too"),
    (["greedy", "random", "--sprt", "0,10", "--games", "25"],
     "--duplicate rotations plays each deal in 2 seatings: give a multiple of 2, not 25"),
    (["greedy", "random", "collector", "--duplicate", "permutations", "--games", "8"],
     "--duplicate permutations plays each deal in 6 seatings: give a multiple of 6, not 8"),
    (["greedy", "random", "--duplicate", "mirror"],
     "unknown seating 'mirror' (choose none, rotations or permutations)"),
])
def test_a_match_that_cannot_be_played_as_asked_is_a_usage_error(args: list[str],
                                                                  error: str) -> None:
    result = _run("match", *args)
    assert result.exit_code == 2
    assert error in " ".join(result.stderr.replace("│", " ").split())


@needs_sandbox
def test_a_match_with_a_bot_that_never_started_gives_no_elo(tmp_path: Path) -> None:
    # it printed "broken against random: 0 wins, ...; Elo difference -inf ...; likelihood of
    # superiority 7.9%" above the error saying the bot never started
    bot = tmp_path / "broken.py"
    bot.write_text("from arena.sdk import Bot\n\n\nclass Broken(Bot)\n    pass\n")
    result = _run("match", str(bot), "random", "--games", "2")
    assert result.exit_code == 1
    assert "broken startup_failure, 2 times (games 0, 1): exited before answering 'hello' " \
           "(exit code 2); SyntaxError: expected ':' (at broken.py line 4)" in result.stdout
    assert "Elo" not in result.stdout and "against random" not in result.stdout
    assert result.stderr == "Error: broken never started (the failures above say why)\n"
    # the bots' table says what the failures cost, as the leaderboard does
    [row] = [line for line in result.stdout.splitlines() if line.startswith("broken ")]
    assert " startup_failure 2 (2 forfeits) " in row


@needs_sandbox
def test_match_options_reach_the_bot(tmp_path: Path) -> None:
    """ismcts given a fixed budget replays move for move; a misspelt option is the bot's
    start-up failure, quoting the bot's own message."""
    def play(*flags: str, code: int = 0) -> dict:
        records = tmp_path / "games.jsonl"
        result = _run("match", "ismcts", "greedy", "--games", "1", "--seed", "3", "--json",
                      "--records", str(records), *flags)
        assert result.exit_code == code, result.output
        if code:  # the outcome is printed, then why the match measured nothing of a bot
            assert result.stderr == ("Error: ismcts never started (the failures above say "
                                     "why)\n")
        data: dict = json.loads(result.stdout)
        data["moves"] = [json.loads(line)["choices"] for line in records.open()]
        return data

    first, again = (play("-o", "1:iterations=4", "-o", "1:width=2") for _ in range(2))
    assert first["seats"][0].split("@")[1].split("+o")[0] == resolve("ismcts").version
    assert "+o" in first["seats"][0] and first["bots"][0]["failures"] == {}
    assert first["moves"] == again["moves"] and len(first["moves"][0]) > 20
    typo = play("-o", "1:iteration=4", code=1)
    failure = typo["games"][0]["failures"][0]
    assert failure["type"] == "startup_failure"
    assert "ValueError: ismcts: unknown option 'iteration'" in failure["detail"]


@needs_sandbox
def test_bench_protocol_reports_its_figures() -> None:
    result = _run("bench", "protocol", "--decisions", "100", "--games", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["decisions"] == 100 and data["match_games"] == 1
    for key in ("round_trip_us", "bare_round_trip_us", "floor_us", "ratio",
                "replayed_floor_us", "replayed_ratio", "paced_floor_us", "paced_ratio",
                "bare_ratio", "referee_work_us", "bot_startup_ms",
                "match_decisions_per_s", "in_process_decisions_per_s"):
        assert data[key] > 0, key
    assert data["sandbox_level"] == probe().level and data["cpu"] is None


@needs_sandbox
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity here")
def test_bench_protocol_one_core_pins_the_referee_and_its_children() -> None:
    before = os.sched_getaffinity(0)
    result = _run("bench", "protocol", "--decisions", "100", "--games", "1", "--one-core")
    assert result.exit_code == 0, result.output
    cpu = min(before)
    assert (f"Sandbox level: {probe().level}; the referee and every process it starts pinned "
            f"to CPU {cpu}") in result.stdout
    assert os.sched_getaffinity(0) == before  # restored afterwards


@needs_sandbox
def test_a_bot_matched_against_itself_is_told_apart() -> None:
    result = _run("match", "random", "random", "--games", "1", "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["names"] == ["random#1", "random#2"]
    assert [row["name"] for row in outcome["bots"]] == ["random#1", "random#2"]


def test_a_ctrl_c_in_a_match_says_how_far_it_got() -> None:
    """What the finished games were, and the seed that replays them (the records file has
    them too)."""
    from arena.cli.match_report import interrupted
    from arena.referee.match import GameOutcome

    def game(placements: list[int], forfeits: dict[int, str]) -> GameOutcome:
        return GameOutcome(game_id="m/g0", game_index=0, seed=0, seats=["a@1", "b@1"],
                           names=["a", "b"], starting_seat=0, placements=placements,
                           desmos=["", ""], ascension=False, tiebreak="none", failures=[],
                           forfeits=forfeits, decisions=0, duration_s=0.0, latency=[],
                           record={})

    games = [game([1, 2], {}), game([2, 1], {}), game([1, 1], {0: "timeout"})]
    assert interrupted(games, 10, 77, Path("g.jsonl")) == (
        "Interrupted after 3 of 10 games (seed 77 replays them; their records are in g.jsonl); "
        "wins so far: a 1, b 2")
    assert interrupted([], 10, 77, None) == "Interrupted before the first game ended (seed 77)."
    assert interrupted(games, 10, 77, None, dt.date(2030, 6, 1)).startswith(
        "Interrupted after 3 of 10 games (--seed 77 --event-date 2030-06-01 replays them); ")


def test_a_match_stopped_by_a_bot_edited_during_it_says_how_far_it_got(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot whose files changed during the match stops it (it would have run the edit
    under the version checked): the games it played, the seed replaying them, then why."""
    from arena.errors import FilesChangedError
    from arena.rating.match_series import MatchSeries
    from arena.referee.match import GameOutcome

    def play(series: MatchSeries, **kwargs: object) -> None:
        series.played.append(GameOutcome(
            game_id="m/g0", game_index=0, seed=0, seats=["random@1", "greedy@1"],
            names=["random", "greedy"], starting_seat=0, placements=[2, 1], desmos=["", ""],
            ascension=False, tiebreak="none", failures=[], forfeits={}, decisions=0,
            duration_s=0.0, latency=[], record={}))
        raise FilesChangedError("bot random@1: its files at /x changed or went away since it "
                                "entered, so it was not restarted; put them back to go on")

    monkeypatch.setattr(MatchSeries, "play", play)
    result = _run("match", "random", "greedy", "--games", "3", "--seed", "7",
                  "--event-date", "2030-06-01")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "Interrupted after 1 of 3 games (--seed 7 --event-date 2030-06-01 --games 3 replays "
        "them); "
        "wins so far: random 0, greedy 1\nError: bot random@1: its files at /x changed or went "
        "away since it entered, so it was not restarted; put them back to go on\n")


def test_a_bot_given_up_after_failed_starts_never_started() -> None:
    """After MAX_FAILED_STARTS the referee stops trying: later games record the forfeit
    (and a failure saying so), and the bot still never started."""
    from types import SimpleNamespace

    from arena.rating.match_series import never_started

    def game(g: int, seat: int, why: str) -> SimpleNamespace:
        """Game ``g`` with bot "a" in ``seat``, forfeited for ``why``."""
        return SimpleNamespace(forfeits={seat: why}, seat_of=lambda i: i ^ seat,
                               failures=[{"seat": seat, "type": why}] if g < 3 else [])

    games = [game(g, 0, "startup_failure") for g in range(5)]
    assert never_started(SimpleNamespace(names=["a", "b"], games=games)) == ["a"]
    games[4] = game(4, 0, "crash")
    assert never_started(SimpleNamespace(names=["a", "b"], games=games)) == []
    # in duplicate the bot changes seats; it is the bot that never started, not a seat
    games = [game(g, g % 2, "startup_failure") for g in range(4)]
    assert never_started(SimpleNamespace(names=["a", "b"], games=games)) == ["a"]


_CGROUP_MISSING = "sandbox layer cgroup is not active: no cgroup v2 hierarchy here"


def _report_missing_cgroup() -> SandboxReport:
    layers: dict[str, bool | str] = {
        "setsid": True, "rlimits": True, "user": True, "bwrap": True,
        "landlock": True, "seccomp": True, "cgroup": "no cgroup v2 hierarchy here"}
    return SandboxReport(layers=layers, level="bwrap+landlock+seccomp+user+rlimits",
                         warnings=[_CGROUP_MISSING], python="/usr/bin/python3",
                         python_version="3.11.2", kit_path=Path("/tmp/kit"),
                         bot_engine="pure (test)", user="arena-bot", uid=1600000000,
                         freezer="no cgroup v2 directory here")


def test_doctor_says_the_missing_layer_as_a_warning(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setattr(bot_commands, "probe", _report_missing_cgroup)
    monkeypatch.setattr(bot_commands, "native_build", lambda: "pure (test)")
    result = runner.invoke(app, ["doctor"], env={"ARENA_ENV_CACHE": str(tmp_path / "envs")})
    assert result.exit_code == 0
    assert result.stderr == f"warning: {_CGROUP_MISSING}\n"
    assert result.stdout.splitlines()[0] == "Sandbox level: bwrap+landlock+seccomp+user+rlimits"
    pause = "SIGSTOP to its uid" if os.geteuid() == 0 else "SIGSTOP to its process tree"
    assert result.stdout.splitlines()[-6:] == [
        "Runs as:     a uid and group of its own per bot (from 1,600,000,000)",
        f"Paused by:   {pause} between its decisions (no freezer: no cgroup v2 directory here)",
        "Bot kit:     /tmp/kit (on the bots' PYTHONPATH)",
        f"Bot envs:    {tmp_path / 'envs'} (0 environments, 0.0 MiB; arena env list)",
        "Build:       pure (test) in the referee; pure (test) in bots",
        "1 layer missing; bots run at level bwrap+landlock+seccomp+user+rlimits."]
    assert "  [MISS] cgroup   no cgroup v2 hierarchy here" in result.stdout.splitlines()
    bots = runner.invoke(app, ["doctor"], env={"ARENA_BOTS_DIR": "/srv/contest/bots"})
    assert ("Bots dir:    /srv/contest/bots (arena submit registers there; docs/BOTS.md)"
            in bots.stdout.splitlines())


def test_the_probe_reports_missing_layers_without_a_warning_record(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe only reports (``report.warnings``, an INFO record): a WARNING would be
    printed by every command that starts a bot."""
    monkeypatch.setattr(probe_module, "_logged", set())
    with caplog.at_level(logging.DEBUG, logger="arena"):
        probe_module._log_once([_CGROUP_MISSING, _CGROUP_MISSING])
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.INFO, _CGROUP_MISSING)]


@needs_sandbox
def test_check_bot_does_not_repeat_the_sandbox_warning(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe_module, "_logged", set())
    monkeypatch.setattr(probe_module, "_missing", lambda layers: [_CGROUP_MISSING])
    monkeypatch.setattr(probe_module, "_cached", None)
    with caplog.at_level(logging.WARNING, logger="arena"):
        result = _run("check-bot", str(BOTS / "greedy.py"), "--games", "1")
    assert result.exit_code == 0, result.output
    assert probe().warnings == [_CGROUP_MISSING]
    assert "warning" not in result.output
    assert caplog.records == []


@needs_sandbox
def test_submit_registers_in_the_users_data_directory_not_the_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From the checkout (its bots/ holds the samples) or anywhere without a ./bots, a submit
    goes to $XDG_DATA_HOME/palaestra-arena/bots, and the sample bots are still found."""
    source = tmp_path / "mine.py"
    shutil.copy(BOTS / "collector.py", source)
    monkeypatch.chdir(ROOT)
    env = {"ARENA_BOTS_DIR": None, "ARENA_HOME": None, "XDG_DATA_HOME": str(tmp_path / "data")}
    before = sorted(p.name for p in BOTS.iterdir())
    result = runner.invoke(app, ["submit", str(source), "--name", "mine"], env=env)
    assert result.exit_code == 0, result.output
    home = tmp_path / "data" / "palaestra-arena" / "bots"
    version = resolve(home / "mine.py").version
    assert result.stdout.splitlines()[-1] == f"Registered mine version {version} at " \
                                             f"{home / 'mine.py'}"
    assert sorted(p.name for p in BOTS.iterdir()) == before
    assert sorted(p.name for p in home.iterdir()) == ["mine.py", "registry.yaml"]
    listing = runner.invoke(app, ["bots"], env=env)
    names = [line.split()[0] for line in listing.stdout.splitlines()[2:] if line.strip()]
    assert names[:2] == ["mine", "collector"] and "greedy" in names
    assert listing.stdout.splitlines()[-1] == (f"Bots directory: {home} (arena submit "
                                               "registers there)")
    monkeypatch.chdir(tmp_path)  # elsewhere: the same directory, ARENA_HOME moves it
    moved = runner.invoke(app, ["bots"], env={**env, "ARENA_HOME": str(tmp_path / "arena")})
    assert moved.stdout.splitlines()[-1] == (f"Bots directory: {tmp_path / 'arena' / 'bots'} "
                                             "(arena submit registers there)")
    assert "mine" not in moved.stdout and "greedy" in moved.stdout


_SUBMIT_STOPPED = """
import os, signal, sys
from types import SimpleNamespace
from arena.cli import bot_commands, run
from arena.registry import staging

# the check passes at once; the signal comes while the copy is being made
bot_commands.check_bot = lambda spec, **limits: SimpleNamespace(ok=True, failures=list)
bot_commands._print_report = lambda report: None
copy = staging.copy_module
stop = getattr(signal, sys.argv[1])

def stopped(source, target, **where):
    copy(source, target, **where)
    os.kill(os.getpid(), stop)
    copy(source, target, **where)

staging.copy_module = stopped
sys.argv = ["arena", "submit", sys.argv[2], "--name", "mine"]
run()
"""


@pytest.mark.parametrize(("signal_name", "code", "said"), [
    ("SIGTERM", 143, "Terminated."), ("SIGINT", 130, "Interrupted.")])
def test_a_submit_stopped_while_it_copies_leaves_nothing_in_the_bots_directory(
        tmp_path: Path, signal_name: str, code: int, said: str) -> None:
    """A SIGTERM (a service manager's stop, a job's timeout) ended the submit at once: its
    half-made copy stayed in the bots directory as .incoming-XXXX, for good."""
    bots = tmp_path / "bots"
    source = tmp_path / "mine.py"
    shutil.copy(BOTS / "collector.py", source)
    done = subprocess.run([sys.executable, "-c", _SUBMIT_STOPPED, signal_name, str(source)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "ARENA_BOTS_DIR": str(bots),
                               "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stderr) == (code, f"{said}\n")
    assert sorted(p.name for p in bots.iterdir()) == []


def test_a_bot_name_holding_a_bar_is_refused_before_it_reaches_a_table(tmp_path: Path) -> None:
    """A bot given by path named 'evil | 99.9 | x' made two fake columns in
    'arena leaderboard --format github' (and pipe, orgtbl, jira...): a Markdown table showed
    it with a score of its own choosing."""
    bot = tmp_path / "evil"
    bot.mkdir()
    (bot / "bot.py").write_text((BOTS / "random.py").read_text())
    (bot / "bot.yaml").write_text('name: "evil | 99.9 | x"\nmodule: bot.py\n')
    error = (f"{bot / 'bot.yaml'}: a bot's name cannot contain '|' (Markdown and the other "
             "table formats of --format would split it into columns): 'evil | 99.9 | x'")
    checked = _run("check-bot", str(bot), bots_dir=tmp_path)
    assert (checked.exit_code, checked.stdout, checked.stderr) == (1, "", f"Error: {error}\n")
    spec = tmp_path / "t.yaml"
    spec.write_text(f"name: t\nformat: round_robin\nbots: [{BOTS / 'random.py'}, {bot}]\n"
                    "players_per_game: 2\nrounds: 1\ngames_per_match: 2\nseed: 7\n")
    planned = _run("run", str(spec), "--check", bots_dir=tmp_path)
    assert planned.exit_code == 1 and f"bots[1]: {error}" in planned.stderr, planned.output
    module = tmp_path / "evil.py"
    module.write_text((BOTS / "random.py").read_text().replace('name = "random"',
                                                               'name = "a|b"'))
    matched = _run("match", str(module), "random", bots_dir=tmp_path)
    assert matched.exit_code == 1 and "cannot contain '|'" in matched.stderr, matched.output


def _book_reader(where: Path) -> Path:
    """A bot that fails to start: it opens a book.json it was never given, beside its file."""
    bot = where / "reader"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: reader\ncommand: [python3, bot.py]\n")
    (bot / "bot.py").write_text("import os\nopen(os.path.join(os.path.dirname("
                                "os.path.abspath(__file__)), 'book.json'))\n")
    return bot


@needs_sandbox
def test_a_matchs_failures_name_paths_under_the_bots_directory_as_check_bot_does(
        tmp_path: Path) -> None:
    """Its author's own run: the path they can open, not the stored failure's relative form."""
    bot = _book_reader(tmp_path)
    told = (f"exited before answering 'hello' (exit code 1); FileNotFoundError: [Errno 2] No "
            f"such file or directory: '{bot}/book.json' (at bot.py line 2, in <module>)")
    checked = _run("check-bot", str(bot))
    assert checked.stdout.splitlines()[1] == f"✗ handshake: {told}"
    played = _run("match", str(bot), "random", "--seed", "1")
    assert played.exit_code == 1
    lines = played.stdout.splitlines()
    assert lines[lines.index("Failures:") + 1:] == [f"  reader startup_failure (game 0): {told}"]
    data = json.loads(_run("match", str(bot), "random", "--seed", "1", "--json").stdout)
    assert [reason["detail"] for reason in data["failure_reasons"]] == [told]
