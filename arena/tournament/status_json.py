"""``arena status --format json``: every fact its text shows of stored tournaments, as plain
data; :mod:`~arena.tournament.status`'s text is made of the same facts (a tournament's state as
its run's lock corrects it, each round's progress, a Swiss tournament's standings, the
commands that resume or stop it), so the two never tell a tournament apart."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from arena.common.printable import shell_word
from arena.engine.houserules import HouseRules
from arena.errors import StoreError
from arena.referee.failures import FailureCounts, Reason, distinct_reasons
from arena.tournament.bot_versions import bot_labels, bot_options
from arena.tournament.editions import entry_indexes, kept_copy_notes
from arena.tournament.field_changes import field_status
from arena.tournament.hint_commands import command_path, db_option, resume_command
from arena.tournament.league_store import league_entries, vetting, vetting_gave_way
from arena.tournament.planning import games_plan, group_deals, sitting_json, stored_sitting
from arena.tournament.secrecy import seed_is_secret
from arena.tournament.standings import swiss_standings
from arena.tournament.store import GameRow, Store, TableRow, TournamentRow, shown_state

__all__ = ["STANDING_FIELDS", "bot_count", "chosen_failures", "failing_bot_name",
           "league_table_counts", "next_commands", "open_one_command", "refuse_unknown_bot",
           "round_progress", "spent_budget", "status_data", "swiss_standing_rows",
           "tournament_state"]


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
    state = "running" if pid is not None else tournament_state(store, t).split(" (")[0]
    return {"state": state, "live": pid is not None,
            "pid": pid if pid is not None and pid > 0 else None}


def _listing_data(store: Store, t: TournamentRow) -> dict[str, Any]:
    """A tournament as the list shows it (the fields of ``arena tournaments --format json``)
    with its run's."""
    sizes = t.spec.get("players_per_game", t.players_per_game)
    labels = bot_labels(store)
    entrants = [labels.get(b, str(b)) for b in store.entrant_ids(t.id)]
    done = store.count_games(t.id)
    return {"name": t.name, "format": t.format, "players_per_game": sizes,
            "bots": bot_count(t.format, entrants), "versions": len(entrants),
            "games_done": done, **games_plan(done, t.games_planned, t.format == "league"),
            **_run_data(store, t),
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
    resume, go_on, stop = next_commands(store, t)
    return {
        **_listing_data(store, t),
        "entrants": [{"bot": labels.get(b, str(b)), "options": options.get(b, {})}
                     for b in entrants],
        "sitting": sitting_json(stored_sitting(t.spec, t.players_per_game,
                                                   [labels.get(b, str(b)) for b in entrants])
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
        "resume": resume, "go_on": go_on, "stop": stop,
    }


def _games_data(store: Store, t: TournamentRow, games: list[GameRow],
                boards: list[list[TableRow]], entrants: list[str],
                running: bool) -> dict[str, Any]:
    """The rounds' progress (a league's tables, entries and, while it runs, the versions
    it is vetting instead) and a Swiss tournament's standings."""
    if t.format == "league":
        played, open_tables = league_table_counts([tab for group in boards for tab in group],
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
    standings = (swiss_standing_rows(store, t, games, boards, entrants)
                 if t.format == "swiss" and games else [])
    return {"round_progress": round_progress(store, t, boards, games), "standings": standings}


def round_progress(store: Store, t: TournamentRow, boards: list[list[TableRow]],
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
    chosen = chosen_failures(games, bot)
    reasons = distinct_reasons((failing_bot_name(f), g.id, f) for g, f in chosen)
    counts = FailureCounts()
    for _, failure in chosen:
        counts.add(failure)
    return {"failures": dict(sorted(counts.counts.items())),
            "restarted": {kind: n for kind, n in sorted(counts.restarted.items()) if n},
            "failure_reasons": [{"bot": r.bot, "type": r.type, "detail": r.detail,
                                 "times": r.times, "first_game": r.first_game,
                                 "first_seat": r.first_seat} for r in reasons],
            "open_one": open_one_command(reasons[0], db) if reasons else None}


def _failures_data(store: Store, t: TournamentRow, bot: str | None) -> dict[str, Any]:
    """``--failures``: every distinct reason (of ``bot`` alone) in ``t``."""
    games = store.games(t.id)
    refuse_unknown_bot(store, t, games, bot)
    return {"name": t.name, "bot": bot, **_failure_data(games, store.path, bot)}


def tournament_state(store: Store, t: TournamentRow) -> str:
    """The stored state, corrected by whether a run actually holds the tournament's lock."""
    pid = store.runner_pid(t.name)
    if pid is not None:
        return f"running (pid {pid})" if pid > 0 else "running"
    if t.state == "stopped":  # a league told to stop (arena league stop)
        how = "as asked"
    elif shown_state(store.path, t.name, t.state) == "stopped":
        # killed, or ended by an error it could not record (a full disk): either way, resumable
        how = "its run ended before finishing"
    else:
        return shown_state(store.path, t.name, t.state)
    budget = spent_budget(store, t)
    if budget is not None:
        return (f"stopped ({how}, its budget of {budget:,} games spent: raise 'budget' in its "
                "spec and run it again to go on, docs/LEAGUE.md)")
    return f"stopped ({how}; run the spec again to resume)"


def spent_budget(store: Store, t: TournamentRow) -> int | None:
    """A league's budget of games, where its games reach it and no table is left to play
    out: a run of its spec as it stands plays nothing (None otherwise)."""
    if t.format != "league" or not t.games_planned:
        return None
    if store.count_games(t.id) < t.games_planned:
        return None
    _, unfinished = league_table_counts(store.tables(t.id), store.games(t.id))
    return None if unfinished else t.games_planned


def bot_count(tournament_format: str, entrants: Sequence[str]) -> int:
    """How many bots the entrants (``name@version`` keys) are: a league's are every version
    that entered, so its names count; any other's, each entrant."""
    if tournament_format == "league":
        return len({key.split("@")[0] for key in entrants})
    return len(entrants)


def league_table_counts(tables: list[TableRow], games: list[GameRow]) -> tuple[int, int]:
    """How many of a league's tables (a table a round) are played out, and how many more
    were chosen: a batch under way, or the table a stopped run plays out when resumed."""
    planned: Counter[int] = Counter()
    for tab in tables:
        planned[tab.round] += tab.games
    done = Counter(g.round for g in games)
    played = sum(1 for r, n in planned.items() if done[r] >= n)
    return played, len(planned) - played


STANDING_FIELDS = ("rank", "bot", "score", "buchholz", "pairings", "byes")


def swiss_standing_rows(store: Store, t: TournamentRow, games: list[GameRow],
               boards: list[list[TableRow]], entrants: list[str]) -> list[dict[str, Any]]:
    """A Swiss tournament's standings, a row a bot, with the pairings each has played."""
    played = {(g.round, g.table_index) for g in games}
    entry_of = entry_indexes(store, t.id)  # an entry's pairings under an older version too
    met = Counter(entry_of.get(bot) for group in boards
                  if any((tab.round, tab.table_index) in played for tab in group)
                  for bot in group[0].seats)
    withdrawn, joined = t.spec.get("withdrawn") or {}, t.spec.get("joined") or {}
    return [{**dict(zip(STANDING_FIELDS, (s.rank, entrants[s.entrant], float(s.score),
                                          _number(s.shown_buchholz), met[s.entrant],
                                          s.byes),
                        strict=True)),
             "field": field_status(entrants[s.entrant].split("@")[0], withdrawn, joined)}
            for s in swiss_standings(store, t, games=games)]


def _number(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def next_commands(store: Store, t: TournamentRow) -> tuple[str | None, str | None, str | None]:
    """How to go on, where it applies (else None): the command that resumes a tournament no
    run holds; for a league stopped with its budget spent, which such a command would not
    play, the step instead (raise 'budget', then that command); the command that stops a
    running league (a running one is stopped, not resumed)."""
    running = store.runner_pid(t.name) is not None
    resume = (f"{resume_command(t.spec_path, None, t.spec.get('overrides'))}"
              f"{db_option(store.path)}" if t.state != "finished" and not running else None)
    go_on = None
    if resume is not None and spent_budget(store, t) is not None:  # as it stands: no game
        spec = command_path(t.spec_path) if t.spec_path else "its spec"
        resume, go_on = None, f"raise 'budget' in {spec}, then {resume}"
    stop = (f"arena league stop {shell_word(t.name)}{db_option(store.path)}"
            if running and t.format == "league" else None)
    return resume, go_on, stop


def chosen_failures(games: list[GameRow],
                    bot: str | None) -> list[tuple[GameRow, dict[str, Any]]]:
    """The games' bot failures, each with its game (``bot``: only its, by name or
    name@version)."""
    return [(g, f) for g in games for f in g.failures
            if bot is None or bot in (failing_bot_name(f), str(f.get("bot")))]


def open_one_command(reason: Reason, db: Path) -> str:
    """The command that opens the first game a reason was given in, at its seat."""
    return (f"arena game {shell_word(reason.first_game)} --seat {reason.first_seat}"
            f"{db_option(db)}")


def failing_bot_name(failure: dict[str, Any]) -> str:
    """The failing bot's name, without its version (as status names bots)."""
    return str(failure.get("bot", "?")).split("@")[0]


def refuse_unknown_bot(store: Store, t: TournamentRow, games: list[GameRow],
                       bot: str | None) -> None:
    """Refuse ``bot`` (a name or name@version; None: every bot) when it played none of the
    ``games`` of ``t`` and entered none of its versions."""
    if bot is None:
        return
    labels = bot_labels(store)
    played = {labels.get(b, "?") for b in store.entrant_ids(t.id)}
    played.update(labels.get(b, "?") for g in games for b in g.seats)
    names = sorted({label.split("@")[0] for label in played})
    if bot not in played and bot not in names:
        raise StoreError(f"no bot named {bot!r} in tournament {t.name!r} "
                         f"(its bots: {', '.join(map(shell_word, names))})")
