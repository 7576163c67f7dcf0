"""A tournament spec's bot entries: each entry read (a reference, or a bot under another name
or with options), resolved through :mod:`arena.registry` (a relative path also from the spec's
directory), and the field checked for bots listed twice or names taken twice (or look-alikes)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from arena.common.lookalike import disguise, skeletons, spelled
from arena.common.names import name_problem
from arena.common.printable import brief_repr
from arena.common.suggest import did_you_mean
from arena.errors import BotError
from arena.registry import (
    SAMPLE_BOTS_DIR,
    BotSpec,
    expanded,
    option_problems,
    registered_names,
    require_named_options,
    resolve,
    spec_from_path,
    submitted,
)
from arena.registry.environments import with_environment

__all__ = [
    "NAME_CHARS",
    "SHORT_SEED",
    "BotEntry",
    "distinct_entrants",
    "entrant_name_problems",
    "exposed_deals",
    "is_sample_bot",
    "read_entry",
    "resolve_entry",
    "resolve_files",
    "shown_value",
    "unknown_bots",
    "valid_name",
]

#: What a name may be made of, as a spec problem says it.
NAME_CHARS = "ASCII letters (a-z, A-Z), digits, '_', '-' or '.'"


class BotEntry(BaseModel):
    """A bot entered under another name or with options: ``{bot: random, name: random-2}``
    (two copies of one bot at a table; ratings and results keep them apart) or
    ``{bot: ismcts, options: {iterations: 250}}`` (settings sent to the bot in ``hello``; the
    version then names them, so differently set copies are rated apart)."""

    model_config = ConfigDict(extra="forbid")

    bot: str
    name: str | None = None
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.bot} as {self.name}" if self.name else self.bot


def read_entry(value: Any, where: str) -> str | BotEntry:
    """One item of ``bots``/``challengers``: a reference, or a mapping with ``bot`` and a
    ``name``, ``options`` or both; raises ValueError lines naming the item."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, dict):
        problems = []
        known = ("bot", "name", "options")
        unknown = sorted(set(value) - set(known), key=str)
        if unknown:
            told = ", ".join(f"{key}{did_you_mean(str(key), known)}" for key in unknown)
            problems.append(f"{where}: unknown key(s) {told} "
                            "(an entry is a bot reference, or {bot: REF, name: NAME, "
                            "options: {...}})")
        bot = value.get("bot")
        if not isinstance(bot, str) or not bot.strip():
            problems.append(f"{where}.bot: is required (a non-empty string)")
        name = value.get("name")
        if "name" in value:
            if not isinstance(name, str) or not name.strip():
                # what else a name may be is asked of a new tournament's entrants alone
                # (entrant_name_problems): a stored one may hold a name from before the rule
                problems.append(f"{where}.name: must be a non-empty string")
        options: dict[str, Any] = {}
        if "options" in value:
            bad = option_problems(value["options"], f"{where}.options")
            problems.extend(bad)
            if not bad:
                options = dict(value["options"])
        if "name" not in value and "options" not in value and not unknown:
            problems.append(f"{where}: give a name, options or both (a bare bot is written "
                            "as its reference)")
        if problems:
            raise ValueError("\n".join(problems))
        return BotEntry(bot=str(bot).strip(),
                        name=name.strip() if isinstance(name, str) else None, options=options)
    raise ValueError(f"{where}: must be a bot name or path (or {{bot: REF, name: NAME, "
                     f"options: {{...}}}}), got {shown_value(value)}")


def valid_name(value: str) -> bool:
    """Whether ``value`` may name a tournament (1-60 :data:`NAME_CHARS`, starting with a
    letter or digit); a bot's name has its own rule (:mod:`arena.common.names`)."""
    return 1 <= len(value) <= 60 and value[0].isalnum() and all(
        c.isascii() and (c.isalnum() or c in "_-.") for c in value)


