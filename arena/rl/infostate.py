"""Information states: what one seat was told, with perfect recall, and states resampled
from it, for the OpenSpiel game (:mod:`arena.rl.openspiel`).

A seat's information state is everything the referee would tell it, in order: the events of
its feed (``State.feed``: the public ones and its own private ones, an Ascension's
``game_end`` as it is shown to that seat) and each decision it is asked (kind, options and
context, and the revealed cards of its observation: what an ``act`` message holds beyond
the feed) with the action it chose. A :class:`Journal` keeps what happened once for all
seats; a seat's :class:`SeatMemory` is split from it when first asked, a chain shared
between copies of a state, and a digest of the chain is its key: a string of the digest is
the information state, cheap to compare and to store in a table, and a faithful key (a
128-bit BLAKE2 chain: two different histories share it only by a collision).

:func:`resample` deals a state consistent with one seat's memory: the kit's sampler
(``arena.sdk.search``) reads the seat's observation and events only, never the hidden cards
of the state it is asked from.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from arena.engine.cards import NOTATION
from arena.engine.decision import Decision, visible_to
from arena.engine.result import end_seen_by
from arena.engine.showdown import RPS_THROWS
from arena.engine.state import State
from arena.sdk.search import SearchView, Tracker, redeal_hidden

__all__ = ["Journal", "SeatMemory", "resample"]

_DIGEST_SIZE = 16


class SeatMemory:
    """What one seat was told so far: a message (an event, a decision it was asked, the
    action it chose) after the memory before it. Immutable to its users: telling it more
    makes a new memory, and copies of a state share their memories. The digest is folded
    when a key is first asked for, and kept: applying an action costs no hashing, and a
    search that asks keys along a line of play folds each message once."""

    __slots__ = ("before", "message", "length", "_digest")

    def __init__(self, before: SeatMemory | None, message: Any, length: int) -> None:
        self.before = before
        self.message = message
        self.length = length
        self._digest: bytes | None = None

    @classmethod
    def fresh(cls, seat: int, start: str = "") -> SeatMemory:
        """A seat told nothing yet (``start``: what a resampled seat begins from)."""
        return cls(None, f"seat {seat} {start}", 0)

    def told(self, message: Any) -> SeatMemory:
        """This memory and one more ``message``: an event dict, ``("asked", decision,
        revealed)`` (the :class:`Decision` the seat is asked, and each seat's revealed card
        ids its observation shows then), or ``("chose", action)``."""
        return SeatMemory(self, message, self.length + 1)

    def key(self) -> str:
        """The information state string: the digest of everything told, and how much."""
        return f"{self.length} told, {self.digest().hex()}"

    def digest(self) -> bytes:
        unfolded: list[SeatMemory] = []
        memory: SeatMemory | None = self
        while memory is not None and memory._digest is None:
            unfolded.append(memory)
            memory = memory.before
        digest = b"" if memory is None else memory._digest or b""
        for memory in reversed(unfolded):
            digest = hashlib.blake2b(digest + _encode(memory.message).encode(),
                                     digest_size=_DIGEST_SIZE).digest()
            memory._digest = digest
        return digest

    def messages(self) -> list[Any]:
        """Everything told, oldest first (the first: where the memory started)."""
        messages: list[Any] = []
        memory: SeatMemory | None = self
        while memory is not None:
            messages.append(memory.message)
            memory = memory.before
        messages.reverse()
        return messages

    def events(self) -> list[dict[str, Any]]:
        """The seat's feed, oldest first (the decisions it was asked left out)."""
        return [message for message in self.messages() if isinstance(message, dict)]

    def __deepcopy__(self, memo: dict[int, Any]) -> SeatMemory:
        return self  # immutable: OpenSpiel's clone copies every attribute of a state

    def __reduce__(self) -> tuple[Any, ...]:
        return _memory_of, (self.messages(),)  # flat: a long chain would nest too deep


def _memory_of(messages: list[Any]) -> SeatMemory:
    memory = SeatMemory(None, messages[0], 0)
    for message in messages[1:]:
        memory = memory.told(message)
    return memory


def _encode(message: Any) -> str:
    if isinstance(message, tuple) and message[0] == "asked":
        _, decision, revealed = message
        message = ["asked", decision.kind, list(decision.options), decision.context,
                   [[NOTATION[card] for card in cards] for cards in revealed]]  # () if none
    return json.dumps(message, sort_keys=True, separators=(",", ":"))


