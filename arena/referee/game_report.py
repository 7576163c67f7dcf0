"""One refereed game told for people: who sat where, what went wrong, what happened, and
what each bot logged (``arena game``).

The game itself is told by the engine (:mod:`arena.engine.narration`); this adds the
referee's part of the record (``record["referee"]``: bots by seat, failures, logs, sandbox
level). A record without that part (``arena simulate --records``) is told as the engine's.
A records file's failures are told as ``arena status NAME --failures`` tells a tournament's
(``arena game FILE --failures``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.common.printable import shell_word
from arena.engine.narration import as_seen, event_lines, header_lines, seat_feed
from arena.engine.record import records_in
from arena.errors import ReplayError
from arena.referee.copy_paths import author_paths
from arena.referee.failures import FailureCounts, distinct_reasons

__all__ = ["records_failures", "report_game", "seat_view"]


#: Record fields every seat knows by the end of a game (docs/RECORDS.md).
_PUBLIC_FIELDS = ("format", "players", "starting_seat", "rounds", "forfeits", "result")


def seat_view(record: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The record cut down to what ``seat`` was shown: its feed of events, its own choices,
    the turn log without other seats' face-down traps, and of the referee's part only its
    own failures and log. No seed: the seed rebuilds the deal, and no bot is sent it; of the
    seats' book dates (the first tie-break) and bot seeds, only its own."""
    players = record.get("players") or []
    if not 0 <= seat < len(players):
        raise ValueError(f"seat {seat} is not in this game (seats 0-{len(players) - 1})")
    view = {key: record[key] for key in _PUBLIC_FIELDS if key in record}
    config = record.get("config")
    if isinstance(config, Mapping):
        view["config"] = {k: v for k, v in config.items() if k != "seed"}
        books = config.get("last_book_finished")
        if isinstance(books, list):  # a bot tells its own date; no seat is sent another's
            view["config"]["last_book_finished"] = [d if i == seat else None
                                                    for i, d in enumerate(books)]
    view["turns"] = [_turn_seen(turn, seat) for turn in record.get("turns") or []
                     if isinstance(turn, Mapping)]
    view["choices"] = [c for c in record.get("choices") or []
                       if isinstance(c, list) and c and c[0] == seat]
    view["events"] = seat_feed(record.get("events") or [], seat)[0]
    result = record.get("result")
    if isinstance(result, Mapping):  # as its game_end was: no hand an Ascension hid (E31)
        view["result"] = dict(as_seen(result, seat))
    _cut_at_forfeit(view, record, seat)
    referee = record.get("referee")
    if isinstance(referee, Mapping):
        view["referee"] = {
            **referee,
            "failures": [f for f in referee.get("failures") or [] if f.get("seat") == seat],
            "logs": {k: v for k, v in (referee.get("logs") or {}).items() if k == str(seat)},
        }
        for field in ("bot_seeds", "first_act_ids"):  # the seat's own
            values = referee.get(field)
            if isinstance(values, list):
                view["referee"][field] = [v if i == seat else None for i, v in enumerate(values)]
    return view


def _cut_at_forfeit(view: dict[str, Any], record: Mapping[str, Any], seat: int) -> None:
    """A seat that forfeited was sent nothing more (its bot is stopped): its view ends there.
    Its later choices are the referee's safe defaults, the turns finished after it left and
    the forfeits after its own were never told to it, and it was sent no result."""
    forfeits = [f for f in record.get("forfeits") or [] if isinstance(f, Mapping)]
    own = next((i for i, f in enumerate(forfeits) if f.get("seat") == seat), None)
    if own is None:
        return
    view["forfeits"] = forfeits[:own + 1]  # in the order they happened
    at_choice = forfeits[own].get("at_choice")
    if isinstance(at_choice, int):
        mine = [c for c in record.get("choices") or [] if isinstance(c, list)][:at_choice]
        view["choices"] = [c for c in mine if c and c[0] == seat]
    event = next((e for e in record.get("events") or [] if isinstance(e, Mapping)
                  and e.get("type") == "forfeit" and e.get("seat") == seat), None)
    if event is not None and isinstance(event.get("turn"), int):
        view["turns"] = view["turns"][:event["turn"]]  # turn n is the game's n-th, 0-based
    view["result"] = None


