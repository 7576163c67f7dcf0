"""Protocol v1 messages: builders, parsers, validation, and the schemas in docs/PROTOCOL.md."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import DECISION_KINDS, GameConfig, RandomAgent, new_game, play_game
from arena.engine import DECISION_KINDS as ENGINE_KINDS
from arena.errors import IllegalChoiceError, ProtocolError
from arena.protocol import messages
from arena.protocol.schema import SCHEMAS, validate

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
#: A real observation, as the referee sends it.
OBSERVATION = new_game(GameConfig(players=("a", "b"), seed=1, starting_seat=0)).observe(
    0, events=False).to_json(include_events=False)


def valid(line: bytes) -> dict:
    assert line.endswith(b"\n") and line.count(b"\n") == 1, "one message per line"
    message = json.loads(line)
    assert validate(message) == []
    return message


def all_messages() -> list[bytes]:
    return [
        messages.hello({"decision_ms": 1000, "time_bank_ms": 0, "startup_ms": 10_000,
                        "max_strikes": 3, "bye_grace_ms": 1000, "line_bytes": 1_000_000}),
        messages.game_start(0, 1, ["a", "b"], 0, 5),
        messages.event({"type": "draw", "seat": 1}),
        messages.act(7, "turn", OBSERVATION, [{"action": "hold"}], 1500, {"round": 1}),
        messages.game_end(0, [1, 2], ["Pair", "High Hand"], False, "none", {1: "timeout"}),
        messages.bye(),
        messages.ready("greedy", author="me", version="1", last_read_page="2026-11-01",
                       last_book_finished=None),
        messages.action(7, 0),
    ]


def test_every_builder_validates_against_its_schema() -> None:
    types = [valid(line)["type"] for line in all_messages()]
    assert sorted(types) == sorted(messages.REFEREE_TYPES + messages.BOT_TYPES)


def test_hello_always_carries_options() -> None:
    assert valid(messages.hello())["options"] == {}
    options = {"iterations": 250, "ms": 0.5, "mode": "x", "on": True}
    assert valid(messages.hello({"decision_ms": 5}, options=options))["options"] == options


@pytest.mark.parametrize(("message", "error"), [
    ({"type": "act", "id": 1, "decision": "turn", "observation": OBSERVATION, "legal": []},
     "act.legal: fewer than 1 items"),
    ({"type": "act", "id": -1, "decision": "turn", "observation": OBSERVATION, "legal": [{}]},
     "act.id: below 0"),
    ({"type": "act", "id": 1, "decision": "turn", "legal": [{}],
      "observation": {k: v for k, v in OBSERVATION.items() if k != "draw_pile"}},
     "act.observation: missing 'draw_pile'"),
    ({"type": "act", "id": 1, "decision": "turn", "legal": [{}],
      "observation": {**OBSERVATION, "phase": "deal"}},
     "act.observation.phase: expected one of ['play', 'showdown'], got 'deal'"),
    ({"type": "act", "id": 1, "decision": "move", "legal": [{}], "observation": OBSERVATION},
     "act.decision: expected one of ['turn', "),
    ({"type": "act", "id": 1, "decision": "turn", "legal": [{}],
      "observation": {**OBSERVATION, "traps": [{"card": "God-1", "turns_left": 0,
                                                "triggerable": True}]}},
     "act.observation.traps[0].turns_left: below 1"),
    ({"type": "action", "id": 1}, "action: missing 'choice'"),
    ({"type": "action", "id": 1, "choice": True}, "action.choice: expected integer, got bool"),
    ({"type": "hello", "protocol": 2}, "hello.protocol: expected 1, got 2"),
    ({"type": "hello", "protocol": True}, "hello.protocol: expected 1, got True"),
    ({"type": "game_start", "game": 0, "seat": 0, "players": list("abcdef"), "starting_seat": 0,
      "rounds": 5}, "game_start.players: more than 5 items"),
    ({"type": "ready", "name": ""}, "ready.name: shorter than 1"),
    ({"type": "hello", "protocol": 1, "options": {"depth": [2]}},
     "hello.options.depth: expected string or number or boolean, got list"),
    ({"type": "game_end", "game": 0, "placements": [0], "desmos": [], "ascension": False,
      "tiebreak": "none", "forfeits": {"1": 3}}, "game_end.placements[0]: below 1"),
    ({"type": "nope"}, "not a protocol v1 message"),
    ({"type": {}}, "not a protocol v1 message"),
    ({"type": ["act"]}, "not a protocol v1 message"),
    (["act"], "not a protocol v1 message"),
])
def test_the_validator_finds_problems(message: dict, error: str) -> None:
    assert any(problem.startswith(error) for problem in validate(message)), validate(message)


def test_the_schema_knows_every_decision_kind_of_the_engine() -> None:
    assert DECISION_KINDS is ENGINE_KINDS
    assert SCHEMAS["act"]["properties"]["decision"]["enum"] == list(ENGINE_KINDS)


def test_the_schemas_agree_with_a_json_schema_library() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for line in all_messages():
        message = json.loads(line)
        jsonschema.Draft202012Validator(SCHEMAS[message["type"]]).validate(message)
    for schema in SCHEMAS.values():
        jsonschema.Draft202012Validator.check_schema(schema)


def test_act_is_compact_and_round_trips() -> None:
    line = messages.act(3, "swap", {"hand": ["Crown", "Fate-1"]}, ({"swap": None},
                        {"swap": "Crown"}), None, {})
    assert b" " not in line
    assert json.loads(line) == {"type": "act", "id": 3, "decision": "swap",
                                "observation": {"hand": ["Crown", "Fate-1"]},
                                "legal": [{"swap": None}, {"swap": "Crown"}]}


def test_dumps_matches_the_standard_encoder() -> None:
    value = {"a": [1, 2.5, None, True, "é\n\"x\""], "b": {"c": []}, "d": (1, 2)}
    assert messages.dumps(value) == json.dumps(value, separators=(",", ":"),
                                               ensure_ascii=False)
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        messages.dumps({"x": {1}})


def test_events_batch_is_one_line_per_event() -> None:
    data = messages.events([{"type": "draw", "seat": 0}, {"type": "hold", "seat": 1}])
    assert [json.loads(x)["event"]["type"] for x in data.splitlines()] == ["draw", "hold"]
    assert messages.events([]) == b""


def test_game_start_never_carries_the_seed() -> None:
    message = json.loads(messages.game_start(0, 0, ["a", "b"], 1, 5))
    assert "seed" not in message


@pytest.mark.parametrize("line", [
    b'{"type":"action","id":4,"choice":2}',
    b'{"choice": 2, "id": 4, "type": "action", "comment": "extra fields are ignored"}',
    b'  {"type":"action","id":4,"choice":2}\r',
])
def test_parse_action_accepts(line: bytes) -> None:
    assert messages.parse_action(line, 4, 3) == 2


@pytest.mark.parametrize(("line", "error", "message"), [
    (b"garbage", ProtocolError, "not JSON: 'garbage'"),
    (b"[1, 2]", ProtocolError, "not a JSON object"),
    (b'{"id": 4}', ProtocolError, "message without a string 'type'"),
    (b'{"type":"ready","name":"x"}', ProtocolError, "expected 'action', got 'ready'"),
    (b'{"type":"action","choice":1}', ProtocolError,
     "'action' needs an integer 'id', got none"),
    (b'{"type":"action","id":3,"choice":1}', ProtocolError,
     "'action' answers id 3, expected 4"),
    (b'{"type":"action","id":4}', ProtocolError, "'action' needs an integer 'choice', got none"),
    (b'{"type":"action","id":4,"choice":"1"}', ProtocolError,
     "'action' needs an integer 'choice', got \"1\""),
    (b'{"type":"action","id":4,"choice":true}', ProtocolError,
     "'action' needs an integer 'choice', got true"),
    (b'{"type":"action","id":4,"choice":1.0}', ProtocolError,
     "'action' needs an integer 'choice', got 1.0"),
    (b'{"type":"action","id":4,"choice":"\\u001b[2J' + b"x" * 60 + b'"}', ProtocolError,
     "'action' needs an integer 'choice', got \"\\u001b[2J" + "x" * 27 + "..."),
    (b'{"type":"action","id":4,"choice":3}', IllegalChoiceError,
     "choice 3 is outside the 3 legal options (valid: 0-2)"),
    (b'{"type":"action","id":4,"choice":-1}', IllegalChoiceError,
     "choice -1 is outside the 3 legal options (valid: 0-2)"),
    (b'{"type":"action","id":4,"choice":99999999999999999999999}', IllegalChoiceError,
     "outside the 3 legal options (valid: 0-2)"),
    (b'{"type":"action","id":4,"choice":' + b"9" * 5000 + b"}", ProtocolError, "not JSON"),
    (b'\xff\xfe', ProtocolError, "not JSON"),
])
def test_parse_action_rejects(line: bytes, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        messages.parse_action(line, 4, 3)


def test_an_out_of_range_answer_is_told_the_valid_range() -> None:
    with pytest.raises(IllegalChoiceError, match=re.escape(
            "choice 5 is outside the 5 legal options (valid: 0-4)")):
        messages.parse_action(b'{"type":"action","id":1,"choice":5}', 1, 5)
    with pytest.raises(IllegalChoiceError, match=re.escape(
            "choice 1 is outside the 1 legal option (valid: 0)")):
        messages.parse_action(b'{"type":"action","id":1,"choice":1}', 1, 1)


def test_parse_action_judges_every_kit_answer_as_the_json_reading_does() -> None:
    """The kit's exact line, across ids, choices and option counts, is judged as its JSON
    reads."""
    for expected in (0, 4, 44, 12345):
        for id_ in (expected, expected + 1, expected * 10 + 4):
            for choice in (*range(0, 300, 7), 255, 256, 10**6):
                line = b'{"type":"action","id":%d,"choice":%d}' % (id_, choice)
                for n_legal in (1, 3, 256, 257):
                    if id_ != expected:
                        with pytest.raises(ProtocolError, match="answers id"):
                            messages.parse_action(line, expected, n_legal)
                    elif choice >= n_legal:
                        with pytest.raises(IllegalChoiceError):
                            messages.parse_action(line, expected, n_legal)
                    else:
                        assert messages.parse_action(line, expected, n_legal) == choice
    head = b'{"type":"action","id":4,"choice":'
    for bad in (b"02}", b"2}}", b"2"):
        with pytest.raises(ProtocolError, match="not JSON"):
            messages.parse_action(head + bad, 4, 3)
    for other, choice in ((b"2} ", 2), (b"-0}", 0), (b" 1 }", 1)):  # still JSON: the slow path
        assert messages.parse_action(head + other, 4, 3) == choice


def test_action_id_recognises_late_answers_only() -> None:
    assert messages.action_id(b'{"type":"action","id":9,"choice":0}') == 9
    assert messages.action_id(b"nonsense") is None
    assert messages.action_id(b'{"type":"ready","id":9}') is None


def test_json_nested_past_any_recursion_limit_is_a_protocol_error() -> None:
    deep = b"[" * 100_000
    with pytest.raises(ProtocolError, match="^not JSON: "):
        messages.decode(deep)
    with pytest.raises(ProtocolError, match="^not JSON: "):
        messages.parse_action(b'{"type":"action","id":1,"choice":' + deep, 1, 3)
    assert messages.is_unknown_type(deep) is False and messages.action_id(deep) is None


def test_parse_ready_keeps_known_string_metadata_only() -> None:
    name, meta = messages.parse_ready({"type": "ready", "name": " greedy ", "author": "Ann",
                                       "last_read_page": "2026-11-01", "version": 3,
                                       "secret": "x"})
    assert name == "greedy"
    assert meta == {"author": "Ann", "last_read_page": "2026-11-01"}


@pytest.mark.parametrize(("message", "error"), [
    ({"type": "action", "name": "x"}, "expected 'ready', got 'action'"),
    ({"type": "ready"}, "'ready' needs a non-empty string 'name'"),
    ({"type": "ready", "name": "  "}, "'ready' needs a non-empty string 'name'"),
    ({"type": "ready", "name": "x", "protocol": 2}, "bot speaks protocol 2; the arena speaks 1"),
    ({"type": "ready", "name": "x", "protocol": True},
     "bot speaks protocol true; the arena speaks 1"),
    ({"type": "ready", "name": "x", "protocol": "1"},
     "bot speaks protocol \"1\"; the arena speaks 1"),
])
def test_parse_ready_rejects(message: dict, error: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(error)):
        messages.parse_ready(message)


def test_protocol_doc_prints_every_schema_exactly() -> None:
    text = DOC.read_text(encoding="utf-8")
    for kind, schema in SCHEMAS.items():
        pattern = re.compile(rf"<!-- schema:{kind} -->\s*```json\n(.*?)```", re.S)
        found = pattern.search(text)
        assert found, f"docs/PROTOCOL.md has no schema block for {kind!r}"
        assert json.loads(found.group(1)) == schema, f"schema of {kind!r} differs from the doc"



# ---------------------------------------------------------------------------------------------
# the fast encoders (orjson) write exactly what the standard library writes


def _standard(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _standard_act(id: int, decision: str, observation: dict[str, Any], legal: Any,
                  time_ms: int | None, context: dict[str, Any] | None) -> bytes:
    message = {"type": "act", "id": id, "decision": decision, "observation": observation,
               "legal": list(legal)}
    if time_ms is not None:
        message["time_ms"] = time_ms
    if context:
        message["context"] = context
    return _standard(message) + b"\n"


@pytest.fixture(params=["orjson", "standard library"])
def encoder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with orjson (the arena's dependency) and with the fallback a Python without
    it takes."""
    if request.param == "orjson":
        pytest.importorskip("orjson")
    else:
        monkeypatch.setattr(messages, "orjson", None)
    return str(request.param)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_act_and_event_lines_are_the_standard_encoding_over_random_games(
        encoder: str, players: int) -> None:
    for seed in range(3):
        rng = random.Random(seed)
        state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)),
                                    seed=1000 * players + seed))
        cursors = [0] * players
        decisions = 0
        while state.decision is not None:
            decision = state.decision
            seat = decision.seat
            pending = state.events_for(seat, cursors[seat])
            cursors[seat] += len(pending)
            assert messages.events(pending) == b"".join(
                b'{"type":"event","event":' + _standard(e) + b"}\n" for e in pending)
            observation = state.observe(seat).to_json(include_events=False)
            line = messages.act(decisions, decision.kind, observation, decision.options,
                                1500 + decisions, decision.context)
            assert line == _standard_act(decisions, decision.kind, observation,
                                         decision.options, 1500 + decisions, decision.context)
            decisions += 1
            state.apply(rng.randrange(len(decision.options)))
        assert decisions > 20


