"""A game whose record does not replay (of other rules than this arena's, or damaged) or
cannot be read at all, as its page shows it: what is stored, told without replaying it.

The replay viewer plays a record again with the engine (:mod:`arena.web.replay`), and the
engine plays its own rules only (``RECORD_FORMAT``): a game stored before a rules change does
not replay (docs/RECORDS.md, "Records of older rules"). Its page shows what the record holds
instead: the bots, their places and categories, the hands the showdown showed, the failures,
and the game told event by event as ``arena game`` tells it (:mod:`arena.engine.narration`),
under one line saying why there is no step-by-step view. A record of today's rules that
does not replay (damaged or edited after its game) is shown the same way, its line giving the
replay's reason; a stored record that cannot be read or told at all, as far as its game's
stored row goes (:func:`build_stored_row`).
"""

from __future__ import annotations

from typing import Any

from arena.common.plural import ordinal
from arena.common.printable import isolated
from arena.engine.narration import event_lines, header_lines
from arena.engine.record import other_format
from arena.engine.result import standing_places
from arena.engine.state import RECORD_FORMAT
from arena.errors import ReplayError
from arena.web.replay import TIEBREAK_TEXT, failure_view

__all__ = ["build_recorded", "build_stored_row", "damaged_note", "rules_note",
           "stored_row_note"]


def rules_note(recorded: str) -> str:
    """The line that says why a record of ``recorded``'s rules has no step-by-step view."""
    return (f"The step-by-step replay needs the rules this game was played under ({recorded}); "
            f"this arena plays {RECORD_FORMAT}, so the game is shown as recorded.")


def damaged_note(reason: str) -> str:
    """The line that says why a record of this arena's rules has no step-by-step view: its
    replay failed, for ``reason``."""
    return (f"This record of today's rules does not replay, so the game is shown as recorded; "
            f"the replay says: {reason}.")


def stored_row_note(reason: str) -> str:
    """The line over a game whose stored record cannot be read or told, for ``reason``."""
    return (f"Its stored record is damaged ({reason}), so the game is shown as far as its "
            "stored row goes: its bots, places and failures.")


def _list(value: Any) -> list[Any]:
    """``value`` if it is a list, else empty: a damaged record is shown as far as it goes."""
    return value if isinstance(value, list) else []


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _cards(value: Any) -> list[str]:
    return [str(card) for card in _list(value)]


def _hands_shown(events: list[Any], players: int) -> list[list[str] | None]:
    """Each seat's hand as the game's public events showed it at the end: every hand at a
    showdown, the ascending hand alone after The Ascension; ``None`` where none was shown."""
    hands: list[list[str] | None] = [None] * players
    for event in events:
        if not isinstance(event, dict) or event.get("to", "all") != "all":
            continue
        if event.get("type") == "showdown":
            for seat, hand in enumerate(_list(event.get("hands"))[:players]):
                hands[seat] = _cards(hand)
        ascending = event.get("seat")
        if event.get("type") == "ascension" and isinstance(ascending, int) \
                and 0 <= ascending < players:
            hands[ascending] = _cards(event.get("hand"))
    return hands


def _seats(record: dict[str, Any], players: list[str], bots: list[str]) -> list[dict[str, Any]]:
    """Each seat's bot, place (a forfeit the table's last, as the standings count it: RULES.md
    E28), category and hand at the end, as recorded."""
    result = _map(record.get("result"))
    placements, desmos = _list(result.get("placements")), _list(result.get("desmos"))
    forfeits = _map(result.get("forfeits"))
    hands = _hands_shown(_list(record.get("events")), len(players))
    # one place a seat, so that the table's last place is the players' count; 0 (a place no
    # seat has) where a damaged record holds none
    recorded = [placements[seat] if seat < len(placements)
                and isinstance(placements[seat], int) else 0 for seat in range(len(players))]
    places = standing_places(recorded, {seat for seat in range(len(players))
                                        if forfeits.get(str(seat))})
    seats = []
    for seat, (player, place) in enumerate(zip(players, places, strict=True)):
        forfeit = forfeits.get(str(seat))
        seats.append({
            "seat": seat, "player": player, "bot": bots[seat],
            "place": ordinal(place) if place else "?",
            "first": place == 1 and not forfeit,
            "category": str(desmos[seat]) if seat < len(desmos) else "?",
            "forfeit": str(forfeit) if forfeit else None, "hand": hands[seat],
        })
    return seats


def build_recorded(record: dict[str, Any], title: str = "",
                   note: str | None = None) -> dict[str, Any]:
    """A page's data for a record that does not replay: what it holds, as recorded, under
    ``note`` (default: :func:`rules_note`, for a record of other rules:
    :func:`arena.engine.record.other_format`). Raises :class:`ReplayError` for what cannot be
    told at all."""
    players = [str(player) for player in _list(record.get("players"))]
    seats = [str(key) for key in _list(_map(record.get("referee")).get("seats"))]
    bots = seats if len(seats) == len(players) else players
    result = _map(record.get("result"))
    try:
        # names isolated, as the replay's narration has them (a right-to-left one reorders
        # the words beside it otherwise)
        told = {**record, "players": [isolated(player) for player in players]}
        header, lines = header_lines(told), event_lines(told)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReplayError(f"not a game record ({type(exc).__name__}: {exc})") from None
    tiebreak = str(result.get("tiebreak", "none"))
    return {
        "title": title,
        "note": note or rules_note(other_format(record) or RECORD_FORMAT),
        "header": header,
        "seats": _seats(record, players, bots),
        "finished": bool(result),
        "tiebreak_text": TIEBREAK_TEXT.get(tiebreak, tiebreak),
        "failures": [failure_view(failure, players)
                     for failure in _list(_map(record.get("referee")).get("failures"))
                     if isinstance(failure, dict)],
        "choices": len(_list(record.get("choices"))),
        "lines": lines,
    }


def build_stored_row(row: dict[str, Any], title: str, reason: str) -> dict[str, Any]:
    """A page's data for a game whose stored record is damaged (``reason``), from what its
    ``games`` row holds in a record's shape (:func:`~arena.tournament.game_records.row_record`):
    its bots, places and failures; no events to tell, and no rules the row could name."""
    game = build_recorded(row, title, stored_row_note(reason))
    header = [line for line in game["header"] if not line.lstrip().startswith("house rules:")]
    return {**game, "header": header, "lines": []}
