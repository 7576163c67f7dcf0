"""BotClient rules with scripted bots: handshake, strikes, safe defaults, forfeits, time bank."""

from __future__ import annotations

from collections.abc import Callable
from time import monotonic
from typing import Any

import pytest
from referee_fakes import FAST, FakeConnection, FakeLauncher, Response

from arena.engine import GameConfig, new_game
from arena.protocol import messages
from arena.protocol.transport import Closed, MockTransport, Overflow, Timeout
from arena.referee import handshake as handshake_module
from arena.referee.client import MAX_FAILED_STARTS, BotClient
from arena.referee.connection import Received
from arena.referee.hints import (
    BAD_JSON_HINT,
    NO_READY_HINT,
    NOT_JSON_HINT,
    SPLIT_JSON_HINT,
    stack_dump_ended,
    stdout_note,
    stuck_note,
)
from arena.referee.launch import TransportConnection
from arena.sandbox import Limits

START = messages.game_start(0, 0, ["a", "b"], 0, 5)
END = messages.game_end(0, [1, 2], ["Pair", "Pair"], False, "none")
#: A real observation, as the referee sends it (every message is checked against its schema).
OBSERVATION = new_game(GameConfig(players=("a", "b"), seed=1, starting_seat=0)).observe(
    0, events=False).to_json(include_events=False)
LEGAL = [{"action": "hold"}, {"action": "play", "card": "God-1"}, {"action": "trap",
                                                                   "card": "God-1"}]


def make(conn: FakeConnection | None = None, limits: Limits = FAST,
         now: Callable[[], float] = monotonic, **kw: Any) -> tuple[BotClient, FakeLauncher]:
    launcher = FakeLauncher(lambda: conn if conn is not None else FakeConnection(), **kw)
    return BotClient(["fake"], ".", limits, name="fakebot", key="fakebot@0",
                     metadata={"author": "registry"}, launcher=launcher, now=now), launcher


def started(conn: FakeConnection, limits: Limits = FAST,
            now: Callable[[], float] = monotonic) -> BotClient:
    client, _ = make(conn, limits, now)
    assert client.start() is None
    assert client.begin_game(START) is None
    return client


def act(client: BotClient) -> Any:
    return client.act("turn", OBSERVATION, LEGAL, {"round": 1})


def in_first_game(launch: Callable[[int], FakeConnection]
                  ) -> tuple[BotClient, list[FakeConnection]]:
    """A client started and in its first game, each of whose processes (restarts included)
    is ``launch(n)``, ``n`` the number launched before it; the processes launched."""
    launcher = FakeLauncher(lambda: launch(len(launcher.made)))
    client = BotClient(["fake"], ".", FAST, launcher=launcher)
    assert client.start() is None
    assert client.begin_game(START) is None
    return client, launcher.made


def answering(*choices: int) -> Callable[[dict[str, Any]], Any]:
    """A process's answers: ``choices`` in turn, then a crash."""
    answers = iter(choices)
    return lambda message: next(answers, "crash")


def test_handshake_merges_ready_metadata_over_registered() -> None:
    conn = FakeConnection(ready=b'{"type":"ready","name":"Fancy","author":"Ann",'
                                b'"last_read_page":"2026-11-01"}\n')
    client, _ = make(conn)
    assert client.start() is None
    assert client.name == "fakebot" and client.ready_name == "Fancy"
    assert client.metadata == {"author": "Ann", "last_read_page": "2026-11-01"}
    hello = conn.sent[0]
    assert hello["type"] == "hello" and hello["protocol"] == 1
    assert hello["limits"] == {"decision_ms": 200, "time_bank_ms": 0, "startup_ms": 500,
                               "max_strikes": 3, "bye_grace_ms": 100, "line_bytes": 1_000_000}
    assert hello["options"] == {}


def test_hello_carries_the_entry_options_at_every_start() -> None:
    launcher = FakeLauncher(FakeConnection)
    client = BotClient(("bot",), ".", FAST, name="fakebot", launcher=launcher,
                       options={"iterations": 250, "mode": "fast"})
    assert client.start() is None
    client.close()
    assert client.start() is None  # a restarted bot is told again
    hellos = [m for conn in launcher.made for m in conn.sent if m["type"] == "hello"]
    assert [h["options"] for h in hellos] == [{"iterations": 250, "mode": "fast"}] * 2


