"""``arena play`` driven through a pseudo-terminal (80x24), as a person types.

A scripted person plays whole games at 2 and 4 players; every card name the screen shows is
one the person's seat was shown (its feed of events, read back from the game's record); an
invalid key is refused with a hint; Ctrl-C ends the program with every bot process gone.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import sys
import termios
import time
from pathlib import Path

import pexpect
import pytest
from play_script import numbers_in

from arena.engine.narration import seat_feed
from arena.sandbox import probe

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
FIXTURES = REPO / "tests" / "fixtures" / "bots"
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")

#: A decision's prompt; Enter is offered only where option 0 is a safe default.
DECISION = r"Choose ([\d, -]+) \((?:Enter = (\d+), )?\? = help\): "
AGAIN = r"a = again \(the loser starts\), r = review the game, q = quit \(Enter = again\): "
OVER = r"Series over\. r = review the game, q = quit \(Enter = quit\): "
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\r")
CARD = re.compile(r"\b(?:God-[1-7]|Agari-[1-6]|Umbrae-[1-6]|Arcoi-[1-5]|Sophoi-[1-5]"
                  r"|Fate-[1-5]|Beast-[1-5]|Crown)\b")


def _spawn(*args: str, shell_tail: str = "",
           env_extra: dict[str, str] | None = None) -> tuple[pexpect.spawn, io.StringIO]:
    """``arena play ARGS`` on a pseudo-terminal; ``shell_tail`` adds arguments through a
    shell (pexpect writes its own as UTF-8), ``env_extra`` environment variables."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm-256color",
           **(env_extra or {})}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "arena.cli.main", "play", *args]
    if shell_tail:
        command = ["/bin/sh", "-c", f'exec "$@" {shell_tail}', "sh", *command]
    child = pexpect.spawn(command[0], command[1:], cwd=REPO, env=env, dimensions=(24, 80),
                          encoding="utf-8", timeout=120)
    transcript = io.StringIO()
    child.logfile_read = transcript
    return child, transcript


def _screen(transcript: io.StringIO) -> str:
    return ANSI.sub("", transcript.getvalue())


def _play_to_the_end(child: pexpect.spawn, seed: int) -> int:
    """Answer every decision as a person might (mostly a random option, now and then help
    first) until the series is over; returns the decisions answered."""
    rng = random.Random(seed)
    answered = 0
    while True:
        which = child.expect([DECISION, AGAIN, OVER])
        if which:
            child.sendline("q")
            return answered
        numbers = numbers_in(child.match.group(1))
        if rng.random() < 0.1:
            child.sendline(rng.choice(["?", "h 1", "t", "l"]))
            child.expect(DECISION)
        enter = child.match.group(2) is not None
        child.sendline("" if enter and rng.random() < 0.3 else str(rng.choice(numbers)))
        answered += 1


