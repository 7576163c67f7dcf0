"""JSON Schemas (draft 2020-12) of every protocol v1 message, keyed by message type.

The same schemas are printed in docs/PROTOCOL.md (a test keeps the two equal) so bot authors in
any language can validate their side. Every schema allows additional properties: both sides
ignore unknown fields, which is how v1 grows without breaking bots.
"""

from __future__ import annotations

from typing import Any

from arena.engine import DECISION_KINDS
from arena.engine.effects import TRIGGER_WINDOWS

__all__ = ["SCHEMAS", "validate"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_NAT = {"type": "integer", "minimum": 0}
_DATE = {"type": "string", "description": "ISO date, e.g. 2026-11-20"}
_CARD = {"type": "string", "description": "a card in notation, e.g. God-3 (RULES.md)"}
_CARDS = {"type": "array", "items": _CARD}
_PER_SEAT = {"type": "array", "items": _NAT, "description": "one entry per seat"}

#: What a seat may see when asked to decide; the history came before, as events.
OBSERVATION: dict[str, Any] = {
    "type": "object",
    "description": "what the bot's seat may see now; no history (that arrived as events)",
    "properties": {
        "seat": {**_NAT, "description": "the bot's seat"},
        "players": {"type": "array", "items": {"type": "string"},
                    "description": "the players' names by seat"},
        "round": {"type": "integer", "minimum": 1,
                  "description": "the round, 1 to rounds (rounds + 1 in the showdown)"},
        "rounds": {"type": "integer", "minimum": 1},
        "turn": {**_NAT, "description": "turns begun before this one in the game (0 in the "
                 "first)"},
        "active_seat": {**_NAT, "description": "whose turn it is"},
        "phase": {"enum": ["play", "showdown"],
                  "description": "showdown: the Rock-Paper-Scissors of a tie for first"},
        "hand": {**_CARDS, "description": "the bot's own hand"},
        "traps": {
            "type": "array",
            "description": "the bot's own face-down traps, oldest first",
            "items": {
                "type": "object",
                "properties": {
                    "card": _CARD,
                    "turns_left": {"type": "integer", "minimum": 1, "description":
                                   "own turns that may still begin with it set: 3 in the "
                                   "turn it was set, 1 in its last"},
                    "triggerable": {"type": "boolean",
                                    "description": "false in the turn it was set (E9)"},
                },
                "required": ["card", "turns_left", "triggerable"],
            },
        },
        "hand_sizes": _PER_SEAT,
        "trap_counts": _PER_SEAT,
        "revealed": {"type": "array", "items": _CARDS,
                     "description": "per seat, its hand cards everyone has seen"},
        "effect_graveyard": {**_CARDS, "description": "oldest first"},
        "discard_graveyard": {**_CARDS, "description": "oldest first"},
        "draw_pile": {**_NAT, "description": "cards left in the draw pile"},
    },
    "required": ["seat", "players", "round", "rounds", "turn", "active_seat", "phase",
                 "hand", "traps", "hand_sizes", "trap_counts", "revealed", "effect_graveyard",
                 "discard_graveyard", "draw_pile"],
}

#: Why a decision is asked: which of these a decision carries depends on its kind.
CONTEXT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "why": {"type": "string", "description": "prose for a person (not a stable key); "
                "every kind but turn and swap"},
        "source": {**_CARD, "description": "the card whose effect asks (a trigger window: "
                   "the card about to resolve)"},
        "from_seat": {**_NAT, "description": "the other seat the choice is about: whose hand a "
                      "card is taken from, who receives the card given, or whose effect asks"},
        "window": {"enum": list(TRIGGER_WINDOWS),
                   "description": "the trigger window (RULES.md, Ruling 9)"},
        "round": {"type": "integer", "minimum": 1, "description": "turn and swap"},
        "throw": {"type": "integer", "minimum": 1,
                  "description": "the Rock-Paper-Scissors throw, from 1"},
    },
}

