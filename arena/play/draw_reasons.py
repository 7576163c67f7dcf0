"""Why each draw is made, told with it: a Phoenix's player draws twice in one play (the
effect's draw, then the play's, which takes back the card the Phoenix put on the pile), and
"alice draws Fate-2" twice over read as the Phoenix's doing.

The engine makes a draw owed on a stack: a play's draw waits under its effect, a forced
discard's draw back under the God it fires (RULES.md Turn Structure, Forced Discards, The
Palaestron). Kept here from the events every seat is told, the same stack: an event that owes
a draw pushes its reason for that seat, and the seat's next draw (or the Palaestron it draws,
or an empty pile) pays the last one owed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.engine.effects import DRAWING_EFFECTS

__all__ = ["DrawReasons"]

#: Why a draw is made, by what owed it.
TURN, SWAP, BACK, PALAESTRON = ("the turn's draw", "the swap's draw", "back to five",
                                "in place of the Palaestron")


class DrawReasons:
    """The draws each seat owes, the last owed on top."""

    def __init__(self) -> None:
        self.owed: dict[int, list[str]] = {}

    def follow(self, event: Mapping[str, Any]) -> str | None:
        """Take ``event`` into account; for a draw, why it is made (None if not known)."""
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "game_start":
            self.owed = {}
            return None
        if not isinstance(seat, int):
            return None
        owed = self.owed.setdefault(seat, [])
        if kind in ("draw", "pile_exhausted"):  # an empty pile pays it with no card
            why = owed.pop() if owed else None
            return why if kind == "draw" else None
        if kind == "palaestron":  # drawn (the draw owed is paid), it owes one in its place
            if owed:
                owed.pop()
            owed.append(PALAESTRON)
        elif kind in ("play", "set_trap"):
            owed.append(TURN)
        elif kind == "discard" and event.get("why") == "swap":
            owed.append(SWAP)
        elif kind == "forced_discard":
            owed.append(BACK)
        elif kind == "effect" and event.get("card") in DRAWING_EFFECTS:
            owed.append(f"by {event['card']}")
        return None
