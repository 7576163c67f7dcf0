"""Collector: build the biggest group of one kind (God, Agari, Umbrae, ... ; Crowns are wild).

It keeps the kind it holds most of (the higher family on a tie), plays or swaps away every
other card, and takes offered cards of that kind. No look-ahead, no evaluator: a strategy a
person could follow at the table.
"""

from collections import Counter

from arena.sdk import Bot, Request

TIER = {"God": 5, "Agari": 3, "Umbrae": 3, "Arcoi": 3, "Sophoi": 3, "Fate": 2, "Beast": 1}


def kind(card: str) -> str:
    return card.split("-")[0]


class CollectorBot(Bot):
    name = "collector"
    author = "Palaestra Arena"
    version = "1"

    def target_kind(self, hand: list[str]) -> str | None:
        counts = Counter(kind(c) for c in hand if kind(c) in TIER)
        if not counts:
            return None
        return max(counts, key=lambda k: (counts[k], TIER[k]))

    def off_cards(self, hand: list[str]) -> list[str]:
        """Cards outside the target group, weakest family first."""
        target = self.target_kind(hand)
        off = [c for c in hand if kind(c) != target and kind(c) != "Crown"]
        return sorted(off, key=lambda c: TIER.get(kind(c), 0))

    def act(self, request: Request) -> int:
        hand = request.hand
        legal = request.legal
        off = self.off_cards(hand)
        if request.kind == "turn" and off:
            return self.find(legal, {"action": "play", "card": off[0]})
        if request.kind == "swap" and off:
            return self.find(legal, {"swap": off[0]})
        if request.kind in ("discard", "give"):
            worst = off[0] if off else hand[0] if hand else None
            return self.find(legal, {"card": worst})
        if request.kind == "card":
            target = self.target_kind(hand)
            for index, option in enumerate(legal):
                card = option.get("card")
                if card and (kind(card) == target or card == "Crown"):
                    return index
        return 0

    @staticmethod
    def find(legal: list[dict], wanted: dict) -> int:
        return legal.index(wanted) if wanted in legal else 0
