"""The leaderboard as people are shown it: the text ``arena leaderboard`` prints (also each
frame ``--watch`` refreshes, and the board ``arena run`` ends with) with its title and
footnotes, the table fitted to a terminal's width, the json and csv documents (the json is
also the site's, :mod:`arena.web.data`), and a league's newest versions.
:mod:`arena.rating.leaderboard` computes the board itself.

A league retires a bot's older versions from its matchmaking when a newer one enters; they
keep their games and ratings. By default a league's leaderboard shows the newest version of
each bot (the one playing); ``--all-versions`` shows them all, each with its games and sigma.
A bot with no version playing (retired by the organiser, or its files gone) is named under
the board.
Other tournaments show every version they were played with, as always.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from arena.common.fitting import fit_columns, fitting_width, shortened, with_notes
from arena.common.printable import printable, shell_word
from arena.rating.leaderboard import (
    SORTS,
    Leaderboard,
    LeaderboardRow,
    build_leaderboard,
    sort_leaderboard,
    standings_leader,
)
from arena.rating.render import MACHINE_FORMATS, check_format, render_csv, render_json, render_table
from arena.rating.trueskill_rating import RatingMemo
from arena.referee.failures import failures_and_forfeits
from arena.tournament.field_changes import field_lines

__all__ = [
    "ALWAYS_SHOWN",
    "TABLE_WIDTH",
    "fitted_table",
    "leaderboard_json",
    "leaderboard_report",
    "leaderboard_text",
    "leaderboard_title",
    "newest_versions",
    "rating_footnote",
    "render_leaderboard",
    "standings_note",
    "standings_note_parts",
    "table_columns",
]


_TABLE_COLUMNS = ("rank", "bot", "version", "mu", "sigma", "mu-3sigma", "games", "wins",
                  "win %", "mean place", "points", "byes", "buchholz", "failures", "note")
_TABLE_FLOATFMT = ("g", "g", "g", ".2f", ".2f", ".2f", "g", "g", ".1f", ".2f", ".2f", "g",
                   ".2f", "g", "g")
_SWISS_ONLY = ("byes", "buchholz")
#: Shown whatever ``--columns`` names: a row without them says whose figures it holds nowhere.
ALWAYS_SHOWN = ("rank", "bot")
#: The width the default text table fits (a terminal's, with room to spare).
TABLE_WIDTH = 100
#: Columns the default table leaves out, in this order, while it is wider than its width:
#: what the rank and the rating already say most of.
_DROP_TO_FIT = ("sigma", "mean place", "win %", "mu", "version")
#: Then, on a terminal narrower than :data:`TABLE_WIDTH`, these: all but the rank, the bot
#: and what the board is sorted by (:data:`_SORT_KEYS`).
_DROP_NARROW = ("games", "buchholz", "byes", "wins", "points", "failures", "note", "mu-3sigma")
#: The columns that say why each row is where it is, by sort (points may equal the wins).
_SORT_KEYS = {"rating": ("mu-3sigma",), "points": ("points", "buchholz", "wins")}


def table_columns() -> tuple[str, ...]:
    """Every column of the text table (``--columns`` picks among these)."""
    return _TABLE_COLUMNS


def _hidden(board: Leaderboard) -> set[str]:
    """Columns that mean nothing here: Buchholz outside Swiss, byes where nobody had one."""
    hidden = set() if board.swiss else {"buchholz"}
    if not board.swiss and not any(row.byes for row in board.rows):
        hidden.add("byes")
    return hidden


def _silent(board: Leaderboard) -> list[str]:
    """Columns the default table leaves out as saying nothing: empty for every row (no
    failures, no note, no byes), or points where they equal the wins (two seats, no ties)."""
    silent = [name for name in ("byes", "failures", "note")
              if not any(getattr(row, name) for row in board.rows)
              and not (name == "failures" and any(row.forfeits for row in board.rows))]
    if all(row.points == row.wins for row in board.rows):
        silent.append("points")
    return silent


def leaderboard_json(board: Leaderboard) -> dict[str, Any]:
    """The JSON document of ``arena leaderboard --format json`` (full precision)."""
    rows = []
    for row in board.rows:
        item = asdict(row)
        item["note"] = row.note
        del item["field_status"]  # told in the note
        del item["entry"]  # the sort's, as the standings' entry order
        del item["ranking_buchholz"]  # the sort's too (buchholz is what is shown)
        if row.standing is None:  # only a continued Swiss tournament's rows have one
            item.pop("standing")
        for name in _hidden(board):
            item.pop(name)
        rows.append(item)
    tournament = board.tournament
    return {
        "scope": board.scope,
        "tournament": None if tournament is None else {
            "name": tournament.name, "format": tournament.format, "state": tournament.state,
        },
        "games": board.games,
        "rated_games": board.rated,
        "rating": board.settings.to_json(),
        "sort": SORTS[board.sort],
        "points": _points_note(board),
        "bots": rows,
    }


def _points_note(board: Leaderboard) -> str:
    """How the json's points are counted: a duplicate Swiss weighs an off-size table's games
    as its standings do, which a reader summing ``arena results`` would otherwise miss."""
    note = "per game: (k - position)/(k - 1) for k bots, shared places split"
    tournament = board.tournament
    if board.swiss and tournament is not None and tournament.spec.get("duplicate", False):
        note += ("; a game at a table of another size than the spec's is weighted by the "
                 "spec size's seatings over its own, as the Swiss standings count it")
    return note


def render_leaderboard(board: Leaderboard, fmt: str = "simple") -> str:
    """The leaderboard in ``json``, ``csv`` or any tabulate format."""
    check_format(fmt)
    if fmt == "json":
        return render_json(leaderboard_json(board))
    if fmt == "csv":
        kinds = board.failure_types()
        headers = ["rank", "bot", "version", "key", "mu", "sigma", "conservative", "games",
                   "wins", "win_pct", "mean_placement", "points", *_SWISS_ONLY]
        headers += ["failures", *(f"failures_{kind}" for kind in kinds), "forfeits",
                    "failure_reason", "new_version", "note", "options", "older_versions",
                    "standing"]
        records = []
        for row in board.rows:
            record: dict[str, Any] = {
                name: getattr(row, name) for name in headers
                if name not in ("failures", "note", "new_version", "older_versions")
                and hasattr(row, name)
            }
            for name in _hidden(board):  # stable columns: empty where they mean nothing
                record[name] = ""
            record["failures"] = sum(row.failures.values())
            record.update({f"failures_{kind}": row.failures.get(kind, 0) for kind in kinds})
            record["new_version"] = int(row.new_version)
            record["note"] = row.note
            record["options"] = _options_cell(row.options)
            # one cell, as json's list: versions hold no space (content hashes)
            record["older_versions"] = " ".join(row.older_versions)
            records.append(record)
        return render_csv(headers, records)
    return _render_table(board, fmt, [c for c in _TABLE_COLUMNS if c not in _hidden(board)])


def _options_cell(options: dict[str, Any]) -> str:
    """A bot's settings in one csv cell: a JSON object, as json has them (a value may hold a
    comma or an equals sign, which ``name=value`` pairs could not tell apart); empty for
    none."""
    return json.dumps(options, sort_keys=True, ensure_ascii=False) if options else ""


def _render_table(board: Leaderboard, fmt: str, columns: Sequence[str],
                  most: int | None = None) -> str:
    """The table of ``columns``, the bots' names cut to ``most`` characters (None: whole)."""
    keep = [_TABLE_COLUMNS.index(name) for name in columns]
    # two versions of one bot (a tournament gone on with --continue, a league's every-version
    # table) are told apart by their version: without its column, they are named name@version
    labels = Counter(row.label for row in board.rows) if "version" not in columns else Counter()
    table = []
    for row in board.rows:
        label = (row.label if labels[row.label] < 2
                 else row.label.replace(row.bot, f"{row.bot}@{row.version}", 1))
        values = [row.rank, shortened(printable(label), most), row.version, row.mu, row.sigma,
                  row.conservative, row.games, row.wins, row.win_pct, row.mean_placement,
                  row.points, row.byes, row.buchholz,
                  failures_and_forfeits(row.failures, row.forfeits), row.note]
        table.append([values[i] for i in keep])
    return render_table([_TABLE_COLUMNS[i] for i in keep], table, fmt,
                        [_TABLE_FLOATFMT[i] for i in keep])


