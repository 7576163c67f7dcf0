"""``arena status``: how far stored tournaments have got, read-only and safe during a run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.common.fitting import fit_rows, not_shown, tabulated
from arena.common.plural import counted
from arena.common.printable import printable, shell_word
from arena.common.timestamps import created_fitted
from arena.engine.houserules import HouseRules
from arena.errors import StoreError
from arena.referee.failures import (
    FailureCounts,
    counts_line,
    describe,
    describe_leaves_out,
    distinct_reasons,
)
from arena.tournament.bot_versions import bot_labels, bot_options
from arena.tournament.editions import editions, entry_indexes, kept_copy_notes
from arena.tournament.game_records import ExportedRecords, export_records
from arena.tournament.league_store import (
    entry_lines,
    league_entries,
    vetting,
    vetting_gave_way,
)
from arena.tournament.overrides import override_options
from arena.tournament.planning import group_deals, off_size_split
from arena.tournament.secrecy import secret_seed_note, seed_is_secret
from arena.tournament.standings import swiss_standings
from arena.tournament.store import (
    DEFAULT_RESULTS,
    GameRow,
    Store,
    TableRow,
    TournamentRow,
    peek,
    shown_state,
)

__all__ = ["LISTING_COLUMNS", "LISTING_LEFT_OUT", "bot_count", "command_path", "failure_reasons",
           "failure_summary", "no_tournaments", "results_command", "resume_command",
           "status_data", "status_lines", "stored_results_hint", "write_records"]


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
    where, held = f"{shell_word(stored)}{_db_option(db)}", command_path(db)
    if state == "finished":
        return (f"tournament '{printable(stored)}' of {held} is finished, its games kept: "
                f"{results_command(stored, db)} shows its results")
    return (f"tournament '{printable(stored)}' of {held} ({counted(games, 'game')}, "
            f"{shown_state(db, stored, state)}) cannot be resumed without those bots: "
            f"arena status {where} shows it")


def results_command(name: str, db: Path) -> str:
    """The command that shows a stored tournament's results: its leaderboard."""
    return f"arena leaderboard {shell_word(name)}{_db_option(db)}"


def _db_option(db: Path) -> str:
    """`` --db PATH`` for hints when ``db`` is not the default database."""
    if db.resolve() == Path(DEFAULT_RESULTS).resolve():
        return ""
    return f" --db {command_path(db)}"


def _progress(done: int, planned: int) -> str:
    """``359/360 (99%)``: rounded down, so 100% means every planned game is played; a league
    without a budget plans none (``12``)."""
    if not planned:
        return str(done)
    return f"{done}/{planned} ({100 * done // planned}%)"


#: What the list of tournaments leaves out on a terminal too narrow for it, first to last
#: (after showing the times to the minute, then the day): the name, the games and the state
#: are what a reader looks for.
LISTING_LEFT_OUT = ("created", "per table", "format", "bots")
#: The columns of a list of tournaments (``arena status`` and ``arena tournaments`` alike).
LISTING_COLUMNS = ("tournament", "format", "per table", "bots", "games", "state", "created")


def _overview(store: Store, width: int | None) -> list[str]:
    rows = []
    labels = bot_labels(store)
    for name in store.tournament_names():
        t = store.tournament(name)
        assert t is not None
        done = store.count_games(t.id)
        entrants = [labels.get(b, str(b)) for b in store.entrant_ids(t.id)]
        rows.append([printable(t.name), t.format, _sizes(t), bot_count(t.format, entrants),
                     _progress(done, t.games_planned), _state(store, t).split(" (")[0],
                     t.created_at])
    if not rows:
        return [no_tournaments(store.path)]
    table, left_out = created_fitted(lambda head, shown: tabulated(shown, head),
                                     LISTING_COLUMNS, rows, width, LISTING_LEFT_OUT)
    # a table is not wrapped again by the CLI (it holds a line break)
    return [table] + ([not_shown(left_out, "arena tournaments --format csv has every field")]
                      if left_out else [])


def no_tournaments(db: str | Path) -> str:
    """What a list of a database's tournaments says when it has none."""
    return f"no tournaments in {db} yet (e.g. arena run tournaments/swiss.yaml)"