def _hold_to_the_end(child: pexpect.spawn) -> None:
    """Take option 0 at every decision of a one-game series (Enter, or the first number
    where the choice has no default), then end it cleanly."""
    while child.expect([DECISION, OVER]) == 0:
        forced = child.match.group(2) is None  # no default: the first number
        child.sendline(str(numbers_in(child.match.group(1))[0]) if forced else "")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def _leave(child: pexpect.spawn) -> None:
    """Type quit: the person leaves the table, and the program ends cleanly."""
    child.sendline("quit")
    child.expect("You left the table.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def _refused(child: pexpect.spawn, options: str, keys: tuple[str, ...]) -> None:
    """Each of ``keys`` is refused: the same decision is asked again."""
    for key in keys:
        child.sendline(key)
        child.expect(DECISION)
        assert child.match.group(1) == options


def _cards(events: list) -> set[str]:
    return set(CARD.findall(json.dumps(events)))


@needs_sandbox
@pytest.mark.parametrize(("bots", "seat", "seed"), [
    (["greedy.py"], 1, 5),
    (["random.py", "greedy.py", "heuristic.py"], 2, 9),
], ids=["2-players", "4-players"])
def test_a_person_plays_to_the_showdown_and_sees_only_their_seats_cards(
        tmp_path: Path, bots: list[str], seat: int, seed: int) -> None:
    records = tmp_path / "games.jsonl"
    child, transcript = _spawn(*(str(BOTS / b) for b in bots), "--seat", str(seat),
                               "--seed", str(seed), "--games", "1", "--pace", "0",
                               "--name", "alice", "--records", str(records))
    answered = _play_to_the_end(child, seed)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    screen = _screen(transcript)
    (record,) = (json.loads(line) for line in records.read_text().splitlines())
    assert record["players"][seat] == "alice" and len(record["players"]) == len(bots) + 1
    assert record["referee"]["seats"][seat] == "person:alice"
    assert answered == sum(1 for c in record["choices"] if c[0] == seat) > 0
    assert "Showdown" in screen and "First place:" in screen
    flowing = " ".join(screen.split())  # rich wraps long lines at 80 columns
    assert "After 1 game: " in flowing and f"Wrote 1 game record to {records}" in flowing
    feed, _ = seat_feed(record["events"], seat)
    showdown = next(i for i, e in enumerate(feed) if e["type"] == "showdown")
    # Until the showdown: only cards the seat's events had shown it by then.
    before, seen_before = screen[:screen.index("\nShowdown\n")], _cards(feed[:showdown])
    hidden = _cards(feed[showdown:]) - seen_before
    assert hidden, "other hands hold cards the seat has not seen: the check can tell a leak"
    assert set(CARD.findall(before)) - seen_before == set()
    # And over the whole game (the showdown shows every hand).
    assert set(CARD.findall(screen)) - _cards(feed) == set()


@needs_sandbox
def test_an_invalid_key_is_refused_with_a_hint_and_changes_nothing() -> None:
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "3", "--pace", "0")
    child.expect(DECISION)
    options = child.match.group(1)
    start = len(transcript.getvalue())
    for key in ("x", "42", "play"):
        child.sendline(key)
        child.expect(DECISION)
        assert child.match.group(1) == options  # the same decision, asked again
    between = ANSI.sub("", transcript.getvalue()[start:])
    assert f"'x' is not an option: type a number {options}, Enter for 0, ? for help" \
        in between.replace("\n", " ")
    assert f"There is no option 42: choose {options}." in between
    assert not re.search(r"\b(holds|plays|sets a trap|draws)\b", between)
    _leave(child)


@needs_sandbox
def test_brackets_typed_or_in_the_name_are_shown_as_typed() -> None:
    # rich reads [...] as markup: "[/]" closes nothing and used to end the program with a
    # traceback, "[red]" vanished from the line
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "3", "--pace", "0",
                               "--name", "[b]al[/b]")
    child.expect(DECISION)
    options = child.match.group(1)
    _refused(child, options, ("[/]", "[red]x", "h [/]"))
    screen = " ".join(_screen(transcript).split())
    assert "[b]al[/b] (you)" in screen
    assert f"'[/]' is not an option: type a number {options}" in screen
    assert "'[red]x' is not an option" in screen
    assert "[/]: not a card" in screen
    assert "Traceback" not in screen
    _leave(child)


@needs_sandbox
def test_digits_int_cannot_read_are_refused() -> None:
    # "²" is a digit to str.isdigit but not a number to int(): it used to end the program
    # with a ValueError traceback, at a decision and after "h"
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "3", "--pace", "0")
    child.expect(DECISION)
    options = child.match.group(1)
    _refused(child, options, ("²", "h ²"))
    screen = " ".join(_screen(transcript).split())
    assert f"'²' is not an option: type a number {options}" in screen
    assert "²: not a card" in screen
    start = len(transcript.getvalue())
    child.sendline("１")  # a full-width 1 is a number: option 1, playing the first card
    child.expect(DECISION)
    assert " plays " in ANSI.sub("", transcript.getvalue()[start:])
    assert "Traceback" not in screen
    _leave(child)


