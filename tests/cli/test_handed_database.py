"""A results database someone handed over (a class contest's shared ``.db``, one edited by
hand) never passed the arena's entry, where a bot's text is escaped: its names, failure
details and tournament names reach the terminal escaped all the same."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_store_builder import GameSpec, StoreBuilder  # noqa: E402

from arena.cli.main import app  # noqa: E402
from arena.tournament.store import TableRow  # noqa: E402

runner = CliRunner()
CUP = "cup\x1b]0;retitled\x07"
GAME = f"{CUP}/r0/t0/g0"
#: What a terminal acts on: ESC, BEL (an OSC's end) and a bidi override
RAW = "\x1b\x07\u202e"


@pytest.fixture
def handed_db(tmp_path: Path) -> Path:
    path = tmp_path / "handed.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament(CUP, [("al\x1b[2Jice", "v1"), ("bob\u202e", "v1")])
    builder.store.add_tables(tid, [TableRow(round=1, table_index=0, seats=tuple(ids), seed=1,
                                            deal=0, games=1)])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1], failures=[
        {"seat": 0, "bot": "al\x1b[2Jice@v1", "type": "crash", "detail": "x\x1b]0;pwned\x07",
         "game": 0}]))
    builder.close()
    return path


@pytest.mark.parametrize("args", [["leaderboard", CUP], ["leaderboard", CUP, "-f", "json"],
                                  ["h2h", CUP], ["results", CUP],
                                  ["status", CUP], ["status", CUP, "--failures"]],
                         ids=lambda args: " ".join(a for a in args if a != CUP))
def test_a_handed_databases_text_reaches_the_terminal_escaped(handed_db: Path,
                                                               args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--db", str(handed_db)], color=True)
    assert result.exit_code == 0, result.output
    said = result.stdout + result.stderr
    assert not [c for c in said if c in RAW], said
    assert "al\\x1b[2Jice" in said or "al\\u001b[2Jice" in said  # (json's own escape)


@pytest.mark.parametrize("args", [["pairings", CUP], ["pairings", CUP, "-f", "json"],
                                  ["tournaments"], ["tournaments", "-f", "json"],
                                  ["game", GAME], ["delete", CUP], ["delete", CUP, "--yes"]],
                         ids=lambda args: " ".join(a for a in args if a not in (CUP, GAME)))
def test_what_names_the_stored_tournament_reaches_the_terminal_escaped(
        handed_db: Path, args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--db", str(handed_db)], color=True, input="")
    said = result.stdout + result.stderr
    assert not [c for c in said if c in RAW], said
    assert "cup\\x1b]0;retitled" in said or "cup\\u001b]0;retitled" in said, said


def test_an_exports_line_is_escaped(handed_db: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", CUP, "-o", str(tmp_path / "games.jsonl"),
                                 "--db", str(handed_db)])
    assert result.exit_code == 0, result.output
    assert not [c for c in result.stderr if c in RAW], result.stderr
    assert "of cup\\x1b]0;retitled\\x07 to" in result.stderr


def test_a_game_an_export_leaves_out_is_named_escaped(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "handed.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament(CUP, ["alice", "bob"])
    for game in range(2):
        builder.game(GameSpec(tid, 0, 0, game, ids, [1, 2]))
    builder.close()
    with sqlite3.connect(path) as conn:  # one game's record damaged: left out, and said so
        conn.execute("UPDATE records SET record = ? WHERE game_id = ?",
                     (b"not a compressed record", GAME))
    conn.close()
    result = runner.invoke(app, ["export", CUP, "-o", str(tmp_path / "games.jsonl"),
                                 "--db", str(path)])
    assert result.exit_code == 0, result.output
    assert not [c for c in result.stderr if c in RAW], result.stderr
    assert "cup\\x1b]0;retitled\\x07/r0/t0/g0" in result.stderr, result.stderr


def test_a_reports_summary_lines_are_escaped(handed_db: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", CUP, "-o", str(tmp_path / "site"), "-j", "1",
                                 "--db", str(handed_db)])
    assert result.exit_code == 0, result.output
    assert not [c for c in result.output if c in RAW], result.output
    assert "first: cup\\x1b]0;retitled\\x07/r0/t0/g0" in result.output


def test_a_damaged_games_page_is_written_under_an_escaped_title(handed_db: Path,
                                                               tmp_path: Path) -> None:
    result = runner.invoke(app, ["game", GAME, "--html", str(tmp_path / "game.html"),
                                 "--db", str(handed_db)])
    assert result.exit_code == 0, result.output
    said = result.stdout + result.stderr
    assert not [c for c in said if c in RAW], said
    assert "cup\\x1b]0;retitled\\x07/r0/t0/g0" in said


@pytest.mark.parametrize("html", [False, True], ids=["text", "html"])
def test_a_stored_game_that_does_not_replay_is_named_escaped(handed_db: Path, tmp_path: Path,
                                                            html: bool) -> None:
    import sqlite3

    from arena.tournament.game_records import compress_record

    told = {"id": GAME, "players": ["al\x1b[2Jice", "bob\u202e"], "events": []}
    with sqlite3.connect(handed_db) as conn:  # a record told, that does not replay
        conn.execute("UPDATE records SET record = ?", (compress_record(told),))
    conn.close()
    page = ["--html", str(tmp_path / "game.html")] if html else []
    result = runner.invoke(app, ["game", GAME, *page, "--db", str(handed_db)])
    assert result.exit_code == 0, result.output
    said = result.stdout + result.stderr
    assert not [c for c in said if c in RAW], said
    assert "warning: Game cup\\x1b]0;retitled\\x07/r0/t0/g0" in said, said


def test_a_resumed_runs_lines_about_the_stored_tournament_are_escaped(
        handed_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What arena run prints of the tournament it resumes: its events (a warning naming
    the stored entrants), then its summary, leaderboard and failures' count, all from the
    database."""
    import io

    from rich.console import Console

    from arena.cli.run_report import TerminalReport
    from arena.cli.tournament_commands import _print_summary
    from arena.tournament.events import RunWarning
    from arena.tournament.runner import RunSummary

    console = Console(file=io.StringIO(), force_terminal=False)
    TerminalReport(console, progress=False)(RunWarning(f"{CUP} holds al\x1b[2Jice"))
    _print_summary(RunSummary(name=CUP, db=handed_db, games_planned=1, games_before=1,
                              games_recorded=0, elapsed_s=0.0, state="finished"))
    said = console.file.getvalue() + capsys.readouterr().out
    assert not [c for c in said if c in RAW], said
    assert "al\\x1b[2Jice" in said and "cup\\x1b]0;retitled" in said, said


