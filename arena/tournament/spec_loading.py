"""A tournament spec's loading: a YAML file read, its fields checked and its bots resolved
into a :class:`~arena.tournament.spec.TournamentSpec`.

Every mistake becomes one line naming the field and what is wrong, collected into a single
:class:`~arena.errors.SpecError` (the CLI prints it as ``Error: ...``, never a traceback), so
a user fixes all of them in one go. Bots are resolved through :mod:`arena.registry` at load
time: an unknown bot is a spec error, not a crash in the middle of a run.

It sits above :mod:`arena.tournament.spec` (the model it fills) and the modules of the spec's
parts (entries, league budget, deal book, overrides, problems), and below everything that
plays or shows a spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import yaml
from pydantic import ValidationError

from arena.common.printable import shell_word
from arena.common.yamlfile import UniqueKeyLoader, yaml_problem
from arena.errors import BotError, SpecError
from arena.registry import SAMPLE_BOTS_DIR, BotSpec, expanded
from arena.tournament.dealbook import read_deal_book
from arena.tournament.entries import (
    distinct_entrants,
    entrant_name_problems,
    resolve_entry,
    unknown_bots,
)
from arena.tournament.field_changes import field_problems
from arena.tournament.league_spec import expand_patterns
from arena.tournament.overrides import overridden
from arena.tournament.spec import TournamentSpec
from arena.tournament.spec_problems import problem_lines
from arena.tournament.store import DEFAULT_RESULTS

__all__ = ["load_spec", "spec_from_mapping"]

#: The spec's own fields, for an unknown one's message.
_FIELDS = tuple(TournamentSpec.model_fields)


def _resolved_entries(spec: TournamentSpec, base: Path | None,
                      stand_ins: Mapping[int, BotSpec]
                      ) -> tuple[dict[str, BotSpec], dict[int, Any], list[str], frozenset[str]]:
    """Every bot of the spec resolved, by its field (``bots[2]``), the entries of ``bots``
    that cannot be (by index, as written), their problems, and the keys of the stand-ins
    used. A bot withdrawn whose files are gone is its stand-in from the stored tournament
    (``stand_ins``, by index)."""
    problems: list[str] = []
    resolved: dict[str, BotSpec] = {}
    missing: dict[int, Any] = {}
    gone: set[str] = set()
    bots_refs = expand_patterns(spec.bots) if spec.format == "league" else spec.bots
    for field, refs in (("challengers", spec.challengers), ("bots", bots_refs)):
        for i, ref in enumerate(refs):
            try:
                resolved[f"{field}[{i}]"] = resolve_entry(ref, base)
            except BotError as exc:
                stand_in = stand_ins.get(i) if field == "bots" else None
                if stand_in is not None and stand_in.name in spec.withdrawn:
                    resolved[f"{field}[{i}]"] = stand_in
                    gone.add(stand_in.key)
                    continue
                if field == "bots":
                    missing[i] = ref if isinstance(ref, str) else ref.model_dump(mode="json")
                problems.append(f"{field}[{i}]: {exc}")
    return resolved, missing, problems, frozenset(gone)


def _check_entrants(spec: TournamentSpec, resolved: dict[str, BotSpec]
                    ) -> tuple[list[str], list[BotSpec], int]:
    """Check the resolved field can fill the tables; returns problems, the entrants in
    entry order and how many of them are challengers."""
    bots_refs = expand_patterns(spec.bots) if spec.format == "league" else spec.bots
    challengers = [resolved[f"challengers[{i}]"] for i in range(len(spec.challengers))]
    bots = [resolved[f"bots[{i}]"] for i in range(len(bots_refs))]
    entrants, problems = distinct_entrants([("challengers", challengers), ("bots", bots)])
    listed = not problems  # else the count of entrants is not the one the user meant
    k = max(spec.table_sizes)
    if spec.format == "swiss" and len(spec.table_sizes) > 1:
        problems.append("players_per_game: Swiss pairs one table size a round; give one "
                        f"number, not {list(spec.table_sizes)}")
    if spec.format == "gauntlet":
        if not spec.challengers:
            problems.append("challengers: required for format gauntlet (the bots that play "
                            "against the field)")
        opponents = len(entrants) - len(challengers)
        if spec.challengers and listed and opponents < k - 1:
            problems.append(f"bots: a gauntlet at tables of {k} needs at least {k - 1} "
                            f"opponent(s) besides the challengers, got {opponents}")
    else:
        if spec.challengers:
            problems.append(f"challengers: only used by format gauntlet, not {spec.format}")
        if listed and len(entrants) < k:
            problems.append(f"bots: {len(entrants)} bot(s) cannot fill tables of {k} players "
                            f"(need at least {k})")
    if spec.budget is not None and spec.format != "league":
        problems.append(f"budget: only used by format league, not {spec.format}")
    if spec.tables_at_once != 1 and spec.format != "league":
        problems.append(f"tables_at_once: only used by format league, not {spec.format}")
    if spec.deals is not None and spec.format == "league":
        # a league deals the book over and over while its games are shown and new versions
        # enter: an author could submit a bot that knows every hand of a deal seen played
        problems.append("deals: a league takes no deal book (it would deal the book's deals "
                        "again to versions submitted after those games were shown)")
    if spec.format == "swiss" and spec.rounds is None:
        problems.append("rounds: required for format swiss (how many rounds to pair)")
    for field in ("withdrawn", "joined"):
        if getattr(spec, field) and spec.format != "swiss":
            problems.append(f"{field}: only used by format swiss, not {spec.format}")
    if spec.format == "swiss" and spec.rounds is not None and listed:
        problems.extend(field_problems([b.name for b in entrants], spec.withdrawn,
                                       spec.joined, spec.rounds, k))
    return problems, entrants, len(challengers)


def spec_from_mapping(data: Any, *, source: Path | None = None,
                      overrides: Mapping[str, Any] | None = None,
                      stand_ins: Mapping[int, BotSpec] | None = None) -> TournamentSpec:
    """Validate parsed YAML; every problem is one line of the :class:`SpecError`.
    ``overrides`` (field -> value, ``limits.NAME`` for a limit) replace the file's values
    and are recorded with the spec (:attr:`TournamentSpec.overrides`); ``stand_ins``
    (``bots`` index -> the stored bot) stand for withdrawn bots whose files are gone."""
    where = str(source) if source is not None else "the tournament spec"
    if not isinstance(data, dict):
        got = "an empty file" if data is None else f"a {type(data).__name__}"
        raise SpecError(f"{where}: a tournament spec must be a YAML mapping "
                        f"(name: ..., format: ..., bots: [...]), got {got}")
    data = overridden(data, overrides or {})
    problems: list[str] = []
    missing: list[str] = []
    unresolved: dict[int, Any] = {}
    spec: TournamentSpec | None = None
    try:
        spec = TournamentSpec.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            problems.extend(problem_lines(error, _FIELDS))
        missing = unknown_bots(data, source.parent if source is not None else None)
        problems.extend(missing)
    if spec is not None:
        base = source.parent if source is not None else None
        resolved, unresolved, missing, gone = _resolved_entries(spec, base, stand_ins or {})
        entrants: list[BotSpec] = []
        challengers = 0
        if missing:
            problems.extend(missing)
        else:
            field_problems_found, entrants, challengers = _check_entrants(spec, resolved)
            problems.extend(field_problems_found)
        deal_seeds, deal_problems = _read_deals(spec, base)
        problems.extend(deal_problems)
        spec.record_loading(entrants=entrants, challengers=challengers, gone=gone,
                            name_problems=entrant_name_problems(resolved, entrants),
                            source=source, overrides=overrides or {}, deal_seeds=deal_seeds)
    if problems:
        lines = "\n".join(f"  {p}" for p in problems)
        raise SpecError(f"{where} is not a valid tournament spec:\n{lines}",
                        stored_as=_stored_as(data) if missing else None, missing=unresolved,
                        rounds=data.get("rounds") if type(data.get("rounds")) is int else None)
    assert spec is not None
    return spec


def _stored_as(data: dict[str, Any]) -> tuple[str, str] | None:
    """The name and results database of a spec whose bots were not found, as its file gives
    them (:attr:`SpecError.stored_as`), when they are text."""
    name, results = data.get("name"), data.get("results", DEFAULT_RESULTS)
    if isinstance(name, str) and isinstance(results, str):
        return name, expanded(results)
    return None


def _read_deals(spec: TournamentSpec, base: Path | None) -> tuple[tuple[int, ...], list[str]]:
    """Load the spec's deal book (relative to the spec's directory): its deals and its
    problem, if any."""
    if spec.deals is None:
        return (), []
    path = Path(expanded(spec.deals))  # as a shell would: no shell reads a spec
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        return read_deal_book(path), []
    except SpecError as exc:
        return (), [f"deals: {exc}"]


#: Far above any spec written by hand or by a script (a field of thousands of bots)
_MAX_SPEC_BYTES: Final = 4 * 2**20


def _sample_spec_hint(file: Path) -> str:
    """Where the arena's own spec of that name lies, for a user who typed a shipped spec's
    path (``tournaments/league.yaml``) in a directory of their own; empty for none."""
    samples = SAMPLE_BOTS_DIR.parent / "tournaments"
    sample = samples / file.name
    if file.is_absolute() or file.parent.name not in ("", "tournaments") or not sample.is_file():
        return ""
    return (f" (the arena's sample specs are in {shell_word(str(samples))}: arena run "
            f"{shell_word(str(sample))})")


def load_spec(path: str | Path, overrides: Mapping[str, Any] | None = None,
              stand_ins: Mapping[int, BotSpec] | None = None) -> TournamentSpec:
    """Read, parse and validate a tournament spec file (see :func:`spec_from_mapping`), with
    the command line's ``overrides`` of its fields and the ``stand_ins`` of withdrawn bots
    whose files are gone."""
    file = Path(path)
    if not file.exists():
        raise SpecError(f"no tournament spec at {file}{_sample_spec_hint(file)}")
    if file.is_dir():
        raise SpecError(f"{file} is a directory, not a tournament spec (a .yaml file)")
    try:
        with open(file, "rb") as handle:  # a device or a pipe may never end: read a spec's worth
            raw = handle.read(_MAX_SPEC_BYTES + 1)
        if len(raw) > _MAX_SPEC_BYTES:
            raise SpecError(f"{file} is over {_MAX_SPEC_BYTES // 2**20} MiB: not a tournament "
                            "spec (a short YAML file)")
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise SpecError(f"cannot read tournament spec {file}: {reason}") from None
    try:
        data = yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        problem = yaml_problem(exc)
        raise SpecError(f"{file} {problem}" if problem.startswith("line ")
                        else f"{file}: {problem}") from None
    except RecursionError:  # brackets opened thousands deep: deeper than PyYAML's recursion
        raise SpecError(f"{file}: invalid YAML: its lists or mappings are nested too deeply "
                        "to read") from None
    return spec_from_mapping(data, source=file, overrides=overrides, stand_ins=stand_ins)
