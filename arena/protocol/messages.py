"""Protocol v1 between the referee and a bot: one UTF-8 JSON object per line.

Referee -> bot (stdin): ``hello``, ``game_start``, ``event``, ``act``, ``game_end``, ``bye``.
Bot -> referee (stdout): ``ready`` (answer to ``hello``) and ``action`` (answer to ``act``).
Both sides ignore unknown message types and unknown fields, so v1 can grow without breaking
bots. docs/PROTOCOL.md describes the flow; :mod:`arena.protocol.schema` holds a JSON Schema per
message.

This module is the one codec of both sides: the referee builds its lines and reads the bot's
answers here, and the bot kit (:mod:`arena.sdk.serving`) reads the referee's lines and builds
its answers here too. The builders return the encoded line (``bytes`` ending in ``\\n``), the
readers take the line as it came. The referee's parsers are strict where its fairness depends
on it (the id and the choice of an ``action``) and lenient everywhere else.

orjson encodes the referee's largest lines (``act`` and ``event``) where it is installed, as it
is with the arena; a bot's interpreter may lack it, and then the standard library writes the
same bytes (tests/protocol/test_messages.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeGuard

from arena.common.plural import counted
from arena.common.printable import printable
from arena.errors import IllegalChoiceError, ProtocolError

try:
    import orjson
except ImportError:  # pragma: no cover - a bot's interpreter without orjson
    orjson = None  # type: ignore[assignment]

__all__ = [
    "BOT_TYPES",
    "EVENT_LINE_START",
    "METADATA_FIELDS",
    "PROTOCOL_VERSION",
    "REFEREE_TYPES",
    "act",
    "act_fields",
    "act_head",
    "action",
    "action_id",
    "bye",
    "decode",
    "dumpb",
    "dumps",
    "encode",
    "event",
    "event_json",
    "event_lines",
    "events",
    "game_end",
    "game_end_fields",
    "game_start",
    "game_start_fields",
    "hello",
    "hello_options",
    "is_integer",
    "is_unknown_type",
    "unknown_type",
    "offers_rematch",
    "offers_stack_dump",
    "parse_action",
    "parse_ready",
    "ready",
    "standing_places_of",
]

PROTOCOL_VERSION = 1
#: Messages the referee sends, in the order a match uses them.
REFEREE_TYPES = ("hello", "game_start", "event", "act", "game_end", "bye")
#: Messages a bot sends.
BOT_TYPES = ("ready", "action")
#: Optional fields of ``ready`` that the arena reads (rulings 12 and 13 read the two dates).
METADATA_FIELDS = ("author", "version", "last_read_page", "last_book_finished")
#: Longest bot name kept from a ``ready``; longer names are cut, not refused.
MAX_NAME = 64
#: Characters kept of each metadata value in ``ready`` (they are printed in tables).
MAX_METADATA = 200

#: Compact JSON, non-ASCII characters kept as they are: the encoding of every line.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
#: How every ``event`` line begins: a bot that does not listen to events skips the lines
#: that start so without decoding them.
EVENT_LINE_START = b'{"type":"event","event":'
#: What sits between two payloads in a batch of ``event`` lines.
_EVENT_SEP = b'}\n{"type":"event","event":'
#: The head of an ``act`` line as :func:`act` writes it (``type``, ``id``, ``decision`` first).
_ACT_HEAD = re.compile(rb'\{"type":"act","id":(0|[1-9][0-9]{0,17}),"decision":"([a-z_]{1,32})",')
#: An ``action`` line exactly as :func:`action` writes it (the kit's answers).
_ACTION = re.compile(
    rb'\{"type":"action","id":(0|[1-9][0-9]{0,17}),"choice":(0|[1-9][0-9]{0,17})\}')
#: What a JSON reading raises for a line that is no JSON (or nested past the recursion limit).
_NOT_JSON = (ValueError, UnicodeDecodeError, RecursionError)


# ---------------------------------------------------------------------------------------------
# encoding


def dumps(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``."""
    return _ENCODER.encode(value)


