"""Greedy: take the option that maximises its own Desmos one move ahead.

For a turn or a swap it compares keeping the hand with giving up each card and drawing an
unknown one, averaged over every card it has not seen yet (the others' hands and the pile):
hold or play (or swap) the card whose replacement raises that average most. Takes the best
card offered by an effect, gives away, discards and reveals the card it misses least, aims
its attacks at the opponent showing the strongest cards, sacks (Ares) a card of the biggest
group it sees, and plays the safe default for everything else (it never springs a trap).
Uses the engine's Desmos evaluator directly; no memory, no look further ahead.
"""

from collections import Counter

from arena.engine.cards import NOTATION
from arena.engine.desmos import evaluate
from arena.sdk import Bot, Request

FIRST_ID = {name: NOTATION.index(name) for name in set(NOTATION)}
DECK = Counter(NOTATION)


def score(hand: list[str]) -> float:
    """Category first, then the tie key as a fraction (tiers are 1..5, so base 6 keeps order)."""
    category, key = evaluate([FIRST_ID[c] for c in hand if c != "Palaestron"])
    return category + sum(tier * 6.0 ** -(i + 1) for i, tier in enumerate(key))


def unseen(request: Request) -> list[str]:
    """Cards this seat has not seen anywhere: what a draw may bring."""
    obs = request.observation
    seen = Counter(obs.get("hand", []))
    seen.update(t["card"] for t in obs.get("traps", []))
    seen.update(obs.get("effect_graveyard", []))
    seen.update(obs.get("discard_graveyard", []))
    for cards in obs.get("revealed", []):
        seen.update(cards)
    left = DECK - seen
    left.pop("Palaestron", None)
    return list(left.elements())


def without(hand: list[str], card: str) -> list[str]:
    rest = list(hand)
    rest.remove(card)
    return rest


class GreedyBot(Bot):
    name = "greedy"
    author = "Palaestra Arena"
    version = "1"

    def expected_after_swap(self, hand: list[str], card: str, pool: list[str]) -> float:
        rest = without(hand, card)
        if len(rest) >= 5 or not pool:  # a six-card hand (a Clotho sprung from a trap)
            return score(rest[:5])
        return sum(score(rest + [new]) for new in pool) / len(pool)

    def act(self, request: Request) -> int:
        hand = request.hand
        kind = request.kind
        if kind in ("turn", "swap", "discard"):
            pool = unseen(request)
            best, best_value = 0, score(hand) if kind != "discard" else float("-inf")
            for index, option in enumerate(request.legal):
                card = option.get("card") if kind != "swap" else option.get("swap")
                if card in hand:
                    value = self.expected_after_swap(hand, card, pool)
                    if value > best_value + 1e-9:
                        best, best_value = index, value
            return best
        if kind in ("give", "reveal"):
            values = [score(without(hand, o["card"])) if o.get("card") in hand else score(hand)
                      for o in request.legal]
            return values.index(max(values))
        if kind == "target":  # the opponent whose revealed cards score best
            revealed = request.observation.get("revealed", [])
            values = [score(revealed[o["seat"]]) if isinstance(o.get("seat"), int)
                      and o["seat"] < len(revealed) else 0.0 for o in request.legal]
            return values.index(max(values))
        if kind == "card" and request.legal[0].get("card") is not None:  # Ares: sack a card
            kinds = Counter(o["card"].split("-")[0] for o in request.legal)  # of the biggest
            return max(range(len(request.legal)),  # group in the victim's hand
                       key=lambda i: kinds[request.legal[i]["card"].split("-")[0]])
        if kind == "card":
            current = score(hand)
            best, best_value = 0, current
            for index, option in enumerate(request.legal):
                card = option.get("card")
                if card is None or card in hand:
                    continue
                grown = hand + [card]
                value = max(score(without(grown, c)) for c in grown)
                if value > best_value + 1e-9:
                    best, best_value = index, value
            return best
        return 0