def test_act_without_time_or_context_and_with_other_sequences(encoder: str) -> None:
    assert messages.act(1, "turn", {}, ({"a": 1},)) == _standard_act(1, "turn", {}, [{"a": 1}],
                                                                     None, None)
    odd = {1: "int key"}  # orjson refuses it: the standard way writes it
    assert messages.act(2, "card", {"k": odd}, [odd], 5, {"why": odd}) == _standard_act(
        2, "card", {"k": odd}, [odd], 5, {"why": odd})
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        messages.act(3, "turn", {"x": {1}}, [{}])


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # no lone surrogates
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20)


@given(_VALUES)
@settings(max_examples=300, deadline=None)
def test_dumpb_is_the_standard_encoding(value: Any) -> None:
    """Every value the engine can put in a message (no floats: the rules count, never
    measure) encodes to the same bytes both ways, escapes and big integers included."""
    assert messages.dumpb(value) == _standard(value)
    assert messages.event({"v": value}) == b'{"type":"event","event":' + _standard({"v": value}) \
        + b"}\n"


def test_dumpb_edge_cases() -> None:
    for value in ["\x00\x1f\x7f\"\\/\u2028\u2029é😀", 2 ** 63, -(2 ** 63) - 1, 2 ** 64,
                  {"k": [True, False, None]}, (1, (2,))]:
        assert messages.dumpb(value) == _standard(value)
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        messages.dumpb({1, 2})


