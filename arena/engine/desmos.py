"""The Desmos (hand) evaluator: category and tie key of up to five cards (rulings 2-5).

A hand's value is ``(category, key)``; bigger is better and equal values are a true tie.

* Cards group by kind (God, Agari, Umbrae, Arcoi, Sophoi, Fate, Beast); unused Crowns group
  together as kind Crown; the Palaestron never counts and is ignored.
* Categories are exact shapes, best first: The Ascension (five natural Gods) > Quartet (4+1) >
  Full Domain (3+2) > Rank Flush (five of one rank number, any kinds) > Straight (5 of one kind)
  > Triplet (3+1+1) > Two Pair (2+2+1) > Pair (2+1+1+1) > High Hand (five different kinds).
  A hand scores the highest category it satisfies.
* Crowns are wild: each stands for any card (kind and rank; duplicates allowed) or stays a
  Crown; the best assignment counts. A Crown never counts toward The Ascension.
* Tie key: each card's family tier (God 5, Crown 4 whatever it stands for, any Class 3, Fate 2,
  Beast 1), groups ordered by size, then strongest tier (then the rest of their tiers, which
  only matters between assignments that are never the best), read card by card. A Rank Flush
  has no kind groups (a rank makes it): its tiers are read highest first (E30).
  Rank numbers never break ties.
* Short hands (0-4 cards; the engine can hold one mid-turn, e.g. after an instant Ascension
  elsewhere) evaluate too: the five-card shapes (Ascension, Full Domain, Rank Flush, Straight)
  are impossible; Quartet needs a group of 4, Triplet a group of 3, Two Pair two groups of 2,
  Pair a group of 2, anything else is a High Hand.

Why it is fast: a hand's value depends only on its kind counts (Crowns included) and its rank
counts, so every card id has a bit-packed code (3 bits per kind count, 3 bits per rank count)
and a hand's *signature* is the plain sum of its cards' codes; the value of a signature is
worked out once (from the kind counts and, for a possible Rank Flush, the common rank). The
hot path uses a second per-card number, :data:`KEY`, whose sums identify the same signatures
but hash evenly: :func:`evaluate` of five cards is five additions and one dict lookup, the
dict being filled on first sight of a hand's key. :func:`census` counts hands per signature.
:func:`evaluate_naive` is the independent oracle the tests hold the fast path to.
"""

from __future__ import annotations

import enum
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from arena.engine.cards import (
    CLASS_KINDS,
    DECK,
    KIND_OF,
    NOTATION,
    PALAESTRON,
    RANK_OF,
    TIER_OF,
    Kind,
    tier_of_kind,
)
from arena.engine.rulebook import HAND_SIZE
from arena.errors import CardError

__all__ = [
    "CODE",
    "CODE_FAMILY",
    "EVALUATORS",
    "HAND_SIZE",
    "KEY",
    "KEY_FAMILY",
    "KIND_BITS",
    "MAX_RANK",
    "RANK_BASE",
    "Category",
    "Desmos",
    "Value",
    "category_of",
    "census",
    "compare",
    "desmos",
    "evaluate",
    "evaluate_family",
    "evaluate_naive",
    "value_of_signature",
]

#: ``(category, tie key)``; compare lexicographically, bigger is better.
Value = tuple[int, tuple[int, ...]]


class Category(enum.IntEnum):
    """Desmos categories, ordered so that a bigger value is a better hand (ruling 3)."""

    HIGH_HAND = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPLET = 3
    STRAIGHT = 4
    RANK_FLUSH = 5
    FULL_DOMAIN = 6
    QUARTET = 7
    ASCENSION = 8

    @property
    def label(self) -> str:
        """The rulebook's name of the category, e.g. ``"The Ascension"``."""
        return _CATEGORY_LABEL[self]


_CATEGORY_LABEL = {
    Category.HIGH_HAND: "High Hand",
    Category.PAIR: "Pair",
    Category.TWO_PAIR: "Two Pair",
    Category.TRIPLET: "Triplet",
    Category.STRAIGHT: "Straight",
    Category.RANK_FLUSH: "Rank Flush",
    Category.FULL_DOMAIN: "Full Domain",
    Category.QUARTET: "Quartet",
    Category.ASCENSION: "The Ascension",
}