def _state(store: Store, t: TournamentRow) -> str:
    """The stored state, corrected by whether a run actually holds the tournament's lock."""
    pid = store.runner_pid(t.name)
    if pid is not None:
        return f"running (pid {pid})" if pid > 0 else "running"
    if t.state == "stopped":  # a league told to stop (arena league stop)
        return "stopped (as asked; run the spec again to resume)"
    state = shown_state(store.path, t.name, t.state)
    # killed, or ended by an error it could not record (a full disk): either way, resumable
    return ("stopped (its run ended before finishing; run the spec again to resume)"
            if state == "stopped" else state)


def shown_seed(seed: int | None, spec: dict[str, Any], state: str) -> str:
    """The seed as status shows it (status output gets shown around: see
    :func:`~arena.tournament.secrecy.seed_is_secret`)."""
    if spec.get("seed", 0) is not None:
        return f"seed {seed}"
    if seed_is_secret(spec, state):
        return f"seed drawn, {secret_seed_note(spec)}"
    return f"seed {seed} (drawn: the spec gives none)"


def _sizes(t: TournamentRow) -> str:
    """The table size, or sizes ("2, 4") of a tournament that mixes them."""
    sizes = t.spec.get("players_per_game", t.players_per_game)
    return ", ".join(map(str, sizes)) if isinstance(sizes, list) else str(sizes)


def _detail(store: Store, t: TournamentRow, width: int | None) -> list[str]:
    """One tournament in detail: what it is, its rounds, its failures, a Swiss tournament's
    standings, and how to resume or stop it."""
    labels = bot_labels(store)
    for bot_id, options in bot_options(store).items():
        labels[bot_id] += " (" + ", ".join(f"{k}={v}" for k, v in options.items()) + ")"
    entrants = store.entrant_ids(t.id)
    games = store.games(t.id)
    tables = store.tables(t.id)
    boards = group_deals(tables, t.spec.get("duplicate", False))
    lines = _heading(store, t, [labels.get(b, str(b)) for b in entrants], len(games))
    lines += _kept_copy_lines(store, t, entrants)
    lines += _round_lines(store, t, tables, boards, games, width)
    lines += _failure_lines(games, t.name, store.path)
    if t.format == "swiss" and games:
        lines += _standing_lines(store, t, games, boards,
                                 [labels.get(b, "?") for b in entrants], width)
    return lines + _next_step(store, t)


def bot_count(tournament_format: str, entrants: Sequence[str]) -> int:
    """How many bots the entrants (``name@version`` keys) are: a league's are every version
    that entered, so its names count; any other's, each entrant."""
    if tournament_format == "league":
        return len({key.split("@")[0] for key in entrants})
    return len(entrants)


def _bot_count(t: TournamentRow, entrants: list[str]) -> str:
    """How many bots (and versions, where a league's differ): ``12 bots (16 versions)``."""
    bots = f"{len(entrants)} bots"
    names = bot_count(t.format, entrants)
    if names != len(entrants):
        bots = f"{names} bot{'' if names == 1 else 's'} ({len(entrants)} versions)"
    return bots


def _heading(store: Store, t: TournamentRow, entrants: list[str], done: int) -> list[str]:
    """What the tournament is (format, bots, seed, state, times), and its house rules."""
    split = (off_size_split(t.players_per_game, len(entrants)) if t.format == "swiss"
             else None)
    lines = [
        f"tournament {t.name}: {t.format}, {_sizes(t)} per table"
        f"{'' if split is None else f' (sitting {split} each round)'}, "
        f"{_bot_count(t, entrants)}, {shown_seed(t.seed, t.spec, t.state)}, "
        f"spec hash {t.spec_hash}",
        f"state {_state(store, t)}; games {_progress(done, t.games_planned)}",
        f"created {t.created_at}" + (f"; finished {t.finished_at}" if t.finished_at else ""),
        "bots: " + ", ".join(entrants),
    ]
    rules = HouseRules.from_json(t.spec.get("rules"))
    if not rules.is_default:  # the games were played to other rules than the rulebook's
        lines.append(rules.describe())
    return lines


def _kept_copy_lines(store: Store, t: TournamentRow, entrants: list[int]) -> list[str]:
    """A line per entrant a run played from the copy ``arena submit --update`` kept of its
    files, and how to enter the new version while the tournament may still take it."""
    lines = []
    for note in kept_copy_notes(store, t.id):
        kept = printable(note.kept)
        open_to_it = t.state != "finished" and note.bot_id in entrants  # not continued yet
        when = "before a run resumed the tournament" if note.before_run else "during a run"
        line = (f"{kept} {'plays' if open_to_it else 'played'} from the copy arena submit "
                f"--update kept: {kept.split('@')[0]} was updated {when} (noticed "
                f"{printable(note.noticed_at)})")
        if open_to_it:
            resume = resume_command(t.spec_path, None, t.spec.get("overrides"))
            line += (f"; '{resume} --continue{_db_option(store.path)}' enters the new "
                     "version in the deals not begun")
        lines.append(line)
    return lines


