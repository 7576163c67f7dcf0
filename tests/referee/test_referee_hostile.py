"""End to end: hostile bots in real sandboxed matches against the sample random bot.

Each bot misbehaves in one way (tests/fixtures/bots/). For each: the right failure type is
recorded, the match finishes with a placement for every seat in every game, the honest bot is
never disturbed, and no process of either bot is left afterwards. Limits are small so the
whole file runs in seconds; no wall-clock threshold is asserted.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import socket
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.engine import DECISION_KINDS, replay
from arena.protocol import messages
from arena.referee.connection import Connection
from arena.referee.hints import stuck_note
from arena.referee.launch import TransportConnection, sandbox_launcher
from arena.referee.match import MatchOutcome, MatchRequest, play_match
from arena.registry import resolve
from arena.sandbox import Limits, probe
from arena.sandbox.reaper import find_processes

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "bots"
RANDOM = ROOT / "bots" / "random.py"
LIMITS = Limits(decision_ms=500, time_bank_ms=0, startup_ms=10_000, bye_grace_ms=300,
                max_strikes=2, memory_mb=256, line_bytes=100_000)

pytestmark = pytest.mark.skipif(not probe().can_run, reason="bots cannot run on this machine")


class RecordingLauncher:
    """The sandbox launcher, remembering every connection (to check for leftovers)."""

    def __init__(self) -> None:
        self.inner = sandbox_launcher()
        self.made: list[TransportConnection] = []

    def __call__(self, command: Sequence[str], workdir: Any, limits: Any) -> Connection:
        conn = self.inner(command, workdir, limits)
        assert isinstance(conn, TransportConnection)
        self.made.append(conn)
        return conn


def own_zombies() -> list[int]:
    me = os.getpid()
    zombies = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z" and int(fields[1]) == me:
            zombies.append(int(entry))
    return zombies


def play(bot: Path | str, games: int = 2, limits: Limits = LIMITS) -> tuple[MatchOutcome,
                                                                           RecordingLauncher]:
    launcher = RecordingLauncher()
    zombies_before = set(own_zombies())  # other tests' leftovers are not this match's
    outcome = play_match(MatchRequest(bots=[resolve(bot), resolve(RANDOM)], games=games,
                                      seed=3, limits=limits, launcher=launcher,
                                      event_date=dt.date(2026, 11, 29)))
    assert len(outcome.games) == games
    for game in outcome.games:
        assert len(game.placements) == 2 and min(game.placements) == 1
        assert all(f["seat"] == 0 for f in game.failures), "the honest bot never fails"
        replay(game.record)  # forfeits included, every record replays to the same game
    assert outcome.bots[1]["failures"] == {} and outcome.bots[1]["restarts"] == 0
    for conn in launcher.made:
        assert conn.marker and find_processes(marker=conn.marker) == [], "leftover process"
    assert set(own_zombies()) <= zombies_before, "the match left zombies"
    return outcome, launcher


def failure_types(outcome: MatchOutcome) -> list[list[str]]:
    return [[f["type"] for f in game.failures] for game in outcome.games]


def log_of(outcome: MatchOutcome) -> str:
    return "".join(g.record["referee"]["logs"].get("0", "") for g in outcome.games)


@pytest.mark.parametrize(("fixture", "kind"), [
    ("hang.py", "timeout"),
    ("sleepy.py", "timeout"),
    ("garbage", "protocol_error"),
    ("deep", "protocol_error"),
    # blank lines, or a line never ended, arriving all the time do not hold the clock
    ("trickle", "timeout"),
    ("partial", "timeout"),
    ("out_of_range.py", "illegal_choice"),
])
def test_strikes_then_forfeit(fixture: str, kind: str) -> None:
    outcome, _ = play(FIXTURES / fixture)
    strikes = LIMITS.max_strikes + 1
    for game, types in zip(outcome.games, failure_types(outcome), strict=True):
        assert types == [kind] * strikes
        assert game.forfeits == {0: kind} and game.placements == [2, 1]
        for failure in game.record["referee"]["failures"]:  # where in the game it happened
            assert failure["round"] >= 1 and failure["kind"] in DECISION_KINDS
    assert outcome.bots[0]["restarts"] == 1, "restarted once, for the second game"


def test_a_reading_out_of_the_calendar_in_utc_counts_as_none() -> None:
    """A ``ready`` whose ``last_read_page`` falls before year 1 in UTC stopped the match
    with the engine's OverflowError, and a tournament with it (``arena run``: exit 1 and
    a traceback, whatever the other tables)."""
    outcome, _ = play(FIXTURES / "far_date.py")
    assert failure_types(outcome) == [[], []]


def test_a_bot_answering_with_the_previous_id_is_struck_once_an_act() -> None:
    """Its answer with the id before is a stray line, struck; the answers after it are late,
    and dropped as the answer behind any stray line is, so each later act times out."""
    outcome, _ = play(FIXTURES / "stale")
    for game, types in zip(outcome.games, failure_types(outcome), strict=True):
        assert types == ["protocol_error"] + ["timeout"] * LIMITS.max_strikes
        assert game.forfeits == {0: "timeout"} and game.placements == [2, 1]


def test_a_timeout_names_the_line_the_kit_bot_was_stuck_on() -> None:
    """The kit's runner dumps its stack on SIGUSR1, which the referee sends at a timeout."""
    outcome, _ = play(FIXTURES / "hang.py", games=1)
    details = {f["detail"] for f in outcome.games[0].failures}
    assert details == {"no answer within 500 ms (at hang.py line 17, in act)"}
    assert "(most recent call first):" in log_of(outcome)  # the dump stays in the log


