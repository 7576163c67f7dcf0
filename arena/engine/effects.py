"""Every card's effect, in one table: the place to read (or change) what a card does.

An effect resolves for the seat that played it, triggered it from a trap, or (Gods only) was
forced to discard it. Effects use the levers of ``actions.py``; every choice they need is a
decision of its player. The table ``EFFECTS`` is what RULES.md prints.

Draws, forced discards and the trigger windows live here too, because they resolve effects
in turn: a drawn Palaestron is played at once, a God forced out of a hand fires its own
effect, and a trap sprung in a window resolves its card's (``turn.py`` opens the windows).

Changing a card: its row of ``EFFECTS`` and its resolver here, the row's facts about the
resolver too: ``needs``, what it must find to do anything (``arena play`` says by them why an
effect came to nothing), and ``forced_discards`` (the kit's policy keeps such attacks for the
end); ``tests/engine/test_effect_needs.py`` plays every card to check both;
then the copies of its words that no code reads, RULES.md's effect table (``arena rules
--effects --format markdown`` prints it; ``tests/engine/test_simulate.py`` checks it) and the
card's bullet in RULES.md (its gist, the few words ``arena play`` shows beside it, is its
row's fifth field).
An event it emits is told for people by its type's line in ``narration.py`` and listed in
docs/RECORDS.md (a change of telling: ``record.OLDER_TELLINGS``, so older records replay).
Its tests are in ``tests/engine/test_effects.py``, one or two per card, named by the card's
name (the Gods' staged examples in ``tests/engine/test_rulings_play.py``; the telling's in
``tests/engine/test_narration.py``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from arena.engine.actions import (
    ask_exchange_with_seat,
    ask_hand_card,
    ask_opponent,
    ask_reveal,
    card_options,
    counting,
    effect_context,
    give_card,
    hand_options,
    pass_option,
    peek_hand,
    placed_options,
    refill_pile,
    reveal_hand,
    shown_hand,
    step_to_effect_graveyard,
    take_trap,
    to_discard_graveyard,
    voluntary_discard,
)
from arena.engine.cards import DECK, KIND_OF, NOTATION, PALAESTRON, Card, Kind
from arena.engine.decision import Option
from arena.engine.state import State

__all__ = [
    "DRAWING_EFFECTS",
    "EFFECTS",
    "FIRED_BY_FORCED_DISCARD",
    "PALAESTRON_TEXT",
    "TRIGGER_WINDOWS",
    "Effect",
    "Need",
    "discard_forced",
    "effect_of",
    "push_effect",
    "start_palaestron",
    "step_draw",
    "step_forced_discard",
    "trigger_window",
]

#: A card a forced discard puts out of a hand fires its own effect, by id: the Gods (rulebook
#: "Forced Discards"); it goes to the Effect Graveyard, any other card to the Discard Graveyard.
_FIRES_WHEN_FORCED_OUT: Final[tuple[bool, ...]] = tuple(kind == int(Kind.GOD) for kind in KIND_OF)
#: The same by face, for readers of events (``arena play`` counts the graveyard's cards by it).
FIRED_BY_FORCED_DISCARD: Final = frozenset(
    NOTATION[card] for card, fires in enumerate(_FIRES_WHEN_FORCED_OUT) if fires)
_NO_TRIGGER: Final = pass_option("trap")
#: "trigger the trap in this slot", one option object per (card, slot), made once: like the
#: other options, handed out again and again (a learner's action index remembers them)
_TRIGGER_OPTION: Final[dict[tuple[int, int], Option]] = {}
#: The trigger windows (RULES.md E10), as decisions and events name them: the start of a
#: turn, a declared play, a triggered trap, a drawn Palaestron, the end before the showdown,
#: a God fired by a forced discard.
TRIGGER_WINDOWS: Final = ("turn_start", "declare", "answer", "palaestron", "showdown",
                          "discarded")


Resolver = Callable[[State, int, str], None]


class Need(enum.Enum):
    """What an effect may need to find, beyond its player's hand and the draw pile, to do
    anything (the pile is rebuilt the moment it empties, E4, so an effect always finds it)."""

    DISCARD_GRAVEYARD_CARD = "a card in the Discard Graveyard"
    OPPONENT_TRAP = "a trap in an opponent's Arena"
    OPPONENT_HIDDEN_CARD = "a card not yet revealed in an opponent's hand"


@dataclass(frozen=True)
class Effect:
    """A card face's effect: its name, its rules text, the code that resolves it, its gist
    (a few words a player reads beside the card when choosing it) and its needs: with none of
    them in the game it comes to nothing, whatever its players choose (with one, or with no
    needs, some choices make it do something); and how many forced discards it makes each
    opponent it strikes."""

    face: str
    name: str
    text: str
    resolve: Resolver
    gist: str
    needs: tuple[Need, ...] = ()
    #: the forced discards it makes an opponent it strikes (Poseidon strikes every one)
    forced_discards: int = 0


# ============================================================================ Gods
def hermes(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _hermes, seat, src, why="Hermes: whose hand to trade with",
                 source=src)


def _hermes(state: State, target: int, seat: int, src: str) -> None:
    peek_hand(state, seat, target, src)
    ask_exchange_with_seat(state, seat, target, src)


def hades(state: State, seat: int, src: str) -> None:
    graveyard = state.discard_graveyard
    # bottom first; which of two copies is taken decides what a later Griffin uncovers (E26)
    options, payloads = placed_options(graveyard, list(range(len(graveyard), 0, -1)), True,
                                       state.used[seat])
    if not options or not state.hands[seat]:
        return
    state.ask(seat, "card", [pass_option("card"), *options], [(-1, 0), *_depths(options,
                                                                                 payloads)],
              _graveyard_take, seat, src, context=effect_context(
                  "take a card from the Discard Graveyard (or pass)", src))


def _depths(options: list[Option], payloads: list[int]) -> list[tuple[int, int]]:
    """Each placed option's card with the depth the option names (0: the copy nearest the
    top), for its event to tell which copy was taken (E26)."""
    return [(card, int(option.get("depth", 0))) for option, card in zip(options, payloads)]


def _graveyard_take(state: State, pick: tuple[int, int], seat: int, src: str) -> None:
    taken, depth = pick
    if taken >= 0:
        ask_hand_card(state, seat, "give", _graveyard_give, seat, taken, src, depth,
                      why=f"put a card in the Discard Graveyard for {NOTATION[taken]}",
                      source=src)


def _graveyard_give(state: State, given: int, seat: int, taken: int, src: str,
                    depth: int = 0) -> None:
    if given < 0:
        return
    state.take_from_discard_graveyard(taken)
    state.remove_from_hand(seat, given)
    state.discard_graveyard.append(given)
    state.add_to_hand(seat, taken)
    event: dict[str, object] = {"type": "graveyard_exchange", "seat": seat, "source": src,
                                "took": NOTATION[taken], "gave": NOTATION[given]}
    if depth:  # the other copy: which one left decides the graveyard's order (E26)
        event["depth"] = depth
    state.emit(event)


def poseidon(state: State, seat: int, src: str) -> None:
    for target in reversed(state.opponents(seat)):
        state.push(step_forced_discard, target, src, seat)


def athena(state: State, seat: int, src: str) -> None:
    _look_and_exchange_top(state, seat, src, 3)


def ares(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _ares, seat, src, why="Ares: whose hand to sack", source=src)


def _ares(state: State, target: int, seat: int, src: str) -> None:
    peek_hand(state, seat, target, src)
    hand = shown_hand(state.hands[target])
    # of two copies, the one that counts in their Desmos (E35)
    options, payloads = card_options(hand, "card", state.revealed[target],
                                     moves_first=counting(hand, state.used[target]))
    if options:
        state.ask(seat, "card", options, payloads, _ares_pick, target, src,
                  context=effect_context("the card they must discard", src, target))


def _ares_pick(state: State, card: int, target: int, src: str) -> None:
    discard_forced(state, card, target, src)


def apollo(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _apollo, src, why="Apollo: whose hand to bring to light",
                 source=src)


def _apollo(state: State, target: int, src: str) -> None:
    reveal_hand(state, target, src)
    for trap in list(state.traps[target]):
        take_trap(state, target, trap, "destroyed", src)


def zeus(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _zeus, seat, src, why="Zeus: whom to strike", source=src)


def _zeus(state: State, target: int, seat: int, src: str) -> None:
    for trap in list(state.traps[target]):
        take_trap(state, target, trap, "destroyed", src)
    state.push(step_forced_discard, target, src, seat)
    state.push(step_forced_discard, target, src, seat)


# ============================================================================ Classes
def agari(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _raid, seat, src, why="Raid: who must discard", source=src)


def _raid(state: State, target: int, seat: int, src: str) -> None:
    state.push(step_forced_discard, target, src, seat)


def umbrae(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _spy, seat, src, why="Spy: whose hand to look at", source=src)


def _spy(state: State, target: int, seat: int, src: str) -> None:
    peek_hand(state, seat, target, src)


def arcoi(state: State, seat: int, src: str) -> None:
    options = []
    payloads = []
    for owner in state.opponents(seat):
        for slot in range(len(state.traps[owner])):
            options.append({"seat": owner, "slot": slot})
            payloads.append((owner, slot))
    if options:
        state.ask(seat, "target", options, payloads, _snipe, src,
                  context=effect_context("trap to destroy", src))
    else:
        ask_opponent(state, seat, _make_reveal, seat, src,
                     why="no trap to snipe: who reveals a card", source=src)


def _snipe(state: State, pick: tuple[int, int], src: str) -> None:
    owner, slot = pick
    take_trap(state, owner, state.traps[owner][slot], "destroyed", src)


def _make_reveal(state: State, target: int, seat: int, src: str) -> None:
    ask_reveal(state, target, src, seat)


def sophoi(state: State, seat: int, src: str) -> None:
    _look_and_exchange_top(state, seat, src, 2)


def crown(state: State, seat: int, src: str) -> None:
    _look_and_exchange_top(state, seat, src, 1)


def _look_and_exchange_top(state: State, seat: int, src: str, depth: int) -> None:
    """Look at the top ``depth`` cards; you may exchange one of your cards for one of them."""
    top = state.draw_pile[-depth:][::-1]
    if not top:
        return
    if state.track_events:
        state.emit({"type": "look", "seat": seat, "source": src, "zone": "draw_pile",
                    "cards": [NOTATION[c] for c in top]}, seat)
        state.emit({"type": "look", "seat": seat, "source": src, "zone": "draw_pile",
                    "count": len(top)}, ~seat)
    # the card given takes the taken card's place: each copy is its own option (E26)
    options, payloads = placed_options(top, list(range(1, len(top) + 1)), False)
    # the Palaestron alone seen is no option but the pass: asked all the same (E21)
    state.ask(seat, "card", [pass_option("card"), *options], [(-1, 0), *_depths(options,
                                                                                 payloads)],
              _pile_take, seat, src, context=effect_context(
                  "take a card from the top of the draw pile (or pass)", src), secret_count=True)


def _pile_take(state: State, pick: tuple[int, int], seat: int, src: str) -> None:
    taken, depth = pick
    if taken >= 0:
        ask_hand_card(state, seat, "give", _pile_give, seat, taken, src, depth, face_up=False,
                      why=f"put a card in the draw pile in place of {NOTATION[taken]}",
                      source=src)


def _pile_give(state: State, given: int, seat: int, taken: int, src: str, depth: int) -> None:
    pile = state.draw_pile
    pile[pile.index(taken)] = given
    was_public = given in state.revealed[seat]
    state.remove_from_hand(seat, given)
    state.add_to_hand(seat, taken)
    if state.track_events:  # the others see a card go each way: which, only if public (E23)
        private: dict[str, object] = {"type": "pile_exchange", "seat": seat, "source": src,
                                      "took": NOTATION[taken], "gave": NOTATION[given]}
        if depth:  # the other copy, as its option named it (E26)
            private["depth"] = depth
        public: dict[str, object] = {"type": "pile_exchange", "seat": seat, "source": src}
        if was_public:
            public["gave"] = NOTATION[given]
        state.emit_split(seat, private, public)


# ============================================================================ Fates
def clotho(state: State, seat: int, src: str) -> None:
    state.push(_cycle_discard, seat, src)
    state.push(step_draw, seat)


def _cycle_discard(state: State, seat: int, src: str) -> None:
    ask_hand_card(state, seat, "discard", _spin_discard, seat, src, why="Spin: discard a card",
                  source=src)


def _spin_discard(state: State, card: int, seat: int, src: str) -> None:
    voluntary_discard(state, card, seat, src)


def lachesis(state: State, seat: int, src: str) -> None:
    if not state.draw_pile:
        return
    top = state.draw_pile[-1]
    state.emit({"type": "look", "seat": seat, "source": src, "zone": "draw_pile",
                "cards": [NOTATION[top]]}, seat)
    state.emit({"type": "look", "seat": seat, "source": src, "zone": "draw_pile", "count": 1},
               ~seat)
    state.ask(seat, "card", [pass_option("bottom"), {"bottom": NOTATION[top]}], [False, True],
              _measure, src, context=effect_context(
                  "keep the top card on top, or move it to the bottom", src))


def _measure(state: State, to_bottom: bool, src: str) -> None:
    if to_bottom:
        state.draw_pile.insert(0, state.draw_pile.pop())
        state.emit({"type": "pile_bottomed", "source": src})


def atropos(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _make_reveal, seat, src, why="Cut: who reveals a card",
                 source=src)


def tyche(state: State, seat: int, src: str) -> None:
    if state.discard_graveyard and state.hands[seat]:
        top = state.discard_graveyard[-1]
        if top == PALAESTRON:
            return
        ask_hand_card(state, seat, "give", _graveyard_give, seat, top, src, optional=True,
                      why=f"exchange a card for {NOTATION[top]} (or pass)", source=src)


def nemesis(state: State, seat: int, src: str) -> None:
    ask_opponent(state, seat, _nemesis, seat, src, why="Retribution: who gives you a card",
                 source=src)


def _nemesis(state: State, target: int, seat: int, src: str) -> None:
    ask_hand_card(state, target, "give", _nemesis_received, seat, target, src, face_up=False,
                  why="give a card to Nemesis's player", source=src, from_seat=seat)


def _nemesis_received(state: State, given: int, seat: int, target: int, src: str) -> None:
    give_card(state, target, seat, given, src)
    # "then": the card received is in the hand the player gives from, and may go back (E29);
    # a step of its own, so that an Ascension it made ends the game first
    state.push(_nemesis_return, seat, target, src)


def _nemesis_return(state: State, seat: int, target: int, src: str) -> None:
    ask_hand_card(state, seat, "give", _nemesis_returned, seat, target, src, face_up=False,
                  why="give a card to the player who gave you one", source=src,
                  from_seat=target)


def _nemesis_returned(state: State, returned: int, seat: int, target: int, src: str) -> None:
    give_card(state, seat, target, returned, src)


# ============================================================================ Beasts
def salamander(state: State, seat: int, src: str) -> None:
    if state.draw_pile:
        card = state.draw_pile.pop()
        state.emit({"type": "burn", "seat": seat, "card": NOTATION[card], "source": src})
        # the burned card lands before the emptied pile is rebuilt: it is in the new pile
        to_discard_graveyard(state, card)


def hippocamp(state: State, seat: int, src: str) -> None:
    if state.draw_pile:
        state.emit({"type": "look", "seat": seat, "source": src, "zone": "draw_pile",
                    "cards": [NOTATION[state.draw_pile[-1]]]}, seat)
        state.emit({"type": "look", "seat": seat, "source": src, "zone": "draw_pile",
                    "count": 1}, ~seat)


def basilisk(state: State, seat: int, src: str) -> None:
    owners = [s for s in state.opponents(seat) if state.traps[s]]
    ask_opponent(state, seat, _petrify, seat, src, candidates=owners,
                 why="Petrify: whose traps to look at", source=src)


def _petrify(state: State, target: int, seat: int, src: str) -> None:
    state.emit({"type": "peek_traps", "seat": seat, "target": target, "source": src,
                "cards": [NOTATION[t.card] for t in state.traps[target]]}, seat)
    state.emit({"type": "peek_traps", "seat": seat, "target": target, "source": src}, ~seat)


def griffin(state: State, seat: int, src: str) -> None:
    if state.discard_graveyard:
        card = state.discard_graveyard[-1]
        state.take_from_discard_graveyard(card)
        state.draw_pile.append(card)
        state.emit({"type": "updraft", "seat": seat, "card": NOTATION[card], "source": src})


def phoenix(state: State, seat: int, src: str) -> None:
    state.push(_rebirth_return, seat, src)
    state.push(step_draw, seat)


def _rebirth_return(state: State, seat: int, src: str) -> None:
    ask_hand_card(state, seat, "give", _rebirth_put, seat, src, face_up=False,
                  why="Rebirth: put a card on top of the draw pile", source=src)


def _rebirth_put(state: State, card: int, seat: int, src: str) -> None:
    was_public = card in state.revealed[seat]
    state.remove_from_hand(seat, card)
    state.draw_pile.append(card)
    if state.track_events:  # the others learn which card only if it was public (E23)
        public: dict[str, object] = {"type": "return_to_pile", "seat": seat, "source": src}
        if was_public:
            public["card"] = NOTATION[card]
        state.emit_split(seat, {"type": "return_to_pile", "seat": seat, "source": src,
                                "card": NOTATION[card]}, public)


# ============================================================================ the table
EFFECTS: dict[str, Effect] = {e.face: e for e in (
    Effect("God-1", "Hermes, Messenger's Trade",
           "Choose an opponent and look at their hand; you may exchange one of your cards "
           "for one of theirs.", hermes,
           "look at a hand, may trade a card"),
    Effect("God-2", "Hades, Lord of the Dead",
           "You may exchange one card of your hand for any card in the Discard Graveyard.",
           hades,
           "may trade a card for one in the Discard Graveyard", (Need.DISCARD_GRAVEYARD_CARD,)),
    Effect("God-3", "Poseidon, Tidal Wave",
           "Every opponent, in seat order, makes a forced discard of their choice.", poseidon,
           "every opponent makes a forced discard", forced_discards=1),
    Effect("God-4", "Athena, Foresight",
           "Look at the top three cards of the draw pile; you may exchange one card of your "
           "hand for one of them (yours takes its place).", athena,
           "look at the top 3 cards, may trade for one"),
    Effect("God-5", "Ares, Sack",
           "Choose an opponent and look at their hand; they make a forced discard of the "
           "card you choose.", ares,
           "look at a hand, they discard the card you pick", forced_discards=1),
    Effect("God-6", "Apollo, Sunlight",
           "Choose an opponent: their whole hand is revealed, and every trap in their Arena "
           "goes to the Discard Graveyard.", apollo,
           "an opponent's hand revealed, their traps destroyed"),
    Effect("God-7", "Zeus, Thunderbolt",
           "Choose an opponent: every trap in their Arena goes to the Discard Graveyard, then "
           "they make two forced discards of their choice.", zeus,
           "destroy an opponent's traps, they discard two", forced_discards=2),
    *(Effect(f"Agari-{r}", "Agari, Raid",
             "Choose an opponent: they make a forced discard of their choice.", agari,
             "an opponent makes a forced discard", forced_discards=1) for r in range(1, 7)),
    *(Effect(f"Umbrae-{r}", "Umbrae, Spy",
             "Choose an opponent and look at their hand.", umbrae,
             "look at an opponent's hand") for r in range(1, 7)),
    *(Effect(f"Arcoi-{r}", "Arcoi, Snipe",
             "Choose a trap in an opponent's Arena: it goes to the Discard Graveyard. With no "
             "trap to hit, choose an opponent: they reveal a card of their choice.", arcoi,
             "destroy an opponent's trap (none: they reveal a card)",
             (Need.OPPONENT_TRAP, Need.OPPONENT_HIDDEN_CARD)) for r in range(1, 6)),
    *(Effect(f"Sophoi-{r}", "Sophoi, Study",
             "Look at the top two cards of the draw pile; you may exchange one card of your "
             "hand for one of them.", sophoi,
             "look at the top 2 cards, may trade for one") for r in range(1, 6)),
    Effect("Fate-1", "Clotho, Spin",
           "Draw a card, then discard a card of your choice (not a forced discard).", clotho,
           "draw a card, then discard one"),
    Effect("Fate-2", "Lachesis, Measure",
           "Look at the top card of the draw pile; you may move it to the bottom.", lachesis,
           "look at the top card, may move it to the bottom"),
    Effect("Fate-3", "Atropos, Cut",
           "Choose an opponent: they reveal a card of their choice.", atropos,
           "an opponent reveals a card", (Need.OPPONENT_HIDDEN_CARD,)),
    Effect("Fate-4", "Tyche, Fortune",
           "You may exchange one card of your hand for the top card of the Discard Graveyard.",
           tyche,
           "may trade for the Discard Graveyard's top card", (Need.DISCARD_GRAVEYARD_CARD,)),
    Effect("Fate-5", "Nemesis, Retribution",
           "Choose an opponent: they give you a card of their choice, then you give them a "
           "card of your choice.", nemesis,
           "an opponent gives you a card, you give one back"),
    Effect("Beast-1", "Salamander of Fire, Burn",
           "The top card of the draw pile goes face up to the Discard Graveyard.", salamander,
           "burn the top card of the draw pile"),
    Effect("Beast-2", "Hippocamp of Water, Tide-sight",
           "Look at the top card of the draw pile.", hippocamp,
           "look at the top card of the draw pile"),
    Effect("Beast-3", "Basilisk of Earth, Petrify",
           "Choose an opponent who has traps and look at them.", basilisk,
           "look at an opponent's traps", (Need.OPPONENT_TRAP,)),
    Effect("Beast-4", "Griffin of Air, Updraft",
           "The top card of the Discard Graveyard goes on top of the draw pile.", griffin,
           "the Discard Graveyard's top card goes on the pile", (Need.DISCARD_GRAVEYARD_CARD,)),
    Effect("Beast-5", "Phoenix of Aether, Rebirth",
           "Draw a card, then put a card of your hand on top of the draw pile.", phoenix,
           "draw a card, then put one on top of the pile"),
    Effect("Crown", "Crown, Royal Favour",
           "Look at the top card of the draw pile; you may exchange one card of your hand "
           "for it.", crown,
           "look at the top card, may trade for it"),
)}

#: The effects that draw for their own player (:func:`clotho` draws, then discards;
#: :func:`phoenix` draws, then puts a card on the pile): a play of one draws twice, the
#: effect's draw first, the play's own after it (what ``arena play`` tells each draw by).
DRAWING_EFFECTS: Final = ("Fate-1", "Beast-5")

_EFFECT_BY_ID: Final[tuple[Effect | None, ...]] = tuple(
    EFFECTS.get(NOTATION[cid]) for cid in range(len(DECK))
)


def effect_of(card: int | Card | str) -> Effect:
    """The effect of a card id, face or notation."""
    if isinstance(card, int):
        effect = _EFFECT_BY_ID[card]
    else:
        effect = EFFECTS.get(str(card))
    if effect is None:
        raise KeyError(f"{card} has no play effect")
    return effect


def push_effect(state: State, card: int, seat: int, how: str) -> None:
    """Schedule ``card``'s effect for ``seat``; ``how`` is played, trap or discarded."""
    state.push(_resolve, card, seat, how)


