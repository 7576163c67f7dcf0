"""Plain words for a person at the table: cards, options and what each kind of decision asks.

The rules text of every card is the engine's (:data:`arena.engine.EFFECTS`); this module adds
only the short gist shown beside a card in a list of options, and explanations of the decision
kinds, so that a choice reads as "Play God-1 Hermes: look at a hand, may trade a card".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from arena.common.plural import ordinal
from arena.engine import EFFECTS
from arena.engine.cards import NEMESIS
from arena.engine.effects import PALAESTRON_TEXT
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.rulebook import MAX_TRAPS

__all__ = ["KIND_HELP", "card_face", "card_label", "card_text", "cards_in",
           "decision_title", "kind_help", "option_label", "played_for_another"]

PALAESTRON = "Palaestron"

#: What each kind of decision asks, for ``?``.
KIND_HELP: Mapping[str, str] = {
    "turn": "Your turn: hold (do nothing), play a card (its effect resolves, then you draw "
            "one) or set a card face down as a trap in your Arena (then you draw one; at "
            f"most {MAX_TRAPS} traps). A trap can be triggered from the next turn on: at the "
            "start of any turn or when an opponent declares a play (under the default house "
            "rules also in answer to a trap, when the Palaestron is drawn, when an opponent's "
            "God fires from a forced discard and before the showdown), and expires after your "
            "second turn from now.",
    "swap": "After your action you may swap: discard one card and draw one. Keep your hand "
            "(option 0) or name the card to let go. Five cards make your Desmos at the "
            "showdown.",
    "trigger": "One of your traps can be triggered now (its effect resolves for you and the "
               "trap is used up), or you pass and keep it.",
    "target": "An effect needs an opponent (or an opponent's trap): choose whom.",
    "card": "An effect lets you take a card (or pass), or asks which card leaves another "
            "hand.",
    "discard": "You must discard a card from your hand. A forced discard is shown to "
               "everyone; only a God fires its effect when forced out (for you; under the "
               "default house rules your opponents may answer it with a trap first).",
    "reveal": "You must reveal a card of your choice: everyone sees it until it leaves your "
              "hand.",
    "give": "You give a card from your hand (to a player, the draw pile or a graveyard), or "
            "pass where passing is allowed.",
    "rps": "Equal first place at the showdown: sudden-death Rock-Paper-Scissors.",
}

#: A discard the player's own effect asks for (Clotho's Spin), not a forced one.
_OWN_DISCARD_HELP = ("Your own effect asks you to discard a card from your hand. It is not a "
                     "forced discard: everyone sees the card go to the Discard Graveyard, and "
                     "no effect fires, a God's included.")


#: Nemesis's two gifts (RULES.md E29): which comes first, and that the first may go back.
_NEMESIS_GIVE_HELP = (f"Nemesis ({NEMESIS}): the opponent its player chose gives them a card of "
                      "the opponent's choice; then its player gives that opponent a card of "
                      "their choice from their hand as it is then, so the card just received "
                      "may be given back. Neither may refuse. The two players see both cards; "
                      "the others learn only that a card went each way (and which, if it was "
                      "revealed).")

#: In the last chances a seat is asked again after each trap it springs (RULES.md E36).
_ASKED_AGAIN = "After each trap you trigger here you are asked again, until you pass."
_ASKED_AGAIN_INSIDE = ("After the last turn, or while the Palaestron resolves, you are asked "
                       "again after each trap you trigger, until you pass.")

#: What the moment of a trigger window is (its ``window``), after the trigger help.
_WINDOW_HELP: Mapping[str, str] = {
    "turn_start": "A turn is starting: a trap triggered now resolves before its player acts.",
    "declare": "An opponent has declared a play: a trap triggered now resolves before it.",
    "answer": "A trap has just been triggered: one triggered now answers it and resolves "
              f"first. {_ASKED_AGAIN_INSIDE}",
    "palaestron": "The Palaestron was drawn: it will clear every trap, so this is the last "
                  f"chance to use yours. {_ASKED_AGAIN}",
    "showdown": "The last turn is over: this is the last chance to use a trap before the "
                f"hands are shown. {_ASKED_AGAIN}",
    "discarded": "An opponent's God was forced out of their hand and is about to fire its "
                 f"effect for them: a trap triggered now resolves before it. "
                 f"{_ASKED_AGAIN_INSIDE}",
}


#: The help of a kind that names the traps' windows, under ``trap_windows=turn_and_play``:
#: the default's wider windows, which ``KIND_HELP`` names, are not this table's.
_NARROW_WINDOWS_HELP: Mapping[str, str] = {
    "turn": KIND_HELP["turn"].split(" (under the default")[0]
            + " (only then: this table's house rule is trap_windows=turn_and_play), and "
              "expires after your second turn from now.",
    "discard": KIND_HELP["discard"].split(" (for you;")[0]
               + " (for you; no trap may answer it: this table's house rule is "
                 "trap_windows=turn_and_play).",
}


def _forced(context: Mapping[str, Any]) -> bool:
    """Whether a discard is a forced one, known by the card it is for (the context's
    ``source``), not by the engine's words: a card whose effect forces discards, or the
    Palaestron; one's own discard (Clotho's) is asked by a card that forces none."""
    effect = EFFECTS.get(str(context.get("source")))
    return effect is None or effect.forced_discards > 0


def kind_help(kind: str, context: Mapping[str, Any],
              rules: HouseRules = DEFAULT_RULES) -> str:
    """What a decision of ``kind`` asks, for the player's ``?``, under the table's
    ``rules``."""
    if kind == "discard" and not _forced(context):
        return _OWN_DISCARD_HELP
    if rules.trap_windows == "turn_and_play" and kind in _NARROW_WINDOWS_HELP:
        return _NARROW_WINDOWS_HELP[kind]
    if kind == "give" and context.get("source") == NEMESIS:
        return _NEMESIS_GIVE_HELP
    moment = _WINDOW_HELP.get(str(context.get("window"))) if kind == "trigger" else None
    return f"{KIND_HELP['trigger']} {moment}" if moment else KIND_HELP.get(kind, kind)


_TITLES: Mapping[str, str] = {
    "turn": "Your move", "swap": "Swap a card?", "trigger": "Trigger a trap?",
    "target": "Choose a target", "card": "Choose a card", "discard": "Discard a card",
    "reveal": "Reveal a card", "give": "Give a card", "rps": "Rock, paper or scissors?",
}


def card_face(typed: str) -> str | None:
    """The card ``typed`` names, as a person may type it ("god-3", "GOD 3", "god3",
    "crown"), in notation; None when it names none."""
    face = "-".join(re.sub(r"(?<=[^\W\d])(?=\d)", " ", typed).split()).title()
    return face if face == PALAESTRON or face in EFFECTS else None


def card_text(face: str) -> str:
    """A card's whole rules text, with its effect's name."""
    if face == PALAESTRON:
        return f"Palaestron (The Palaestron): {PALAESTRON_TEXT}"
    effect = EFFECTS.get(face)
    if effect is None:
        return f"{face}: not a card"
    return f"{face} ({effect.name}): {effect.text}"


def _gist(face: str) -> str:
    """A few words of the card's effect (its row in the engine's table; the whole text is
    one ``h`` away)."""
    effect = EFFECTS.get(face)
    return effect.gist if effect is not None else ""


def card_label(face: str | None) -> str:
    """``God-1 Hermes``: the card and its effect's short name."""
    if face is None:
        return "nothing"
    effect = EFFECTS.get(face)
    if effect is None:
        return face
    figure, _, effect_name = effect.name.partition(",")
    short = figure.split(" of ")[0]  # a Beast's figure without its element
    if short == face.split("-")[0]:  # a Class card: its family, so the effect's name
        short = effect_name.strip()
    return face if short == face else f"{face} {short}"