@pytest.mark.parametrize(("ready", "detail"), [
    (None, "no 'ready' within 500 ms" + NO_READY_HINT),
    (b"loading my bot v1...\n", "bad answer to 'hello': not JSON: 'loading my bot v1...' "
                               "(stdout carries protocol lines only: print logs to stderr)"),
    (b'{"type":"ready"}\n', "bad answer to 'hello': 'ready' needs a non-empty string 'name'"),
    (b'{"type":"action","id":0,"choice":0}\n', "bad answer to 'hello': expected 'ready'"),
    (b'{"type":"Ready","name":"x"}\n', "no 'ready' within 500 ms; it wrote a line of type "
     "'Ready', which the referee ignores as a later protocol version's: the answer is a 'ready' "
     "line"),
])
def test_startup_failures(ready: bytes | None, detail: str) -> None:
    conn = FakeConnection(ready=ready)
    client, _ = make(conn)
    failure = client.start()
    assert failure is not None and failure.type == "startup_failure"
    assert failure.detail.startswith(detail)
    assert conn.killed and not client.alive


def test_a_ready_without_its_newline_is_named_at_the_start_up_timeout() -> None:
    """As at a decision's timeout: the commonest slip of a bot in C or JavaScript."""
    client, _ = make(FakeConnection(ready=None, unended=27))
    failure = client.start()
    assert failure is not None and failure.detail == (
        "no 'ready' within 500 ms; 27 bytes arrived without a newline (end each line with \\n "
        "and flush stdout)")


def test_a_silent_start_says_where_a_slower_start_up_is_allowed() -> None:
    """The failure names the flag of check-bot, submit and match and the spec's setting that
    raise the start-up time, rather than a setting found nowhere."""
    client, _ = make(FakeConnection(ready=None))
    failure = client.start()
    assert failure is not None and failure.detail.endswith(
        "a slower start-up needs --startup-ms (arena check-bot, submit, match) or a tournament "
        "spec's limits: {startup_ms: ...})")


def test_launch_error_is_a_startup_failure() -> None:
    client, _ = make(fail=True)
    failure = client.start()
    assert failure is not None and failure.type == "startup_failure"
    assert failure.detail == "could not launch fake: no such interpreter"


def test_answer_is_applied_and_timed() -> None:
    client = started(FakeConnection(respond=lambda m: 2))
    result = act(client)
    assert (result.choice, result.failure, result.forfeit) == (2, None, False)
    assert client.diagnostics.decisions == 1 and len(client.diagnostics.latencies) == 1


DUMP = ('Current thread 0x00007f0c3a1b2740 (most recent call first):\n'
        '  File "/bot/helpers.py", line 6 in think\n'
        '  File "/bot/bot.py", line 11 in act\n'
        '  File "/usr/lib/arena/sdk/serving.py", line 40 in serve\n'
        '  File "<frozen runpy>", line 198 in _run_module_as_main\n')


def test_a_timeout_names_where_a_bot_that_offers_its_stack_was_stuck() -> None:
    conn = FakeConnection(respond=lambda m: None, stack=DUMP,
                          ready=b'{"type":"ready","name":"k","stack_dump":true}\n')
    result = act(started(conn))
    assert result.failure is not None
    assert result.failure.detail == "no answer within 200 ms (at helpers.py line 6, in think)"
    assert conn.stack_dumps == 1


def test_a_dump_is_read_in_the_thread_answering_the_referee() -> None:
    """A bot's own thread comes first in a dump; the kit's loop says which thread answers.
    Without bubblewrap the bot's copy lies in the sandbox's box, not at /bot."""
    helper = ('Thread 0x00007f0c39000640 (most recent call first):\n'
              '  File "/tmp/arena-box-1-x/bot/pool.py", line 3 in work\n'
              '  File "/usr/lib/python3.11/threading.py", line 975 in run\n')
    main = DUMP.replace("Current thread", "Thread").replace('"/bot/', '"/tmp/arena-box-1-x/bot/')
    assert stuck_note(helper + main) == " (at helpers.py line 6, in think)"
    assert stuck_note(helper) == " (at pool.py line 3, in work)"
    assert stuck_note('Current thread 0x1 (most recent call first):\n'
                      '  File "/usr/lib/python3.11/json/decoder.py", line 9 in decode\n') == ""
    assert stuck_note("Traceback (most recent call last):\n") == ""
    assert stack_dump_ended(DUMP) and not stack_dump_ended(helper)


def test_no_bot_is_sent_a_signal_it_did_not_ask_for() -> None:
    conn = FakeConnection(respond=lambda m: None, stack=DUMP)  # no stack_dump in its ready
    result = act(started(conn))
    assert result.failure is not None and result.failure.detail == "no answer within 200 ms"
    assert conn.stack_dumps == 0
    answered = FakeConnection(stack=DUMP, ready=b'{"type":"ready","name":"k","stack_dump":true}\n')
    assert act(started(answered)).failure is None
    assert answered.stack_dumps == 0, "an answer in time costs no signal"


def test_act_message_shape() -> None:
    conn = FakeConnection()
    client = started(conn)
    act(client)
    message = conn.acts()[0]
    assert message == {"type": "act", "id": 0, "decision": "turn",
                       "observation": OBSERVATION, "legal": LEGAL, "time_ms": 200,
                       "context": {"round": 1}}


