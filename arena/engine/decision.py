"""A decision: one player's choice among an explicit, ordered list of legal options.

Options are small JSON-able dicts and option 0 is the safe default wherever one exists (hold,
no swap, pass). The lists are shared, cached objects: treat them as read-only.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DECISION_KINDS", "Decision", "Option", "visible_to"]

Option = dict[str, Any]

#: Every kind of decision the engine asks.
DECISION_KINDS = ("turn", "swap", "trigger", "target", "card", "discard", "reveal", "give", "rps")


class Decision:
    """Who must choose, what kind of choice it is, and the legal options in order.

    ``context`` says why the choice is asked (the card whose effect asks it, the step).
    A plain slotted class: one is built per decision, on the hot path. Read-only by contract.
    """

    __slots__ = ("seat", "kind", "options", "context")

    def __init__(self, seat: int, kind: str, options: tuple[Option, ...],
                 context: dict[str, Any] | None = None) -> None:
        self.seat = seat
        self.kind = kind
        self.options = options
        self.context = context if context is not None else {}

    def __repr__(self) -> str:
        return f"Decision(seat={self.seat}, kind={self.kind!r}, options={list(self.options)})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Decision) and self.seat == other.seat
                and self.kind == other.kind and self.options == other.options)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[type[Decision], tuple[Any, ...]]:
        # a compiled class is rebuilt through its __init__, so pickle and copy pass its fields
        return Decision, (self.seat, self.kind, self.options, self.context)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "options": list(self.options),
                "context": self.context}

    @property
    def has_safe_default(self) -> bool:
        """Whether option 0 is a safe default (RULES.md E22): a hold or a pass (``{"swap":
        null}``, ``{"trap": null}``, ``{"card": null}``, ``{"bottom": null}``). A choice the
        rules force (a discard, a reveal, a target, a card to give, a throw) has none."""
        first = self.options[0] if self.options else {}
        return first.get("action") == "hold" or (len(first) == 1 and None in first.values())


def visible_to(to: int | None, seat: int) -> bool:
    """Whether an event logged with audience ``to`` may be seen by ``seat``: ``None`` is
    everyone, ``to >= 0`` that seat only, ``to < 0`` everyone but seat ``~to``."""
    return to is None or to == seat or (to < 0 and ~to != seat)
