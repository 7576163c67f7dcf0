"""Settings of one game: who plays, the seed, and the metadata the tie-breakers read."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.rulebook import ROUNDS_BY_PLAYERS
from arena.errors import RulesError

__all__ = ["ROUNDS_BY_PLAYERS", "GameConfig", "rounds_for"]


def rounds_for(players: int) -> int:
    """Rounds for a table size; any other player count is refused (ruling 7)."""
    try:
        return ROUNDS_BY_PLAYERS[players]
    except KeyError:
        raise RulesError(
            f"Palaestra is played by 2 to 5 players, not {players}"
        ) from None


def _date(value: object, what: str) -> dt.date:
    """A date from a date, a datetime (its day) or an ISO string (``2026-11-29``), as the
    kit and the protocol carry them; anything else is refused here, not when recording."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise RulesError(f"{what} must be a date (or YYYY-MM-DD), not {value!r}")


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a game before the first choice: same config + same choices =
    same game.

    ``last_book_finished`` holds one date (or None) per seat for the showdown tie-breaker
    (ruling 12); ``event_date`` is the day the game counts as played; ``rules`` are its house
    rules (a :class:`HouseRules` or a mapping of NAME: VALUE).
    """

    players: tuple[str, ...] = ("north", "south")
    seed: int = 0
    starting_seat: int = 0
    last_book_finished: tuple[dt.date | None, ...] = ()
    event_date: dt.date = field(default_factory=lambda: dt.date(2026, 11, 29))
    track_events: bool = True
    rules: HouseRules = DEFAULT_RULES

    def __post_init__(self) -> None:
        if not isinstance(self.rules, HouseRules):
            object.__setattr__(self, "rules", HouseRules.from_json(self.rules))
        if isinstance(self.players, str) or not hasattr(self.players, "__iter__"):
            raise RulesError(f"players must be a sequence of player names, e.g. ('a', 'b'), "
                             f"not {self.players!r}")
        players = tuple(self.players)
        object.__setattr__(self, "players", players)
        if type(self.seed) is not int:
            raise RulesError(f"the seed must be an integer, not {self.seed!r}")
        if type(self.starting_seat) is not int:
            raise RulesError(f"the starting seat must be an integer, not {self.starting_seat!r}")
        object.__setattr__(self, "event_date", _date(self.event_date, "event_date"))
        rounds_for(len(players))
        if not 0 <= self.starting_seat < len(players):
            raise RulesError(
                f"starting seat {self.starting_seat} is not a seat of a {len(players)}-player game"
            )
        books = tuple(None if b is None else _date(b, "last_book_finished")
                      for b in self.last_book_finished) or (None,) * len(players)
        if len(books) != len(players):
            raise RulesError("last_book_finished needs one entry per player")
        object.__setattr__(self, "last_book_finished", books)

    @property
    def rounds(self) -> int:
        return rounds_for(len(self.players))

    def to_json(self) -> dict[str, object]:
        return {
            "players": list(self.players),
            "seed": self.seed,
            "starting_seat": self.starting_seat,
            "last_book_finished": [d.isoformat() if d else None for d in self.last_book_finished],
            "event_date": self.event_date.isoformat(),
            "rules": self.rules.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> GameConfig:
        books = data.get("last_book_finished") or []
        if not isinstance(books, list):  # a record from elsewhere: refused, as a bad field
            raise TypeError(f"last_book_finished must be a list, not {type(books).__name__}")
        return cls(
            players=tuple(str(p) for p in data["players"]),  # type: ignore[attr-defined]
            seed=int(data["seed"]),  # type: ignore[call-overload]
            starting_seat=int(data.get("starting_seat", 0)),  # type: ignore[call-overload]
            last_book_finished=tuple(dt.date.fromisoformat(b) if b else None for b in books),
            event_date=dt.date.fromisoformat(str(data.get("event_date", "2026-11-29"))),
            rules=HouseRules.from_json(data.get("rules")),  # type: ignore[arg-type]
        )