@pytest.mark.parametrize(("response", "kind", "detail"), [
    (None, "timeout", "no answer within 200 ms"),
    (3, "illegal_choice", "choice 3 is outside the 3 legal options (valid: 0-2)"),
    (-1, "illegal_choice", "choice -1 is outside the 3 legal options (valid: 0-2)"),
    (b"%%% garbage %%%", "protocol_error", "not JSON: '%%% garbage %%%'" + NOT_JSON_HINT),
    (b"{", "protocol_error", "not JSON: '{'" + SPLIT_JSON_HINT),  # json.dumps(indent=1)
    (b'  "choice": 0,', "protocol_error", """not JSON: '  "choice": 0,'""" + SPLIT_JSON_HINT),
    (b"{'type':'action','id':0,'choice':1}", "protocol_error",  # a whole line, not a piece
     """not JSON: "{'type':'action','id':0,'choice':1}""" + '"' + BAD_JSON_HINT),
    (b'{"type":"action","id":0,"choice":1,}', "protocol_error",
     """not JSON: '{"type":"action","id":0,"choice":1,}'""" + BAD_JSON_HINT),
    (b'{"type":"action","id":0}', "protocol_error",
     "'action' needs an integer 'choice', got none"),
    (b'{"type":"action","choice":1}', "protocol_error",
     "'action' needs an integer 'id', got none"),
    (b'{"type":"action","id":77,"choice":1}', "protocol_error",
     "'action' answers id 77, expected 0"),
    (b'{"type":"ready","name":"x"}', "protocol_error", "expected 'action', got 'ready'"),
])
def test_strike_plays_the_safe_default(response: Any, kind: str, detail: str) -> None:
    conn = FakeConnection(respond=lambda m: response)
    client = started(conn)
    result = act(client)
    assert result.choice == 0 and not result.forfeit
    assert result.failure is not None
    assert (result.failure.type, result.failure.detail) == (kind, detail)
    assert client.strikes == 1 and client.alive
    assert client.diagnostics.failures[kind] == 1


def test_a_timeout_names_the_line_of_unknown_type_the_bot_wrote_instead() -> None:
    """Unknown types are ignored (later protocol versions); a bot whose answer misspells
    'action' would otherwise see a bare timeout and no word of the line it wrote."""
    conn = FakeConnection(respond=lambda m: b'{"type":"answer","id":%d,"choice":1}' % m["id"])
    result = act(started(conn))
    assert result.failure is not None and result.failure.type == "timeout"
    assert result.failure.detail == (
        "no answer within 200 ms; it wrote a line of type 'answer', which the referee ignores "
        "as a later protocol version's: the answer is an 'action' line")
    silent = act(started(FakeConnection(respond=lambda m: None))).failure
    assert silent is not None and silent.detail == "no answer within 200 ms"


def test_a_null_choice_quotes_the_kits_note_on_what_act_returned() -> None:
    """The kit sends a null choice for an act() result that is no index and says why in the
    log: the strike is told in its words (a student would otherwise look for a None, or for
    an 'action' line they never wrote)."""
    note = ("act() (my_bot.py line 9) returned '1' (str), not an int index into "
            "request.legal: return an int from 0 to 1; sent as no choice (a strike)")

    def respond(message: dict[str, Any]) -> Any:
        conn.log += f"thinking\n[runner] {note}\n"
        return b'{"type":"action","id":%d,"choice":null}' % message["id"]

    conn = FakeConnection(respond=respond)
    client = started(conn)
    result = act(client)
    # in the kit's words: the author wrote no 'action' line to look for
    assert result.failure is not None and result.failure.detail == note
    conn.log += "something else\n"  # a raw bot's unrelated log line is not quoted
    conn.respond = lambda m: b'{"type":"action","id":%d,"choice":null}' % m["id"]
    assert act(client).failure.detail == "'action' needs an integer 'choice', got null"


def test_stale_id_is_a_protocol_error() -> None:
    """A bot that answers every line (an event, game_start) with its last action sends an id
    it answered before: the strike says so, not only which id was expected."""
    answers = iter([0, "stale", 1])

    def respond(message: dict[str, Any]) -> Any:
        answer = next(answers)
        if answer == "stale":
            return b'{"type":"action","id":%d,"choice":1}' % (message["id"] - 1)
        return answer

    client = started(FakeConnection(respond=respond))
    assert act(client).failure is None
    result = act(client)
    assert result.failure is not None and result.failure.type == "protocol_error"
    assert result.failure.detail == (
        "'action' answers id 0, expected 1 (act 0 is past: answer each 'act' "
        "once, and nothing else; 'game_start', 'event' and 'game_end' take no answer)")
    assert act(client).choice == 1


