"""A tournament spec's ``rating`` section: the TrueSkill parameters its leaderboard uses,
checked when the spec is read (a value out of range would overflow TrueSkill's arithmetic
after the first game, not at the start)."""

from __future__ import annotations

from typing import Annotated

import trueskill
from pydantic import BaseModel, ConfigDict, Strict, field_validator, model_validator

from arena.tournament.scoring import rating_parameters

__all__ = ["RatingSpec"]

#: A number as YAML writes one (an integer or a float; not "25", not true), like the spec's
#: integers (StrictInt).
_Number = Annotated[float, Strict()]
#: The range of TrueSkill's parameters a spec may give (beyond it the arithmetic overflows).
_RATING_MIN, _RATING_MAX = 1e-3, 1e6


class RatingSpec(BaseModel):
    """TrueSkill parameters; a missing one is filled in by
    :func:`~arena.tournament.scoring.rating_parameters` (``sigma = mu / 3``, ``beta = sigma / 2``,
    ``tau = 0``: bots do not drift; draw probability 0.10), as the rating layer does."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    mu: _Number = trueskill.MU
    sigma: _Number | None = None
    beta: _Number | None = None
    tau: _Number | None = None
    draw_probability: _Number = trueskill.DRAW_PROBABILITY

    @field_validator("sigma", "beta")
    @classmethod
    def _positive(cls, value: float | None) -> float | None:
        if value is not None and not value > 0:
            raise ValueError(f"must be greater than 0, got {value}")
        return value

    @field_validator("tau")
    @classmethod
    def _non_negative(cls, value: float | None) -> float | None:
        if value is not None and value < 0:
            raise ValueError(f"must be 0 or more, got {value}")
        return value

    @field_validator("draw_probability")
    @classmethod
    def _probability(cls, value: float) -> float:
        if not 0 <= value < 1:
            raise ValueError(f"must be at least 0 and below 1, got {value}")
        return value

    @model_validator(mode="after")
    def _in_range(self) -> RatingSpec:
        """The filled-in values too, now rather than after every game: a ``mu`` of 0 or less
        leaves ``sigma = mu / 3`` at 0 or below, and a huge or tiny value overflows
        TrueSkill's arithmetic."""
        problems = []
        if not abs(self.mu) <= _RATING_MAX:
            problems.append(f"rating.mu: must be between -{_RATING_MAX:g} and {_RATING_MAX:g}, "
                            f"got {self.mu:g}")
        filled = self.resolved()
        for key, rule in (("sigma", "mu / 3"), ("beta", "sigma / 2")):
            if not _RATING_MIN <= filled[key] <= _RATING_MAX:
                how = "" if getattr(self, key) is not None else f" ({rule} when not given)"
                problems.append(f"rating.{key}: must be between {_RATING_MIN:g} and "
                                f"{_RATING_MAX:g}{how}, got {filled[key]:g}")
        if filled["tau"] > _RATING_MAX:
            problems.append(f"rating.tau: must be at most {_RATING_MAX:g}, got "
                            f"{filled['tau']:g}")
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def resolved(self) -> dict[str, float]:
        """All five parameters, the missing ones filled in from ``mu``."""
        return rating_parameters(self.mu, self.sigma, self.beta, self.tau,
                                 self.draw_probability)
