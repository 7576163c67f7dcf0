"""Game records: one JSON object per game, enough to replay it move for move.

``replay`` re-plays a record from its seed and choices and fails loudly (ReplayError) at the
first difference; :func:`replay_one` also holds every other field of the record to the
replayed game. Both read a record's moves with :func:`recorded_play` and play them with
:func:`replay_choices`, as the site's replay viewer and ``arena game --rerun`` do. Records
files (JSON lines or one JSON document, gzip-compressed or not) are read by
:func:`iter_records` (a record at a time) or :func:`read_records`. The schema is documented
in docs/RECORDS.md.
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any, cast

from arena.common.wholefile import GZIP_MAGIC, is_device, read_text
from arena.engine.actions import shown_hand
from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.state import RECORD_FORMAT, State
from arena.errors import ArenaError, ReplayError, RulesError

__all__ = [
    "OLDER_TELLINGS",
    "RECORD_FORMAT",
    "OlderTelling",
    "build_record",
    "cards_not_counted",
    "game_record",
    "iter_records",
    "older_tellings",
    "other_format",
    "read_records",
    "read_records_text",
    "recorded_play",
    "records_in",
    "unwrapped",
    "replay",
    "replay_choices",
    "replay_one",
    "replay_records",
    "take_unrecorded",
]


def build_record(state: State) -> dict[str, Any]:
    """The record of a (normally finished) game: :meth:`State.record`."""
    return state.record()


def take_unrecorded(state: State, seat: int | None, kind: str | None) -> None:
    """Take, as the engine then did, each pending decision of one option that the record's
    next choice (``seat`` choosing ``kind``; None at its end) does not answer: records made
    before such a decision was asked (RULES.md E21) hold no choice for it."""
    decision = state.decision
    while (decision is not None and len(decision.options) == 1
           and (decision.seat, decision.kind) != (seat, kind)):
        state.apply(0)
        decision = state.decision


#: A recorded choice: (seat, decision kind, option index).
Choice = tuple[int, str, int]
#: A recorded forfeit: (the number of the choice it came before, seat, reason).
Forfeit = tuple[int, int, str]


def recorded_play(record: dict[str, Any]) -> tuple[GameConfig, list[Choice], list[Forfeit]]:
    """A record's settings, its choices in order, and its forfeits in the order they came.
    A malformed record raises what reading it met (KeyError, TypeError, ValueError,
    RulesError, OverflowError): each reader says it in its own words."""
    config = GameConfig.from_json(record["config"])
    choices = [(int(s), str(k), int(i)) for s, k, i in record["choices"]]
    forfeits = sorted((int(f["at_choice"]), int(f["seat"]), str(f["reason"]))
                      for f in record.get("forfeits", []))
    return config, choices, forfeits


def replay_choices(state: State, choices: Sequence[Choice],
                   forfeits: Sequence[Forfeit]) -> Iterator[tuple[int, Choice]]:
    """Play ``choices`` on ``state``, a new game of their record's settings, each recorded
    forfeit before the choice it came before and the others after the last, and the
    one-option decisions an older record holds no choice for (:func:`take_unrecorded`):
    yields each choice with its number before playing it, for the caller to check that the
    state asks it. Raises ReplayError where the game goes on after the last choice."""
    due = list(forfeits)
    for number, choice in enumerate(choices):
        while due and due[0][0] == number:
            _, seat, reason = due.pop(0)
            state.forfeit(seat, reason)
        take_unrecorded(state, choice[0], choice[1])
        yield number, choice
        state.apply(choice[2])
    for _, seat, reason in due:
        state.forfeit(seat, reason)
    take_unrecorded(state, None, None)
    if state.decision is not None:
        raise ReplayError(f"the record ends after {len(choices)} choices but the game goes on")


def game_record(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, as every game record is; else :class:`ReplayError`
    saying what it is instead."""
    if not isinstance(value, dict):
        raise ReplayError(f"not a game record: a JSON {type(value).__name__}, not an object")
    return value


def other_format(record: Any) -> str | None:
    """The format of a record made under other rules than this engine's
    (``"palaestra-record/5"``); ``None`` for one of its own (one without a format field counts
    as one) and for what is no record at all (:func:`game_record` says what it is)."""
    if not isinstance(record, dict):
        return None
    recorded = record.get("format", RECORD_FORMAT)
    return None if recorded == RECORD_FORMAT else str(recorded)


