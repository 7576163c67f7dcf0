"""``arena leaderboard | results | h2h | tournaments``: outputs, exact errors, exit codes."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trueskill
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rating"))
from rating_store_builder import GameSpec, StoreBuilder, build_store  # noqa: E402

from arena.cli.main import app  # noqa: E402
from arena.rating import rate_tournament  # noqa: E402
from arena.rating.render import TABLE_FORMATS, render_table  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

runner = CliRunner()


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    """Run in a scratch directory so the default results/arena.db is the test's own."""
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


@pytest.fixture
def store(in_tmp: Path) -> Path:
    (in_tmp / "results").mkdir()
    path = in_tmp / "results" / "arena.db"
    builder = build_store(path, games_order_seed=4, players=3, rounds=5, name="alpha-cup")
    tid, ids = builder.tournament("beta-cup", ["alpha", "bravo"], fmt="swiss", state="running",
                                  games_planned=4)
    builder.game(GameSpec(tid, 0, 0, 0, ids, [2, 1]))
    builder.close()
    return path


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_missing_db_is_one_clear_line(in_tmp: Path) -> None:
    for args in (["leaderboard"], ["results", "x"], ["h2h", "x"], ["tournaments"]):
        code, out, err = run(*args)
        assert code == 1 and out == ""
        assert err == ("Error: no results database at results/arena.db "
                       "(run a tournament first, e.g. arena run tournaments/swiss.yaml)\n")
    assert not (in_tmp / "results" / "arena.db").exists()