def _round_lines(store: Store, t: TournamentRow, tables: list[TableRow],
                 boards: list[list[TableRow]], games: list[GameRow],
                 width: int | None) -> list[str]:
    """The rounds: pairings, byes and games played of each (a Swiss tournament's rounds not
    paired yet too); a league's tables played and its entries instead."""
    if t.format == "league":  # a table a round, and entries that come and go
        return ["", _league_tables(tables, games),
                *entry_lines(store, t.id, running=store.runner_pid(t.name) is not None)]
    rows = [[r["round"], r["pairings"], r["byes"],
             _progress(r["games_done"], r["games_planned"])] if r["paired"]
            else [r["round"], "-", "-", "not paired yet"]
            for r in _round_progress(store, t, boards, games)]
    if not rows:
        return []
    return ["", *_fitted(["round", "pairings", "byes", "games"], rows, ("byes", "pairings"),
                         width), *_pairing_note(boards, t.name, store.path)]


def _league_table_counts(tables: list[TableRow], games: list[GameRow]) -> tuple[int, int]:
    """How many of a league's tables (a table a round) are played out, and how many more
    were chosen: a batch under way, or the table a stopped run plays out when resumed."""
    planned: Counter[int] = Counter()
    for tab in tables:
        planned[tab.round] += tab.games
    done = Counter(g.round for g in games)
    played = sum(1 for r, n in planned.items() if done[r] >= n)
    return played, len(planned) - played


def _league_tables(tables: list[TableRow], games: list[GameRow]) -> str:
    played, open_tables = _league_table_counts(tables, games)
    return f"tables played: {played}" + (
        f" (and {open_tables} chosen, not played out yet)" if open_tables else "")


def _standing_lines(store: Store, t: TournamentRow, games: list[GameRow],
                    boards: list[list[TableRow]], entrants: list[str],
                    width: int | None) -> list[str]:
    """A Swiss tournament's standings, with the pairings each entry has played."""
    return ["", *_fitted(list(_STANDING_FIELDS),
                         [list(row.values()) for row in _standings(store, t, games, boards,
                                                                   entrants)],
                         ("byes", "pairings", "buchholz"), width, names=1)]


_STANDING_FIELDS = ("rank", "bot", "score", "buchholz", "pairings", "byes")


def _standings(store: Store, t: TournamentRow, games: list[GameRow],
               boards: list[list[TableRow]], entrants: list[str]) -> list[dict[str, Any]]:
    """A Swiss tournament's standings, a row a bot, with the pairings each has played."""
    played = {(g.round, g.table_index) for g in games}
    entry_of = entry_indexes(store, t.id)  # an entry's pairings under an older version too
    met = Counter(entry_of.get(bot) for group in boards
                  if any((tab.round, tab.table_index) in played for tab in group)
                  for bot in group[0].seats)
    return [dict(zip(_STANDING_FIELDS, (s.rank, entrants[s.entrant], float(s.score),
                                        float(s.buchholz), met[s.entrant], s.byes),
                     strict=True))
            for s in swiss_standings(store, t, games=games)]


def _next_step(store: Store, t: TournamentRow) -> list[str]:
    """How to go on: resume a tournament no run holds, stop a running league."""
    resume, stop = _next_commands(store, t)
    if resume is not None:
        return ["", f"resume with: {resume}"]
    if stop is not None:
        return ["", f"stop with: {stop}"]
    return []


def _next_commands(store: Store, t: TournamentRow) -> tuple[str | None, str | None]:
    """The command that resumes a tournament no run holds, and the one that stops a running
    league (a running one is stopped, not resumed); None where it does not apply."""
    running = store.runner_pid(t.name) is not None
    resume = (f"{resume_command(t.spec_path, None, t.spec.get('overrides'))}"
              f"{_db_option(store.path)}" if t.state != "finished" and not running else None)
    stop = (f"arena league stop {shell_word(t.name)}{_db_option(store.path)}"
            if running and t.format == "league" else None)
    return resume, stop


