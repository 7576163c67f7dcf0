"""How a finished game ended: placements by Desmos, and who won."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from arena.engine.desmos import Value

__all__ = ["GameResult", "end_seen_by", "place", "seen_desmos", "standing_places"]


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

    def __reduce__(self) -> tuple[type[GameResult], tuple[Any, ...]]:
        # a compiled class is rebuilt through its __init__, so pickle and copy pass its fields
        return GameResult, (self.placements, self.desmos, self.ascension, self.tiebreak,
                            self.forfeits, self.keys)

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

    def desmos_seen_by(self, seat: int) -> list[str | None]:
        """Each seat's category as ``seat`` was shown it (:func:`seen_desmos`)."""
        return seen_desmos(self.desmos, self.placements, self.ascension, seat)

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


def seen_desmos(desmos: Sequence[str], placements: Sequence[int], ascension: bool,
                seat: int) -> list[str | None]:
    """Each seat's Desmos category as ``seat`` saw the game end (RULES.md E31): every one
    after a showdown, which shows every hand; after an Ascension, which shows only the
    ascender's (the one seat placed 1), its own and the ascender's, None for the others."""
    if not ascension:
        return list(desmos)
    return [category if other == seat or placements[other] == 1 else None
            for other, category in enumerate(desmos)]


def end_seen_by(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """An event as ``seat`` is shown it: the same event, but for a ``game_end`` after an
    Ascension, a copy with the hidden hands' categories left out (:func:`seen_desmos`)."""
    if event["type"] != "game_end" or not event.get("ascension"):
        return event
    return {**event, "desmos": seen_desmos(event["desmos"], event["placements"], True, seat)}


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
