"""A stored tournament whose entrants changed: go on with the new version, or a new edition.

When a spec's entrant resolves to another version than the stored tournament's (its author
ran ``arena submit --update``), the organiser chooses:

* **continue** (``arena run SPEC --continue``): the entry keeps its place (its seat in the
  schedule, its Swiss points) and the new version plays every deal not begun yet; a deal
  with a game recorded is finished by the version that began it (its seatings replay the
  same boards, so they need the same players). The games already played stay rated under
  the old version: the store records games by bot version, and a *succession* row says
  which version held the entry before. Allowed only when nothing else changed, the entry
  keeps its name and its place in the list.
* **a new edition** (``--new-edition``): a tournament named ``NAME-2`` (then ``-3``, ...)
  with the spec as it is now; the old one stays, so leaderboards can be compared. The spec
  still says ``name: NAME``: a run resumes the edition whose spec it is (a spec put back as
  it was resumes that earlier edition), else it is compared with the latest edition; another
  edition is only started for a spec no edition has.

Both change the store in one transaction, so a ``kill -9`` leaves the old tournament or the
continued one, never half of it.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena.common.plural import counted
from arena.common.printable import printable, shell_word
from arena.errors import ArenaError, BotError, StoreError
from arena.registry import VERSIONS_DIR, BotSpec, resolve
from arena.tournament.dbfiles import table_names
from arena.tournament.dealbook import table_deals
from arena.tournament.entries import is_sample_bot
from arena.tournament.runlock import being_run
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import (
    Store,
    TournamentRow,
    peek,
    shown_state,
    stored_bot_id,
    stored_metadata,
)

_T = TypeVar("_T")

__all__ = [
    "continue_with",
    "continued_deals_warning",
    "current_edition",
    "edition_name",
    "editions",
    "entry_indexes",
    "KeptCopyNote",
    "held_versions",
    "kept_copy_notes",
    "note_kept_copy",
    "refuse_if_running",
    "retired_entries",
    "stored_bot",
    "stored_games",
    "successions",
    "version_changes",
    "with_edition",
]

_SUCCESSIONS = """CREATE TABLE IF NOT EXISTS successions(
    tournament_id INTEGER, entry_index INTEGER, old_bot_id INTEGER, new_bot_id INTEGER,
    games_at INTEGER, PRIMARY KEY (tournament_id, old_bot_id))"""


_KEPT_COPIES = """CREATE TABLE IF NOT EXISTS kept_copies(
    tournament_id INTEGER, bot_id INTEGER, kept TEXT, before_run INTEGER, noticed_at TEXT,
    PRIMARY KEY (tournament_id, bot_id))"""


@dataclass(frozen=True)
class KeptCopyNote:
    """An entrant a run played from the copy ``arena submit --update`` kept of its files:
    ``kept`` is that version's name (``NAME@VERSION``), ``before_run`` whether the update
    landed before the run that found it (a resumed run) rather than during it, and
    ``noticed_at`` when that run first played it so (UTC)."""

    bot_id: int
    kept: str
    before_run: bool
    noticed_at: str


def note_kept_copy(store: Store, tournament_id: int, bot_id: int, kept: str,
                   before_run: bool) -> None:
    """Keep the first notice that the entrant ``bot_id`` plays from its kept copy (a
    :class:`KeptCopyNote`), so ``arena status`` tells it to whoever did not watch the run."""
    noticed = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()
    with store.transaction() as conn:
        conn.execute(_KEPT_COPIES)
        conn.execute("INSERT OR IGNORE INTO kept_copies (tournament_id, bot_id, kept, "
                     "before_run, noticed_at) VALUES (?, ?, ?, ?, ?)",
                     (tournament_id, bot_id, kept, int(before_run), noticed))


def kept_copy_notes(store: Store, tournament_id: int) -> list[KeptCopyNote]:
    """The tournament's :class:`KeptCopyNote`, in the order noticed (none in a database
    that never needed the table)."""
    if "kept_copies" not in table_names(store.conn):
        return []
    return [KeptCopyNote(r[0], str(r[1]), bool(r[2]), str(r[3])) for r in store.conn.execute(
        "SELECT bot_id, kept, before_run, noticed_at FROM kept_copies WHERE tournament_id = ? "
        "ORDER BY rowid", (tournament_id,))]


def _has_successions(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                        "AND name = 'successions'").fetchone() is not None


def successions(store: Store, tournament_id: int) -> list[tuple[int, int, int, int]]:
    """``(entry index, old bot id, new bot id, games recorded then)`` in the order made."""
    if not _has_successions(store.conn):
        return []
    return [(r[0], r[1], r[2], r[3]) for r in store.conn.execute(
        "SELECT entry_index, old_bot_id, new_bot_id, games_at FROM successions "
        "WHERE tournament_id = ? ORDER BY rowid", (tournament_id,))]


def retired_entries(store: Store, tournament_id: int) -> dict[int, int]:
    """Entry index by bot id of the versions an entry held before (a continued tournament):
    their games still count for the entry's standing."""
    return {old: index for index, old, _, _ in successions(store, tournament_id)}


