"""The csv and tsv outputs opened in a spreadsheet: a cell of text (a bot's name, chosen by its
author) is never run as a formula, whatever separator the spreadsheet splits at, and the csv
gives the stored text back."""

from __future__ import annotations

import csv
import io
import sys
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_store_builder import GameSpec, StoreBuilder  # noqa: E402

from arena.cli.main import app  # noqa: E402

runner = CliRunner()

#: Names a spreadsheet would run as formulas, stored before such names were refused, and a
#: name that starts with the quote that marks text.
NAMES = ("=2+5", "+2+5", "-2+5", "@SUM(1)", "'=2+5", "x\\x09=2+5", "@", "plain", " =2+5",
         "\uff1d2+5", '"=2+5"')
#: Names with control characters, stored before the arena escaped them where a name enters
#: (a tab or line end starts a cell at another separator, inside quotes too), and their
#: escaped form, as every output shows them now.
RAW_NAMES = {"\t=2+5": "\\x09=2+5", "\r=2+5": "\\x0d=2+5", "x\t=2+5": "x\\x09=2+5",
             "x\n=2+5": "x\\x0a=2+5"}
#: Where a spreadsheet may split a line into cells (``|`` when told to, the others by locale).
SEPARATORS = (",", ";", "\t", "|")
#: How a cell a spreadsheet runs as a formula starts (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
def odd_db(tmp_path: Path) -> Path:
    path = tmp_path / "odd.db"
    builder = StoreBuilder(path)
    names = [*NAMES, *RAW_NAMES]
    tid, ids = builder.tournament("odd-cup", names)
    builder.game(GameSpec(tid, 0, 0, 0, ids, list(range(1, len(names) + 1))))
    builder.close()
    return path