def test_a_bot_with_its_own_sigusr1_handler_still_dumps_its_stack() -> None:
    """``signal.signal(SIGUSR1, ...)`` in bot code replaces the kit's dump; the kit puts the
    dump back before the bot's next decision, chained to the bot's handler, which still runs."""
    outcome, _ = play(FIXTURES / "own_sigusr1.py", games=1)
    details = {f["detail"] for f in outcome.games[0].failures}
    assert details == {"no answer within 500 ms (at own_sigusr1.py line 27, in act)"}
    assert "own handler ran" in log_of(outcome)


def test_a_stopped_bot_is_continued_for_its_dump_and_stopped_again() -> None:
    """Between decisions a bot is stopped (frozen, or SIGSTOP): a signal would wait there."""
    bot = resolve(FIXTURES / "hang.py")
    conn = sandbox_launcher()(bot.command, bot.path.parent, LIMITS)
    try:
        assert isinstance(conn, TransportConnection)
        conn.send(messages.hello({}))
        assert b'"stack_dump":true' in conn.receive(time.monotonic() + 10).data
        conn.send(messages.act(0, "turn", {}, [{"a": 1}]) + messages.act(1, "turn", {}, [{"a": 1}]))
        assert conn.receive(time.monotonic() + 10).kind == "line"  # the first act answered
        log = conn.stderr_text()
        deadline = time.monotonic() + 10
        while "hang.py" not in stuck_note(log) and time.monotonic() < deadline:
            conn.pause()  # the second act hangs: stopped now, as between decisions
            log = conn.dump_stack(2.0)
            assert conn._paused, "stopped again after the dump"
            conn.resume()
        assert stuck_note(log) == " (at hang.py line 17, in act)"
    finally:
        conn.kill()


@pytest.mark.parametrize(("fixture", "kind", "detail", "limits"), [
    ("crasher.py", "crash", "deliberate crash in the middle of a game", LIMITS),
    # under bubblewrap too, where the sandbox's own processes must not hold its stdout open
    ("closer", "crash", "closed its output while still running", LIMITS),
    ("giant", "output_limit", "wrote a line longer than 100000 bytes", LIMITS),
    # every byte counts: blank lines, and lines the referee ignores, too
    ("newlines", "output_limit", "wrote more than 100000 bytes without answering", LIMITS),
    ("flood", "output_limit", "wrote more than 100000 bytes without answering", LIMITS),
    # Touching 128 MiB takes a while on a busy machine: give the hog time to hit the limit.
    ("memory_hog.py", "memory_limit", "ran out of memory",
     LIMITS.replace(memory_mb=128, decision_ms=3000)),
])
def test_fatal_failures_forfeit_at_once(fixture: str, kind: str, detail: str,
                                        limits: Limits) -> None:
    outcome, _ = play(FIXTURES / fixture, limits=limits)
    asked_again = 0
    for game, types in zip(outcome.games, failure_types(outcome), strict=True):
        # A loaded machine may let a decision time out before the failure itself; a bot that
        # dies before its first answer of a game (the hog) is restarted and asked once more.
        assert types[-1] == kind and set(types[:-1]) <= {"timeout", kind}
        assert game.forfeits == {0: kind} and game.placements == [2, 1]
        assert detail in game.failures[-1]["detail"]
        asked_again += sum("restarted and asked again" in f["detail"] for f in game.failures)
    assert asked_again == (2 if fixture == "memory_hog.py" else 0)
    assert outcome.bots[0]["restarts"] == 1 + asked_again


