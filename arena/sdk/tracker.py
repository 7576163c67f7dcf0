"""What a search bot's own events tell it about hidden cards: the :class:`Tracker`.

It reads one seat's event feed, once each event, and keeps the cards that feed places: in
another hand, in a trap's slot, at a place of the draw pile. Never a guess: what it holds is
always true of the real game. :mod:`arena.sdk.search` builds its views and samples on it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.engine.cards import DECK_SIZE
from arena.engine.rulebook import HAND_SIZE

__all__ = ["Exchange", "Tracker", "Whereabouts"]


@dataclass
class Whereabouts:
    """``card`` lies at one of the ``pile`` places (bottom first, as ``Tracker.pile``) or
    hidden in one of the ``hands`` (seats), and the bot was not told which: a revealed card
    another seat gave for one of the several top cards it looked at (Athena, Sophoi), and
    where that card went since (drawn by a seat the bot does not see draw, taken back)."""

    card: str
    pile: list[int] = field(default_factory=list)
    hands: list[int] = field(default_factory=list)


@dataclass
class Exchange:
    """Another seat traded one of several top cards of the pile for a card of its hand, and
    the bot knew some of those cards (``members``: each at its place, ``places``, or now in
    that ``seat``'s hand). Only one place was traded: at most one of them is in the hand,
    exactly one where the bot knew every card looked at (``exact``). A member that moved
    since (drawn, seen, a card of its face leaving that hand) leaves it: the others, as the
    exchange left them, can have reached the hand only by it (:meth:`still`)."""

    seat: int
    members: list[Whereabouts]
    places: list[int]
    exact: bool

    def may_hold(self, whereabouts: list[Whereabouts]) -> bool:
        """Whether the exchange holds, or may again: two of its members at least still among
        ``whereabouts`` at their places, the trading seat among their hands (another seat
        that may have taken one since leaves them when the bot sees its hand)."""
        return sum(1 for member, place in zip(self.members, self.places)
                   if any(member is where for where in whereabouts)
                   and member.pile == [place] and self.seat in member.hands) >= 2

    def still(self, whereabouts: list[Whereabouts]) -> Exchange | None:
        """The exchange over its members still among ``whereabouts`` as it left them
        (exactly one in the hand only if they all are); None when fewer than two are."""
        kept = [(member, place) for member, place in zip(self.members, self.places)
                if any(member is where for where in whereabouts)
                and member.pile == [place] and member.hands == [self.seat]]
        if len(kept) < 2:
            return None
        return Exchange(self.seat, [member for member, _ in kept], [place for _, place in kept],
                        self.exact and len(kept) == len(self.members))


class Tracker:
    """The bot's events, and what they tell about hidden cards.

    ``known[s]`` counts cards the bot *knows* are in seat ``s``'s hand: seen by a peek (Umbrae,
    Hermes, Ares; its revealed cards among them) or handed over in an exchange or a gift the
    bot took part in, and not seen leaving since. When a card of unknown face leaves that hand
    (a hidden card set as a trap or put on the pile, an exchange or gift the bot only hears
    of), the knowledge is dropped: it is always a sub-multiset of the true hand, never a
    guess; a revealed card leaving is named (E23), and only that card is taken off.
    ``hidden[s]`` holds those of them the bot knows are hidden there (a card handed over is
    hidden in its new hand, E23): beside a revealed copy of the same card they are a second
    copy, which ``known`` alone, read against the revealed cards, cannot tell
    (:meth:`beyond_revealed`). A card the bot knows lies on the draw pile (a look, a card it
    put there) and that another seat draws is known in that hand from then on.

    ``pile`` is the draw pile as the bot's feed tells it, bottom first like the engine's (the
    top is the last): each place holds the card the bot knows lies there, or ``None``: the
    cards it looked at (Athena, Sophoi, a Crown, Lachesis, Hippocamp), the card it gave in
    their place (at the ``depth`` it took from), the card it put back (Phoenix), a card
    lifted by Griffin, a revealed card another seat put back or gave for the one top card a
    Crown looked at; followed through every draw, burn, card moved to the bottom and
    reshuffle (which forgets them all). ``None`` as a whole when the feed did not start at
    the deal. ``whereabouts`` holds the cards it knows are in one of a few places (pile
    places, hands) but not which one (:class:`Whereabouts`); each follows every draw, look
    and move of those places, narrows as the bot sees where it is not, and is dropped where
    the feed no longer tells (a hidden card leaves such a hand, the card's face is seen
    where it may be this very card, a reshuffle). When another seat trades one of several
    top cards the bot knew, each such card is at its place or in that seat's hand, and
    ``exchanges`` keeps that only one of them left (:class:`Exchange`; read them through
    :meth:`live_exchanges`; one that can no longer hold is dropped). ``traps[s]`` is seat
    ``s``'s traps by slot, as set: the card where the bot knows it (Basilisk, or a revealed
    card set), else ``None``.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self, seat: int = -1) -> None:
        self.seat = seat
        self.events: list[dict[str, Any]] = []
        self.known: dict[int, Counter[str]] = {}
        self.hidden: dict[int, Counter[str]] = {}
        self.traps: dict[int, list[str | None]] = {}
        self.pile: list[str | None] | None = None
        self.whereabouts: list[Whereabouts] = []
        self.exchanges: list[Exchange] = []
        self._looked = 0  # how many top cards the last look saw (an exchange takes one)
        self._dealing = False
        self._done = 0

    def add(self, event: dict[str, Any]) -> None:
        """Keep ``event``, and read it at once where the seat is known (:meth:`reset` with
        the seat, or a :meth:`catch_up`): what the tracker holds is then up to date."""
        self.events.append(event)
        if self.seat >= 0:
            self.catch_up(self.seat)

    def catch_up(self, seat: int) -> None:
        """Read the events not read yet (the seat must be known to read them)."""
        if self.seat != seat:
            self.seat, self._done = seat, 0
            self.known, self.hidden, self.traps, self.pile = {}, {}, {}, None
            self.whereabouts, self.exchanges = [], []
        events = self.events
        while self._done < len(events):
            self._read(events[self._done])
            self._done += 1
        self._prune_exchanges()

    def _prune_exchanges(self) -> None:
        """Drop the exchanges that can no longer hold (their cards seen or gone): they
        constrain nothing, and a long game's samples would read them again and again."""
        self.exchanges = [exchange for exchange in self.exchanges
                          if exchange.may_hold(self.whereabouts)]

    def beyond_revealed(self, seat: int, revealed: list[str]) -> Counter[str]:
        """The cards the bot knows ``seat`` holds besides its ``revealed`` ones (now): a card
        seen in the hand may be one of them, a card known hidden there is not."""
        beyond = self.known.get(seat, Counter()) - Counter(revealed)
        return beyond | self.hidden.get(seat, Counter())

    def _lose(self, seat: Any, card: Any) -> None:
        self._drop_whereabouts(lambda where: seat in where.hands and where.card == card)
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
        self._drop_whereabouts(lambda where: bool(set(seats) & set(where.hands)))
        for seat in seats:
            self.known.pop(seat, None)
            self.hidden.pop(seat, None)

    def knows_anything(self) -> bool:
        """Whether the feed told the bot any hidden card's place (beyond the observation)."""
        return bool(self.known or self.hidden
                    or any(name is not None for slots in self.traps.values() for name in slots)
                    or any(name is not None for name in self.pile or ())
                    or bool(self.whereabouts))

    def _read(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        seat: Any = event.get("seat")
        me = self.seat
        if kind in ("play", "forced_discard", "discard"):
            self._lose(seat, event.get("card"))
        elif kind == "peek" and seat == me and "cards" in event:
            self._hand_seen(event["target"], event["cards"])
            self.known[event["target"]] = Counter(event["cards"])
            self.hidden.pop(event["target"], None)  # the peek does not say which are revealed
        elif kind == "reveal_hand":
            self._hand_seen(seat, event.get("cards", []))
            self.known[seat] = Counter(event.get("cards", []))
            self.hidden.pop(seat, None)
        elif kind == "reveal":  # maybe the copy known hidden: it is known, no longer hidden
            hidden = self.hidden.get(seat)
            shown = str(event.get("card"))
            self._drop_whereabouts(lambda where: seat in where.hands and where.card == shown)
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
            if seat != me:  # a revealed card is named as it goes face down (E23)
                named = event.get("gave" if kind == "pile_exchange" else "card")
                if named is None:
                    self._forget(seat)
                else:
                    self._lose(seat, named)
            if kind == "set_trap":
                self.traps.setdefault(seat, []).append(event.get("card"))
            else:
                self._read_pile_move(kind, seat, event)
        elif kind == "peek_traps" and seat == me and "cards" in event:
            self.traps[event["target"]] = list(event["cards"])
        elif kind in ("trap_triggered", "trap_destroyed", "trap_expired", "trap_cleared"):
            self._trap_gone(seat, event.get("slot", 0))
        elif kind == "game_start":
            self.known, self.hidden, self.traps, self.whereabouts = {}, {}, {}, []
            self.exchanges = []
            self.pile = [None] * (DECK_SIZE - HAND_SIZE * len(event.get("players", ())))
            self._dealing = True
        elif kind == "turn_start":
            self._dealing = False
        else:
            self._read_pile(kind, seat, event)

    def _trap_gone(self, seat: Any, slot: Any) -> None:
        slots = self.traps.get(seat)
        if slots is not None and isinstance(slot, int) and 0 <= slot < len(slots):
            del slots[slot]
        else:  # a feed not followed from the deal: its slots are not known
            self.traps.pop(seat, None)

    def _read_pile(self, kind: Any, seat: Any, event: dict[str, Any]) -> None:
        """The draw pile's moves: what the bot saw there follows its card."""
        pile = self.pile
        if kind == "reshuffle":
            self.pile = [None] * int(event.get("cards", 0))
            for where in self.whereabouts:
                where.pile = []
            self._settle()
        elif pile is None:
            return
        elif kind == "look":
            self._looked = int(event.get("count", len(event.get("cards", ()))))
            for depth, name in enumerate(event.get("cards", ()), 1):
                if depth <= len(pile):
                    self._place_seen(len(pile) - depth, name)
                    pile[-depth] = name
            self._settle()
        elif kind in ("draw", "burn") or kind == "palaestron" and not self._dealing:
            drawn = event.get("card", "Palaestron" if kind == "palaestron" else None)
            if pile:
                self._top_leaves(len(pile) - 1, drawn, seat if kind == "draw" else None)
            top = pile.pop() if pile else None
            if top is not None and drawn is not None and top != drawn:
                self.pile = None  # never a guess: the feed disagrees, forget the pile
                self.whereabouts = []
            elif top is not None and kind == "draw" and seat != self.seat:
                self._receive(seat, top)
        elif kind == "updraft":
            pile.append(event.get("card"))
        elif kind == "pile_bottomed" and pile:
            self._top_to_bottom(len(pile) - 1)
            pile.insert(0, pile.pop())

    def _top_to_bottom(self, top: int) -> None:
        """The top card (at ``top``) goes to the bottom (Lachesis): every place renumbers,
        those of the whereabouts and of the exchanges alike, so an exchange still holds."""
        def moved(place: int) -> int:
            return 0 if place == top else place + 1
        for where in self.whereabouts:
            where.pile = sorted(moved(place) for place in where.pile)
        for exchange in self.exchanges:
            exchange.places = [moved(place) for place in exchange.places]

    def _drop_whereabouts(self, stale: Any) -> None:
        self.whereabouts = [where for where in self.whereabouts if not stale(where)]

    def live_exchanges(self) -> list[Exchange]:
        """The :attr:`exchanges` as they still hold (:meth:`Exchange.still`)."""
        live = (exchange.still(self.whereabouts) for exchange in self.exchanges)
        return [exchange for exchange in live if exchange is not None]

    def _place_seen(self, place: int, name: Any) -> None:
        """The bot sees ``name`` at ``place``: a card it knows only the whereabouts of is not
        there, or, of the same face, may be that one (never a guess: forget where it was).
        The callers settle the whereabouts after it."""
        stayed = self._stayed_beside(place, name)
        self._drop_whereabouts(lambda where: place in where.pile and where.card == name)
        for where in self.whereabouts:
            if place in where.pile:
                where.pile.remove(place)
        for where in stayed:
            where.hands = []

    def _stayed_beside(self, place: int, name: Any) -> list[Whereabouts]:
        """The cards of an exchange that stayed at their places, where ``place`` shows
        another card than the exchange's card there: that card is the one traded."""
        stayed: list[Whereabouts] = []
        for exchange in self.live_exchanges() if name is not None else ():
            traded = [member for member, at in zip(exchange.members, exchange.places)
                      if at == place and member.card != name]
            stayed += [member for member in exchange.members if traded and member is not traded[0]]
        return stayed

    def _hand_seen(self, seat: Any, cards: list[str]) -> None:
        """The bot sees all of ``seat``'s hand."""
        self._drop_whereabouts(lambda where: seat in where.hands and where.card in cards)
        for where in self.whereabouts:
            if seat in where.hands:
                where.hands.remove(seat)
        self._settle()

    def _top_leaves(self, top: int, drawn: Any, drawer: Any) -> None:
        """The pile's top card leaves it: seen (``drawn``), or drawn unseen by ``drawer``, or
        unseen to no hand (a feed that does not name a burned card): a card that may have
        been there may have left with it."""
        if drawn is not None:
            self._place_seen(top, drawn)
        elif drawer is None:
            self._drop_whereabouts(lambda where: top in where.pile)
        for where in self.whereabouts:
            if top in where.pile:
                where.pile.remove(top)
                if drawer not in where.hands:
                    where.hands.append(drawer)
        self._settle()

    def _settle(self) -> None:
        """Whereabouts of one place are a known place; of none, a stale guess."""
        settled = []
        for where in self.whereabouts:
            places = len(where.pile) + len(where.hands)
            if places == 1 and where.pile and self.pile is not None \
                    and self.pile[where.pile[0]] is None:
                self.pile[where.pile[0]] = where.card
            elif places == 1 and where.hands:
                self._receive(where.hands[0], where.card)
            elif places > 1:
                settled.append(where)
        self.whereabouts = settled

    def _read_pile_move(self, kind: Any, seat: Any, event: dict[str, Any]) -> None:
        """A card put on the pile (Phoenix) or exchanged with one of its top cards."""
        pile = self.pile
        if pile is None:
            return
        if kind == "return_to_pile":
            pile.append(event.get("card"))
            return
        took = event.get("took")
        if took is None:
            self._other_takes_a_top_card(pile, seat, event.get("gave"))
            return
        depth: Any = event.get("depth")
        if depth is None:  # the copy nearest the top, among those it looked at
            seen = range(1, min(self._looked, len(pile)) + 1)
            depth = next((d for d in seen if pile[-d] == took), 0)
        if isinstance(depth, int) and 0 < depth <= len(pile) and pile[-depth] == took:
            self._place_seen(len(pile) - depth, took)
            pile[-depth] = event.get("gave")
            self._settle()
        else:
            self.pile = None
            self.whereabouts = []

    def _other_takes_a_top_card(self, pile: list[str | None], seat: Any, gave: Any) -> None:
        """Another seat traded ``gave`` (named if it was revealed) for one of the top cards
        of ``pile`` it looked at: a card the bot knew there is at its place or now in that
        hand."""
        top = pile[-1] if pile else None
        looked = range(len(pile) - min(self._looked, len(pile)), len(pile))
        seen = [(place, pile[place]) for place in looked if pile[place] is not None]
        for place in looked:
            pile[place] = None
        for where in self.whereabouts:  # it may have taken such a card
            if set(where.pile) & set(looked) and seat not in where.hands:
                where.hands.append(seat)
        if self._looked == 1 and pile:  # the one card looked at: its place is known
            if top is not None:
                self._receive(seat, top)
            for where in self.whereabouts:
                if looked[0] in where.pile:
                    where.pile.remove(looked[0])
            pile[-1] = gave
        elif len(looked) > 1:
            members = [Whereabouts(str(name), [place], [seat]) for place, name in seen]
            self.whereabouts += members
            if len(members) > 1:
                self.exchanges.append(Exchange(seat, members, [p for p, _ in seen],
                                               exact=len(seen) == len(looked)))
            if gave is not None:
                self.whereabouts.append(Whereabouts(str(gave), list(looked)))
        self._settle()

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