def _resolve(state: State, card: int, seat: int, how: str) -> None:
    effect = _EFFECT_BY_ID[card]
    assert effect is not None
    state.emit({"type": "effect", "seat": seat, "card": NOTATION[card], "how": how})
    if state.strict_reclaim:  # used for an effect: never again in this seat's Desmos
        state.used[seat].add(card)
    effect.resolve(state, seat, NOTATION[card])


# ============================================================================ draws, discards
def step_draw(state: State, seat: int) -> None:
    """Draw one card; the Palaestron is played at once as an interrupt (ruling 10). A pile
    the draw empties is rebuilt from both graveyards at once (E4), before a drawn Palaestron
    resolves; so a draw meets an empty pile only when every graveyard is empty too (E5)."""
    pile = state.draw_pile
    if not pile:
        state.emit({"type": "pile_exhausted", "seat": seat})
        return
    card = pile.pop()
    if card == PALAESTRON:
        # drawn, then the pile rebuilt: told in that order (the Palaestron did not come from
        # the new pile), and rebuilt before any of its steps resolves
        start_palaestron(state, seat)
        if not pile:
            refill_pile(state)
        return
    state.add_to_hand(seat, card)
    if state.track_events:
        state.emit_split(seat, {"type": "draw", "seat": seat, "card": NOTATION[card]},
                         {"type": "draw", "seat": seat})
    if not pile:
        refill_pile(state)


