"""Heuristic: a rule-based player that knows what every card does and what it has seen.

What it knows about the game (measured with the arena: greedy players end most games holding a
Full Domain or a Quartet, so the last moves decide):

* **Value of a hand.** Five cards are worth their Desmos (``hand_score``: category plus tie
  key); four cards (after a play, before the draw) the average over the cards not seen yet,
  one of which is drawn next. Every comparison below uses this one number.
* **Public and private information.** ``SearchBot`` keeps the bot's events; its view says
  which cards an opponent holds because the bot looked (Umbrae, Hermes, Ares) or traded with
  them. What a draw may bring it reckons from the observation alone: every card but its own,
  the graveyards' and the revealed ones (a card it knows in a hand or on the pile counts too).
* **A turn cycles a card, and its effect is a bonus or a gift.** Playing or trapping a card
  replaces it by a draw; the effect then adds what it is worth now: a chosen card from the
  pile (Athena, Sophoi), from the Discard Graveyard (Hades; Tyche and Griffin, whose card is
  known), from an opponent's hand (Hermes), an extra card to choose from (Clotho).
* **Attacks are timed.** A forced discard of the victim's choice (Raid, Zeus, Poseidon) costs
  a hand with a spare card nothing, and hands it a free redraw: played early it is a gift.
  Against a complete hand (Full Domain: no spare) it breaks a group. So attack cards are
  cycled silently (swapped, or set as traps that may expire) until the end: they are played
  on the bot's last turn or sprung from a trap at the start of the game's last turn, against
  the opponent with the strongest hand, who has (almost) no turn left to rebuild. Ares, who
  picks the card, sacks the card the victim needs most.
* **The Palaestron** (and every other forced discard or reveal): discard the card the hand
  misses least; reveal the weakest card, so the cards it would hate to lose stay hidden (a
  reveal never offers a card already shown, RULES.md E16: a second copy of a shown card
  would tell that the hand holds two). Gods and Crowns are kept as the evaluator
  says: a Crown is wild, a God is the highest tier.
* **Swap** the card whose replacement raises the expected value most, if any does; attack
  cards kept for the end count a little extra.
"""

from __future__ import annotations

from typing import Any

from arena.engine.cards import NOTATION
from arena.engine.determinize import unseen_cards
from arena.sdk import Request
from arena.sdk.search import SearchBot, SearchView, hand_score

ID = {name: NOTATION.index(name) for name in set(NOTATION)}
#: Forced discards: how many, and whether the attacker picks the card (Ares).
ATTACKS = {"Agari": (1, False), "God-3": (1, False), "God-5": (1, True), "God-7": (2, False)}
#: Break a Full Domain for a Quartet when the fourth card comes at least this likely.
CHASE = 0.3
#: Cards whose effect lets us choose among N cards of the draw pile.
LOOKS = {"God-4": 3, "Sophoi": 2}
#: Effects that only help us when sprung from a trap (or played): see, take, cycle.
HELPERS = {"God-1", "God-2", "God-4", "Sophoi", "Fate-1", "Fate-4", "Crown", "Beast-5",
           "Umbrae", "Fate-2", "Beast-2", "Beast-3", "God-6", "Arcoi", "Fate-3", "Beast-4"}


def family(card: str) -> str:
    """``Agari-3`` -> ``Agari``: every card of a Class shares its effect; Gods, Fates and
    Beasts keep their rank (each has its own)."""
    kind = card.split("-")[0]
    return card if kind in ("God", "Fate", "Beast") else kind


def without(cards: list[str], card: str) -> list[str]:
    rest = list(cards)
    rest.remove(card)
    return rest


def has_spare(cards: list[str]) -> bool:
    """A card outside every group (not a Crown): a forced discard of their choice is free."""
    kinds = [c.split("-")[0] for c in cards]
    return any(kinds.count(k) == 1 and k != "Crown" for k in kinds)