def test_a_missing_db_named_by_the_variable_says_so(in_tmp: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DB", "old/contest.db")
    for args in (["leaderboard"], ["status"]):
        code, out, err = run(*args)
        assert code == 1 and err == (
            "Error: no results database at old/contest.db, named by $ARENA_DB (run a "
            "tournament first, e.g. arena run tournaments/swiss.yaml)\n")


def test_a_database_the_spec_named_is_pointed_at(in_tmp: Path) -> None:
    # a spec with `results: results/class.db`: the reading commands, which read
    # results/arena.db, said "run a tournament first" to an organiser who had just run one
    (in_tmp / "results").mkdir()
    build_store(in_tmp / "results" / "class.db", games_order_seed=4, players=3, rounds=2,
                name="class-cup").close()
    for args in (["leaderboard", "class-cup"], ["status", "class-cup"], ["h2h", "class-cup"]):
        code, out, err = run(*args)
        assert (code, out) == (1, "")
        assert err == ("Error: no results database at results/arena.db (beside it: "
                       "results/class.db; --db names the one to read, as a spec's results: "
                       "names where arena run writes)\n")
    # and when results/arena.db holds other tournaments, the one that holds it is named
    build_store(in_tmp / "results" / "arena.db", games_order_seed=4, players=3, rounds=2,
                name="swiss").close()
    for args in (["leaderboard", "class-cup"], ["status", "class-cup"], ["results", "class-cup"]):
        code, out, err = run(*args)
        assert (code, out) == (1, "")
        assert err == ("Error: no tournament named 'class-cup' in results/arena.db (stored: "
                       "swiss); results/class.db holds it (--db results/class.db)\n")
    (in_tmp / "results" / "junk.db").write_text("not sqlite\n")  # read past, not a failure
    assert run("leaderboard", "nosuch")[2] == ("Error: no tournament named 'nosuch' in "
                                               "results/arena.db (stored: swiss)\n")


def test_missing_tournament_names_the_stored_ones(store: Path) -> None:
    for args in (["leaderboard", "x"], ["results", "x"], ["h2h", "x"]):
        code, out, err = run(*args)
        assert (code, out) == (1, "")
        assert err == ("Error: no tournament named 'x' in results/arena.db "
                       "(stored: alpha-cup, beta-cup)\n")


def test_other_db_path_in_message(store: Path) -> None:
    code, _, err = run("leaderboard", "x", "--db", "elsewhere.db")
    assert code == 1 and err.startswith("Error: no results database at elsewhere.db ")


def test_not_a_database(in_tmp: Path) -> None:
    (in_tmp / "junk.db").write_text("not sqlite at all, just text\n" * 100)
    code, _, err = run("tournaments", "--db", "junk.db")
    assert code == 1
    assert err.startswith("Error: junk.db is not an arena results database")
    assert err.count("\n") == 1


def test_empty_store(in_tmp: Path) -> None:
    StoreBuilder(in_tmp / "empty.db").close()
    code, _, err = run("leaderboard", "--db", "empty.db")
    assert code == 1
    assert err == ("Error: no tournaments stored in empty.db yet "
                   "(run one first, e.g. arena run tournaments/swiss.yaml)\n")
    # a list of nothing is no error, and says so rather than print a bare header
    assert run("tournaments", "--db", "empty.db")[:2] == (
        0, "no tournaments in empty.db yet (e.g. arena run tournaments/swiss.yaml)\n")
    assert json.loads(run("tournaments", "--db", "empty.db", "-f", "json")[1]) == {
        "tournaments": []}


def test_leaderboard_default_latest_and_named(store: Path) -> None:
    code, out, _ = run("leaderboard", "--format", "json")
    assert code == 0 and json.loads(out)["scope"] == "beta-cup"
    code, out, _ = run("leaderboard", "alpha-cup", "-f", "json")
    doc = json.loads(out)
    assert code == 0 and doc["scope"] == "alpha-cup" and len(doc["bots"]) == 6
    stored = rate_tournament(store, "alpha-cup")
    assert {b["key"]: (b["mu"], b["sigma"]) for b in doc["bots"]} == {
        k: (r.mu, r.sigma) for k, r in stored.items()}
    code, out, _ = run("leaderboard", "alpha-cup")
    assert code == 0 and "mu-3sigma" in out and "foxtrot" in out
    # the default table says what it is: which tournament, its state, how many games
    assert out.splitlines()[0].startswith(
        f"Leaderboard: alpha-cup (round_robin, finished), {doc['games']} games rated; ")
    code, out, _ = run("leaderboard")
    assert out.splitlines()[0].startswith("Leaderboard: beta-cup (swiss, stopped), 1 game rated")
    code, out, _ = run("leaderboard", "-f", "github")  # other formats: the table alone
    assert out.splitlines()[0].startswith("|")


def test_leaderboard_all(store: Path) -> None:
    code, out, _ = run("leaderboard", "--all", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["scope"] == "all" and doc["tournament"] is None
    assert doc["games"] == len(json.loads(run("results", "alpha-cup")[1])["games"]) + 1
    code, _, err = run("leaderboard", "alpha-cup", "--all")
    assert code == 2 and "not both" in err


def test_every_format_renders(store: Path) -> None:
    for fmt in ("json", "csv", *TABLE_FORMATS):
        # every format per command; h2h's formats are covered one by one in tests/rating
        commands = [["leaderboard", "alpha-cup"], ["tournaments"]]
        if fmt in ("json", "csv", "simple", "github"):
            commands.append(["h2h", "alpha-cup"])
        for command in commands:
            code, out, err = run(*command, "--format", fmt)
            assert code == 0, (command, fmt, err)
            assert "alpha" in out
    code, _, err = run("leaderboard", "--format", "xml")
    assert code == 2 and "unknown format 'xml'" in err
    for raw in ("unsafehtml", "latex_raw"):  # a bot's name would go into markup unescaped
        code, _, err = run("leaderboard", "alpha-cup", "--format", raw)
        assert code == 2 and f"unknown format '{raw}'" in err


#: A name with ``|`` as each markup format writes it to keep it in its cell.
_PIPES_ESCAPED = {
    **dict.fromkeys(("github", "pipe", "jira", "asciidoc", "rst"), r"evil \| 99.9 \| x"),
    "orgtbl": r"evil \vert{} 99.9 \vert{} x",
    **dict.fromkeys(("mediawiki", "moinmoin", "textile", "youtrack"),
                    "evil &#x7C; 99.9 &#x7C; x"),
}


@pytest.mark.parametrize("fmt", sorted(_PIPES_ESCAPED))
def test_a_name_stored_before_pipes_were_refused_is_one_cell(in_tmp: Path, fmt: str) -> None:
    # names with '|' are refused since; a database written before still holds them, and
    # org-mode's and Jira's tables (the others too) took each '|' for a new cell
    builder = StoreBuilder(in_tmp / "old.db")
    tid, ids = builder.tournament("old-cup", ["evil | 99.9 | x", "fair"])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [1, 2]))
    builder.close()
    escaped = _PIPES_ESCAPED[fmt]
    for command in ("leaderboard", "h2h"):
        code, out, _ = run(command, "old-cup", "--db", "old.db", "-f", fmt)
        lines = out.splitlines()
        evil = next(line for line in lines if "evil" in line and "fair" not in line)
        fair = next(line for line in lines if "fair" in line and "evil" not in line)
        assert code == 0 and escaped in evil, out
        # as many cells as the other bot's row
        assert evil.replace(escaped, "").count("|") == fair.count("|"), out
    code, out, _ = run("leaderboard", "old-cup", "--db", "old.db", "-f", "csv")
    assert "evil | 99.9 | x" in out  # the data formats keep the name as stored


def test_rst_shows_a_name_as_it_is_not_as_a_link_or_emphasis(in_tmp: Path) -> None:
    # 'fair_' was a link to a target nowhere (an error in the document), '*star*' emphasis
    builder = StoreBuilder(in_tmp / "odd.db")
    tid, ids = builder.tournament("odd-cup", ["fair_", "*star*"])
    builder.game(GameSpec(tid, 0, 0, 0, ids, [1, 2]))
    builder.close()
    code, out, _ = run("leaderboard", "odd-cup", "--db", "odd.db", "-f", "rst",
                       "--columns", "bot,games")
    assert code == 0 and out.splitlines()[3:5] == [r"     1  fair\_          1",
                                                   r"     2  \*star\*        1"], out


def test_a_data_format_no_renderer_handles_is_not_printed_as_a_table() -> None:
    # every command's renderer handles the data formats before its table; one it forgot
    # would otherwise reach tabulate, which prints any name it does not know as "simple"
    with pytest.raises(ValueError, match="'json' is not a table format"):
        render_table(["bot"], [["alpha"]], "json")