def test_a_crash_after_a_game_ended_never_forfeits_the_next() -> None:
    """The bot dies in on_game_end, a while after game_end: the referee has started the next
    game by then. The crash is recorded with that game, which the bot still plays."""
    # 3 s a decision: the bot sleeps 0.2 s before it dies, which a loaded machine may
    # stretch past a tight limit (a timeout, not the crash this is about).
    outcome, _ = play(FIXTURES / "end_crasher.py", games=3,
                      limits=LIMITS.replace(decision_ms=3000))
    for game in outcome.games:
        assert game.forfeits == {}
    assert failure_types(outcome) == [[], ["crash"], ["crash"]]
    for index, game in enumerate(outcome.games[1:]):
        detail = game.failures[0]["detail"]
        assert detail.startswith((f"exited between games, after game {index} of the match "
                                  "ended (exit code 1)",
                                  "exited before its first answer of the game, after game "
                                  f"{index} of the match ended (exit code 1)")), detail
        assert "crash in on_game_end" in detail
    assert outcome.bots[0]["restarts"] == 2


def test_forked_daemons_do_not_outlive_the_match() -> None:
    outcome, launcher = play(FIXTURES / "forker.py", games=1)
    assert failure_types(outcome) == [[]]
    assert outcome.bots[0]["exit"] is not None


def test_ignoring_sigterm_and_bye_gets_the_bot_killed() -> None:
    # A second of grace: the honest bot's interpreter must get to exit 0 even when slow.
    outcome, _ = play(FIXTURES / "sigterm", games=1, limits=LIMITS.replace(bye_grace_ms=1000))
    assert failure_types(outcome) == [[]]
    assert outcome.bots[0]["exit"] == "still running 1000 ms after 'bye'; killed"
    assert outcome.bots[1]["exit"] == "exit code 0"


def test_writing_outside_its_directory_is_blocked(tmp_path: Path) -> None:
    """The repository and the bot's own files are out of reach; what the bot may write
    (its private /tmp, or a private root with bubblewrap) never reaches the host."""
    target = ROOT / "results" / f"escape-{os.getpid()}.txt"
    bot = tmp_path / "writer.py"
    bot.write_text((FIXTURES / "writer.py").read_text().replace("__REPO_TARGET__",
                                                                  str(target)))
    host_tmp = Path("/tmp/palaestra-escape.txt")
    host_tmp.unlink(missing_ok=True)
    try:
        outcome, _ = play(bot, games=1)
        assert failure_types(outcome) == [[]]
        log = log_of(outcome)
        assert f"WRITE {target}: blocked" in log
        assert "WRITE palaestra-own-dir.txt: blocked" in log
        assert not target.exists()
        assert not host_tmp.exists()
        assert not Path("/palaestra-escape.txt").exists()
    finally:
        target.unlink(missing_ok=True)


@pytest.mark.skipif(probe().layers.get("bwrap") is not True,
                    reason="no network namespace without bubblewrap")
def test_network_connections_are_blocked(tmp_path: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)  # a connection that got through would wait in the backlog
    bot = tmp_path / "networker.py"
    port = server.getsockname()[1]
    bot.write_text((FIXTURES / "networker.py").read_text().replace("__PORT__", str(port)))
    try:
        outcome, _ = play(bot, games=1)
        assert failure_types(outcome) == [[]]
        assert "CONNECT: blocked" in log_of(outcome)
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()


def test_reading_another_bots_files_is_blocked(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    secret = other / "secret_bot.py"
    shutil.copy(ROOT / "bots" / "greedy.py", secret)
    os.chmod(other, 0o700)  # how a submitted bot's files are kept: readable by the arena only
    bot = tmp_path / "reader.py"
    bot.write_text((FIXTURES / "reader.py").read_text().replace("__OTHER_BOT__", str(secret)))
    outcome, _ = play(bot, games=1)
    assert failure_types(outcome) == [[]]
    log = log_of(outcome)
    assert "OTHER blocked" in log
    assert "readable files 0" in log
