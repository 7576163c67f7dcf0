"""The ``arena`` commands a message gives its reader to paste: the one that resumes a
tournament, the one that shows its results, a path as it works from here, and ``--db``
where the database is not the default one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.common.plural import counted
from arena.common.printable import printable, shell_word
from arena.tournament.editions import editions
from arena.tournament.overrides import override_options
from arena.tournament.store import DEFAULT_RESULTS, Store, peek, shown_state

__all__ = ["command_path", "db_option", "results_command", "resume_command",
           "stored_results_hint"]


def command_path(path: str | Path) -> str:
    """``path`` as it should appear in a command to paste: relative to the working
    directory when it lies inside it, else absolute (a hint must work from here)."""
    resolved, here = Path(path).resolve(), Path.cwd()
    if here != Path(here.anchor) and resolved.is_relative_to(here):
        return shell_word(str(resolved.relative_to(here)))
    return shell_word(str(resolved))


def resume_command(spec_path: str | None, db: str | Path | None = None,
                   overrides: dict[str, Any] | None = None) -> str:
    """The command that resumes a tournament: with the options that set ``overrides`` of the
    spec's fields, and ``db`` when it is not the spec's own."""
    where = command_path(spec_path) if spec_path else "<spec.yaml>"
    return (f"arena run {where}{override_options(overrides)}"
            + (f" --db {command_path(db)}" if db is not None else ""))


def stored_results_hint(name: str, db: Path) -> str | None:
    """For a spec refused because bots it enters are gone (removed since): where the stored
    tournament of its name (its latest edition) is still shown, or None when ``db`` holds
    none. Its results are not shown in the run's place: without the bots' files their
    versions, and so the spec's hash, cannot be known, nor whether the spec is still the
    stored one."""
    def look(store: Store) -> tuple[str, int, str] | None:
        rows = editions(store, name)
        if not rows:
            return None
        return rows[-1].name, store.count_games(rows[-1].id), rows[-1].state
    found = peek(db, look)
    if found is None:
        return None
    stored, games, state = found
    where, held = f"{shell_word(stored)}{db_option(db)}", command_path(db)
    if state == "finished":
        return (f"tournament '{printable(stored)}' of {held} is finished, its games kept: "
                f"{results_command(stored, db)} shows its results")
    return (f"tournament '{printable(stored)}' of {held} ({counted(games, 'game')}, "
            f"{shown_state(db, stored, state)}) cannot be resumed without those bots: "
            f"arena status {where} shows it")


def results_command(name: str, db: Path) -> str:
    """The command that shows a stored tournament's results: its leaderboard."""
    return f"arena leaderboard {shell_word(name)}{db_option(db)}"


def db_option(db: Path) -> str:
    """`` --db PATH`` for hints when ``db`` is not the default database."""
    if db.resolve() == Path(DEFAULT_RESULTS).resolve():
        return ""
    return f" --db {command_path(db)}"