def _output(db: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result.stdout


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _formula_cells(text: str, separator: str) -> list[str]:
    """The cells a spreadsheet splitting at ``separator`` (and at every line end, a bare CR
    too) would run as formulas: one that trims a cell's spaces, reads a quote at its start
    as quoting it, and reads a fullwidth or other compatibility form as the plain character
    (NFKC), a separator too, or ends lines where Python does (U+2028), counts as well."""
    lines = "\n".join(text.splitlines())  # a reader's lines end at U+2028 too
    return [cell for source in (text, unicodedata.normalize("NFKC", text), lines)
            for row in csv.reader(io.StringIO(source, newline=None), delimiter=separator)
            for cell in row for read in (cell, _as_read(cell))
            if read.startswith(FORMULA_STARTS) and not _is_number(read)]


def _as_read(cell: str) -> str:
    trimmed = unicodedata.normalize("NFKC", cell).strip()
    unquoted = next(csv.reader([trimmed]))
    return unquoted[0].strip() if unquoted else ""


CSV_COMMANDS = (("leaderboard", "odd-cup", "-f", "csv"), ("results", "odd-cup", "-f", "csv"),
                ("h2h", "odd-cup", "-f", "csv"))


@pytest.mark.parametrize("command", CSV_COMMANDS, ids=lambda c: c[0])
def test_no_csv_cell_is_a_formula_at_any_separator(odd_db: Path,
                                                   command: tuple[str, ...]) -> None:
    text = _output(odd_db, *command)
    for separator in SEPARATORS:
        assert _formula_cells(text, separator) == [], (separator, text)


def test_the_csv_gives_the_stored_names_back(odd_db: Path) -> None:
    # a reader drops one leading quote from a text cell (docs/RATINGS.md); a name stored with
    # a control character comes back as every table shows it, escaped
    def unmarked(cell: str) -> str:
        return cell[1:] if cell.startswith("'") else cell

    board = csv.DictReader(io.StringIO(_output(odd_db, "leaderboard", "odd-cup", "-f", "csv"),
                                       newline=""))
    shown = [*NAMES, *RAW_NAMES.values()]
    assert sorted(unmarked(row["bot"]) for row in board) == sorted(shown)
    games = csv.DictReader(io.StringIO(_output(odd_db, "results", "odd-cup", "-f", "csv"),
                                       newline=""))
    assert sorted(unmarked(row["bot"]) for row in games) == sorted(f"{n}@v1" for n in shown)
    pairs = csv.DictReader(io.StringIO(_output(odd_db, "h2h", "odd-cup", "-f", "csv"),
                                       newline=""))
    assert {unmarked(row["a"]) for row in pairs} == {f"{n}@v1" for n in shown}


def test_csv_numbers_stay_numbers(odd_db: Path) -> None:
    board = list(csv.DictReader(io.StringIO(
        _output(odd_db, "leaderboard", "odd-cup", "-f", "csv"), newline="")))
    conservative = [float(row["conservative"]) for row in board]
    assert min(conservative) < 0  # a negative number is no formula: not marked


@pytest.mark.parametrize("command", ["leaderboard", "h2h"])
def test_no_tsv_cell_is_a_formula(odd_db: Path, command: str) -> None:
    text = _output(odd_db, command, "odd-cup", "-f", "tsv")
    lines = text.splitlines()
    assert len(lines) == len(NAMES) + len(RAW_NAMES) + 1, text  # no name split a row
    cells = [cell.strip() for line in lines for cell in line.split("\t")]
    assert {len(line.split("\t")) for line in lines} == {len(lines[0].split("\t"))}, text
    # a lone "-" is the table's mark of an empty cell, text to a spreadsheet
    assert [c for c in cells if c != "-" and c.startswith(FORMULA_STARTS)
            and not _is_number(c)] == [], text
    for separator in SEPARATORS:
        assert [c for c in _formula_cells(text, separator) if c.strip() != "-"] == [], text


def test_the_results_csv_says_why_each_seat_failed(tmp_path: Path) -> None:
    """Each failure type of a seat's game once, with its most frequent detail, in one cell,
    made safe as every text cell is (a bot's log is its author's text)."""
    path = tmp_path / "failed.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament("class-cup", ["alice", "bob"])

    def failure(kind: str, detail: str) -> dict[str, object]:
        return {"seat": 0, "bot": "alice@v1", "type": kind, "detail": detail, "game": 0}

    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1], failures=[
        failure("timeout", "no answer within 1000 ms"),
        failure("crash", "exited mid-game (exit code 1); RuntimeError: a, b\n=1+2"),
        failure("timeout", "no answer within 1000 ms (at bot.py line 6, in think)"),
        failure("timeout", "no answer within 1000 ms (at bot.py line 6, in think)"),
        failure("protocol_error", "")], forfeits={"0": "crash"}))
    builder.close()
    rows = list(csv.DictReader(io.StringIO(_output(path, "results", "class-cup", "-f", "csv"),
                                           newline="")))
    assert [(row["bot"], row["failures"], row["failure_details"]) for row in rows] == [
        ("alice@v1", "timeout;crash;timeout;timeout;protocol_error",
         "timeout: no answer within 1000 ms (at bot.py line 6, in think) | crash: exited "
         "mid-game (exit code 1); RuntimeError: a, b\\x0a=1+2 | protocol_error"),
        ("bob@v1", "", "")]


def test_a_failure_in_the_bots_own_words_is_no_formula_at_a_semicolon(tmp_path: Path) -> None:
    """A failure's detail quotes the bot's exception: its author chooses the text, ';' and
    all, and a spreadsheet splitting at ';' would start a cell inside it."""
    path = tmp_path / "sly.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament("sly-cup", ["alice", "bob"])
    detail = "exited mid-game (exit code 1); RuntimeError: x;=1+2;@SUM(1);'y"
    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1], failures=[
        {"seat": 0, "bot": "alice@v1", "type": "crash", "detail": detail, "game": 0}],
        forfeits={"0": "crash"}))
    builder.close()
    for command in (("leaderboard", "sly-cup", "-f", "csv"), ("results", "sly-cup", "-f", "csv")):
        text = _output(path, *command)
        for separator in (",", ";", "\t"):
            assert _formula_cells(text, separator) == [], (separator, text)
        row = next(row for row in csv.DictReader(io.StringIO(text, newline=""))
                   if row["bot"] == "alice@v1" or row.get("key") == "alice@v1")
        cell = row["failure_reason" if command[0] == "leaderboard" else "failure_details"]
        # a reader drops the quote that marks each part as text, and has the bot's words back
        assert cell.replace(";'", ";") == f"crash: {detail}"


