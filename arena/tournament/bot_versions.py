"""The bot versions a results database stores, read back (its ``bots`` table: each version
stored once by name and version, with the path its author gave and its metadata, options
included, by :func:`~arena.tournament.store.stored_bot_id`)."""

from __future__ import annotations

import json
from typing import Any

from arena.tournament.store import Store

__all__ = ["bot_labels", "bot_options", "bot_path", "bots_in_play", "entered_options",
           "stored_options"]


def bot_labels(store: Store) -> dict[int, str]:
    """``name@version`` by bot id."""
    return {r[0]: f"{r[1]}@{r[2]}" for r in store.conn.execute(
        "SELECT id, name, version FROM bots")}


def bots_in_play(store: Store) -> list[tuple[str, str, str, str]]:
    """(tournament, bot name, version, path) of every bot version a stored tournament
    may start again: the entrants of one not finished (a league's always: it runs on),
    and the bots seated at its unfinished tables (an entry's earlier version finishing
    the deal it began)."""
    found: set[tuple[str, int]] = set()
    open_ids = {row[0]: row[1] for row in store.conn.execute(
        "SELECT id, name FROM tournaments WHERE state IS NOT 'finished' OR "
        "format = 'league'")}
    for tournament_id, name in open_ids.items():
        found.update((name, bot) for bot in store.entrant_ids(tournament_id))
        found.update((name, bot) for table in store.tables(tournament_id)
                     if table.finished_at is None for bot in table.seats)
    bots = {row[0]: row[1:] for row in store.conn.execute(
        "SELECT id, name, version, path FROM bots")}
    return sorted((name, *bots[bot]) for name, bot in found if bot in bots)


def bot_options(store: Store) -> dict[int, dict[str, Any]]:
    """The options (``{bot: ..., options: {...}}``) of each bot entered with some."""
    found: dict[int, dict[str, Any]] = {}
    for bot_id, text in store.conn.execute("SELECT id, metadata_json FROM bots"):
        options = stored_options(text)
        if options:
            found[bot_id] = options
    return found


def entered_options(store: Store, name: str, version: str) -> dict[str, Any]:
    """The options bot version ``name``/``version`` was entered with; none when it had none
    or is not stored."""
    row = store.conn.execute("SELECT metadata_json FROM bots WHERE name = ? AND version = ?",
                             (name, version)).fetchone()
    return stored_options(row[0]) if row is not None else {}


def bot_path(store: Store, name: str, version: str) -> str | None:
    """The path bot version ``name``/``version`` was entered from, as its author gave it;
    None when it has none or is not stored."""
    row = store.conn.execute("SELECT path FROM bots WHERE name = ? AND version = ?",
                             (name, version)).fetchone()
    return str(row[0]) if row is not None and row[0] else None


def stored_options(metadata_json: str | None) -> dict[str, Any]:
    """The options stored in a bot version's metadata (its ``metadata_json``); none when it
    has none or its metadata is not an object."""
    try:
        options = json.loads(metadata_json or "{}").get("options")
    except (ValueError, AttributeError):
        return {}
    return dict(options) if isinstance(options, dict) else {}
