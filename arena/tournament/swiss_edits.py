"""A stored Swiss whose spec changed only in what lies ahead: rounds added (or dropped while
not paired), a bot withdrawn, a late entrant (``withdrawn``, ``joined``: docs/TOURNAMENTS.md,
"Changing a Swiss under way").

A round is paired from the spec's field for it and the stored results of the rounds before,
so a change that leaves every paired round's field as it was plays exactly the rounds a
tournament run with the changed spec from the start plays: the event goes on under the new
spec, no new edition. A change that would alter a paired round is refused, naming it, in one
line; anything else changed is left to the usual refusal (a new edition, or ``--fresh``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import StoreError
from arena.tournament.field_changes import active_entries, said_changes
from arena.tournament.planning import planned_games
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import Store, TournamentRow, stored_bot_id, stored_metadata

__all__ = ["SwissEdit", "apply_swiss_edit", "paired_rounds", "swiss_edit"]

#: The canonical spec's fields a Swiss under way may change (its entrants only by adding
#: late ones at the end of the list).
_EDITABLE = frozenset({"rounds", "entrants", "withdrawn", "joined"})


@dataclass(frozen=True)
class SwissEdit:
    """What a changed spec does to a stored Swiss: its rounds before and after, the bots
    withdrawn and joining anew (name -> round), and the rounds already paired."""

    rounds: tuple[int, int]
    withdrawn: dict[str, int]
    joined: dict[str, int]
    paired: int

    def describe(self) -> str:
        """The change for people: ``rounds 3 -> 5, collector withdrawn from round 4``."""
        parts = []
        if self.rounds[0] != self.rounds[1]:
            parts.append(f"rounds {self.rounds[0]} -> {self.rounds[1]}")
        parts += said_changes(self.withdrawn, self.joined)
        kept = (f"rounds 1-{self.paired} stay as played" if self.paired > 1
                else "round 1 stays as played" if self.paired else "no round paired yet")
        return f"{', '.join(parts) or 'no change to the field'} ({kept})"


def paired_rounds(store: Store, tournament_id: int) -> int:
    """The rounds of a stored Swiss that have their tables (the last such round)."""
    return max((t.round for t in store.tables(tournament_id)), default=0)


def _names(entrants: Sequence[str]) -> list[str]:
    return [key.split("@")[0] for key in entrants]


def swiss_edit(store: Store, row: TournamentRow, spec: TournamentSpec
               ) -> SwissEdit | StoreError | None:
    """The :class:`SwissEdit` ``spec`` makes of the stored Swiss ``row`` (whose hash differs),
    a :class:`StoreError` when it would change a round already paired, or None when the spec
    changed otherwise (the usual refusal names how)."""
    old: Mapping[str, Any] = row.spec.get("canonical") or {}
    new = spec.canonical()
    changed = {key for key in set(old) | set(new) if old.get(key) != new.get(key)}
    started = {k: v for k, v in (row.spec.get("overrides") or {}).items() if k != "rounds"}
    given = {k: v for k, v in spec.overrides.items() if k != "rounds"}
    old_keys, new_keys = list(old.get("entrants", [])), list(new["entrants"])
    if (spec.format != "swiss" or row.format != "swiss" or not changed <= _EDITABLE
            or started != given or new_keys[:len(old_keys)] != old_keys):
        return None
    paired = paired_rounds(store, row.id)
    rounds = (int(old.get("rounds") or 1), spec.effective_rounds())
    if rounds[1] < paired:
        given_before = (row.spec.get("overrides") or {}).get("rounds")
        again = (f"; it was run with --rounds {given_before}: give it again, or write rounds: "
                 f"{given_before} in the spec" if given_before is not None
                 and given_before != spec.overrides.get("rounds") else "")
        return StoreError(f"tournament '{spec.name}' has paired {paired} rounds, which stay as "
                          f"played: 'rounds' may be lowered to {paired}, not {rounds[1]}{again}")
    before = (_names(old_keys), old.get("withdrawn") or {}, old.get("joined") or {})
    after = (_names(new_keys), spec.withdrawn, spec.joined)
    for round_no in range(1, paired + 1):
        was = {before[0][i] for i in active_entries(*before, round_no)}
        now = {after[0][i] for i in active_entries(*after, round_no)}
        if was != now:
            return StoreError(_paired_refusal(spec.name, paired, round_no, was, now))
    return SwissEdit(rounds, _new_rounds(before[1], spec.withdrawn),
                     _new_rounds(before[2], spec.joined), paired)


def _new_rounds(old: Mapping[str, int], new: Mapping[str, int]) -> dict[str, int]:
    return {name: r for name, r in new.items() if old.get(name) != r}


def _paired_refusal(name: str, paired: int, round_no: int, was: set[str],
                    now: set[str]) -> str:
    """Why a change of the field is refused: it would change round ``round_no``, paired."""
    out = sorted(was - now)
    into = sorted(now - was)
    what = "; ".join([*(f"{bot} would not be in it" for bot in out),
                      *(f"{bot} would be in it" for bot in into)])
    kept = f"rounds 1-{paired}" if paired > 1 else "round 1"
    return (f"tournament '{name}' has paired {kept}, which stay as played, and this spec "
            f"changes round {round_no}'s field ({what}): withdraw a bot, or enter a late "
            f"one with 'joined', from round {paired + 1} on")


def apply_swiss_edit(store: Store, row: TournamentRow, spec: TournamentSpec) -> TournamentRow:
    """Make ``spec`` the stored Swiss ``row``'s own, in one transaction: its stored spec and
    hash, rounds and games planned, the late entrants after the others, and a finished
    tournament with rounds added no longer finished (the next run plays them)."""
    data = dict(row.spec)
    data.update({k: v for k, v in spec.to_json().items() if k != "name"})
    data["canonical"] = spec.canonical()
    if not spec.overrides:
        data.pop("overrides", None)
    held = len(store.entrant_ids(row.id))
    planned = planned_games(spec)
    with store.transaction() as conn:
        conn.execute("UPDATE tournaments SET spec_hash = ?, spec_json = ?, rounds = ?, "
                     "games_planned = ? WHERE id = ?",
                     (spec.spec_hash(), json.dumps(data, sort_keys=True),
                      spec.effective_rounds(), planned, row.id))
        for index, bot in enumerate(spec.entrants[held:], held):
            bot_id = stored_bot_id(conn, bot.name, bot.version, str(bot.path),
                                   stored_metadata(bot.metadata, bot.options))
            conn.execute("INSERT INTO tournament_bots (tournament_id, bot_id, entry_index) "
                         "VALUES (?, ?, ?)", (row.id, bot_id, index))
        if row.state == "finished" and store.count_games(row.id) < planned:
            conn.execute("UPDATE tournaments SET state = 'interrupted', finished_at = NULL "
                         "WHERE id = ?", (row.id,))
    return store.require(row.name)