def test_late_answer_to_a_timed_out_act_is_dropped_not_punished_twice() -> None:
    late: list[int] = []

    def respond(message: dict[str, Any]) -> Any:
        if not late:
            late.append(message["id"])
            return None  # times out
        return b'{"type":"action","id":%d,"choice":0}\n{"type":"action","id":%d,"choice":2}' % (
            late[0], message["id"])

    client = started(FakeConnection(respond=respond))
    first = act(client)
    assert first.failure is not None and first.failure.type == "timeout"
    second = act(client)
    assert (second.choice, second.failure) == (2, None)
    assert client.strikes == 1


def test_a_late_answer_is_dropped_once_and_struck_when_sent_again() -> None:
    """A late answer is forgiven once (PROTOCOL.md): the same late line sent a second time
    is a stale id, struck, so a bot that repeats an old answer cannot stall its strikes."""
    late: list[int] = []

    def respond(message: dict[str, Any]) -> Any:
        if not late:
            late.append(message["id"])
            return None  # times out
        old = b'{"type":"action","id":%d,"choice":0}\n' % late[0]
        return old + old + b'{"type":"action","id":%d,"choice":2}' % message["id"]

    client = started(FakeConnection(respond=respond))
    assert act(client).failure is not None
    second = act(client)
    assert second.failure is not None and second.failure.type == "protocol_error"
    assert second.failure.detail.startswith("'action' answers id 0, expected 1")
    assert (second.choice, client.strikes) == (0, 2)


def test_messages_of_unknown_types_are_ignored() -> None:
    """Both sides ignore unknown message types (PROTOCOL.md): a later version's message
    before an answer, or before 'ready', is skipped, not a strike."""
    note = b'{"type":"note","text":"thinking"}'
    conn = FakeConnection(respond=lambda m: note + b'\n{"type":"action","id":%d,"choice":2}'
                          % m["id"], ready=None)
    conn.on_message = lambda m: conn.queue.extend(
        [Received("line", note), Received("line", b'{"type":"ready","name":"talker"}')]
    ) if m["type"] == "hello" else None
    client = started(conn)
    assert client.ready_name == "talker"
    results = [act(client) for _ in range(3)]
    assert [(r.choice, r.failure) for r in results] == [(2, None)] * 3
    assert client.strikes == 0


def test_a_flood_of_ignored_lines_does_not_stop_the_clock() -> None:
    """Lines the referee skips (unknown types, answers struck already) arrive faster than it
    reads them: past the deadline the act is a timeout, the rest of the flood unread. Each
    read consults the fake clock once (1 ms), so a read loop on another clock (not the one
    the client is handed) reads far fewer or far more lines than the limit's milliseconds."""
    clock = iter(range(10**9))

    def now() -> float:  # 1 ms a call
        return next(clock) / 1000

    flood = b"\n".join([b'{"type":"note"}'] * 5000)
    conn = FakeConnection(respond=lambda m: flood, ready=None)
    conn.on_message = lambda m: conn.queue.extend(
        [Received("line", b'{"type":"note"}')] * 5000
        + [Received("line", b'{"type":"ready","name":"flood"}')]) if m["type"] == "hello" \
        else None
    client, _ = make(conn, now=now)
    failure = client.start()  # the start-up clock (500 ms) runs out in the flood
    assert failure is not None and failure.detail.startswith(
        "no 'ready' within 500 ms; it wrote a line of type 'note', which the referee ignores")
    read = 5001 - len(conn.queue)
    assert FAST.startup_ms - 5 <= read <= FAST.startup_ms
    conn = FakeConnection(respond=lambda m: flood)
    client = started(conn, now=now)
    result = act(client)
    assert result.failure is not None and result.failure.type == "timeout"
    # it read until the deadline, and stopped there
    read = 5000 - len(conn.queue)
    assert FAST.decision_ms - 5 <= read <= FAST.decision_ms


def test_a_stray_line_before_the_answer_costs_one_strike_not_two() -> None:
    """A debug print on stdout is a protocol error; the real answer behind it is late, and
    dropped like a late answer after a timeout."""

    def respond(message: dict[str, Any]) -> Any:
        if message["id"] == 0:
            return b'debug: thinking\n{"type":"action","id":0,"choice":1}'
        return 2

    client = started(FakeConnection(respond=respond))
    first = act(client)
    assert first.failure is not None and first.failure.type == "protocol_error"
    assert first.failure.detail == "not JSON: 'debug: thinking'" + NOT_JSON_HINT
    second = act(client)
    assert (second.choice, second.failure) == (2, None)
    assert client.strikes == 1


def test_a_stray_action_with_a_past_id_costs_one_strike_not_two() -> None:
    """An 'action' with a past id (a bot that answered an event with its last action) before
    the real answer is a stray line like a debug print: one strike, the answer behind it
    dropped as late, not struck again at the next act."""

    def respond(message: dict[str, Any]) -> Any:
        if message["id"] == 1:
            return b'{"type":"action","id":0,"choice":1}\n{"type":"action","id":1,"choice":1}'
        return 2

    client = started(FakeConnection(respond=respond))
    assert act(client).failure is None
    second = act(client)
    assert second.failure is not None and second.failure.type == "protocol_error"
    third = act(client)
    assert (third.choice, third.failure) == (2, None)
    assert client.strikes == 1