#: How many (bot, failure type) lines status tells; ``--failures`` tells every reason.
_REASONS_TOLD = 10


def _bot_name(failure: dict[str, Any]) -> str:
    """The failing bot's name, without its version (as status names bots)."""
    return str(failure.get("bot", "?")).split("@")[0]


def _failure_lines(games: list[GameRow], name: str, db: Path) -> list[str]:
    """The games' bot failures counted by type, each told, and how to open one of them (none:
    no line)."""
    if not any(g.failures for g in games):
        return []
    lines = ["", "failures: " + counts_line(f for g in games for f in g.failures)]
    described = describe(((_bot_name(f), f"r{g.round}/t{g.table_index}/g{g.game_index}", f)
                          for g in games for f in g.failures), limit=_REASONS_TOLD)
    lines.extend(f"  {line}" for line in described)
    first = next(g for g in games if g.failures)
    lines.append(f"  one of them in full: arena game {shell_word(first.id)} --seat "
                 f"{first.failures[0].get('seat', 0)}{_db_option(db)}")
    lines.append("  (its bot's author replays it in-process with --rerun BOT, docs/BOTS.md)")
    reasons = distinct_reasons((_bot_name(f), g.id, f) for g in games for f in g.failures)
    if describe_leaves_out(reasons, _REASONS_TOLD):
        lines.append(f"  every reason, with how often: arena status {shell_word(name)} --failures"
                     f"{_db_option(db)}")
    return lines


def failure_reasons(store: Store, t: TournamentRow, bot: str | None = None) -> list[str]:
    """Every distinct reason the bots of ``t`` (or only ``bot``, by name or name@version)
    failed, each with how often and the first game and seat to open with ``arena game``."""
    games = store.games(t.id)
    if bot is not None:
        labels = bot_labels(store)
        played = {labels.get(b, "?") for b in store.entrant_ids(t.id)}
        played.update(labels.get(b, "?") for g in games for b in g.seats)
        names = sorted({label.split("@")[0] for label in played})
        if bot not in played and bot not in names:
            raise StoreError(f"no bot named {bot!r} in tournament {t.name!r} "
                             f"(its bots: {', '.join(map(shell_word, names))})")
    chosen = [(g, f) for g in games for f in g.failures
              if bot is None or bot in (_bot_name(f), str(f.get("bot")))]
    whose = "" if bot is None else f" of {bot}"
    if not chosen:
        return [f"no bot failures{whose} in {t.name}"]
    lines = [f"failures{whose} in {t.name}: " + counts_line(f for _, f in chosen)]
    reasons = distinct_reasons((_bot_name(f), g.id, f) for g, f in chosen)
    lines.extend(reason.line() for reason in reasons)
    # the first reason's game, pasted as it is, as plain status names one
    lines.append(f"open one: arena game {shell_word(reasons[0].first_game)} --seat "
                 f"{reasons[0].first_seat}{_db_option(store.path)}")
    return lines


def _fitted(headers: list[str], rows: list[list[Any]], drop_order: tuple[str, ...],
            width: int | None, names: int | None = None) -> list[str]:
    """A table of the detail, fitted to a terminal of ``width`` columns (None: a pipe's, the
    whole table) by leaving out the columns of ``drop_order``, then cutting the cells of
    column ``names``; and a line naming the columns left out."""
    table, left_out = fit_rows(headers, rows, drop_order, width, names=names, floatfmt=".2f")
    return [table] + ([not_shown(left_out)] if left_out else [])


def _pairing_note(boards: list[list[TableRow]], name: str, db: Path) -> list[str]:
    """What a pairing is, when it is more than one table: in duplicate mode one pairing
    plays each of its deals in several seatings (a table each), its games counted together."""
    seatings = sorted({len(group) for group in boards})
    if seatings == [1] or not seatings:
        return []
    games = sorted({sum(tab.games for tab in group) for group in boards})
    shown = " or ".join(map(str, seatings))
    # one line, as the other notes: a terminal wraps it at words as a whole, where two
    # lines would each be wrapped apart, a word left alone between them
    return [f"(duplicate: a pairing plays each deal in {shown} seatings, "
            f"{' or '.join(map(str, games))} games a pairing; "
            f"arena pairings {shell_word(name)}{_db_option(db)} shows who met whom)"]