@needs_sandbox
def test_a_bot_that_crashes_mid_game_is_marked_forfeited_to_the_end() -> None:
    child, transcript = _spawn(str(FIXTURES / "crasher.py"), "--seed", "1", "--games", "1",
                               "--pace", "0")
    _hold_to_the_end(child)
    screen = _screen(transcript)
    told = screen.index("crasher forfeits (crash)")
    # every table drawn after the forfeit says so: the crasher can no longer win
    tables = re.findall(r"^1 +crasher.*$", screen[told:], re.MULTILINE)
    assert tables and all("crasher (forfeited)" in row for row in tables)
    assert "crasher (forfeited)" not in screen[:told]
    assert "forfeited (crash)" in screen[screen.index("\nShowdown\n"):]
    assert "Traceback" not in screen


@needs_sandbox
def test_a_name_that_is_not_utf8_is_shown_with_a_replacement_character(
        tmp_path: Path) -> None:
    # bytes from a Latin-1 terminal: the name used to end the program with a
    # UnicodeEncodeError when the bots were sent it
    records = tmp_path / "games.jsonl"
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "3", "--pace", "0",
                               "--games", "1", "--records", str(records),
                               shell_tail="--name \"$(printf 'Zo\\353')\"")
    _hold_to_the_end(child)
    screen = _screen(transcript)
    assert "Zo\ufffd (you)" in screen and "Traceback" not in screen
    assert json.loads(records.read_text())["players"][0] == "Zo\ufffd"


@needs_sandbox
def test_an_ascii_terminal_plays_with_question_marks_for_what_it_cannot_show() -> None:
    # the '·' between cards used to end the program with a UnicodeEncodeError
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "3", "--pace", "0",
                               env_extra={"PYTHONIOENCODING": "ascii"})
    child.expect(DECISION)
    child.send("\u00e9\r")  # a byte an ASCII terminal cannot decode: refused
    child.expect(DECISION)
    _leave(child)
    screen = _screen(transcript)
    assert "Round 1 of 5 ? your turn" in screen and "Your hand: 1 " in screen
    assert "'??' is not an option" in screen and "Traceback" not in screen


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@needs_sandbox
def test_ctrl_c_ends_cleanly_with_every_bot_ended() -> None:
    child, transcript = _spawn(str(BOTS / "random.py"), str(BOTS / "greedy.py"), "--seed",
                               "2", "--pace", "0")
    child.expect(DECISION)
    bots = _descendants(child.pid)
    assert bots, "the bots run as child processes"
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    screen = _screen(transcript)
    assert "Interrupted." in screen and "Traceback" not in screen
    assert "No game finished." in screen
    for _ in range(100):  # the processes are killed; give the kernel a moment to reap
        if not any(_running(pid) for pid in bots):
            break
        time.sleep(0.05)
    assert not [pid for pid in bots if _running(pid)]


@needs_sandbox
def test_a_bots_strike_is_told_as_it_happens_not_as_its_move() -> None:
    # the default played for a bot that answered wrong used to read as its own choice
    child, transcript = _spawn(str(FIXTURES / "out_of_range.py"), "--seed", "4", "--games",
                               "1", "--pace", "0")
    _hold_to_the_end(child)
    screen = _screen(transcript)
    told = "out_of_range chose no legal option: it is made to hold (a strike)"
    kept = "out_of_range chose no legal option: it is made to keep its hand (a strike)"
    assert screen.count(told) == 2 and screen.count(kept) == 2  # the fourth forfeits
    assert screen.index(told) < screen.index("out_of_range holds")
    assert screen.index("out_of_range forfeits (illegal_choice)") > screen.rindex(kept)


@needs_sandbox
@pytest.mark.parametrize(("seed", "secret"), [(1, "a card is chosen for it"),
                                              (2, "a card is given for it")])
