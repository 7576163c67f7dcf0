"""A Swiss field that changes between rounds: a bot withdrawn from a round on, a late entrant
joining from a round on (the spec's ``withdrawn`` and ``joined``, docs/TOURNAMENTS.md).

Both name the first round the change applies to, so a round's field is a function of the
spec alone: a tournament whose spec gained such a change before a round was paired plays
that round as a tournament run with the change from the start. Pure functions of names and
rounds, read by the spec's checks, the planning and the pairing alike.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

__all__ = ["active_entries", "field_line_parts", "field_lines", "field_problems", "field_status",
           "in_field", "round_fields", "said_changes"]


def active_entries(names: Sequence[str], withdrawn: Mapping[str, int],
                   joined: Mapping[str, int], round_no: int) -> list[int]:
    """The entry indices paired in round ``round_no``: every entrant that has joined by then
    (round 1 unless ``joined`` says later) and is not withdrawn from that round or before."""
    return [i for i, name in enumerate(names) if in_field(name, withdrawn, joined, round_no)]


def in_field(name: Hashable, withdrawn: Mapping[Any, int], joined: Mapping[Any, int],
             round_no: int) -> bool:
    """Whether the entrant ``name`` is paired in round ``round_no`` (:func:`active_entries`)."""
    return joined.get(name, 1) <= round_no < withdrawn.get(name, round_no + 1)


def round_fields(names: Sequence[str], withdrawn: Mapping[str, int],
                 joined: Mapping[str, int], rounds: int) -> list[list[int]]:
    """:func:`active_entries` of every round, round 1 first."""
    return [active_entries(names, withdrawn, joined, r) for r in range(1, rounds + 1)]


def field_status(name: str, withdrawn: Mapping[str, int], joined: Mapping[str, int]) -> str:
    """What the standings say of an entrant beside its score: ``withdrawn from round 3``,
    ``joined in round 3``, both, or nothing."""
    notes = []
    if name in joined:
        notes.append(f"joined in round {joined[name]}")
    if name in withdrawn:
        notes.append(f"withdrawn from round {withdrawn[name]}")
    return ", ".join(notes)


def said_changes(withdrawn: Mapping[str, int], joined: Mapping[str, int]) -> list[str]:
    """Each change of the field for people: ``collector withdrawn from round 4``, ``dana
    joins in round 4``."""
    return [*(f"{name} withdrawn from round {r}" for name, r in withdrawn.items()),
            *(f"{name} joins in round {r}" for name, r in joined.items())]


def field_lines(withdrawn: Mapping[str, int], joined: Mapping[str, int]) -> list[str]:
    """The lines under a Swiss's standings (and leaderboard) naming the bots withdrawn and
    the late entrants, with what that means for their scores; none when there are none."""
    return ["".join(text for text, _ in line) for line in field_line_parts(withdrawn, joined)]


def field_line_parts(withdrawn: Mapping[str, int],
                     joined: Mapping[str, int]) -> list[list[tuple[str, bool]]]:
    """:func:`field_lines` as pieces, ``(text, is_a_name)``: a page isolates each name, as a
    right-to-left one would reorder the words around it."""
    said = ((withdrawn, "Withdrawn: ", "from", " (its games count; not paired from that round on)"),
            (joined, "Joined late: ", "in", " (no points for the rounds before)"))
    lines = []
    for changes, head, preposition, meaning in said:
        if not changes:
            continue
        parts = [(head, False)]
        for index, (name, round_no) in enumerate(sorted(changes.items())):
            if index:
                parts.append((", ", False))
            parts += [(name, True), (f" {preposition} round {round_no}", False)]
        lines.append([*parts, (meaning, False)])
    return lines


def field_problems(names: Sequence[str], withdrawn: Mapping[str, int],
                   joined: Mapping[str, int], rounds: int, table_size: int) -> list[str]:
    """The mistakes of a Swiss spec's ``withdrawn`` and ``joined``, one line each: a name
    that is no entrant's, a round outside 2..``rounds`` (round 1 is the start: a bot that
    never plays is left out of ``bots``), a bot withdrawn before it joins, a round whose
    field cannot fill a table."""
    problems = []
    for field, changes in (("withdrawn", withdrawn), ("joined", joined)):
        for name, round_no in changes.items():
            if name not in names:
                problems.append(f"{field}.{name}: not an entrant (entrants: {', '.join(names)})")
            elif not 2 <= round_no <= rounds:
                problems.append(f"{field}.{name}: must be a round from 2 to {rounds} (the "
                                f"first round it {'is not' if field == 'withdrawn' else 'is'} "
                                f"paired in), got {round_no}")
    for name, round_no in withdrawn.items():
        if name in joined and joined[name] >= round_no:
            problems.append(f"withdrawn.{name}: from round {round_no}, but it joins in round "
                            f"{joined[name]}: it would never play")
    if problems:
        return problems
    for round_no, paired in enumerate(round_fields(names, withdrawn, joined, rounds), 1):
        if len(paired) < table_size:
            problems.append(f"withdrawn: round {round_no} would pair {len(paired)} bot(s), "
                            f"too few to fill a table of {table_size}")
            break
    return problems
