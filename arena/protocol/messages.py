"""Protocol v1 between the referee and a bot: one UTF-8 JSON object per line.

Referee -> bot (stdin): ``hello``, ``game_start``, ``event``, ``act``, ``game_end``, ``bye``.
Bot -> referee (stdout): ``ready`` (answer to ``hello``) and ``action`` (answer to ``act``).
Both sides ignore unknown message types and unknown fields, so v1 can grow without breaking
bots. docs/PROTOCOL.md describes the flow; :mod:`arena.protocol.schema` holds a JSON Schema per
message.

The builders return the encoded line (``bytes`` ending in ``\\n``) because that is what travels:
the referee builds one ``act`` per decision, so it is written for speed (one orjson call per
line where orjson is installed, as it is with the arena; the standard library otherwise). The
parsers are strict where the referee's fairness depends on it (the id and the choice of an
``action``) and lenient everywhere else.
"""

from __future__ import annotations

import json
import json.encoder
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.common.printable import printable
from arena.errors import IllegalChoiceError, ProtocolError


def _find_orjson() -> tuple[Callable[..., bytes] | None, int]:
    """orjson's ``dumps`` and its newline option; (None, 0) without it: the arena depends on
    orjson, and the standard library does the same work without it."""
    try:
        from orjson import OPT_APPEND_NEWLINE, dumps
    except ImportError:  # pragma: no cover
        return None, 0
    return dumps, OPT_APPEND_NEWLINE


_orjson_dumps, _APPEND_NEWLINE = _find_orjson()