def test_a_bot_answering_with_the_previous_id_is_told_so_at_its_timeouts() -> None:
    """Its answer to the act before, late behind a stray line, is dropped: the act then
    times out, and the timeout says what came instead of the answer."""
    client = started(FakeConnection(respond=lambda m: b'{"type":"action","id":%d,"choice":0}'
                                    % max(m["id"] - 1, 0)))
    results = [act(client) for _ in range(3)]
    assert [r.failure.type if r.failure else None for r in results] == [
        None, "protocol_error", "timeout"]
    timeout = results[2].failure
    assert timeout is not None and timeout.detail == (
        "no answer within 200 ms; it wrote an answer to act 1, past and struck already, so "
        "dropped (still busy with act 1 when this one was asked? else, does each 'action' "
        "carry the id of the 'act' it answers?)")


def test_strikes_past_the_limit_forfeit_and_stop_the_process() -> None:
    conn = FakeConnection(respond=lambda m: 99)
    client = started(conn, FAST.replace(max_strikes=2))
    results = [act(client) for _ in range(3)]
    assert [r.forfeit for r in results] == [False, False, True]
    assert client.forfeited == "illegal_choice" and conn.killed and not client.alive
    after = act(client)
    assert (after.choice, after.forfeit, after.failure) == (0, True, None)
    assert client.diagnostics.forfeits == 1 and client.diagnostics.strikes == 3


def test_zero_strikes_allowed_forfeits_at_the_first() -> None:
    client = started(FakeConnection(respond=lambda m: None), FAST.replace(max_strikes=0))
    assert act(client).forfeit


@pytest.mark.parametrize(("response", "kind", "detail"), [
    ("crash", "crash", "exited mid-game (exit code 1); last log line: Traceback: boom"),
    # the limit named: its author cannot see it from the bot
    ("oom", "memory_limit", f"ran out of memory (exit code -9); its memory limit: "
                            f"{FAST.memory_mb} MiB (memory_mb; --memory-mb of arena "
                            "check-bot, submit, match)"),
    ("overflow", "output_limit", "wrote a line longer than 1000000 bytes"),
])
def test_fatal_failures_forfeit_at_once(response: str, kind: str, detail: str) -> None:
    answers = iter([0])
    conn = FakeConnection(respond=lambda m: next(answers, response))
    client = started(conn)
    assert act(client).failure is None
    result = act(client)
    assert result.forfeit and result.choice == 0
    assert result.failure is not None
    assert (result.failure.type, result.failure.detail) == (kind, detail)
    assert not client.alive and client.forfeited == kind


@pytest.mark.parametrize(("log", "quote"), [
    ("undefined:1\n{bad\n^\nSyntaxError: Unexpected token b in JSON at position 1\n"
     "    at JSON.parse (<anonymous>)\n    at Socket.<anonymous> (/bot/bot.js:5:20)\n\n"
     "Node.js v20.20.2\n",
     "last error in its log: SyntaxError: Unexpected token b in JSON at position 1"),
    ("thread 'main' panicked at src/main.rs:9:5:\nindex out of bounds\n"
     "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
     "last error in its log: thread 'main' panicked at src/main.rs:9:5: index out of bounds"),
    ("Traceback (most recent call last):\n  File \"bot.py\", line 3\nKeyError: 'hand'\n",
     "last log line: KeyError: 'hand'"),
    ("thinking...\nbye now\n", "last log line: bye now"),
])
def test_a_crash_quotes_the_error_line_of_the_log(log: str, quote: str) -> None:
    """Runtimes that print after the error (Node its version, Rust a note) are quoted at the
    error, not at their closing remark."""
    answers = iter([0])

    def crash(message: dict[str, Any]) -> Response:
        if next(answers, None) is not None:
            return 0
        conn.log = log
        conn._exit(1)
        return b""

    conn = FakeConnection(respond=crash)
    client = started(conn)
    assert act(client).failure is None
    result = act(client)
    assert result.failure is not None
    assert result.failure.detail == f"exited mid-game (exit code 1); {quote}"


def test_restart_after_forfeit_for_the_next_game() -> None:
    client, made = in_first_game(lambda n: FakeConnection(
        respond=answering(2) if n == 0 else lambda m: 1))
    assert act(client).choice == 2
    assert act(client).forfeit
    client.end_game(END)
    assert client.begin_game(START) is None
    assert len(made) == 2 and client.diagnostics.restarts == 1
    assert act(client).choice == 1 and client.forfeited is None