#: When a trap may be triggered, in words (a trigger decision's ``window``).
_WINDOWS: Mapping[str, str] = {
    "turn_start": "at the start of this turn", "declare": "against the play just declared",
    "answer": "in answer to a trap", "palaestron": "before the Palaestron resolves",
    "showdown": "before the showdown", "discarded": "before the discarded God resolves",
}


def decision_title(kind: str, context: Mapping[str, Any]) -> str:
    """The heading of a decision: why it is asked (the engine's words), else its kind."""
    why = context.get("why")
    if not isinstance(why, str) or not why:
        return _TITLES.get(kind, kind)
    title = why[0].upper() + why[1:]
    window = _WINDOWS.get(str(context.get("window")))
    if window:
        title += f", {window}"
    source = context.get("source")
    return f"{title} ({source})" if source else title


def option_label(kind: str, option: Mapping[str, Any], players: Sequence[str],
                 context: Mapping[str, Any]) -> str:
    """One legal option in plain words."""
    if kind == "turn":
        action, card = option.get("action"), option.get("card")
        if action == "hold":
            return "Hold (do nothing this turn)"
        if action == "play":
            return f"Play {card_label(card)}: {_gist(str(card))}"
        return f"Set {card_label(card)} as a trap (face down)"
    if kind == "swap":
        swap = option.get("swap")
        return "Keep your hand" if swap is None else f"Swap away {card_label(swap)}"
    if kind == "trigger":
        trap = option.get("trap")
        return ("Pass (keep your traps)" if trap is None
                else f"Trigger {card_label(trap)}: {_gist(str(trap))}")
    if kind == "target":
        seat = option.get("seat")
        who = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "?"
        slot = option.get("slot")
        return f"{who} (seat {seat})" if slot is None else f"{who}'s trap {slot + 1}"
    if kind == "card" and "bottom" in option:
        return "Leave the top card on top" if option["bottom"] is None \
            else "Move the top card to the bottom"
    if kind == "rps":
        return str(option.get("throw", "?")).capitalize()
    card = option.get("card")
    if card is None:
        return "Pass"
    depth = option.get("depth")  # the other copy of a card in a pile (RULES.md E26)
    if isinstance(depth, int):
        return f"{card_label(str(card))} ({ordinal(depth)} from the top)"
    return card_label(str(card))


