"""``arena report``, ``arena serve`` and ``arena game --html``: what they write, and one clear
``Error:`` line for each kind of bad input."""

from __future__ import annotations

import errno
import html
import io
import json
import re
import socket
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import site_db
from typer.testing import CliRunner

from arena.cli.main import app
from arena.rating.board_view import leaderboard_json
from arena.rating.leaderboard import build_leaderboard
from arena.web.site import write_site

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_report_writes_every_page_and_one_replay_per_game(cup_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    code, stdout, stderr = run("report", "cup", "-o", str(out), "--db", str(cup_db), "-j", "1")
    assert (code, stderr) == (0, "")
    assert stdout.startswith("Wrote 13 pages (9 game replays, ")
    for page in ("index.html", "h2h.html", "rounds.html", "games.html", "static/site.css",
                 "static/site.js", "static/replay.js"):
        assert (out / page).is_file(), page
    assert sorted(p.name for p in (out / "games").iterdir())[:2] == ["r1-t0-g0.html",
                                                                     "r1-t0-g1.html"]
    text = "".join(p.read_text() for p in out.rglob("*.html"))
    # nothing fetched at view time: no address outside the folder
    assert not re.search(r"""(src|href|url)\s*[=(]\s*["']?(https?:)?//""", text)


def test_report_pages_hold_the_leaderboard_rows(cup_site: Path, cup_db: Path) -> None:
    board = leaderboard_json(build_leaderboard(cup_db, "cup"))
    index = (cup_site / "index.html").read_text()
    positions = [index.index(f'data-key="{row["key"]}"') for row in board["bots"]]
    assert positions == sorted(positions)  # the JSON's order
    assert "5" in (cup_site / "index.html").read_text()  # the spec's public seed is shown


def test_the_leaderboard_counts_the_games_a_bot_forfeited(tmp_path: Path) -> None:
    """A failure may forfeit nothing (a timeout plays the safe default) or the whole game:
    the board says how many games each bot's failures cost it."""
    from arena.web.data import load_tournament
    from arena.web.site import render_page

    db = site_db.build(tmp_path / "arena.db")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE games SET forfeits_json = ? WHERE id = ?",
                     ('{"1": "timeout"}', site_db.FAILING_GAME))
    conn.close()
    index = render_page(load_tournament(db, site_db.NAME), "index.html")
    assert 'timeout 1</a> <span class="forfeits">(1 forfeit)</span></td>' in index


def test_the_failing_game_is_linked_from_the_failures(cup_site: Path) -> None:
    games = (cup_site / "games.html").read_text()
    assert '<a href="games/r1-t0-g1.html">cup/r1/t0/g1</a>' in games
    assert "timeout" in games and "decision took 1.2 s" in games