def fitted_table(board: Leaderboard, fmt: str = "simple", columns: Sequence[str] | None = None,
                 *, wide: bool = False, width: int | None = TABLE_WIDTH
                 ) -> tuple[str, list[str]]:
    """The text table with ``columns`` (validated, in the table's order, with the rank and
    the bot whether named or not: :data:`ALWAYS_SHOWN`), with ``wide`` every
    column that means something here, or by default the columns that say something, less
    those of :data:`_DROP_TO_FIT` it must leave out to fit ``width`` (None: none, as a
    document's or a ``tsv``'s, whatever ``width``: :func:`fitting_width`); and the columns
    left out that a reader may look for (to name in a footnote)."""
    if wide:
        return render_leaderboard(board, fmt), []
    if columns is not None:
        unknown = [c for c in columns if c not in _TABLE_COLUMNS]
        if unknown:
            raise ValueError(f"unknown column(s) {', '.join(repr(c) for c in unknown)} "
                             f"(choose among: {', '.join(_TABLE_COLUMNS)})")
        return _render_table(board, fmt, [c for c in _TABLE_COLUMNS
                                          if c in columns or c in ALWAYS_SHOWN]), []
    silent = _silent(board)
    shown = [c for c in _TABLE_COLUMNS if c not in _hidden(board) and c not in silent]
    # a league's readers ask how sure each rating is (new versions keep arriving): its
    # sigma is the last column given up
    league = board.tournament is not None and board.tournament.format == "league"
    order = tuple(c for c in _DROP_TO_FIT if not (league and c == "sigma"))
    names: list[str] = []
    width = fitting_width(fmt, width)
    # still too wide (long notes, failures or names): a narrower terminal's leaves out more,
    # a full width's the note alone (its versions are what --all-versions lists); then names
    # are cut
    if width is not None:
        order += (tuple(c for c in _DROP_NARROW if c not in _SORT_KEYS.get(board.sort, ()))
                  if width < TABLE_WIDTH else ("note",))
        names = [printable(row.label) for row in board.rows]
    if league:
        order += ("sigma",)
    text, left_out = fit_columns(lambda kept, most: _render_table(board, fmt, kept, most),
                                 shown, order, width, names)
    return text, (["points"] if "points" in silent else []) + left_out