#: What the safe default played for another seat does, where it is a hold or a pass.
_DEFAULTS_PLAYED: Mapping[str, str] = {
    "turn": "it is made to hold", "swap": "it is made to keep its hand",
    "trigger": "it is made to pass (its traps stay set)",
}

#: What is played for another seat where the rules force a card of its own: the card is
#: secret (a gift, a card taken) or told by the event that follows (a discard, a reveal).
_CARDS_PLAYED: Mapping[str, str] = {
    "discard": "a card is discarded for it", "reveal": "a card is revealed for it",
    "give": "a card is given for it", "card": "a card is chosen for it",
}


def played_for_another(kind: str, option: Mapping[str, Any], players: Sequence[str],
                       context: Mapping[str, Any]) -> str:
    """What the referee's default (``option``, the decision's first) does for another seat
    that struck, in words that tell only what the person's seat may see: a hold, a pass, a
    target (the events name it); never which card of that seat's it was."""
    if kind == "rps":
        return "a throw drawn by lot is played for it"
    if kind == "target":
        return f"{option_label(kind, option, players, context)} is chosen for it"
    if kind == "card" and "bottom" in option and option["bottom"] is None:
        return "the top card is left on top for it"
    if option.get("action") == "hold" or (len(option) == 1 and None in option.values()):
        return _DEFAULTS_PLAYED.get(kind, "it is made to pass")
    return _CARDS_PLAYED.get(kind, "a card is chosen for it")


def cards_in(kind: str, options: Sequence[Mapping[str, Any]],
             context: Mapping[str, Any]) -> list[str]:
    """The card faces a decision involves (its options and its source), each once."""
    faces: list[str] = []
    for option in options:
        for key in ("card", "swap", "trap"):
            value = option.get(key)
            if isinstance(value, str):
                faces.append(value)
    source = context.get("source")
    if isinstance(source, str):
        faces.append(source)
    return list(dict.fromkeys(faces))