def step_forced_discard(state: State, seat: int, source: str,
                        from_seat: int | None = None) -> None:
    """A forced discard of the player's own choice (rulebook "Forced Discards"), for
    ``source``'s effect (``from_seat``: the seat whose effect it is; not the Palaestron's)."""
    if not state.hands[seat]:
        return
    options, payloads = hand_options(state, seat)
    state.ask(seat, "discard", options, payloads, discard_forced, seat, source,
              context=effect_context("forced discard", source, from_seat))


def discard_forced(state: State, card: int, seat: int, source: str) -> None:
    """Carry out a forced discard of ``card``: revealed, the right graveyard, a God's effect,
    then a draw back to five."""
    state.remove_from_hand(seat, card)
    state.emit({"type": "forced_discard", "seat": seat, "card": NOTATION[card], "source": source})
    state.push(step_draw, seat)
    if _FIRES_WHEN_FORCED_OUT[card]:
        state.limbo.append(card)
        state.push(step_to_effect_graveyard, card)
        push_effect(state, card, seat, "discarded")
        if state.all_windows:  # shown and about to resolve: its victims may answer (E10)
            trigger_window(state, state.opponents(seat), "discarded", NOTATION[card])
    else:
        to_discard_graveyard(state, card)


# ============================================================================ Palaestron
PALAESTRON_TEXT = (
    "Played at once when drawn (also in the deal). For each player in seat order from its "
    "player: a forced discard of their choice (then a draw back), then they reveal a card of "
    "their choice. Then every trap in every Arena goes to the Discard Graveyard. The "
    "Palaestron goes to the Effect Graveyard and its player draws a replacement."
)