#: One legal option: flat, so a bot matching text may read it up to its closing brace.
OPTION: dict[str, Any] = {
    "type": "object",
    "description": "e.g. {\"action\": \"play\", \"card\": \"God-3\"}; flat: no value is an "
                   "object or a list (RULES.md, Decisions)",
    "additionalProperties": {"type": ["string", "integer", "null"]},
}


def _message(kind: str, description: str, properties: dict[str, Any],
             required: list[str]) -> dict[str, Any]:
    return {
        "$schema": _DIALECT,
        "$id": f"https://palaestra.invalid/protocol/v1/{kind}.json",
        "title": kind,
        "description": description,
        "type": "object",
        "properties": {"type": {"const": kind}, **properties},
        "required": ["type", *required],
        "additionalProperties": True,
    }


SCHEMAS: dict[str, dict[str, Any]] = {
    "hello": _message(
        "hello", "referee -> bot, first line; answer with 'ready' within the start-up time",
        {
            "protocol": {"const": 1},
            "limits": {
                "type": "object",
                "properties": {
                    "decision_ms": _NAT, "time_bank_ms": _NAT, "startup_ms": _NAT,
                    "max_strikes": _NAT, "bye_grace_ms": _NAT,
                    "line_bytes": {**_NAT, "description": "the longest line the bot may "
                                   "write, newline included, and all it may write in reply "
                                   "to one message, blank lines included"},
                },
            },
            "options": {
                "type": "object",
                "description": "the settings the bot's tournament entry gives it (empty when "
                               "none)",
                "additionalProperties": {"type": ["string", "number", "boolean"]},
            },
        },
        ["protocol"],
    ),
    "ready": _message(
        "ready", "bot -> referee, the answer to 'hello'",
        {
            "protocol": {"const": 1},
            "name": {"type": "string", "minLength": 1},
            "author": {"type": "string"},
            "version": {"type": "string"},
            "last_read_page": _DATE,
            "last_book_finished": _DATE,
            "rematch": {"type": "boolean",
                        "description": "true: this process may play later matches; the "
                                       "referee may send 'hello' again after a match's last "
                                       "'game_end' (instead of 'bye') to begin a new one"},
            "stack_dump": {"type": "boolean",
                           "description": "true: on SIGUSR1 the process writes its stack to "
                                          "stderr as Python's faulthandler does; the referee "
                                          "sends it at a timeout to name the line the bot was "
                                          "stuck on"},
        },
        ["name"],
    ),
    "game_start": _message(
        "game_start", "referee -> bot, a game begins; no answer",
        {
            "game": _NAT,
            "seat": _NAT,
            "players": {"type": "array", "items": {"type": "string"}, "minItems": 2,
                        "maxItems": 5},
            "starting_seat": _NAT,
            "rounds": {"type": "integer", "minimum": 1},
            "bot_seed": _NAT,
            "rules": {"type": "object", "additionalProperties": {"type": "string"},
                      "description": "the game's house rules (RULES.md), sent only when "
                                     "they are not the defaults"},
        },
        ["game", "seat", "players", "starting_seat", "rounds"],
    ),
    "event": _message(
        "event", "referee -> bot, one game event visible to the bot, sent once; no answer",
        {"event": {"type": "object"}},
        ["event"],
    ),
    "act": _message(
        "act", "referee -> bot, a decision; answer with 'action' carrying the same id",
        {
            "id": _NAT,
            "decision": {"enum": list(DECISION_KINDS)},
            "observation": OBSERVATION,
            "legal": {"type": "array", "items": OPTION, "minItems": 1},
            "time_ms": _NAT,
            "context": CONTEXT,
        },
        ["id", "decision", "observation", "legal"],
    ),
    "action": _message(
        "action", "bot -> referee, the answer to 'act'",
        {"id": _NAT, "choice": _NAT},
        ["id", "choice"],
    ),
    "game_end": _message(
        "game_end", "referee -> bot, a game is over; no answer",
        {
            "game": _NAT,
            "placements": {"type": "array", "items": {"type": "integer", "minimum": 1}},
            "desmos": {"type": "array", "items": {"type": ["string", "null"]}},
            "ascension": {"type": "boolean"},
            "tiebreak": {"type": "string"},
            "forfeits": {"type": "object", "additionalProperties": {"type": "string"}},
            "standing_places": {"type": "array", "items": {"type": "integer", "minimum": 1}},
        },
        ["game", "placements", "desmos", "ascension", "tiebreak"],
    ),
    "bye": _message(
        "bye", "referee -> bot, the match is over: exit; the referee ends the bot after a grace "
        "period", {}, [],
    ),
}


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list, tuple), "string": (str,), "integer": (int,),
    "number": (int, float), "boolean": (bool,), "null": (type(None),),
}