class HeuristicBot(SearchBot):
    name = "heuristic"
    author = "Palaestra Arena"
    version = "2"

    # ------------------------------------------------------------------ hand values
    def value(self, cards: list[str]) -> float:
        """Five cards: their score; four: the average over a draw of an unseen card; six:
        the best five."""
        if len(cards) >= 6:
            return max(self.value(without(cards, c)) for c in set(cards))
        ids = [ID[c] for c in cards]
        if len(ids) == 5 or not self.pool:
            return hand_score(ids)
        return sum(hand_score([*ids, x]) for x in self.pool) / len(self.pool)

    def best_of(self, rest: list[str], looks: list[str], k: int) -> float:
        """Expected gain of choosing the best of ``k`` cards met among ``looks`` as the card
        joining ``rest`` (four cards), over a blind draw."""
        ids = [ID[c] for c in rest]
        scores = sorted(hand_score([*ids, ID[x]]) for x in looks)
        if not scores:
            return 0.0
        k = min(k, len(scores))
        weights = [_comb(i, k - 1) for i in range(len(scores))]  # P(i-th smallest is the max)
        best = sum(w * s for w, s in zip(weights, scores)) / sum(weights)
        return best - self.value(rest)

    # ------------------------------------------------------------------ the table
    def opponents(self) -> list[int]:
        n, me = self.view_.players, self.view_.seat
        return [(me + k) % n for k in range(1, n)]

    def strength(self, seat: int) -> float:
        """A guess at an opponent's hand: its known cards, a typical hand for the rest."""
        known = self.view_.known_hand(seat)
        if len(known) >= 5:
            return hand_score([ID[c] for c in known[:5]])
        return max(hand_score([ID[c] for c in known]), 1.0 + 5.0 * self.lateness())

    def leader(self, seats: list[int]) -> int:
        return max(seats, key=lambda s: (self.strength(s), -seats.index(s)))

    def complete(self, seat: int) -> float:
        """Chance that ``seat``'s hand has no spare card (a forced discard breaks a group)."""
        known = self.view_.known_hand(seat)
        if len(known) >= 5:
            return 0.0 if has_spare(known[:5]) else 1.0
        return min(0.9, 0.1 + 0.9 * self.lateness())

    def lateness(self) -> float:
        """0 at the first turn, 1 at the last."""
        obs = self.view_.obs
        return obs.turn / max(1, self.last_turn())

    def last_turn(self) -> int:
        return self.view_.obs.rounds * self.view_.players - 1

    def my_turns_left(self) -> int:
        """Own turns after the current one."""
        obs = self.view_.obs
        return sum(1 for t in range(obs.turn + 1, self.last_turn() + 1)
                   if (t - obs.turn) % self.view_.players == 0)

    # ------------------------------------------------------------------ effects
    def damage(self, card: str) -> float:
        """What an attack is worth now against the leader (in hand-score points)."""
        discards, picks = ATTACKS[family(card)]
        target = self.leader(self.opponents())
        if picks:
            return 1.5 * (0.5 + 0.5 * self.complete(target))
        hit = self.complete(target) * (1.0 if discards == 1 else 1.4)
        if family(card) == "God-3":
            hit *= len(self.opponents()) ** 0.5
        return 1.5 * hit - 0.2 * (1 - self.complete(target))  # a spare card: a free redraw

    def last_word(self) -> bool:
        """Whether no opponent plays after this turn (the bot holds the game's last turn)."""
        return self.view_.obs.turn == self.last_turn()

    def play_gain(self, card: str, rest: list[str]) -> float:
        """What ``card``'s effect adds when played now (``rest``: the hand without it)."""
        fam = family(card)
        obs = self.view_.obs
        top = obs.discard_graveyard[-1] if obs.discard_graveyard else None
        if fam in ATTACKS:
            if self.my_turns_left() == 0:
                return self.damage(card) * (1.0 if self.last_word() else 0.5)
            return -0.2 * (1 - self.complete(self.leader(self.opponents())))
        if fam == "Fate-5":  # Nemesis: they give their worst card and get a redraw
            return -0.1
        if fam in LOOKS and obs.draw_pile:
            return self.best_of(rest, self.unseen, LOOKS[fam])
        if fam == "God-1":  # Hermes: see a hand of five, take the best
            return self.best_of(rest, self.unseen, 5)
        if fam == "God-2":  # Hades: any card of the Discard Graveyard
            graveyard = [c for c in obs.discard_graveyard if c != "Palaestron"]
            return max(0.0, self.best_of(rest, graveyard, len(graveyard)))
        if fam in ("Fate-4", "Beast-4") and top and top != "Palaestron":  # the top discard
            return max(0.0, self.best_of(rest, [top], 1))
        if fam == "Fate-1":  # Clotho: one more card to choose from
            return 0.5 * self.best_of(rest, self.unseen, 2)
        if fam in ("Umbrae", "God-6", "Fate-3", "Arcoi"):  # see (some of) the leader's hand
            return 0.02
        return 0.0

    def trap_gain(self, card: str) -> float:
        """A trap is a silent cycle now, and an effect for later."""
        fam = family(card)
        if fam in ATTACKS:
            # alive at the start of the game's last turn: set at most 2 own turns before it
            obs = self.view_.obs
            if obs.turn < self.last_turn() <= obs.turn + 2 * self.view_.players:
                return 0.8 * self.damage(card)
            return 0.0
        return -0.01  # a trap slot is worth keeping for an attack

    # ------------------------------------------------------------------ decisions
    def act(self, request: Request) -> int:
        view = self.view_ = self.view(request)
        # what a draw may bring, by the observation alone: view.unseen_cards() also leaves
        # out the cards its events place (a known card on the pile is still drawn)
        self.unseen = [NOTATION[c] for c in unseen_cards(view.obs)
                       if NOTATION[c] != "Palaestron"]
        self.pool = [ID[c] for c in self.unseen]
        handler = getattr(self, "on_" + request.kind, None)
        choice = handler(request, view) if handler else self.rng.randrange(len(request.legal))
        return choice if 0 <= choice < len(request.legal) else 0

    def draws_left(self, kind: str) -> int:
        """Cards we can still cycle from this decision to the end (a play and a swap per
        turn)."""
        return 2 * self.my_turns_left() + (2 if kind == "turn" else 1)

    def chase(self, hand: list[str], kind: str) -> str | None:
        """A Full Domain (three + two) whose fourth card is likely to come: the card of the
        pair to cycle (a Quartet beats every Full Domain), else None."""
        kinds = [c.split("-")[0] for c in hand]
        groups = sorted(set(kinds), key=kinds.count, reverse=True)
        if "Crown" in kinds or len(groups) != 2 or kinds.count(groups[0]) != 3:
            return None
        left = sum(1 for c in self.unseen if c.split("-")[0] == groups[0])
        draws = self.draws_left(kind)
        if not self.unseen or 1 - (1 - left / len(self.unseen)) ** draws < CHASE:
            return None
        return min((c for c in hand if c.split("-")[0] == groups[1]), key=self.effect_rank)

    def effect_rank(self, card: str) -> float:
        """Which of two cards to give up first: attacks last (they wait for the end)."""
        return 1.0 if family(card) in ATTACKS else 0.0

    def on_turn(self, request: Request, view: SearchView) -> int:
        hand = view.hand
        best, best_value = 0, self.value(hand)
        target = self.chase(hand, "turn")
        if target is not None:
            best_value -= 0.5  # holding a Full Domain is worth less than chasing the Quartet
        for index, option in enumerate(request.legal):
            card = option.get("card")
            if card is None:
                continue
            rest = without(hand, card)
            gain = (self.trap_gain(card) if option["action"] == "trap"
                    else self.play_gain(card, rest))
            value = self.value(rest) + gain
            if value > best_value + 1e-9:
                best, best_value = index, value
        return best

    def keep_bonus(self, cards: list[str]) -> float:
        """Attack cards kept for a last turn still to come."""
        if self.my_turns_left() == 0:
            return 0.0
        attacks = [self.damage(c) for c in cards if family(c) in ATTACKS]
        return 0.3 * max(attacks, default=0.0)

    def on_swap(self, request: Request, view: SearchView) -> int:
        hand = view.hand
        target = self.chase(hand, "swap")
        if target is not None:
            return next(i for i, o in enumerate(request.legal) if o.get("swap") == target)
        best, best_value = 0, self.value(hand) + self.keep_bonus(hand)
        for index, option in enumerate(request.legal):
            card = option.get("swap")
            if card is not None:
                rest = without(hand, card)
                value = self.value(rest) + self.keep_bonus(rest)
                if value > best_value + 1e-9:
                    best, best_value = index, value
        return best

    def on_trigger(self, request: Request, view: SearchView) -> int:
        obs = view.obs
        my_turn = obs.active_seat == view.seat and request.context.get("window") == "turn_start"
        window = request.context.get("window")
        final = window == "showdown" or (obs.turn == self.last_turn() and window == "turn_start")
        best, best_value = 0, 0.0
        for index, option in enumerate(request.legal):
            card = option.get("trap")
            if card is None:
                continue
            if family(card) in ATTACKS:
                value = self.damage(card) if final else 0.0
            else:
                value = 0.1 if my_turn and family(card) in HELPERS else 0.0
            if value > best_value:
                best, best_value = index, value
        return best

    def on_target(self, request: Request, view: SearchView) -> int:
        seats = [o.get("seat") for o in request.legal]
        owners = [s for s in seats if isinstance(s, int)]
        why = str(request.context.get("why", ""))
        if why.startswith(("Spy", "Cut", "no trap")):  # learn about the least known
            return min(range(len(seats)), key=lambda i: len(view.known_hand(int(seats[i] or 0))))
        return seats.index(self.leader(owners)) if owners else 0

    def on_card(self, request: Request, view: SearchView) -> int:
        legal = request.legal
        hand = view.hand
        if "bottom" in legal[0]:  # Lachesis: keep the top card if it beats a blind draw
            if len(hand) >= 5:
                return 0
            return 0 if self.best_of(hand, [str(legal[-1]["bottom"])], 1) >= 0 else 1
        if legal[0].get("card") is not None:  # Ares: sack the card they need most
            victim = view.known_hand(int(request.context.get("from_seat", -1)))

            def damage(option: dict[str, Any]) -> float:
                card = option["card"]
                if card not in victim:
                    return -9.0
                god = 0.5 if card.startswith("God") else 0.0  # a God fires for its owner
                return -hand_score([ID[c] for c in without(victim, card)]) - god
            return max(range(len(legal)), key=lambda i: damage(legal[i]))
        best, best_value = 0, self.value(hand)
        for index, option in enumerate(legal[1:], start=1):
            card = option.get("card")
            if card:
                grown = [*hand, card]
                value = max(self.value(without(grown, c)) for c in set(hand))
                if value > best_value + 1e-9:
                    best, best_value = index, value
        return best

    def least_needed(self, hand: list[str], legal: list[dict[str, Any]]) -> int:
        values = [self.value(without(hand, o["card"])) if o.get("card") in hand else -99.0
                  for o in legal]
        return values.index(max(values))

    def on_discard(self, request: Request, view: SearchView) -> int:
        return self.least_needed(view.hand, request.legal)

    def on_give(self, request: Request, view: SearchView) -> int:
        hand = view.hand
        if request.legal[0].get("card", "") is None:  # Tyche: take the top discard, or pass
            top = view.obs.discard_graveyard[-1]
            best, best_value = 0, self.value(hand)
            for index, option in enumerate(request.legal[1:], start=1):
                value = self.value([*without(hand, option["card"]), top])
                if value > best_value + 1e-9:
                    best, best_value = index, value
            return best
        return self.least_needed(hand, request.legal)

    def on_reveal(self, request: Request, view: SearchView) -> int:
        return self.least_needed(view.hand, request.legal)


def _comb(n: int, k: int) -> float:
    if k < 0 or k > n:
        return 0.0
    result = 1.0
    for i in range(k):
        result = result * (n - i) / (i + 1)
    return result
