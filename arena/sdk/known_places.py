"""The hidden places of a sampled state dealt so that each card a bot knows is where it
knows it (:func:`place_known`, which :meth:`arena.sdk.search.SearchView.sample_state` applies
to the engine's determinisation), and every hidden place of a copy of a state dealt again
from the bot's knowledge alone (:func:`redeal_hidden`).

A place is a hand's card beyond its revealed ones, a trap's slot, or a place of the draw
pile (:data:`Place`). A card the bot knows the place of goes there; one it knows only the
whereabouts of (a few places, :class:`~arena.sdk.tracker.Whereabouts`) goes to one of them,
each layout that keeps every such card within its places as likely as any other; the rest
are dealt at random, the Palaestron on the pile only. Only hidden places are touched, so the
bot's observation still holds.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from arena.engine.cards import DECK_SIZE, NOTATION, PALAESTRON
from arena.engine.observation import Observation
from arena.engine.state import State
from arena.sdk.tracker import Tracker

__all__ = ["Place", "place_known", "redeal_hidden"]

Place = tuple[int, str, int]  # (seat, "hand" | "trap" | "pile", index); the pile's seat: -1


def place_known(state: State, obs: Observation, tracker: Tracker, rng: random.Random) -> None:
    """Deal the hidden places again so that each card the bot knows is where it knows it: in
    a hand beyond its revealed cards, in a trap's slot, at a place of the draw pile. The
    cards of every hidden place (other hands beyond their revealed cards, other traps, the
    pile) are pooled; each known card is taken from the pool to its place, and the rest are
    dealt at random to the other places, the Palaestron to the pile only. Only hidden places
    are touched, so the observation still holds; knowledge the pool cannot meet is stale
    and left out (the observation wins). A card the bot knows only the whereabouts of goes
    to one of its places, each layout that keeps every such card within its places as likely
    as any other (:func:`_deal_rest`)."""
    places, demands = _hidden_places(state, obs, tracker, rng)
    pool: dict[str, list[int]] = {}
    for place in places:
        card = _card_at(state, place)
        pool.setdefault(NOTATION[card], []).append(card)
    dealt: dict[Place, int] = {}
    for place, name in demands:
        cards = pool.get(name)
        if cards and place not in dealt:
            dealt[place] = cards.pop()
    windows, groups = _windows(state, tracker, places, dealt)
    deal = _deal_rest(places, dealt, pool, windows, groups, rng)
    for place, card in (deal or {}).items():  # None: stale knowledge filled the pile
        _put(state, place, card)


Window = tuple[str, list[Place]]  # a card and the places it may be at
#: The windows of one exchange that still holds (their indices), and whether exactly one of
#: them (else at most one) is in the hand (:class:`~arena.sdk.tracker.Exchange`).
Group = tuple[list[int], bool]
#: A window dealt, with the index of its group (-1: none).
Picked = tuple[str, list[Place], int]
#: Deals drawn before the last one, which keeps the whereabouts without weighing layouts.
_TRIES = 40


def _windows(state: State, tracker: Tracker, places: list[Place],
             dealt: dict[Place, int]) -> tuple[list[Window], list[Group]]:
    """The tracker's whereabouts as the sampled state's places, but those known cards fill,
    and its exchanges that hold, each over its members' windows: a place of the pile each
    and the same free places of the exchanging seat's hand."""
    if tracker.pile is None or len(tracker.pile) != len(state.draw_pile):
        return [], []
    windows: list[Window] = []
    index: dict[int, int] = {}
    for where in tracker.whereabouts:
        at = [place for place in places if place not in dealt and (
            place[1] == "hand" and place[0] in where.hands
            or place[1] == "pile" and place[2] in where.pile)]
        if at:
            index[id(where)] = len(windows)
            windows.append((where.card, at))
    groups: list[Group] = []
    for exchange in tracker.live_exchanges():
        members = [index.get(id(member), -1) for member in exchange.members]
        wanted = [[(-1, "pile", place)] + [p for p in places if p not in dealt and p[1] == "hand"
                                            and p[0] == exchange.seat]
                  for place in exchange.places]
        if all(i >= 0 and sorted(windows[i][1]) == sorted(at) for i, at in zip(members, wanted)) \
                and (len(wanted[0]) > 1 or not exchange.exact):
            groups.append((members, exchange.exact))
    return windows, groups


