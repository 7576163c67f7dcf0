"""How a game ends: the showdown (ruling 12) or an instant Ascension (ruling 11).

Players are placed by Desmos; equal Desmos below first place share a placement. Equal first
place goes to the most recent ``last_book_finished`` within the year before the event, then
to sudden-death Rock-Paper-Scissors (each throw a decision), then, after 50 throws, to a
seeded lot. A forfeited seat is placed last and never contends.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from arena.engine.actions import shown_hand
from arena.engine.cards import NOTATION
from arena.engine.decision import Option
from arena.engine.desmos import Category, evaluate
from arena.engine.state import GameResult, State

__all__ = ["RPS_THROWS", "RPS_THROW_CAP", "book_tiebreak", "place", "showdown"]

RPS_THROWS = ("rock", "paper", "scissors")
RPS_THROW_CAP = 50
_BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
_RPS_OPTIONS: list[Option] = [{"throw": t} for t in RPS_THROWS]
Value = tuple[int, tuple[int, ...]]


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


def book_tiebreak(seats: list[int], books: tuple[dt.date | None, ...],
                  event_date: dt.date) -> list[int]:
    """The tied seats left after "the player who most recently finished a printed book within
    the year": all of them when nobody's date counts."""
    earliest = event_date - dt.timedelta(days=365)
    dated = {s: books[s] for s in seats
             if books[s] is not None and earliest <= books[s] <= event_date}  # type: ignore[operator]
    if not dated:
        return list(seats)
    latest = max(dated.values())  # type: ignore[type-var]
    return [s for s in seats if dated.get(s) == latest]


def _values(state: State) -> list[Value]:
    return [evaluate(hand) for hand in state.hands]


def showdown(state: State) -> None:
    """After the final round: reveal, place, and settle equal first place."""
    state.phase = "showdown"
    state.emit({"type": "showdown",
                "hands": [[NOTATION[c] for c in shown_hand(hand)] for hand in state.hands]})
    values = _values(state)
    contenders = [s for s in range(state.n) if s not in state.forfeits]
    if not contenders:
        _finish(state, values, contenders, None, "none", False)
        return
    best = max(values[s] for s in contenders)
    tied = [s for s in contenders if values[s] == best]
    if len(tied) == 1:
        _finish(state, values, contenders, tied[0], "none", False)
        return
    left = book_tiebreak(tied, state.config.last_book_finished, state.config.event_date)
    if len(left) == 1:
        _finish(state, values, contenders, left[0], "book", False)
        return
    state.push(_rps_round, tuple(left), 0)


def _rps_round(state: State, players: tuple[int, ...], thrown: int) -> None:
    state.scratch["rps"] = ()
    state.push(_rps_resolve, players, thrown)
    for seat in reversed(players):
        state.push(_rps_ask, seat, thrown)


def _rps_ask(state: State, seat: int, thrown: int) -> None:
    state.ask(seat, "rps", _RPS_OPTIONS, RPS_THROWS, _rps_store, seat,
              context={"why": "sudden-death Rock-Paper-Scissors", "throw": thrown + 1})


def _rps_store(state: State, throw: str, seat: int) -> None:
    state.scratch["rps"] = (*state.scratch["rps"], (seat, throw))


def _rps_resolve(state: State, players: tuple[int, ...], thrown: int) -> None:
    throws: tuple[tuple[int, str], ...] = state.scratch.pop("rps")
    state.emit({"type": "rps", "throws": {str(s): t for s, t in throws}})
    # a seat that forfeited during the sudden death no longer contends: its throw is void
    throws = tuple((seat, throw) for seat, throw in throws if seat not in state.forfeits)
    shapes = {t for _, t in throws}
    survivors = [seat for seat, _ in throws]
    if len(shapes) == 2:
        a, b = shapes
        winning = a if _BEATS[a] == b else b
        survivors = [s for s, t in throws if t == winning]
    thrown += 1
    values = _values(state)
    contenders = [s for s in range(state.n) if s not in state.forfeits]
    if len(survivors) == 1:
        _finish(state, values, contenders, survivors[0], "rps", False)
    elif not survivors:  # every tied seat forfeited: the rest are placed by Desmos alone
        _finish(state, values, contenders, None, "none", False)
    elif thrown >= RPS_THROW_CAP:
        _finish(state, values, contenders, state.rng.choice(sorted(survivors)), "lot", False)
    else:
        state.push(_rps_round, tuple(survivors), thrown)


def finish_by_ascension(state: State, seat: int) -> None:
    """Five natural Gods: the game ends at once (ruling 11)."""
    state._stack.clear()
    state.decision = None
    state.emit({"type": "ascension", "seat": seat,
                "hand": [NOTATION[c] for c in state.hands[seat]]})
    contenders = [s for s in range(state.n) if s not in state.forfeits]
    _finish(state, _values(state), contenders, seat, "ascension", True)


def _finish(state: State, values: list[Value], contenders: list[int], winner: int | None,
            tiebreak: str, ascension: bool) -> None:
    placements = place(values, contenders, winner, state.n)
    desmos = [Category(v[0]).label for v in values]
    state.phase = "over"
    state.ascended = None
    keys: list[list[Any]] = [[v[0], list(v[1])] for v in values]
    state.result = GameResult(placements, desmos, ascension, tiebreak, dict(state.forfeits), keys)
    state.emit({"type": "game_end", "placements": placements, "desmos": desmos,
                "ascension": ascension, "tiebreak": tiebreak})
