"""The kit's greedy policy: a hand's worth, and fast choices for playouts.

One policy in two forms: :func:`playout_choice` over engine states (playouts, and the other
seats inside a search, where the sampled state is the whole truth) and :func:`knowing_choice`
over what a bot knows (its own decisions that it does not search). :func:`play_out` plays a
state to its end with it, through the engine's own game loop. Standard library and the
engine only, so it runs under the sandbox's interpreter.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any

from arena.engine.agents import play_out as play_until_over
from arena.engine.cards import KIND_OF, NEMESIS, NOTATION, PALAESTRON, Kind
from arena.engine.desmos import KEY, evaluate
from arena.engine.effects import EFFECTS
from arena.engine.observation import Observation
from arena.engine.rulebook import HAND_SIZE
from arena.engine.state import State

__all__ = [
    "CHASE",
    "KEEP",
    "SLACK",
    "STRIKE",
    "hand_score",
    "knowing_choice",
    "play_out",
    "playout_choice",
    "score_names",
]

_FIRST_ID = {name: NOTATION.index(name) for name in set(NOTATION)}
_CROWN = int(Kind.CROWN)
_GOD_KIND = int(Kind.GOD)
#: hand_score by the evaluator's hand key (the sum of the cards' ``KEY``: equal for equal
#: Desmos signatures, distinct otherwise, for hands of any size up to five)
_SCORES: dict[int, float] = {}


def hand_score(cards: Sequence[int]) -> float:
    """A hand's Desmos as one number: the category, plus the tie key as a fraction below 1
    (tiers are 1..5, so base 6 keeps the order). Bigger is better, as ``evaluate``; hands of
    fewer cards are valued as the evaluator values them (their biggest groups)."""
    key = sum(map(KEY.__getitem__, cards))
    score = _SCORES.get(key)
    if score is None:
        score = _SCORES[key] = _score(cards)
    return score


def _score(cards: Sequence[int]) -> float:
    category, tiers = evaluate([c for c in cards if c != PALAESTRON])
    return category + sum(t * 6.0 ** -(i + 1) for i, t in enumerate(tiers))


def score_names(hand: Iterable[str]) -> float:
    """:func:`hand_score` of a hand in notation (copies may repeat)."""
    return hand_score([_FIRST_ID[c] for c in hand if c != "Palaestron"])


# One greedy policy in two forms: over engine states (playouts, and the other seats inside a
# search, where the sampled state is the whole truth) and over a view (a search bot's own
# decisions that it does not search, where only its knowledge counts). What it knows of the
# game, learnt from play: competent players end most games with a Full Domain or a Quartet,
# so a hand with a spare card cycles it, a Full Domain may be broken to chase a Quartet, and
# attacks (forced discards) wait for the last turn, when the victim cannot rebuild.

#: Copies of each kind in the deck (the Palaestron left out; an unused Crown is its own kind).
_COPIES = Counter(KIND_OF[c] for c in range(len(NOTATION)) if c != PALAESTRON)
_KINDS = range(len(_COPIES))
_COPIES_BY_KIND = [_COPIES[k] for k in _KINDS]
#: One card of each kind: a draw is valued by its kind (a rank only matters in a Rank Flush).
_SAMPLE = [next(c for c in range(len(NOTATION)) if KIND_OF[c] == kind) for kind in _KINDS]
_SAMPLE_KEY = [KEY[c] for c in _SAMPLE]
#: Forced discards for the opponents (the effects that make some): a free redraw for a hand
#: with a spare card, a broken group for a complete one, so they wait for the end. Nemesis
#: (they give you their worst card) is a gift too, and is never sprung.
_ATTACKS = frozenset(c for c in range(len(NOTATION)) if NOTATION[c] == NEMESIS
                     or NOTATION[c] in EFFECTS and EFFECTS[NOTATION[c]].forced_discards > 0)
_NEMESIS = frozenset(c for c in range(len(NOTATION)) if NOTATION[c] == NEMESIS)
#: The effects whose choice of opponent only shows the chooser cards of theirs (the Spy's look,
#: Atropos's reveal, an Arcoi's reveal when no trap is left to destroy), by the card a decision
#: is for (its context's ``source``): the decision's words are prose that may change.
_SHOWS_CARDS = frozenset(face for face in EFFECTS
                         if face == "Fate-3" or face.split("-")[0] in ("Umbrae", "Arcoi"))
#: What playing a card's effect is worth to its player, roughly, in hand-score points: a
#: chosen card from the pile, another hand or the Discard Graveyard, an extra card, a look.
_EFFECT_VALUE = {"God-4": 0.35, "God-1": 0.3, "God-2": 0.2, "Fate-1": 0.1, "God-6": 0.03,
                 "Fate-4": 0.05, "Beast-4": 0.05, "Fate-2": 0.02, "Fate-3": 0.01,
                 **{f"Sophoi-{r}": 0.22 for r in range(1, 6)},
                 **{f"Umbrae-{r}": 0.02 for r in range(1, 7)},
                 **{f"Arcoi-{r}": 0.02 for r in range(1, 6)}}
#: Break a Full Domain for a Quartet when the fourth card comes at least this likely.
CHASE = 0.15
#: Late in the game an attack card is worth keeping for the last turn: cycling it costs
#: up to this much (in hand-score points), growing as the end nears.
KEEP = 0.8
#: On its last turn a player strikes with an attack card costing at most this much more
#: (expected hand score) than the card it would cycle otherwise.
STRIKE = 0.3
#: Cards whose cycling is worth this close to the best are candidates to play for effect.
SLACK = 0.05


def _least_needed(hand: Sequence[int], among: Container[str] | None = None) -> tuple[int, float]:
    """The card whose loss hurts the hand least, and the score of the hand without it; only
    cards named in ``among`` when given (a reveal offers only those not shown yet)."""
    total = sum(map(KEY.__getitem__, hand))
    scores = _SCORES
    best, best_score = hand[0], -1.0
    for i, card in enumerate(hand):
        if among is not None and NOTATION[card] not in among:
            continue
        score = scores.get(total - KEY[card])
        if score is None:
            score = hand_score([*hand[:i], *hand[i + 1:]])
        if score > best_score:
            best, best_score = card, score
    return best, best_score


def _cycle_gains(hand: Sequence[int], seen: list[int]) -> dict[int, float]:
    """For each card of the hand: the expected score after giving it up and drawing a card
    not seen yet, minus the score now (cheap: draws are grouped by kind; ``seen`` counts
    the cards of each kind seen outside the hand)."""
    left = [n - s for n, s in zip(_COPIES_BY_KIND, seen)]
    for c in hand:
        left[KIND_OF[c]] -= 1
    draws = [(n, k) for k, n in enumerate(left) if n > 0]
    total = sum(n for n, _ in draws)
    if not total:
        return dict.fromkeys(hand, 0.0)
    keys = sum(map(KEY.__getitem__, hand))
    now = hand_score(hand)
    gains: dict[int, float] = {}
    by_kind: dict[int, float] = {}  # cards of one kind are worth the same (ranks aside)
    for i, card in enumerate(hand):
        gain = by_kind.get(KIND_OF[card])
        if gain is None:
            rest = keys - KEY[card]
            row = _DRAW_SCORES.get(rest)
            if row is None:
                row = _DRAW_SCORES[rest] = [-1.0] * len(_SAMPLE)
            expected = 0.0
            for n, kind in draws:
                score = row[kind]
                if score < 0:  # not asked for yet
                    score = row[kind] = hand_score([*hand[:i], *hand[i + 1:], _SAMPLE[kind]])
                expected += n * score
            gain = by_kind[KIND_OF[card]] = expected / total - now
        gains[card] = gain
    return gains


#: The scores of a hand after one more card of each kind (-1: not asked for yet), by the
#: hand's key: a search's playouts ask for the same hands' draws again and again.
_DRAW_SCORES: dict[int, list[float]] = {}


def _quartet(hand: Sequence[int]) -> bool:
    kinds = Counter(KIND_OF[c] for c in hand)
    return len(hand) == HAND_SIZE and max(kinds.values()) + kinds.get(_CROWN, 0) >= 4


def _chase(hand: Sequence[int], seen: list[int], draws: int) -> int:
    """A complete hand (no spare card) of three and two: the card of the two to give up if
    the fourth card of the three comes at least ``CHASE`` likely in ``draws`` draws (a
    Quartet beats every Full Domain), else -1 (hold)."""
    kinds = Counter(KIND_OF[c] for c in hand)
    if draws <= 0 or kinds.get(_CROWN) or len(kinds) != 2:
        return -1
    (big, n_big), (small, _) = kinds.most_common()
    if n_big != 3:
        return -1
    left = _COPIES[big] - seen[big] - 3
    pool = len(NOTATION) - 1 - sum(seen) - len(hand)
    if left <= 0 or pool <= 0 or 1 - (1 - left / pool) ** draws < CHASE:
        return -1
    return next(c for c in hand if KIND_OF[c] == small)


def _effect_value(card: int) -> float:
    return -1.0 if card in _ATTACKS else _EFFECT_VALUE.get(NOTATION[card], 0.0)


def _index(options: Sequence[dict[str, Any]], field: str, name: str, **match: Any) -> int:
    """The index of the option with ``field == name`` (and ``match``), or 0 (the default)."""
    for i, option in enumerate(options):
        if option.get(field) == name and all(option.get(k) == v for k, v in match.items()):
            return i
    return 0


def _turn_choice(kind: str, options: Sequence[dict[str, Any]], hand: Sequence[int],
                 final: bool, draws: int, seen: Callable[[], list[int]]) -> int:
    """A ``turn`` (hold, play, trap) or a ``swap``, with two cards in hand or more: give up
    the card whose replacement gains most (:func:`_cycle_gains`), keeping attack cards for
    the last turn, and hold when the hand is complete."""
    counts = seen()
    gains = _cycle_gains(hand, counts)
    if not final:  # keep attack cards for the last turn, more so as it nears
        keep = KEEP * max(0.0, 1 - draws / 10)
        for c in hand:
            if c in _ATTACKS and c not in _NEMESIS:
                gains[c] -= keep
    card = max(hand, key=gains.__getitem__)
    if gains[card] <= 1e-9:  # complete: hold, or chase a Quartet
        card = _chase(hand, counts, draws)
        if card < 0:
            return 0
    elif card in _ATTACKS and not final and _quartet(hand):
        return 0  # the spare card of a Quartet is an attack: keep it for the end
    if kind == "swap":
        return _index(options, "swap", NOTATION[card])
    if final:  # the last turn: strike with an attack card that costs little
        for attack in hand:
            if attack in _ATTACKS and attack not in _NEMESIS \
                    and gains[attack] > gains[card] - STRIKE:
                return _index(options, "card", NOTATION[attack], action="play")
    # of the cards about as good to cycle, play the one whose effect is worth most
    cycled = [c for c in hand if gains[c] > gains[card] - SLACK]
    card = max(cycled, key=lambda c: gains[c] + _effect_value(c))
    if card in _ATTACKS and not final:  # cycle it silently: a trap, or else the swap
        trap = _index(options, "card", NOTATION[card], action="trap")
        if trap:
            return trap
        others = [c for c in hand if c not in _ATTACKS and gains[c] > 1e-9]
        if not others:
            return 0
        card = max(others, key=lambda c: gains[c] + _effect_value(c))
    return _index(options, "card", NOTATION[card], action="play")


def _policy(kind: str, options: Sequence[dict[str, Any]], context: dict[str, Any],
            hand: Sequence[int], hand_of: Callable[[Any], Sequence[int]],
            top_discard: int, final: bool, draws: int,
            seen: Callable[[], list[int]], rng: random.Random) -> int:
    """The policy, given the chooser's hand, ``hand_of(seat)`` (another seat's cards as far
    as the chooser knows them: all of them inside a sampled state), ``final`` (the chooser's
    last turn, or for a trap the game's last window), ``draws`` (cards it can still cycle)
    and ``seen()`` (cards of each kind in public zones)."""
    if kind == "turn" or kind == "swap":
        return _turn_choice(kind, options, hand, final, draws, seen) if len(hand) >= 2 else 0
    if kind == "trigger":  # spring helpers at once, attacks in the game's last window
        for i, option in enumerate(options[1:], start=1):
            trap = _FIRST_ID.get(str(option.get("trap")), -1)
            if trap not in _ATTACKS or (final and trap not in _NEMESIS):
                return i
        return 0
    if kind == "target":  # look at the least known opponent; hit the strongest (known) hand
        if context.get("source") in _SHOWS_CARDS and "slot" not in options[0]:
            known = [len(hand_of(o.get("seat"))) for o in options]
            return known.index(min(known))
        scores = [hand_score(hand_of(o.get("seat"))) if "slot" not in o else 0.0
                  for o in options]
        return scores.index(max(scores))
    if kind in ("give", "discard", "reveal"):
        if not hand:
            return 0
        if options[0].get("card", "") is None:  # Tyche: exchange for the top discard, or pass
            if top_discard < 0 or top_discard == PALAESTRON:
                return 0
            card, score = _least_needed([*hand, top_discard])
            if card == top_discard or score <= hand_score(hand) + 1e-9:
                return 0
            return _index(options, "card", NOTATION[card])
        offered = {str(option.get("card")) for option in options}
        return _index(options, "card", NOTATION[_least_needed(hand, offered)[0]])
    if kind == "card":
        return _card_choice(options, context, hand, hand_of)
    return rng.randrange(len(options))


def _card_choice(options: Sequence[dict[str, Any]], context: dict[str, Any],
                 hand: Sequence[int], hand_of: Callable[[Any], Sequence[int]]) -> int:
    first = options[0]
    if "bottom" in first:  # Lachesis: keep a top card that joins a group, else bottom it
        top = _FIRST_ID.get(str(options[-1].get("bottom")), -1)
        joins = top >= 0 and (KIND_OF[top] in (_CROWN, _GOD_KIND)
                              or any(KIND_OF[c] == KIND_OF[top] for c in hand))
        return 0 if joins else len(options) - 1
    if first.get("card") is not None:  # Ares: sack the card the victim needs most
        victim = list(hand_of(context.get("from_seat")))
        best, best_score = 0, 99.0
        for i, option in enumerate(options):
            ids = [c for c in victim if NOTATION[c] == option["card"]]
            if ids:
                rest = list(victim)
                rest.remove(ids[0])  # a God fires for its owner when discarded
                score = hand_score(rest) + (0.5 if KIND_OF[ids[0]] == _GOD_KIND else 0.0)
                if score < best_score:
                    best, best_score = i, score
        return best
    # take an offered card (pile, Discard Graveyard, another hand) if it improves the hand
    best, best_score = 0, hand_score(hand) + 1e-9 if len(hand) >= 5 else -1.0
    for i, option in enumerate(options[1:], start=1):
        card = _FIRST_ID.get(str(option.get("card")), -1)
        if card >= 0:
            score = _least_needed([*hand, card])[1]
            if score > best_score:
                best, best_score = i, score
    return best


def _kinds(*zones: Iterable[int]) -> list[int]:
    """Cards by kind in some public zones (the Palaestron left out)."""
    counts = [0] * len(_COPIES)
    for zone in zones:
        for c in zone:
            if c != PALAESTRON:
                counts[KIND_OF[c]] += 1
    return counts


def _draws(kind: str, turn: int, rounds: int, players: int) -> int:
    """Cards a player can still cycle from this turn or swap decision to the game's end."""
    own_later = (rounds * players - 1 - turn) // players
    return 2 * own_later + (2 if kind == "turn" else 1)


def _final(kind: str, context: dict[str, Any], turn: int, rounds: int, players: int) -> bool:
    """The chooser's last turn (turn, swap), or the game's last trap window (trigger)."""
    last = rounds * players - 1
    if kind == "trigger":  # the window before the showdown, or the last turn's start
        window = context.get("window")
        return window == "showdown" or (turn == last and window == "turn_start")
    return turn + players > last


def playout_choice(state: State, rng: random.Random) -> int:
    """A fast greedy choice for the pending decision of ``state``, with full sight of the
    (sampled) state: for playouts and for the other seats inside a search.

    Turn and swap: cycle the card whose replacement by a draw raises the expected Desmos
    most (playing, of the cards about as good to cycle, the one with the best effect), else
    hold; break a Full Domain to chase a likely Quartet; keep attack cards (forced discards)
    for the last turn (cycling one early, as a trap), and strike then. Traps: helpers at
    once, attacks at the game's last window. Give, discard, reveal: the card needed least.
    Take an offered card that improves the hand; Ares sacks
    the card the victim needs most; targets: the opponent showing the best revealed cards
    (a look: the one showing fewest), not the best hidden hand; Lachesis keeps
    a top card that joins a group; Rock-Paper-Scissors at random.
    """
    decision = state.decision
    assert decision is not None
    seat = decision.seat
    hands = state.hands
    # Targets are picked from what the chooser could know (revealed cards), as real players
    # do; a sampled hand seen whole would draw every attack to the strongest hand, the
    # searcher's own above all, at tables of three or more.
    sight = state.revealed if decision.kind == "target" else hands
    gy = state.discard_graveyard
    return _policy(decision.kind, decision.options, decision.context, hands[seat],
                   lambda s: list(sight[s]) if isinstance(s, int) and 0 <= s < len(hands)
                   else (),
                   gy[-1] if gy else -1,
                   _final(decision.kind, decision.context, state.turn, state.rounds, state.n),
                   _draws(decision.kind, state.turn, state.rounds, state.n),
                   lambda: _kinds(state.effect_graveyard, gy,
                                  [t.card for t in state.traps[seat]]),
                   rng)


def knowing_choice(observation: Observation, kind: str, legal: Sequence[dict[str, Any]],
                   context: dict[str, Any], known_hand: Callable[[int], list[str]],
                   rng: random.Random) -> int:
    """:func:`playout_choice` for a bot's own decision, from its knowledge only: another
    seat's hand is ``known_hand(seat)``, the cards the bot knows it holds."""
    obs = observation
    players = len(obs.players)

    def hand_of(seat: Any) -> list[int]:
        if not isinstance(seat, int) or not 0 <= seat < players:
            return []
        return [_FIRST_ID[c] for c in known_hand(seat)]

    gy = obs.discard_graveyard_ids
    others = (cards for seat, cards in enumerate(obs.revealed_ids) if seat != obs.seat)
    return _policy(kind, legal, context, list(obs.hand_ids), hand_of,
                   gy[-1] if gy else -1,
                   _final(kind, context, obs.turn, obs.rounds, players),
                   _draws(kind, obs.turn, obs.rounds, players),
                   lambda: _kinds(obs.effect_graveyard_ids, gy,
                                  [c for c, _, _ in obs.trap_cards], *others),
                   rng)


def play_out(state: State, rng: random.Random) -> State:
    """Play ``state`` to its end with :func:`playout_choice` for every seat."""
    return play_until_over(state, lambda current: playout_choice(current, rng))