def replay(record: dict[str, Any]) -> State:
    """Re-play ``record`` from its seed and choices; raise ReplayError where it differs."""
    recorded = other_format(game_record(record))
    if recorded is not None:
        raise ReplayError(f"recorded as {recorded!r} under the rules of that version; this "
                          f"engine replays {RECORD_FORMAT!r} records only (the rules changed "
                          "in between: see RULES.md)")
    try:
        config, choices, forfeits = recorded_play(record)
    # RulesError: a bad config; OverflowError: JSON's 1e400, an infinite float, as an int
    except (KeyError, TypeError, ValueError, RulesError, OverflowError) as exc:
        why = f"it has no {exc} field" if isinstance(exc, KeyError) else str(exc)
        raise ReplayError(f"not a game record: {why}") from None
    state = new_game(config)
    for number, (seat, kind, index) in replay_choices(state, choices, forfeits):
        decision = state.decision
        if decision is None:
            raise ReplayError(f"choice {number}: the game ended but the record goes on")
        if (decision.seat, decision.kind) != (seat, kind):
            raise ReplayError(
                f"choice {number}: the record has seat {seat} choosing {kind}, the replay asks "
                f"seat {decision.seat} to choose {decision.kind}"
            )
        if not 0 <= index < len(decision.options):
            raise ReplayError(f"choice {number}: option {index} is not legal here")
    expected = record.get("result")
    actual = state.result.to_json() if state.result else None
    if expected != actual:
        raise ReplayError(f"the replayed result {actual} differs from the recorded {expected}")
    if record.get("turns") is not None and record["turns"] != [dict(t) for t in state.turn_log]:
        raise ReplayError("the replayed turns differ from the recorded turns")
    return state


def _cannot_read(path: str | Path, exc: BaseException) -> ReplayError:
    if isinstance(exc, FileNotFoundError):
        return ReplayError(f"no such file: {path}")
    return ReplayError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")


def read_records_text(path: str | Path) -> str:
    """The text of a records file, gzip-compressed or not. Raises :class:`ReplayError`."""
    try:
        return read_text(Path(path))  # arena status --records FILE.gz writes gzip
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:  # gzip.BadGzipFile: OSError
        raise _cannot_read(path, exc) from None


def _record_lines(path: str | Path) -> Generator[tuple[int, str], None, None]:
    """The non-blank lines of a records file (gzip-compressed or not) with their 1-based
    numbers, read as they come: a file of any size is never held whole. A line ends at "\n"
    only (JSON leaves U+2028 and the like unescaped inside strings). Raises ReplayError."""
    if is_device(Path(path)):  # /dev/zero: one line that never ends would fill the memory
        raise _cannot_read(path, OSError(errno.ENODEV, "a device, not a file"))
    try:
        with open(path, "rb") as raw:
            packed = raw.peek(2)[:2] == GZIP_MAGIC  # peek, not seek: a pipe cannot
            stream = gzip.GzipFile(fileobj=raw) if packed else raw
            with io.TextIOWrapper(cast(IO[bytes], stream), encoding="utf-8",
                                  newline="\n") as text:
                for number, line in enumerate(text, 1):
                    if line.strip():
                        yield number, line
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:  # BadGzipFile: OSError
        raise _cannot_read(path, exc) from None


