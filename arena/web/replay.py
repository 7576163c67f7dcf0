"""A game record turned into the replay viewer's data: the table at every decision.

The record is played again with the engine (its seed, forfeits and choices, as
:func:`arena.engine.record.replay` does), and at each decision the table is taken from the
engine's own observations: seat *s*'s hand and traps are what ``state.observe_json(s)``
shows seat *s*; the public part (hand sizes, revealed cards, graveyards, the draw pile) is
the same in every seat's observation. A seat's view in the page is therefore exactly that
seat's observation, and the narrated lines are :mod:`arena.engine.narration`'s, cut per step
(the whole game's and each seat's own feed).

Steps are precomputed here, so stepping through a replay in the browser needs no request.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

from arena.common.plural import ordinal
from arena.common.printable import isolated, printable
from arena.engine.actions import shown_hand
from arena.engine.cards import NOTATION
from arena.engine.desmos import Category
from arena.engine.game import new_game
from arena.engine.narration import WINDOW_TEXT, event_lines, header_lines
from arena.engine.record import game_record, other_format, recorded_play, replay_choices
from arena.engine.state import RECORD_FORMAT, State, recorded_audience
from arena.errors import ArenaError, ReplayError
from arena.referee.copy_paths import author_paths

__all__ = ["TIEBREAK_TEXT", "build_replay", "failure_view", "option_label", "option_labels",
           "table_at"]

#: How first place was settled, for people (the record's ``tiebreak``).
TIEBREAK_TEXT = {
    "none": "no tie", "book": "tie broken by the most recent book",
    "rps": "tie broken by Rock-paper-scissors", "lot": "tie broken by lot after 50 throws",
    "ascension": "The Ascension",
}


def option_label(kind: str, option: Mapping[str, Any], players: Sequence[str]) -> str:
    """A decision's option for people: ``play God-3``, ``no swap``, ``look at bob``..."""
    if "action" in option:
        action = str(option["action"])
        verb = {"hold": "hold", "play": "play", "trap": "set a trap:"}.get(action, action)
        return f"{verb} {option['card']}" if option.get("card") else verb
    if "swap" in option:
        return f"swap {option['swap']}" if option["swap"] else "no swap"
    if "trap" in option:
        return f"trigger {option['trap']}" if option["trap"] else "pass"
    if "bottom" in option:  # Lachesis: the top card stays, or goes under the pile
        return f"move {option['bottom']} to the bottom" if option["bottom"] else "keep it on top"
    if "seat" in option:
        seat = option["seat"]
        name = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else seat
        slot = option.get("slot")  # Arcoi's snipe: one option per trap, two may be one seat's
        if isinstance(slot, int):
            return f"{name}'s trap {slot + 1}"
        return f"{name} (seat {seat})"
    if "card" in option:
        if option["card"] is None:
            return "pass"
        if "depth" in option:  # the other copy of a card in a pile (RULES.md E26)
            return f"{option['card']} ({ordinal(int(option['depth']))} from the top)"
        return f"{kind} {option['card']}" if kind in ("discard", "give", "reveal") \
            else str(option["card"])
    return ", ".join(f"{key} {value}" for key, value in option.items()) or kind


def option_labels(kind: str, options: Sequence[Mapping[str, Any]],
                  players: Sequence[str]) -> list[str]:
    """A decision's options for people; where another copy of a card names its place in the
    pile (RULES.md E26), the usual option says it is the copy nearest the top, as ``arena
    play`` says: "Beast-1" beside "Beast-1 (2nd from the top)" left the reader to guess."""
    placed = {option.get("card") for option in options if "depth" in option}
    return [option_label(kind, option, players)
            + (" (nearest the top)" if option.get("card") in placed and "depth" not in option
               else "")
            for option in options]


def table_at(state: State) -> dict[str, Any]:
    """The table now, from the seats' observations: hands, traps (card, own turns left,
    triggerable), revealed cards, graveyards, the draw pile, round, turn and phase."""
    views = [state.observe_json(seat) for seat in range(state.n)]
    public = views[0]
    return {
        "round": public["round"], "turn": public["turn"], "active": public["active_seat"],
        "phase": public["phase"],
        "hands": [view["hand"] for view in views],
        "traps": [[[t["card"], t["turns_left"], t["triggerable"]] for t in view["traps"]]
                  for view in views],
        "trap_counts": public["trap_counts"],
        "revealed": public["revealed"],
        "effect_graveyard": public["effect_graveyard"],
        "discard_graveyard": public["discard_graveyard"],
        "draw_pile": public["draw_pile"],
    }