_GOD = int(Kind.GOD)
_CROWN = int(Kind.CROWN)
_CLASS_KINDS = frozenset(int(k) for k in CLASS_KINDS)
_CROWN_TIER = tier_of_kind(Kind.CROWN)  # whatever the Crown stands for
_DECK_COUNT = len(DECK) - 1  # the 51 cards that can be part of a Desmos

# ---------------------------------------------------------------------------------------------
# Signatures. A hand's value depends only on its kind counts (Crowns as a kind) and its rank
# counts. CODE packs them: bits 0..23 hold 3-bit counts of the kinds 0..7 (7 = Crown), bits
# 24..44 the 3-bit counts of ranks 1..7 (natural cards only; a Crown has no rank of its own).
# Five cards never overflow a field, so the sum of the codes is the hand's signature.
# ---------------------------------------------------------------------------------------------
#: Where a signature's rank counts start (below: the kind counts), and the largest rank number.
RANK_BASE = 24
KIND_BITS = (1 << RANK_BASE) - 1
MAX_RANK = max(RANK_OF)


#: Each card's kind under the house rule ``kinds=family``: the four Classes are one kind
#: (Agari's number stands for it), as Gods, Fates and Beasts are.
FAMILY_KIND_OF: tuple[int, ...] = tuple(
    int(Kind.AGARI) if kind in _CLASS_KINDS else kind for kind in KIND_OF)


def _code(cid: int, kind_of: Sequence[int] = KIND_OF) -> int:
    kind, rank = kind_of[cid], RANK_OF[cid]
    if cid == PALAESTRON:
        return 0
    if kind == _CROWN:
        return 1 << (3 * _CROWN)
    return (1 << (3 * kind)) + (1 << (RANK_BASE + 3 * (rank - 1)))


#: Packed signature code of each card id (the Palaestron's is 0: it never counts).
CODE: tuple[int, ...] = tuple(_code(cid) for cid in range(len(DECK)))
#: The same under ``kinds=family``: a Class card codes as an Agari of its rank, so a hand's
#: family value is the value of the signature its cards make as Agari (the solver only reads
#: kind counts, a common rank and which kinds have a card of that rank: Agari has ranks 1-6,
#: as the Classes together have).
CODE_FAMILY: tuple[int, ...] = tuple(_code(cid, FAMILY_KIND_OF) for cid in range(len(DECK)))


def _splitmix64(seed: int) -> Iterator[int]:
    """A fixed stream of well-mixed 64-bit numbers (same on every platform and Python)."""
    mask = (1 << 64) - 1
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133CEB11) & mask
        yield z ^ (z >> 31)


def _hot_keys(kind_of: Sequence[int] = KIND_OF) -> tuple[int, ...]:
    # One 56-bit number per kind and per rank; a card's key is its kind's plus its rank's.
    stream = _splitmix64(0x5041_4C41_4553_5452)  # "PALAESTR"
    per_kind = [next(stream) >> 8 for _ in range(_CROWN + 1)]
    per_rank = [next(stream) >> 8 for _ in range(MAX_RANK + 1)]
    return tuple(
        0 if cid == PALAESTRON
        else per_kind[kind_of[cid]] + (0 if kind_of[cid] == _CROWN else per_rank[RANK_OF[cid]])
        for cid in range(len(DECK))
    )


#: Hot-path key of each card id. A hand's key (the sum) is a pseudo-random linear function of
#: the same kind and rank counts as its signature. Used as the dict key instead of the packed
#: signature because packed signatures share their low bits (the dict's slot index) in
#: clusters, which makes long probe chains; these keys spread evenly. The test suite checks
#: exhaustively that no two hands of 0..5 cards with different signatures share a key.
KEY: tuple[int, ...] = _hot_keys()
#: Hot-path keys under ``kinds=family`` (their own table, :data:`_HOT_FAMILY`).
KEY_FAMILY: tuple[int, ...] = _hot_keys(FAMILY_KIND_OF)