def start_palaestron(state: State, seat: int) -> None:
    """Interrupt whatever is happening: the Palaestron was drawn by ``seat`` (ruling 10)."""
    state.limbo.append(PALAESTRON)
    state.emit({"type": "palaestron", "seat": seat})
    state.push(step_draw, seat)
    state.push(step_to_effect_graveyard, PALAESTRON)
    state.push(_clear_all_traps, seat)
    seats = state.seats_from(seat)
    for player in reversed(seats):
        state.push(_palaestron_reveal, player)
        state.push(step_forced_discard, player, "Palaestron")
    if state.all_windows:  # before its steps: the last chance to use a trap it will clear
        trigger_window(state, seats, "palaestron")


def _palaestron_reveal(state: State, seat: int) -> None:
    ask_reveal(state, seat, "Palaestron")


def _clear_all_traps(state: State, drawer: int) -> None:
    # in the order its other steps ran: from the player who drew it (E25)
    for owner in state.seats_from(drawer):
        for trap in list(state.traps[owner]):
            take_trap(state, owner, trap, "cleared", "Palaestron")


# ============================================================================ trigger windows
def trigger_window(state: State, seats: list[int], window: str,
                   source: str | None = None) -> None:
    """Offer each seat holding a triggerable trap, in ``seats`` order, one chance to trigger
    one (ruling 9, E8; in the last chances, until it passes, E36); seats without a trap are
    not asked. A trap triggered resolves before
    the next seat is offered, which then chooses knowing its outcome (E27). ``source``: the
    card shown and about to resolve that opened the window (a play, a trap, a discarded God),
    public, so that a seat asked knows what it answers."""
    for seat in reversed(seats):
        if state.traps[seat]:
            state.push(_offer_trigger, seat, window, source)