def _lines(players: list[str], events: list[dict[str, Any]], first: bool,
           seat: int | None, dealing: bool) -> list[str]:
    """The narration of these events (one step's), as ``arena game`` tells them
    (``dealing``: no turn started before them)."""
    if not events:
        return []
    lines = event_lines({"players": players, "events": events}, seat, dealing=dealing)
    # event_lines heads a telling that opens mid-turn with "Deal": only the first step does
    if not first and lines and lines[0] == "Deal":
        lines = lines[1:]
    return lines


def _check_format(record: Any) -> None:
    recorded = other_format(game_record(record))
    if recorded is not None:
        raise ReplayError(f"the record is {recorded!r}, from another rules version; the viewer "
                          f"replays {RECORD_FORMAT!r} records only (the rules changed in "
                          "between: see RULES.md)")


def _seat_lines(players: list[str], events: list[dict[str, Any]], first: bool,
                gone: set[int], dealing: bool) -> list[list[str] | None]:
    """Each seat's narration of one step; ``None`` where it is the whole telling (every event
    public); nothing after the seat's forfeit (a forfeited bot is sent nothing more).
    ``gone`` (seats that forfeited in an earlier step) grows here."""
    public = all(event.get("to") == "all" and event.get("type") != "forfeit"
                 for event in events)
    told: list[list[str] | None] = []
    for seat in range(len(players)):
        if seat in gone:
            told.append([])
        elif public:
            told.append(None)
        else:
            told.append(_lines(players, events, first, seat, dealing))
    gone.update(int(e["seat"]) for e in events if e.get("type") == "forfeit")
    return told


def _why(context: Mapping[str, Any]) -> str:
    """Why a decision is asked, with the trigger window and the card that asks or is about to
    resolve: a trap's reason alone is the same at every window."""
    why = str(context.get("why", ""))
    window = WINDOW_TEXT.get(str(context.get("window")))
    if window:
        why += f", {window}"
    source = context.get("source")
    return f"{why}: {source}" if source else why


def _step(state: State, players: list[str], events: list[dict[str, Any]], first: bool,
          chosen: int | None, gone: set[int]) -> dict[str, Any]:
    step = table_at(state)
    # a Palaestron before any turn was dealt: whether a turn started before this step's
    # events (the log before them; a turn starts early, so the search stops soon)
    dealing = not any(e.get("type") == "turn_start"
                      for _, e in islice(state.log, len(state.log) - len(events)))
    decision = state.decision
    if decision is not None and chosen is not None:
        step["decision"] = {
            "seat": decision.seat, "kind": decision.kind,
            "why": _why(decision.context),
            "options": option_labels(decision.kind, decision.options, players),
            "chosen": chosen,
        }
    step["shown_hands"] = _shown_hands(state)
    step["lines"] = _lines(players, events, first, None, dealing)
    step["seat_lines"] = _seat_lines(players, events, first, gone, dealing)
    step["forfeited"] = [e for e in events if e.get("type") == "forfeit"]  # for _left
    return step


def _shown_hands(state: State) -> list[list[str] | None] | None:
    """The hands every seat has been shown whole, in the order the showdown shows them (card
    order, E23): all of them from the showdown on; after an Ascension, which comes instead
    of it, only the ascender's (E31). None before."""
    result = state.result
    if state.phase != "showdown" and result is None:
        return None
    return [[NOTATION[card] for card in shown_hand(hand)]
            if result is None or not result.ascension or result.placements[seat] == 1
            else None for seat, hand in enumerate(state.hands)]


def _left(steps: list[dict[str, Any]], players: int) -> list[dict[str, Any] | None]:
    """Per seat, the step its forfeit is told at and why, or ``None``: from that step on, its
    view keeps the table as it left it (a forfeited bot is sent nothing more)."""
    left: list[dict[str, Any] | None] = [None] * players
    for number, step in enumerate(steps):
        for event in step.pop("forfeited"):
            seat = int(event["seat"])
            if 0 <= seat < players and left[seat] is None:
                left[seat] = {"step": number, "reason": str(event.get("reason", ""))}
    return left