def test_death_before_the_first_answer_of_a_game_restarts_and_asks_again() -> None:
    """Whether a bot that died after a game ended (in on_game_end) is found dead at the next
    game_start or only at that game's first act is a race; either way it is a crash between
    games, without forfeit: restarted, sent the game's start and events again, asked again."""
    client, made = in_first_game(lambda n: FakeConnection(
        respond=(lambda m: "crash") if n == 0 else lambda m: 1))
    events = messages.event({"type": "turn_start", "seat": 0, "round": 1, "turn": 1})
    result = client.act("turn", OBSERVATION, LEGAL, {"round": 1}, events)
    assert (result.choice, result.failure, result.forfeit) == (1, None, False)
    assert client.forfeited is None and len(made) == 2
    assert [(f.type, f.detail) for f in client.pending] == [
        ("crash", "exited before its first answer of the game (exit code 1); restarted and "
                  "asked again; last log line: Traceback: boom")]
    assert client.pending[0].decision == 0
    assert [m["type"] for m in made[1].sent] == ["hello", "game_start", "event", "act"]
    assert made[1].sent[1] == made[0].sent[1]  # the same game_start
    assert client.diagnostics.failures == {"crash": 1} and client.diagnostics.forfeits == 0


def test_death_before_the_first_answer_after_a_game_ended_names_that_game() -> None:
    """game_end has no answer, so a death in its handling shows only at the next game: the
    failure, filed with that game, names the game whose end came before it."""
    client, made = in_first_game(lambda n: FakeConnection(respond=answering(1)))
    assert act(client).choice == 1
    client.end_game(END, 0)
    client.begin_game(messages.game_start(1, 0, ["a", "b"], 0, 5))
    assert act(client).choice == 1 and len(made) == 2
    assert [f.detail for f in client.pending] == [
        "exited before its first answer of the game, after game 0 of the match ended "
        "(exit code 1); restarted and asked again; last log line: Traceback: boom"]


def test_a_death_seen_at_game_start_names_the_game_that_ended_before() -> None:
    client, made = in_first_game(lambda n: FakeConnection(respond=lambda m: 1))
    assert act(client).choice == 1
    client.end_game(END, 4)
    made[0]._exit(3)
    assert client.begin_game(messages.game_start(5, 0, ["a", "b"], 0, 5)) is None
    assert [f.detail for f in client.pending] == [
        "exited between games, after game 4 of the match ended (exit code 3)"]


def test_a_fresh_process_names_no_game_it_was_not_sent_the_end_of() -> None:
    """After a forfeit the next game's process is new: it never handled the last game_end."""
    client, made = in_first_game(lambda n: FakeConnection(respond=lambda m: "crash"))
    assert act(client).forfeit
    client.end_game(END, 0)
    client.pending.clear()
    client.begin_game(messages.game_start(1, 0, ["a", "b"], 0, 5))
    act(client)
    assert [f.detail.split(";")[0] for f in client.pending] == [
        "exited before its first answer of the game (exit code 1)"]


def test_death_again_before_the_first_answer_forfeits() -> None:
    launcher = FakeLauncher(lambda: FakeConnection(respond=lambda m: "crash"))
    client = BotClient(["fake"], ".", FAST, launcher=launcher)
    assert client.start() is None
    client.begin_game(START)
    result = act(client)
    assert result.forfeit and result.failure is not None
    assert result.failure.detail.startswith("exited mid-game (exit code 1)")
    assert [f.detail.split(";")[0] for f in client.pending] == [
        "exited before its first answer of the game (exit code 1)"]
    assert len(launcher.made) == 2 and client.diagnostics.failures == {"crash": 2}
    assert client.diagnostics.forfeits == 1


def test_a_bot_that_stops_reading_mid_game_forfeits_it() -> None:
    """The act cannot even be written: the bot closed its input after an answer."""
    conn = FakeConnection()
    client = started(conn)
    assert act(client).failure is None
    conn._exit(3)
    result = act(client)
    assert result.forfeit and result.failure is not None
    assert (result.failure.type, result.failure.detail) == (
        "crash", "stopped reading its input (exit code 3)")
    assert client.forfeited == "crash" and client.diagnostics.failures == {"crash": 1}


def test_a_bot_that_stops_reading_before_its_first_answer_is_asked_again() -> None:
    client, made = in_first_game(lambda n: FakeConnection(respond=lambda m: 2))
    made[0]._exit(3)
    result = act(client)
    assert (result.choice, result.failure, result.forfeit) == (2, None, False)
    assert [(f.type, f.detail) for f in client.pending] == [
        ("crash", "exited before its first answer of the game (exit code 3); restarted and "
                  "asked again")]
    assert [m["type"] for m in made[1].sent] == ["hello", "game_start", "act"]


def test_a_failed_restart_before_the_first_answer_forfeits_as_a_startup_failure() -> None:
    client, _ = in_first_game(lambda n: FakeConnection(
        respond=lambda m: "crash", ready=None if n else FakeConnection.ready))
    result = act(client)
    assert result.forfeit and result.failure is not None
    assert result.failure.type == "startup_failure" and client.forfeited == "startup_failure"
    assert [f.type for f in client.pending] == ["crash"]