def _deal_rest(places: list[Place], dealt: dict[Place, int], pool: dict[str, list[int]],
               windows: list[Window], groups: list[Group],
               rng: random.Random) -> dict[Place, int] | None:
    """``dealt`` and the rest of ``pool`` over the other places, the Palaestron on the pile,
    each card of ``windows`` within its places, uniformly over such layouts: each window's
    card goes to one of its places at random (a group's windows together, one of its ways
    at random: at most one of them in the hand, :func:`_pick_group`; drawn again where two
    windows pick one place), the rest at random, and the deal is kept with a chance inverse
    to how many ways it could be drawn (more than one where a copy of a window's card lands
    in it too), so no layout is more likely than another. Rarely more than one draw; the
    last of ``_TRIES`` is kept as it is."""
    pile_places = sum(1 for place in places if place[1] == "pile" and place not in dealt)
    for attempt in range(_TRIES):
        deal, left = dict(dealt), {name: list(cards) for name, cards in pool.items()}
        picked = _pick_windows(deal, left, windows, groups, rng, attempt == _TRIES - 1)
        if picked is None:
            continue
        placed, exact = picked
        rest = [card for cards in left.values() for card in cards]
        rng.shuffle(rest)
        open_places = [place for place in places if place not in deal]
        weight = 1.0  # the Palaestron's choice of places, which the windows' cards narrow
        if PALAESTRON in rest:  # never in a hand or a trap: it is played when drawn
            in_pile = [place for place in open_places if place[1] == "pile"]
            if not in_pile:
                return None
            weight = len(in_pile) / pile_places
            rest.remove(PALAESTRON)
            at = rng.choice(in_pile)
            deal[at] = PALAESTRON
            open_places.remove(at)
        deal.update(zip(open_places, rest))
        if not placed or attempt == _TRIES - 1 \
                or rng.random() * _matchings(deal, placed, exact) < weight:
            return deal
    return None


def _pick_windows(deal: dict[Place, int], left: dict[str, list[int]], windows: list[Window],
                  groups: list[Group], rng: random.Random,
                  last: bool) -> tuple[list[Picked], list[bool]] | None:
    """A place for each window's card among its places, taken from ``left`` into ``deal``:
    the windows dealt and, by group, whether exactly one of it is in the hand; or None where
    two picked one place (the ``last`` picks among the places still free instead). A window
    whose card the pool has no copy of left is stale, and so is a group it is in (its
    windows are dealt each on its own)."""
    placed: list[Picked] = []
    exact = [False] * len(groups)
    grouped: set[int] = set()
    for g, (members, exactly_one) in enumerate(groups):
        ways = _pick_group(deal, left, [windows[i] for i in members], exactly_one, rng, last)
        if ways is None:
            return None
        if ways:
            placed += [(name, at, g) for name, at in ways]
            grouped.update(members)
            exact[g] = exactly_one
    for i, (name, at) in enumerate(windows):
        cards = left.get(name)
        free = [place for place in at if place not in deal] if last else at
        if i in grouped or not cards or not free:
            continue
        place = rng.choice(free)
        if place in deal:
            return None
        deal[place] = cards.pop()
        placed.append((name, at, -1))
    return placed, exact


def _pick_group(deal: dict[Place, int], left: dict[str, list[int]], members: list[Window],
                exactly_one: bool, rng: random.Random, last: bool) -> list[Window] | None:
    """One way of an exchange's windows, each way as likely: every card at its pile place
    (where none need be in the hand) or one of them at one of the hand's places and the
    others at theirs; the windows dealt, [] where the pool lacks their cards (or, at the
    ``last`` draw, no way is free), None where a way picks a place taken."""
    if any(len(left.get(name, ())) < count
           for name, count in Counter(name for name, _ in members).items()):
        return []
    piles = [next(place for place in at if place[1] == "pile") for _, at in members]
    hand = [place for place in members[0][1] if place[1] == "hand"]
    ways: list[list[Place]] = [] if exactly_one else [piles]
    ways += [piles[:i] + [place] + piles[i + 1:] for i in range(len(members)) for place in hand]
    if last:
        ways = [way for way in ways if not set(way) & set(deal)]
    if not ways:
        return [] if last else None
    way = rng.choice(ways)
    if set(way) & set(deal):
        return None
    for (name, _), place in zip(members, way):
        deal[place] = left[name].pop()
    return members


def _matchings(deal: dict[Place, int], windows: list[Picked], exact: list[bool]) -> int:
    """In how many ways the windows' cards in ``deal`` could have been picked: each window
    a place of its own among its places holding its card, at most one of a group's in the
    hand (exactly one where ``exact`` says so)."""
    def count(i: int, used: frozenset[Place], in_hand: tuple[int, ...]) -> int:
        if i == len(windows):
            return int(all(n == 1 or n == 0 and not one for n, one in zip(in_hand, exact)))
        name, at, group = windows[i]
        ways = 0
        for place in at:
            if place in used or NOTATION[deal[place]] != name:
                continue
            more = group >= 0 and place[1] == "hand"
            if more and in_hand[group]:
                continue
            ways += count(i + 1, used | {place}, in_hand[:group] + (in_hand[group] + 1,)
                          + in_hand[group + 1:] if more else in_hand)
        return ways
    return count(0, frozenset(), (0,) * len(exact))


