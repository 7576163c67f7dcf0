"""Search support for bots: what a bot may know, and game states to search from.

A search bot (Monte-Carlo, ISMCTS, expectimax, ...) needs an engine state, but it may only see
its own observation and its own events. This module turns those into

* :class:`SearchView`: the bot's knowledge of the current decision: the observation as an
  engine :class:`~arena.engine.observation.Observation`, the cards it cannot place
  (:meth:`~SearchView.unseen_cards`), the cards it knows an opponent holds because it looked
  (:meth:`~SearchView.known_hand`), and :meth:`~SearchView.sample_state`: a *determinisation*,
  a full engine :class:`~arena.engine.state.State` consistent with all of that, positioned at
  the bot's current ``turn`` or ``swap`` decision, with every hidden card dealt at random.
  Search it with ``state.clone()``, ``state.decision`` and ``state.apply(i)``.
* :class:`Tracker` (from :mod:`arena.sdk.tracker`): collects the bot's events (``on_event``)
  and what they tell, once each.
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

import functools
import inspect
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from arena.common.printable import brief_repr
from arena.engine import determinize
from arena.engine.cards import NOTATION
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.observation import Observation
from arena.engine.state import State
from arena.sdk.bot import Bot, GameStart, Request
from arena.sdk.kitnames import misplaced
from arena.sdk.known_places import place_known, redeal_hidden
from arena.sdk.policy import hand_score, knowing_choice, play_out, playout_choice, score_names
from arena.sdk.tracker import Tracker, Whereabouts

__all__ = [
    "SEARCHABLE_KINDS",
    "SearchBot",
    "SearchView",
    "Tracker",
    "Whereabouts",
    "default_reply",
    "hand_score",
    "play_out",
    "playout_choice",
    "redeal_hidden",
    "score_names",
]

#: Decisions a sampled state can be positioned at.
SEARCHABLE_KINDS = determinize.SEARCHABLE_KINDS

#: Names an author may import from here that are the view's (what a failed import says).
_ELSEWHERE = {call.partition("(")[0]: "it is a method of SearchView: in a SearchBot, "
              f"view = self.view(request), then view.{call}"
              for call in ("sample_state(seed)", "unseen_cards()", "known_hand(seat)",
                           "known_pile()")}

if not TYPE_CHECKING:  # a module __getattr__ would let the type checker pass any name
    def __getattr__(name: str) -> Any:
        raise misplaced(__name__, name, _ELSEWHERE)


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
        """Cards (notation, copies repeated, in deck order) the bot cannot place: not in its
        hand or traps, not in a graveyard, not revealed, and not placed by its events either
        (a card it knows in another hand, :meth:`known_hand`, in another seat's trap,
        ``tracker.traps``, on the draw pile, :meth:`known_pile`, or in one of a few places,
        :meth:`whereabouts`). They are the cards a
        :meth:`sample_state` deals at random: somewhere in other hands, other traps or the
        draw pile (and one may be the Palaestron)."""
        placed = Counter(name for name in self.known_pile() if name is not None)
        placed.update(where.card for where in self.whereabouts())
        for seat in range(self.players):
            if seat == self.seat:
                continue
            placed += self.tracker.beyond_revealed(seat, self.obs.revealed[seat])
            slots = self.tracker.traps.get(seat)
            if slots is not None and len(slots) == self.obs.trap_counts[seat]:
                placed.update(name for name in slots if name is not None)
        unseen = []
        for card in determinize.unseen_cards(self.obs):
            name = NOTATION[card]
            if placed[name] > 0:  # knowledge the observation contradicts places nothing
                placed[name] -= 1
            else:
                unseen.append(name)
        return unseen

    def known_hand(self, seat: int) -> list[str]:
        """Cards of ``seat``'s hand the bot knows: revealed ones and those it saw (peeks,
        exchanges) that have not left since."""
        cards = list(self.obs.revealed[seat])
        return cards + sorted(self.tracker.beyond_revealed(seat, cards).elements())

    def known_pile(self) -> list[str | None]:
        """The draw pile as the bot knows it, bottom first (the top is the last): the card
        it knows at each place (it looked, gave or put it there), else ``None``."""
        pile = self.tracker.pile
        if pile is None or len(pile) != self.obs.draw_pile:
            return [None] * self.obs.draw_pile
        return list(pile)

    def whereabouts(self) -> list[Whereabouts]:
        """Cards the bot knows lie in one of a few places, not which (``tracker.whereabouts``:
        some places of :meth:`known_pile`, some hands), where its pile has the observation's
        size (else none). A sample deals each to one of its places."""
        pile = self.tracker.pile
        if pile is None or len(pile) != self.obs.draw_pile:
            return []
        return list(self.tracker.whereabouts)

    def sample_state(self, seed: int) -> State:
        """A full game state consistent with the observation and the bot's events, hidden
        cards dealt at random from ``seed``, positioned at this ``turn`` or ``swap`` decision
        (its options are this request's legal options), playing on under the game's house
        rules. Cards the bot knows an opponent holds (:meth:`known_hand`) are dealt to that
        opponent, a card it knows only the :meth:`whereabouts` of to one of its places."""
        if not self.searchable:
            raise ValueError(f"cannot sample a state at a {self.kind!r} decision, only at a "
                             f"{' or a '.join(SEARCHABLE_KINDS)}: check view.searchable first "
                             "and answer the others another way, e.g. with the kit's policy, "
                             "default_reply(view, self.rng)")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"sample_state takes an int seed (e.g. self.rng.randrange(2**31)), "
                            f"not {type(seed).__name__} {brief_repr(seed)}")
        state = determinize.sample_state(self.obs, seed, self.kind, self.rules)
        if self.tracker.knows_anything():
            place_known(state, self.obs, self.tracker, random.Random(seed ^ 0x5EA2C4))
        return state


# ============================================================================= the bot base
class SearchBot(Bot):
    """A bot that keeps its events for search: ``self.view(request)`` is the
    :class:`SearchView` of a request. Override :meth:`act`. The tracker (``self.tracker``)
    is reset at each game start, with the game's house rules (``self.rules``), and reads
    every event as it arrives, whether or not hooks of a subclass's own (``__init__``,
    ``on_game_start``, ``on_event``) call ``super()``: each such hook runs after the kit's
    part."""

    #: The house rules of the game being played (the default ones before the first).
    rules: HouseRules = DEFAULT_RULES

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for hook, kit_part in (("on_game_start", SearchBot._start_tracking),
                               ("on_event", SearchBot._track)):
            own = cls.__dict__.get(hook)
            if inspect.isfunction(own):
                setattr(cls, hook, _after(kit_part, own))

    @property
    def tracker(self) -> Tracker:
        """The bot's :class:`Tracker` (made on first use: a subclass's ``__init__`` need not
        call ``super().__init__()``)."""
        tracker: Tracker | None = self.__dict__.get("_tracker")
        if tracker is None:
            tracker = self.__dict__["_tracker"] = Tracker()
        return tracker

    @tracker.setter
    def tracker(self, value: Tracker) -> None:
        self.__dict__["_tracker"] = value

    def on_game_start(self, game: GameStart) -> None:
        self._start_tracking(game)

    def on_event(self, event: dict[str, Any]) -> None:
        self._track(event)

    def _start_tracking(self, game: GameStart) -> None:
        self.tracker.reset(game.seat)
        self.rules = game.rules

    def _track(self, event: dict[str, Any]) -> None:
        tracker = self.tracker
        if tracker.events and tracker.events[-1] is event:  # a hook calling super() passes
            return                                          # it twice
        tracker.add(event)  # read at once: ``act`` may read the tracker before a view

    def view(self, request: Request) -> SearchView:
        return SearchView.of(request, self.tracker.events, self.tracker, self.rules)


def _after(kit_part: Callable[[Any, Any], None],
           hook: Callable[..., Any]) -> Callable[..., Any]:
    """A subclass's own hook that runs after the kit's part of it (which ``super()`` would
    run again: that part is idempotent)."""
    @functools.wraps(hook)
    def after(self: SearchBot, arg: Any, *args: Any, **kwargs: Any) -> Any:
        kit_part(self, arg)
        return hook(self, arg, *args, **kwargs)

    return after


def default_reply(view: SearchView, rng: random.Random) -> int:
    """:func:`~arena.sdk.policy.playout_choice` for the bot's own decision, from its knowledge
    only: another seat's hand is what the bot knows of it (:meth:`SearchView.known_hand`)."""
    return knowing_choice(view.obs, view.kind, view.legal, view.context, view.known_hand, rng)