def test_results_json_and_csv_recompute_the_ratings(store: Path) -> None:
    stored = rate_tournament(store, "alpha-cup")

    def recompute(games: list[tuple[list[str], list[int]]], rating: dict[str, float]
                  ) -> dict[str, trueskill.Rating]:
        env = trueskill.TrueSkill(**rating)
        ratings: dict[str, trueskill.Rating] = {}
        for seats, placements in games:
            groups = [(ratings.get(bot, env.create_rating()),) for bot in seats]
            for bot, (new,) in zip(seats, env.rate(groups, ranks=placements), strict=True):
                ratings[bot] = new
        return ratings

    code, out, _ = run("results", "alpha-cup", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["tournament"]["name"] == "alpha-cup"
    first = doc["games"][0]
    assert set(first) == {"id", "round", "table", "game", "seed", "seats", "placements",
                          "standing_places", "failures", "forfeits", "points"}
    assert all("@" in bot for bot in first["seats"])
    assert [(g["round"], g["table"], g["game"]) for g in doc["games"]] == sorted(
        (g["round"], g["table"], g["game"]) for g in doc["games"])
    assert any(g["forfeits"] for g in doc["games"]) and any(
        len(set(g["placements"])) < len(g["placements"]) for g in doc["games"])  # ties
    from_json = recompute([(g["seats"], g["placements"]) for g in doc["games"]], doc["rating"])
    assert {k: (r.mu, r.sigma) for k, r in from_json.items()} == {
        k: (r.mu, r.sigma) for k, r in stored.items()}

    code, out, _ = run("results", "alpha-cup", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == sum(len(g["seats"]) for g in doc["games"])
    games: dict[str, tuple[list[str], list[int]]] = {}
    for row in rows:  # rows come in rating order, one per seat
        seats, placements = games.setdefault(row["id"], ([], []))
        seats.append(row["bot"])
        placements.append(int(row["place"]))  # the standings' place ranks as the engine's
    from_csv = recompute(list(games.values()), doc["rating"])
    assert {k: (r.mu, r.sigma) for k, r in from_csv.items()} == {
        k: (r.mu, r.sigma) for k, r in stored.items()}
    crash = next(r for r in rows if "crash" in r["failures"])
    assert crash["forfeit"] == "crash"

    code, _, err = run("results", "alpha-cup", "--format", "grid")
    assert code == 2 and "unknown format 'grid'" in err


def test_h2h(store: Path) -> None:
    code, out, _ = run("h2h", "alpha-cup", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and len(doc["bots"]) == 6
    assert all(0 <= p["low"] <= p["win_rate"] <= p["high"] <= 1 for p in doc["pairs"])
    code, out, _ = run("h2h", "alpha-cup")
    assert code == 0 and "row vs column" in out and "n=" in out
    code, out, err = run("h2h", "alpha-cup", "--players", "4")  # alpha-cup seats 3
    assert code == 1 and out == ""
    assert err == "Error: alpha-cup has no games at 4-player tables (its games seat 3 players)\n"


#: alpha-cup's bots in leaderboard order, the matrix's.
_H2H_ORDER = ["alpha", "charlie", "delta", "echo", "bravo", "foxtrot"]


def test_on_a_narrower_terminal_the_h2h_matrix_shortens_its_cells(store: Path) -> None:
    # six bots made a matrix of 118 columns: at 80 each row wrapped onto a second line
    shown = _on_a_terminal("h2h", "alpha-cup", "--db", str(store))
    lines = [line for line in shown.splitlines() if line.strip()]
    assert max(map(len, lines)) <= 80, shown
    assert lines[2].split() == ["alpha", "-", "67%", "n=6", "50%", "n=2", "67%", "n=6", "50%",
                                "n=2", "62%", "n=4"]
    # alpha-cup seats 3: what a cell counts, then what is left out
    assert " ".join(lines[8:]) == (
        "At tables of more than two, a cell is how often the row's bot placed ahead of the "
        "column's in the games both sat in (a shared place counts half), not how often it "
        "won. Not shown, to fit the terminal: the 95% intervals; --format csv has every "
        "figure.")
    # two bots' matrix fits 40 columns without its intervals
    two = _on_a_terminal("h2h", "beta-cup", "--db", str(store), columns=40)
    assert [line.split() for line in two.splitlines()[2:4]] == [
        ["bravo", "-", "100%", "n=1"], ["alpha", "0%", "n=1", "-"]]
    # six bots' was 69 columns with the rates alone: at 60 and 40 each row wrapped in two
    code, out, _ = run("h2h", "alpha-cup", "--format", "json")
    pairs = {(p["a"], p["b"]): p for p in json.loads(out)["pairs"]}
    for columns in (60, 40):
        narrow = _on_a_terminal("h2h", "alpha-cup", "--db", str(store), columns=columns)
        lines = [line for line in narrow.splitlines() if line]
        assert max(map(len, lines)) <= columns, narrow
        assert lines[0].split() == ["bot", "vs", "ahead", "95%", "n"]
        rows = [line.split() for line in lines[2:17]]
        # each pair once, the higher placed bot first, with every figure
        assert [(a, b) for a, b, *_ in rows] == [
            (a, b) for i, a in enumerate(_H2H_ORDER) for b in _H2H_ORDER[i + 1:]]
        for a, b, ahead, interval, games in rows:
            pair = pairs[(f"{a}@v1", f"{b}@v1")]
            assert ahead == f"{100 * pair['win_rate']:.0f}%" and games == str(pair["games"])
            assert interval == f"{100 * pair['low']:.0f}-{100 * pair['high']:.0f}"
        assert " ".join(lines[17:]) == ("A line a pair, to fit the terminal: how often bot "
                                        "placed ahead of vs; vs ahead of bot is the rest.")
    # a pipe keeps every figure, whatever the window
    code, out, _ = run("h2h", "alpha-cup")
    assert code == 0 and "67% (30-90) n=6" in out and "Not shown" not in out


def test_tournaments(store: Path) -> None:
    code, out, _ = run("tournaments", "--format", "json")
    doc = json.loads(out)["tournaments"]
    assert code == 0 and [t["name"] for t in doc] == ["alpha-cup", "beta-cup"]
    # stored as running, but no run holds it: it was killed
    assert (doc[1]["format"], doc[1]["state"], doc[1]["bots"], doc[1]["games_done"]) == (
        "swiss", "stopped", 2, 1)
    with Store(store) as held, held.lock("beta-cup"):  # a live run
        code, out, _ = run("tournaments")
    assert code == 0 and "alpha-cup" in out and "running" in out


@pytest.mark.parametrize("command", ["tournaments", "status"])
def test_on_a_narrower_terminal_the_list_of_tournaments_shortens_its_times(
        store: Path, command: str) -> None:
    # the whole ISO time ("2026-12-04T04:30:36+00:00") made the list 92 columns (status:
    # 94), and at 80 each row wrapped its time onto a second line
    shown = _on_a_terminal(command, "--db", str(store))
    lines = [line for line in shown.splitlines() if line.strip()]
    assert max(map(len, lines)) <= 80, shown
    # the time to the minute (UTC), or the day alone where that is still too wide
    assert lines[0].split()[-1] == "created"
    assert re.search(r" \d{4}-\d\d-\d\d$", lines[2]), shown
    # a pipe keeps the whole time, whatever the window
    code, out, _ = run(command, "--db", str(store))
    assert code == 0 and out.splitlines()[0].split()[-1] == "created"
    assert re.search(r"\d\dT\d\d:\d\d:\d\d\+00:00$", out.splitlines()[2])


@pytest.mark.parametrize("command", ["tournaments", "status"])
def test_at_40_and_60_columns_the_list_of_tournaments_leaves_out_columns(
        store: Path, command: str) -> None:
    # with the day alone the list was still 66 columns (status: 73): each row broke in two
    for columns in (60, 40):
        shown = _on_a_terminal(command, "--db", str(store), columns=columns)
        lines = [line for line in shown.splitlines() if line.strip()]
        assert max(map(len, lines)) <= columns, shown
        kept = lines[0].replace("per table", "per-table").split()
        assert kept[0] == "tournament" and kept[-2:] == ["games", "state"], shown
        assert [line.split()[0] for line in lines[2:4]] == ["alpha-cup", "beta-cup"]
        left_out = ", ".join(c for c in ("created", "per table", "format", "bots")
                             if c.replace(" ", "-") not in kept)
        assert f"Not shown, to fit the terminal: {left_out};" in " ".join(shown.split())
    code, out, _ = run(command, "--db", str(store))  # a pipe: every column
    assert code == 0 and "Not shown" not in out and out.splitlines()[0].split()[-1] == "created"


def test_at_40_columns_a_swiss_tournaments_status_fits_its_tables(store: Path) -> None:
    # its rounds' table was 43 columns and its standings 60 (names at their longest, with
    # their versions): each row broke in two
    builder = StoreBuilder(store)
    longest = "a_bot_named_as_long_as_the_registry_lets"
    tid, ids = builder.tournament("long-cup", [longest, "alpha"], fmt="swiss")
    builder.game(GameSpec(tid, 1, 0, 0, ids, [1, 2]))
    builder.close()
    shown = _on_a_terminal("status", "long-cup", "--db", str(store), columns=40)
    lines = shown.splitlines()
    # (a name longer than a line in the text above the tables has a line of its own, whole)
    assert max(len(line) for line in lines if f"{longest}@" not in line) <= 40, shown
    assert any(line.split() == ["round", "pairings", "games"] for line in lines), shown
    assert any(line.split() == ["rank", "bot", "score"] for line in lines), shown
    first = next(line.split()[1] for line in lines if line.split()[:1] == ["1"]
                 and "…" in line)
    assert longest.startswith(first[:-1]) and len(first) >= 8
    flowing = " ".join(shown.split())
    assert "Not shown, to fit the terminal: byes." in flowing
    assert "Not shown, to fit the terminal: byes, pairings, buchholz." in flowing
    code, out, _ = run("status", "long-cup", "--db", str(store))  # a pipe: every column
    assert code == 0 and "Not shown" not in out
    assert any(line.split() == ["rank", "bot", "score", "buchholz", "pairings", "byes"]
               for line in out.splitlines())


def test_status_says_how_a_swiss_field_that_does_not_divide_sits(in_tmp: Path) -> None:
    """Seven bots at Swiss tables of 4 sit 4 + 3 every round, which "4 per table" alone
    hides."""
    b = StoreBuilder(in_tmp / "s.db")
    b.tournament("seven", list("abcdefg"), fmt="swiss", players=4)
    b.tournament("eight", list("abcdefgh"), fmt="swiss", players=4)
    b.close()
    code, out, _ = run("status", "seven", "--db", str(in_tmp / "s.db"))
    assert code == 0 and out.startswith(
        "tournament seven: swiss, 4 per table (sitting 4 + 3 each round), 7 bots, "), out
    code, out, _ = run("status", "eight", "--db", str(in_tmp / "s.db"))
    assert code == 0 and out.startswith("tournament eight: swiss, 4 per table, 8 bots, "), out


def test_on_a_narrower_terminal_status_wraps_at_words_and_keeps_commands_whole(
        store: Path) -> None:
    # at 80 columns the terminal broke the lines anywhere ("spec hash 63132c7903fd5|379",
    # "--db /tmp/x.|db")
    shown = _on_a_terminal("status", "alpha-cup", "--db", str(store), columns=60)
    lines = [line for line in shown.splitlines() if line]
    assert max(map(len, lines)) <= 60, shown
    assert lines[:2] == ["tournament alpha-cup: round_robin, 3 per table, 6 bots, seed",
                         "  1, spec hash hash-alpha-cup"]
    # the command to paste is never cut in two
    assert any(re.fullmatch(r"\s*arena game alpha-cup/r\d+/t\d+/g\d+ --seat \d+", line)
               for line in lines), shown
    code, out, _ = run("status", "alpha-cup", "--db", str(store))  # a pipe: as always
    assert code == 0 and out.splitlines()[0].endswith(", spec hash hash-alpha-cup")


@pytest.mark.parametrize("command", ["leaderboard", "results", "h2h", "tournaments"])
def test_help_has_an_example(command: str) -> None:
    code, out, _ = run(command, "--help")
    assert code == 0 and f"Example: arena {command}" in out


def test_default_db_is_the_runner_default() -> None:
    from arena.rating.games import DEFAULT_DB
    from arena.tournament.store import DEFAULT_RESULTS

    assert DEFAULT_DB == Path(DEFAULT_RESULTS)


def test_leaderboard_csv_columns_are_the_same_for_every_tournament(store: Path) -> None:
    """A script reading several tournaments' csv gets one set of columns: Swiss-only columns
    are empty elsewhere, and there is a column for every failure type, met or not."""
    from arena.referee.failures import FAILURE_TYPES

    headers = []
    for name in ("alpha-cup", "beta-cup"):
        code, out, _ = run("leaderboard", name, "-f", "csv")
        assert code == 0
        rows = list(csv.DictReader(io.StringIO(out)))
        headers.append(list(rows[0]))
        if name == "alpha-cup":  # round-robin: no Buchholz
            assert {row["buchholz"] for row in rows} == {""}
    assert headers[0] == headers[1]
    assert [h for h in headers[0] if h.startswith("failures_")] == [
        f"failures_{kind}" for kind in FAILURE_TYPES]


def test_arena_db_names_the_database_when_db_is_not_given(store: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = store.parent.parent / "elsewhere.db"
    store.rename(elsewhere)
    monkeypatch.setenv("ARENA_DB", str(elsewhere))
    for args in (["tournaments"], ["leaderboard", "alpha-cup"], ["status"]):
        code, out, err = run(*args)
        assert code == 0 and "alpha-cup" in out, (args, err)
    code, _, err = run("tournaments", "--db", "results/arena.db")  # --db still wins
    assert code == 1 and err.startswith("Error: no results database at results/arena.db")


def test_tournaments_csv_writes_a_ladders_sizes_as_one_plain_cell(store: Path) -> None:
    """A ladder mixing table sizes was written "[2, 3]", a Python list in a csv cell."""
    conn = sqlite3.connect(str(store))
    with conn:
        spec = json.loads(conn.execute("SELECT spec_json FROM tournaments WHERE name = "
                                       "'alpha-cup'").fetchone()[0])
        conn.execute("UPDATE tournaments SET spec_json = ? WHERE name = 'alpha-cup'",
                     (json.dumps({**spec, "players_per_game": [2, 3]}),))
    conn.close()
    code, out, _ = run("tournaments", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["players_per_game"] for r in rows] == ["2;3", "2"]
    assert run("tournaments")[1].splitlines()[2].split()[:4] == ["alpha-cup", "round_robin",
                                                                 "2,", "3"]
    assert json.loads(run("tournaments", "-f", "json")[1])["tournaments"][0][
        "players_per_game"] == [2, 3]


def test_leaderboard_sorted_by_points_as_swiss_standings_are(store: Path) -> None:
    code, out, _ = run("leaderboard", "alpha-cup", "--sort", "points", "--format", "json")
    doc = json.loads(out)
    points = [(row["points"], row["mu"] - 3 * row["sigma"]) for row in doc["bots"]]
    assert code == 0 and [row["rank"] for row in doc["bots"]] == list(range(1, len(points) + 1))
    assert [p for p, _ in points] == sorted((p for p, _ in points), reverse=True)
    assert doc["sort"].startswith("points desc, then Buchholz desc")
    code, out, _ = run("leaderboard", "alpha-cup", "--sort", "points")
    assert code == 0 and out.splitlines()[0].endswith("sorted by points, then Buchholz")
    code, _, err = run("leaderboard", "alpha-cup", "--sort", "luck")
    assert code == 2 and "unknown order 'luck' (choose rating or points)" in err


_ALPHA_CUP = """\
Leaderboard: alpha-cup (round_robin, finished), 20 games rated; sorted by mu - 3*sigma
  rank  bot      version      mu-3sigma    games    wins    points  failures
------  -------  ---------  -----------  -------  ------  --------  -------------------------------
     1  alpha    v1               20.66       10       6      6.25  timeout 1
     2  charlie  v1               19.81       10       5      5.25  crash 1, timeout 1 (1 forfeit)
     3  delta    v1               19.41       10       5      4.75  timeout 1
     4  echo     v1               18.86       10       3      4.75  crash 1, timeout 1 (1 forfeit)
     5  bravo    v1               18.64       10       5      5.00  crash 1 (1 forfeit)
     6  foxtrot  v1               16.78       10       4      4.00  crash 4, timeout 2 (4 forfeits)
TrueSkill mu=25 sigma=8.333 beta=4.167 tau=0 draw=0.1.
Not shown: sigma, mean place, win %, mu; --wide shows every column.
"""


def test_the_default_leaderboard_fits_100_columns(store: Path) -> None:
    code, out, _ = run("leaderboard", "alpha-cup")
    assert code == 0 and out == _ALPHA_CUP
    assert max(len(line) for line in out.splitlines()) <= 100
    code, out, _ = run("leaderboard")  # Swiss, two seats: no byes, points equal wins
    standings = ("Ranked by rating, not as the Swiss standings (the tournament's result), which "
                 "rank by points, then Buchholz: bravo first (arena leaderboard beta-cup --sort "
                 "points).\n")
    assert code == 0 and out == """\
Leaderboard: beta-cup (swiss, stopped), 1 game rated; sorted by mu - 3*sigma
  rank  bot    version       mu    mu-3sigma    games    wins    win %    mean place    buchholz
------  -----  ---------  -----  -----------  -------  ------  -------  ------------  ----------
     1  bravo  v1         29.40         7.88        1       1    100.0          1.00        0.00
     2  alpha  v1         20.60        -0.91        1       0      0.0          2.00        1.00
TrueSkill mu=25 sigma=8.333 beta=4.167 tau=0 draw=0.1.
Not shown: points (equal to wins), sigma; --wide shows every column.
""" + standings


def _on_a_terminal(*args: str, columns: int = 80) -> str:
    """What ``arena ARGS`` shows on a pseudo-terminal of ``columns`` x 24."""
    import pexpect

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "TERM": "xterm-256color"}
    env.pop("COLUMNS", None)
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli.main", *args], env=env,
                          dimensions=(24, columns), encoding="utf-8", timeout=60)
    shown = child.read()
    child.close()
    assert child.exitstatus == 0, shown
    # an escape (--watch moving the cursor back over its frame) ends a line as seen
    return re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "\n", shown).replace("\r", "")


def test_on_a_narrower_terminal_the_leaderboard_fits_its_width(store: Path) -> None:
    # at 80 columns every row of the 100-column table wrapped onto a second line, in
    # arena leaderboard and in each frame of --watch
    for watch in ((), ("--watch", "--refreshes", "1")):
        shown = _on_a_terminal("leaderboard", "alpha-cup", "--db", str(store), *watch)
        lines = [line for line in shown.splitlines() if line.strip()]
        assert max(map(len, lines)) <= 80, shown
        assert lines[:2] == ["Leaderboard: alpha-cup (round_robin, finished), 20 games rated; "
                             "sorted by",
                             "mu - 3*sigma"]  # the title wraps at a word
        assert lines[2].split() == ["rank", "bot", "mu-3sigma", "wins", "points", "failures"]
        assert lines[3 + 7:3 + 10] == [  # --watch: the frame is drawn again as it stops
            "TrueSkill mu=25 sigma=8.333 beta=4.167 tau=0 draw=0.1.",
            "Not shown: sigma, mean place, win %, mu, version, games; --wide shows every",
            "column."]
    # a terminal of 100 columns or more, like a pipe, has the 100-column table
    wide = _on_a_terminal("leaderboard", "alpha-cup", "--db", str(store), columns=120)
    assert [line for line in wide.splitlines() if line] == _ALPHA_CUP.splitlines()


def test_at_40_columns_the_leaderboard_keeps_the_rank_the_bot_and_what_it_is_sorted_by(
        store: Path) -> None:
    # at 40 columns the table left out what it could up to the version and was still 63
    # wide: each row broke in two
    for sort, kept in (("rating", ["mu-3sigma"]), ("points", ["wins", "points"])):
        shown = _on_a_terminal("leaderboard", "alpha-cup", "--db", str(store), "--sort", sort,
                               columns=40)
        lines = [line for line in shown.splitlines() if line.strip()]
        assert max(map(len, lines)) <= 40, shown
        header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("rank"))
        assert lines[header].split() == ["rank", "bot", *kept]
        rows = [line.split() for line in lines[header + 2:header + 8]]
        assert [row[0] for row in rows] == ["1", "2", "3", "4", "5", "6"]
        assert all(len(row) == 2 + len(kept) for row in rows)
        assert "version, games" in " ".join(shown.split())  # and said so, whole
    # a name as long as the registry allows is cut, with an ellipsis, to fit
    longest = "a_bot_named_as_long_as_the_registry_lets"
    builder = StoreBuilder(store)
    tid, ids = builder.tournament("long-cup", [longest, "alpha"], games_planned=1)
    builder.game(GameSpec(tid, 0, 0, 0, ids, [1, 2]))
    builder.close()
    shown = _on_a_terminal("leaderboard", "long-cup", "--db", str(store), columns=40)
    lines = [line for line in shown.splitlines() if line.strip()]
    assert max(map(len, lines)) <= 40, shown
    row = next(line for line in lines if line.split()[0] == "1").split()
    assert row[1].endswith("…") and longest.startswith(row[1][:-1]) and len(row[1]) >= 8
    piped = run("leaderboard", "long-cup", "--db", str(store))[1]
    assert longest in piped  # a pipe has every name whole