def test_death_after_an_answer_is_not_asked_again() -> None:
    answers = iter([0])
    launcher = FakeLauncher(lambda: FakeConnection(respond=lambda m: next(answers, "crash")))
    client = BotClient(["fake"], ".", FAST, launcher=launcher)
    assert client.start() is None
    client.begin_game(START)
    assert act(client).failure is None
    assert act(client).forfeit
    assert len(launcher.made) == 1 and client.pending == []


def test_death_between_games_is_a_crash_without_forfeit() -> None:
    made: list[FakeConnection] = []

    def factory() -> FakeConnection:
        made.append(FakeConnection())
        return made[-1]

    client = BotClient(["fake"], ".", FAST, launcher=FakeLauncher(factory))
    client.start()
    made[0]._exit(3)
    assert client.begin_game(START) is None
    assert [f.type for f in client.pending] == ["crash"]
    assert client.pending[0].detail == "exited between games (exit code 3)"
    assert client.forfeited is None and len(made) == 2


def test_gives_up_after_repeated_startup_failures() -> None:
    client, launcher = make(FakeConnection(ready=None))
    for _ in range(MAX_FAILED_STARTS + 2):
        client.begin_game(START)
        assert client.forfeited == "startup_failure"
    assert len(launcher.made) == MAX_FAILED_STARTS


def test_only_failed_starts_in_a_row_give_the_bot_up() -> None:
    """Two failed starts, a good one that crashes mid-game, then a failed start again: not
    three in a row, so the bot is started again for the next game."""
    processes = [FakeConnection(ready=None), FakeConnection(ready=None),
                 FakeConnection(respond=answering(0)), FakeConnection(ready=None),
                 FakeConnection()]
    client = BotClient(["fake"], ".", FAST, launcher=FakeLauncher(processes))
    for _ in range(2):
        assert client.begin_game(START) is not None
    assert client.begin_game(START) is None and act(client).failure is None
    assert act(client).forfeit
    assert client.begin_game(START) is not None
    assert client.begin_game(START) is None
    assert act(client).failure is None


def test_time_bank_pays_for_overruns() -> None:
    clock = [100.0]

    def slow(message: dict[str, Any]) -> Any:
        clock[0] += 0.5  # each answer takes 500 ms against a 200 ms limit
        return 0

    conn = FakeConnection(respond=slow)
    client = started(conn, FAST.replace(time_bank_ms=1000), now=lambda: clock[0])
    budgets = []
    for _ in range(3):
        result = act(client)
        budgets.append(conn.acts()[-1]["time_ms"])
        assert result.failure is None
    # 1200 ms, then 1200 - 300 = 900, then 600: the bank pays 300 ms per answer.
    assert budgets == [1200, 900, 600]
    client.begin_game(START)
    act(client)
    assert conn.acts()[-1]["time_ms"] == 1200  # a new game refills the bank
    conn.respond = lambda m: None  # no answer: the whole budget waited, then the bank is gone
    assert act(client).failure.detail == "no answer within 900 ms (200 ms + 700 ms of time bank)"
    assert act(client).failure.detail == ("no answer within 200 ms (its time bank for the game "
                                          "is used up)")


def test_close_says_bye_then_stops() -> None:
    conn = FakeConnection()
    client = started(conn)
    ended = client.close()
    assert conn.sent[-1] == {"type": "bye"}
    assert ended is not None and ended.voluntary and ended.exit_code == 0
    stubborn = FakeConnection(exit_on_bye=False)
    ended = started(stubborn).close()
    assert ended is not None and not ended.voluntary and stubborn.killed


# ------------------------------------------------------------------ the same rules on MockTransport
def mock_client(script: Any, limits: Limits = FAST) -> BotClient:
    def launcher(command: Any, workdir: Any, lim: Any) -> TransportConnection:
        return TransportConnection(MockTransport(script), level="mock")

    client = BotClient(["mock"], ".", limits, launcher=launcher)
    assert client.start() is None
    client.begin_game(START)
    return client


def script(answer: Any) -> Any:
    def respond(message: dict[str, Any]) -> Any:
        if message["type"] == "hello":
            return {"type": "ready", "name": "mock"}
        if message["type"] == "act":
            return answer(message)
        return None
    return respond


@pytest.mark.parametrize(("answer", "kind"), [
    (lambda m: {"type": "action", "id": m["id"], "choice": 1}, None),
    (lambda m: {"type": "action", "id": m["id"] + 5, "choice": 1}, "protocol_error"),
    (lambda m: {"type": "action", "id": m["id"], "choice": 3}, "illegal_choice"),
    (lambda m: "not json at all", "protocol_error"),
    (lambda m: {"type": "action", "id": m["id"]}, "protocol_error"),
    (lambda m: Timeout(), "timeout"),
    (lambda m: None, "timeout"),
    (lambda m: Overflow(1_000_000), "output_limit"),
    (lambda m: Closed(), "crash"),
])
def test_rules_hold_on_mock_transport(answer: Any, kind: str | None) -> None:
    client = mock_client(script(answer))
    result = act(client)
    assert (result.failure.type if result.failure else None) == kind
    assert result.choice == (1 if kind is None else 0)


