"""One seat's view of a game: everything it may know, nothing it may not.

An observation holds the seat's own hand and traps, the public state (hand and trap counts,
revealed cards, both graveyards, the draw pile's size, round and turn) and the seat's own
event feed. It never holds another seat's hidden card: the hidden cards a seat has seen
(peeks, exchanges) reach it only through its private events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from arena.engine.cards import NOTATION, card_id

if TYPE_CHECKING:
    from arena.engine.state import State

__all__ = ["Observation", "observe", "observe_json", "seat_events"]


class Observation:
    """A snapshot for one seat, taken when built; card lists are in notation (``"God-3"``).

    Built at every decision, so it copies only small tuples and keeps the seat's own event
    feed as a (list, length) view of that append-only list: it holds no reference to the
    game's log, which has every seat's private events. :attr:`events` hands out copies, so
    an agent that changes them cannot change the game's record.
    """

    __slots__ = ("seat", "players", "round", "rounds", "turn", "active_seat", "phase",
                 "hand_ids", "trap_cards", "hand_sizes", "trap_counts", "revealed_ids",
                 "draw_pile", "_feed", "_feed_len", "_effect_gy", "_effect_gy_len",
                 "_discard_gy", "_discard_gy_len")

    seat: int
    players: tuple[str, ...]
    round: int
    rounds: int
    turn: int
    active_seat: int
    phase: str
    hand_ids: tuple[int, ...]
    #: (card id, own turns left before it expires, triggerable now) per own trap
    trap_cards: tuple[tuple[int, int, bool], ...]
    hand_sizes: tuple[int, ...]
    trap_counts: tuple[int, ...]
    revealed_ids: tuple[tuple[int, ...], ...]
    draw_pile: int

    def __init__(self, seat: int, players: tuple[str, ...], round: int, rounds: int, turn: int,
                 active_seat: int, phase: str, hand_ids: tuple[int, ...],
                 trap_cards: tuple[tuple[int, int, bool], ...], hand_sizes: tuple[int, ...],
                 trap_counts: tuple[int, ...], revealed_ids: tuple[tuple[int, ...], ...],
                 effect_gy: list[int], effect_gy_len: int, discard_gy: list[int],
                 discard_gy_len: int, draw_pile: int,
                 feed: list[dict[str, Any]], feed_len: int) -> None:
        self.seat = seat
        self.players = players
        self.round = round
        self.rounds = rounds
        self.turn = turn
        self.active_seat = active_seat
        self.phase = phase
        self.hand_ids = hand_ids
        self.trap_cards = trap_cards
        self.hand_sizes = hand_sizes
        self.trap_counts = trap_counts
        self.revealed_ids = revealed_ids
        self._effect_gy = effect_gy
        self._effect_gy_len = effect_gy_len
        self._discard_gy = discard_gy
        self._discard_gy_len = discard_gy_len
        self.draw_pile = draw_pile
        self._feed = feed
        self._feed_len = feed_len

    @classmethod
    def of(cls, state: State, seat: int) -> Observation:
        """``seat``'s view of ``state`` now (what :meth:`State.observe` returns)."""
        return observe(state, seat)

    @classmethod
    def from_json(cls, data: dict[str, Any],
                  events: list[dict[str, Any]] | None = None) -> Observation:
        """Rebuild an observation from its JSON (what a bot receives in ``act``) and the
        events the bot has seen, so a bot can search with the engine. Copies of a card get
        distinct ids, which are interchangeable."""
        taken: set[int] = set()

        def ids(names: list[str]) -> tuple[int, ...]:
            out = []
            for name in names:
                cid = card_id(name, taken)
                taken.add(cid)
                out.append(cid)
            return tuple(out)

        seat = int(data["seat"])
        hand_ids = ids(data["hand"])
        traps = data.get("traps", [])
        trap_ids = ids([t["card"] for t in traps])
        trap_cards = tuple((cid, int(t["turns_left"]), bool(t["triggerable"]))
                           for cid, t in zip(trap_ids, traps))
        revealed = list(data["revealed"])
        # the seat's own revealed cards are in its hand: reuse those ids
        own = list(hand_ids)
        own_revealed = []
        for name in revealed[seat]:
            match = next(c for c in own if NOTATION[c] == name)
            own.remove(match)
            own_revealed.append(match)
        revealed_ids = tuple(
            tuple(own_revealed) if other == seat else ids(cards)
            for other, cards in enumerate(revealed)
        )
        effect_gy = list(ids(data["effect_graveyard"]))
        discard_gy = list(ids(data["discard_graveyard"]))
        feed = [_copied(e) for e in (events if events is not None else data.get("events", []))]
        return cls(seat, tuple(data["players"]), int(data["round"]), int(data["rounds"]),
                   int(data["turn"]), int(data["active_seat"]), str(data.get("phase", "play")),
                   hand_ids, trap_cards, tuple(data["hand_sizes"]), tuple(data["trap_counts"]),
                   revealed_ids, effect_gy, len(effect_gy), discard_gy, len(discard_gy),
                   int(data["draw_pile"]), feed, len(feed))

    # -- notation views -------------------------------------------------------------
    @property
    def effect_graveyard_ids(self) -> list[int]:
        return self._effect_gy[: self._effect_gy_len]

    @property
    def discard_graveyard_ids(self) -> list[int]:
        return self._discard_gy[: self._discard_gy_len]

    @property
    def hand(self) -> list[str]:
        return [NOTATION[c] for c in self.hand_ids]

    @property
    def traps(self) -> list[dict[str, Any]]:
        return [{"card": NOTATION[c], "turns_left": left, "triggerable": ready}
                for c, left, ready in self.trap_cards]

    @property
    def revealed(self) -> list[list[str]]:
        return [[NOTATION[c] for c in cards] for cards in self.revealed_ids]

    @property
    def effect_graveyard(self) -> list[str]:
        return [NOTATION[c] for c in self.effect_graveyard_ids]

    @property
    def discard_graveyard(self) -> list[str]:
        return [NOTATION[c] for c in self.discard_graveyard_ids]

    @property
    def events(self) -> list[dict[str, Any]]:
        """The seat's own event feed up to this observation (copies: yours to change)."""
        return [_copied(event) for event in self._feed[: self._feed_len]]

    def to_json(self, include_events: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "seat": self.seat,
            "players": list(self.players),
            "round": self.round,
            "rounds": self.rounds,
            "turn": self.turn,
            "active_seat": self.active_seat,
            "phase": self.phase,
            "hand": self.hand,
            "traps": self.traps,
            "hand_sizes": list(self.hand_sizes),
            "trap_counts": list(self.trap_counts),
            "revealed": self.revealed,
            "effect_graveyard": self.effect_graveyard,
            "discard_graveyard": self.discard_graveyard,
            "draw_pile": self.draw_pile,
        }
        if include_events:
            data["events"] = self.events
        return data


