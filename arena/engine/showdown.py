"""The showdown after the final round (ruling 12): who is first.

Players are placed by Desmos; equal Desmos below first place share a placement. Equal first
place goes to the most recent ``last_book_finished`` within the year before the event (from 365
days before it), then to sudden-death Rock-Paper-Scissors (each throw a decision),
then, after ``RPS_THROW_CAP`` throws, to a seeded lot. A forfeited seat is placed last and
never contends. :meth:`State.finish` places the seats; an Ascension (ruling 11) ends a game at
once there.
"""

from __future__ import annotations

import datetime as dt

from arena.engine.actions import shown_hand
from arena.engine.cards import NOTATION
from arena.engine.decision import Option
from arena.engine.rulebook import RPS_THROW_CAP
from arena.engine.state import State

__all__ = ["RPS_THROWS", "RPS_THROW_CAP", "BOOK_WINDOW", "book_tiebreak", "showdown"]

RPS_THROWS = ("rock", "paper", "scissors")
_BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
_RPS_OPTIONS: list[Option] = [{"throw": t} for t in RPS_THROWS]


#: How far back a finished book counts: Ruling 12 says "within the 365 days before the event
#: date", a count of days, so a span holding 29 February starts a day after the same date a
#: year earlier.
BOOK_WINDOW = dt.timedelta(days=365)


def book_tiebreak(seats: list[int], books: tuple[dt.date | None, ...],
                  event_date: dt.date) -> list[int]:
    """The tied seats left after "the player who most recently finished a printed book within
    the year": all of them when nobody's date counts. A date counts from 365 days before the
    event date up to the event date, both days included."""
    earliest = event_date - BOOK_WINDOW
    dated = {s: books[s] for s in seats
             if books[s] is not None and earliest <= books[s] <= event_date}  # type: ignore[operator]
    if not dated:
        return list(seats)
    latest = max(dated.values())  # type: ignore[type-var]
    return [s for s in seats if dated.get(s) == latest]


def showdown(state: State) -> None:
    """After the final round: reveal, place, and settle equal first place."""
    state.phase = "showdown"
    state.emit({"type": "showdown",
                "hands": [[NOTATION[c] for c in shown_hand(hand)] for hand in state.hands]})
    _settle_first_place(state)


def _settle_first_place(state: State) -> None:
    """Place the contending seats: the best Desmos first, a tie for it by book, then by
    sudden death."""
    values = state.desmos_values()
    contenders = [s for s in range(state.n) if s not in state.forfeits]
    if not contenders:
        state.finish(None, "none")
        return
    best = max(values[s] for s in contenders)
    tied = [s for s in contenders if values[s] == best]
    if len(tied) == 1:
        state.finish(tied[0], "none")
        return
    left = book_tiebreak(tied, state.config.last_book_finished, state.config.event_date)
    if len(left) == 1:
        state.finish(left[0], "book")
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
    if len(survivors) == 1:
        state.finish(survivors[0], "rps")
    elif not survivors:
        # every tied seat forfeited: first place goes to the best of the seats still
        # contending, and a tie for it is settled as any other (ruling 12)
        _settle_first_place(state)
    elif thrown >= RPS_THROW_CAP:
        state.finish(state.rng.choice(sorted(survivors)), "lot")
    else:
        state.push(_rps_round, tuple(survivors), thrown)