class Journal:
    """What happened at one action, for every seat at once: the seat that chose and its
    action, the events the engine logged, the decision asked next (with each seat's
    revealed cards then), after the journal before it. Applying an action makes one entry
    and sorts nothing out; a seat's :class:`SeatMemory` is split from the entries when its
    key is first asked, from the nearest entry that holds it, and kept on the entry asked
    (copies of a state share their journal, so what one split serves the others): plain
    play, which asks no key, pays almost nothing for the information states."""

    __slots__ = ("before", "seats", "chose", "log", "decision", "revealed", "memories")

    def __init__(self, before: Journal | None, seats: int, chose: tuple[int, int] | None,
                 memories: list[SeatMemory | None] | None = None,
                 state: State | None = None) -> None:
        self.before = before
        self.seats = seats
        self.chose = chose
        #: each seat's memory up to and with this entry, where it was split
        self.memories = memories
        self.log: list[tuple[int | None, dict[str, Any]]] | tuple[()] = ()
        self.decision: Decision | None = None
        self.revealed: tuple[tuple[int, ...], ...] = ()
        if state is not None:  # what ``state`` logged since the entry before, and asks now
            log = state.log
            if log:  # taken whole, and a new one left: a copy of the state copies no events
                self.log, state.log = log, []
            self.decision = state.decision
            revealed = state.revealed
            if any(revealed):
                self.revealed = tuple(tuple(sorted(cards)) for cards in revealed)

    @classmethod
    def start(cls, state: State, memories: list[SeatMemory] | None = None) -> Journal:
        """The journal of ``state`` as it is now: its events so far and its decision, told
        after ``memories`` (each seat's; by default a seat told nothing yet)."""
        told: list[SeatMemory | None] = list(
            memories or [SeatMemory.fresh(seat) for seat in range(state.n)])
        return cls(cls(None, state.n, None, told), state.n, None, None, state)

    def after(self, state: State, seat: int, action: int) -> Journal:
        """This journal and the action ``seat`` chose, applied to ``state``."""
        return Journal(self, self.seats, (seat, action), None, state)

    def memory(self, seat: int) -> SeatMemory:
        """Everything ``seat`` was told up to this entry."""
        if not 0 <= seat < self.seats:
            raise IndexError(f"no seat {seat} at this table of {self.seats}")
        unsplit: list[Journal] = []
        entry: Journal | None = self
        while entry is not None and (entry.memories is None or entry.memories[seat] is None):
            unsplit.append(entry)
            entry = entry.before
        assert entry is not None and entry.memories is not None  # the first entry holds all
        memory = entry.memories[seat]
        assert memory is not None
        for entry in reversed(unsplit):
            memory = entry._tell(seat, memory)
        if self.memories is None:
            self.memories = [None] * self.seats
        self.memories[seat] = memory
        return memory

    def _tell(self, seat: int, memory: SeatMemory) -> SeatMemory:
        chose = self.chose
        if chose is not None and chose[0] == seat:
            memory = memory.told(("chose", chose[1]))
        for to, event in self.log:
            if visible_to(to, seat):
                memory = memory.told(end_seen_by(event, seat))
        decision = self.decision
        if decision is not None and decision.seat == seat:
            # the revealed cards its observation shows: a revealed card can leave a hand
            # face down (set as a trap, put on the pile) with no event naming it
            memory = memory.told(("asked", decision, self.revealed))
        return memory

    def __deepcopy__(self, memo: dict[int, Any]) -> Journal:
        return self  # immutable but for what it caches: OpenSpiel's clone copies it

    def __reduce__(self) -> tuple[Any, ...]:
        # the memories it ends with, flat (a long chain would nest too deep)
        return _journal_of, ([self.memory(seat) for seat in range(self.seats)],)


def _journal_of(memories: list[SeatMemory]) -> Journal:
    return Journal(None, len(memories), None, list(memories))


def resample(state: State, seat: int, memory: SeatMemory, seed: int) -> State:
    """A state ``seat`` cannot tell from ``state``, dealt from ``seed``: at its ``turn`` and
    ``swap`` decisions built afresh from its observation and events (the kit's
    ``SearchView.sample_state``); at its other decisions a copy of ``state`` with every
    hidden place dealt again (``redeal_hidden``), the random generator reseeded, and
    another seat's hidden throw of a sudden-death round drawn again. The seat must be the
    one asked (another's pending decision would show its hidden cards)."""
    decision = state.decision
    if decision is None or decision.seat != seat:
        asked = "the game is over" if decision is None else f"seat {decision.seat} is asked"
        raise ValueError(f"a state is resampled for the seat asked, not seat {seat}: {asked}")
    events = memory.events()
    view = SearchView(state.observe_json(seat), events, decision.kind, decision.options,
                      context=decision.context, rules=state.config.rules)
    if view.searchable:
        sampled = view.sample_state(seed)
    else:
        sampled = _redealt(state, seat, view.tracker, seed)
    sampled.track_events = True
    return sampled


def _redealt(state: State, seat: int, tracker: Tracker, seed: int) -> State:
    """A copy of ``state`` whose hidden places and future shuffles come from ``seed``."""
    rng = random.Random(seed)
    copy = state.clone()
    copy.rng = random.Random(rng.getrandbits(63))
    copy.config = replace(state.config, seed=rng.getrandbits(63))  # the true deal's seed
    redeal_hidden(copy, copy.observe(seat, events=False), tracker, rng.getrandbits(63))
    copy.turn_log = []  # the sampled game's record: the true one names cards set as traps
    # as a sampled state's: the true indices chosen tell where a card set as a trap, or
    # given, lay among its hand's other cards
    copy.choices = []
    copy.forfeit_log = []
    turn = copy.scratch.get("turn")
    if isinstance(turn, dict) and turn.get("seat") != seat and turn.get("action") == "trap":
        copy.scratch["turn"] = {**turn, "card": None}
    throws: Sequence[tuple[int, str]] | None = copy.scratch.get("rps")
    if throws:  # thrown before this seat, unseen until all have thrown
        copy.scratch["rps"] = tuple((other, rng.choice(RPS_THROWS)) for other, _ in throws)
    return copy
