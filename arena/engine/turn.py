"""The shape of a game: the deal, rounds of turns, the turns' trigger windows, trap expiry.

A turn (ruling 7) is exactly one of Hold / Play a card / Set a Trap, then an optional Swap;
every hand is back to five at the end of every turn.
"""

from __future__ import annotations

from typing import Final

from arena.engine.actions import (
    hand_options,
    pass_option,
    step_to_effect_graveyard,
    take_trap,
    voluntary_discard,
)
from arena.engine.cards import DECK_SIZE, NOTATION, PALAESTRON
from arena.engine.chance import shuffle
from arena.engine.decision import Option
from arena.engine.effects import push_effect, start_palaestron, step_draw, trigger_window
from arena.engine.rulebook import HAND_SIZE, MAX_TRAPS, TRAP_LIFETIME
from arena.engine.showdown import showdown
from arena.engine.state import State, Trap

__all__ = [
    "MAX_TRAPS",
    "TRAP_LIFETIME",
    "ask_swap",
    "ask_turn_action",
    "begin_game",
    "start_turn",
    "trigger_window",
]

#: A turn decision's payload for setting card ``c`` as a trap is ``c + _SET_TRAP`` (playing
#: it is ``c``, holding is -1): one int per option keeps the continuation's arguments flat.
_SET_TRAP: Final = 100
_HOLD: Final[Option] = {"action": "hold"}
_PLAY_BY_NAME = {name: {"action": "play", "card": name} for name in NOTATION}
_SET_BY_NAME = {name: {"action": "trap", "card": name} for name in NOTATION}
#: turn options by card id (copies of a card share one option object)
_PLAY: Final[tuple[Option, ...]] = tuple(_PLAY_BY_NAME[name] for name in NOTATION)
_SET: Final[tuple[Option, ...]] = tuple(_SET_BY_NAME[name] for name in NOTATION)
_NO_SWAP: Final = pass_option("swap")


def begin_game(state: State) -> None:
    """Shuffle, deal five to each player in seat order, then resolve a dealt Palaestron."""
    pile = list(range(DECK_SIZE))
    shuffle(state.rng, pile)
    state.draw_pile = pile
    state.emit({"type": "game_start", "players": list(state.players), "rounds": state.rounds,
                "starting_seat": state.active})
    holder = None
    redeal = state.config.rules.dealt_palaestron == "redeal"
    order = state.seats_from(state.active)
    for _ in range(HAND_SIZE):
        for seat in order:
            card = pile.pop()
            if card == PALAESTRON:
                holder = seat
                if not redeal:
                    continue
                card = pile.pop()  # redeal: its holder is dealt the next card instead
            state.add_to_hand(seat, card)
    if redeal and holder is not None:
        # set aside, then shuffled back: it stays in the game, somewhere in the pile
        pile.insert(state.rng.randrange(len(pile) + 1), PALAESTRON)
        state.emit({"type": "palaestron_redealt", "seat": holder})
        holder = None
    if state.track_events:
        for seat in range(state.n):
            state.emit({"type": "deal", "seat": seat,
                        "cards": [NOTATION[c] for c in state.hands[seat]]}, seat)
    state.phase = "play"
    state.push(start_turn)
    if holder is not None:
        start_palaestron(state, holder)


def start_turn(state: State) -> None:
    if state.round > state.rounds:
        state.push(showdown)
        if state.all_windows:  # the last chance for a trap set late (E10)
            trigger_window(state, state.seats_from(state.active), "showdown")
        return
    seat = state.active
    state.scratch["turn"] = {"round": state.round, "seat": seat, "action": "hold", "card": None,
                             "swap": False}
    state.emit({"type": "turn_start", "seat": seat, "round": state.round})
    state.push(ask_turn_action)
    trigger_window(state, state.seats_from(seat), "turn_start")


def ask_turn_action(state: State) -> None:
    """Ask the active seat its turn: hold, play a card, or set a trap (ruling 7)."""
    seat = state.active
    hand = state.hands[seat]
    _, cards = hand_options(state, seat)
    options: list[Option] = [_HOLD]
    options += [_PLAY[card] for card in cards]
    payloads: list[int] = [-1]
    payloads += cards
    if len(state.traps[seat]) < MAX_TRAPS:
        options += [_SET[card] for card in cards]
        # A trap goes face down: of a revealed and a hidden copy, the hidden one (E20).
        hidden = cards if len(cards) == len(hand) else hand_options(state, seat, "card",
                                                                     False)[1]
        payloads += [card + _SET_TRAP for card in hidden]
    if not hand:  # pragma: no cover - only with an exhausted deck
        payloads = [-1]
        options = [_HOLD]
    state.ask(seat, "turn", options, payloads, _on_turn, seat, context={"round": state.round})


def _on_turn(state: State, payload: int, seat: int) -> None:
    record = state.scratch["turn"]
    state.push(ask_swap, seat)
    if payload < 0:
        state.emit({"type": "hold", "seat": seat})
        return
    if payload < _SET_TRAP:
        card = payload
        record["action"] = "play"
        record["card"] = NOTATION[card]
        state.remove_from_hand(seat, card)
        state.limbo.append(card)
        state.emit({"type": "play", "seat": seat, "card": NOTATION[card]})
        state.push(step_draw, seat)
        state.push(step_to_effect_graveyard, card)
        push_effect(state, card, seat, "played")
        trigger_window(state, state.opponents(seat), "declare", NOTATION[card])
        return
    card = payload - _SET_TRAP
    record["action"] = "trap"
    record["card"] = NOTATION[card]
    was_public = card in state.revealed[seat]
    state.remove_from_hand(seat, card)
    state.traps[seat].append(Trap(card, state.turn, state.own_turns[seat]))
    if state.track_events:
        public: dict[str, object] = {"type": "set_trap", "seat": seat}
        if was_public:  # a card everyone saw is named going face down (E23)
            public["card"] = NOTATION[card]
        state.emit_split(seat, {"type": "set_trap", "seat": seat, "card": NOTATION[card]},
                         public)
    state.push(step_draw, seat)


def ask_swap(state: State, seat: int) -> None:
    """Offer ``seat`` the optional swap that ends its turn (discard one, draw one)."""
    state.push(_end_turn, seat)
    names, cards = hand_options(state, seat, "swap")
    state.ask(seat, "swap", [_NO_SWAP, *names], [-1, *cards], _on_swap, seat,
              context={"round": state.round})


def _on_swap(state: State, card: int, seat: int) -> None:
    if card < 0:
        return
    state.scratch["turn"]["swap"] = True
    voluntary_discard(state, card, seat, "swap")
    state.push(step_draw, seat)


def _end_turn(state: State, seat: int) -> None:
    state.own_turns[seat] += 1
    done = state.own_turns[seat]
    for trap in list(state.traps[seat]):
        if done - trap.owner_turns >= TRAP_LIFETIME:
            take_trap(state, seat, trap, "expired")
    record = state.scratch["turn"]  # a fresh dict every turn (start_turn): kept as it is
    record["hand_size_after"] = len(state.hands[seat])
    record["traps_after"] = [len(t) for t in state.traps]
    state.turn_log.append(record)
    state.turn += 1
    state.turn_in_round += 1
    state.active = (state.active + 1) % state.n
    if state.turn_in_round == state.n:
        state.emit({"type": "round_end", "round": state.round})
        state.round += 1
        state.turn_in_round = 0
    state.push(start_turn)
