"""A decision: one player's choice among an explicit, ordered list of legal options.

Options are small JSON-able dicts and option 0 is the safe default wherever one exists (hold,
no swap, pass). The lists are shared, cached objects: treat them as read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DECISION_KINDS", "Decision", "Option"]

Option = dict[str, Any]

#: Every kind of decision the engine asks.
DECISION_KINDS = ("turn", "swap", "trigger", "target", "card", "discard", "reveal", "give", "rps")


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must choose, what kind of choice it is, and the legal options in order."""

    seat: int
    kind: str
    options: tuple[Option, ...]
    #: Why the choice is asked (the card whose effect asks it, the step), for bots and logs.
    context: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "options": list(self.options),
                "context": self.context}
