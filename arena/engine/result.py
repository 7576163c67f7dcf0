"""How a finished game ended: placements by Desmos, and who won."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from arena.engine.desmos import Value

__all__ = ["GameResult", "place", "standing_places"]


class GameResult:
    """How a finished game ended."""

    __slots__ = ("placements", "desmos", "ascension", "tiebreak", "forfeits", "keys")

    def __init__(self, placements: list[int], desmos: list[str], ascension: bool,
                 tiebreak: str, forfeits: dict[int, str], keys: list[list[Any]]) -> None:
        self.placements = placements
        self.desmos = desmos
        self.ascension = ascension
        self.tiebreak = tiebreak
        self.forfeits = forfeits
        self.keys = keys

    def __repr__(self) -> str:
        # Readable at a prompt or in a test failure; ascension and forfeits only when they
        # happened, the tie keys never (internal, long).
        parts = [f"placements={self.placements!r}", f"desmos={self.desmos!r}"]
        if self.ascension:
            parts.append("ascension=True")
        parts.append(f"tiebreak={self.tiebreak!r}")
        if self.forfeits:
            parts.append(f"forfeits={self.forfeits!r}")
        return f"GameResult({', '.join(parts)})"

    def to_json(self) -> dict[str, Any]:
        return {
            "placements": list(self.placements),
            "desmos": list(self.desmos),
            "ascension": self.ascension,
            "tiebreak": self.tiebreak,
            "forfeits": {str(seat): reason for seat, reason in sorted(self.forfeits.items())},
        }

    @property
    def winners(self) -> list[int]:
        """Seats first without having forfeited: a game every seat forfeited has none
        (E18; its placements still share first place, which standings read as last, E28)."""
        forfeits = self.forfeits
        return [seat for seat, place in enumerate(self.placements)
                if place == 1 and seat not in forfeits]

    @property
    def standing_places(self) -> list[int]:
        """The places the standings count (:func:`standing_places`)."""
        return standing_places(self.placements, self.forfeits)

    @property
    def losers(self) -> list[int]:
        worst = max(self.placements)
        return [seat for seat, place in enumerate(self.placements) if place == worst]


def place(values: list[Value], contenders: list[int], winner: int | None,
          n: int) -> list[int]:
    """Placements per seat: 1 + the number of contenders ahead; forfeited seats last."""
    placements = [len(contenders) + 1] * n
    for seat in contenders:
        if seat == winner:
            placements[seat] = 1
            continue
        ahead = sum(1 for other in contenders
                    if other != seat and (other == winner or values[other] > values[seat]))
        placements[seat] = 1 + ahead
    return placements


def standing_places(placements: Sequence[int], forfeited: Collection[int]) -> list[int]:
    """Places as standings count them (E28): a seat that played keeps its placement, and every
    forfeited seat is the table's last place, ``len(placements)``, together. The engine's own
    placements put the forfeited seats after the contenders, which in a game every seat
    forfeited is first: a place nobody played for, which must not read as credit."""
    last = len(placements)
    return [last if seat in forfeited else place for seat, place in enumerate(placements)]