def shown_value(value: Any) -> str:
    """A value from the YAML as a spec problem quotes it (a mapping or a list by its kind)."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dt.date):  # YAML reads 2026-12-01 10:00 as a datetime
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    return brief_repr(value)


#: Seeds below this can be searched by a bot within a game (a hash or two per try).
SHORT_SEED = 2**48


def exposed_deals(seed: int | None, deal_seeds: Sequence[int],
                  bots: Sequence[BotSpec], *, match: bool = False) -> str | None:
    """Why a bot could know the deals of a match or tournament, if one other than the shipped
    samples plays: every game seed and each ``bot_seed`` a bot is sent is a public function of
    a short ``seed`` (a bot tries seeds until one gives its ``bot_seed``); a deal book's deals
    are known to whoever holds the book, and its short ones to any bot that tries seeds
    against its own hand. For a ``match`` a short seed is told as the command line's to
    leave out, and as fine where nothing is at stake (a match is mostly an author's try)."""
    if all(is_sample_bot(bot) for bot in bots):
        return None
    if deal_seeds:
        short = sorted({deal for deal in deal_seeds if deal < SHORT_SEED})
        guessed = (f", and {len(short)} of its deals are short (such as {short[0]}): a bot "
                   "could find those by trying seeds against its own hand" if short else "")
        return (f"the deal book's deals are known to whoever holds the book{guessed}. For a "
                "contest use a private book of seeds of 15 digits or more.")
    if seed is not None and seed < SHORT_SEED and match:
        return (f"seed {seed} is short, which is fine for trying bots out; but a bot could "
                "find it by trying seeds against the bot_seed it is sent, and then know every "
                "hand, so for a match that must be fair leave --seed out (a secret one is "
                "drawn, and printed after the match to replay it).")
    if seed is not None and seed < SHORT_SEED:
        return (f"seed {seed} is short: a bot could find it by trying seeds against the "
                "bot_seed it is sent, and then know every hand. For a contest leave 'seed' "
                "out (a secret one is drawn, kept with the results and shown once the tournament "
                "finishes; a seed the spec writes, however long, is shown by arena status and "
                "the site from the start).")
    return None


def is_sample_bot(bot: BotSpec) -> bool:
    """A shipped sample bot, unchanged (nobody's contest entry: a short seed is fine for
    it): the files of the sample of its file name, wherever this copy sits (a clone's own
    ./bots shadows the installed arena's), and not a bot someone submitted under that name."""
    samples = SAMPLE_BOTS_DIR
    sample = samples / bot.path.name
    if not sample.exists() or bot.name in (submitted(samples) if samples.is_dir() else {}):
        return False
    try:
        return spec_from_path(sample).files_digest == bot.files_digest
    except BotError:
        return False


def unknown_bots(data: dict[str, Any], base: Path | None) -> list[str]:
    """Bots that cannot be resolved, reported even when other fields are wrong too."""
    problems = []
    for field in ("challengers", "bots"):
        refs = data.get(field)
        if not isinstance(refs, list):
            continue
        for i, ref in enumerate(refs):
            if isinstance(ref, dict):
                ref = ref.get("bot")
            if not isinstance(ref, str) or not ref.strip() or any(c in ref for c in "*?["):
                continue  # a league's pattern is matched once the spec is valid
            try:
                resolve_files(ref.strip(), base)
            except BotError as exc:
                problems.append(f"{field}[{i}]: {exc}")
    return problems


def resolve_entry(entry: str | BotEntry, base: Path | None) -> BotSpec:
    """A bot reference; a relative path is tried from the working directory, then from the
    spec file's directory (so a spec can sit next to its bots). An entry with its own name
    keeps the bot's files and version under that name; one with options carries them and a
    version that names them."""
    if isinstance(entry, BotEntry):
        bot = require_named_options(entry.bot, with_environment(
            resolve_files(entry.bot, base)).with_options(entry.options))
        return dataclasses.replace(bot, name=entry.name) if entry.name else bot
    return require_named_options(entry, with_environment(resolve_files(entry, base)))


def resolve_files(ref: str, base: Path | None) -> BotSpec:
    """The bot ``ref`` names: registered, or a path from here, else from ``base``; a path
    starting with ``~`` is read as a shell reads it (no bot's name starts so)."""
    ref = expanded(ref)
    try:
        return resolve(ref)
    except BotError:
        if base is None or Path(ref).is_absolute():
            raise
        candidate = base / ref
        try:
            there = candidate.exists()
        except OSError:  # longer than a file name may be: no bot there either
            there = False
        if there:
            return resolve(candidate)
        raise


def entrant_name_problems(resolved: dict[str, BotSpec], entrants: Sequence[BotSpec]
                          ) -> list[str]:
    """The entrants (by where they are listed: ``bots[2]``) whose names a new tournament
    refuses (:func:`arena.common.names.name_problem`), one line each."""
    problems: list[str] = []
    told: set[str] = set()
    keys = {bot.key for bot in entrants}
    for where, bot in resolved.items():
        if bot.key in keys and bot.key not in told and (
                problem := name_problem(bot.name)) is not None:
            told.add(bot.key)
            problems.append(f"{where}: {problem}; enter it under another name: {{bot: REF, "
                            "name: NAME}")
    return problems


def distinct_entrants(groups: Sequence[tuple[str, Sequence[BotSpec]]]) -> tuple[
        list[BotSpec], list[str]]:
    """The entrants of resolved entries by field (``challengers``, then ``bots``), each bot
    once, and the problems: a bot listed twice (a challenger may also be among the bots), or
    one name for two bots (tables and leaderboards show names: one name, one bot), or two
    names a reader cannot tell apart (a name given by a bot's own files may be any text)."""
    problems: list[str] = []
    entrants: list[BotSpec] = []
    seen: dict[str, str] = {}
    names: dict[str, str] = {}
    looks: dict[str, tuple[str, str]] = {}  # skeleton -> (where, name)
    known = registered_names() if any(not bot.name.isascii() for _, group in groups
                                      for bot in group) else []
    for field, group in groups:
        for i, bot in enumerate(group):
            where = f"{field}[{i}]"
            if bot.key in seen:
                first = seen[bot.key]
                if field == "bots" and first.startswith("challengers"):
                    continue  # a challenger may also be listed among the bots
                problems.append(f"{where}: {bot.name} ({bot.key}) is listed twice "
                                f"(also {first}); to seat two copies, enter one under "
                                "another name: {bot: REF, name: NAME}")
                continue
            other = names.get(bot.name)
            if other is not None:
                problems.append(f"{where}: the name {bot.name} is taken by {other} (another "
                                "version or other options); enter it as {bot: REF, name: "
                                "NAME}")
                continue
            twin = next((looks[key] for key in skeletons(bot.name) if key in looks), None)
            if twin is not None:
                problems.append(f"{where}: the name {spelled(bot.name)} looks like "
                                f"{spelled(twin[1])}, the name of {twin[0]} (the same letters "
                                "to the eye, or but for case); enter one under another name: "
                                "{bot: REF, name: NAME}")
                continue
            if (disguised := disguise(bot.name, known)) is not None:
                problems.append(f"{where}: the name {spelled(bot.name)} {disguised}: a reader "
                                "would take it for another name; enter it under another name: "
                                "{bot: REF, name: NAME}")
                continue
            seen[bot.key] = where
            names[bot.name] = where
            for key in skeletons(bot.name):
                looks.setdefault(key, (where, bot.name))
            entrants.append(bot)
    return entrants, problems
