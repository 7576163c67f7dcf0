"""Every table the CLI writes as ``--format tsv``, pasted into a spreadsheet: each cell is its
value alone. tabulate padded the cells with spaces to align them (``"  rank\\tbot  "``), which a
spreadsheet keeps (a number became text, a name had trailing spaces), dropped a row's empty
cells at its end, and broke a long cell onto lines of its own, read as more rows."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_store_builder import GameSpec, StoreBuilder  # noqa: E402

from arena.cli.main import app  # noqa: E402
from arena.engine.houserules import RULE_CHOICES, RULE_HELP  # noqa: E402
from arena.engine.rules_text import effect_rows  # noqa: E402

runner = CliRunner()


@pytest.fixture
def tiny_db(tmp_path: Path) -> Path:
    """Three games of a round robin among names of unequal lengths (padding aligned them),
    one forfeit (a failures cell), and a bot that never played (cells without a value)."""
    path = tmp_path / "tiny.db"
    builder = StoreBuilder(path)
    tid, (ann, bob, carolina, _) = builder.tournament("tiny", ["ann", "bob", "carolina", "dora"])
    builder.game(GameSpec(tid, 0, 0, 0, [ann, bob], [1, 2]))
    builder.game(GameSpec(tid, 0, 1, 0, [bob, carolina], [1, 2]))
    builder.game(GameSpec(tid, 1, 0, 0, [ann, carolina], [2, 1], failures=[
        {"seat": 0, "bot": ann, "type": "crash", "detail": "exit code 1"}],
        forfeits={"0": "crash"}))
    builder.close()
    return path


def _output(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline=""), delimiter="\t"))


def _tsv(rows: list[list[Any]]) -> str:
    return "".join("\t".join(map(str, row)) + "\n" for row in rows)


def _figure(value: float | None, spec: str) -> str:
    return "" if value is None else format(value, spec)


def test_leaderboard_tsv_cells_are_the_json_values(tiny_db: Path) -> None:
    text = _output("leaderboard", "tiny", "--wide", "-f", "tsv", "--db", str(tiny_db))
    board = json.loads(_output("leaderboard", "tiny", "-f", "json", "--db", str(tiny_db)))
    header = ["rank", "bot", "version", "mu", "sigma", "mu-3sigma", "games", "wins", "win %",
              "mean place", "points", "failures", "note"]
    rows = [[bot["rank"], bot["bot"], bot["version"], _figure(bot["mu"], ".2f"),
             _figure(bot["sigma"], ".2f"), _figure(bot["conservative"], ".2f"), bot["games"],
             bot["wins"], _figure(bot["win_pct"], ".1f"), _figure(bot["mean_placement"], ".2f"),
             _figure(bot["points"], ".2f"),
             "crash 1 (1 forfeit)" if bot["forfeits"] else "", bot["note"]]
            for bot in board["bots"]]
    assert text == _tsv([header, *rows])
    parsed = _cells(text)
    assert parsed == [header, *([str(cell) for cell in row] for row in rows)]
    dora = next(row for row in parsed if row[1] == "dora")
    assert dora[8:10] == ["", ""]  # no game, no win % nor mean place: empty, as in csv


def test_leaderboard_tsv_columns_keep_their_values(tiny_db: Path) -> None:
    text = _output("leaderboard", "tiny", "--columns", "points", "-f", "tsv", "--db",
                   str(tiny_db))
    parsed = _cells(text)
    assert parsed[0] == ["rank", "bot", "points"]
    assert [float(row[2]) for row in parsed[1:]] == [1.0, 1.0, 1.0, 0.0]
    assert all(cell == cell.strip() for row in parsed for cell in row), text


def test_h2h_tsv_cells_are_the_json_values(tiny_db: Path) -> None:
    text = _output("h2h", "tiny", "-f", "tsv", "--db", str(tiny_db))
    document = json.loads(_output("h2h", "tiny", "-f", "json", "--db", str(tiny_db)))
    pairs = {(p["a"], p["b"]): p for p in document["pairs"]}
    names = [key.split("@")[0] for key in document["bots"]]

    def cell(a: str, b: str) -> str:
        if a == b:
            return "-"
        pair = pairs.get((a, b))
        return "" if pair is None else (f"{100 * pair['win_rate']:.0f}% ({100 * pair['low']:.0f}"
                                        f"-{100 * pair['high']:.0f}) n={pair['games']}")

    rows = [[name, *(cell(a, b) for b in document["bots"])]
            for name, a in zip(names, document["bots"], strict=True)]
    assert text == _tsv([["row vs column", *names], *rows])
    assert _cells(text) == [["row vs column", *names], *rows]


def test_tournaments_tsv_cells_are_the_json_values(tiny_db: Path) -> None:
    text = _output("tournaments", "-f", "tsv", "--db", str(tiny_db))
    (stored,) = json.loads(_output("tournaments", "-f", "json", "--db", str(tiny_db)))[
        "tournaments"]
    header = ["tournament", "format", "per table", "bots", "games done", "games planned",
              "budget games", "budget spent", "state", "created"]
    row = ["tiny", "round_robin", "2", "4", str(stored["games_done"]), "", "", "",
           "finished", stored["created_at"]]
    assert text == _tsv([header, row])
    assert _cells(text) == [header, row]


def test_tournaments_tsv_games_are_not_a_date(tmp_path: Path) -> None:
    """The games were one cell, ``1/10``, which a spreadsheet reads as 10 January."""
    builder = StoreBuilder(tmp_path / "planned.db")
    tid, ids = builder.tournament("planned", ["ann", "bob"], state="running", games_planned=10)
    builder.game(GameSpec(tid, 0, 0, 0, ids, [1, 2]))
    builder.close()
    args = ("tournaments", "--db", str(tmp_path / "planned.db"))
    (stored,) = json.loads(_output(*args, "-f", "json"))["tournaments"]
    assert f"{stored['games_done']}/{stored['games_planned']}" in _output(*args)
    parsed = _cells(_output(*args, "-f", "tsv"))
    games = [parsed[0].index("games done"), parsed[0].index("games planned")]
    assert [parsed[1][i] for i in games] == [str(stored["games_done"]),
                                             str(stored["games_planned"])]


def test_rules_tsv_cells_are_the_effects_whole() -> None:
    """A long effect's text was broken onto lines of its own, which a spreadsheet reads as
    rows of one cell."""
    text = _output("rules", "--effects", "-f", "tsv")
    rows = [[face, str(copies), name, words] for face, copies, name, words in effect_rows()]
    assert text == _tsv([["card", "copies", "effect", "text"], *rows])
    assert _cells(text)[1:] == rows


def test_house_rules_tsv_keeps_the_empty_cells() -> None:
    text = _output("rules", "--house", "-f", "tsv")
    parsed = _cells(text)
    assert parsed[0] == ["rule", "value", "chosen", "", "reading"]
    assert parsed[1:] == [[name, value, "*" if value == choices[0] else "",
                           "default" if value == choices[0] else "", RULE_HELP[name][value]]
                          for name, choices in RULE_CHOICES.items() for value in choices]


def test_simulate_tsv_cells_are_unpadded() -> None:
    text = _output("simulate", "-p", "2", "-g", "3", "-s", "5", "-f", "tsv")
    tables = [_cells(section) for section in text.rstrip("\n").split("\n\n")]
    assert ["games", "3"] in tables[0] and ["seed", "5"] in tables[0]
    for table in tables:
        assert {len(row) for row in table} == {len(table[0])}, table
        assert all(cell == cell.strip() for row in table for cell in row), table
    seats = next(table for table in tables if table[0][0] == "seat (turn order)")
    assert [row[0] for row in seats[1:]] == ["0", "1"]
    assert sum(float(row[1]) for row in seats[1:]) <= 3


@pytest.fixture
def long_db(tmp_path: Path) -> Path:
    """A bot entered with options: its name and settings are wider than a terminal."""
    path = tmp_path / "long.db"
    builder = StoreBuilder(path)
    names = ["an_exceedingly_long_bot_name_number_one", "another_exceedingly_long_bot_name"]
    tid, ids = builder.tournament("long", names, options={
        names[0]: {"iterations": 2500, "exploration": 1.41421356}})
    builder.game(GameSpec(tid, 0, 0, 0, ids, [1, 2], failures=[
        {"seat": 1, "bot": ids[1], "type": "timeout", "detail": "no answer"}]))
    builder.close()
    return path


def test_leaderboard_tsv_is_never_fitted_to_a_width(long_db: Path) -> None:
    """Fitted to 100 columns as the text table is, the tsv left out mu, sigma, win % and
    mean place, and said nothing of it."""
    from arena.rating.board_view import leaderboard_text

    wide = _cells(_output("leaderboard", "long", "--wide", "-f", "tsv", "--db", str(long_db)))
    text = _output("leaderboard", "long", "-f", "tsv", "--db", str(long_db))
    # the columns empty for every bot (note), and points equal to the wins, as the text table
    assert _cells(text) == [[cell for cell, name in zip(row, wide[0], strict=True)
                             if name not in ("points", "note")] for row in wide]
    assert all(leaderboard_text(long_db, "long", fmt="tsv", width=width) + "\n" == text
               for width in (30, 60))


def test_league_tsv_has_no_line_of_prose(tmp_path: Path) -> None:
    """A league's tsv ended with "1 older version not shown (...)", a row to a spreadsheet."""
    builder = StoreBuilder(tmp_path / "league.db")
    tid, (old, new, bravo) = builder.tournament(
        "ladder", [("alpha", "aaa111"), ("alpha", "bbb222"), "bravo"], fmt="league",
        state="running")
    builder.game(GameSpec(tid, 0, 0, 0, [old, bravo], [1, 2]))
    builder.game(GameSpec(tid, 1, 0, 0, [new, bravo], [2, 1]))
    builder.close()
    args = ("leaderboard", "ladder", "--db", str(tmp_path / "league.db"))
    assert "1 older version not shown" in _output(*args)
    rows = _cells(_output(*args, "-f", "tsv"))
    assert [row[1:3] for row in rows] == [["bot", "version"], ["bravo", "v1"],
                                          ["alpha", "bbb222"]]
    assert {len(row) for row in rows} == {len(rows[0])}