def leaderboard_title(board: Leaderboard) -> str:
    """One line saying what the table is, for people reading a terminal."""
    what = ("all recorded games" if board.tournament is None
            else f"{board.tournament.name} ({board.tournament.format}, {board.tournament.state})")
    games = f"{board.games} game{'' if board.games == 1 else 's'} rated"
    if board.rated is not None and board.rated != board.games:
        # a class's bots that never start meet each other: say why those games count nowhere
        others = f"the other {board.games - board.rated}: " if board.rated else ""
        games = (f"{board.games} games, {board.rated or 'none'} of them rated ({others}every "
                 "seat forfeited, or one bot held every seat)")
    return (f"Leaderboard: {what}, {games}; sorted by "
            + ("mu - 3*sigma" if board.sort == "rating" else "points, then Buchholz"))


def standings_note_parts(board: Leaderboard) -> list[tuple[str, bool]]:
    """Under a Swiss ranked by rating, the line saying that its standings, the tournament's
    result, rank by points and whom they put first, as pieces ``(text, is_a_name)`` (a page
    isolates the name); none for another board. The rating's first is often not the
    standings' first, and a class reading the board takes its first row for the winner."""
    leader = standings_leader(board)
    if not board.swiss or board.sort != "rating" or board.tournament is None \
            or leader is None or not board.games:
        return []
    return [("Ranked by rating, not as the Swiss standings (the tournament's result), which "
             "rank by points, then Buchholz: ", False), (leader.label, True),
            (f" first (arena leaderboard {shell_word(board.tournament.name)} --sort points).",
             False)]


