"""A Swiss under way whose withdrawn entrant's files are gone (a cheat's bot deleted, or
``arena bots remove``d): the spec still lists it, so it is taken from what the tournament
stored (its name, version and path) and never started again.

Its games stay, with its standings; it is paired in no round from its withdrawal on, so a
run needs its files only for a table paired before the withdrawal that is not finished, or
a round it would still be paired in: either is refused in one line. A bot whose files are
gone and that is not withdrawn is refused as any unknown bot is, and the refusal says how to
withdraw it when the stored Swiss can go on without it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.common.plural import counted
from arena.common.printable import printable, shell_word
from arena.errors import SpecError
from arena.registry import BotSpec
from arena.tournament.editions import editions
from arena.tournament.hint_commands import command_path, db_option
from arena.tournament.spec import TournamentSpec
from arena.tournament.spec_loading import load_spec
from arena.tournament.store import Store, TournamentRow, peek, shown_state
from arena.tournament.swiss_edits import paired_rounds

__all__ = ["StoredField", "gone_refusal", "load_run_spec", "missing_bots_hint"]


@dataclass(frozen=True)
class StoredField:
    """What a stored Swiss (its latest edition) holds of its entrants: its row, the entries
    of ``bots`` as its spec wrote them, each entrant's stored bot, the rounds paired, and
    the rounds of each entrant's tables with games left to play, by bot id."""

    row: TournamentRow
    written: list[Any]
    bots: list[tuple[int, BotSpec]]
    paired: int
    unfinished: dict[int, set[int]]

    def stand_ins(self, missing: Mapping[int, Any]) -> dict[int, BotSpec]:
        """The stored bots of the entries of ``bots`` not found (index -> as written), each
        where the stored spec wrote the same entry at the same place."""
        return {index: self.bots[index][1] for index, entry in missing.items()
                if index < min(len(self.written), len(self.bots))
                and self.written[index] == entry}

    def next_round_without(self, bot_id: int, rounds: int | None) -> int | None:
        """The round a bot could be withdrawn from, its files gone: the one after the rounds
        paired, when its tables of those are finished and the Swiss has that round (of
        ``rounds``, the spec's, else the stored ones)."""
        round_no = self.paired + 1
        if self.unfinished.get(bot_id) or not 2 <= round_no <= (rounds or self.row.rounds):
            return None
        return round_no


def stored_field(store: Store, name: str) -> StoredField | None:
    """The :class:`StoredField` of the stored Swiss ``name`` (its latest edition), or None."""
    rows = editions(store, name)
    if not rows or rows[-1].format != "swiss":
        return None
    row = rows[-1]
    bots = [(bot_id, _stored_bot(store, bot_id)) for bot_id in store.entrant_ids(row.id)]
    recorded = {(r, t): n for r, t, n in store.conn.execute(
        "SELECT round, table_index, COUNT(*) FROM games WHERE tournament_id = ? "
        "GROUP BY round, table_index", (row.id,))}
    unfinished: dict[int, set[int]] = {}
    for table in store.tables(row.id):
        if recorded.get((table.round, table.table_index), 0) < table.games:
            for bot_id in table.seats:
                unfinished.setdefault(bot_id, set()).add(table.round)
    return StoredField(row, list(row.spec.get("bots") or []), bots,
                       paired_rounds(store, row.id), unfinished)


def _stored_bot(store: Store, bot_id: int) -> BotSpec:
    """The bot version stored under ``bot_id``, as a stand-in for files that are gone."""
    name, version, path, metadata = store.conn.execute(
        "SELECT name, version, path, metadata_json FROM bots WHERE id = ?",
        (bot_id,)).fetchone()
    data = dict(json.loads(metadata or "{}") or {})
    options = data.pop("options", None) or {}
    return BotSpec(name=name, version=version, path=Path(path or ""), command=(),
                   metadata=data, options=dict(options))


def load_run_spec(path: Path, overrides: Mapping[str, Any], db: Path | None, *,
                  anew: bool = False) -> TournamentSpec:
    """The spec ``arena run`` plays: :func:`~arena.tournament.spec_loading.load_spec`, with each
    withdrawn entrant whose files are gone taken from the stored Swiss (in ``db``, else the
    spec's results), unless the run starts ``anew`` (``--fresh``, ``--new-edition``: a new
    tournament would play it). Refused in one line when such a bot would still play."""
    try:
        return load_spec(path, overrides)
    except SpecError as exc:
        field = None if anew else _field_of(exc, db)
        if field is None or not field.stand_ins(exc.missing):
            raise
        stand_ins = field.stand_ins(exc.missing)
    spec = load_spec(path, overrides, stand_ins)
    refusal = gone_refusal(spec, field)
    if refusal is not None:
        raise SpecError(refusal)
    return spec


def _field_of(error: SpecError, db: Path | None) -> StoredField | None:
    """The stored Swiss of a spec refused for bots not found (``db``, else its results)."""
    if error.stored_as is None or not error.missing:
        return None
    name, results = error.stored_as
    return peek(db if db is not None else Path(results),
                lambda store: stored_field(store, name))


def gone_refusal(spec: TournamentSpec, field: StoredField) -> str | None:
    """Why ``spec`` cannot be played with the withdrawn bots whose files are gone, if so: a
    table of theirs paired before the withdrawal is not finished, or a round not paired yet
    would pair one of them."""
    for bot_id, bot in field.bots:
        if bot.key not in spec.gone:
            continue
        gone = f"{printable(bot.name)}'s files are gone ({printable(str(bot.path))})"
        withdrawn = spec.withdrawn[bot.name]
        left = sorted(field.unfinished.get(bot_id, set()))
        if left:
            rounds = "round" if len(left) == 1 else "rounds"
            return (f"{gone}, and its tables of {rounds} {', '.join(map(str, left))}, paired "
                    f"before its withdrawal from round {withdrawn}, are not finished: put its "
                    "files back to finish them")
        if withdrawn > field.paired + 1:
            return (f"{gone}, and it is withdrawn from round {withdrawn}, so round "
                    f"{field.paired + 1} would pair it: withdraw it from round "
                    f"{field.paired + 1} ('withdrawn: {{{bot.name}: {field.paired + 1}}}')")
    return None


def missing_bots_hint(error: SpecError, db: Path | None) -> str | None:
    """For a spec refused because bots it enters are gone: how to withdraw them from the
    stored Swiss that goes on (under way, or given rounds added), when it can go on without
    them (one line), else None."""
    field = _field_of(error, db)
    if field is None or error.stored_as is None:
        return None
    found = field.stand_ins(error.missing)
    ids = {bot.key: bot_id for bot_id, bot in field.bots}
    rounds = {bot.name: field.next_round_without(ids[bot.key], error.rounds)
              for bot in found.values()}
    if not rounds or None in rounds.values():
        return None
    row, where = field.row, db if db is not None else Path(error.stored_as[1])
    said = ", ".join(f"{n}: {r}" for n, r in rounds.items())
    games = peek(where, lambda store: store.count_games(row.id)) or 0
    return (f"tournament '{printable(row.name)}' of {command_path(where)} "
            f"({counted(games, 'game')}, {shown_state(where, row.name, row.state)}) goes on "
            f"without {printable(', '.join(rounds))} once the spec withdraws "
            f"{'it' if len(rounds) == 1 else 'them'} ('withdrawn: {{{printable(said)}}}'): "
            f"its games stay; arena status {shell_word(row.name)}{db_option(where)} shows it")