def test_h2h_and_tournaments_tsv_ignore_a_terminals_width(tiny_db: Path, long_db: Path) -> None:
    """On a narrow terminal the tsv's cells were cut short (45% n=2 for 45% (9-91) n=2, the
    created time to the day) and its columns left out, with no note (h2h) or a line of prose
    among the rows (tournaments)."""
    from arena.rating.h2h import build_h2h, render_h2h
    from arena.rating.results import render_tournaments, tournament_summaries

    matrix = build_h2h(tiny_db, "tiny")
    assert render_h2h(matrix, "tsv", width=20) == render_h2h(matrix, "tsv", None)
    listing = tournament_summaries(long_db)
    assert render_tournaments(listing, "tsv", width=20) == render_tournaments(listing, "tsv")
    assert render_h2h(matrix, "simple", width=20) != render_h2h(matrix, "simple", None)


def test_simulate_tsv_ignores_a_terminals_width() -> None:
    from arena.engine.simulate import simulate

    report = simulate(3, 2, 4)
    assert report.render("tsv", width=24) == report.render("tsv", None)
    assert report.render("simple", width=24) != report.render("simple", None)


def _markdown_cells(text: str) -> list[list[str]]:
    """A github table's rows as cells, its rule line left out."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()]
    return [row for row in rows if not set("".join(row)) <= set("-:")]


def test_leaderboard_in_a_documents_format_is_never_fitted(long_db: Path) -> None:
    """Fitted to 100 columns, ``-f github`` (and rst, html...) left out version, mu, sigma,
    win % and mean place, and said nothing of it: a table pasted into a README."""
    from arena.rating.board_view import leaderboard_text

    tsv = _cells(_output("leaderboard", "long", "-f", "tsv", "--db", str(long_db)))
    github = _output("leaderboard", "long", "-f", "github", "--db", str(long_db))
    assert _markdown_cells(github) == tsv
    for fmt in ("github", "rst", "html", "latex", "mediawiki"):
        assert len({leaderboard_text(long_db, "long", fmt=fmt, width=width)
                    for width in (30, 60, 100)}) == 1, fmt


def test_leaderboard_in_a_terminals_format_names_what_it_left_out(long_db: Path) -> None:
    """``-f grid`` is fitted as ``simple`` is, and said nothing of the columns left out."""
    simple = _output("leaderboard", "long", "--db", str(long_db))
    note = simple.splitlines()[-1]
    assert note.startswith("Not shown: ") and "sigma" in note
    grid = _output("leaderboard", "long", "-f", "grid", "--db", str(long_db))
    assert grid.splitlines()[-1] == note
    wide = _output("leaderboard", "long", "-f", "grid", "--wide", "--db", str(long_db))
    assert wide.splitlines()[-1].startswith("+") and "sigma" in wide


def test_every_terminal_format_is_a_table_format() -> None:
    from arena.common.fitting import TERMINAL_FORMATS
    from arena.rating.render import TABLE_FORMATS

    assert TERMINAL_FORMATS < set(TABLE_FORMATS)
    assert "simple" in TERMINAL_FORMATS and "tsv" not in TERMINAL_FORMATS


def test_h2h_tournaments_and_simulate_ignore_the_width_in_a_documents_format(
        tiny_db: Path, long_db: Path) -> None:
    """On a narrow terminal ``-f github`` cut the h2h cells and the tournaments' created time
    short, and left out simulate's columns, each with a line of prose under the table (a
    row to Markdown)."""
    from arena.engine.simulate import simulate
    from arena.rating.h2h import build_h2h, render_h2h
    from arena.rating.results import render_tournaments, tournament_summaries

    matrix = build_h2h(tiny_db, "tiny")
    listing = tournament_summaries(long_db)
    report = simulate(3, 2, 4)
    for fmt in ("github", "rst"):
        assert render_h2h(matrix, fmt, width=20) == render_h2h(matrix, fmt, None)
        assert render_tournaments(listing, fmt, width=20) == render_tournaments(listing, fmt)
        assert report.render(fmt, width=24) == report.render(fmt, None)
    assert render_h2h(matrix, "grid", width=20) != render_h2h(matrix, "grid", None)


def test_simulate_tsv_cells_are_plain_numbers() -> None:
    """``24.7%``, ``2,996.2`` and ``3 (0.30%)`` are text, or another number, to a spreadsheet
    in a locale where a comma marks the decimals: each figure is its number alone."""
    from arena.engine.simulate import simulate

    report = simulate(2, 3, 5)
    report.seconds = report.games / 2996.25  # over a thousand games a second: a separator
    document = report.to_json()
    tables = [_cells(section) for section in report.render("tsv").split("\n\n")]
    overview = dict(row for row in tables[0][1:] if len(row) == 2)
    assert overview["games/s"] == f"{document['games_per_second']:.1f}"
    assert overview["ascensions"] == str(document["ascensions"])
    assert overview["Palaestron played"] == str(document["palaestrons"])
    assert float(overview["Palaestron played % of games"]) == pytest.approx(
        100 * document["palaestrons"] / document["games"], abs=0.05)
    seats = next(table for table in tables if table[0][0] == "seat (turn order)")
    assert seats[0] == ["seat (turn order)", "wins", "win rate %", "mean place"]
    assert [row[2] for row in seats[1:]] == [f"{100 * rate:.1f}"
                                             for rate in document["win_rate_by_seat"]]
    for table in tables[1:]:
        figures = [cell for row in table[1:] for header, cell in zip(table[0], row, strict=True)
                   if cell and header not in (table[0][0], "effect")]  # the labels: text
        assert figures and all(float(cell) >= 0 for cell in figures), table
    assert "2,996" in report.render("simple") and "%" in report.render("simple")


def _markdown_blocks(text: str) -> list[list[str]]:
    """The blocks of a Markdown text, each its lines: a table ends at a blank line only."""
    return [block.splitlines() for block in text.rstrip("\n").split("\n\n")]


def test_prose_under_a_documents_table_is_not_a_row(tmp_path: Path) -> None:
    """In Markdown a line right under a table is one more row of it (GitHub's tables end at a
    blank line): a league's 'older versions not shown' and h2h's notes were rows."""
    builder = StoreBuilder(tmp_path / "league.db")
    tid, (old, new, bravo, carol) = builder.tournament(
        "ladder", [("alpha", "aaa111"), ("alpha", "bbb222"), "bravo", "carol"], fmt="league",
        state="running")
    builder.game(GameSpec(tid, 0, 0, 0, [old, bravo], [1, 2]))
    builder.game(GameSpec(tid, 1, 0, 0, [new, bravo, carol], [2, 1, 3]))
    builder.close()
    db = ("--db", str(tmp_path / "league.db"))
    for args in (("leaderboard", "ladder"), ("h2h", "ladder")):
        simple = _output(*args, *db).splitlines()
        table, notes = _markdown_blocks(_output(*args, *db, "-f", "github"))
        assert all(line.startswith("|") for line in table)
        assert notes and notes == simple[-len(notes):], args
        grid = _output(*args, *db, "-f", "grid").splitlines()
        assert grid[-len(notes):] == notes and "" not in grid  # a terminal's: right under


def test_rules_effects_in_a_documents_format_are_whole_on_their_rows() -> None:
    """``-f github`` wrapped a long effect onto lines of its own, each a Markdown row."""
    rows = [[face, str(copies), name, words] for face, copies, name, words in effect_rows()]
    github = _output("rules", "--effects", "-f", "github")
    assert _markdown_cells(github) == [["card", "copies", "effect", "text"], *rows]
    grid = _output("rules", "--effects", "-f", "grid")
    assert max(map(len, grid.splitlines())) < max(map(len, github.splitlines()))