def test_wide_and_columns_show_what_is_asked(store: Path) -> None:
    code, out, _ = run("leaderboard", "alpha-cup", "--wide")
    lines = out.splitlines()
    assert code == 0 and lines[1].split() == [
        "rank", "bot", "version", "mu", "sigma", "mu-3sigma", "games", "wins", "win", "%",
        "mean", "place", "points", "failures", "note"]
    assert lines[-1] == "TrueSkill mu=25 sigma=8.333 beta=4.167 tau=0 draw=0.1."
    code, out, _ = run("leaderboard", "alpha-cup", "--columns", "games, bot,rank")
    assert code == 0 and out.splitlines()[1:4] == [
        "  rank  bot        games", "------  -------  -------", "     1  alpha         10"]
    code, _, err = run("leaderboard", "alpha-cup", "--columns", "bot,elo")
    told, hint = err.splitlines()  # one line, however long, and the hint
    assert code == 2 and "unknown column(s) 'elo' (choose among: rank, bot, version" in told
    assert hint == "Try 'arena leaderboard --help'."
    code, _, err = run("leaderboard", "alpha-cup", "--wide", "--columns", "bot")
    assert code == 2 and "give --wide or --columns, not both" in err


def test_columns_always_show_the_rank_and_the_bot(store: Path) -> None:
    """--columns points,buchholz printed figures alone, in every table format: nothing said
    whose they were. json and csv have every field whatever --columns names."""
    tables = {fmt: run("leaderboard", "beta-cup", "--columns", "points,buchholz", "-f", fmt)
              for fmt in ("simple", "tsv", "github")}
    assert {fmt: code for fmt, (code, _, _) in tables.items()} == {
        "simple": 0, "tsv": 0, "github": 0}
    assert tables["simple"][1].splitlines()[1:4] == [
        "  rank  bot      points    buchholz", "------  -----  --------  ----------",
        "     1  bravo      1.00        0.00"]
    assert tables["tsv"][1].splitlines()[:2] == [
        "rank\tbot\tpoints\tbuchholz", "1\tbravo\t1.00\t0.00"]
    assert tables["github"][1].splitlines()[0] == (
        "|   rank | bot   |   points |   buchholz |")
    for fmt in ("json", "csv"):
        picked = run("leaderboard", "beta-cup", "--columns", "points,buchholz", "-f", fmt)[1]
        assert picked == run("leaderboard", "beta-cup", "-f", fmt)[1], fmt