def _offer_trigger(state: State, seat: int, window: str, source: str | None) -> None:
    traps = state.traps[seat]
    options: list[Option] = [_NO_TRIGGER]
    slots = [-1]
    for slot, trap in enumerate(traps):
        if trap.set_turn < state.turn:
            key = (trap.card, slot)
            option = _TRIGGER_OPTION.get(key)
            if option is None:
                option = _TRIGGER_OPTION[key] = {"trap": NOTATION[trap.card], "slot": slot}
            options.append(option)
            slots.append(slot)
    if len(slots) > 1:
        context: dict[str, object] = {"why": "trigger a trap (or pass)", "window": window}
        if source is not None:
            context["source"] = source
        state.ask(seat, "trigger", options, slots, _on_trigger, seat, window, source,
                  context=context)


def last_chance(state: State) -> bool:
    """Whether a trap not sprung now can never be: the Palaestron is resolving (it will clear
    every Arena) or the last turn is over (the showdown follows), E36."""
    return state.round > state.rounds or PALAESTRON in state.limbo


def _on_trigger(state: State, slot: int, seat: int, window: str, source: str | None) -> None:
    if slot < 0:
        return
    trap = state.traps[seat].pop(slot)
    state.limbo.append(trap.card)
    state.emit({"type": "trap_triggered", "seat": seat, "card": NOTATION[trap.card],
                "window": window, "slot": slot})
    if last_chance(state):  # no later window for its other trap: asked again (E36)
        state.push(_offer_trigger, seat, window, source)
    state.push(step_to_effect_graveyard, trap.card)
    push_effect(state, trap.card, seat, "trap")
    if state.all_windows:  # a trap may answer a trap, before its effect (E10)
        trigger_window(state, state.opponents(seat), "answer", NOTATION[trap.card])