_NO_EVENTS: Final[list[dict[str, Any]]] = []


def seat_events(observation: Observation) -> list[dict[str, Any]]:
    """The observation's event feed itself, not copies: for the engine's own reading (a
    search samples many states from one observation), never to hand to an agent."""
    return observation._feed[: observation._feed_len]


def _copied(value: Any) -> Any:
    """A copy of a JSON-like event (dicts and lists copied all the way down)."""
    if type(value) is dict:
        return {key: _copied(item) for key, item in value.items()}
    if type(value) is list:
        return [_copied(item) for item in value]
    return value


#: no card revealed anywhere, by player count (the common case, shared)
_NONE_REVEALED: Final = tuple(((),) * n for n in range(8))


def _revealed_ids(revealed: list[set[int]]) -> tuple[tuple[int, ...], ...]:
    for cards in revealed:
        if cards:
            return tuple([tuple(r) for r in revealed])
    return _NONE_REVEALED[len(revealed)]


def observe(state: State, seat: int, events: bool = True) -> Observation:
    """What ``seat`` may know of ``state`` now (never another seat's hidden card); without
    ``events`` its feed is left empty (the referee sends events apart, once each).

    Graveyards grow in place and are replaced when a card leaves them
    (:meth:`State.take_from_discard_graveyard`, reshuffles), and a seat's feed only grows,
    so (list, length) views of them are snapshots; everything else is copied into small
    tuples.
    """
    if not 0 <= seat < state.n:
        raise IndexError(f"no seat {seat}: the game has seats 0-{state.n - 1}")
    traps = state.traps[seat]
    if traps:
        done = state.own_turns[seat]
        turn = state.turn
        trap_cards = tuple((t.card, 3 - (done - t.owner_turns), t.set_turn < turn)
                           for t in traps)
    else:
        trap_cards = ()
    effect_gy = state.effect_graveyard
    discard_gy = state.discard_graveyard
    feed = state.feed(seat) if events else _NO_EVENTS
    return Observation(seat, state.players, state.round, state.rounds, state.turn, state.active,
                       state.phase, tuple(state.hands[seat]), trap_cards,
                       tuple([len(h) for h in state.hands]),
                       tuple([len(t) for t in state.traps]),
                       _revealed_ids(state.revealed),
                       effect_gy, len(effect_gy), discard_gy, len(discard_gy),
                       len(state.draw_pile), feed, len(feed))


def observe_json(state: State, seat: int) -> dict[str, Any]:
    """``observe(state, seat, False).to_json(include_events=False)`` built straight from the
    state: what the referee puts in every ``act``, so it skips the snapshot it would only
    read once (tests/engine/test_observation.py holds both to the same output)."""
    if not 0 <= seat < state.n:
        raise IndexError(f"no seat {seat}: the game has seats 0-{state.n - 1}")
    traps = state.traps[seat]
    trap_list: list[dict[str, Any]] = []
    if traps:
        done = state.own_turns[seat]
        turn = state.turn
        trap_list = [{"card": NOTATION[t.card], "turns_left": 3 - (done - t.owner_turns),
                      "triggerable": t.set_turn < turn} for t in traps]
    return {
        "seat": seat,
        "players": list(state.players),
        "round": state.round,
        "rounds": state.rounds,
        "turn": state.turn,
        "active_seat": state.active,
        "phase": state.phase,
        "hand": [NOTATION[c] for c in state.hands[seat]],
        "traps": trap_list,
        "hand_sizes": [len(h) for h in state.hands],
        "trap_counts": [len(t) for t in state.traps],
        "revealed": [[NOTATION[c] for c in cards] for cards in state.revealed],
        "effect_graveyard": [NOTATION[c] for c in state.effect_graveyard],
        "discard_graveyard": [NOTATION[c] for c in state.discard_graveyard],
        "draw_pile": len(state.draw_pile),
    }