def test_csv_has_each_bots_options_as_json_has_them(in_tmp: Path) -> None:
    """The csv had no options column: two entries of one bot under other settings were told
    apart by their names alone."""
    builder = StoreBuilder(in_tmp / "opts.db")
    tid, ids = builder.tournament("opts-cup", ["plain", "tuned"], options={
        "tuned": {"iterations": 250, "style": "a,b=c"}})
    builder.game(GameSpec(tid, 0, 0, 0, ids, [1, 2]))
    builder.close()
    code, out, _ = run("leaderboard", "opts-cup", "--db", "opts.db", "-f", "csv")
    rows = {row["bot"]: row for row in csv.DictReader(io.StringIO(out))}
    assert code == 0 and list(rows["plain"])[-3:] == ["options", "older_versions", "standing"]
    assert {bot: row["options"] for bot, row in rows.items()} == {
        "plain": "", "tuned": '{"iterations": 250, "style": "a,b=c"}'}
    document = json.loads(run("leaderboard", "opts-cup", "--db", "opts.db", "-f", "json")[1])
    assert {row["bot"]: row["options"] for row in document["bots"]} == {
        bot: json.loads(row["options"] or "{}") for bot, row in rows.items()}


def test_json_and_csv_keep_every_field(store: Path) -> None:
    from arena.rating.board_view import render_leaderboard
    from arena.rating.leaderboard import build_leaderboard

    board = build_leaderboard(store, "alpha-cup")
    for fmt in ("json", "csv"):
        code, out, _ = run("leaderboard", "alpha-cup", "-f", fmt)
        assert code == 0 and out == render_leaderboard(board, fmt) + "\n"
    code, out, _ = run("leaderboard", "alpha-cup", "-f", "csv")
    assert out.splitlines()[0].startswith("rank,bot,version,key,mu,sigma,conservative,games,"
                                          "wins,win_pct,mean_placement,points,byes,buchholz,"
                                          "failures,")


