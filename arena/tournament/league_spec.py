"""What a league spec adds to a tournament spec: entries by pattern, and a budget.

A league's ``bots`` may hold shell-style patterns over the registered names (``"*"``: every
registered bot; ``"team-*"``), besides names, paths and ``{bot: ..., name: ..., options:
...}`` entries. The patterns are matched again at every poll, so a bot submitted while the
league runs enters it (docs/LEAGUE.md).
"""

from __future__ import annotations

import fnmatch

from pydantic import BaseModel, ConfigDict, StrictInt, field_validator

from arena.registry import registered_names
from arena.tournament.entries import BotEntry

__all__ = ["LeagueBudget", "expand_patterns", "is_pattern"]


class LeagueBudget(BaseModel):
    """When a league stops on its own: after ``games`` games in all (the table under way
    finishes), or ``minutes`` after a run started. Not part of the spec's hash: raising the
    budget resumes the league."""

    model_config = ConfigDict(extra="forbid")

    games: StrictInt | None = None
    minutes: float | None = None

    @field_validator("games")
    @classmethod
    def _games(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"must be at least 1, got {value}")
        return value

    @field_validator("minutes")
    @classmethod
    def _minutes(cls, value: float | None) -> float | None:
        if value is not None and not value > 0:
            raise ValueError(f"must be greater than 0, got {value}")
        return value


def is_pattern(ref: str) -> bool:
    """Whether a ``bots`` item is a pattern over the registered names."""
    return any(c in ref for c in "*?[")


def expand_patterns(entries: list[str | BotEntry]) -> list[str | BotEntry]:
    """The entries with each pattern replaced by the registered names it matches (sorted),
    a name matched twice kept once."""
    names = registered_names()
    expanded: list[str | BotEntry] = []
    for entry in entries:
        if isinstance(entry, str) and is_pattern(entry):
            expanded.extend(n for n in names if fnmatch.fnmatchcase(n, entry)
                            and n not in expanded)
        elif entry not in expanded:
            expanded.append(entry)
    return expanded