def test_a_strike_at_a_secret_card_says_a_card_was_played_never_which(seed: int,
                                                                      secret: str) -> None:
    # it said "option 0 is played for it", which means nothing to a person; the card itself
    # is the bot's secret, so the screen may say only that one was played
    child, transcript = _spawn(str(FIXTURES / "secret_striker.py"), "--seed", str(seed),
                               "--games", "1", "--pace", "0")
    _hold_to_the_end(child)
    screen = " ".join(_screen(transcript).split())
    assert f"secret_striker chose no legal option: {secret} (a strike)" in screen
    assert "option 0" not in screen


@needs_sandbox
def test_a_bot_that_keeps_the_table_waiting_is_said_to() -> None:
    # a hanging bot used to leave the person before a silent screen for its whole time
    child, transcript = _spawn(str(FIXTURES / "hang.py"), "--seed", "4", "--games", "1",
                               "--pace", "0")
    _hold_to_the_end(child)
    screen = " ".join(_screen(transcript).split())
    waited = re.search(r"waiting for hang to answer a '\w+' decision \(it has up to "
                       r"[\d.]+ s\)\.\.\.", screen)
    assert waited is not None
    struck = screen.index("hang ran out of time: it is made to hold (a strike)")
    assert waited.start() < struck < screen.index("hang forfeits (timeout)")


@needs_sandbox
def test_the_command_to_show_the_records_is_never_cut(tmp_path: Path) -> None:
    # the goodbye's 'arena game FILE -n 1' used to break where the width ran out, so a
    # pasted line ran half a command
    records = tmp_path / "a-directory-for-the-records-of-this-evening" / "games.jsonl"
    records.parent.mkdir()
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "6", "--games", "1",
                               "--pace", "0", "--records", str(records))
    _hold_to_the_end(child)
    screen = _screen(transcript)
    command = f"arena game {records} -n 1"
    assert len(command) > 80
    assert command in screen
    assert "Wrote 1 game record to" in screen
    # played again into the same file: its game is kept, and the command names the new one
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "7", "--games", "1",
                               "--pace", "0", "--records", str(records))
    _hold_to_the_end(child)
    flowing = " ".join(_screen(transcript).split())
    assert f"Wrote 1 game record to {records} after the 1 already there (arena game " \
        f"{records} -n 2 shows the first of these)" in flowing
    assert len(records.read_text().splitlines()) == 2


@needs_sandbox
def test_keys_pressed_while_the_table_is_told_are_not_drawn_into_it() -> None:
    # each Enter pressed to hurry the narration on was echoed as a blank line between its
    # sentences, and a word typed there stood in the middle of the table's story
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seat", "1", "--seed", "5",
                               "--games", "1", "--pace", "2", "--name", "me")
    child.expect(DECISION)
    child.sendline("")  # hold
    child.expect(DECISION)
    child.sendline("")  # keep the hand
    child.expect("greedy holds")  # the table pauses after another player's move
    child.send("typed-ahead\r\r\r")
    child.expect(r"\(what you typed while the table was told was dropped: answer here\)")
    child.expect(DECISION)
    told = _screen(transcript)
    told = told[told.index("greedy holds", told.index("Round 2")):]
    assert "typed-ahead" not in told
    assert "\n\n" not in told, told  # no blank line drawn by an Enter
    child.sendline("typed-at-the-prompt")  # a prompt echoes the keys as ever
    child.expect("'typed-at-the-prompt' is not an option")
    _leave(child)


@needs_sandbox
def test_sigterm_while_the_table_is_told_gives_the_terminal_back_with_its_echo() -> None:
    # keys are not echoed while the table is told; a SIGTERM then left the shell without echo
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seat", "1", "--seed", "5",
                               "--games", "1", "--pace", "2", "--name", "me")
    child.expect(DECISION)
    child.sendline("")  # hold
    child.expect(DECISION)
    child.sendline("")  # keep the hand
    child.expect("greedy holds")  # told, keys unechoed
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    echoing = bool(termios.tcgetattr(child.child_fd)[3] & termios.ECHO)
    child.close()
    assert child.exitstatus == 143
    assert echoing
    assert "Traceback" not in _screen(transcript)


