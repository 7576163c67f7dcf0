"""JSON Schemas (draft 2020-12) of every protocol v1 message, keyed by message type.

The same schemas are printed in docs/PROTOCOL.md (a test keeps the two equal) so bot authors in
any language can validate their side. Every schema allows additional properties: both sides
ignore unknown fields, which is how v1 grows without breaking bots.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCHEMAS", "schema_for", "validate"]

_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_NAT = {"type": "integer", "minimum": 0}
_DATE = {"type": "string", "description": "ISO date, e.g. 2026-11-20"}


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
                    "max_strikes": _NAT,
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
            "decision": {"type": "string"},
            "observation": {"type": "object"},
            "legal": {"type": "array", "items": {"type": "object"}, "minItems": 1},
            "time_ms": _NAT,
            "context": {"type": "object"},
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
            "desmos": {"type": "array", "items": {"type": "string"}},
            "ascension": {"type": "boolean"},
            "tiebreak": {"type": "string"},
            "forfeits": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        ["game", "placements", "desmos", "ascension", "tiebreak"],
    ),
    "bye": _message(
        "bye", "referee -> bot, the match is over: exit; the referee ends the bot after a grace "
        "period", {}, [],
    ),
}


def schema_for(message_type: str) -> dict[str, Any]:
    """The schema of one message type (KeyError for a type protocol v1 does not have)."""
    return SCHEMAS[message_type]


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list, tuple), "string": (str,), "integer": (int,),
    "number": (int, float), "boolean": (bool,), "null": (type(None),),
}


def _check(value: Any, schema: dict[str, Any], where: str, errors: list[str]) -> None:
    """The subset of JSON Schema these schemas use (type or a list of types, const,
    required, properties, additionalProperties, items, minimum, minLength, minItems,
    maxItems)."""
    if "const" in schema and (value != schema["const"] or type(value) is bool
                              and type(schema["const"]) is not bool):
        errors.append(f"{where}: expected {schema['const']!r}, got {value!r}")
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
    if isinstance(value, list | tuple):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{where}: more than {schema['maxItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                _check(item, schema["items"], f"{where}[{index}]", errors)
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        errors.append(f"{where}: shorter than {schema['minLength']}")
    if (isinstance(value, int | float) and type(value) is not bool and "minimum" in schema
            and value < schema["minimum"]):
        errors.append(f"{where}: below {schema['minimum']}")


def validate(message: Any) -> list[str]:
    """Problems of one decoded message against its schema (empty when valid). A small
    validator for the subset the schemas use, so neither the arena nor a test needs a JSON
    Schema library; bot authors can use any draft 2020-12 validator on the same schemas."""
    if not isinstance(message, dict) or message.get("type") not in SCHEMAS:
        return [f"not a protocol v1 message: {message!r:.80}"]
    errors: list[str] = []
    _check(message, SCHEMAS[message["type"]], message["type"], errors)
    return errors
