"""House rules: the readings of the rulebook people dispute, selectable per game.

Each rule has a name, a default (the reading RULES.md gives) and its other readings; a game's
:class:`HouseRules` is part of its config, so it is stored with every record and replayed
with it. RULES.md, "House rules", gives every reading and why the default is the default.

Adding a rule: its readings in ``RULE_CHOICES`` (the default first), a help line per reading
in ``RULE_HELP`` and a field of :class:`HouseRules` (the three agree, a test checks it); the
engine reads it as ``state.config.rules.NAME``; RULES.md's "House rules" table and prose. A
rule also grows the learning environments' observation by one entry (the ``RULES`` block of
``arena/rl/features.py``); weights saved by ``arena.rl.policy.Policy`` name the rules they
know, and load with a zero row for each rule added since.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Final

from arena.common.printable import brief_repr
from arena.common.suggest import did_you_mean
from arena.errors import RulesError

__all__ = ["DEFAULT_RULES", "RULE_CHOICES", "RULE_HELP", "HouseRules", "parse_rule",
           "rules_from_texts"]

#: Every house rule and its readings, the default first.
RULE_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "kinds": ("type", "family"),
    "dealt_palaestron": ("play", "redeal"),
    "reclaim": ("today", "strict"),
    "trap_windows": ("any_time", "turn_and_play"),
}

#: One line per rule and reading, for ``arena rules`` and errors.
RULE_HELP: Final[dict[str, dict[str, str]]] = {
    "kinds": {
        "type": "each Class (Agari, Umbrae, Arcoi, Sophoi) is its own kind in a Desmos",
        "family": "all 22 Class cards are one kind, as Gods, Fates and Beasts are",
    },
    "dealt_palaestron": {
        "play": "a dealt Palaestron is played once the deal is done (E2)",
        "redeal": "a dealt Palaestron is replaced at once and shuffled back into the pile",
    },
    "reclaim": {
        "today": "no effect takes a card out of the Effect Graveyard; reshuffled cards count",
        "strict": "a card you used for an effect does not count in your Desmos",
    },
    "trap_windows": {
        "any_time": ("traps answer turns, plays, traps, discarded Gods, the Palaestron and "
                     "the showdown (E10)"),
        "turn_and_play": "traps answer only the start of a turn and a declared play",
    },
}


@dataclass(frozen=True)
class HouseRules:
    """The house rules of one game; every field defaults to RULES.md's reading."""

    kinds: str = "type"
    dealt_palaestron: str = "play"
    reclaim: str = "today"
    trap_windows: str = "any_time"

    def __post_init__(self) -> None:
        for name, choices in RULE_CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                meant = did_you_mean(value, choices) if isinstance(value, str) else ""
                raise RulesError(f"house rule {name} must be one of {', '.join(choices)}, "
                                 f"not {brief_repr(value)}{meant}")

    @property
    def is_default(self) -> bool:
        return self == DEFAULT_RULES

    def changed(self) -> dict[str, str]:
        """The rules that differ from the defaults (what a report names)."""
        return {name: value for name, value in self.to_json().items()
                if value != RULE_CHOICES[name][0]}

    def describe(self) -> str:
        """One line: ``default house rules`` or ``house rules: kinds=family, ...``."""
        changed = self.changed()
        if not changed:
            return "default house rules"
        return "house rules: " + ", ".join(f"{k}={v}" for k, v in changed.items())

    def to_json(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, object] | None) -> HouseRules:
        """Rules from a mapping (a spec's ``rules:`` block, a record's config); unknown names
        and readings are refused with the names that exist."""
        if data is None:
            return DEFAULT_RULES
        if not isinstance(data, Mapping):
            raise RulesError("house rules must be a mapping of NAME: VALUE, "
                             f"not {brief_repr(data)}")
        unknown = sorted(str(k) for k in data if k not in RULE_CHOICES)
        if unknown:
            meant = did_you_mean(unknown[0], RULE_CHOICES)
            raise RulesError(f"no house rule {brief_repr(unknown[0])}{meant}: the house rules are "
                             f"{', '.join(RULE_CHOICES)}")
        return cls(**{str(k): v for k, v in data.items()})  # type: ignore[arg-type]


DEFAULT_RULES: Final = HouseRules()


def parse_rule(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` (as ``--rule`` takes it) as a checked (name, value) pair."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value:
        raise RulesError(f"a house rule is NAME=VALUE (e.g. trap_windows=turn_and_play), "
                         f"not {text!r}")
    HouseRules.from_json({name: value})
    return name, value


def rules_from_texts(texts: Sequence[str] | None) -> HouseRules:
    """House rules from ``--rule NAME=VALUE`` texts (none: the defaults); a rule given twice
    is refused."""
    chosen: dict[str, str] = {}
    for text in texts or ():
        name, value = parse_rule(text)
        if name in chosen and chosen[name] != value:
            raise RulesError(f"house rule {name} given twice ({chosen[name]} and {value})")
        chosen[name] = value
    return HouseRules.from_json(chosen)