@pytest.mark.parametrize("words", [
    "x, =1+2", "x; =1+2", 'x;"=1+2"', 'x;""=1+2', "x\t=1+2", "x\n=1+2", "x\uff1b\uff1d1+2",
    "x\uff5c=1+2", "x,\u3000@SUM(1)", "x|-1+A1", "x, \"+1+A1", "x;\uff02=1+2",
    "x\u2028=1+2", "x\u2029@SUM(1)"])
def test_no_part_of_a_failure_in_the_bots_own_words_is_a_formula(tmp_path: Path,
                                                                   words: str) -> None:
    """A bot's exception reaches the csv and tsv: no cell a spreadsheet may split from it
    (at ',', ';', a tab or '|', its spaces trimmed, a quote at its start read as quoting it,
    a fullwidth form read as the plain one) runs as a formula."""
    path = tmp_path / "sly.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament("sly-cup", ["alice", "bob"])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1], failures=[
        {"seat": 0, "bot": "alice@v1", "type": "crash", "detail": f"RuntimeError: {words}",
         "game": 0}], forfeits={"0": "crash"}))
    builder.close()
    for command in (("leaderboard", "sly-cup", "-f", "csv"), ("results", "sly-cup", "-f", "csv"),
                    ("leaderboard", "sly-cup", "-f", "tsv", "--wide")):
        text = _output(path, *command)
        assert "RuntimeError" in text or command[2:] == ("-f", "tsv", "--wide"), text
        for separator in SEPARATORS:
            assert [c for c in _formula_cells(text, separator) if c.strip() != "-"] == [], (
                separator, text)


def test_a_failure_type_from_a_database_made_elsewhere_heads_no_formula(tmp_path: Path) -> None:
    """The leaderboard's csv heads a column per failure type stored (failures_TYPE): a
    database someone handed over may store any type, and its header cell was written raw."""
    path = tmp_path / "handed.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament("cup", ["alice", "bob"])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1], failures=[
        {"seat": 0, "bot": "alice@v1", "type": kind, "detail": "d", "game": 0}
        for kind in ("x;=2+5", "y\n=2+5", "z\t=2+5")]))
    builder.close()
    text = _output(path, "leaderboard", "cup", "-f", "csv")
    for separator in SEPARATORS:
        assert _formula_cells(text, separator) == [], (separator, text)
    header = next(csv.reader(io.StringIO(text, newline="")))
    assert [cell for cell in header if cell.startswith("failures_") and cell[9:] not in (
        "timeout", "crash", "protocol_error", "illegal_choice", "output_limit", "memory_limit",
        "startup_failure")] == ["failures_x;'=2+5", "failures_y\\x0a=2+5", "failures_z\\x09=2+5"]


#: Text a spreadsheet reads as a number or a date when it opens the file: names the rule lets
#: a bot take, and content-hash versions of digits (with one ``e``, a number in E notation).
NUMBER_LIKE = [("1.10", "00123456789a"), ("2024-01-05", "123e45678901"), ("1e5", "001234567890"),
               ("00123", "3e7")]


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_a_text_cell_that_reads_as_a_number_is_written_as_its_value(tmp_path: Path,
                                                                    fmt: str) -> None:
    """csv and tsv are data (docs/REPORTS.md, "csv and tsv in a spreadsheet"): a name or a
    version is written as it is stored, as a program reads it back, never dressed for one
    spreadsheet (``'1.10`` or ``="1.10"`` would be another name to every program); only a
    formula is marked."""
    path = tmp_path / "numbers.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament("numbers", NUMBER_LIKE)
    builder.game(GameSpec(tid, 0, 0, 0, ids[:2], [1, 2]))
    builder.game(GameSpec(tid, 0, 1, 0, ids[2:], [2, 1]))
    builder.close()
    text = _output(path, "leaderboard", "numbers", "-f", fmt, "--wide")
    rows = list(csv.DictReader(io.StringIO(text, newline=""),
                               delimiter="," if fmt == "csv" else "\t"))
    assert sorted((row["bot"], row["version"]) for row in rows) == sorted(NUMBER_LIKE), text