def _check(value: Any, schema: dict[str, Any], where: str, errors: list[str]) -> None:
    """The subset of JSON Schema these schemas use (type or a list of types, const, enum,
    required, properties, additionalProperties, items, minimum, minLength, minItems,
    maxItems)."""
    if "const" in schema and (value != schema["const"] or type(value) is bool
                              and type(schema["const"]) is not bool):
        errors.append(f"{where}: expected {schema['const']!r}, got {value!r}")
        return
    if "enum" in schema and not any(value == allowed and type(value) is type(allowed)
                                    for allowed in schema["enum"]):
        errors.append(f"{where}: expected one of {schema['enum']!r}, got {value!r:.40}")
        return
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else kind  # a type or a list of them
        if not any(isinstance(value, _TYPES[k])
                   and not (k in ("integer", "number") and type(value) is bool)
                   for k in kinds):
            errors.append(f"{where}: expected {' or '.join(kinds)}, got "
                          f"{type(value).__name__}")
            return
    if isinstance(value, dict):
        _check_object(value, schema, where, errors)
    if isinstance(value, list | tuple):
        _check_array(value, schema, where, errors)
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        errors.append(f"{where}: shorter than {schema['minLength']}")
    if (isinstance(value, int | float) and type(value) is not bool and "minimum" in schema
            and value < schema["minimum"]):
        errors.append(f"{where}: below {schema['minimum']}")


def _check_object(value: dict[str, Any], schema: dict[str, Any], where: str,
                  errors: list[str]) -> None:
    """An object's keywords: required, properties, additionalProperties."""
    for key in schema.get("required", ()):
        if key not in value:
            errors.append(f"{where}: missing {key!r}")
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            _check(item, properties[key], f"{where}.{key}", errors)
        elif isinstance(extra, dict):
            _check(item, extra, f"{where}.{key}", errors)
        elif extra is False:
            errors.append(f"{where}: unexpected {key!r}")


def _check_array(value: list[Any] | tuple[Any, ...], schema: dict[str, Any], where: str,
                 errors: list[str]) -> None:
    """An array's keywords: minItems, maxItems, items."""
    if len(value) < schema.get("minItems", 0):
        errors.append(f"{where}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{where}: more than {schema['maxItems']} items")
    if "items" in schema:
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{where}[{index}]", errors)


def validate(message: Any) -> list[str]:
    """Problems of one decoded message against its schema (empty when valid). A small
    validator for the subset the schemas use, so neither the arena nor a test needs a JSON
    Schema library; bot authors can use any draft 2020-12 validator on the same schemas."""
    kind = message.get("type") if isinstance(message, dict) else None
    # A type that is not a string (an object, a list) is unhashable: not a key to look up.
    if not isinstance(kind, str) or kind not in SCHEMAS:
        return [f"not a protocol v1 message: {message!r:.80}"]
    errors: list[str] = []
    _check(message, SCHEMAS[kind], kind, errors)
    return errors