def test_every_referee_message_begins_with_its_type() -> None:
    """PROTOCOL.md promises it: a bot matching lines with a pattern tells them apart by their
    first bytes (an act's id and decision follow at once, as the events' payload does)."""
    lines = {
        "hello": messages.hello({"decision_ms": 1000}, {"depth": 2}),
        "game_start": messages.game_start(0, 1, ["a", "b"], 0, 5, bot_seed=7),
        "event": messages.event({"type": "draw", "seat": 0}),
        "act": messages.act(3, "turn", {"hand": []}, [{"card": "x"}], 900, {"k": 1}),
        "game_end": messages.game_end(0, [1, 2], ["Pair", "High Hand"], False, "none"),
        "bye": messages.bye(),
    }
    for kind, line in lines.items():
        assert line.startswith(b'{"type":"%s"' % kind.encode()), line
    assert lines["act"].startswith(b'{"type":"act","id":3,"decision":"turn",')
    assert lines["event"].startswith(b'{"type":"event","event":{')


def test_every_option_is_flat_as_the_act_schema_says() -> None:
    """PROTOCOL.md promises a bot matching text with a pattern that an option holds no object
    nor list (it may read one up to its closing brace): every option of random games of every
    size, sent in an act, passes the act's schema, which says so."""
    legal_items = SCHEMAS["act"]["properties"]["legal"]["items"]
    assert legal_items["additionalProperties"] == {"type": ["string", "integer", "null"]}
    seen: list[dict[str, Any]] = []

    class Recorder:
        def __init__(self, seed: int) -> None:
            self.agent = RandomAgent(seed)

        def choose(self, decision: Any, observation: Any) -> int:
            seen.extend(dict(option) for option in decision.options)
            return self.agent.choose(decision, observation)

    for seed in range(40):
        players = tuple("abcde"[:2 + seed % 4])
        play_game(GameConfig(players=players, seed=seed),
                  [Recorder(seed * 10 + seat) for seat in range(len(players))])
    kinds = {next(iter(option)) for option in seen}
    assert {"action", "swap", "card", "trap", "seat"} <= kinds  # the sweep meets many kinds
    assert validate(json.loads(messages.act(0, "turn", OBSERVATION, seen))) == []
    nested = messages.act(0, "turn", OBSERVATION, [{"card": ["God-3"]}])
    assert validate(json.loads(nested)) != []


def test_a_category_the_seat_was_not_shown_reaches_the_kit_as_none() -> None:
    # after an Ascension a bot's game_end holds null for the hands nobody saw (RULES.md E31)
    line = messages.game_end(0, [2, 1, 3], ["Pair", "The Ascension", None], True, "ascension")
    message = json.loads(line)
    assert validate(message) == []
    assert messages.game_end_fields(message)["desmos"] == ["Pair", "The Ascension", None]