def entry_indexes(store: Store, tournament_id: int) -> dict[int, int]:
    """Entry index by bot id of every version that held an entry: the entrants, and the
    versions they replaced (:func:`retired_entries`), which sat at the entry's tables."""
    entrants = store.entrant_ids(tournament_id)
    return {**retired_entries(store, tournament_id),
            **{bot: index for index, bot in enumerate(entrants)}}


def editions(store: Store, name: str) -> list[TournamentRow]:
    """The stored tournament ``name`` and its later editions, oldest first."""
    found = []
    first = store.tournament(name)
    if first is not None:
        found.append(first)
    for other in store.tournament_names():
        row = store.tournament(other)
        if row is not None and (row.spec.get("edition") or {}).get("of") == name:
            found.append(row)
    return sorted(found, key=lambda r: (r.spec.get("edition") or {}).get("number", 1))


def edition_name(store: Store, name: str) -> str:
    """The name of the next edition of ``name``: ``NAME-k``, k one past the latest edition's
    number, skipping names already taken."""
    rows = editions(store, name)
    number = max([(r.spec.get("edition") or {}).get("number", 1) for r in rows] or [1]) + 1
    taken = set(store.tournament_names())
    while f"{name}-{number}" in taken:
        number += 1
    return f"{name}-{number}"


def with_edition(spec: TournamentSpec, name: str) -> TournamentSpec:
    """``spec`` played under the edition name ``name`` (its hash names it)."""
    return spec if name == spec.name else spec.model_copy(update={"name": name})


def version_changes(old: list[str], spec: TournamentSpec) -> list[int] | None:
    """The entry indices whose bot is another version (the same name in the same place), or
    None when the entrants changed otherwise (bots left, came or moved)."""
    new = [b.key for b in spec.entrants]
    if len(old) != len(new):
        return None
    changed = []
    for index, (was, now) in enumerate(zip(old, new, strict=True)):
        if was.split("@")[0] != now.split("@")[0]:
            return None
        if was != now:
            changed.append(index)
    return changed or None


def held_versions(store: Store, spec: TournamentSpec) -> tuple[TournamentSpec, list[BotSpec]]:
    """``spec`` as a resumed run plays it: each entrant ``arena submit --update`` replaced
    since the stored tournament began put back as the version that entered, run from the copy
    the update kept (``.versions/NAME@VERSION``), when that makes it the spec of the stored
    tournament, unfinished; and those entrants. Else ``spec`` as it is, and none (a league
    enters new versions itself; ``--continue`` and ``--new-edition`` take the new one)."""
    if spec.format == "league":
        return spec, []
    played, _ = current_edition(store, spec, False)
    row = store.tournament(played.name)
    if (row is None or row.spec_hash == played.spec_hash()
            or store.count_games(row.id) >= row.games_planned):  # a finished one is not resumed
        return spec, []
    old = list((row.spec.get("canonical") or {}).get("entrants", []))
    changed = version_changes(old, played)
    entrants = played.entrants
    held = []
    for index in changed or []:
        name, _, version = old[index].partition("@")
        try:
            kept = resolve(f"{name}@{version.split('+', 1)[0]}")
        except ArenaError:
            return spec, []
        if VERSIONS_DIR not in (kept.path.parent.name, kept.path.parent.parent.name):
            return spec, []  # not a version an update kept
        options = entrants[index].options
        entrants[index] = kept.with_options(options) if options else kept
        held.append(entrants[index])
    resumed = spec.with_entrants(entrants)
    if not held or with_edition(resumed, row.name).spec_hash() != row.spec_hash:
        return spec, []
    return resumed, held