def test_a_log_record_quoting_a_database_is_escaped() -> None:
    """The arena's warnings (a run's, the server's) may quote a database's text."""
    import logging

    from arena.cli.main import _LevelFormatter

    record = logging.LogRecord("arena", logging.WARNING, __file__, 1, "bad %s", (CUP,), None)
    line = _LevelFormatter().format(record)
    assert not [c for c in line if c in RAW] and line.startswith("warning: bad cup\\x1b]")


def test_a_progress_titles_brackets_are_no_markup() -> None:
    """The bar's title was read as rich markup: its brackets were taken for a link or a
    colour (a hyperlink's OSC 8 on a terminal with colours) and left out."""
    import io
    import time

    from rich.console import Console

    from arena.cli.run_report import TerminalReport
    from arena.tournament.events import Progress, ProgressEnded

    out = io.StringIO()
    report = TerminalReport(Console(file=out, width=120, force_terminal=True,
                                    color_system=None), progress=True)
    report(Progress("[link=https://example.invalid]cup[/link]", 1, 2, 0, time.monotonic()))
    report(ProgressEnded())
    assert "\x1b]8;" not in out.getvalue()
    assert "[link=https://example.invalid]cup[/link]" in out.getvalue()


def test_a_league_retirement_names_its_entry_escaped(handed_db: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena league retire`` printed the stored entry's name and the league's raw (the
    retirement itself stubbed: the handed database holds no league)."""
    from arena.tournament import league_store
    from arena.tournament.league_store import LeagueEntry

    entry = LeagueEntry(seq=1, key="bob\u202e@v1", bot_id=None, state="retired",
                        reason="by the organiser \x1b[2J", at_table=1)
    monkeypatch.setattr(league_store, "retire_entry", lambda store, row, bot, why="": entry)
    result = runner.invoke(app, ["league", "retire", CUP, "bob", "--db", str(handed_db)],
                           color=True)
    assert result.exit_code == 0, result.output
    assert not [c for c in result.stdout if c in RAW], result.stdout
    assert result.stdout.startswith("bob\\u202e@v1 retires from league 'cup\\x1b]0;retitled")


def _table_rows(text: str, count: int) -> list[str]:
    """The header, rule and first ``count`` rows of the first table drawn in ``text``."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.strip() and not line.strip(" -"))
    return lines[rule - 1:rule + 1 + count]


@pytest.mark.parametrize("args, rows", [(["leaderboard", CUP], 2), (["h2h", CUP], 2),
                                        (["pairings", CUP], 1), (["tournaments"], 1)],
                         ids=lambda value: " ".join(a for a in value if a != CUP)
                         if isinstance(value, list) else str(value))
def test_a_handed_databases_names_keep_their_rows_aligned(handed_db: Path, args: list[str],
                                                          rows: int) -> None:
    """A name was escaped after its table was laid out around the raw text: ``\\x1b`` is
    four characters where ESC was laid out as one, so that row's cells after the name stood
    out of their columns."""
    result = runner.invoke(app, [*args, "--db", str(handed_db)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    table = _table_rows(result.stdout, rows)
    assert "\\x1b" in "".join(table), result.stdout
    rule = table[1]
    gaps = [i for i, char in enumerate(rule) if char == " " and 0 < i and rule[i - 1] == "-"]
    # each cell within its column: the two spaces after each column's rule blank on every line
    assert all(line[gap:gap + 2].strip() == "" for line in table for gap in gaps), \
        "\n".join(table)


def test_a_status_hint_names_a_handed_tournament_as_it_is_pasted(handed_db: Path) -> None:
    """The hint to open a failure quoted the game id escaped: pasted, it named no game."""
    result = runner.invoke(app, ["status", CUP, "--db", str(handed_db)])
    assert result.exit_code == 0, result.output
    assert "arena game $'cup\\x1b]0;retitled\\x07/r0/t0/g0' --seat 0" in result.stdout, \
        result.stdout


@pytest.mark.parametrize("command", ["leaderboard", "status"])
def test_an_unknown_tournament_lists_the_stored_ones_as_they_are_pasted(handed_db: Path,
                                                                        command: str) -> None:
    """The names stored were listed escaped: pasted back, none named a tournament."""
    result = runner.invoke(app, [command, "cpu", "--db", str(handed_db)])
    assert result.exit_code == 1
    assert "(stored: $'cup\\x1b]0;retitled\\x07')" in result.stderr, result.stderr


@pytest.mark.parametrize("args", [["leaderboard", "zw"], ["h2h", "zw"], ["status", "zw"],
                                  ["leaderboard", "--all"]],
                         ids=" ".join)
def test_a_handed_databases_invisible_characters_are_shown(tmp_path: Path,
                                                            args: list[str]) -> None:
    """Names with a zero-width space, a word joiner or a byte order mark were drawn exactly
    as the names without them: two bots both shown as 'zero'. A joiner an emoji is drawn
    with stays."""
    path = tmp_path / "handed.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament("zw", [("zero", "v1"), ("ze\u200bro", "v1"),
                                         ("zer\u2060o\ufeff", "v1"),
                                         ("dev\U0001f469\u200d\U0001f4bb", "v1")])
    builder.store.add_tables(tid, [TableRow(round=1, table_index=0, seats=tuple(ids), seed=1,
                                            deal=0, games=1)])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [1, 2, 3, 4]))
    builder.close()
    result = runner.invoke(app, [*args, "--db", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert not [c for c in result.stdout if c in "\u200b\u2060\ufeff"], result.stdout
    assert "ze\\u200bro" in result.stdout and "zer\\u2060o\\ufeff" in result.stdout
    assert "dev\U0001f469\u200d\U0001f4bb" in result.stdout


def test_pairings_show_a_name_from_before_the_rule_whole(tmp_path: Path) -> None:
    """A database from before the names' rule may hold an ``@`` in a name: the label's last
    ``@`` starts the version, so the name is shown whole, as the site shows it."""
    path = tmp_path / "old.db"
    builder = StoreBuilder(path)
    tid, ids = builder.tournament("old", [("al@home", "v1"), ("bob", "v1")])
    builder.store.add_tables(tid, [TableRow(round=1, table_index=0, seats=tuple(ids), seed=1,
                                            deal=0, games=1)])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1]))
    builder.close()
    result = runner.invoke(app, ["pairings", "old", "--db", str(path)])
    assert result.exit_code == 0, result.output
    board = result.stdout.splitlines()[3].split()
    assert (board[1], board[3]) == ("al@home", "bob"), result.stdout