def dumpb(value: Any) -> bytes:
    """:func:`dumps` as UTF-8 bytes, through orjson where it is installed. For strings,
    integers, booleans, null, lists and string-keyed objects, the only values the engine puts
    in a message, both write the same bytes; a value orjson refuses (a non-string key, an
    integer past 64 bits, a set) goes the standard way, which encodes it or raises the same
    ``TypeError`` as ``json.dumps``."""
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except TypeError:
            pass
    return dumps(value).encode()


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a protocol line (compact JSON, UTF-8, newline-terminated), written by
    the standard library: a float in a bot's options is written as Python writes it."""
    return (dumps(message) + "\n").encode()


def decode(line: bytes | str) -> dict[str, Any]:
    """Parse one line into a message object; anything but a JSON object with a string
    ``type`` is a :class:`ProtocolError` (the referee counts it as ``protocol_error``)."""
    try:
        message = json.loads(line)
    except _NOT_JSON:
        raise ProtocolError(f"not JSON: {_preview(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {_preview(line)}")
    if not isinstance(message.get("type"), str):
        raise ProtocolError(f"message without a string 'type': {_preview(line)}")
    return message


def _preview(line: bytes | str, limit: int = 80) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")


# ---------------------------------------------------------------------------------------------
# referee -> bot: building


def hello(limits: Mapping[str, Any] | None = None,
          options: Mapping[str, Any] | None = None, **extra: Any) -> bytes:
    """The first line a bot reads; it must answer ``ready`` within the start-up time.

    ``limits`` tells the bot its budget (``decision_ms``, ``time_bank_ms``, ``startup_ms``,
    ``max_strikes``, ``bye_grace_ms``, ``line_bytes``) so it can plan rather than be
    surprised; ``options`` the settings its tournament entry gives it (e.g. a search budget),
    always an object, empty when none.
    """
    message: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION}
    if limits is not None:
        message["limits"] = dict(limits)
    message["options"] = dict(options or {})
    message.update(extra)
    return encode(message)


def game_start(game: int, seat: int, players: Sequence[str], starting_seat: int,
               rounds: int, **extra: Any) -> bytes:
    """A game begins; ``seat`` is the receiving bot's own seat. Never carries the seed (it
    would let a bot rebuild the shuffle and see every hidden card)."""
    message: dict[str, Any] = {"type": "game_start", "game": game, "seat": seat,
                               "players": list(players), "starting_seat": starting_seat,
                               "rounds": rounds}
    message.update(extra)
    return encode(message)


def event_json(payload: Mapping[str, Any]) -> bytes:
    """One event's payload as JSON, the part of an ``event`` line that differs: the referee
    encodes it once per event whatever the number of seats that see it."""
    return dumpb(payload)


def event_lines(payloads_json: Sequence[bytes]) -> bytes:
    """The ``event`` lines of payloads encoded by :func:`event_json`, in one buffer (sent in
    the same write as the next ``act``)."""
    if not payloads_json:
        return b""
    return EVENT_LINE_START + _EVENT_SEP.join(payloads_json) + b"}\n"


def event(payload: Mapping[str, Any]) -> bytes:
    """One engine event visible to the receiving seat; each event travels exactly once."""
    return event_lines([event_json(payload)])


def events(payloads: Sequence[Mapping[str, Any]]) -> bytes:
    """Several ``event`` lines in one buffer (sent in the same write as the next ``act``)."""
    return event_lines([event_json(p) for p in payloads])


def act(id: int, decision: str, observation: Mapping[str, Any],
        legal: Sequence[Mapping[str, Any]], time_ms: int | None = None,
        context: Mapping[str, Any] | None = None) -> bytes:
    """Ask for a choice; ``time_ms`` is the time the bot has for this decision, time bank
    included. ``type``, ``id`` and ``decision`` come first (:func:`act_head` reads them)."""
    message: dict[str, Any] = {"type": "act", "id": int(id), "decision": decision,
                               "observation": observation, "legal": legal}
    if time_ms is not None:
        message["time_ms"] = int(time_ms)
    if context:
        message["context"] = context
    return dumpb(message) + b"\n"