def continue_with(store: Store, row: TournamentRow, spec: TournamentSpec,
                  changed: list[int], canonical: dict[str, Any]) -> TournamentRow:
    """Enter the new versions of the ``changed`` entries into the stored tournament ``row``:
    in one transaction, the entry's bot, the seats of every deal not begun, a succession
    row per entry, and the stored spec (so that the next run of ``spec`` resumes)."""
    entrants = store.entrant_ids(row.id)
    games = store.count_games(row.id)
    begun = _begun_deals(store, row.id)
    tables = store.tables(row.id)
    data = dict(row.spec)
    data.update({k: v for k, v in spec.to_json().items() if k != "name"})
    data["canonical"] = canonical
    with store.transaction() as conn:
        conn.execute(_SUCCESSIONS)
        swap: dict[int, int] = {}
        for index in changed:
            bot = spec.entrants[index]
            new_id = stored_bot_id(conn, bot.name, bot.version, str(bot.path),
                                   stored_metadata(bot.metadata, bot.options))
            swap[entrants[index]] = new_id
            conn.execute("UPDATE tournament_bots SET bot_id = ? WHERE tournament_id = ? AND "
                         "entry_index = ?", (new_id, row.id, index))
            conn.execute("INSERT OR REPLACE INTO successions (tournament_id, entry_index, "
                         "old_bot_id, new_bot_id, games_at) VALUES (?, ?, ?, ?, ?)",
                         (row.id, index, entrants[index], new_id, games))
        for table in tables:
            if (table.round, table.deal) in begun or not set(table.seats) & set(swap):
                continue
            seats = [swap.get(b, b) for b in table.seats]
            conn.execute("UPDATE tables SET seats_json = ? WHERE tournament_id = ? AND "
                         "round = ? AND table_index = ?",
                         (json.dumps(seats), row.id, table.round, table.table_index))
        conn.execute("UPDATE tournaments SET spec_hash = ?, spec_json = ? WHERE id = ?",
                     (spec.spec_hash(), json.dumps(data, sort_keys=True), row.id))
    fresh = store.tournament(row.name)
    assert fresh is not None
    return fresh


def continued_deals_warning(store: Store, row: TournamentRow, spec: TournamentSpec,
                            changed: list[int],
                            entering: str = "--continue enters new versions of") -> str | None:
    """What a careful organiser is told when ``--continue`` entered new versions of the
    ``changed`` entries into ``row`` (continued already), or a Swiss took them as late
    entrants (``entering`` says which): their authors wrote them after games were shown, so
    a deal book that deals them deals already played, or a seed written in the spec (shown
    by ``arena status``), gives them deals their authors may know. None when neither is so,
    or only shipped samples changed."""
    bots = [spec.entrants[i] for i in changed]
    if all(is_sample_bot(bot) for bot in bots):
        return None
    names = ", ".join(printable(bot.name) for bot in bots)
    again = "SPEC" if spec.source is None else shell_word(str(spec.source))
    if spec.deal_seeds:
        played = {seed for (seed,) in store.conn.execute(
            "SELECT seed FROM games WHERE tournament_id = ?", (row.id,))}
        seen = played & _deals_ahead(store, row, spec, changed)
        if not seen:
            return None
        return (f"{entering} {names}, submitted after games of "
                f"'{printable(row.name)}' were shown, and its deal book deals them "
                f"{counted(len(seen), 'deal')} already played (every table of a round is dealt "
                "the same deals, and the book comes round again): their authors may have seen "
                "those hands and draws (arena game, the site). To compare them fairly, play "
                f"them in a new edition with a new book: arena run {again} --new-edition "
                "--deals NEW_BOOK")
    if spec.seed is not None:
        return (f"{entering} {names}, submitted after "
                f"'{printable(row.name)}' began: its seed, written in the spec and shown by "
                "arena status, decides every deal they will play, which their authors may "
                "have computed. To compare them fairly, play them in a new edition with "
                f"'seed' left out of the spec (a secret one is drawn): arena run {again} "
                "--new-edition")
    return None


