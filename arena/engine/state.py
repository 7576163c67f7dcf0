"""The mutable state of one game and the machinery that drives it.

The game is a stack machine so that a state can be copied at any point (search bots need
that): the rules push *steps* (a module-level function and its immutable arguments) and a
step either finishes, pushes more steps, or asks a :class:`Decision`. Answering the decision
calls its continuation with the chosen option's payload. Zones hold card ids (see cards.py).

The state also ends the game (:meth:`State.finish`, which the showdown and an Ascension call)
and gives the views read from it: a seat's observation (:meth:`State.observe`, and its JSON
:meth:`State.observe_json`) and the game's record (:meth:`State.record`). They live here, not
above, so that nothing the state needs imports the state back.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any, Final

from arena.engine.cards import KIND_OF, NOTATION, Kind
from arena.engine.config import GameConfig
from arena.engine.decision import Decision, Option, visible_to
from arena.engine.desmos import EVALUATORS, Category, Value
from arena.engine.observation import Observation, observation_json
from arena.engine.result import GameResult, end_seen_by, place
from arena.engine.rulebook import HAND_SIZE, TRAP_LIFETIME
from arena.errors import IllegalChoiceError, RulesError

__all__ = ["RECORD_FORMAT", "GameResult", "State", "Trap", "recorded_audience"]

#: The records this engine writes and replays; a new rule that changes games changes it.
RECORD_FORMAT: Final = "palaestra-record/7"

Step = tuple[Callable[..., None], tuple[Any, ...]]
Continuation = Callable[..., None]

_GOD: Final = int(Kind.GOD)


class Trap:
    """A face-down card in its owner's Arena."""

    __slots__ = ("card", "set_turn", "owner_turns")

    def __init__(self, card: int, set_turn: int, owner_turns: int) -> None:
        self.card = card
        #: global turn index when it was set: a trap is triggerable from the next turn on.
        self.set_turn = set_turn
        #: how many turns its owner had completed when it was set (for expiry, ruling 9).
        self.owner_turns = owner_turns

    def __repr__(self) -> str:
        return f"Trap({NOTATION[self.card]}, set_turn={self.set_turn})"

    def __reduce__(self) -> tuple[type[Trap], tuple[int, int, int]]:
        # a compiled class is rebuilt through its __init__, so pickle and copy pass its fields
        return Trap, (self.card, self.set_turn, self.owner_turns)


