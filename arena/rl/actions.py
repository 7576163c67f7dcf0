"""The fixed action space: one index per meaning, the same across decisions where it can be.

A decision's legal options are small dicts (``{"action": "play", "card": "God-3"}``,
``{"seat": 2}``, ...); a learner needs one fixed numbering instead. Every option maps to
exactly one index of :data:`N_ACTIONS`, and no two options of one decision share an index
(copies of a card are one option, the engine offers one per face, except where they lie at
two places of a pile: ``COPY`` below). Blocks:

* ``PASS`` (0): the safe default of every decision that has one (hold, no swap, no trigger,
  pass, keep the top card on top);
* ``PLAY + face``, ``SET + face``: a turn's "play this card" and "set this card as a trap";
* ``CARD + face``: "this card" in every other card choice (swap it away, take it, give it,
  discard it, reveal it, sack it);
* ``TRIGGER + slot``: spring the trap in that slot of your Arena;
* ``TARGET + k``: the seat ``k`` places after yours (so a policy is the same in every seat);
* ``SNIPE + k * MAX_TRAPS + slot``: destroy the trap in ``slot`` of the seat ``k`` after yours;
* ``BOTTOM``: move the top card of the draw pile to the bottom;
* ``RPS + i``: throw rock, paper or scissors;
* ``COPY + face``: take the other copy of a card, the one whose option names its ``depth``
  (two copies among the draw pile's top cards or in the Discard Graveyard are two moves,
  RULES.md E26; ``CARD + face`` is the copy nearest the top). Last, so that the indices
  before it mean what they meant before it existed.

Pure Python (no numpy): the kit's bots may import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from arena.engine.cards import FACE_OF, NOTATION
from arena.engine.decision import Decision, Option
from arena.engine.rulebook import MAX_TRAPS
from arena.engine.showdown import RPS_THROWS
from arena.errors import IllegalChoiceError

__all__ = [
    "ACTION_NAMES",
    "BOTTOM",
    "CARD",
    "COPY",
    "FACES",
    "FACE_NAMES",
    "MAX_SEATS",
    "N_ACTIONS",
    "PASS",
    "PLAY",
    "RPS",
    "SET",
    "SNIPE",
    "TARGET",
    "TRIGGER",
    "action_of",
    "decision_actions",
    "option_of",
    "read_only",
    "ReadOnlyOption",
]

#: Distinct card faces (copies of a card share one); ids in card order.
FACES: Final = max(FACE_OF) + 1
FACE_NAMES: Final[tuple[str, ...]] = tuple(
    NOTATION[FACE_OF.index(face)] for face in range(FACES))
_FACE_BY_NAME: Final[dict[str, int]] = {NOTATION[c]: FACE_OF[c] for c in range(len(NOTATION))}
#: The largest table: seat offsets run 0..MAX_SEATS-1.
MAX_SEATS: Final = 5

PASS: Final = 0
PLAY: Final = 1
SET: Final = PLAY + FACES
CARD: Final = SET + FACES
TRIGGER: Final = CARD + FACES
TARGET: Final = TRIGGER + MAX_TRAPS
SNIPE: Final = TARGET + MAX_SEATS
BOTTOM: Final = SNIPE + MAX_SEATS * MAX_TRAPS
RPS: Final = BOTTOM + 1
COPY: Final = RPS + len(RPS_THROWS)
N_ACTIONS: Final = COPY + FACES


def _names() -> tuple[str, ...]:
    names = ["pass"]
    names += [f"play {face}" for face in FACE_NAMES]
    names += [f"set {face}" for face in FACE_NAMES]
    names += [f"card {face}" for face in FACE_NAMES]
    names += [f"trigger slot {slot}" for slot in range(MAX_TRAPS)]
    names += [f"target seat +{k}" for k in range(MAX_SEATS)]
    names += [f"snipe seat +{k} slot {slot}" for k in range(MAX_SEATS)
              for slot in range(MAX_TRAPS)]
    names += ["bottom"]
    names += [f"throw {throw}" for throw in RPS_THROWS]
    names += [f"card {face} (other copy)" for face in FACE_NAMES]
    return tuple(names)


#: A short name per action index (``"play God-3"``, ``"target seat +1"``).
ACTION_NAMES: Final[tuple[str, ...]] = _names()
_THROW: Final[dict[str, int]] = {throw: i for i, throw in enumerate(RPS_THROWS)}


def action_of(option: Option, seat: int, players: int) -> int:
    """The action index of one legal option of a decision asked of ``seat`` at a table of
    ``players``; a shape the engine never offers is a ``ValueError``."""
    if "action" in option:
        what = option["action"]
        if what == "hold":
            return PASS
        face = _FACE_BY_NAME[option["card"]]
        return PLAY + face if what == "play" else SET + face
    for key in ("card", "swap"):
        if key in option:
            card = option[key]
            if card is None:
                return PASS
            return (COPY if "depth" in option else CARD) + _FACE_BY_NAME[card]
    if "seat" in option:
        offset = (int(option["seat"]) - seat) % players
        if "slot" in option:
            return SNIPE + offset * MAX_TRAPS + int(option["slot"])
        return TARGET + offset
    if "trap" in option:
        return PASS if option["trap"] is None else TRIGGER + int(option["slot"])
    if "bottom" in option:
        return PASS if option["bottom"] is None else BOTTOM
    if "throw" in option:
        return RPS + _THROW[option["throw"]]
    raise ValueError(f"no action index for the option {option!r}")


def decision_actions(decision: Decision, players: int) -> list[int]:
    """The action index of each legal option of ``decision``, in option order."""
    seat = decision.seat
    return [action_of(option, seat, players) for option in decision.options]


def option_of(actions: Sequence[int], action: int) -> int:
    """The option index an action stands for in a decision whose options map to
    ``actions``; an action that is not legal there is an :class:`IllegalChoiceError`."""
    try:
        return actions.index(action)
    except ValueError:
        name = f" ({ACTION_NAMES[action]})" if 0 <= action < N_ACTIONS else ""
        raise IllegalChoiceError(f"action {action}{name} is not legal here (the action "
                                 "mask shows the legal ones)") from None


class ReadOnlyOption(dict[str, Any]):
    """A legal option as the environments' structured view hands it out: a dict
    (``option["card"]`` and ``json.dumps`` work as on any) that refuses to be changed. The
    engine's options are shared, cached objects: one edited in place would change every
    later game in the process. ``dict(option)`` is a copy to edit."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a legal option is read-only (dict(option) is a copy to edit)")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return dict(self)

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return dict, (dict(self),)  # a pickle (to another process) is a plain dict


#: How many engine options :func:`read_only` keeps a view of before it starts afresh (the
#: engine's own option objects number a few hundred; anything beyond is options built on the
#: fly).
_KEPT_OPTIONS: Final = 4096
#: The read-only view of each engine option, by the option's id; the options are kept alive
#: alongside, so an id in the table cannot be another object's.
_VIEWS: dict[int, ReadOnlyOption] = {}
_KEPT: list[Option] = []


def read_only(options: Sequence[Option]) -> list[ReadOnlyOption]:
    """The read-only views of a decision's options, each built once per option object: a
    step pays a lookup per option, not a copy."""
    try:
        return [_VIEWS[id(option)] for option in options]
    except KeyError:
        if len(_KEPT) >= _KEPT_OPTIONS:
            _VIEWS.clear()
            _KEPT.clear()
        for option in options:
            if id(option) not in _VIEWS:
                _VIEWS[id(option)] = ReadOnlyOption(option)
                _KEPT.append(option)
        return [_VIEWS[id(option)] for option in options]