def _deals_ahead(store: Store, row: TournamentRow, spec: TournamentSpec,
                 changed: list[int]) -> set[int]:
    """The deal book's deals the ``changed`` entries may still be dealt: those of their
    tables not begun, and every deal of a round not paired yet."""
    entrants = store.entrant_ids(row.id)
    ids = {entrants[i] for i in changed}
    tables = store.tables(row.id)
    begun = _begun_deals(store, row.id)
    ahead = {deal for table in tables
             if (table.round, table.deal) not in begun and ids & set(table.seats)
             for deal in table_deals(spec.deal_seeds, table.round, table.games)}
    paired = max((table.round for table in tables), default=0)
    for round_no in range(paired + 1, row.rounds + 1):
        ahead.update(table_deals(spec.deal_seeds, round_no, spec.games_per_match))
    return ahead


def _begun_deals(store: Store, tournament_id: int) -> set[tuple[int, int]]:
    """The deals, ``(round, deal)``, of which the tournament has a game recorded."""
    return {(r, d) for r, d in store.conn.execute(
        "SELECT DISTINCT t.round, t.deal FROM games g JOIN tables t ON t.tournament_id = "
        "g.tournament_id AND t.round = g.round AND t.table_index = g.table_index "
        "WHERE g.tournament_id = ?", (tournament_id,))}


def stored_bot(store: Store, bot_id: int) -> BotSpec:
    """The bot version stored under ``bot_id`` (one an entry held before a ``--continue``,
    finishing a deal it began), found through the registry's kept versions."""
    found = store.conn.execute("SELECT name, version, metadata_json FROM bots WHERE id = ?",
                               (bot_id,)).fetchone()
    if found is None:
        raise StoreError(f"bot id {bot_id} is not in {store.path}")
    name, version, metadata = found
    options = (json.loads(metadata or "{}") or {}).get("options") or {}
    try:
        bot = resolve(f"{name}@{version.split('+', 1)[0]}")
    except ArenaError as exc:
        raise BotError(f"{name}@{version} began a deal that is not finished, and its files "
                       f"cannot be found any more ({exc}); run with --new-edition or --fresh"
                       ) from None
    return bot.with_options(options) if options else bot


def current_edition(store: Store, spec: TournamentSpec, new_edition: bool
                    ) -> tuple[TournamentSpec, dict[str, Any] | None]:
    """The spec as its run plays it: under the name of the edition whose spec it is (the
    latest such), else under its latest edition's name (to be compared with it), or
    (``new_edition``) under the next edition's, with the ``edition`` header to store with it.
    A spec put back as it was for an earlier edition resumes that edition: a new one with
    the same spec and seed would deal the very same games again."""
    rows = editions(store, spec.name)
    if not rows:
        return spec, None
    for row in reversed(rows):
        same = with_edition(spec, row.name)
        if same.spec_hash() == row.spec_hash:
            return same, None
    latest = with_edition(spec, rows[-1].name)
    if not new_edition:
        return latest, None
    name = edition_name(store, spec.name)
    return with_edition(spec, name), {"of": spec.name, "number": int(name.rsplit("-", 1)[1])}


def _peek(db_path: Path, spec: TournamentSpec, new_edition: bool,
          look: Callable[[Store, str], _T]) -> _T | None:
    """``look`` at the stored tournament this run would play (by its edition's name), or
    None when there is no database yet or it is not set up or not ours (the run says which)."""
    return peek(db_path,
                lambda store: look(store, current_edition(store, spec, new_edition)[0].name))


def refuse_if_running(db_path: Path, spec: TournamentSpec, new_edition: bool) -> None:
    """Refuse at once the tournament another process runs, before any bot starts (the run
    lock, taken once the trial start has passed, stays the guard: this is its early word)."""
    found = _peek(db_path, spec, new_edition, lambda store, name: (name, store.runner_pid(name)))
    if found is None:
        return
    name, pid = found
    if pid is not None:
        raise StoreError(being_run(name, "?" if pid < 0 else pid))


def stored_games(db_path: Path, spec: TournamentSpec) -> tuple[str, int, str] | None:
    """What ``--fresh`` would drop: the stored tournament's name, its games and its state to
    show, or None when it has none (nothing is lost then)."""
    def look(store: Store, name: str) -> tuple[str, int, str] | None:
        row = store.tournament(name)
        games = 0 if row is None else store.count_games(row.id)
        return None if row is None or games == 0 else (name, games, row.state)

    found = _peek(db_path, spec, False, look)
    if found is None:
        return None
    name, games, state = found
    return name, games, shown_state(db_path, name, state)
