"""``arena run``'s options that set a spec's fields (``--games``, ``--rounds``, limits, the
deal book): applied over the YAML before it is validated, recorded with the spec (its hash
sees them, as it sees the file's fields), and repeated in the command that resumes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.common.printable import shell_word

__all__ = ["OVERRIDE_FLAGS", "overridden", "override_options"]

#: The ``arena run`` options that set a spec's field, by the field they set
#: (``limits.NAME``: a limit).
OVERRIDE_FLAGS = {"games_per_match": "--games", "rounds": "--rounds",
                  "limits.decision_ms": "--decision-ms", "limits.time_bank_ms": "--time-bank-ms",
                  "deals": "--deals"}


def overridden(data: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with the values of ``overrides`` (None: not given) in place of its own."""
    data = dict(data)
    for key, value in overrides.items():
        if value is None:
            continue
        section, dot, name = key.partition(".")
        if dot:
            inner = data.get(section)
            data[section] = {**(inner if isinstance(inner, dict) else {}), name: value}
        else:
            data[key] = value
    return data


def override_options(overrides: Mapping[str, Any] | None) -> str:
    """The options that set ``overrides`` again (`` --games 4 --decision-ms 500``), for a
    command to paste; empty without any."""
    order = list(OVERRIDE_FLAGS)
    given = sorted((overrides or {}).items(),
                   key=lambda item: order.index(item[0]) if item[0] in order else len(order))
    parts = [f" {OVERRIDE_FLAGS.get(key, key)} {shell_word(str(value))}"
             for key, value in given if value is not None]
    return "".join(parts)