def failure_summary(db: str | Path, tournament: str) -> str | None:
    """One line counting a tournament's bot failures by type (None when there were none):
    what ``arena run`` prints under the leaderboard, so a broken bot is not missed."""
    with Store(db, create=False, read_only=True) as store:
        row = store.require(tournament)
        games = store.games(row.id)
    hit = sum(1 for g in games if g.failures)
    if not hit:
        return None
    forfeits = sum(len(g.forfeits) for g in games)
    db_option = _db_option(Path(db))
    return (f"Bot failures in {hit} of {len(games)} games ({counted(forfeits, 'forfeit')}): "
            + counts_line(f for g in games for f in g.failures)
            + f"; arena status {shell_word(tournament)}{db_option} says why")


def status_lines(db: str | Path, tournament: str | None, width: int | None = None, *,
                 failures: bool = False, bot: str | None = None) -> list[str]:
    """The text of ``arena status`` (every tournament, or one in detail; with ``failures``,
    every reason its bots, or ``bot``, failed instead); ``width``: a terminal's columns,
    which the tables fit (the list of tournaments first by showing the times to the
    minute)."""
    with Store(db, create=False, read_only=True) as store:
        if tournament is None:
            return _overview(store, width)
        row = store.require(tournament)
        return failure_reasons(store, row, bot) if failures else _detail(store, row, width)


def status_data(db: str | Path, tournament: str | None, *, failures: bool = False,
                bot: str | None = None) -> dict[str, Any]:
    """What ``arena status --format json`` prints: every field its text shows, as plain data
    (every tournament, or one in detail; with ``failures``, every reason its bots, or
    ``bot``, failed)."""
    with Store(db, create=False, read_only=True) as store:
        if tournament is None:
            return {"tournaments": [_listing_data(store, t) for t in _every(store)]}
        row = store.require(tournament)
        if failures:
            return _failures_data(store, row, bot)
        return _detail_data(store, row)


def _every(store: Store) -> list[TournamentRow]:
    found = (store.tournament(name) for name in store.tournament_names())
    return [t for t in found if t is not None]


def _run_data(store: Store, t: TournamentRow) -> dict[str, Any]:
    """The state as status shows it, and whether a run plays it now (and its pid, if
    known): a stored ``running`` without a run holding its lock is ``stopped``."""
    pid = store.runner_pid(t.name)
    # one look at the lock for both: a run ending between two would be told live and not
    state = "running" if pid is not None else _state(store, t).split(" (")[0]
    return {"state": state, "live": pid is not None,
            "pid": pid if pid is not None and pid > 0 else None}


def _listing_data(store: Store, t: TournamentRow) -> dict[str, Any]:
    """A tournament as the list shows it (the fields of ``arena tournaments --format json``)
    with its run's."""
    sizes = t.spec.get("players_per_game", t.players_per_game)
    labels = bot_labels(store)
    entrants = [labels.get(b, str(b)) for b in store.entrant_ids(t.id)]
    return {"name": t.name, "format": t.format, "players_per_game": sizes,
            "bots": bot_count(t.format, entrants), "versions": len(entrants),
            "games_done": store.count_games(t.id),
            "games_planned": t.games_planned or None, **_run_data(store, t),
            "created_at": t.created_at}


def _detail_data(store: Store, t: TournamentRow) -> dict[str, Any]:
    """One tournament in detail, as :func:`_detail` tells it."""
    labels = bot_labels(store)
    options = bot_options(store)
    entrants = store.entrant_ids(t.id)
    games = store.games(t.id)
    tables = store.tables(t.id)
    boards = group_deals(tables, t.spec.get("duplicate", False))
    secret = seed_is_secret(t.spec, t.state)
    rules = HouseRules.from_json(t.spec.get("rules"))
    running = store.runner_pid(t.name) is not None
    resume, stop = _next_commands(store, t)
    return {
        **_listing_data(store, t),
        "entrants": [{"bot": labels.get(b, str(b)), "options": options.get(b, {})}
                     for b in entrants],
        "sitting": (off_size_split(t.players_per_game, len(entrants))
                    if t.format == "swiss" else None),
        "seed": None if secret else t.seed, "seed_secret": secret,
        "seed_drawn": t.spec.get("seed", 0) is None, "spec_hash": t.spec_hash,
        "finished_at": t.finished_at or None, "rules": rules.changed(),
        # a league plans no rounds: each table is its own, as its game ids number them
        "rounds": None if t.format == "league" else t.rounds,
        "round": max((tab.round for tab in tables), default=None),
        "kept_copies": [{"bot": note.kept, "before_run": note.before_run,
                         "noticed_at": note.noticed_at,
                         "open": t.state != "finished" and note.bot_id in entrants}
                        for note in kept_copy_notes(store, t.id)],
        **_games_data(store, t, games, boards, [labels.get(b, "?") for b in entrants],
                      running),
        **_failure_data(games, store.path),
        "forfeits": sum(len(g.forfeits) for g in games),
        "resume": resume, "stop": stop,
    }