def game_end(game: int, placements: Sequence[int], desmos: Sequence[str | None],
             ascension: bool, tiebreak: str, forfeits: Mapping[int, str] | None = None,
             standing_places: Sequence[int] | None = None, **extra: Any) -> bytes:
    """A game is over: places (1-based, per seat), each seat's Desmos as the bot's seat saw
    it (None for a hand an Ascension left hidden, RULES.md E31) and how first place was
    settled, and the places as the standings count them (RULES.md E28; by default from the
    placements and forfeits, :func:`standing_places_of`). Public information only."""
    forfeits = forfeits or {}
    message: dict[str, Any] = {
        "type": "game_end", "game": game, "placements": list(placements),
        "desmos": list(desmos), "ascension": bool(ascension), "tiebreak": tiebreak,
        "forfeits": {str(seat): reason for seat, reason in forfeits.items()},
        "standing_places": list(standing_places_of(placements, forfeits)
                                if standing_places is None else standing_places),
    }
    message.update(extra)
    return encode(message)


def bye() -> bytes:
    """The match is over: the bot should exit; the referee ends it after a grace period."""
    return b'{"type":"bye"}\n'


# ---------------------------------------------------------------------------------------------
# referee -> bot: reading (the kit's side, lenient: the referee wrote these lines)


def act_head(line: bytes) -> tuple[int, str] | None:
    """The id and decision kind of an ``act`` line as :func:`act` writes it, read without
    decoding the rest (the observation and the options); None for any other line."""
    head = _ACT_HEAD.match(line)
    if head is None:
        return None
    return int(head[1]), head[2].decode()


def act_fields(message: Mapping[str, Any]) -> dict[str, Any]:
    """An ``act``'s fields as the kit's ``Request`` names them: ``id`` (the caller checks it
    is an integer), ``kind``, ``observation``, ``legal``, ``time_ms`` (None if not told) and
    ``context`` (empty if none). A field missing or of another type takes its default (an
    ``act`` typed by hand at the runner, another referee's): the kit's code never raises for
    it."""
    kind, observation, legal = (message.get(key) for key in ("decision", "observation", "legal"))
    time_ms, context = message.get("time_ms"), message.get("context")
    return {"id": message["id"], "kind": kind if isinstance(kind, str) else "",
            "observation": observation if isinstance(observation, dict) else {},
            "legal": legal if isinstance(legal, list) else [],
            "time_ms": time_ms if is_integer(time_ms) else None,
            "context": context if isinstance(context, dict) else {}}