def redeal_hidden(state: State, observation: Observation, tracker: Tracker, seed: int) -> None:
    """Deal every hidden place of ``state`` again from ``seed``, as :meth:`SearchView.
    sample_state` deals a sampled state's: each card the bot knows where it knows it, the
    rest at random, the Palaestron on the pile. For a search from a copy of a state the bot
    is in, at a decision ``sample_state`` cannot position a state at; ``observation`` is the
    bot's view of that copy (``state.observe(seat)``, the same card ids) and ``tracker`` has
    read its events. The hidden cards are laid out in card order first (another seat's hand
    too: its order tells where each card came from), so the deal depends on what the bot
    was told and on ``seed`` only, never on where the hidden cards were. The ids of copies
    (two cards of one face) are dealt in card order too, but for the copies the bot's
    pending decision names (a card it was shown, to take or to give): where a face lands in
    the zone such a copy was in, that copy goes there, so the decision still finds it. No
    other copy follows the old deal: which copy lay where would tell where a face was."""
    me = observation.seat
    old = {_card_at(state, place): _zone(place)
           for place in _hidden_places(state, observation, tracker, random.Random(0))[0]}
    for seat in range(state.n):
        if seat != me:
            revealed, hand = state.revealed[seat], sorted(state.hands[seat])
            state.hands[seat] = ([card for card in hand if card in revealed]
                                 + [card for card in hand if card not in revealed])
    places, _ = _hidden_places(state, observation, tracker, random.Random(0))
    # the pile's places come last: the Palaestron, last in this order, lies on the pile
    cards = sorted((_card_at(state, place) for place in places),
                   key=lambda card: (card == PALAESTRON, card))
    for place, card in zip(places, cards):
        _put(state, place, card)
    place_known(state, observation, tracker, random.Random(seed))
    named = _named_cards(state)
    _keep_copies(state, places, {card: zone for card, zone in old.items() if card in named})


def _zone(place: Place) -> Place:
    """Where a card is, as far as it matters: a hand (any index), a trap's slot, a pile's
    place."""
    seat, zone, index = place
    return (seat, zone, 0 if zone == "hand" else index)


def _named_cards(state: State) -> set[int]:
    """The card ids the pending decision's choices and continuation name."""
    named: set[int] = set()
    pending: list[Any] = [list(state._payloads), list(state._ctx)]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, tuple)):
            pending += item
        elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < DECK_SIZE:
            named.add(item)
    return named


def _keep_copies(state: State, places: list[Place], kept: dict[int, Place]) -> None:
    """Each copy in ``kept`` back in the zone it was in, where the new deal put its face
    there; the other copies of a face in card order over its places."""
    at = {_card_at(state, place): place for place in places}
    faces: dict[str, list[Place]] = {}
    for place in places:
        faces.setdefault(NOTATION[_card_at(state, place)], []).append(place)
    for face_places in faces.values():
        free = sorted(_card_at(state, place) for place in face_places)
        for place, card in zip(face_places, free):
            _put(state, place, card)
            at[card] = place
    for place in places:
        card = _card_at(state, place)
        if kept.get(card) == _zone(place):
            continue
        copy = next((other for other in at if other != card and NOTATION[other] == NOTATION[card]
                     and kept.get(other) == _zone(place)), None)
        if copy is not None and _zone(at[copy]) != _zone(place):
            _put(state, at[copy], card)
            _put(state, place, copy)
            at[card], at[copy] = at[copy], place


def _hidden_places(state: State, obs: Observation, tracker: Tracker,
                   rng: random.Random) -> tuple[list[Place], list[tuple[Place, str]]]:
    """Every hidden place of the sampled state, and the card the bot knows at some of them."""
    me = obs.seat
    places: list[Place] = []
    demands: list[tuple[Place, str]] = []
    for seat in range(state.n):
        if seat == me:
            continue
        revealed = obs.revealed_ids[seat]
        hand = [(seat, "hand", i) for i, c in enumerate(state.hands[seat]) if c not in revealed]
        rng.shuffle(hand)  # a hand has no order: the known cards go anywhere in it
        known = tracker.beyond_revealed(seat, [NOTATION[c] for c in revealed])
        demands += zip(hand, sorted(known.elements()))
        traps: list[Place] = [(seat, "trap", i) for i in range(len(state.traps[seat]))]
        slots = tracker.traps.get(seat)
        if slots is not None and len(slots) == len(traps):
            demands += [(place, name) for place, name in zip(traps, slots) if name is not None]
        places += hand + traps
    pile: list[Place] = [(-1, "pile", i) for i in range(len(state.draw_pile))]
    if tracker.pile is not None and len(tracker.pile) == len(pile):
        demands += [(place, name) for place, name in zip(pile, tracker.pile) if name is not None]
    return places + pile, demands


def _card_at(state: State, where: Place) -> int:
    seat, zone, i = where
    if zone == "hand":
        return state.hands[seat][i]
    if zone == "trap":
        return state.traps[seat][i].card
    return state.draw_pile[i]


def _put(state: State, where: Place, card: int) -> None:
    seat, zone, i = where
    if zone == "hand":
        state.hands[seat][i] = card
    elif zone == "trap":
        state.traps[seat][i].card = card
    else:
        state.draw_pile[i] = card