def standings_note(board: Leaderboard) -> list[str]:
    """:func:`standings_note_parts` as a line for a terminal (none for another board)."""
    parts = standings_note_parts(board)
    return ["".join(printable(text) if name else text for text, name in parts)] if parts else []


def rating_footnote(board: Leaderboard) -> str:
    """The rating's settings, in a line under the table."""
    s = board.settings
    return (f"TrueSkill mu={s.mu:g} sigma={s.sigma:.4g} beta={s.beta:.4g} tau={s.tau:.4g} "
            f"draw={s.draw_probability:g}.")


def _entries_footnote(board: Leaderboard) -> list[str]:
    """Under a continued Swiss tournament's table: the entries whose points its versions
    split, summed as the standings count them, and where --sort points puts them."""
    entries: dict[int, list[LeaderboardRow]] = defaultdict(list)
    for row in board.rows:
        if row.standing is not None:
            entries[row.standing].append(row)
    split = [rows for _, rows in sorted(entries.items()) if len(rows) > 1]
    if not split:
        return []
    sums = "; ".join(
        f"{rows[0].label} {sum(r.points for r in rows):.2f} ("
        + " + ".join(f"{r.version} {r.points:.2f}" for r in rows) + ")" for rows in split)
    where = ("each at its entry's place" if board.sort == "points"
             else "--sort points ranks each at its entry's place")
    name = shell_word(board.tournament.name) if board.tournament is not None else "NAME"
    return [f"Swiss standings (arena status {name}) count an entry's versions as one: "
            f"{sums}; {where}."]


def _not_shown_footnote(left_out: Sequence[str]) -> list[str]:
    """The line under the table naming the columns it left out; none when none."""
    if not left_out:
        return []
    named = ", ".join(f"{c} (equal to wins)" if c == "points" else c for c in left_out)
    return [f"Not shown: {named}; --wide shows every column."]


#: What a note's wrapping keeps on one line: a command to paste, and the sort's formula.
_UNBROKEN = re.compile(r"arena [\w-]+ [^\s)]+|mu - 3\*sigma")


def _fill(line: str, width: int) -> str:
    """``line`` wrapped at words into ``width`` columns, a command (``arena status NAME``)
    and "mu - 3*sigma" kept on one line."""
    kept = _UNBROKEN.sub(lambda m: m.group().replace(" ", "\xa0"), line)  # never broken
    return textwrap.fill(kept, width, break_long_words=False,
                         break_on_hyphens=False).replace("\xa0", " ")


def leaderboard_report(board: Leaderboard, fmt: str = "simple",
                       columns: Sequence[str] | None = None, *, wide: bool = False,
                       width: int | None = None) -> str:
    """The leaderboard with a title line and footnotes (the rating's settings, the columns
    left out, what ``new`` means), what ``arena run`` and ``arena leaderboard`` show; by
    default the table fits :data:`TABLE_WIDTH` or a narrower terminal's ``width``
    (:func:`fitted_table`), and on a terminal (``width`` not None; a pipe's is None) the
    lines around it wrap at words into its width. json and csv are the full table alone."""
    if fmt in MACHINE_FORMATS:
        return render_leaderboard(board, fmt)
    table, left_out = fitted_table(board, fmt, columns, wide=wide, width=_table_width(width))
    lines = [leaderboard_title(board), table, rating_footnote(board)]
    lines.extend(_not_shown_footnote(left_out))
    lines.extend(_entries_footnote(board))
    spec = board.tournament.spec if board.tournament is not None else {}
    if board.swiss:
        lines.extend(field_lines(spec.get("withdrawn") or {}, spec.get("joined") or {}))
        lines.extend(standings_note(board))
    if any(row.new_version for row in board.rows) and (columns is None or "note" in columns) \
            and "note" not in left_out:  # what the note column says, where it is shown
        league = board.tournament is not None and board.tournament.format == "league"
        lines.append("new: a new version of a bot is rated from scratch; older versions keep "
                     "their own ratings" + ("." if league else " (see arena leaderboard --all)."))
    return "\n".join(line if i == 1 else _wrapped(line, width) for i, line in enumerate(lines))