#: Natural tier by kind (Crown: 4).
_KIND_TIER: tuple[int, ...] = tuple(
    next(TIER_OF[cid] for cid in range(len(DECK)) if KIND_OF[cid] == kind)
    for kind in range(_CROWN + 1)
)
#: Kinds that have a card of a given rank: a Crown standing in a Rank Flush must be one of them.
_KINDS_WITH_RANK: dict[int, frozenset[int]] = {
    rank: frozenset(KIND_OF[cid] for cid in range(_DECK_COUNT) if RANK_OF[cid] == rank)
    for rank in range(1, MAX_RANK + 1)
}

# Category of each group-size partition (sizes sorted descending). Five cards: the exact shapes
# of ruling 3 (the Rank Flush and the Ascension are checked apart, they are not kind shapes).
# Fewer cards: the biggest group decides, two groups of two make Two Pair.
_SHAPE: dict[tuple[int, ...], Category] = {
    (5,): Category.STRAIGHT,
    (4, 1): Category.QUARTET,
    (3, 2): Category.FULL_DOMAIN,
    (3, 1, 1): Category.TRIPLET,
    (2, 2, 1): Category.TWO_PAIR,
    (2, 1, 1, 1): Category.PAIR,
    (1, 1, 1, 1, 1): Category.HIGH_HAND,
    (4,): Category.QUARTET,
    (3, 1): Category.TRIPLET,
    (2, 2): Category.TWO_PAIR,
    (2, 1, 1): Category.PAIR,
    (1, 1, 1, 1): Category.HIGH_HAND,
    (3,): Category.TRIPLET,
    (2, 1): Category.PAIR,
    (1, 1, 1): Category.HIGH_HAND,
    (2,): Category.PAIR,
    (1, 1): Category.HIGH_HAND,
    (1,): Category.HIGH_HAND,
    (): Category.HIGH_HAND,
}


def _solve(reduced: int) -> Value:
    """Best value for kind counts (low bits) and a common rank (``reduced >> 24``, 0 if none).

    Only kinds matter for shapes and tiers (a Crown's tier is 4 whatever it stands for), so a
    Crown's choices are "join kind K" (7 ways) or "stay a Crown"; its rank only matters for a
    Rank Flush, where it takes the common rank, which its kind must have a card of.
    """
    kinds = [(reduced >> (3 * k)) & 7 for k in range(_CROWN)]
    crowns = (reduced >> (3 * _CROWN)) & 7
    common_rank = reduced >> RANK_BASE
    if sum(kinds) + crowns > HAND_SIZE:
        raise CardError(f"a Desmos has at most {HAND_SIZE} cards")
    best: Value = (-1, ())
    for spread in itertools.combinations_with_replacement(range(_CROWN + 1), crowns):
        groups: list[tuple[int, tuple[int, ...]]] = []
        for kind in range(_CROWN + 1):
            natural = kinds[kind] if kind < _CROWN else 0
            joined = spread.count(kind)
            if natural + joined:
                tiers = sorted([_KIND_TIER[kind]] * natural + [_CROWN_TIER] * joined, reverse=True)
                groups.append((natural + joined, tuple(tiers)))
        groups.sort(reverse=True)
        category = _SHAPE[tuple(size for size, _ in groups)]
        key = tuple(tier for _, tiers in groups for tier in tiers)
        if crowns == 0 and kinds[_GOD] == HAND_SIZE:
            category = Category.ASCENSION
        elif (
            common_rank
            and category < Category.RANK_FLUSH
            and all(kind in _KINDS_WITH_RANK[common_rank] for kind in spread)
        ):
            category = Category.RANK_FLUSH
            key = tuple(sorted(key, reverse=True))  # kinds make no group in it (E30)
        value = (int(category), key)
        if value > best:
            best = value
    return best


def _rank_info(rank_part: int) -> tuple[int, int]:
    """(natural cards, their common rank number or 0) from the rank half of a signature."""
    counts = [(rank_part >> (3 * r)) & 7 for r in range(MAX_RANK)]
    naturals = sum(counts)
    common = next((r + 1 for r, n in enumerate(counts) if n == naturals), 0) if naturals else 0
    return naturals, common