def _turn_seen(turn: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """A turn as ``seat`` saw it: another seat's trap is set face down."""
    if turn.get("action") == "trap" and turn.get("seat") != seat:
        return {**turn, "card": None}
    return dict(turn)


def _failure_line(failure: Mapping[str, Any], who: str, home: str | None) -> str:
    """A failure and where it came: the act (the referee's request id, over the match from
    0; ``arena game --rerun`` names it the same way), that decision's round and kind."""
    decision = failure.get("decision")
    at = f" at act {decision}" if decision is not None else ""
    where = [f"round {failure['round']}"] if failure.get("round") is not None else []
    where += [f"a {failure['kind']} decision"] if failure.get("kind") else []
    at += f" ({', '.join(where)})" if where else ""
    return f"  seat {failure.get('seat', '?')} {who}: {failure.get('type', '?')}{at}: " \
           f"{author_paths(str(failure.get('detail', '')), home)}"


def _or_empty(kind: type, value: Any) -> Any:
    """``value`` when it is a ``kind``, else an empty one."""
    return value if isinstance(value, kind) else kind()


def report_game(record: Mapping[str, Any], seat: int | None = None,
                logs: bool = True, homes: Sequence[str | None] = ()) -> list[str]:
    """The lines of ``arena game``: with ``seat``, only what that seat was shown (and its own
    failures and log); ``logs=False`` leaves the bots' logs out.

    Paths into a bot's sandboxed copy (``/bot/bot.py``) are shown as its author knows them:
    under ``homes[seat]``, the bot's directory, where known, else relative to it. The record
    keeps what the bot wrote; only the telling translates."""
    referee = record.get("referee")
    referee = referee if isinstance(referee, Mapping) else {}
    lines: list[str] = []
    # a records file may come from elsewhere: a field of another type counts as missing
    keys = [str(k) for k in _or_empty(list, referee.get("seats"))]
    if referee:  # (a game's stored row holds no sandbox: left out)
        level = (f"; sandbox {referee.get('sandbox_level') or 'unknown'}"
                 if "sandbox_level" in referee else "")
        lines.append("Bots: " + ", ".join(f"seat {i} {key}" for i, key in enumerate(keys))
                     + level)
    lines.extend(header_lines(record, seat))
    players = [str(p) for p in record.get("players") or []]

    def home(s: Any) -> str | None:
        return homes[s] if isinstance(s, int) and 0 <= s < len(homes) else None

    def who(s: Any) -> str:
        if isinstance(s, int) and 0 <= s < len(keys):
            return keys[s]
        return players[s] if isinstance(s, int) and 0 <= s < len(players) else "?"

    failures = [f for f in _or_empty(list, referee.get("failures"))
                if isinstance(f, Mapping) and (seat is None or f.get("seat") == seat)]
    if referee:
        lines.append("")
        lines.append("Failures:" if failures else "Failures: none")
        lines.extend(_failure_line(f, who(f.get("seat")), home(f.get("seat")))
                     for f in failures)
    lines.append("")
    lines.extend(event_lines(record, seat))
    if logs:
        for key, text in sorted(_or_empty(dict, referee.get("logs")).items(),
                                key=lambda kv: str(kv[0])):
            if seat is not None and key != str(seat) or not text:
                continue
            index = int(key) if str(key).isdigit() else -1
            lines.append("")
            lines.append(f"Log of seat {key} ({who(index)}):")
            lines.extend(f"  | {line}" for line
                         in author_paths(str(text), home(index)).rstrip("\n").splitlines())
    return lines


#: How many records not JSON ``--failures`` names (the rest are counted).
_UNREAD_NAMED = 10


class _RecordsRead:
    """What reading a records file's failures met besides them: how many records, which ones
    were not JSON (the first few named, the rest counted), and the failures by type."""

    def __init__(self) -> None:
        self.records = 0
        self.unread: list[int] = []
        self.unread_count = 0
        self.counts = FailureCounts()

    def failures(self, path: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(bot, record label, failure) of every failure in ``path``'s records, read one record
        at a time and none kept: a records file may be larger than memory."""
        for number, read in enumerate(records_in(path), 1):
            self.records = number
            try:
                record = read()
            except ReplayError:
                self.unread_count += 1
                if len(self.unread) < _UNREAD_NAMED:
                    self.unread.append(number)
                continue
            label = f"record {number}{_game_id(record)}"
            for name, failure in _named_failures(record):
                self.counts.add(failure)
                yield name, label, failure

    def skipped(self) -> list[str]:
        """The line naming the records that were not JSON (none: no line)."""
        if not self.unread_count:
            return []
        more = self.unread_count - len(self.unread)
        return [f"record{'s' if self.unread_count > 1 else ''} "
                f"{', '.join(map(str, self.unread))}{f' and {more} more' if more else ''} "
                "skipped: not JSON"]


def records_failures(path: Path) -> list[str]:
    """Every distinct reason a bot failed in the records of ``path``, as ``arena status NAME
    --failures`` tells a tournament's; a record that is not JSON (a killed match's torn
    last line) is skipped and said. The file is read a record at a time and only the distinct
    reasons kept, so its size is not the memory's. A records file may come from anyone: its
    lines hold its names and details as written, for the caller to escape where it prints
    them."""
    read = _RecordsRead()
    reasons = distinct_reasons(read.failures(path))
    if not reasons:
        return [f"no bot failures in {path} ({read.records} game record"
                f"{'' if read.records == 1 else 's'})", *read.skipped()]
    return [f"failures in {path}: " + read.counts.line(),
            *(reason.line() for reason in reasons), *read.skipped(),
            _open_one(path, reasons[0].first_game, reasons[0].first_seat)]


def _open_one(path: Path, first: str, seat: Any) -> str:
    """The command that opens the first reason's game (``first``: ``record 2, cup/r1/t0/g1``)
    at the failing seat."""
    number = first.split(",", 1)[0].removeprefix("record ")
    return f"open one: arena game {shell_word(str(path))} -n {number} --seat {seat}"


def _game_id(record: Any) -> str:
    """``, cup/r1/t0/g2``: the game a referee's record is of, as ``arena game`` titles it
    (a tournament's records file holds many matches); empty where it does not say."""
    referee = record.get("referee") if isinstance(record, dict) else None
    if not isinstance(referee, dict) or "match_id" not in referee:
        return ""
    return f", {referee.get('match_id')}/g{referee.get('game_index')}"


def _named_failures(record: Any) -> list[tuple[str, dict[str, Any]]]:
    """A record's bot failures, each with its seat's player name (a simulated game's record
    has none; a damaged one's are read as far as they go)."""
    if not isinstance(record, dict) or not isinstance(record.get("referee"), dict):
        return []
    players = record.get("players")
    found = record["referee"].get("failures")
    named = []
    for failure in found if isinstance(found, list) else []:
        if isinstance(failure, dict):
            seat = failure.get("seat")
            name = (players[seat] if isinstance(players, list) and isinstance(seat, int)
                    and 0 <= seat < len(players) else failure.get("bot", "?"))
            named.append((str(name), failure))
    return named