def _table_width(terminal: int | None) -> int:
    """The columns the default table fits on a terminal ``terminal`` columns wide (None: a
    pipe's or a file's): :data:`TABLE_WIDTH`, or the terminal's where it is narrower."""
    return TABLE_WIDTH if terminal is None else min(terminal, TABLE_WIDTH)


def _wrapped(line: str, terminal: int | None) -> str:
    """A line under the table wrapped at words into a terminal's width (a terminal would
    break it mid-word); a pipe's or a file's as it is, one line to search."""
    return line if terminal is None else _fill(line, terminal)


def newest_versions(board: Leaderboard) -> tuple[Leaderboard, int]:
    """``board`` with only the newest version of each bot (the highest store id, which the
    rows' ``older_versions`` name), ranked again; and how many rows were left out."""
    older = {(row.bot, version) for row in board.rows for version in row.older_versions}
    kept = [row for row in board.rows if (row.bot, row.version) not in older]
    hidden = len(board.rows) - len(kept)
    board.rows = kept
    return sort_leaderboard(board, board.sort), hidden


def leaderboard_text(db: str | Path, tournament: str | None = None, *,
                     all_games: bool = False, all_versions: bool = False,
                     sort: str = "rating", fmt: str = "simple",
                     columns: Sequence[str] | None = None, wide: bool = False,
                     store_ratings: bool = False, memo: RatingMemo | None = None,
                     width: int | None = None) -> str:
    """One leaderboard as ``arena leaderboard`` prints it (and each ``--watch`` frame): a
    league's newest versions unless ``all_versions``, with a line saying what is hidden;
    ``all_games``: every game of every tournament (``--all``).
    ``store_ratings``: also store the tournament's rating history (:func:`build_leaderboard`);
    ``memo``: the frames' shared memo, so that each rates only the games new since the last;
    ``width``: the terminal's columns (None: a pipe's or a file's), which the default table
    fits where fewer than :data:`TABLE_WIDTH`, and the lines under it wrap into."""
    board = sort_leaderboard(build_leaderboard(db, tournament, all_games=all_games,
                                               store_ratings=store_ratings, memo=memo), sort)
    hidden = 0
    if board.tournament is not None and board.tournament.format == "league" and not all_versions:
        board, hidden = newest_versions(board)
    if fmt == "simple" or fmt in MACHINE_FORMATS:  # simple, for people: which tournament
        text = leaderboard_report(board, fmt, columns, wide=wide, width=width)
    else:
        text, left_out = fitted_table(board, fmt, columns, wide=wide,
                                      width=_table_width(width))
        if fitting_width(fmt, TABLE_WIDTH) is not None:  # a terminal's table: what it left out
            text = "\n".join([text, *(_wrapped(note, width)
                                      for note in _not_shown_footnote(left_out))])
    if fmt in MACHINE_FORMATS:
        return text
    notes: list[str] = []
    if hidden:
        notes.append(f"{hidden} older version{'' if hidden == 1 else 's'} not shown (retired "
                     "from the league, ratings kept); --all-versions shows them.")
    if board.tournament is not None and board.tournament.format == "league" and \
            fmt != "tsv" and (gone := _not_playing(db, board)):
        notes.append(f"Retired from the league, no longer playing (ratings kept): "
                     f"{', '.join(gone)}.")
    if fitting_width(fmt, TABLE_WIDTH) is not None:  # a terminal's: as the footnotes wrap
        notes = [_wrapped(note, width) for note in notes]
    return with_notes(text, notes, fmt)


def _not_playing(db: str | Path, board: Leaderboard) -> list[str]:
    """The bots of a league's board with no active version: retired by the organiser, or
    their files gone (``arena status`` says which); their last ratings are still shown."""
    from arena.tournament.league_store import league_entries, not_playing
    from arena.tournament.store import Store

    assert board.tournament is not None
    with Store(db, create=False, read_only=True) as store:
        entries = league_entries(store, board.tournament.id)
    return not_playing(entries, (row.bot for row in board.rows))