def _games_data(store: Store, t: TournamentRow, games: list[GameRow],
                boards: list[list[TableRow]], entrants: list[str],
                running: bool) -> dict[str, Any]:
    """The rounds' progress (a league's tables, entries and, while it runs, the versions
    it is vetting instead) and a Swiss tournament's standings."""
    if t.format == "league":
        played, open_tables = _league_table_counts([tab for group in boards for tab in group],
                                                   games)
        vetted = vetting(store, t.id) if running else {}
        gave_way = vetting_gave_way(store, t.id) if running else {}
        return {"round_progress": [], "standings": [],
                "tables_played": played, "tables_not_played_out": open_tables,
                "entries": [{"bot": e.key, "state": e.state, "at_table": e.at_table,
                             "reason": e.reason or None} for e in league_entries(store, t.id)],
                "vetting": [{"bot": key, "since_table": since,
                             "gave_way": gave_way.get(key, [])}
                            for key, since in vetted.items()]}
    standings = (_standings(store, t, games, boards, entrants)
                 if t.format == "swiss" and games else [])
    return {"round_progress": _round_progress(store, t, boards, games), "standings": standings}


def _round_progress(store: Store, t: TournamentRow, boards: list[list[TableRow]],
                    games: list[GameRow]) -> list[dict[str, Any]]:
    """Each round's pairings, byes and games done of those planned (a Swiss tournament's
    rounds not paired yet too), as the text's table and the json tell them."""
    planned: Counter[int] = Counter()
    for group in boards:
        planned[group[0].round] += sum(tab.games for tab in group)
    pairings = Counter(group[0].round for group in boards)
    done = Counter(g.round for g in games)
    byes = Counter(r for r, _, _ in store.byes(t.id))
    return [{"round": r, "paired": r in pairings, "pairings": pairings.get(r, 0),
             "byes": byes.get(r, 0), "games_done": done.get(r, 0),
             "games_planned": planned.get(r, 0)}
            for r in range(1, t.rounds + 1) if r in pairings or t.format == "swiss"]


def _failure_data(games: list[GameRow], db: Path, bot: str | None = None) -> dict[str, Any]:
    """The games' bot failures counted by type (and how many of them a restart followed,
    forfeiting nothing), every distinct reason, and the command that opens the first
    (``bot``: only its, by name or name@version)."""
    chosen = [(g, f) for g in games for f in g.failures
              if bot is None or bot in (_bot_name(f), str(f.get("bot")))]
    reasons = distinct_reasons((_bot_name(f), g.id, f) for g, f in chosen)
    counts = FailureCounts()
    for _, failure in chosen:
        counts.add(failure)
    return {"failures": dict(sorted(counts.counts.items())),
            "restarted": {kind: n for kind, n in sorted(counts.restarted.items()) if n},
            "failure_reasons": [{"bot": r.bot, "type": r.type, "detail": r.detail,
                                 "times": r.times, "first_game": r.first_game,
                                 "first_seat": r.first_seat} for r in reasons],
            "open_one": (f"arena game {shell_word(reasons[0].first_game)} --seat "
                         f"{reasons[0].first_seat}{_db_option(db)}" if reasons else None)}


def _failures_data(store: Store, t: TournamentRow, bot: str | None) -> dict[str, Any]:
    """``--failures``: every distinct reason (of ``bot`` alone) in ``t``."""
    failure_reasons(store, t, bot)  # refuses a bot that is not in the tournament
    return {"name": t.name, "bot": bot,
            **_failure_data(store.games(t.id), store.path, bot)}


def write_records(db: str | Path, tournament: str, records: Path) -> ExportedRecords:
    """``arena status --records``: the tournament's game records as JSON lines
    (:func:`export_records`, which leaves a damaged one out)."""
    with Store(db, create=False, read_only=True) as store:
        return export_records(store, store.require(tournament).id, records)