@needs_sandbox
def test_the_piles_line_wraps_under_itself_at_80_columns() -> None:
    # the Discard Graveyard's cards ran past 80 columns and went on at column 0, where they
    # read as a line of their own
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seed", "11", "--games", "1",
                               "--pace", "0", "--name", "alice")
    _hold_to_the_end(child)
    lines = _screen(transcript).splitlines()
    after = [lines[i + 1] for i, line in enumerate(lines) if line.startswith("Draw pile ")]
    wrapped = [line for line in after if not line.startswith("Your hand: ")]
    assert wrapped, "no piles line was long enough to wrap: the check cannot fail"
    assert all(line.startswith("  ") and line.strip() for line in wrapped), wrapped


@needs_sandbox
def test_what_happened_is_shown_again_wrapped_as_it_was_told() -> None:
    # 'l' printed a long sentence's second line at column 0, under no heading of its own
    child, transcript = _spawn(str(BOTS / "greedy.py"), str(BOTS / "heuristic.py"),
                               str(BOTS / "random.py"), "--seed", "21", "--games", "1",
                               "--pace", "0", "--name", "alice")
    shown_again: list[str] = []
    while child.expect([DECISION, OVER]) == 0:
        options, forced = child.match.group(1), child.match.group(2) is None
        start = len(_screen(transcript))
        child.sendline("l")
        child.expect(DECISION)
        shown_again += _screen(transcript)[start:].splitlines()[1:-1]
        child.sendline(str(numbers_in(options)[0]) if forced else "")
    child.sendline("q")
    child.expect(pexpect.EOF)
    assert any(len(line) > 70 and line.startswith("  ") for line in shown_again), \
        "no sentence long enough to wrap was shown again: the check cannot fail"
    unheaded = ("  ", "Round ", "Nothing has happened")
    assert [line for line in shown_again if not line.startswith(unheaded)] == []


@needs_sandbox
def test_the_house_rules_in_play_are_said_as_the_game_begins() -> None:
    # a table under --rule played with no word of it: a hand's Desmos, which traps may
    # answer what, all read differently, and nothing on the screen said why
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seed", "5", "--games", "1",
                               "--pace", "0", "--rule", "kinds=family",
                               "--rule", "trap_windows=turn_and_play")
    child.expect(DECISION)
    flowing = " ".join(_screen(transcript).split())
    assert ("house rule kinds=family: all 22 Class cards are one kind, as Gods, Fates and "
            "Beasts are") in flowing
    assert ("house rule trap_windows=turn_and_play: traps answer only the start of a turn "
            "and a declared play") in flowing
    assert "house rule reclaim" not in flowing  # a default is not said
    _leave(child)


@needs_sandbox
def test_two_traps_of_yours_are_each_shown_whole_at_80_columns() -> None:
    # side by side, two traps passed the Arena column's room, and its cell broke the
    # second in the middle: 'Umbrae-1 (2' on one line, 'turns left, ready)' on the next
    child, transcript = _spawn(str(BOTS / "greedy.py"), str(BOTS / "heuristic.py"),
                               str(BOTS / "random.py"), "--seat", "2", "--seed", "3",
                               "--games", "1", "--pace", "0", "--name", "alice",
                               "--rule", "trap_windows=turn_and_play")
    while child.expect([DECISION, OVER]) == 0:
        numbers, forced = numbers_in(child.match.group(1)), child.match.group(2) is None
        turn = "Set as a trap: " in child.before  # set the first card while it may
        child.sendline("6" if turn and 6 in numbers else str(numbers[0]) if forced else "")
    child.sendline("q")
    child.expect(pexpect.EOF)
    screen = _screen(transcript)
    assert re.search(r"\n +1  Trigger .*\n(?:.*\n)? +2  Trigger ", screen), \
        "never two traps: the check cannot fail"
    timed = [line for line in screen.splitlines() if re.search(r"turns? left|until the", line)]
    assert timed and all(line.count("(") == line.count(")") for line in timed), timed


