"""``arena status``: how far stored tournaments have got, read-only and safe during a run; its
text here, made of the facts its json holds (:mod:`~arena.tournament.status_json`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.common.fitting import fit_rows, not_shown, tabulated
from arena.common.plural import counted
from arena.common.printable import printable, shell_word
from arena.common.timestamps import created_fitted
from arena.engine.houserules import HouseRules
from arena.referee.failures import counts_line, describe, describe_leaves_out, distinct_reasons
from arena.tournament.bot_versions import bot_labels, bot_options
from arena.tournament.editions import kept_copy_notes
from arena.tournament.field_changes import field_lines
from arena.tournament.game_records import ExportedRecords, export_records
from arena.tournament.hint_commands import (
    command_path,
    db_option,
    results_command,
    resume_command,
    stored_results_hint,
)
from arena.tournament.league_store import entry_lines
from arena.tournament.planning import games_progress, group_deals, stored_sitting
from arena.tournament.secrecy import secret_seed_note, seed_is_secret
from arena.tournament.status_json import (
    STANDING_FIELDS,
    bot_count,
    chosen_failures,
    failing_bot_name,
    league_table_counts,
    next_commands,
    open_one_command,
    refuse_unknown_bot,
    round_progress,
    status_data,
    swiss_standing_rows,
    tournament_state,
)
from arena.tournament.store import GameRow, Store, TableRow, TournamentRow

# bot_count, status_data and the hint commands are offered here too, where the CLI, the
# rating layer and the tests have always imported them
__all__ = ["LISTING_COLUMNS", "LISTING_LEFT_OUT", "bot_count", "command_path", "failure_reasons",
           "failure_summary", "no_tournaments", "results_command", "resume_command",
           "status_data", "status_lines", "stored_results_hint", "write_records"]


def _games(t: TournamentRow, done: int) -> str:
    """The tournament's games played, of those planned (a league's: beside its budget)."""
    return games_progress(done, t.games_planned, t.format == "league")


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
                     _games(t, done), tournament_state(store, t).split(" (")[0], t.created_at])
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


def _bot_count(t: TournamentRow, entrants: list[str]) -> str:
    """How many bots (and versions, where a league's differ): ``12 bots (16 versions)``."""
    bots = f"{len(entrants)} bots"
    names = bot_count(t.format, entrants)
    if names != len(entrants):
        bots = f"{names} bot{'' if names == 1 else 's'} ({len(entrants)} versions)"
    return bots


def _heading(store: Store, t: TournamentRow, entrants: list[str], done: int) -> list[str]:
    """What the tournament is (format, bots, seed, state, times), and its house rules."""
    sitting = (stored_sitting(t.spec, t.players_per_game, entrants) if t.format == "swiss"
               else None)
    lines = [
        f"tournament {t.name}: {t.format}, {_sizes(t)} per table"
        f"{'' if sitting is None else f' (sitting {sitting})'}, "
        f"{_bot_count(t, entrants)}, {shown_seed(t.seed, t.spec, t.state)}, "
        f"spec hash {t.spec_hash}",
        f"state {tournament_state(store, t)}; games {_games(t, done)}",
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
            line += (f"; '{resume} --continue{db_option(store.path)}' enters the new "
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
             games_progress(r["games_done"], r["games_planned"], False)] if r["paired"]
            else [r["round"], "-", "-", "not paired yet"]
            for r in round_progress(store, t, boards, games)]
    if not rows:
        return []
    return ["", *_fitted(["round", "pairings", "byes", "games"], rows, ("byes", "pairings"),
                         width), *_pairing_note(boards, t.name, store.path)]


def _league_tables(tables: list[TableRow], games: list[GameRow]) -> str:
    played, open_tables = league_table_counts(tables, games)
    return f"tables played: {played}" + (
        f" (and {open_tables} chosen, not played out yet)" if open_tables else "")


def _standing_lines(store: Store, t: TournamentRow, games: list[GameRow],
                    boards: list[list[TableRow]], entrants: list[str],
                    width: int | None) -> list[str]:
    """A Swiss tournament's standings, with the pairings each entry has played."""
    rows = swiss_standing_rows(store, t, games, boards, entrants)
    return ["", *_fitted(list(STANDING_FIELDS),
                         [[row[field] for field in STANDING_FIELDS] for row in rows],
                         ("byes", "pairings", "buchholz"), width, names=1),
            *field_lines(t.spec.get("withdrawn") or {}, t.spec.get("joined") or {})]


def _next_step(store: Store, t: TournamentRow) -> list[str]:
    """How to go on: resume a tournament no run holds, stop a running league."""
    resume, go_on, stop = next_commands(store, t)
    if go_on is not None:
        return ["", f"go on with: {go_on}"]
    if resume is not None:
        return ["", f"resume with: {resume}"]
    if stop is not None:
        return ["", f"stop with: {stop}"]
    return []


#: How many (bot, failure type) lines status tells; ``--failures`` tells every reason.
_REASONS_TOLD = 10


def _failure_lines(games: list[GameRow], name: str, db: Path) -> list[str]:
    """The games' bot failures counted by type, each told, and how to open one of them (none:
    no line)."""
    if not any(g.failures for g in games):
        return []
    lines = ["", "failures: " + counts_line(f for g in games for f in g.failures)]
    described = describe(((failing_bot_name(f), f"r{g.round}/t{g.table_index}/g{g.game_index}", f)
                          for g in games for f in g.failures), limit=_REASONS_TOLD)
    lines.extend(f"  {line}" for line in described)
    first = next(g for g in games if g.failures)
    lines.append(f"  one of them in full: arena game {shell_word(first.id)} --seat "
                 f"{first.failures[0].get('seat', 0)}{db_option(db)}")
    lines.append("  (its bot's author replays it in-process with --rerun BOT, docs/BOTS.md)")
    reasons = distinct_reasons((failing_bot_name(f), g.id, f) for g in games for f in g.failures)
    if describe_leaves_out(reasons, _REASONS_TOLD):
        lines.append(f"  every reason, with how often: arena status {shell_word(name)} --failures"
                     f"{db_option(db)}")
    return lines


def failure_reasons(store: Store, t: TournamentRow, bot: str | None = None) -> list[str]:
    """Every distinct reason the bots of ``t`` (or only ``bot``, by name or name@version)
    failed, each with how often and the first game and seat to open with ``arena game``."""
    games = store.games(t.id)
    refuse_unknown_bot(store, t, games, bot)
    chosen = chosen_failures(games, bot)
    whose = "" if bot is None else f" of {bot}"
    if not chosen:
        return [f"no bot failures{whose} in {t.name}"]
    lines = [f"failures{whose} in {t.name}: " + counts_line(f for _, f in chosen)]
    reasons = distinct_reasons((failing_bot_name(f), g.id, f) for g, f in chosen)
    lines.extend(reason.line() for reason in reasons)
    # the first reason's game, pasted as it is, as plain status names one
    lines.append(f"open one: {open_one_command(reasons[0], store.path)}")
    return lines


def _fitted(headers: list[str], rows: list[list[Any]], drop_order: tuple[str, ...],
            width: int | None, names: int | None = None) -> list[str]:
    """A table of the detail, fitted to a terminal of ``width`` columns (None: a pipe's, the
    whole table) by leaving out the columns of ``drop_order``, then cutting the cells of
    column ``names``; and a line naming the columns left out."""
    table, left_out = fit_rows(headers, rows, drop_order, width, names=names, floatfmt=".2f",
                               missingval="-")
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
            f"arena pairings {shell_word(name)}{db_option(db)} shows who met whom)"]


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
    option = db_option(Path(db))
    return (f"Bot failures in {hit} of {len(games)} games ({counted(forfeits, 'forfeit')}): "
            + counts_line(f for g in games for f in g.failures)
            + f"; arena status {shell_word(tournament)}{option} says why")


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


def write_records(db: str | Path, tournament: str, records: Path) -> ExportedRecords:
    """``arena status --records``: the tournament's game records as JSON lines
    (:func:`export_records`, which leaves a damaged one out)."""
    with Store(db, create=False, read_only=True) as store:
        return export_records(store, store.require(tournament).id, records)