def _decoded(text: str) -> Any:
    """``text`` parsed; JSON nested deeper than Python's stack allows (a hand-made file) is
    no JSON either, as its parse error says."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None


def _parsed(path: str | Path, number: int, line: str) -> Any:
    try:
        return unwrapped(_decoded(line))
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path} line {number} is not JSON ({exc.msg}, column "
                          f"{exc.colno}): expected one game record per line") from None


def _given(value: Any) -> Callable[[], Any]:
    return lambda: value


def records_in(path: str | Path) -> Iterator[Callable[[], Any]]:
    """The records of a file, in order, each as a call that parses it: JSON lines (one
    record a line, blank lines skipped; read a line at a time, so memory stays small
    whatever the file's size), or one JSON document holding a record or a list of records;
    gzip-compressed or not. Only the lines asked for are parsed (the first always is, to
    tell the two forms apart). Raises :class:`ReplayError`, a line's parse error only when
    that line is asked for."""
    reading = _record_lines(path)
    lines: Iterator[tuple[int, str]] = reading
    first = next(lines, None)
    if first is None:
        raise ReplayError(f"{path} holds no game records")
    number, text = first
    try:
        value = _decoded(text)
    except json.JSONDecodeError as exc:  # a document over several lines (pretty-printed)?
        reading.close()
        try:
            value = _decoded(read_records_text(path))
        except json.JSONDecodeError:
            raise ReplayError(f"{path} line {number} is not JSON ({exc.msg}, column "
                              f"{exc.colno}): expected one game record per line") from None
        lines = iter(())
    second = next(lines, None)
    if second is None and isinstance(value, list):  # one document: a list of records
        if not value:
            raise ReplayError(f"{path} holds no game records")
        yield from (_given(unwrapped(record)) for record in value)
        return
    yield _given(unwrapped(value))
    if second is not None:
        yield partial(_parsed, path, *second)
        yield from (partial(_parsed, path, number, line) for number, line in lines)


def iter_records(path: str | Path) -> Iterator[Any]:
    """The game records of a file one by one (:func:`records_in`, each parsed). Raises
    :class:`ReplayError`."""
    return (record() for record in records_in(path))


def read_records(path: str | Path) -> list[Any]:
    """Game records from a file, all at once (:func:`iter_records`): JSON lines, or one JSON
    document holding a record or a list of records; gzip-compressed or not. Raises
    :class:`ReplayError`."""
    return list(iter_records(path))


def unwrapped(line: Any) -> Any:
    """The game record of a line of ``arena export`` (an object with ``schema_version`` and
    ``record``, docs/RECORDS.md); anything else as it is."""
    if isinstance(line, dict) and "schema_version" in line and isinstance(line.get("record"),
                                                                           dict):
        return line["record"]
    return line


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def replay_one(record: Any) -> None:
    """Replay one record (:func:`arena.engine.record.replay`: seed, choices, result, turns),
    then hold every other field the record carries to the replayed game's own record:
    format, config, seed, players, starting seat, rounds, forfeits and every event with its
    audience (told as this engine tells them, or as an older one did: :data:`OLDER_TELLINGS`).
    A record whose ``events`` list is empty was written without event tracking and is not
    held to events. Raises :class:`ReplayError` at the first difference."""
    try:
        state = replay(game_record(record))
    except ReplayError:
        raise
    except ArenaError as exc:  # e.g. a config with 7 players
        raise ReplayError(f"not a replayable record: {exc}") from None
    except (AttributeError, KeyError, TypeError, ValueError) as exc:  # a malformed field
        raise ReplayError(f"not a game record ({type(exc).__name__}: {exc})") from None
    rebuilt = _normal(state.record())
    for key, value in rebuilt.items():
        if key not in record:
            continue
        recorded = record[key]
        if key == "events":
            if not recorded:
                continue
            if not isinstance(recorded, list):
                raise ReplayError(f"the recorded events are not a list but a JSON "
                                  f"{type(recorded).__name__}")
            if recorded != value and not any(recorded == told
                                             for told in older_tellings(value)):
                at = next((i for i, (a, b) in enumerate(zip(recorded, value)) if a != b),
                          min(len(recorded), len(value)))
                raise ReplayError(
                    f"the replayed events differ from the recorded events at event {at} "
                    f"(recorded {len(recorded)} events, replayed {len(value)})")
        elif recorded != value:
            raise ReplayError(f"the replayed {key} {value!r} differs from the recorded "
                              f"{recorded!r}")


def _reshuffle_told_first(events: list[Any]) -> list[Any]:
    """A Palaestron drawn as the pile's last card told after the reshuffle its draw caused."""
    told = list(events)
    for at in range(len(told) - 1):
        if (isinstance(told[at], dict) and told[at].get("type") == "palaestron"
                and isinstance(told[at + 1], dict) and told[at + 1].get("type") == "reshuffle"):
            told[at], told[at + 1] = told[at + 1], told[at]
    return told


def _pile_moves_told_public(events: list[Any]) -> list[Any]:
    """An exchange with the draw pile, and a card put back on it, told to everyone alike,
    naming no card: each private half (its player's, with the cards) and the public half
    after it become the one public event."""
    told: list[Any] = []
    for event in events:
        if (isinstance(event, dict) and event.get("type") in _PILE_MOVES and told
                and isinstance(told[-1], dict) and told[-1].get("type") == event["type"]
                and event.get("to") == f"all_but:{told[-1].get('to')}"):
            told[-1] = {**event, "to": "all"}
        else:
            told.append(event)
    return told


_PILE_MOVES = ("pile_exchange", "return_to_pile")


def _copies_untold(events: list[Any]) -> list[Any]:
    """An exchange with a pile told without the depth of the copy taken."""
    return [{key: value for key, value in event.items() if key != "depth"}
            if isinstance(event, dict) and event.get("type") in _PLACED_EXCHANGES else event
            for event in events]


_PLACED_EXCHANGES = ("graveyard_exchange", "pile_exchange")


def _revealed_untold(events: list[Any]) -> list[Any]:
    """A revealed card set as a trap or put on the draw pile told to the others unnamed."""
    return [{key: value for key, value in event.items() if key != _NAMED_WHEN_REVEALED[kind]}
            if isinstance(event, dict) and (kind := event.get("type")) in _NAMED_WHEN_REVEALED
            and str(event.get("to")).startswith("all_but:") else event
            for event in events]


#: the field of the others' half that names a card which was revealed before it moved
_NAMED_WHEN_REVEALED = {"set_trap": "card", "return_to_pile": "card", "pile_exchange": "gave"}


def _unsourced(kind: str) -> Callable[[list[Any]], list[Any]]:
    """The events with those of type ``kind`` told without their ``source``."""
    def undo(events: list[Any]) -> list[Any]:
        return [{key: value for key, value in event.items() if key != "source"}
                if isinstance(event, dict) and event.get("type") == kind else event
                for event in events]
    return undo


@dataclass(frozen=True)
class OlderTelling:
    """A way an older engine of this record format told the same game otherwise: what
    changed, and ``undo``, which turns the events as this engine tells them into the events
    as that engine told them (the same game: no choice, card or result differs)."""

    change: str
    undo: Callable[[list[Any]], list[Any]]


#: Every change of telling within this record format, newest first. A record made before a
#: change was made before every newer one too, so it is held to the events undone from the
#: newest change down to its own (docs/RECORDS.md, "Older tellings"); nothing else passes.
OLDER_TELLINGS: tuple[OlderTelling, ...] = (
    OlderTelling("a revealed card set as a trap, put on the draw pile (Phoenix) or given for "
                 "one of its top cards (Athena, Sophoi, a Crown) is named to the others "
                 "(RULES.md E23); before, it was not", _revealed_untold),
    OlderTelling("a trap cleared away by the Palaestron names it, its `source`; before, it "
                 "did not", _unsourced("trap_cleared")),
    OlderTelling("an exchange that took the copy of a card farther from the top of a pile "
                 "(Hades; Athena, Sophoi, a Crown to their player) names its `depth`, as the "
                 "option did (RULES.md E26); before, it did not", _copies_untold),
    OlderTelling("a trap destroyed (by Arcoi, Apollo, Zeus) names the card that destroyed it, "
                 "its `source`; before, it did not", _unsourced("trap_destroyed")),
    OlderTelling("an exchange with the draw pile (Athena, Sophoi, a Crown) and a card put "
                 "back on it (Phoenix) tell their player the cards (RULES.md E23); before, "
                 "one public event named none", _pile_moves_told_public),
    OlderTelling("a Palaestron drawn as the pile's last card is told before the reshuffle "
                 "its draw causes, not after it (RULES.md E4)", _reshuffle_told_first),
)


def older_tellings(events: list[Any]) -> Iterator[list[Any]]:
    """``events`` as each older engine told them, newest first (:data:`OLDER_TELLINGS`)."""
    told = events
    for older in OLDER_TELLINGS:
        told = older.undo(told)
        yield told


def cards_not_counted(record: Mapping[str, Any]) -> list[list[str]]:
    """Under ``reclaim=strict``, the cards of each seat's last hand that it used for an effect
    and that so do not count in its Desmos (RULES.md, House rules): the engine knows which
    copy a hand holds, the record's events name only faces, so the record is replayed. No
    lists under the other reading, or for a record that does not replay."""
    config = record.get("config")
    rules = config.get("rules") if isinstance(config, Mapping) else None
    if not isinstance(rules, Mapping) or rules.get("reclaim") != "strict":
        return []
    try:
        state = replay(dict(record))
    except (ArenaError, AttributeError, KeyError, TypeError, ValueError):  # a damaged record
        return []
    return [[NOTATION[card] for card in shown_hand(hand) if card in used]
            for hand, used in zip(state.hands, state.used, strict=True)]


def replay_records(records: Iterable[Any]) -> int:
    """Replay every record (a list, or :func:`iter_records` of a file: one held at a time);
    the first failure raises ``ReplayError("game K: ...")`` (K counts from 1 in file order).
    Returns how many games replayed identically."""
    count = 0
    for count, record in enumerate(records, 1):
        try:
            replay_one(record)
        except ReplayError as exc:
            raise ReplayError(f"game {count}: {exc}") from None
    return count