@pytest.mark.parametrize(("stored", "why"), [("[1, 2", "not valid JSON"),
                                             (7, "seats and placements do not match"),
                                             ("[1]", "seats and placements do not match")])
def test_a_damaged_game_row_is_one_clear_line(store: Path, stored: object, why: str) -> None:
    """A results database edited by hand or half-restored: a game whose placements column
    holds broken JSON, a number or too few places."""

    with sqlite3.connect(store) as conn:
        (game,) = conn.execute("SELECT id FROM games ORDER BY id LIMIT 1").fetchone()
        conn.execute("UPDATE games SET placements_json = ? WHERE id = ?", (stored, game))
    code, out, err = run("leaderboard", "alpha-cup")
    assert code == 1 and out == ""
    assert err.startswith(f"Error: game {game}: ") and why in err and err.count("\n") == 1


@pytest.mark.parametrize("place", ['"first"', "null", "[1]", '{"a": 1}', '"1.5x"'])
def test_a_game_row_placing_a_seat_by_no_number_is_one_clear_line(store: Path,
                                                                  place: str) -> None:
    """A handed database whose game places a seat by something else than a number: one line
    naming the game (a traceback, from the leaderboard, the report and the site alike)."""
    with sqlite3.connect(store) as conn:
        game, seats = conn.execute(
            "SELECT id, seats_json FROM games ORDER BY id LIMIT 1").fetchone()
        places = [place] + ["1"] * (len(json.loads(seats)) - 1)
        conn.execute("UPDATE games SET placements_json = ? WHERE id = ?",
                     (f"[{', '.join(places)}]", game))
    code, out, err = run("leaderboard", "alpha-cup")
    assert code == 1 and out == ""
    assert err == f"Error: game {game}: a seat's place is not a whole number ({place})\n"