def test_a_long_failure_list_is_cut_and_points_to_the_filter(
        cup_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.web.site

    monkeypatch.setattr(arena.web.site, "FAILURES_SHOWN", 0)
    write_site(cup_db, "cup", tmp_path, jobs=1)
    games = (tmp_path / "games.html").read_text()
    assert "decision took 1.2 s" not in games and "No failures." not in games
    assert ('<p>And 1 more: <a href="games.html?failure=*">the games with a failure</a> are '
            'in the list below.</p>') in games


def test_rounds_show_pairings_byes_and_scores(cup_site: Path) -> None:
    rounds = (cup_site / "rounds.html").read_text()
    assert rounds.count('<tr class="bye">') == 3  # beta in round 2, alpha and gamma in 3
    assert "Round 3" in rounds


def test_rounds_scale_an_off_size_table_as_the_standings_do(tmp_path: Path) -> None:
    """In a duplicate Swiss a table of another size plays more or fewer seatings, and the
    standings scale its points: the rounds page shows the points `arena pairings` shows, and
    they add up to the leaderboard's."""
    from arena.tournament.pairings import round_pairings
    from arena.web.data import load_tournament

    db = site_db.build(tmp_path / "arena.db")
    with sqlite3.connect(db) as conn:  # tables of 2, so round 2's table of 3 is off-size
        spec = json.loads(conn.execute("SELECT spec_json FROM tournaments").fetchone()[0])
        conn.execute("UPDATE tournaments SET spec_json = ?", (json.dumps(
            {**spec, "players_per_game": 2, "duplicate": "rotations"}),))
    data = load_tournament(db, "cup")
    totals = dict.fromkeys((row["key"] for row in data.leaderboard["bots"]), 0.0)
    for rnd in data.rounds:
        for table in rnd["tables"]:
            for key, points in zip(table["seats"], table["points"], strict=True):
                totals[key] += points
        for bye in rnd["byes"]:
            totals[bye["bot"]] += bye["points"]
    assert totals == pytest.approx({row["key"]: row["points"]
                                    for row in data.leaderboard["bots"]})
    [board] = round_pairings(db, "cup", 2)[1][0].boards
    [table] = data.rounds[1]["tables"]
    assert len(table["seats"]) == 3 and table["points"] == [float(p) for p in board.points]
    rounds = (tmp_path / "site")
    write_site(db, "cup", rounds, jobs=1)
    page = (rounds / "rounds.html").read_text()
    # the leaderboard's note on points says it, once
    assert "is weighted by the spec size" in page and page.count("seatings") == 1


def test_the_overview_says_how_a_swiss_field_that_does_not_divide_sits(tmp_path: Path) -> None:
    """Four bots at Swiss tables of 3 sit at one table of 4: "3 players per table" alone
    would say otherwise, so the overview says it as arena status does."""
    db = site_db.build(tmp_path / "arena.db")
    with sqlite3.connect(db) as conn:
        spec = json.loads(conn.execute("SELECT spec_json FROM tournaments").fetchone()[0])
        conn.execute("UPDATE tournaments SET spec_json = ?, players_per_game = 3",
                     (json.dumps({**spec, "players_per_game": 3}),))
    site = tmp_path / "site"
    write_site(db, "cup", site, jobs=1)
    assert ("swiss, 3 players per table (sitting 4 each round)</dd>"
            in (site / "index.html").read_text())
    assert ", 3 per table (sitting 4 each round), 4 bots, " in run(
        "status", "cup", "--db", str(db))[1]


def test_house_rules_are_named_on_the_site_and_in_status(tmp_path: Path) -> None:
    """A tournament played to house rules says which, on its page and in arena status, as
    arena match does ("Played with house rules: ..."); one played to the rulebook's says
    nothing."""
    db = site_db.build(tmp_path / "arena.db")
    plain = tmp_path / "plain"
    write_site(db, "cup", plain, jobs=1)
    assert "House rules" not in (plain / "index.html").read_text()
    assert "house rules" not in run("status", "cup", "--db", str(db))[1]
    with sqlite3.connect(db) as conn:
        spec = json.loads(conn.execute("SELECT spec_json FROM tournaments").fetchone()[0])
        conn.execute("UPDATE tournaments SET spec_json = ?", (json.dumps(
            {**spec, "rules": {"kinds": "family", "reclaim": "today"}}),))
    site = tmp_path / "site"
    write_site(db, "cup", site, jobs=1)
    assert ('<dt>House rules</dt><dd id="rules">kinds=family</dd>'
            in (site / "index.html").read_text())
    assert run("status", "cup", "--db", str(db))[1].splitlines()[4] == (
        "house rules: kinds=family")


def test_a_drawn_seed_stays_secret_until_the_tournament_finishes(tmp_path: Path) -> None:
    db = site_db.build(tmp_path / "running.db", state="running", drawn_seed=True, rounds=1)
    out = tmp_path / "site"
    assert run("report", "cup", "-o", str(out), "--db", str(db), "-j", "1")[0] == 0
    index = (out / "index.html").read_text()
    assert "987654321" not in index
    assert "drawn, secret until the tournament finishes" in index


def test_a_drawn_seed_is_shown_once_finished_and_said_to_be_drawn(tmp_path: Path) -> None:
    """As arena status says it: the seed a tournament drew, the spec giving none."""
    from arena.web.data import load_tournament
    from arena.web.site import render_page

    db = site_db.build(tmp_path / "arena.db", drawn_seed=True)
    index = render_page(load_tournament(db, "cup"), "index.html")
    assert '<dd id="seed">987654321 (drawn: the spec gives none)</dd>' in index


def test_game_html_writes_one_self_contained_page(cup_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    code, stdout, _ = run("game", "cup/r2/t0/g1", "--html", str(out), "--db", str(cup_db))
    assert code == 0
    assert stdout.startswith(f"Wrote Game cup/r2/t0/g1's replay to {out} (")
    page = out.read_text()
    assert '<script src=' not in page and '<link rel="stylesheet"' not in page
    assert 'id="game-data"' in page


def test_match_records_open_in_the_same_viewer(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    assert run("simulate", "-p", "3", "-g", "2", "-s", "4", "--records", str(records))[0] == 0
    out = tmp_path / "g2.html"
    code, stdout, _ = run("game", str(records), "-n", "2", "--html", str(out))
    assert code == 0 and out.is_file()
    assert stdout.startswith(f"Wrote Game 2 of {records}'s replay to {out}")


def test_game_html_refuses_a_seat(cup_db: Path, tmp_path: Path) -> None:
    """The page holds every seat's cards: under --seat it was written whole, as if one seat's."""
    out = tmp_path / "game.html"
    result = runner.invoke(app, ["game", "cup/r2/t0/g1", "--seat", "1", "--html", str(out),
                                 "--db", str(cup_db)])
    assert result.exit_code == 2
    said = " ".join(result.output.replace("│", " ").split())
    assert ("the replay page holds every seat's cards; write it without --seat and pick the "
            "seat in its View menu (or open it at #view=1)") in said
    assert not out.exists()


# -- bad input: one line each ------------------------------------------------------------------
def test_a_missing_tournament(cup_db: Path, tmp_path: Path) -> None:
    code, stdout, stderr = run("report", "nope", "-o", str(tmp_path / "s"), "--db", str(cup_db))
    assert (code, stdout) == (1, "")
    assert stderr == f"Error: no tournament named 'nope' in {cup_db} (stored: cup)\n"
    assert not (tmp_path / "s").exists()


def test_a_missing_database(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    code, _, stderr = run("report", "cup", "-o", str(tmp_path / "s"), "--db", str(db))
    assert code == 1
    assert stderr == (f"Error: no results database at {db} (run a tournament first, e.g. "
                      "arena run tournaments/swiss.yaml)\n")


def test_an_empty_database(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    sqlite3.connect(db).close()
    code, _, stderr = run("report", "cup", "-o", str(tmp_path / "s"), "--db", str(db))
    assert code == 1
    assert stderr == (f"Error: {db} is not an arena results database (missing tables: bots, "
                      "games, tournaments)\n")


def test_a_tournament_without_games(tmp_path: Path) -> None:
    db = site_db.build(tmp_path / "a.db", state="running", rounds=0)
    code, _, stderr = run("report", "cup", "-o", str(tmp_path / "s"), "--db", str(db))
    assert code == 1
    assert stderr == "Error: tournament 'cup' has no games yet: nothing to report\n"


def test_a_store_without_its_records_table(cup_db: Path, tmp_path: Path) -> None:
    """An old store kept its records elsewhere: the report says so, as arena serve does."""
    import shutil

    db = tmp_path / "old.db"
    shutil.copy(cup_db, db)
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE records")
    conn.close()
    code, _, stderr = run("report", "cup", "--db", str(db), "-o", str(tmp_path / "site"))
    assert code == 1
    assert stderr == f"Error: {db} holds no game records (no such table: records)\n"


def test_a_record_from_an_older_rules_version(cup_db: Path, tmp_path: Path) -> None:
    """--html refused it with one Error line: a record of older rules is shown as recorded."""
    record = json.loads(run("game", "cup/r1/t0/g0", "--format", "json", "--db",
                            str(cup_db))[1])
    record["format"] = "palaestra-record/2"
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps(record) + "\n")
    page = tmp_path / "old.html"
    code, stdout, stderr = run("game", str(old), "--html", str(page))
    assert code == 0
    title = f"Game 1 of {old} (cup/r1/t0/g0)"
    assert stderr == (f"warning: {title}: the step-by-step replay needs the rules this game "
                      "was played under (palaestra-record/2); this arena plays "
                      "palaestra-record/7, so the game is shown as recorded.\n")
    assert re.fullmatch(rf"Wrote {re.escape(title)} as recorded to {re.escape(str(page))} "
                        rf"\(\d+ kB\)\n", stdout)
    assert "so the game is shown as recorded." in page.read_text()


def test_an_unwritable_output_folder(cup_db: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("")
    out = blocker / "site"
    code, _, stderr = run("report", "cup", "-o", str(out), "--db", str(cup_db))
    assert code == 1
    assert stderr == f"Error: cannot write the report to {out}: Not a directory\n"


def test_a_port_in_use(cup_db: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, stderr = run("serve", "--db", str(cup_db), "--port", str(port))
    assert code == 1
    assert stderr == (f"Error: port {port} on 127.0.0.1 is in use (choose another with --port, "
                      "or --port 0 for any free one)\n")


def test_serve_a_missing_database(tmp_path: Path) -> None:
    code, _, stderr = run("serve", "--db", str(tmp_path / "x.db"), "--port", "0")
    assert code == 1
    assert stderr.startswith(f"Error: no results database at {tmp_path / 'x.db'} ")


def test_each_rating_line_runs_from_the_prior_to_the_leaderboards_rating(cup_db: Path) -> None:
    from arena.web.data import load_tournament

    data = load_tournament(cup_db, "cup")
    for row in data.leaderboard["bots"]:
        line = data.history[row["key"]]
        assert line[0] == [0, 25.0, round(25 / 3, 4)]
        assert [point[0] for point in line] == list(range(row["games"] + 1))
        assert line[-1][1:] == [round(row["mu"], 4), round(row["sigma"], 4)]


OLDER_NOTE = ("The step-by-step replay needs the rules this game was played under "
              "(palaestra-record/5); this arena plays palaestra-record/7, so the game is shown "
              "as recorded.")


def test_a_tournament_stored_under_older_rules_is_reported(older_cup_db: Path,
                                                            tmp_path: Path) -> None:
    """Every game stored before a rules change made arena report refuse the whole tournament
    in one line: its pages are written, each game's showing what its record holds."""
    out = tmp_path / "site"
    code, stdout, stderr = run("report", "cup", "-o", str(out), "--db", str(older_cup_db),
                               "-j", "1")
    assert (code, stderr) == (0, "")
    first, second = stdout.splitlines()
    assert re.fullmatch(rf"Wrote 13 pages \(0 game replays, 9 games as recorded, [\d.]+ MB\) to "
                        rf"{re.escape(str(out))} in [\d.]+ s; open "
                        rf"{re.escape(str(out / 'index.html'))}", first)
    assert second == ("9 games were played under other rules than this arena's "
                      "(palaestra-record/7): their pages show what the record holds, without "
                      "the step-by-step replay (docs/RECORDS.md)")
    for page in ("index.html", "h2h.html", "rounds.html", "games.html"):
        assert (out / page).is_file(), page
    game = (out / "games" / "r1-t0-g1.html").read_text()
    assert OLDER_NOTE in game
    assert "replay.js" not in game and "game-data" not in game  # nothing replays it
    assert "alpha" in game and "beta" in game and "timeout" in game  # bots, failure


def test_a_stored_record_from_an_older_rules_version(cup_db: Path, tmp_path: Path) -> None:
    """One game of older rules among the others: its page shows it as recorded, the others
    replay."""
    import shutil
    import zlib

    db = tmp_path / "old.db"
    shutil.copy(cup_db, db)
    with sqlite3.connect(db) as conn:
        blob = conn.execute("SELECT record FROM records WHERE game_id = 'cup/r1/t0/g2'"
                            ).fetchone()[0]
        record = json.loads(zlib.decompress(blob))
        record["format"] = "palaestra-record/1"
        conn.execute("UPDATE records SET record = ? WHERE game_id = 'cup/r1/t0/g2'",
                     (zlib.compress(json.dumps(record).encode()),))
    conn.close()
    out = tmp_path / "s"
    code, stdout, stderr = run("report", "cup", "-o", str(out), "--db", str(db), "-j", "1")
    assert (code, stderr) == (0, "")
    first, second = stdout.splitlines()
    assert first.startswith("Wrote 13 pages (8 game replays, 1 game as recorded, ")
    assert second == ("1 game was played under other rules than this arena's "
                      "(palaestra-record/7): its page shows what the record holds, without "
                      "the step-by-step replay (docs/RECORDS.md)")
    assert "(palaestra-record/1); this arena plays" in (out / "games" / "r1-t0-g2.html"
                                                        ).read_text()
    assert "game-data" in (out / "games" / "r1-t0-g1.html").read_text()


DAMAGED_NOTE = ("This record of today's rules does not replay, so the game is shown as "
                "recorded; the replay says: choice 0: the record does not replay here (arena "
                "replay says where it differs).")


def test_a_stored_record_that_does_not_replay_is_reported(cup_db: Path, tmp_path: Path) -> None:
    """A record of today's rules whose replay fails made arena report refuse the whole
    tournament: its page shows it as recorded under the replay's reason, and the report says
    how many it met."""
    import shutil

    db = tmp_path / "damaged.db"
    shutil.copy(cup_db, db)
    site_db.damage(db, "cup/r1/t0/g2")
    site_db.damage(db, "cup/r2/t0/g1")
    out = tmp_path / "s"
    code, stdout, stderr = run("report", "cup", "-o", str(out), "--db", str(db), "-j", "1")
    assert (code, stderr) == (0, "")
    first, second = stdout.splitlines()
    assert first.startswith("Wrote 13 pages (7 game replays, 2 games as recorded, ")
    assert second == ("2 stored records do not replay (first: cup/r1/t0/g2): their pages show "
                      "what the record holds, under the replay's reason")
    page = (out / "games" / "r1-t0-g2.html").read_text()
    assert DAMAGED_NOTE in html.unescape(page) and "game-data" not in page
    assert "game-data" in (out / "games" / "r1-t0-g1.html").read_text()


def test_a_record_that_does_not_replay_written_alone(cup_db: Path, tmp_path: Path) -> None:
    """arena game ID --html refused it with one Error line: written as recorded, after one
    warning line saying why."""
    import shutil

    db = tmp_path / "damaged.db"
    shutil.copy(cup_db, db)
    site_db.damage(db, "cup/r1/t0/g2")
    page = tmp_path / "g.html"
    code, stdout, stderr = run("game", "cup/r1/t0/g2", "--html", str(page), "--db", str(db))
    assert code == 0
    assert stderr == (f"warning: Game cup/r1/t0/g2: {DAMAGED_NOTE[0].lower()}"
                      f"{DAMAGED_NOTE[1:]}\n")
    assert re.fullmatch(rf"Wrote Game cup/r1/t0/g2 as recorded to {re.escape(str(page))} "
                        rf"\(\d+ kB\)\n", stdout)
    assert DAMAGED_NOTE in html.unescape(page.read_text())


@pytest.mark.parametrize(("host", "shown"), [(None, r"127\.0\.0\.1"),
                                             ("", r"0\.0\.0\.0")])
def test_serve_says_where_it_serves(cup_db: Path, host: str | None, shown: str) -> None:
    """Where it listens, in full: ``--host ''`` listens on every interface, and says so."""
    import os
    import subprocess
    import sys
    import urllib.request

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    process = subprocess.Popen([sys.executable, "-m", "arena.cli.main", "serve", "--port", "0",
                                "--db", str(cup_db), *(["--host", host] if host is not None
                                                       else [])],
                               stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        reach = "; other machines can reach it" if host == "" else ""
        match = re.fullmatch(rf"Serving {re.escape(str(cup_db))} at (http://{shown}:(\d+)/) "
                             rf"\(read-only{reach}; Ctrl-C stops\)\n", line)
        assert match, line
        url = f"http://127.0.0.1:{match.group(2)}/t/cup/index.html"
        with urllib.request.urlopen(url, timeout=60) as page:
            assert 'id="leaderboard"' in page.read().decode()
    finally:
        process.terminate()
        process.wait(timeout=60)


def test_links_left_in_the_output_folder_are_replaced_not_written_through(
        cup_db: Path, tmp_path: Path) -> None:
    out, victim = tmp_path / "site", tmp_path / "victim.txt"
    out.mkdir()
    victim.write_text("keep\n")
    (out / "index.html").symlink_to(victim)
    code, _, stderr = run("report", "cup", "-o", str(out), "--db", str(cup_db), "-j", "1")
    assert (code, stderr) == (0, "")
    assert victim.read_text() == "keep\n"
    assert not (out / "index.html").is_symlink() and "<html" in (out / "index.html").read_text()


def test_a_linked_subfolder_is_refused(cup_db: Path, tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "games").symlink_to(elsewhere)
    code, _, stderr = run("report", "cup", "-o", str(out), "--db", str(cup_db))
    assert code == 1
    assert stderr == (f"Error: cannot write the report to {out}: {out / 'games'} is a symbolic "
                      "link (the report writes only into folders of its own)\n")
    assert list(elsewhere.iterdir()) == []


def test_a_database_another_program_keeps_locked(cup_db: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import arena.rating.games

    db = tmp_path / "locked.db"
    shutil.copy(cup_db, db)
    monkeypatch.setattr(arena.rating.games, "BUSY_TIMEOUT_S", 0.05)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        code, _, stderr = run("leaderboard", "cup", "--db", str(db))
    finally:
        holder.close()
    assert code == 1
    assert stderr == (f"Error: results database {db} is locked by another program (waited "
                      "0.05 s for it to let go); try again once it has finished\n")


def test_a_report_written_again_leaves_no_stale_game_page(cup_db: Path, tmp_path: Path) -> None:
    """Written into the folder of an earlier report (of a tournament since played again with
    fewer games): its game pages are this tournament's only; the user's own files stay."""
    out = tmp_path / "site"
    (out / "games").mkdir(parents=True)
    (out / "games" / "r9-t0-g0.html").write_text("an old game")
    (out / "games" / "notes.html").write_text("mine")
    (out / "games" / "r1-t0-g0.html").write_text("an old copy of a game played again")
    code, _, stderr = run("report", "cup", "-o", str(out), "--db", str(cup_db), "-j", "1")
    assert (code, stderr) == (0, "")
    pages = sorted(p.name for p in (out / "games").iterdir())
    assert "r9-t0-g0.html" not in pages and "notes.html" in pages
    assert len(pages) == 9 + 1  # the tournament's nine games and the user's file
    assert "an old copy" not in (out / "games" / "r1-t0-g0.html").read_text()


def test_head_to_head_says_what_repeated_deals_do_to_the_intervals(cup_db: Path,
                                                                    tmp_path: Path) -> None:
    import html
    import shutil

    db = tmp_path / "dealt.db"
    shutil.copy(cup_db, db)
    conn = sqlite3.connect(db)
    with conn:  # alpha and beta's three games become one deal, played three times
        conn.execute("UPDATE games SET seed = 1000 WHERE id LIKE 'cup/r1/t0/%'")
    conn.close()
    told = runner.invoke(app, ["h2h", "cup", "--db", str(db)]).stdout.splitlines()[-1]
    note = told.split("; --format csv")[0]
    assert note.startswith("Deals repeat in several seatings: a pair's n games count as fewer")
    code, _, err = run("report", "cup", "--db", str(db), "-o", str(tmp_path / "site"))
    assert code == 0, err
    page = html.unescape((tmp_path / "site" / "h2h.html").read_text())
    assert f"{note}; a cell's tooltip gives its deals and effective games." in page
    code, _, _ = run("report", "cup", "--db", str(cup_db), "-o", str(tmp_path / "plain"))
    assert "Deals repeat" not in (tmp_path / "plain" / "h2h.html").read_text()


class _FullDisk(io.FileIO):
    """A page file on a full disk: what is written fails as the kernel says ENOSPC."""

    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_names_the_page_and_leaves_no_hidden_part(
        cup_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report on a full disk said "cannot write the output" and left a hidden
    ``.index.html.XXXX`` behind."""
    import arena.web.site

    def full_disk(handle: int, mode: str) -> _FullDisk:
        return _FullDisk(handle, "wb")

    out = tmp_path / "site"
    with monkeypatch.context() as patched:
        patched.setattr(arena.web.site.os, "fdopen", full_disk)
        code, stdout, stderr = run("report", "cup", "-o", str(out), "--db", str(cup_db),
                                   "-j", "1")
    assert (code, stdout) == (1, "")
    assert stderr == (f"Error: cannot write the report page {out / 'index.html'}: "
                      "No space left on device\n")
    assert [p.name for p in out.iterdir() if p.is_file()] == []


def _broken(cup_db: Path, tmp_path: Path, how: str) -> Path:
    """A copy of the cup whose game cup/r1/t0/g2 has its stored blob damaged ``how``."""
    import shutil

    db = tmp_path / "broken.db"
    shutil.copy(cup_db, db)
    site_db.break_record(db, "cup/r1/t0/g2", how)
    return db



def test_a_damaged_games_row_too_is_shown_as_far_as_it_goes(cup_db: Path,
                                                             tmp_path: Path) -> None:
    """A hand-edited database: the game's record damaged, and its row's seats no bot ids
    (a list, an object). arena game ID ended in a TypeError traceback (an unhashable id), and
    arena serve answered 500 for the page; its seats are unknown bots, '?'."""
    import sqlite3

    from arena.web.data import game_row
    from arena.web.site import stored_row_page

    db = _broken(cup_db, tmp_path, "not JSON")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET seats_json = ? WHERE id = ?",
                     ('[[1], {"a": 1}]', "cup/r1/t0/g2"))
    conn.close()
    code, stdout, _ = run("game", "cup/r1/t0/g2", "--db", str(db))
    assert code == 0 and "Bots: seat 0 ?@?, seat 1 ?@?" in stdout
    page = stored_row_page(game_row(db, "cup/r1/t0/g2"), "cup/r1/t0/g2", "not JSON")
    assert "0: <bdi>?</bdi>" in page.html and "1: <bdi>?</bdi>" in page.html

def _row_note(how: str) -> str:
    return (f"Its stored record is damaged ({site_db.BREAKS[how]}), so the game is shown as "
            "far as its stored row goes: its bots, places and failures.")


@pytest.mark.parametrize("how", sorted(site_db.BREAKS))
def test_a_stored_record_that_cannot_be_read_is_reported(cup_db: Path, tmp_path: Path,
                                                         how: str) -> None:
    """A blob that did not decompress or parse made arena report refuse the whole tournament:
    every page is written, the game's own from its stored row, and one line says so."""
    db, out = _broken(cup_db, tmp_path, how), tmp_path / "s"
    code, stdout, stderr = run("report", "cup", "-o", str(out), "--db", str(db), "-j", "1")
    assert (code, stderr) == (0, "")
    first, second = stdout.splitlines()
    assert first.startswith("Wrote 13 pages (8 game replays, 1 game as recorded, ")
    assert second == (f"1 stored record is damaged (first: cup/r1/t0/g2, "
                      f"{site_db.BREAKS[how]}): its page shows the game as far as its stored "
                      "row goes")
    page = html.unescape((out / "games" / "r1-t0-g2.html").read_text())
    assert _row_note(how) in page and "game-data" not in page
    assert "alpha" in page and "beta" in page and "1st" in page and "2nd" in page
    assert "game-data" in (out / "games" / "r1-t0-g1.html").read_text()


@pytest.mark.parametrize("how", sorted(site_db.BREAKS))
def test_a_stored_game_whose_record_cannot_be_read_is_shown_from_its_row(
        cup_db: Path, tmp_path: Path, how: str) -> None:
    """arena game ID (and --seat) refused it with one Error line: its bots and places, as its
    stored row holds them, after one warning line; --format json has no record to show. What
    a row does not hold (rounds, sandbox) is left out, not shown as '?' or 'unknown'."""
    db = _broken(cup_db, tmp_path, how)
    warning = (f"warning: Game cup/r1/t0/g2: its stored record is damaged "
               f"({site_db.BREAKS[how]}); shown as far as its stored row goes (its bots, "
               "places and failures)\n")
    code, stdout, stderr = run("game", "cup/r1/t0/g2", "--db", str(db))
    assert (code, stderr) == (0, warning)
    assert stdout.splitlines() == [
        "Game cup/r1/t0/g2", "Bots: seat 0 alpha@v1, seat 1 beta@v1",
        "2 players, game seed 1002; alpha starts", "  seat 0  alpha: 1st, Pair",
        "  seat 1  beta: 2nd, Pair", "  first place: no tie", "", "Failures: none"]
    code, stdout, stderr = run("game", "cup/r1/t0/g2", "--seat", "1", "--db", str(db))
    assert (code, stderr) == (0, warning)
    assert stdout.splitlines()[-4:] == ["  first place: no tie", "As seat 1 (beta) saw it:", "",
                                        "Failures: none"]
    assert run("game", "cup/r1/t0/g2", "-f", "json", "--db", str(db)) == (
        1, "", f"Error: Game cup/r1/t0/g2: its stored record is damaged "
               f"({site_db.BREAKS[how]}), so there is no record to show\n")


@pytest.mark.parametrize("how", sorted(site_db.BREAKS))
def test_a_stored_record_that_cannot_be_read_written_alone(cup_db: Path, tmp_path: Path,
                                                           how: str) -> None:
    db, page = _broken(cup_db, tmp_path, how), tmp_path / "g.html"
    code, stdout, stderr = run("game", "cup/r1/t0/g2", "--html", str(page), "--db", str(db))
    assert code == 0
    assert stderr == (f"warning: Game cup/r1/t0/g2: its stored record is damaged "
                      f"({site_db.BREAKS[how]}); shown as far as its stored row goes (its "
                      "bots, places and failures)\n")
    assert re.fullmatch(rf"Wrote Game cup/r1/t0/g2 as far as its stored row goes to "
                        rf"{re.escape(str(page))} \(\d+ kB\)\n", stdout)
    assert _row_note(how) in html.unescape(page.read_text())


@pytest.mark.parametrize("how", sorted(site_db.BREAKS))
def test_exports_leave_out_a_stored_record_that_cannot_be_read(cup_db: Path, tmp_path: Path,
                                                               how: str) -> None:
    """arena export and arena status --records stopped at it with one Error line and wrote
    nothing: the other games are written, and one line names the one left out."""
    db = _broken(cup_db, tmp_path, how)
    left_out = f"warning: game cup/r1/t0/g2: its stored record is damaged ({site_db.BREAKS[how]})"
    out = tmp_path / "games.jsonl"
    assert run("export", "cup", "-o", str(out), "--db", str(db)) == (
        0, "", f"{left_out}; left out of {out}\nWrote 8 games of cup to {out}\n")
    exported = [json.loads(line)["game_id"] for line in out.read_text().splitlines()]
    assert len(exported) == 8 and "cup/r1/t0/g2" not in exported
    records = tmp_path / "records.jsonl"
    code, stdout, stderr = run("status", "cup", "--records", str(records), "--db", str(db))
    assert (code, stderr) == (0, f"{left_out}; left out of {records}\n")
    assert stdout.endswith(f"\nwrote 8 game records to {records}\n")
    assert run("replay", str(records)) == (0, "replayed 8 games: identical\n", "")


def test_an_export_of_only_damaged_records_writes_nothing(cup_db: Path, tmp_path: Path) -> None:
    """Nothing could be exported: one Error line, exit 1, and no file."""
    import shutil

    db = tmp_path / "broken.db"
    shutil.copy(cup_db, db)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE records SET record = x'00'")
    conn.close()
    out = tmp_path / "games.jsonl"
    code, stdout, stderr = run("export", "cup", "-o", str(out), "--db", str(db))
    assert (code, stdout) == (1, "")
    assert stderr.startswith("Error: game cup/r1/t0/g0: its stored record is damaged (")
    assert not out.exists()


def test_the_commands_that_read_no_record_are_unchanged_by_a_damaged_one(
        cup_db: Path, tmp_path: Path) -> None:
    """arena results, leaderboard, status, h2h and pairings read the games' rows alone."""
    db = _broken(cup_db, tmp_path, "truncated")
    for command in (["results", "cup"], ["results", "cup", "-f", "csv"], ["leaderboard", "cup"],
                    ["status", "cup"], ["h2h", "cup"], ["pairings", "cup"]):
        code, stdout, stderr = run(*command, "--db", str(db))
        assert (code, stdout.replace(str(db), str(cup_db)), stderr) \
            == run(*command, "--db", str(cup_db)), command


def test_a_stored_record_without_a_players_list_is_shown_from_its_row(
        cup_db: Path, tmp_path: Path) -> None:
    """A JSON record whose players are not a list ended arena game ID (and --seat) in a
    TypeError traceback: the game is shown as its stored row holds it."""
    import shutil
    import zlib

    db = tmp_path / "broken.db"
    shutil.copy(cup_db, db)
    conn = sqlite3.connect(db)
    with conn:
        (blob,) = conn.execute("SELECT record FROM records WHERE game_id = 'cup/r1/t0/g2'"
                               ).fetchone()
        record = {**json.loads(zlib.decompress(blob)), "players": 5}
        conn.execute("UPDATE records SET record = ? WHERE game_id = 'cup/r1/t0/g2'",
                     (zlib.compress(json.dumps(record).encode()),))
    conn.close()
    warning = ("warning: Game cup/r1/t0/g2: its stored record is damaged (not a game record: "
               "its players or events are not lists); shown as far as its stored row goes "
               "(its bots, places and failures)\n")
    for seat in ([], ["--seat", "0"]):
        code, stdout, stderr = run("game", "cup/r1/t0/g2", *seat, "--db", str(db))
        assert (code, stderr) == (0, warning)
        assert "  seat 0  alpha: 1st, Pair" in stdout.splitlines()


def test_failures_name_the_bots_files_as_their_author_knows_them(tmp_path: Path) -> None:
    """A failure quoting a path into the bot's sandboxed copy (``/bot/...`` under bubblewrap,
    the box's temporary directory on the host without it) is shown relative to the bot's
    directory on every page: a spectator never reads the host's temporary layout."""
    box = "/tmp/arena-box-4242-x1y2/bot"
    detail = (f"exited mid-game (exit code 1); FileNotFoundError: [Errno 2] No such file or "
              f"directory: '/bot/book.json' (and '{box}/data/opening.json')")
    db = site_db.build(tmp_path / "arena.db", failure_detail=detail)
    write_site(db, site_db.NAME, tmp_path / "site", jobs=1)
    pages = {page: (tmp_path / "site" / page).read_text()
             for page in ("index.html", "games.html", "games/r1-t0-g1.html")}
    told = ("No such file or directory: &#39;book.json&#39; (and "
            "&#39;data/opening.json&#39;)")
    assert told in pages["games.html"] and told in pages["games/r1-t0-g1.html"]
    for page, text in pages.items():
        assert "/bot/" not in text and "arena-box" not in text, page


def test_the_overview_shares_the_games_played_as_status_does(tmp_path: Path) -> None:
    """9 of 11 games: 81% on the overview as in ``arena status``, rounded down so that 100%
    means every planned game is played (rounded, it read 82%, and 359 of 360 read 100%)."""
    from arena.web.data import load_tournament
    from arena.web.site import render_page

    db = site_db.build(tmp_path / "arena.db", state="running")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE tournaments SET games_planned = 11")
    conn.close()
    index = render_page(load_tournament(db, site_db.NAME), "index.html")
    assert '<dd id="progress">9 of 11 (81%)</dd>' in index
    listed = runner.invoke(app, ["status", "--db", str(db)], terminal_width=200).stdout
    assert "9/11 (81%)" in listed