@needs_sandbox
def test_the_help_names_the_trap_windows_of_this_tables_rules() -> None:
    # under trap_windows=turn_and_play the turn's help listed the default's wider windows (in
    # answer to a trap, the Palaestron, a discarded God, the showdown), none of this table's
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seed", "5", "--games", "1",
                               "--pace", "0", "--rule", "trap_windows=turn_and_play")
    child.expect(r"Choose 0-10 \(Enter = 0, \? = help\): ")
    start = len(_screen(transcript))
    child.sendline("?")
    child.expect(DECISION)
    told = " ".join(_screen(transcript)[start:].split())
    assert ("at the start of any turn or when an opponent declares a play (only then: this "
            "table's house rule is trap_windows=turn_and_play)") in told
    assert "default house rules" not in told
    _leave(child)


@needs_sandbox
def test_your_effect_that_comes_to_nothing_says_why() -> None:
    # Hades played on an empty Discard Graveyard was told as 'God-2 takes effect for alice',
    # then nothing: the person could not tell why it did nothing
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seed", "60", "--games", "1",
                               "--pace", "0", "--name", "alice")
    child.expect(r"5  Play God-2 Hades")
    child.expect(DECISION)
    child.sendline("5")
    child.expect(DECISION)
    flowing = " ".join(_screen(transcript).split())
    assert ("God-2 takes effect for alice (the Discard Graveyard is empty: nothing to "
            "take)") in flowing
    _leave(child)


@needs_sandbox
def test_a_bots_effect_that_comes_to_nothing_says_why() -> None:
    # a Griffin on an empty graveyard, a Basilisk with no trap out: told, then silence
    child, transcript = _spawn(str(BOTS / "greedy.py"), str(BOTS / "random.py"), "--seed",
                               "12", "--games", "1", "--pace", "0", "--name", "alice")
    _hold_to_the_end(child)
    flowing = " ".join(_screen(transcript).split())
    assert ("Beast-4 takes effect for greedy (the Discard Graveyard is empty: no card goes "
            "on the pile)") in flowing
    assert "Beast-3 takes effect for random (no opponent has a trap: nothing to look at)" \
        in flowing


@needs_sandbox
def test_a_card_that_would_do_nothing_now_says_so_among_your_options() -> None:
    # Hades was offered on an empty Discard Graveyard with no word of it, and spent for
    # nothing; a turn later, with a card there, Griffin is offered as it is
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seed", "60", "--games", "1",
                               "--pace", "0", "--name", "alice")
    child.expect(DECISION)
    told = len(_screen(transcript))
    first_turn = " ".join(_screen(transcript).split())
    assert ("5 Play God-2 Hades: may trade a card for one in the Discard Graveyard (nothing "
            "in the graveyard to take)") in first_turn
    child.sendline("5")
    child.expect(DECISION)  # the swap
    child.sendline("")
    child.expect(r"Round 2 of 5 · your turn")
    child.expect(DECISION)
    second_turn = " ".join(_screen(transcript)[told:].split())
    assert "Discard Graveyard: Beast-3" in second_turn
    assert "5 Play Beast-4 Griffin: the Discard Graveyard's top card goes on the pile 6-10" \
        in second_turn
    _leave(child)


@needs_sandbox
@pytest.mark.parametrize(("reading", "why"), [
    ((), "drawn by lot: no single player read a page of a printed book most recently"),
    (("--read-page", "2026-12-01"), "the most recent to read a page of a printed book"),
])
def test_the_first_games_starting_seat_is_shown_with_its_reason(
        reading: tuple[str, ...], why: str) -> None:
    # 'random starts' said who, never why: ruling 13 reads who read a page most recently,
    # and draws a lot where no one did alone
    child, transcript = _spawn(str(BOTS / "greedy.py"), str(BOTS / "random.py"), "--seed",
                               "60", "--games", "1", "--pace", "0", "--name", "alice",
                               "--event-date", "2026-12-05", *reading)
    child.expect(DECISION)
    flowing = " ".join(_screen(transcript).split())
    assert f"starts ({why})" in flowing
    _leave(child)