def _isolated(players: Iterable[str]) -> list[str]:
    """The players as the narration names them on a page: each name isolated, so that a
    right-to-left one does not reorder the words beside it ("seat 0  NAME: 2nd")."""
    return [isolated(name) for name in players]


def _play(record: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    """Replay the record, a step per decision and a last one for the end."""
    config, choices, forfeits = recorded_play(record)
    state = new_game(config)
    players = _isolated(config.players)
    steps: list[dict[str, Any]] = []
    seen = 0
    gone: set[int] = set()
    for number, (seat, kind, index) in replay_choices(state, choices, forfeits):
        decision = state.decision
        if decision is None or (decision.seat, decision.kind) != (seat, kind) \
                or not 0 <= index < len(decision.options):
            raise ReplayError(f"choice {number}: the record does not replay here "
                              "(arena replay says where it differs)")
        log = [{"to": recorded_audience(to), **event} for to, event in state.log[seen:]]
        seen = len(state.log)
        steps.append(_step(state, players, log, not steps, index, gone))
    log = [{"to": recorded_audience(to), **event} for to, event in state.log[seen:]]
    steps.append(_step(state, players, log, not steps, None, gone))
    return state, steps


def _showdown(state: State) -> dict[str, Any] | None:
    """Each hand's Desmos category and tie key at the end, and how first place was settled."""
    result = state.result
    if result is None:
        return None
    values = state.desmos_values()
    return {
        "hands": [list(hand) for hand in table_at(state)["hands"]],
        "categories": [Category(category).label for category, _ in values],
        "keys": [list(key) for _, key in values],
        "placements": result.standing_places,  # a forfeit last, as the games list (E28)
        "tiebreak": result.tiebreak,
        "tiebreak_text": TIEBREAK_TEXT.get(result.tiebreak, result.tiebreak),
        "ascension": result.ascension,
        "forfeits": {str(seat): reason for seat, reason in result.forfeits.items()},
    }


def failure_view(failure: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """A referee's failure as the page shows it; from a records file made elsewhere, a field
    of another type counts as missing, and a seat must be one of the game's."""
    def text(key: str) -> str | None:
        return failure[key] if isinstance(failure.get(key), str) else None

    def number(key: str) -> int | None:
        value = failure.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    seat = number("seat")
    seat = seat if seat is not None and 0 <= seat < len(players) else None
    return {"seat": seat, "bot": text("bot") or (players[seat] if seat is not None else "?"),
            "type": text("type") or "?", "detail": author_paths(text("detail") or ""),
            "round": number("round"), "kind": text("kind")}


def build_replay(record: Any, title: str = "") -> dict[str, Any]:
    """The viewer's data for one game record (docs/REPORTS.md). Raises
    :class:`ReplayError` for a record of another rules version or one that does not
    replay."""
    _check_format(record)
    try:
        state, steps = _play(record)
    except ArenaError as exc:
        raise ReplayError(str(exc)) from None
    # OverflowError: JSON's 1e400 reads back as an infinite float, which no int holds
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise ReplayError(f"not a game record ({type(exc).__name__}: {exc})") from None
    expected = record.get("result")
    if expected is not None and state.result is not None \
            and expected != state.result.to_json():
        raise ReplayError("the replayed result differs from the recorded one")
    referee = record.get("referee") if isinstance(record.get("referee"), dict) else {}
    if not isinstance(record.get("players"), list):  # the game was played from its config's
        raise ReplayError("not a game record (its players are not a list)")
    players = [str(p) for p in record["players"]]
    # a records file may come from elsewhere: a field of another type counts as missing
    seats, failures = (value if isinstance(value, list) else []
                       for value in (referee.get("seats"), referee.get("failures")))
    return {
        "title": title,
        # escaped as the narration names them: a handed database's name never passed the
        # rule of names, and an override in it would draw it as another
        "players": [printable(p) for p in players],
        "bots": [printable(str(b)) for b in (seats or players)],
        "rounds": record.get("rounds"),
        "seed": record.get("seed"),
        "header": header_lines({**record, "players": _isolated(players)}),
        "failures": [failure_view(failure, players) for failure in failures
                     if isinstance(failure, dict)],
        "showdown": _showdown(state),
        "left": _left(steps, len(players)),
        "steps": steps,
    }