__all__ = [
    "BOT_TYPES",
    "METADATA_FIELDS",
    "PROTOCOL_VERSION",
    "REFEREE_TYPES",
    "action",
    "act",
    "bye",
    "decode",
    "encode",
    "dumpb",
    "dumps",
    "event",
    "event_json",
    "event_lines",
    "events",
    "game_end",
    "game_start",
    "hello",
    "is_unknown_type",
    "parse_action",
    "parse_ready",
    "ready",
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



def _no_default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _make_dumps() -> Callable[[Any], str]:
    """Compact JSON encoding without the per-call set-up of ``JSONEncoder.encode``: the C
    encoder is built once (no circular-reference check: messages are trees we build).
    Encoding the observation is the referee's largest cost per decision; this halves it."""
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    c_basestring = getattr(json.encoder, "c_encode_basestring", None)
    if c_make_encoder is None or c_basestring is None:  # pragma: no cover - pure-python json
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    encoder = c_make_encoder(None, _no_default, c_basestring, None, ":", ",", False, False,
                             True)
    join = "".join

    def dumps(value: Any) -> str:
        return join(encoder(value, 0))

    return dumps


#: ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, faster.
dumps = _make_dumps()
_dumps = dumps


def _make_dumpb() -> Callable[[Any], bytes]:
    """``dumps(value).encode()``, through orjson when it is installed (a dependency of the
    arena; a bot's interpreter may lack it, hence the fallback). For strings, integers,
    booleans, null, lists and string-keyed objects, the only values the engine puts in a
    message, both write the same bytes (tests/protocol/test_messages.py); a value orjson
    refuses (a non-string key, an integer past 64 bits, a set) goes the standard way, which
    encodes it or raises the same ``TypeError`` as ``json.dumps``."""
    fast = _orjson_dumps
    if fast is None:  # pragma: no cover - orjson is a dependency of the arena
        return lambda value: _dumps(value).encode()

    def dumpb(value: Any) -> bytes:
        try:
            return fast(value)
        except TypeError:
            return _dumps(value).encode()

    return dumpb


#: Compact JSON as UTF-8 bytes (what the builders put on the wire); see :func:`_make_dumpb`.
dumpb = _make_dumpb()
_dumpb = dumpb
_loads = json.loads
#: The exact shape the kit's runner writes; anything else takes the validating slow path.
_ACTION_RE = re.compile(
    rb'\{"type":"action","id":(0|[1-9][0-9]{0,17}),"choice":(0|[1-9][0-9]{0,17})\}')


#: The end of the kit's ``action`` line after ``"choice":``, for the indexes most decisions
#: have (anything else takes the regex, then the validating path).
_CHOICE_TAILS = {b"%d}" % choice: choice for choice in range(256)}


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a protocol line (compact JSON, UTF-8, newline-terminated)."""
    return (_dumps(message) + "\n").encode()


def decode(line: bytes | str) -> dict[str, Any]:
    """Parse one line into a message object; anything but a JSON object with a string
    ``type`` is a :class:`ProtocolError` (the referee counts it as ``protocol_error``)."""
    try:
        message = _loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProtocolError(f"not JSON: {_preview(line)}") from None
    if type(message) is not dict:
        raise ProtocolError(f"not a JSON object: {_preview(line)}")
    if type(message.get("type")) is not str:
        raise ProtocolError(f"message without a string 'type': {_preview(line)}")
    return message


def _preview(line: bytes | str, limit: int = 80) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")


# ---------------------------------------------------------------------------------------------
# referee -> bot


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


_EVENT_HEAD = b'{"type":"event","event":'
#: Between two payloads in a buffer of ``event`` lines: the end of one, the start of the next.
_EVENT_SEP = b'}\n{"type":"event","event":'


def event_json(payload: Mapping[str, Any]) -> bytes:
    """One event's payload as JSON, the part of an ``event`` line that differs: encoded once
    per event whatever the number of seats that see it (:func:`event_lines` makes lines)."""
    if _orjson_dumps is not None:
        try:
            return _orjson_dumps(payload)
        except TypeError:  # a value orjson refuses: the standard way encodes or raises
            pass
    return _dumps(payload).encode()


def event_lines(payloads_json: Sequence[bytes]) -> bytes:
    """The ``event`` lines of payloads encoded by :func:`event_json`, in one buffer (sent in
    the same write as the next ``act``): one join for all of them, no copy per line."""
    if not payloads_json:
        return b""
    return b"".join((_EVENT_HEAD, _EVENT_SEP.join(payloads_json), b"}\n"))


def event(payload: Mapping[str, Any]) -> bytes:
    """One engine event visible to the receiving seat; each event travels exactly once."""
    return event_lines([event_json(payload)])


def events(payloads: Sequence[Mapping[str, Any]]) -> bytes:
    """Several ``event`` lines in one buffer (sent in the same write as the next ``act``)."""
    return event_lines([event_json(p) for p in payloads])


#: Encoded options by identity (the path without orjson). The engine hands out shared,
#: read-only option dicts (one per card face, seat, pass...), so most options of a game are
#: encoded once per process; the entry keeps its dict alive, so an id is never reused while
#: cached.
_OPTION_JSON: dict[int, tuple[Mapping[str, Any], str]] = {}
_OPTION_CACHE_MAX = 20_000


def encode_options(legal: Sequence[Mapping[str, Any]]) -> str:
    """The JSON array of ``legal``, reusing the encoding of options seen before (encoding
    small dicts one by one with the standard library is most of an ``act``'s cost
    otherwise)."""
    cache = _OPTION_JSON
    parts = []
    for option in legal:
        hit = cache.get(id(option))
        if hit is None or hit[0] is not option:
            if len(cache) >= _OPTION_CACHE_MAX:
                cache.clear()
            hit = cache[id(option)] = (option, _dumps(option))
        parts.append(hit[1])
    return "[" + ",".join(parts) + "]"


def act(id: int, decision: str, observation: Mapping[str, Any],
        legal: Sequence[Mapping[str, Any]], time_ms: int | None = None,
        context: Mapping[str, Any] | None = None) -> bytes:
    """Ask for a choice; ``time_ms`` is the time the bot has for this decision, time bank
    included. The hot path of a match: one orjson call for the whole line where orjson is
    installed; else one encoder call for the observation and cached encodings for the
    options, the rest formatted around them."""
    if _orjson_dumps is not None:
        message: dict[str, Any] = {"type": "act", "id": int(id), "decision": decision,
                                   "observation": observation, "legal": legal}
        if time_ms is not None:
            message["time_ms"] = int(time_ms)
        if context:
            message["context"] = context
        try:
            return _orjson_dumps(message, option=_APPEND_NEWLINE)
        except TypeError:  # a value orjson refuses: the standard way below encodes or raises
            pass
    tail = "" if time_ms is None else f',"time_ms":{int(time_ms)}'
    if context:
        tail += ',"context":' + _dumps(context)
    return (f'{{"type":"act","id":{int(id)},"decision":{_dumps(decision)},"observation":'
            f'{_dumps(observation)},"legal":{encode_options(legal)}{tail}}}\n').encode()


def game_end(game: int, placements: Sequence[int], desmos: Sequence[str], ascension: bool,
             tiebreak: str, forfeits: Mapping[int, str] | None = None, **extra: Any) -> bytes:
    """A game is over: places (1-based, per seat), each seat's Desmos and how first place was
    settled. Public information only."""
    message: dict[str, Any] = {
        "type": "game_end", "game": game, "placements": list(placements),
        "desmos": list(desmos), "ascension": bool(ascension), "tiebreak": tiebreak,
        "forfeits": {str(seat): reason for seat, reason in (forfeits or {}).items()},
    }
    message.update(extra)
    return encode(message)


def bye() -> bytes:
    """The match is over: the bot should exit; the referee ends it after a grace period."""
    return b'{"type":"bye"}\n'


# ---------------------------------------------------------------------------------------------
# bot -> referee


def ready(name: str, **metadata: Any) -> bytes:
    """The bot's answer to ``hello``: its name and optional metadata (None values dropped)."""
    message: dict[str, Any] = {"type": "ready", "protocol": PROTOCOL_VERSION, "name": name}
    message.update({key: value for key, value in metadata.items() if value is not None})
    return encode(message)


def action(id: int, choice: int) -> bytes:
    """The bot's answer to ``act``: the 0-based index of its choice in ``legal``."""
    return b'{"type":"action","id":%d,"choice":%d}\n' % (id, choice)


def parse_ready(message: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Read a ``ready``: returns (name, metadata). Metadata keeps only the known fields with
    string values, so nothing a bot sends can reach the arena as an unexpected type."""
    if message.get("type") != "ready":
        raise ProtocolError(f"expected 'ready', got {message.get('type')!r}")
    protocol = message.get("protocol", PROTOCOL_VERSION)
    if protocol != PROTOCOL_VERSION:
        shown = repr(protocol)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise ProtocolError(f"bot speaks protocol {shown}; the arena speaks "
                            f"{PROTOCOL_VERSION}")
    name = message.get("name")
    if type(name) is not str or not name.strip():
        raise ProtocolError("'ready' needs a non-empty string 'name'")
    metadata = {key: printable(message[key][:MAX_METADATA]) for key in METADATA_FIELDS
                if type(message.get(key)) is str}
    return printable(name.strip()[:MAX_NAME]), metadata


def parse_action(line: bytes | str, expected_id: int, n_legal: int) -> int:
    """Read an ``action`` line answering act ``expected_id`` with ``n_legal`` options.

    Raises :class:`ProtocolError` for bad JSON, a wrong type, a missing or non-integer field or
    a wrong id, and :class:`IllegalChoiceError` for an index outside ``legal``: the referee
    maps them to the failure types ``protocol_error`` and ``illegal_choice``.
    """
    if isinstance(line, bytes):
        # the kit's exact answer, checked without a regex: the id by prefix, the choice
        # from a table (this runs once per decision)
        head = b'{"type":"action","id":%d,"choice":' % expected_id
        if line.startswith(head):
            listed = _CHOICE_TAILS.get(line[len(head):])
            if listed is not None and listed < n_legal:
                return listed
    fast = _ACTION_RE.fullmatch(line) if isinstance(line, bytes) else None
    if fast is not None:
        fast_id, fast_choice = int(fast[1]), int(fast[2])
        if fast_id != expected_id:
            raise ProtocolError(f"'action' answers id {fast_id}, expected {expected_id}")
        if fast_choice >= n_legal:
            raise IllegalChoiceError(f"choice {fast_choice} is outside the {n_legal} legal "
                                     "options")
        return fast_choice
    message = decode(line)
    if message["type"] != "action":
        raise ProtocolError(f"expected 'action', got {message['type']!r}")
    id_: Any = message.get("id")  # whatever the bot sent: checked below
    if type(id_) is not int:
        raise ProtocolError(f"'action' needs an integer 'id', {_got(message, 'id')}")
    if id_ != expected_id:
        raise ProtocolError(f"'action' answers id {id_}, expected {expected_id}")
    choice: Any = message.get("choice")
    if type(choice) is not int:
        raise ProtocolError(f"'action' needs an integer 'choice', {_got(message, 'choice')}")
    if not 0 <= choice < n_legal:
        raise IllegalChoiceError(f"choice {choice} is outside the {n_legal} legal options")
    return choice


def _got(message: dict[str, Any], key: str) -> str:
    """What the bot sent instead, as JSON (escaped, cut short): ``true``, ``"1"``, ``1.0``
    each point at a different slip in the bot's code."""
    if key not in message:
        return "got none"
    try:
        shown = json.dumps(message[key], ensure_ascii=True)
    except RecursionError:
        return "got a value nested too deep to show"
    return "got " + (shown if len(shown) <= 40 else shown[:37] + "...")


def is_unknown_type(line: bytes | str) -> bool:
    """Whether ``line`` is a JSON object whose ``type`` is none of the bot's messages: a
    message from a later protocol version, which the referee ignores (only a known type in
    the wrong place is an error)."""
    try:
        message = _loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return (type(message) is dict and type(message.get("type")) is str
            and message["type"] not in BOT_TYPES)


def action_id(line: bytes | str) -> int | None:
    """The id an action line answers, or None when the line has none (used to recognise a
    late answer to an act that already timed out, which is dropped, not punished twice)."""
    try:
        message = _loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if type(message) is dict and message.get("type") == "action":
        id_ = message.get("id")
        if type(id_) is int:
            return id_
    return None
