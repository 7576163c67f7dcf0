"""What a match reports: one :class:`GameOutcome` per finished game (as the tournament stores
it) and the :class:`MatchOutcome` of the whole match (plain data with ``to_json()``)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from arena.engine import standing_places

__all__ = ["GameOutcome", "MatchOutcome"]


@dataclass
class GameOutcome:
    """One finished game, as the tournament stores it (plain data; ``to_json()``)."""

    game_id: str
    game_index: int
    seed: int
    seats: list[str]
    names: list[str]
    starting_seat: int
    placements: list[int]
    desmos: list[str]
    ascension: bool
    tiebreak: str
    failures: list[dict[str, Any]]
    forfeits: dict[int, str]
    decisions: int
    duration_s: float
    latency: list[dict[str, Any]]
    record: dict[str, Any]
    sandbox_level: str = ""
    #: The match's bot in each seat (an index into the match's bots); empty: bot *i* in seat
    #: *i*, as in every match not played in duplicate.
    entrants: list[int] = field(default_factory=list)

    def seat_of(self, entrant: int) -> int:
        """The seat the match's bot ``entrant`` had in this game."""
        return self.entrants.index(entrant) if self.entrants else entrant

    def won(self, seat: int) -> bool:
        """First place played for: a forfeited seat never wins, even one sharing first
        place with every other seat forfeited (RULES.md E18)."""
        return self.placements[seat] == 1 and seat not in self.forfeits

    def standing_place(self, seat: int) -> int:
        """The seat's place as standings count it: a forfeit is the table's last (E28)."""
        return standing_places(self.placements, self.forfeits)[seat]

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id, "game_index": self.game_index, "seed": self.seed,
            "seats": list(self.seats), "names": list(self.names),
            "starting_seat": self.starting_seat, "placements": list(self.placements),
            "desmos": list(self.desmos), "ascension": self.ascension,
            "tiebreak": self.tiebreak, "failures": list(self.failures),
            "forfeits": {str(k): v for k, v in sorted(self.forfeits.items())},
            "decisions": self.decisions, "duration_s": round(self.duration_s, 6),
            "latency": list(self.latency), "sandbox_level": self.sandbox_level,
            "entrants": list(self.entrants) or list(range(len(self.seats))),
            "record": self.record,
        }


@dataclass
class MatchOutcome:
    """A finished match: every game, per-seat diagnostics and the sandbox level reached."""

    match_id: str
    seats: list[str]
    names: list[str]
    games: list[GameOutcome]
    bots: list[dict[str, Any]]
    sandbox_level: str
    limits: dict[str, int]
    duration_s: float
    warnings: list[str] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        return sum(g.decisions for g in self.games)

    def standings(self) -> list[dict[str, Any]]:
        """Per bot (in the match's order, its seat when not in duplicate): wins (first
        places, not forfeited), mean placement (a forfeit counts as last), forfeits."""
        rows = []
        for index, key in enumerate(self.seats):
            seats = [(g, g.seat_of(index)) for g in self.games]
            places = [g.standing_place(seat) for g, seat in seats]
            rows.append({
                "seat": index, "bot": key, "name": self.names[index],
                "wins": sum(1 for g, seat in seats if g.won(seat)),
                "mean_place": round(statistics.fmean(places), 3) if places else None,
                "forfeits": sum(1 for g, seat in seats if seat in g.forfeits),
            })
        return rows

    def to_json(self, records: bool = False) -> dict[str, Any]:
        games = []
        for game in self.games:
            data = game.to_json()
            if not records:
                data.pop("record")
            games.append(data)
        return {
            "match_id": self.match_id, "seats": list(self.seats), "names": list(self.names),
            "sandbox_level": self.sandbox_level, "warnings": list(self.warnings),
            "limits": dict(self.limits), "duration_s": round(self.duration_s, 3),
            "decisions": self.decisions, "standings": self.standings(),
            "bots": list(self.bots), "games": games,
        }
