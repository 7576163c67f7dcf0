"""The tournament spec's model: :class:`TournamentSpec`, its fields, each field's own checks,
the values derived from them and its hash.

A spec is made by :mod:`arena.tournament.spec_loading`, which reads the YAML, checks the
fields together, resolves the bots and records them here; this module sits below it, above
the modules of the spec's parts (entries, league budget, rating, deal book).

The spec's *hash* covers everything that decides the games (format, entrants by
``name@version``, table size, seeds, limits, rating, ...), but not how the run is carried out
(``workers``, ``backend``, ``results``): a changed hash under a stored name is refused.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    StrictInt,
    ValidationInfo,
    field_validator,
)

from arena.common.printable import brief_repr
from arena.common.suggest import did_you_mean
from arena.engine.houserules import HouseRules
from arena.errors import RulesError, SandboxError
from arena.referee.match import PONDER, split_limits
from arena.registry import BotSpec
from arena.sandbox import Limits
from arena.tournament.dealbook import book_digest
from arena.tournament.entries import (
    NAME_CHARS,
    BotEntry,
    exposed_deals,
    is_sample_bot,
    read_entry,
    shown_value,
    valid_name,
)
from arena.tournament.field_changes import active_entries
from arena.tournament.league_spec import LeagueBudget, is_pattern
from arena.tournament.rating_spec import RatingSpec
from arena.tournament.store import DEFAULT_RESULTS

__all__ = ["TournamentSpec"]

_LIMIT_FIELDS = (*(f.name for f in dataclasses.fields(Limits)), PONDER)
#: The seatings `duplicate` names besides true and false.
_DUPLICATE_MODES = ("rotations", "permutations")


#: The most of each count a spec may ask for.
_COUNT_MAX = {"games_per_match": 10_000, "rounds": 1_000, "max_tables": 10_000,
              "tables_at_once": 64}


class TournamentSpec(BaseModel):
    """A tournament as written in YAML (see docs/TOURNAMENTS.md for every field)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    format: Literal["round_robin", "swiss", "gauntlet", "league"]
    bots: list[str | BotEntry]
    challengers: list[str | BotEntry] = Field(default_factory=list)
    players_per_game: StrictInt | list[StrictInt] = 2
    games_per_match: StrictInt = 2
    rounds: StrictInt | None = None
    #: Decides every deal. Left out, a secret one is drawn when the tournament is created
    #: (stored with the results): whoever knows the seed can compute every hidden card.
    seed: StrictInt | None = None
    limits: dict[str, StrictInt | StrictBool] = Field(default_factory=dict)
    workers: StrictInt | None = None
    rating: RatingSpec = Field(default_factory=RatingSpec)
    event_date: dt.date | None = None
    duplicate: StrictBool | Literal["rotations", "permutations"] = False
    backend: Literal["local", "ray"] = "local"
    #: How the run is carried out, not what it plays: keep a bot's process between the
    #: tables a worker plays (when it offers a rematch); each worker and its bots on a CPU.
    reuse_bots: StrictBool = True
    pin_workers: StrictBool = False
    results: str = DEFAULT_RESULTS
    max_tables: StrictInt = 500
    #: House rules (RULES.md "House rules"), NAME: VALUE; left out, the defaults.
    rules: dict[str, Any] = Field(default_factory=dict)
    #: A deal book (arena.tournament.dealbook), relative to the spec's directory.
    deals: str | None = None
    #: League only: when to stop on its own (docs/LEAGUE.md); left out, only when told to.
    budget: LeagueBudget | None = None
    #: League only: tables chosen together and played in parallel (docs/LEAGUE.md).
    tables_at_once: StrictInt = 1
    #: Swiss only: entrants no longer paired from the round given, by name (their games
    #: stay); entrants first paired in the round given (arena.tournament.field_changes).
    withdrawn: dict[str, StrictInt] = Field(default_factory=dict)
    joined: dict[str, StrictInt] = Field(default_factory=dict)

    _entrants: list[BotSpec] = PrivateAttr(default_factory=list)
    _name_problems: list[str] = PrivateAttr(default_factory=list)
    _challengers: int = PrivateAttr(default=0)
    _source: Path | None = PrivateAttr(default=None)
    _deal_seeds: tuple[int, ...] = PrivateAttr(default=())
    _overrides: dict[str, Any] = PrivateAttr(default_factory=dict)
    _gone: frozenset[str] = PrivateAttr(default=frozenset())

    @field_validator("bots", "challengers", mode="before")
    @classmethod
    def _entries(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, list):
            return value  # pydantic reports the type
        problems: list[str] = []
        entries: list[str | BotEntry] = []
        for i, item in enumerate(value):
            try:
                entries.append(read_entry(item, f"{info.field_name}[{i}]"))
            except ValueError as exc:
                problems.extend(str(exc).split("\n"))
        if problems:
            raise ValueError("\n".join(problems))
        return entries

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not valid_name(value):
            raise ValueError(f"must be 1-60 {NAME_CHARS}, starting with a letter or digit; "
                             f"got {brief_repr(value)}")
        return value

    @field_validator("results")
    @classmethod
    def _results(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(f"must name the results database file (default "
                             f"{DEFAULT_RESULTS}), got {brief_repr(value)}")
        # no shell reads a spec: '~/cup.db' made a directory named '~' in the working one
        return os.path.expanduser(value)

    @field_validator("players_per_game", mode="before")
    @classmethod
    def _players_shape(cls, value: Any) -> Any:
        """One message for a value of the wrong kind (not one per branch of the union)."""
        def size(item: Any) -> bool:
            return isinstance(item, int) and not isinstance(item, bool)

        if size(value) or (isinstance(value, list) and all(size(k) for k in value)):
            return value
        if isinstance(value, list):  # the item that is no size: "got a list" named none
            bad = next(k for k in value if not size(k))
            raise ValueError("must be a table size (2-5) or a list of them, got a list "
                             f"holding {shown_value(bad)}")
        raise ValueError(f"must be a table size (2-5) or a list of them, got {shown_value(value)}")

    @field_validator("players_per_game")
    @classmethod
    def _players(cls, value: int | list[int]) -> int | list[int]:
        sizes = [value] if isinstance(value, int) else value
        if not sizes:
            raise ValueError("give a table size, or a list of them")
        for k in sizes:
            if not 2 <= k <= 5:
                raise ValueError(f"must be between 2 and 5 (Palaestra's table sizes), got {k}")
        if len(set(sizes)) != len(sizes):
            raise ValueError(f"lists a table size twice: {sizes}")
        return value

    @property
    def table_sizes(self) -> tuple[int, ...]:
        """The table sizes played: one, or several for a ladder that mixes them (round-robin
        and gauntlet schedule every size in each cycle)."""
        value = self.players_per_game
        return (value,) if isinstance(value, int) else tuple(value)

    @field_validator("duplicate", mode="before")
    @classmethod
    def _duplicate(cls, value: Any) -> Any:
        if value is True or value is False or value in _DUPLICATE_MODES:
            return value
        meant = did_you_mean(value, _DUPLICATE_MODES) if isinstance(value, str) else ""
        raise ValueError("must be true, false, rotations or permutations; "
                         f"got {brief_repr(value)}{meant}")

    @field_validator("games_per_match", "max_tables", "rounds", "tables_at_once")
    @classmethod
    def _count(cls, value: int | None, info: ValidationInfo) -> int | None:
        """At least 1, and at most a bound past which a value is a typo: the plan of a
        hundred million rounds would fill the disk before the first game."""
        top = _COUNT_MAX[str(info.field_name)]
        if value is not None and not 1 <= value <= top:
            raise ValueError(f"must be between 1 and {top:,}, got {value:,}")
        return value

    @field_validator("workers")
    @classmethod
    def _workers(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError(f"must be at least 1, got {value}")
        return value

    @field_validator("seed")
    @classmethod
    def _seed(cls, value: int | None) -> int | None:
        if value is not None and not 0 <= value < 2**63:
            raise ValueError(f"must be between 0 and 2**63 - 1, got {value}")
        return value

    @field_validator("rules", mode="before")
    @classmethod
    def _rules(cls, value: Any) -> Any:
        if value is None:
            return {}
        try:
            HouseRules.from_json(value)
        except RulesError as exc:
            raise ValueError(str(exc)) from None
        return value

    def house_rules(self) -> HouseRules:
        return HouseRules.from_json(self.rules)

    @field_validator("limits", mode="before")
    @classmethod
    def _limits(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, dict):
            return value  # pydantic reports the type
        problems = []
        for key, item in value.items():
            if key == PONDER:
                if not isinstance(item, bool):
                    problems.append(f"limits.{key}: must be true or false, got {brief_repr(item)}")
            elif key not in _LIMIT_FIELDS:
                problems.append(f"limits.{key}: unknown limit{did_you_mean(key, _LIMIT_FIELDS)}"
                                f" (known: {', '.join(_LIMIT_FIELDS)})")
            elif isinstance(item, bool) or not isinstance(item, int):
                problems.append(f"limits.{key}: must be an integer, got {brief_repr(item)}")
            else:  # each value on its own, so that every bad one is named at once
                try:
                    Limits.from_mapping({key: item})
                except SandboxError as exc:
                    problems.append(_limit_message(str(exc)))
        if problems:
            raise ValueError("\n".join(problems))
        return value

    def record_loading(self, *, entrants: list[BotSpec], name_problems: list[str],
                       challengers: int, gone: frozenset[str], source: Path | None,
                       overrides: Mapping[str, Any], deal_seeds: tuple[int, ...]) -> None:
        """Keep what loading found beyond the fields (:mod:`arena.tournament.spec_loading`
        calls it once the fields are valid, before it checks them together, and throws the
        spec away if that fails): its bots resolved, where it was read from, the command
        line's overrides and the deal book's deals."""
        self._entrants = list(entrants)
        self._name_problems = list(name_problems)
        self._challengers = challengers
        self._gone = gone
        self._source = source
        self._overrides = {k: v for k, v in overrides.items() if v is not None}
        self._deal_seeds = deal_seeds

    # ------------------------------------------------------------------ derived values
    @property
    def entrants(self) -> list[BotSpec]:
        """Resolved bots in entry order: the challengers first (gauntlet), then ``bots``."""
        return list(self._entrants)

    def with_entrants(self, entrants: list[BotSpec]) -> TournamentSpec:
        """This spec with ``entrants`` resolved in place of its own (the same entries: a
        version kept by ``arena submit --update`` for the one its name resolves to now)."""
        copy = self.model_copy()
        copy._entrants = list(entrants)
        return copy

    @property
    def name_problems(self) -> list[str]:
        """The entrants whose names a new tournament refuses, one line each (a stored one
        may hold them: it resumes)."""
        return list(self._name_problems)

    def exposure_warning(self) -> str | None:
        """Why this spec's deals could be known to a bot (:func:`exposed_deals`), if so; in
        a league that others' bots may enter, also a seed written in the spec: shown while
        the league runs, it decides every later deal as new versions enter."""
        exposed = exposed_deals(self.seed, self._deal_seeds, self._entrants)
        if exposed is not None or self.format != "league" or self.seed is None:
            return exposed
        patterns = any(isinstance(ref, str) and is_pattern(ref) for ref in self.bots)
        if not patterns and all(is_sample_bot(bot) for bot in self._entrants):
            return None
        return ("a league's seed written in its spec is shown while it runs (arena status, "
                "the site) and decides every later deal, while new versions of its bots "
                "enter: an author who reads it could submit a bot that knows them. Leave "
                "'seed' out (a secret one is drawn and never shown).")

    @property
    def gone(self) -> frozenset[str]:
        """The keys of withdrawn entrants whose files are gone, taken from the stored
        tournament (:mod:`arena.tournament.gone_entrants`): never started again."""
        return self._gone

    @property
    def source(self) -> Path | None:
        """The YAML file the spec was loaded from (for the resume hint)."""
        return self._source

    @property
    def deal_seeds(self) -> tuple[int, ...]:
        """The deal book's deals, in order (empty without ``deals``)."""
        return self._deal_seeds

    @property
    def overrides(self) -> dict[str, Any]:
        """The fields the command line set over the file's (``limits.decision_ms``: a
        limit; :mod:`arena.tournament.overrides`)."""
        return dict(self._overrides)

    @property
    def challenger_indices(self) -> list[int]:
        """Entrant indices of the gauntlet challengers (they come first in entry order)."""
        return list(range(self._challengers))

    def effective_workers(self, override: int | None = None) -> int:
        """Worker processes to use: the override, the spec's value, else every core."""
        return override or self.workers or os.cpu_count() or 1

    def effective_rounds(self) -> int:
        """Rounds to play: Swiss rounds, or round-robin/gauntlet cycles (default 1)."""
        return self.rounds or 1

    def round_field(self, round_no: int) -> list[int]:
        """The entry indices paired in Swiss round ``round_no`` (every entrant but those
        withdrawn by then or joining later)."""
        return active_entries([b.name for b in self._entrants], self.withdrawn, self.joined,
                              round_no)

    def limits_object(self) -> Limits:
        return split_limits(self.limits)[0]

    @property
    def ponder(self) -> bool:
        """Whether bots may run while not asked (``limits: {ponder: true}``; default off)."""
        return split_limits(self.limits)[1]

    def canonical(self) -> dict[str, Any]:
        """What decides the games, as plain JSON: the input of :meth:`spec_hash`."""
        return {
            "name": self.name,
            "format": self.format,
            # a league's entrants come and go: its entry rule is what it was made with
            "entrants": ([b if isinstance(b, str) else b.model_dump() for b in self.bots]
                         if self.format == "league" else [b.key for b in self._entrants]),
            "challengers": self._challengers,
            "players_per_game": self.players_per_game,
            "games_per_match": self.games_per_match,
            "rounds": self.effective_rounds(),
            "seed": self.seed,
            "limits": {**self.limits_object().to_json(),
                       **({PONDER: True} if self.ponder else {})},
            "rating": self.rating.resolved(),
            "event_date": self.event_date.isoformat() if self.event_date else None,
            "duplicate": self.duplicate,
            "max_tables": self.max_tables,
            **({"tables_at_once": self.tables_at_once} if self.format == "league" else {}),
            # only when chosen: specs without house rules keep the hash they always had
            **({} if self.house_rules().is_default else {"rules": self.house_rules().to_json()}),
            # the deals themselves, not the file's name; only with a book, as for the rules
            **({"deals": book_digest(self._deal_seeds)} if self._deal_seeds else {}),
            # a Swiss field that changes between rounds; only when it does, as for the rules
            **{field: dict(sorted(changes.items())) for field, changes
               in (("withdrawn", self.withdrawn), ("joined", self.joined)) if changes},
        }

    def spec_hash(self) -> str:
        """sha256 (16 hex digits) of :meth:`canonical`; equal hashes play equal games."""
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        """The spec as stored with the tournament (the rating layer reads ``rating`` here)."""
        data = self.model_dump(mode="json")
        data["rating"] = self.rating.resolved()
        data["entrants"] = [b.key for b in self._entrants]
        data["spec_hash"] = self.spec_hash()
        if self._overrides:
            data["overrides"] = self.overrides
        return data


def _limit_message(text: str) -> str:
    # Limits says "limit decision_ms must be positive, got 0"
    if text.startswith("limit ") and " " in text[6:]:
        name, rest = text[6:].split(" ", 1)
        return f"limits.{name}: {rest}"
    return f"limits: {text}"