class State:
    """One game in progress. Drive it with :attr:`decision` and :meth:`apply`."""

    def __init__(self, config: GameConfig, rng: random.Random | None = None) -> None:
        self.config = config
        self.players = config.players
        self.n = len(config.players)
        self.rounds = config.rounds
        self._rng = rng if rng is not None else random.Random(config.seed)
        #: the generator is shared with clones (:meth:`clone`): copied before its first use
        self._rng_shared = False
        #: the trigger windows of RULES.md E10 (house rule trap_windows): all, or only the
        #: start of a turn and a declared play
        self.all_windows = config.rules.trap_windows == "any_time"
        #: the Desmos evaluator of the house rule kinds (type or family)
        self.evaluate = EVALUATORS[config.rules.kinds]
        #: house rule reclaim=strict: cards each seat used for an effect (not in its Desmos)
        self.strict_reclaim = config.rules.reclaim == "strict"
        self.used: list[set[int]] = [set() for _ in range(self.n)]
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.revealed: list[set[int]] = [set() for _ in range(self.n)]
        self.traps: list[list[Trap]] = [[] for _ in range(self.n)]
        self.own_turns = [0] * self.n
        self.draw_pile: list[int] = []  # top of the pile is the END of the list
        self.effect_graveyard: list[int] = []
        self.discard_graveyard: list[int] = []
        self.limbo: list[int] = []  # cards resolving right now (played, triggered, Palaestron)
        self.round = 1
        self.turn = 0  # global turn index, 0-based
        self.turn_in_round = 0
        self.active = config.starting_seat
        self.phase = "deal"
        self.decision: Decision | None = None
        self._then: Continuation | None = None
        self._ctx: tuple[Any, ...] = ()
        self._payloads: Sequence[Any] = ()
        self._stack: list[Step] = []
        self.choices: list[tuple[int, str, int]] = []
        self.track_events = config.track_events
        self.log: list[tuple[int | None, dict[str, Any]]] = []
        self._feeds: list[list[dict[str, Any]]] = [[] for _ in range(self.n)]
        self._feed_pos = [0] * self.n
        self.turn_log: list[dict[str, Any]] = []
        self.forfeits: dict[int, str] = {}
        self.forfeit_log: list[tuple[int, str, int]] = []
        self.result: GameResult | None = None
        self.ascended: int | None = None
        self.scratch: dict[str, Any] = {}
        #: called before every step (tests and debuggers watch invariants with it)
        self.step_hook: Callable[[State], None] | None = None

    @property
    def rng(self) -> random.Random:
        """The game's random generator (chance: reshuffles, the Palaestron's place, a lot).
        A clone shares its original's until either uses it, then each uses a copy of it as
        it was at the clone: most searched clones never shuffle, so they never copy it."""
        if self._rng_shared:
            own = random.Random(0)  # seeded only to be overwritten: setstate sets all of it
            own.setstate(self._rng.getstate())
            self._rng, self._rng_shared = own, False
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._rng, self._rng_shared = rng, False

    # ------------------------------------------------------------------ driving
    @property
    def is_over(self) -> bool:
        return self.result is not None

    def apply(self, index: int) -> None:
        """Answer the pending decision with the option at ``index`` and run to the next one."""
        decision = self.decision
        if decision is None:
            raise RulesError("the game is over: there is no decision to answer")
        if not 0 <= index < len(decision.options):
            raise IllegalChoiceError(
                f"option {index} is not legal for this {decision.kind} decision "
                f"(0..{len(decision.options) - 1})"
            )
        then, ctx, payload = self._then, self._ctx, self._payloads[index]
        self.choices.append((decision.seat, decision.kind, index))
        self.decision = None
        self._then = None
        assert then is not None
        then(self, payload, *ctx)
        self.run()

    def run(self) -> None:
        """Execute steps until a decision is pending or the game is over."""
        stack = self._stack
        hook = self.step_hook
        while self.decision is None and self.result is None:
            if self.ascended is not None:
                self._finish_by_ascension(self.ascended)
                return
            if not stack:
                raise RulesError("internal error: the rules ran out of steps")  # pragma: no cover
            if hook is not None:
                hook(self)
            fn, args = stack.pop()
            fn(self, *args)

    def push(self, fn: Callable[..., None], *args: Any) -> None:
        """Schedule a step; steps run last-pushed first, so push in reverse order."""
        self._stack.append((fn, args))

    def ask(self, seat: int, kind: str, options: Sequence[Option], payloads: Sequence[Any],
            then: Continuation, *ctx: Any, context: dict[str, Any] | None = None,
            secret_count: bool = False) -> None:
        """Make ``seat`` choose; ``then(state, payload, *ctx)`` continues with the choice.

        A choice with a single legal option is no choice: it is taken without asking, unless
        ``secret_count``: how many options there are depends on cards only ``seat`` sees, and
        whether a seat is asked shows in how long the others wait (RULES.md E21).
        """
        if len(options) == 1 and not secret_count:
            then(self, payloads[0], *ctx)
            return
        self.decision = Decision(seat, kind, tuple(options), context or {})
        self._payloads = payloads
        self._then = then
        self._ctx = ctx

    def finish(self, winner: int | None, tiebreak: str, ascension: bool = False) -> None:
        """End the game: seats placed by Desmos, ``winner`` (if any) first, forfeited seats
        last; ``tiebreak`` says what settled first place."""
        values = self.desmos_values()
        contenders = [s for s in range(self.n) if s not in self.forfeits]
        placements = place(values, contenders, winner, self.n)
        desmos = [Category(v[0]).label for v in values]
        self.phase = "over"
        self.ascended = None
        keys: list[list[Any]] = [[v[0], list(v[1])] for v in values]
        self.result = GameResult(placements, desmos, ascension, tiebreak, dict(self.forfeits),
                                 keys)
        self.emit({"type": "game_end", "placements": placements, "desmos": desmos,
                   "ascension": ascension, "tiebreak": tiebreak})

    def _finish_by_ascension(self, seat: int) -> None:
        """Five natural Gods: the game ends at once (ruling 11)."""
        self._stack.clear()
        self.decision = None
        # in card order, as every hand shown to others (E23)
        self.emit({"type": "ascension", "seat": seat,
                   "hand": [NOTATION[c] for c in sorted(self.hands[seat])]})
        self.finish(seat, "ascension", True)

    def desmos_values(self) -> list[Value]:
        """Every seat's Desmos value now, under the game's house rules (kinds, reclaim)."""
        evaluate = self.evaluate
        if self.strict_reclaim:
            return [evaluate([c for c in hand if c not in used])
                    for hand, used in zip(self.hands, self.used)]
        return [evaluate(hand) for hand in self.hands]

    def forfeit(self, seat: int, reason: str) -> None:
        """Mark ``seat`` as forfeited: it is placed last; the caller plays its safe defaults."""
        if seat not in self.forfeits:
            self.forfeits[seat] = reason
            self.forfeit_log.append((seat, reason, len(self.choices)))
            self.emit({"type": "forfeit", "seat": seat, "reason": reason})

    # ------------------------------------------------------------------ events
    def emit(self, event: dict[str, Any], to: int | None = None) -> None:
        """Record an event: public (``to=None``), private to seat ``to`` (``to >= 0``), or
        for everyone but seat ``~to`` (``to < 0``)."""
        if self.track_events:
            event["turn"] = self.turn
            self.log.append((to, event))

    def emit_split(self, seat: int, private: dict[str, Any], public: dict[str, Any]) -> None:
        """One happening seen two ways: in full by ``seat``, without its secret by the rest."""
        if self.track_events:
            private["turn"] = public["turn"] = self.turn
            self.log.append((seat, private))
            self.log.append((~seat, public))

    def feed(self, seat: int) -> list[dict[str, Any]]:
        """Every event ``seat`` may see so far, in order (built lazily from the log, so
        games nobody watches pay nothing for it)."""
        self._check_seat(seat)
        feed = self._feeds[seat]
        log = self.log
        pos = self._feed_pos[seat]
        if pos < len(log):
            # an Ascension's game_end holds categories of hands this seat was never shown
            feed.extend(end_seen_by(event, seat) for to, event in log[pos:]
                        if visible_to(to, seat))
            self._feed_pos[seat] = len(log)
        return feed

    @property
    def feeds(self) -> list[list[dict[str, Any]]]:
        return [self.feed(seat) for seat in range(self.n)]

    def events_for(self, seat: int, start: int = 0) -> list[dict[str, Any]]:
        """Events ``seat`` may see, from position ``start`` of its own feed."""
        return self.feed(seat)[start:]

    # ------------------------------------------------------------------ zones
    def add_to_hand(self, seat: int, card: int) -> None:
        hand = self.hands[seat]
        hand.append(card)
        if KIND_OF[card] == _GOD and len(hand) == HAND_SIZE and seat not in self.forfeits:
            if all(KIND_OF[c] == _GOD for c in hand) and self.ascended is None \
                    and self.used[seat].isdisjoint(hand):  # reclaim=strict: no used God
                self.ascended = seat

    def take_from_discard_graveyard(self, card: int) -> None:
        """Remove a card from the Discard Graveyard.

        Graveyards only ever grow in place; a removal builds a new list, so observations can
        keep (list, length) views of them instead of copying them at every decision.
        """
        graveyard = list(self.discard_graveyard)
        graveyard.remove(card)
        self.discard_graveyard = graveyard

    def remove_from_hand(self, seat: int, card: int) -> None:
        hand = self.hands[seat]
        hand.remove(card)
        self.revealed[seat].discard(card)
        # A six-card hand (a Clotho, Phoenix or Nemesis triggered from a trap, E7) that puts
        # away its one non-God keeps five natural Gods: The Ascension (ruling 11). Under
        # reclaim=strict the card put away may be a God it used, which never counted: the
        # leaving card's kind is not checked (six Gods with none used would have ascended
        # at five).
        if len(hand) == HAND_SIZE and seat not in self.forfeits:
            if all(KIND_OF[c] == _GOD for c in hand) and self.ascended is None \
                    and self.used[seat].isdisjoint(hand):
                self.ascended = seat

    def opponents(self, seat: int) -> list[int]:
        """Other seats in seat order ("clockwise") starting after ``seat``."""
        n = self.n
        return [(seat + k) % n for k in range(1, n)]

    def seats_from(self, seat: int) -> list[int]:
        n = self.n
        return [(seat + k) % n for k in range(n)]

    def card_count(self) -> int:
        """Cards in every zone; always 52 (the conservation invariant)."""
        return (sum(len(h) for h in self.hands) + sum(len(t) for t in self.traps)
                + len(self.draw_pile) + len(self.effect_graveyard)
                + len(self.discard_graveyard) + len(self.limbo))

    def all_cards(self) -> list[int]:
        cards = [c for h in self.hands for c in h]
        cards += [t.card for ts in self.traps for t in ts]
        return cards + self.draw_pile + self.effect_graveyard + self.discard_graveyard + self.limbo

    # ------------------------------------------------------------------ views
    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.n:
            raise IndexError(f"no seat {seat}: the game has seats 0-{self.n - 1}")

    def _trap_views(self, seat: int) -> tuple[tuple[int, int, bool], ...]:
        """(card, own turns left before it expires, triggerable now) per trap of ``seat``."""
        traps = self.traps[seat]
        if not traps:
            return ()
        done = self.own_turns[seat]
        turn = self.turn
        return tuple([(t.card, TRAP_LIFETIME - (done - t.owner_turns), t.set_turn < turn)
                      for t in traps])

    def observe(self, seat: int, events: bool = True) -> Observation:
        """What ``seat`` may know now (never another seat's hidden card); ``events=False``
        leaves its event feed out (the referee sends events apart, once each).

        Graveyards grow in place and are replaced when a card leaves them
        (:meth:`take_from_discard_graveyard`, reshuffles), and a seat's feed only grows, so
        (list, length) views of them are snapshots; the rest is copied into small tuples.
        """
        self._check_seat(seat)
        effect_gy = self.effect_graveyard
        discard_gy = self.discard_graveyard
        feed = self.feed(seat) if events else _NO_EVENTS
        return Observation(seat, self.players, self.round, self.rounds, self.turn, self.active,
                           self.phase, tuple(self.hands[seat]), self._trap_views(seat),
                           tuple([len(h) for h in self.hands]),
                           tuple([len(t) for t in self.traps]),
                           _revealed_ids(self.revealed),
                           effect_gy, len(effect_gy), discard_gy, len(discard_gy),
                           len(self.draw_pile), feed, len(feed))

    def observe_json(self, seat: int) -> dict[str, Any]:
        """``observe(seat, False).to_json(include_events=False)``, encoded straight from the
        state: what the referee puts in every ``act``, so no snapshot is taken that would be
        read only once."""
        self._check_seat(seat)
        return observation_json(seat, self.players, self.round, self.rounds, self.turn,
                                self.active, self.phase, self.hands[seat],
                                self._trap_views(seat), [len(h) for h in self.hands],
                                [len(t) for t in self.traps], _revealed_ids(self.revealed),
                                self.effect_graveyard, self.discard_graveyard,
                                len(self.draw_pile))

    def record(self) -> dict[str, Any]:
        """The record of this (normally finished) game: enough to replay it move for move
        (``arena.engine.record.replay``; the schema is in docs/RECORDS.md)."""
        config = self.config
        result = self.result
        return {
            "format": RECORD_FORMAT,
            "config": config.to_json(),
            "seed": config.seed,
            "players": list(config.players),
            "starting_seat": config.starting_seat,
            "rounds": self.rounds,
            "turns": [dict(t) for t in self.turn_log],
            "choices": [[seat, kind, index] for seat, kind, index in self.choices],
            "forfeits": [{"seat": s, "reason": r, "at_choice": k}
                         for s, r, k in self.forfeit_log],
            "events": [{"to": recorded_audience(to), **event} for to, event in self.log],
            "result": result.to_json() if result else None,
        }

    def clone(self) -> State:
        """An independent copy (events are not copied: a clone is for search)."""
        self._rng_shared = True
        other = State(self.config, self._rng)
        other._rng_shared = True
        other.hands = [list(h) for h in self.hands]
        other.revealed = [set(r) for r in self.revealed]
        other.traps = [[Trap(t.card, t.set_turn, t.owner_turns) for t in ts] for ts in self.traps]
        other.own_turns = list(self.own_turns)
        other.used = [set(u) for u in self.used]
        other.draw_pile = list(self.draw_pile)
        other.effect_graveyard = list(self.effect_graveyard)
        other.discard_graveyard = list(self.discard_graveyard)
        other.limbo = list(self.limbo)
        other.round = self.round
        other.turn = self.turn
        other.turn_in_round = self.turn_in_round
        other.active = self.active
        other.phase = self.phase
        other.decision = self.decision
        other._then = self._then
        other._ctx = self._ctx
        other._payloads = self._payloads
        other._stack = list(self._stack)
        other.choices = list(self.choices)
        other.track_events = False
        other.turn_log = list(self.turn_log)
        other.forfeits = dict(self.forfeits)
        other.forfeit_log = list(self.forfeit_log)
        other.result = self.result
        other.ascended = self.ascended
        other.scratch = {k: dict(v) if isinstance(v, dict) else v for k, v in self.scratch.items()}
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        """``copy.deepcopy``: :meth:`clone` with the events too, so the copy plays on alike.
        (A compiled State cannot be rebuilt attribute by attribute as a plain object is.)"""
        other = self.clone()
        other.track_events = self.track_events
        other.log = copy.deepcopy(self.log, memo)
        other._feeds = copy.deepcopy(self._feeds, memo)
        other._feed_pos = list(self._feed_pos)
        return other

    def __reduce__(self) -> tuple[Callable[..., State], tuple[Any, ...]]:
        """``pickle`` (and ``copy.copy``): the state rebuilt from its config, its random
        sequence and its fields, so the copy plays on alike (the ``step_hook`` is left out)."""
        return _rebuilt, (self.config, self.rng.getstate(),
                          [getattr(self, name) for name in _PLAYED_FIELDS])

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(NOTATION[c] for c in h) for h in self.hands)
        return (f"<State round {self.round}/{self.rounds} turn {self.turn} "
                f"seat {self.active}: {hands}>")


