"""What a tournament spec's validation errors say: one pydantic error turned into one line (or
a few) ``field: what is wrong``, in words a spec's author reads (an unknown field with the one
it was likely meant to be, a wrong type with the value given)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.common.suggest import did_you_mean, suggestion
from arena.tournament.entries import shown_value
from arena.tournament.league_spec import LeagueBudget
from arena.tournament.rating_spec import RatingSpec

__all__ = ["problem_lines"]

#: The fields of the spec's nested sections, for an unknown one's message.
_SECTION_FIELDS = {"rating": tuple(RatingSpec.model_fields),
                   "budget": tuple(LeagueBudget.model_fields)}
#: Fields named as ``arena run`` and ``arena match`` name their options (``--games``,
#: ``--decision-ms``), which a spelling distance would match to an unrelated field.
_OPTION_NAMES = {"games": "games_per_match", "players": "players_per_game",
                 "decision_ms": "limits.decision_ms", "time_bank_ms": "limits.time_bank_ms"}


def _loc(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "spec"


def problem_lines(error: Any, fields: Sequence[str]) -> list[str]:
    """One pydantic error of a spec whose own fields are ``fields`` -> line(s) ``field: what
    is wrong``."""
    loc = tuple(error["loc"])
    kind = error["type"]
    value = error.get("input")
    field = _loc(loc)
    if kind == "value_error":
        text = str(error["ctx"]["error"]) if "ctx" in error else error["msg"]
        lines = text.split("\n")
        if all(line.startswith(field) and line[len(field):][:1] in (".", ":", "[")
               for line in lines):
            return lines
        return [f"{field}: {line}" for line in lines]
    if kind == "missing":
        return [f"{field}: is required"]
    if kind == "invalid_key":  # a key YAML read as a number, a date or a boolean
        return [f"{_loc(loc[:-1])}: a field name must be text, got {shown_value(loc[-1])}"]
    if kind == "extra_forbidden":
        known = _SECTION_FIELDS.get(str(loc[0]), fields) if len(loc) > 1 else fields
        name = str(loc[-1])
        hint = (suggestion(_OPTION_NAMES[name]) if len(loc) == 1 and name in _OPTION_NAMES
                else did_you_mean(name, known))
        return [f"{field}: unknown field{hint} (known: {', '.join(known)})"]
    if kind == "literal_error":
        expected = error["ctx"]["expected"].replace("'", "").replace(" or ", ", ")
        meant = did_you_mean(value, expected.split(", ")) if isinstance(value, str) else ""
        return [f"{field}: must be one of {expected}; got {shown_value(value)}{meant}"]
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return [f"{field}: must be an integer, got {shown_value(value)}"]
    if kind in ("float_type", "float_parsing", "finite_number"):
        return [f"{field}: must be a number, got {shown_value(value)}"]
    if kind in ("bool_type", "bool_parsing"):
        return [f"{field}: must be true or false, got {shown_value(value)}"]
    if kind in ("string_type",):
        return [f"{field}: must be a string, got {shown_value(value)}"]
    if kind in ("list_type",):
        return [f"{field}: must be a list, got {shown_value(value)}"]
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return [f"{field}: must be a mapping, got {shown_value(value)}"]
    if kind.startswith("date"):
        return [f"{field}: must be a date (YYYY-MM-DD), got {shown_value(value)}"]
    return [f"{field}: {error['msg'][0].lower()}{error['msg'][1:]}"]
