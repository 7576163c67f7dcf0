"""The 52 cards of Palaestra, their public notation and the per-id lookup tables.

Cards travel through the engine as small integer ids (0..51) so that hands, piles and
graveyards are plain lists of ints; two copies of one card (``Fate-3`` x2, ``Crown`` x2) have
distinct ids but one notation. :class:`Card` is the value object users read and write.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from arena.errors import CardError

__all__ = [
    "BEAST_NAMES",
    "CARD_IDS",
    "CLASS_KINDS",
    "DECK",
    "DECK_SIZE",
    "FACE_OF",
    "FATE_NAMES",
    "GOD_NAMES",
    "KIND_OF",
    "NEMESIS",
    "NOTATION",
    "PALAESTRON",
    "RANK_OF",
    "TIER_OF",
    "Card",
    "Kind",
    "card_id",
    "parse_cards",
    "tier_of_kind",
]


class Kind(enum.IntEnum):
    """What a card groups by in a Desmos (ruling 2); Crown and Palaestron are their own kinds."""

    GOD = 0
    AGARI = 1
    UMBRAE = 2
    ARCOI = 3
    SOPHOI = 4
    FATE = 5
    BEAST = 6
    CROWN = 7
    PALAESTRON = 8

    @property
    def label(self) -> str:
        return _KIND_LABEL[self]


_KIND_LABEL = {
    Kind.GOD: "God",
    Kind.AGARI: "Agari",
    Kind.UMBRAE: "Umbrae",
    Kind.ARCOI: "Arcoi",
    Kind.SOPHOI: "Sophoi",
    Kind.FATE: "Fate",
    Kind.BEAST: "Beast",
    Kind.CROWN: "Crown",
    Kind.PALAESTRON: "Palaestron",
}
_LABEL_KIND = {label.lower(): kind for kind, label in _KIND_LABEL.items()}

CLASS_KINDS = (Kind.AGARI, Kind.UMBRAE, Kind.ARCOI, Kind.SOPHOI)

#: Named cards of the ranked families (rank = index + 1).
GOD_NAMES = ("Hermes", "Hades", "Poseidon", "Athena", "Ares", "Apollo", "Zeus")
FATE_NAMES = ("Clotho", "Lachesis", "Atropos", "Tyche", "Nemesis")
#: Nemesis's face (the one card whose opponent gives first, then is given one back), for
#: whatever tells its give apart by the decision's source.
NEMESIS: Final[str] = f"{Kind.FATE.label}-{FATE_NAMES.index('Nemesis') + 1}"
BEAST_NAMES = ("Salamander of Fire", "Hippocamp of Water", "Basilisk of Earth", "Griffin of Air",
               "Phoenix of Aether")

# (kind, highest rank, copies of each rank); Crown and Palaestron are rank 0.
_COMPOSITION = (
    (Kind.GOD, 7, 1),
    (Kind.AGARI, 6, 1),
    (Kind.UMBRAE, 6, 1),
    (Kind.ARCOI, 5, 1),
    (Kind.SOPHOI, 5, 1),
    (Kind.FATE, 5, 2),
    (Kind.BEAST, 5, 2),
)


def tier_of_kind(kind: Kind) -> int:
    """Family tier for ties (ruling 5): God 5, Crown 4, any Class 3, Fate 2, Beast 1."""
    if kind == Kind.GOD:
        return 5
    if kind == Kind.CROWN:
        return 4
    if kind in CLASS_KINDS:
        return 3
    if kind == Kind.FATE:
        return 2
    if kind == Kind.BEAST:
        return 1
    return 0


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card face: a kind and a rank (0 for Crown and Palaestron)."""

    kind: Kind
    rank: int = 0

    def __reduce__(self) -> tuple[type[Card], tuple[Kind, int]]:
        # compiled, a frozen dataclass would be rebuilt by setting its fields one by one
        return Card, (self.kind, self.rank)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read public notation such as ``God-3``, ``Fate-1``, ``Crown`` or ``Palaestron``."""
        raw = text.strip()
        key = raw.lower()
        if key in ("crown", "palaestron"):
            return cls(_LABEL_KIND[key], 0)
        label, sep, number = raw.partition("-")
        kind = _LABEL_KIND.get(label.lower())
        if not sep or kind is None or kind in (Kind.CROWN, Kind.PALAESTRON):
            raise CardError(f"unknown card {text!r} (expected e.g. God-3, Agari-6, Fate-1, "
                            "Beast-5, Crown, Palaestron)")
        if not number.isdigit():
            raise CardError(f"unknown card {text!r}: rank must be a number")
        rank = int(number)
        top = next(top for k, top, _ in _COMPOSITION if k == kind)
        if not 1 <= rank <= top:
            raise CardError(f"unknown card {text!r}: {kind.label} ranks run 1..{top}")
        return cls(kind, rank)

    def notation(self) -> str:
        if self.kind in (Kind.CROWN, Kind.PALAESTRON):
            return self.kind.label
        return f"{self.kind.label}-{self.rank}"

    def __str__(self) -> str:
        return self.notation()

    @property
    def tier(self) -> int:
        return tier_of_kind(self.kind)

    @property
    def name(self) -> str:
        """The card's proper name where it has one (Gods, Fate types, Beast elements)."""
        if self.kind == Kind.GOD:
            return GOD_NAMES[self.rank - 1]
        if self.kind == Kind.FATE:
            return FATE_NAMES[self.rank - 1]
        if self.kind == Kind.BEAST:
            return BEAST_NAMES[self.rank - 1]
        return self.notation()