_RANK_INFO: dict[int, tuple[int, int]] = {}
_SOLVED: dict[int, Value] = {}  # reduced signature -> value
_VALUES: dict[Value, Value] = {}  # interning: equal values share one tuple (cache-friendly)


def value_of_signature(signature: int) -> Value:
    """Value of a packed signature (the sum of :data:`CODE`, or of :data:`CODE_FAMILY` under
    kinds=family, over at most five counting cards), via what it depends on: kind counts and
    a common rank."""
    rank_part = signature >> RANK_BASE
    info = _RANK_INFO.get(rank_part)
    if info is None:
        info = _RANK_INFO[rank_part] = _rank_info(rank_part)
    naturals, common = info
    kind_part = signature & KIND_BITS
    if naturals + (kind_part >> (3 * _CROWN)) != HAND_SIZE:
        common = 0  # a Rank Flush needs five cards
    reduced = kind_part | (common << RANK_BASE)
    value = _SOLVED.get(reduced)
    if value is None:
        solved = _solve(reduced)
        value = _SOLVED[reduced] = _VALUES.setdefault(solved, solved)
    return value


_HOT: dict[int, Value] = {}  # hand key (sum of KEY) -> value, filled on first sight


def _solve_and_remember(cards: Sequence[int], codes: Sequence[int], keys: Sequence[int],
                        hot: dict[int, Value]) -> Value:
    """Any hand length, and the first sight of a key: solve it and remember it in ``hot``
    (the tables ``codes`` and ``keys`` are those of one reading of the kinds)."""
    counting = [cid for cid in cards if cid != PALAESTRON]
    if len(counting) > HAND_SIZE:
        raise CardError(f"a Desmos has at most {HAND_SIZE} cards, got {len(counting)}")
    value = value_of_signature(sum(map(codes.__getitem__, counting)))
    hot[sum(map(keys.__getitem__, counting))] = value
    return value


def evaluate(cards: Sequence[int]) -> Value:
    """Value ``(category, tie key)`` of a hand of distinct card ids (at most 5 counting cards).

    The hot path of showdowns and bots: a five-card hand costs five additions and one dict
    lookup. Ids are trusted (no range or duplicate check; :func:`desmos` checks them).
    """
    try:
        a, b, c, d, e = cards
        return _HOT[KEY[a] + KEY[b] + KEY[c] + KEY[d] + KEY[e]]
    except (ValueError, KeyError):
        return _solve_and_remember(cards, CODE, KEY, _HOT)


_HOT_FAMILY: dict[int, Value] = {}  # the same under kinds=family


def evaluate_family(cards: Sequence[int]) -> Value:
    """:func:`evaluate` under the house rule ``kinds=family``: the four Classes are one kind."""
    try:
        a, b, c, d, e = cards
        return _HOT_FAMILY[KEY_FAMILY[a] + KEY_FAMILY[b] + KEY_FAMILY[c] + KEY_FAMILY[d]
                           + KEY_FAMILY[e]]
    except (ValueError, KeyError):
        return _solve_and_remember(cards, CODE_FAMILY, KEY_FAMILY, _HOT_FAMILY)


#: The evaluator of each reading of the house rule ``kinds``.
EVALUATORS: dict[str, Callable[[Sequence[int]], Value]] = {
    "type": evaluate, "family": evaluate_family}


def category_of(cards: Sequence[int]) -> Category:
    """The hand's category."""
    return Category(evaluate(cards)[0])


# ---------------------------------------------------------------------------------------------
# The naive oracle. It shares nothing with the signature path: it substitutes every face for
# every Crown, builds the concrete cards and tests each category's definition in turn.
# ---------------------------------------------------------------------------------------------

#: (kind, rank) of every face a Crown may stand for: the 51 non-Palaestron cards with identical
#: copies merged (they give identical hands); the Crown face itself means "stays a Crown".
_FACES: tuple[tuple[int, int], ...] = tuple(
    dict.fromkeys((KIND_OF[cid], RANK_OF[cid]) for cid in range(_DECK_COUNT))
)
_GOD_TIER = TIER_OF[0]