@pytest.mark.parametrize(("reply", "expected"), [
    (b'{"type":"action","id":0,"choice":1}',
     Received("line", b'{"type":"action","id":0,"choice":1}')),
    (Timeout(), Received("timeout")),
    (Overflow(10), Received("overflow", b"line")),
    (Overflow(10, line=False), Received("overflow", b"total")),
    (Closed(), Received("closed")),
])
def test_a_connection_receives_the_reply_line_or_why_there_is_none(reply: Any,
                                                                   expected: Any) -> None:
    """The transport's outcomes, as the client reads them."""
    transport = MockTransport([reply])
    conn = TransportConnection(transport)
    assert conn.send(b'{"type":"bye"}\n')
    assert conn.receive(0.0) == expected
    assert transport.sent == [{"type": "bye"}]


def test_mock_transport_sees_compact_protocol_lines() -> None:
    transport = MockTransport(script(lambda m: {"type": "action", "id": m["id"], "choice": 0}))
    client = BotClient(["mock"], ".", FAST,
                       launcher=lambda c, w, lim: TransportConnection(transport))
    client.start()
    client.begin_game(START)
    client.act("swap", {"hand": []}, [{"swap": None}], None,
               b'{"type":"event","event":{"type":"draw","seat":0}}\n')
    client.close()
    assert [m["type"] for m in transport.sent] == ["hello", "game_start", "event", "act", "bye"]


def test_a_long_wait_is_told_once_with_what_is_awaited_and_its_limit() -> None:
    silent, _ = make(FakeConnection(ready=None))
    waits: list[tuple[str, int]] = []
    silent.on_wait = lambda what, limit_ms: waits.append((what, limit_ms))
    silent.wait_notice_s = 0.0  # the fake answers at once: no clock is waited on
    assert silent.start() is not None
    assert waits == [("'hello'", 500)]
    hanging = FakeConnection(respond=lambda message: None)
    client, _ = make(hanging)
    client.on_wait = lambda what, limit_ms: waits.append((what, limit_ms))
    client.wait_notice_s = 0.0
    assert client.start() is None and client.begin_game(START) is None
    act(client)
    assert waits[1:] == [("a 'turn' decision", 200)]


def test_a_prompt_answer_tells_of_no_wait() -> None:
    client, _ = make(FakeConnection())
    waits: list[tuple[str, int]] = []
    client.on_wait = lambda what, limit_ms: waits.append((what, limit_ms))
    client.wait_notice_s = 0.0
    assert client.start() is None and client.begin_game(START) is None
    assert act(client).choice == 0
    assert waits == []


def test_what_a_bad_answer_is_followed_by_is_quoted_bounded() -> None:
    # a long traceback printed to stdout: its end is what names the error; carets and blank
    # lines say nothing, and a long line is cut
    lines = [b"  File \"bot.py\", line %d, in f\n" % i for i in range(40)]
    lines += [b"    x = " + b"y" * 300 + b"\n", b"        ^^^^\n", b"\n", b"ValueError: bad\n"]
    note = stdout_note(lines)
    assert note.startswith("; then on stdout, 42 lines, the last 3: ")
    assert note.endswith(": 'File \"bot.py\", line 39, in f' | 'x = " + "y" * 116
                         + "...' | 'ValueError: bad'")
    assert stdout_note([b"\x1b[2Jnext\n"]) == "; then on stdout: '\\x1b[2Jnext'"
    assert stdout_note([b"  \n", b"^~~\n"]) == ""


class _Flood:
    """A bot's stdout after a bad answer: ``lines`` lines, then nothing more for now."""

    def __init__(self, lines: int) -> None:
        self.left = [b"flood %d\n" % n for n in range(lines)]

    def receive(self, deadline: float) -> Received:
        return Received("line", self.left.pop(0)) if self.left else Received("timeout")


@pytest.mark.parametrize("written, said", [
    (200, "; then on stdout, 200 lines, the last 3: 'flood 197' | 'flood 198' | 'flood 199'"),
    (3000, "; then on stdout, 2000 or more lines, the last 3: 'flood 1997' | 'flood 1998' | "
           "'flood 1999'"),
])
def test_a_bad_answer_s_flood_is_counted_and_its_last_lines_quoted(written: int,
                                                                   said: str) -> None:
    # the lines quoted are the last the referee read, and the count says how many it read
    assert stdout_note(*handshake_module._written(_Flood(written), monotonic)) == said  # type: ignore[arg-type]