#: What a game has played so far: every field of a State but those its config sets.
_PLAYED_FIELDS: Final = (
    "used", "hands", "revealed", "traps", "own_turns", "draw_pile", "effect_graveyard",
    "discard_graveyard", "limbo", "round", "turn", "turn_in_round", "active", "phase",
    "decision", "_then", "_ctx", "_payloads", "_stack", "choices", "track_events", "log",
    "_feeds", "_feed_pos", "turn_log", "forfeits", "forfeit_log", "result", "ascended",
    "scratch")


def _rebuilt(config: GameConfig, rng_state: Any, fields: list[Any]) -> State:
    """A pickled State again (:meth:`State.__reduce__`)."""
    rng = random.Random()
    rng.setstate(rng_state)
    state = State(config, rng)
    for name, value in zip(_PLAYED_FIELDS, fields):
        setattr(state, name, value)
    return state


_NO_EVENTS: Final[list[dict[str, Any]]] = []
#: no card revealed anywhere, by player count (the common case, shared)
_NONE_REVEALED: Final = tuple(((),) * n for n in range(8))


def _revealed_ids(revealed: list[set[int]]) -> tuple[tuple[int, ...], ...]:
    """Each seat's revealed cards in card order (E23): a set's own order can depend on the
    order its cards arrived, which would tell an onlooker which card a hidden exchange gave."""
    for cards in revealed:
        if cards:
            return tuple([tuple(sorted(r)) for r in revealed])
    return _NONE_REVEALED[len(revealed)]


def recorded_audience(to: int | None) -> str | int:
    """A log entry's audience as a record writes it (docs/RECORDS.md): ``all``, a seat, or
    ``all_but:SEAT``."""
    if to is None:
        return "all"
    return to if to >= 0 else f"all_but:{~to}"