# Plain module names for the categories: looking a member up on the enum class is slow.
(_HIGH_HAND, _PAIR, _TWO_PAIR, _TRIPLET, _STRAIGHT, _RANK_FLUSH, _FULL_DOMAIN, _QUARTET,
 _ASCENSION) = tuple(Category)


def _naive_category(kinds: list[int], ranks: list[int], tiers: list[int]) -> Category:
    """The best category whose definition (ruling 3) a concrete hand meets.

    The hand is given card by card (kind, rank, tier); a Crown has already been replaced by
    the face it stands for, with tier 4, or stays a Crown (kind Crown, rank 0, tier 4).
    """
    per_kind: dict[int, int] = {}
    for kind in kinds:
        per_kind[kind] = per_kind.get(kind, 0) + 1
    sizes = tuple(sorted(per_kind.values(), reverse=True))  # cards per kind, biggest first
    if len(kinds) < HAND_SIZE:
        return _short_category(sizes)
    if tiers.count(_GOD_TIER) == HAND_SIZE:
        return _ASCENSION  # five natural Gods (tier 5 is a natural God's alone)
    if sizes == (4, 1):
        return _QUARTET
    if sizes == (3, 2):
        return _FULL_DOMAIN
    if len(set(ranks)) == 1 and ranks[0] != 0:
        return _RANK_FLUSH  # one rank number; a Crown that stays has none
    if sizes == (5,):
        return _STRAIGHT
    if sizes == (3, 1, 1):
        return _TRIPLET
    if sizes == (2, 2, 1):
        return _TWO_PAIR
    if sizes == (2, 1, 1, 1):
        return _PAIR
    if sizes == (1, 1, 1, 1, 1):
        return _HIGH_HAND
    raise AssertionError(f"no category for kind sizes {sizes}")


def _short_category(sizes: tuple[int, ...]) -> Category:
    """Fewer than five cards: no five-card shape; the groups present decide."""
    if 4 in sizes:
        return _QUARTET
    if 3 in sizes:
        return _TRIPLET
    if sizes.count(2) == 2:
        return _TWO_PAIR
    if 2 in sizes:
        return _PAIR
    return _HIGH_HAND


