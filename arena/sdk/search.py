"""Search support for bots: what a bot may know, and game states to search from.

A search bot (Monte-Carlo, ISMCTS, expectimax, ...) needs an engine state, but it may only see
its own observation and its own events. This module turns those into

* :class:`SearchView`: the bot's knowledge of the current decision: the observation as an
  engine :class:`~arena.engine.observation.Observation`, the cards it has not seen
  (:meth:`~SearchView.unseen_cards`), the cards it knows an opponent holds because it looked
  (:meth:`~SearchView.known_hand`), and :meth:`~SearchView.sample_state`: a *determinisation*,
  a full engine :class:`~arena.engine.state.State` consistent with all of that, positioned at
  the bot's current ``turn`` or ``swap`` decision, with every hidden card dealt at random.
  Search it with ``state.clone()``, ``state.decision`` and ``state.apply(i)``.
* :class:`Tracker`: collects the bot's events (``on_event``) and what they tell, once each.
* :class:`SearchBot`: a :class:`~arena.sdk.Bot` base class that wires the tracker to the hooks;
  ``self.view(request)`` gives the :class:`SearchView` of a request.
* :func:`default_reply`: the kit's greedy policy for a decision the bot does not search.
  The policy itself is in :mod:`arena.sdk.policy`, whose :func:`hand_score` (a hand's Desmos
  as one number), :func:`playout_choice` (for playouts and for the other seats inside a
  search) and :func:`play_out` are importable from here too.

No hidden truth is used: a sampled state is built from the observation and the bot's own
events only (``arena.engine.determinize``), so a bot that searches it cannot cheat. Standard
library and the engine only, so it runs under the sandbox's interpreter.

Example::

    from arena.sdk import Request
    from arena.sdk.search import SearchBot

    class MonteCarlo(SearchBot):
        def act(self, request: Request) -> int:
            view = self.view(request)
            if not view.searchable:
                return 0
            ...  # for each option: state = view.sample_state(seed); state.apply(i); play out
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from arena.engine import determinize
from arena.engine.cards import NOTATION, PALAESTRON
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.observation import Observation
from arena.engine.state import State
from arena.sdk.bot import Bot, GameStart, Request
from arena.sdk.policy import hand_score, knowing_choice, play_out, playout_choice, score_names

__all__ = [
    "SEARCHABLE_KINDS",
    "SearchBot",
    "SearchView",
    "Tracker",
    "default_reply",
    "hand_score",
    "play_out",
    "playout_choice",
    "score_names",
]

#: Decisions a sampled state can be positioned at.
SEARCHABLE_KINDS = determinize.SEARCHABLE_KINDS


# ============================================================================= knowledge
class Tracker:
    """The bot's events, and what they tell about hidden cards.

    ``known[s]`` counts cards the bot *knows* are in seat ``s``'s hand: seen by a peek (Umbrae,
    Hermes, Ares; its revealed cards among them) or handed over in an exchange or a gift the
    bot took part in, and not seen leaving since. When a card of unknown face leaves that hand
    (a trap set, a card put on the pile, an exchange or gift the bot only hears of), the
    knowledge is dropped: it is always a sub-multiset of the true hand, never a guess.
    ``hidden[s]`` holds those of them the bot knows are hidden there (a card handed over is
    hidden in its new hand, E23): beside a revealed copy of the same card they are a second
    copy, which ``known`` alone, read against the revealed cards, cannot tell
    (:meth:`beyond_revealed`). ``known_traps[s]`` is the same as ``known`` for the traps of
    ``s`` seen with Basilisk.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self, seat: int = -1) -> None:
        self.seat = seat
        self.events: list[dict[str, Any]] = []
        self.known: dict[int, Counter[str]] = {}
        self.hidden: dict[int, Counter[str]] = {}
        self.known_traps: dict[int, Counter[str]] = {}
        self._done = 0

    def add(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def catch_up(self, seat: int) -> None:
        """Read the events not read yet (the seat must be known to read them)."""
        if self.seat != seat:
            self.seat, self._done = seat, 0
            self.known, self.hidden, self.known_traps = {}, {}, {}
        events = self.events
        while self._done < len(events):
            self._read(events[self._done])
            self._done += 1

    def beyond_revealed(self, seat: int, revealed: list[str]) -> Counter[str]:
        """The cards the bot knows ``seat`` holds besides its ``revealed`` ones (now): a card
        seen in the hand may be one of them, a card known hidden there is not."""
        beyond = self.known.get(seat, Counter()) - Counter(revealed)
        return beyond | self.hidden.get(seat, Counter())

    def _lose(self, seat: Any, card: Any) -> None:
        known = self.known.get(seat)
        if known and known[card] > 0:
            known[card] -= 1
        # the copy that left may be the hidden one (never a guess: forget it too)
        hidden = self.hidden.get(seat)
        if hidden and hidden[card] > 0:
            hidden[card] -= 1

    def _receive(self, seat: Any, card: Any) -> None:
        """``seat`` was handed ``card``, which the bot saw: it is hidden in that hand."""
        if seat != self.seat:
            self.known.setdefault(seat, Counter())[card] += 1
            self.hidden.setdefault(seat, Counter())[card] += 1

    def _forget(self, *seats: Any) -> None:
        for seat in seats:
            self.known.pop(seat, None)
            self.hidden.pop(seat, None)

    def _read(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        seat: Any = event.get("seat")
        me = self.seat
        if kind in ("play", "forced_discard", "discard"):
            self._lose(seat, event.get("card"))
        elif kind == "peek" and seat == me and "cards" in event:
            self.known[event["target"]] = Counter(event["cards"])
            self.hidden.pop(event["target"], None)  # the peek does not say which are revealed
        elif kind == "reveal_hand":
            self.known[seat] = Counter(event.get("cards", []))
            self.hidden.pop(seat, None)
        elif kind == "reveal":  # maybe the copy known hidden: it is known, no longer hidden
            hidden = self.hidden.get(seat)
            shown = str(event.get("card"))
            if hidden and hidden[shown] > 0:
                hidden[shown] -= 1
        elif kind == "exchange":
            self._read_exchange(seat, event)
        elif kind == "give":
            self._read_give(seat, event)
        elif kind == "graveyard_exchange":
            self._lose(seat, event.get("gave"))
            self._receive(seat, event["took"])
        elif kind in ("set_trap", "return_to_pile", "pile_exchange"):
            if seat != me:
                self._forget(seat)
        elif kind == "peek_traps" and seat == me and "cards" in event:
            self.known_traps[event["target"]] = Counter(event["cards"])
        elif kind in ("trap_triggered", "trap_destroyed", "trap_expired", "trap_cleared"):
            traps = self.known_traps.get(seat)
            card = str(event.get("card"))
            if traps and traps[card] > 0:
                traps[card] -= 1
        elif kind == "game_start":
            self.known, self.hidden, self.known_traps = {}, {}, {}

    def _read_exchange(self, seat: Any, event: dict[str, Any]) -> None:
        """``seat`` gave ``gave`` to ``target`` and took ``took`` (a card the bot did not see
        is not in the event)."""
        target: Any = event.get("target")
        took, gave = event.get("took"), event.get("gave")
        if took is None:
            self._forget(target)  # it lost a card we did not see
        else:
            self._lose(target, took)
        if gave is None:
            self._forget(seat)
        else:
            self._lose(seat, gave)
        if took is not None:
            self._receive(seat, took)
        if gave is not None:
            self._receive(target, gave)

    def _read_give(self, seat: Any, event: dict[str, Any]) -> None:
        """``seat`` gave ``card`` to ``target`` (Nemesis, one way)."""
        card = event.get("card")
        if card is None:
            self._forget(seat)  # it lost a card we did not see
        else:
            self._lose(seat, card)
            self._receive(event.get("target"), card)


# ============================================================================= the view
class SearchView:
    """One decision seen by the bot: its observation, its events and what they tell.

    Built by :meth:`SearchBot.view` (or directly from a request's observation JSON, the
    bot's events and its :class:`Tracker`). Everything here is computed from what the bot
    was sent; nothing reads the referee's state.
    """

    def __init__(self, observation: dict[str, Any], events: list[dict[str, Any]],
                 kind: str = "turn", legal: Sequence[dict[str, Any]] = (),
                 tracker: Tracker | None = None,
                 context: dict[str, Any] | None = None,
                 rules: HouseRules = DEFAULT_RULES) -> None:
        self.data = observation
        #: The game's house rules (from ``game_start``), under which sampled games play on.
        self.rules = rules
        self.kind = kind
        self.legal = list(legal)
        self.context = dict(context or {})
        self.seat = int(observation["seat"])
        self.obs = Observation.from_json(observation, events)
        if tracker is None:
            tracker = Tracker()
            for event in events:
                tracker.add(event)
        tracker.catch_up(self.seat)
        self.tracker = tracker

    @classmethod
    def of(cls, request: Request, events: list[dict[str, Any]],
           tracker: Tracker | None = None, rules: HouseRules = DEFAULT_RULES) -> SearchView:
        return cls(request.observation, events, request.kind, request.legal, tracker,
                   request.context, rules)

    @property
    def searchable(self) -> bool:
        """Whether :meth:`sample_state` can position a state at this decision."""
        return self.kind in SEARCHABLE_KINDS

    @property
    def players(self) -> int:
        return len(self.obs.players)

    @property
    def hand(self) -> list[str]:
        return self.obs.hand

    def unseen_cards(self) -> list[str]:
        """Cards (notation, copies repeated) the bot cannot place: not in its hand or traps,
        not in a graveyard, not revealed. They are in other hands, other traps, the draw
        pile (and one may be the Palaestron)."""
        return [NOTATION[c] for c in determinize.unseen_cards(self.obs)]

    def known_hand(self, seat: int) -> list[str]:
        """Cards of ``seat``'s hand the bot knows: revealed ones and those it saw (peeks,
        exchanges) that have not left since."""
        cards = list(self.obs.revealed[seat])
        return cards + sorted(self.tracker.beyond_revealed(seat, cards).elements())

    def sample_state(self, seed: int) -> State:
        """A full game state consistent with the observation and the bot's events, hidden
        cards dealt at random from ``seed``, positioned at this ``turn`` or ``swap`` decision
        (its options are this request's legal options), playing on under the game's house
        rules. Cards the bot knows an opponent holds (:meth:`known_hand`) are dealt to that
        opponent."""
        if not self.searchable:
            raise ValueError(f"cannot position a sampled state at a {self.kind!r} decision; "
                             f"only at {SEARCHABLE_KINDS}")
        state = determinize.sample_state(self.obs, seed, self.kind, self.rules)
        if self.tracker.known or self.tracker.hidden or self.tracker.known_traps:
            _place_known(state, self.obs, self.tracker, random.Random(seed ^ 0x5EA2C4))
        return state


def _place_known(state: State, obs: Observation, tracker: Tracker, rng: random.Random) -> None:
    """Move the cards the bot knows into the hands (and traps) where it saw them, swapping
    each with a hidden card dealt there. Only hidden places are touched (other hands beyond
    their revealed cards, other traps, the draw pile), so the observation still holds."""
    me = obs.seat
    fixed: set[int] = set()
    for seat in range(state.n):
        if seat != me:
            fixed.update(obs.revealed_ids[seat])
    wanted: list[tuple[int, str, str]] = []
    for seat in sorted(set(tracker.known) | set(tracker.hidden)):
        if seat != me and 0 <= seat < state.n:
            hidden = tracker.beyond_revealed(seat, [NOTATION[c] for c in obs.revealed_ids[seat]])
            wanted += [(seat, "hand", name) for name in sorted(hidden.elements())]
    for seat, known in tracker.known_traps.items():
        if seat != me and 0 <= seat < state.n:
            wanted += [(seat, "trap", name) for name in sorted(known.elements())]
    for seat, zone, name in wanted:
        slots = (state.hands[seat] if zone == "hand" else [t.card for t in state.traps[seat]])
        if any(NOTATION[c] == name and c not in fixed for c in slots):
            fixed.add(next(c for c in slots if NOTATION[c] == name and c not in fixed))
            continue
        free = [i for i, c in enumerate(slots) if c not in fixed]
        source = _find_hidden(state, name, fixed, me)
        if not free or source is None:
            continue  # the knowledge is stale (the observation wins)
        at = rng.choice(free)
        _swap(state, (seat, zone, at), source)
        fixed.add(_card_at(state, (seat, zone, at)))


def _find_hidden(state: State, name: str, fixed: set[int],
                 me: int) -> tuple[int, str, int] | None:
    for seat in range(state.n):
        if seat == me:
            continue
        for i, c in enumerate(state.hands[seat]):
            if NOTATION[c] == name and c not in fixed:
                return seat, "hand", i
        for i, t in enumerate(state.traps[seat]):
            if NOTATION[t.card] == name and t.card not in fixed:
                return seat, "trap", i
    for i, c in enumerate(state.draw_pile):
        if NOTATION[c] == name:
            return -1, "pile", i
    return None


def _card_at(state: State, where: tuple[int, str, int]) -> int:
    seat, zone, i = where
    if zone == "hand":
        return state.hands[seat][i]
    if zone == "trap":
        return state.traps[seat][i].card
    return state.draw_pile[i]


def _put(state: State, where: tuple[int, str, int], card: int) -> None:
    seat, zone, i = where
    if zone == "hand":
        state.hands[seat][i] = card
    elif zone == "trap":
        state.traps[seat][i].card = card
    else:
        state.draw_pile[i] = card


def _swap(state: State, a: tuple[int, str, int], b: tuple[int, str, int]) -> None:
    card_a, card_b = _card_at(state, a), _card_at(state, b)
    if card_a == PALAESTRON and b[1] != "pile":
        return  # never in a hand or a trap
    _put(state, a, card_b)
    _put(state, b, card_a)


# ============================================================================= the bot base
class SearchBot(Bot):
    """A bot that keeps its events for search: ``self.view(request)`` is the
    :class:`SearchView` of a request. Override :meth:`act`; if you override the hooks, call
    ``super()``."""

    def __init__(self) -> None:
        self.tracker = Tracker()
        self.rules = DEFAULT_RULES

    def on_game_start(self, game: GameStart) -> None:
        self.tracker.reset(game.seat)
        self.rules = game.rules

    def on_event(self, event: dict[str, Any]) -> None:
        self.tracker.add(event)

    def view(self, request: Request) -> SearchView:
        return SearchView.of(request, self.tracker.events, self.tracker, self.rules)


def default_reply(view: SearchView, rng: random.Random) -> int:
    """:func:`~arena.sdk.policy.playout_choice` for the bot's own decision, from its knowledge
    only: another seat's hand is what the bot knows of it (:meth:`SearchView.known_hand`)."""
    return knowing_choice(view.obs, view.kind, view.legal, view.context, view.known_hand, rng)