def test_a_database_a_spec_put_in_the_working_directory_is_pointed_at(in_tmp: Path) -> None:
    """A spec with `results: cup.db` writes beside it: the reading commands said "run a
    tournament first" to an organiser who had just run one."""
    build_store(in_tmp / "cup.db", games_order_seed=4, players=3, rounds=2, name="cup").close()
    for args in (["leaderboard", "cup"], ["status"]):
        code, out, err = run(*args)
        assert (code, out, err) == (1, "", (
            "Error: no results database at results/arena.db (in the working directory: "
            "cup.db; --db names the one to read, as a spec's results: names where arena run "
            "writes)\n"))
    build_store(in_tmp / "results" / "arena.db", games_order_seed=4, players=3, rounds=2,
                name="swiss").close()
    assert run("status", "cup")[2] == ("Error: no tournament named 'cup' in results/arena.db "
                                       "(stored: swiss); cup.db holds it (--db cup.db)\n")


def test_a_leagues_new_version_note_names_only_versions_with_games_in_it(
        tmp_path: Path) -> None:
    """alpha's first version played only in another league: this league's board named it
    among alpha's older versions, two names beside "1 older version not shown"."""
    builder = StoreBuilder(tmp_path / "league.db")
    other, (first, bravo) = builder.tournament("east", [("alpha", "aaa111"), "bravo"],
                                               fmt="league", state="running")
    builder.game(GameSpec(other, 0, 0, 0, [first, bravo], [1, 2]))
    tid, (old, new, bravo) = builder.tournament(
        "west", [("alpha", "bbb222"), ("alpha", "ccc333"), "bravo"], fmt="league",
        state="running")
    builder.game(GameSpec(tid, 0, 0, 0, [old, bravo], [1, 2]))
    builder.game(GameSpec(tid, 1, 0, 0, [new, bravo], [2, 1]))
    builder.close()
    result = runner.invoke(app, ["leaderboard", "west", "--db", str(tmp_path / "league.db"),
                                 "--columns", "note"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split(None, 2)[1:] for line in lines if " alpha " in f" {line} "] == [
        ["alpha", "new (older: bbb222)"]]
    assert lines[-1] == ("1 older version not shown (retired from the league, ratings kept); "
                         "--all-versions shows them.")
    data = json.loads(runner.invoke(app, ["leaderboard", "west", "--db",
                                          str(tmp_path / "league.db"), "-f", "json"]).stdout)
    assert [bot["older_versions"] for bot in data["bots"] if bot["bot"] == "alpha"] == [
        ["bbb222"]]