@functools.lru_cache(maxsize=1 << 16)
def _naive_key(cards: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """Ruling 5 read literally, for (kind, tier) cards: tiers grouped by kind, the groups
    ordered by size, then strongest tier (then their other tiers), read card by card."""
    by_kind: dict[int, list[int]] = {}
    for kind, tier in cards:
        by_kind.setdefault(kind, []).append(tier)
    groups = [sorted(tiers, reverse=True) for tiers in by_kind.values()]
    groups.sort(key=lambda tiers: (len(tiers), tiers[0], tiers), reverse=True)
    return tuple(tier for tiers in groups for tier in tiers)


def evaluate_naive(cards: Sequence[int], kinds: str = "type") -> Value:
    """The same value as :func:`evaluate`, computed the slow, obviously-correct way.

    Every Crown tries every face (or staying a Crown; the Crowns are identical, so unordered
    choices cover every substitution); each concrete hand is tested against each category's
    definition, best first; the best ``(category, key)`` over all substitutions wins.
    The tests hold the fast path to this oracle.
    """
    counting = [cid for cid in cards if cid != PALAESTRON]
    if len(counting) > HAND_SIZE:
        raise CardError(f"a Desmos has at most {HAND_SIZE} cards, got {len(counting)}")
    kind_of = FAMILY_KIND_OF if kinds == "family" else KIND_OF
    natural = [cid for cid in counting if KIND_OF[cid] != _CROWN]
    hand_kinds_natural = [kind_of[cid] for cid in natural]
    ranks = [RANK_OF[cid] for cid in natural]
    crowns = [cid for cid in counting if KIND_OF[cid] == _CROWN]
    hand_tiers = [TIER_OF[cid] for cid in natural + crowns]  # a Crown keeps its own tier
    best: Value = (-1, ())
    for crown_kinds, crown_ranks in _substitutions(len(crowns)):
        if kinds == "family":
            crown_kinds = [kind_of_face(kind) for kind in crown_kinds]
        hand_kinds = hand_kinds_natural + crown_kinds
        category = _naive_category(hand_kinds, ranks + crown_ranks, hand_tiers)
        if category < best[0]:
            continue
        if category == _RANK_FLUSH:  # one rank: no kind groups, the tiers best first (E30)
            key = tuple(sorted(hand_tiers, reverse=True))
        else:
            key = _naive_key(tuple(sorted(zip(hand_kinds, hand_tiers, strict=True))))
        value = (int(category), key)
        if value > best:
            best = value
    return best


def kind_of_face(kind: int) -> int:
    """A Crown's stand-in kind under ``kinds=family``: any Class stands for the one kind."""
    return int(Kind.AGARI) if kind in _CLASS_KINDS else kind


@functools.cache
def _substitutions(crowns: int) -> tuple[tuple[list[int], list[int]], ...]:
    """Every way to replace ``crowns`` identical Crowns: the (kinds, ranks) they stand as."""
    return tuple(
        ([kind for kind, _ in faces], [rank for _, rank in faces])
        for faces in itertools.combinations_with_replacement(_FACES, crowns)
    )


# ---------------------------------------------------------------------------------------------
# Checked API
# ---------------------------------------------------------------------------------------------


def _checked(cards: Sequence[int]) -> tuple[int, ...]:
    """The counting cards of a hand, after checking ids (range, duplicates, at most five)."""
    ids = tuple(cards)
    for cid in ids:
        if not isinstance(cid, int) or not 0 <= cid < len(DECK):
            raise CardError(f"unknown card id {cid!r} (ids run 0..{len(DECK) - 1})")
    if len(set(ids)) != len(ids):
        raise CardError("the same card appears twice in the hand")
    counting = tuple(cid for cid in ids if cid != PALAESTRON)
    if len(counting) > HAND_SIZE:
        raise CardError(f"a Desmos has at most {HAND_SIZE} cards, got {len(counting)}")
    return counting


@dataclass(frozen=True, order=True)
class Desmos:
    """A hand with its value. Orders (and compares equal) by ``(category, key)`` only, so
    ``a == b`` means a true tie; ``cards`` (the counting cards, Palaestron dropped) rides along.
    """

    category: Category
    key: tuple[int, ...]
    cards: tuple[int, ...] = field(compare=False)

    @property
    def value(self) -> Value:
        return (int(self.category), self.key)

    def describe(self) -> str:
        """One line for people, e.g. ``Quartet (key 5 5 5 5 4): God-1 God-2 God-3 God-4 Crown``."""
        key = " ".join(str(tier) for tier in self.key)
        hand = " ".join(NOTATION[cid] for cid in self.cards)
        return f"{self.category.label} (key {key}): {hand}"


def desmos(cards: Sequence[int], kinds: str = "type") -> Desmos:
    """Checked evaluation of a hand of card ids (Palaestron ignored) into a :class:`Desmos`
    (``kinds``: the house rule's reading)."""
    counting = _checked(cards)
    category, key = EVALUATORS[kinds](counting)
    return Desmos(Category(category), key, counting)


def compare(a: Sequence[int] | Desmos, b: Sequence[int] | Desmos) -> int:
    """1 if hand ``a`` beats ``b``, -1 if it loses, 0 for a true tie."""
    va = a.value if isinstance(a, Desmos) else desmos(a).value
    vb = b.value if isinstance(b, Desmos) else desmos(b).value
    return (va > vb) - (va < vb)


# ---------------------------------------------------------------------------------------------
# Census
# ---------------------------------------------------------------------------------------------


def census(kinds: str = "type") -> dict[Category, int]:
    """Hands per category over all C(51, 5) = 2,349,060 five-card hands without the Palaestron
    (``kinds``: the house rule's reading, type or family).

    Counts how many hands share each packed signature (the sum of their codes), then values
    each distinct signature once.
    """
    codes = (CODE_FAMILY if kinds == "family" else CODE)[:_DECK_COUNT]
    hands_by_signature = Counter(map(sum, itertools.combinations(codes, HAND_SIZE)))
    counts = dict.fromkeys(Category, 0)
    for signature, hands in hands_by_signature.items():
        counts[Category(value_of_signature(signature)[0])] += hands
    return counts
