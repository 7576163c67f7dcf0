"""What a stored game's row says of its play besides its seats and placements, read back:
the categories shown at the showdown, the tiebreak, an ascension, the bots' failures and the
decisions taken (what the tournament site lists of each game)."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from arena.errors import StoreError
from arena.tournament.store import Store, stored_whole

__all__ = ["GameDetails", "game_details"]


class GameDetails(NamedTuple):
    """One game's showdown and conduct, as its row stores them."""

    #: each seat's category at the showdown (none where the game ended before one)
    desmos: list[str]
    tiebreak: str
    ascension: bool
    #: the failures recorded, each an object (the referee's ``type``, ``detail``, ...)
    failures: list[dict[str, Any]]
    decisions: int


def game_details(store: Store, tournament_id: int) -> dict[str, GameDetails]:
    """Each recorded game of the tournament, by game id."""
    found = {}
    for game, desmos, tiebreak, ascension, failures, decisions in store.conn.execute(
            "SELECT id, desmos_json, tiebreak, ascension, failures_json, decisions "
            "FROM games WHERE tournament_id = ?", (tournament_id,)):
        where = f"game {game}"
        found[str(game)] = GameDetails(
            desmos=[str(d) for d in _stored_list(desmos, "desmos_json", where)],
            tiebreak=str(tiebreak or "none"), ascension=bool(ascension),
            failures=[f for f in _stored_list(failures, "failures_json", where)
                      if isinstance(f, dict)],
            decisions=stored_whole(decisions, "decisions", where))
    return found


def _stored_list(raw: Any, what: str, where: str) -> list[Any]:
    """A JSON list stored in a column (``NULL``: none); anything else is a damaged row."""
    try:
        value = json.loads(raw or "[]")
    except ValueError:
        value = None
    if not isinstance(value, list):
        raise StoreError(f"{where}: its {what} is not a JSON list ({raw!r})")
    return value