def hello_options(message: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a ``hello`` gives the bot (empty when none, or not an object)."""
    options = message.get("options")
    return dict(options) if isinstance(options, dict) else {}


def _number(message: Mapping[str, Any], key: str, default: int) -> int:
    """``message[key]`` if it is an integer, else ``default``: a field of another type counts
    as missing, so that an odd referee (another implementation of the protocol, a test
    harness) never crashes a bot in the kit's own code."""
    value = message.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _listed(message: Mapping[str, Any], key: str) -> list[Any]:
    value = message.get(key)
    return list(value) if isinstance(value, list) else []


def _numbers(values: list[Any]) -> list[int] | None:
    """``values`` if they are all integers, else None."""
    ints = all(isinstance(value, int) and not isinstance(value, bool) for value in values)
    return values if ints else None


def game_start_fields(message: Mapping[str, Any]) -> dict[str, Any]:
    """A ``game_start``'s fields as the kit's ``GameStart`` names them, with defaults for
    what is missing or of another type; ``bot_seed`` is None unless an integer was sent."""
    bot_seed = message.get("bot_seed")
    return {"game": _number(message, "game", 0), "seat": _number(message, "seat", -1),
            "players": _listed(message, "players"),
            "starting_seat": _number(message, "starting_seat", 0),
            "rounds": _number(message, "rounds", 0),
            "bot_seed": bot_seed if is_integer(bot_seed) else None}


def game_end_fields(message: Mapping[str, Any]) -> dict[str, Any]:
    """A ``game_end``'s fields as the kit's ``GameEnd`` names them, with defaults for what is
    missing or of another type; the forfeits keyed by seat number; ``standing_places``
    computed from them where the referee sent none (one older than the field), or none that
    are a place for each seat."""
    sent = message.get("forfeits")
    forfeits = {int(seat): str(reason) for seat, reason in
                (sent.items() if isinstance(sent, Mapping) else ()) if str(seat).isdecimal()}
    placements = _numbers(_listed(message, "placements")) or []
    standing = _numbers(_listed(message, "standing_places"))
    return {"game": _number(message, "game", 0), "placements": placements,
            "desmos": [None if category is None else str(category)
                       for category in _listed(message, "desmos")],
            "ascension": message.get("ascension") is True,
            "tiebreak": str(message.get("tiebreak", "")), "forfeits": forfeits,
            "standing_places": (standing if standing and len(standing) == len(placements)
                                else standing_places_of(placements, forfeits))}


def standing_places_of(placements: Sequence[int], forfeited: Collection[int]) -> list[int]:
    """The places the standings count (RULES.md E28): a forfeited seat the table's last,
    ``len(placements)``, the others as placed. The engine's rule
    (``arena.engine.result.standing_places``), restated for the kit, which does not load the
    engine."""
    last = len(placements)
    return [last if seat in forfeited else place for seat, place in enumerate(placements)]


# ---------------------------------------------------------------------------------------------
# bot -> referee: building (the kit's side)


def ready(name: str | None = None, **metadata: Any) -> bytes:
    """The bot's answer to ``hello``: its name and optional metadata (None values dropped;
    without a name the referee refuses the answer)."""
    message: dict[str, Any] = {"type": "ready", "protocol": PROTOCOL_VERSION}
    if name is not None:
        message["name"] = name
    message.update({key: value for key, value in metadata.items() if value is not None})
    return encode(message)


def action(id: int, choice: int | None) -> bytes:
    """The bot's answer to ``act``: the 0-based index of its choice in ``legal``, or None
    for no choice (which the referee strikes as a protocol error)."""
    if choice is None:
        return b'{"type":"action","id":%d,"choice":null}\n' % id
    return b'{"type":"action","id":%d,"choice":%d}\n' % (id, choice)


# ---------------------------------------------------------------------------------------------
# bot -> referee: reading (the referee's side, strict)


def parse_ready(message: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Read a ``ready``: returns (name, metadata). Metadata keeps only the known fields with
    string values, so nothing a bot sends can reach the arena as an unexpected type."""
    if message.get("type") != "ready":
        raise ProtocolError(f"expected 'ready', got {message.get('type')!r}")
    protocol = message.get("protocol", PROTOCOL_VERSION)
    if protocol != PROTOCOL_VERSION or isinstance(protocol, bool):  # true == 1 to Python
        raise ProtocolError(f"bot speaks protocol {_shown(protocol)}; the arena speaks "
                            f"{PROTOCOL_VERSION}")
    name = message.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ProtocolError("'ready' needs a non-empty string 'name'")
    metadata = {key: printable(message[key][:MAX_METADATA]) for key in METADATA_FIELDS
                if isinstance(message.get(key), str)}
    return printable(name.strip()[:MAX_NAME]), metadata


def offers_stack_dump(message: Mapping[str, Any]) -> bool:
    """Whether a ``ready`` says the bot dumps its stack to stderr on SIGUSR1, in the format of
    Python's ``faulthandler`` (``"stack_dump": true``): only then is the signal sent to it,
    at a timeout. A program that did not ask could be ended by a signal it does not catch."""
    return message.get("stack_dump") is True


def offers_rematch(message: Mapping[str, Any]) -> bool:
    """Whether a ``ready`` offers its process for later matches (``"rematch": true``): the
    referee may then begin a new match with another ``hello`` instead of ``bye``."""
    return message.get("rematch") is True


def parse_action(line: bytes | str, expected_id: int, n_legal: int) -> int:
    """Read an ``action`` line answering act ``expected_id`` with ``n_legal`` options.

    Raises :class:`ProtocolError` for bad JSON, a wrong type, a missing or non-integer field or
    a wrong id, and :class:`IllegalChoiceError` for an index outside ``legal``: the referee
    maps them to the failure types ``protocol_error`` and ``illegal_choice``.
    """
    # The line as action() writes it is read by a pattern, without decoding JSON: this runs
    # once per decision, and it is the same judgement (a test compares the two readings).
    exact = _ACTION.fullmatch(line) if isinstance(line, bytes) else None
    if exact is not None:
        id_, choice = int(exact[1]), int(exact[2])
    else:
        id_, choice = _read_action(line)
    if id_ != expected_id:
        raise ProtocolError(f"'action' answers id {id_}, expected {expected_id}")
    if not 0 <= choice < n_legal:
        raise IllegalChoiceError(f"choice {choice} is outside the "
                                 f"{counted(n_legal, 'legal option')} ({_valid_range(n_legal)})")
    return choice


def _valid_range(n_legal: int) -> str:
    """``valid: 0-4``: the indices an answer may take, so the author need not count from 0."""
    if n_legal <= 0:
        return "no choice is valid"
    return "valid: 0" if n_legal == 1 else f"valid: 0-{n_legal - 1}"


def _read_action(line: bytes | str) -> tuple[int, int]:
    """The id and choice of any other ``action`` line, each checked to be an integer."""
    message = decode(line)
    if message["type"] != "action":
        raise ProtocolError(f"expected 'action', got {message['type']!r}")
    id_ = message.get("id")
    if not is_integer(id_):
        raise ProtocolError(f"'action' needs an integer 'id', {_got(message, 'id')}")
    choice = message.get("choice")
    if not is_integer(choice):
        raise ProtocolError(f"'action' needs an integer 'choice', {_got(message, 'choice')}")
    return id_, choice


def is_integer(value: object) -> TypeGuard[int]:
    """A JSON integer: ``true`` is a bool to Python, never an index."""
    return isinstance(value, int) and not isinstance(value, bool)


def _got(message: dict[str, Any], key: str) -> str:
    """What the bot sent instead, as JSON (escaped, cut short): ``true``, ``"1"``, ``1.0``
    each point at a different slip in the bot's code."""
    return "got " + _shown(message[key]) if key in message else "got none"


def _shown(value: object) -> str:
    """A value a bot sent, as JSON (escaped, cut short)."""
    try:
        shown = json.dumps(value, ensure_ascii=True)
    except RecursionError:
        return "a value nested too deep to show"
    return shown if len(shown) <= 40 else shown[:37] + "..."


def is_unknown_type(line: bytes | str) -> bool:
    """Whether ``line`` is a JSON object whose ``type`` is none of the bot's messages: a
    message from a later protocol version, which the referee ignores (only a known type in
    the wrong place is an error)."""
    return unknown_type(line) is not None


def unknown_type(line: bytes | str) -> str | None:
    """The ``type`` of ``line`` when :func:`is_unknown_type` holds, else None."""
    try:
        message = decode(line)
    except ProtocolError:
        return None
    kind: str = message["type"]
    return None if kind in BOT_TYPES else kind


def action_id(line: bytes | str) -> int | None:
    """The id an action line answers, or None when the line has none (used to recognise a
    late answer to an act that already timed out, which is dropped, not punished twice)."""
    try:
        message = decode(line)
    except ProtocolError:
        return None
    id_ = message.get("id")
    if message["type"] == "action" and is_integer(id_):
        return id_
    return None
