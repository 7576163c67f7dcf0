"""One seat's view of a game: everything it may know, nothing it may not.

An observation holds the seat's own hand and traps, the public state (hand and trap counts,
revealed cards, both graveyards, the draw pile's size, round and turn) and the seat's own
event feed. It never holds another seat's hidden card: the hidden cards a seat has seen
(peeks, exchanges) reach it only through its private events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.engine.cards import NOTATION, card_id

__all__ = ["Observation", "observation_json", "seat_events"]


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

    def __reduce__(self) -> tuple[type[Observation], tuple[Any, ...]]:
        # a compiled class is rebuilt through its __init__, so pickle and copy pass its fields
        return Observation, (self.seat, self.players, self.round, self.rounds, self.turn,
                             self.active_seat, self.phase, self.hand_ids, self.trap_cards,
                             self.hand_sizes, self.trap_counts, self.revealed_ids,
                             self._effect_gy, self._effect_gy_len, self._discard_gy,
                             self._discard_gy_len, self.draw_pile, self._feed, self._feed_len)

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
        data = observation_json(self.seat, self.players, self.round, self.rounds, self.turn,
                                self.active_seat, self.phase, self.hand_ids, self.trap_cards,
                                self.hand_sizes, self.trap_counts, self.revealed_ids,
                                self.effect_graveyard_ids, self.discard_graveyard_ids,
                                self.draw_pile)
        if include_events:
            data["events"] = self.events
        return data


def observation_json(seat: int, players: Sequence[str], round: int, rounds: int, turn: int,
                     active_seat: int, phase: str, hand: Sequence[int],
                     trap_cards: Sequence[tuple[int, int, bool]], hand_sizes: Sequence[int],
                     trap_counts: Sequence[int], revealed: Sequence[Iterable[int]],
                     effect_graveyard: Sequence[int], discard_graveyard: Sequence[int],
                     draw_pile: int) -> dict[str, Any]:
    """An observation's JSON (the ``observation`` of the protocol's ``act``), without events:
    the one encoding, used by :meth:`Observation.to_json` and by ``State.observe_json``,
    which encodes straight from the state without taking a snapshot first."""
    return {
        "seat": seat,
        "players": list(players),
        "round": round,
        "rounds": rounds,
        "turn": turn,
        "active_seat": active_seat,
        "phase": phase,
        "hand": [NOTATION[c] for c in hand],
        "traps": [{"card": NOTATION[c], "turns_left": left, "triggerable": ready}
                  for c, left, ready in trap_cards],
        "hand_sizes": list(hand_sizes),
        "trap_counts": list(trap_counts),
        "revealed": [[NOTATION[c] for c in cards] for cards in revealed],
        "effect_graveyard": [NOTATION[c] for c in effect_graveyard],
        "discard_graveyard": [NOTATION[c] for c in discard_graveyard],
        "draw_pile": draw_pile,
    }


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