def _build_deck() -> tuple[Card, ...]:
    cards: list[Card] = []
    for kind, top, copies in _COMPOSITION:
        for rank in range(1, top + 1):
            cards.extend(Card(kind, rank) for _ in range(copies))
    cards.extend([Card(Kind.CROWN), Card(Kind.CROWN), Card(Kind.PALAESTRON)])
    return tuple(cards)


#: The deck, indexed by card id.
DECK: tuple[Card, ...] = _build_deck()
DECK_SIZE = len(DECK)
assert DECK_SIZE == 52
NOTATION: Final[tuple[str, ...]] = tuple(card.notation() for card in DECK)
KIND_OF: Final[tuple[int, ...]] = tuple(int(card.kind) for card in DECK)
RANK_OF: Final[tuple[int, ...]] = tuple(card.rank for card in DECK)
TIER_OF: Final[tuple[int, ...]] = tuple(card.tier for card in DECK)
PALAESTRON: Final[int] = DECK_SIZE - 1
#: A small int per distinct face: copies of one card share it.
_FACES = sorted(set(NOTATION), key=NOTATION.index)
FACE_OF: Final[tuple[int, ...]] = tuple(_FACES.index(name) for name in NOTATION)
#: Every id carrying a given face, e.g. ``CARD_IDS[Card.parse("Crown")] == (49, 50)``.
CARD_IDS: dict[Card, tuple[int, ...]] = {}
for _cid, _card in enumerate(DECK):
    CARD_IDS[_card] = (*CARD_IDS.get(_card, ()), _cid)
_ID_BY_NOTATION = {card.notation(): ids for card, ids in CARD_IDS.items()}


def card_id(notation: str, taken: set[int] | frozenset[int] = frozenset()) -> int:
    """The first id of ``notation`` not in ``taken`` (copies are interchangeable)."""
    ids = _ID_BY_NOTATION.get(notation)
    if ids is None:
        ids = CARD_IDS[Card.parse(notation)]
    for cid in ids:
        if cid not in taken:
            return cid
    raise CardError(f"too many copies of {notation}: the deck has {len(ids)}")


def parse_cards(texts: list[str] | tuple[str, ...] | str) -> list[int]:
    """Parse cards (a list, or one string separated by spaces or commas) into distinct ids."""
    if isinstance(texts, str):
        texts = [t for t in texts.replace(",", " ").split() if t]
    taken: set[int] = set()
    ids = []
    for text in texts:
        cid = card_id(Card.parse(text).notation(), taken)
        taken.add(cid)
        ids.append(cid)
    return ids