@needs_sandbox
def test_the_second_games_starting_seat_is_shown_with_its_reason(tmp_path: Path) -> None:
    # game 1 said why its seat starts, game 2 only who: ruling 13 starts the last game's
    # loser, by lot among several placed last
    records = tmp_path / "games.jsonl"
    child, transcript = _spawn(str(BOTS / "greedy.py"), str(BOTS / "random.py"), "--seed",
                               "60", "--games", "2", "--pace", "0", "--name", "alice",
                               "--records", str(records))
    while "Game 2" not in _screen(transcript):
        if child.expect([DECISION, AGAIN]):
            child.sendline("a")
            continue
        forced = child.match.group(2) is None  # no default: the first number
        child.sendline(str(numbers_in(child.match.group(1))[0]) if forced else "")
    child.expect(DECISION)
    second = " ".join(_screen(transcript).split("Game 2", 1)[1].split())
    placements = json.loads(records.read_text().splitlines()[0])["result"]["placements"]
    losers = [seat for seat, place in enumerate(placements) if place == max(placements)]
    why = ("the loser of the game before" if len(losers) == 1 else
           f"drawn by lot among the {len(losers)} players placed last in the game before")
    starter = re.search(r"; (\S+) starts \(([^)]*)\)", second)
    assert starter is not None, second
    assert starter.group(2) == why
    assert ["alice", "greedy", "random"].index(starter.group(1)) in losers
    _leave(child)


@needs_sandbox
def test_a_trap_set_while_revealed_is_named_in_its_arena() -> None:
    # random set its revealed Fate-4 as a trap, told to the table by name, and the table
    # still counted it as "1 face down"
    child, transcript = _spawn(str(BOTS / "random.py"), "--seed", "30", "--games", "1",
                               "--pace", "0", "--name", "alice")
    while True:
        child.expect(DECISION)
        if "Round 2 of 5 · your turn" in _screen(transcript):
            break
        forced = child.match.group(2) is None
        child.sendline(str(numbers_in(child.match.group(1))[0]) if forced else "")
    screen = _screen(transcript)
    assert "random sets Fate-4 as a trap" in screen
    table = screen[screen.index("Round 2 of 5 · your turn"):]
    assert re.search(r"^1 +random +5 +Fate-4 \(known\) +- *$", table, re.MULTILINE), table
    _leave(child)


@needs_sandbox
def test_an_atropos_against_a_hand_all_revealed_says_why_it_does_nothing() -> None:
    # alice sets Atropos as a trap, reveals greedy's whole hand with Apollo, and springs the
    # trap at greedy's next turn: 'Fate-3 takes effect for alice (from a trap)', then nothing
    child, transcript = _spawn(str(BOTS / "greedy.py"), "--seed", "13", "--games", "1",
                               "--pace", "0", "--name", "alice")
    told, stage = 0, "trap"
    while stage != "sprung":
        child.expect(DECISION)
        screen = _screen(transcript)
        new, told = screen[told:], len(screen)
        forced = child.match.group(2) is None
        answer = str(numbers_in(child.match.group(1))[0]) if forced else ""
        if "Your move" in new and stage == "trap":
            answer = re.search(r"(\d+) Fate-3", new.split("Set as a trap:")[1]).group(1)  # type: ignore[union-attr]
            stage = "apollo"
        elif "Your move" in new and stage == "apollo":
            answer = re.search(r"^ +(\d+) +Play God-6", new, re.M).group(1)  # type: ignore[union-attr]
            stage = "trigger"
        elif stage == "trigger" and (found := re.search(r"^ +(\d+) +Trigger Fate-3", new, re.M)):
            flowing = " ".join(new.split())
            assert ("Trigger Fate-3 Atropos: an opponent reveals a card (every opponent's hand "
                    "is revealed)") in flowing
            answer, stage = found.group(1), "sprung"
        child.sendline(answer)
    child.expect(DECISION)
    flowing = " ".join(_screen(transcript)[told:].split())
    assert ("Fate-3 takes effect for alice (from a trap) (every opponent's hand is revealed "
            "already: nothing left to reveal)") in flowing
    _leave(child)
