"""A league on the site: the leaderboard's newest versions and every version on request (the
rows of ``arena leaderboard --format json`` and ``--all-versions``), the entries with a
refusal's reason, recent tables rather than rounds, games counted without an end, a league
without games yet served without an error; and tournaments continued with ``--continue``
(two versions of one bot) or started again with ``--new-edition`` (NAME-2)."""

from __future__ import annotations

import http.client
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import league_db
import pytest
import yaml
from typer.testing import CliRunner

from arena.cli.main import app
from arena.web.server import make_server

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]


def board_json(db: Path, name: str, *more: str) -> dict[str, Any]:
    result = runner.invoke(app, ["leaderboard", name, "--db", str(db), "--format", "json",
                                 *more])
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def table_keys(html: str, table_id: str) -> list[str]:
    """The rows' bot keys of one table on a page, in order."""
    body = html.split(f'<table id="{table_id}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr data-key="([^"]+)"', body)


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[Any]:
    servers = []

    def serve(db: Path) -> int:
        server = make_server(db, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return int(server.server_port)

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def test_the_leaderboard_shows_the_newest_versions_and_every_version_on_request(
        league_site: Path, league_path: Path) -> None:
    index = (league_site / "index.html").read_text()
    newest = [row["key"] for row in board_json(league_path, "ladder")["bots"]]
    every = [row["key"] for row in board_json(league_path, "ladder", "--all-versions")["bots"]]
    assert newest == ["beta@v1", "alpha@v2", "gamma@v1"]
    assert table_keys(index, "leaderboard") == newest
    assert table_keys(index, "leaderboard-all") == every
    assert "alpha@v1" in every and len(every) == 4
    assert ("1 older version retired from the league keeps its games and ratings: see every "
            "version below.") in index
    assert "Every version (4), as <code>arena leaderboard ladder --all-versions</code>" in index
    assert '<dd id="progress">8 games</dd>' in index


def test_the_bots_no_longer_playing_are_named_as_arena_leaderboard_names_them(
        tmp_path: Path) -> None:
    """A bot retired (or whose files went) stayed on the page's board with its last rating,
    as one still playing: the terminal's board names it below, the page said nothing."""
    from arena.web.data import load_tournament
    from arena.web.site import render_page

    db = league_db.build(tmp_path / "a.db", retire="gamma")
    told = runner.invoke(app, ["leaderboard", "ladder", "--db", str(db)]).stdout
    line = next(line for line in told.splitlines() if "no longer playing" in line)
    assert line == "Retired from the league, no longer playing (ratings kept): gamma."
    index = render_page(load_tournament(db, "ladder"), "index.html")
    shown = index.split('<p class="hint" id="not-playing">', 1)[1].split("</p>", 1)[0]
    assert shown == line.replace("gamma", "<bdi>gamma</bdi>")  # each name isolated
    board = index.split('<table id="leaderboard"', 1)[1].split("</table>", 1)[0]
    rows = dict(re.findall(r'<tr data-key="([^"]+)"([^>]*)>', board))
    assert rows == {"beta@v1": "", "alpha@v2": "", "gamma@v1": ' class="retired"'}
    gamma = board.split('data-key="gamma@v1"', 1)[1].split("</tr>", 1)[0]
    assert "no longer playing" in gamma  # in words too, not only in grey
    every = index.split('<table id="leaderboard-all"', 1)[1].split("</table>", 1)[0]
    assert set(re.findall(r'<tr data-key="([^"]+)" class="retired"', every)) == {
        "alpha@v1", "gamma@v1"}
    # a league where every bot still plays says nothing of the kind
    playing = render_page(load_tournament(league_db.build(tmp_path / "b.db"), "ladder"),
                          "index.html")
    assert "no longer playing" not in playing


def test_the_note_naming_the_retired_bots_wraps_to_the_terminal(tmp_path: Path) -> None:
    """The line naming a league's retired bots ran past a narrow terminal's edge, cut
    mid-word there, while the other lines under the board wrapped at words."""
    from arena.rating.board_view import leaderboard_text

    db = league_db.build(tmp_path / "a.db", retire="gamma")
    for width in (40, 60):
        lines = leaderboard_text(db, "ladder", width=width).splitlines()
        assert max(len(line) for line in lines) <= width, lines
        assert "gamma." in lines[-1] and lines[-2].startswith("Retired from the league")
    # a document's (a pipe's width, too, names the retired in one line)
    assert leaderboard_text(db, "ladder", fmt="github", width=40).splitlines()[-1] == (
        "Retired from the league, no longer playing (ratings kept): gamma.")


def test_every_grey_row_says_why_in_words(league_site: Path) -> None:
    """An older version's row in "Every version" was told apart from the newest ones by its
    grey alone: a reader who cannot see the grey (a screen reader, colours turned off) took
    it for one still playing."""
    every = (league_site / "index.html").read_text().split('<table id="leaderboard-all"', 1)[1]
    rows = re.findall(r'<tr data-key="([^"]+)"( class="retired")?>(.*?)</tr>',
                      every.split("</table>", 1)[0], re.S)
    grey = {key: cells for key, retired, cells in rows if retired}
    assert set(grey) == {"alpha@v1"}
    assert all('<span class="gone-note">older version</span>' in cells for cells in grey.values())
    assert not any("gone-note" in cells for key, retired, cells in rows if not retired)


def test_a_bot_retired_while_served_is_shown_retired(tmp_path: Path, serving: Any) -> None:
    """arena serve read a tournament again only when games landed or its state changed: a
    bot retired from a stopped league went on looking like one still playing."""
    db = league_db.build(tmp_path / "a.db")
    port = serving(db)
    assert "no longer playing" not in get(port, "/t/ladder/index.html")[1]
    result = runner.invoke(app, ["league", "retire", "ladder", "gamma", "--db", str(db)])
    assert result.exit_code == 0, result.stderr
    index = get(port, "/t/ladder/index.html")[1]
    assert ("Retired from the league, no longer playing (ratings kept): <bdi>gamma</bdi>."
            in index)
    assert ("<bdi>gamma@v1</bdi>: entered at table 1, retired: by the organiser after table 4"
            in index)


def test_the_entries_are_arena_status_lines(league_site: Path, league_path: Path) -> None:
    status = runner.invoke(app, ["status", "ladder", "--db", str(league_path)]).stdout
    lines = status.split("older ones keep their games):\n", 1)[1].split("\n\n", 1)[0]
    index = (league_site / "index.html").read_text()
    # each line's bot isolated, as every name on the pages is
    shown = [(state, re.sub("</?bdi>", "", text)) for state, text in
             re.findall(r'<li class="entry (\w+)"><bdi>([^<]*</bdi>[^<]*)</li>', index)]
    assert [text for _, text in shown] == [line.strip() for line in lines.splitlines()]
    assert shown[-1] == ("refused", "delta@v1: refused at table 3: failed the compliance "
                                    "check: hello: no reply")
    assert shown[0] == ("retired", "alpha@v1: entered at table 1, retired at table 3")


def test_a_league_has_recent_tables_rather_than_rounds(league_site: Path) -> None:
    tables = (league_site / "rounds.html").read_text()
    assert '<a href="rounds.html" aria-current="page">Tables</a>' in tables
    assert "Recent tables" in tables and "A league has no rounds" in tables
    numbers = re.findall(r'rowspan="2"><a href="games.html\?round=(\d+)">', tables)
    assert numbers == ["4", "3", "2", "1"]  # newest first
    # two versions of alpha in one league: each named with its version
    assert all(f"<bdi>{name}</bdi> <b>" in tables for name in ("alpha@v2", "alpha@v1", "beta"))
    h2h = (league_site / "h2h.html").read_text()
    assert ">alpha@v1</bdi></th>" in h2h and ">alpha@v2</bdi></th>" in h2h
    games = (league_site / "games.html").read_text()
    assert '<option value="alpha@v1">alpha@v1</option>' in games  # a retired version's games


def test_a_league_counts_its_games_without_an_end(tmp_path: Path) -> None:
    from arena.web.data import load_tournament
    from arena.web.site import render_page

    # a budget is when a run stops (raised to go on), not an end to count towards: it is
    # told beside the games, never as a share of it
    db = league_db.build(tmp_path / "a.db", tables=2, budget=10, state="running")
    index = render_page(load_tournament(db, "ladder"), "index.html")
    assert '<dd id="progress">4 games (budget 10)</dd>' in index
    assert "league, 4 games (budget 10), " in index  # the footer
    assert "older version" not in index and 'id="leaderboard-all"' in index


def test_a_league_over_a_lowered_budget_says_it_is_spent_everywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """8 games stored, then run with a budget of 6: every place that tells a league's games
    says the budget is spent, none that it is 133% played."""
    from arena.cli.tournament_commands import _print_summary
    from arena.tournament.runner import RunSummary
    from arena.web.data import load_tournament
    from arena.web.site import render_page

    db = league_db.build(tmp_path / "a.db", budget=6, state="finished")
    listing = runner.invoke(app, ["status", "--db", str(db)], terminal_width=200).stdout
    one = runner.invoke(app, ["status", "ladder", "--db", str(db)], terminal_width=200).stdout
    listed = runner.invoke(app, ["tournaments", "--db", str(db)], terminal_width=200).stdout
    for text in (listing, listed):
        assert text.splitlines()[2].split()[4:8] == ["8", "(budget", "6", "spent)"], text
    assert "; games 8 (budget 6 spent)\n" in one
    data = load_tournament(db, "ladder")
    index = render_page(data, "index.html")
    assert '<dd id="progress">8 games (budget 6 spent)</dd>' in index
    tables = render_page(data, "rounds.html")
    assert "; 8 games played (budget 6 spent); the games page lists them all." in tables
    for page in ("index.html", "rounds.html", "games.html", "h2h.html"):  # the footer
        assert "Palaestra Arena: league, 8 games (budget 6 spent), finished" in render_page(
            data, page), page
    assert "%" not in listing + one + listed
    # a script reads no share of the budget either: a league plans no games, and its budget
    # and whether the games reach it are fields of their own, alike in every listing
    for command in (["status", "ladder"], ["status"], ["tournaments"]):
        shown = runner.invoke(app, [*command, "--db", str(db), "--format", "json"]).stdout
        data = json.loads(shown)
        listed = data["tournaments"][0] if "tournaments" in data else data
        assert {key: listed[key] for key in ("games_done", "games_planned", "budget_games",
                                            "budget_spent")} == {
            "games_done": 8, "games_planned": None, "budget_games": 6, "budget_spent": True}
    csv = runner.invoke(app, ["tournaments", "--db", str(db), "--format", "csv"]).stdout
    assert csv.splitlines()[1].split(",")[5:9] == ["8", "", "6", "yes"]
    _print_summary(RunSummary(name="ladder", db=db, games_planned=6, games_before=8,
                              games_recorded=0, elapsed_s=0.0, state="finished", league=True))
    assert capsys.readouterr().out.startswith(  # the end of an arena run
        "ladder: 8 games recorded (budget 6 spent; 0 this run, 0.0 s, 0.0 games/s) in ")


def test_a_league_without_games_yet_is_served(tmp_path: Path, serving: Any) -> None:
    db = league_db.build(tmp_path / "a.db", tables=0, state="running")
    port = serving(db)
    for page in ("index.html", "h2h.html", "rounds.html", "games.html"):
        status, body = get(port, f"/t/ladder/{page}")
        assert status == 200, (page, body)
    index = get(port, "/t/ladder/index.html")[1]
    assert '<dd id="progress">0 games</dd>' in index
    assert "No tables chosen yet." in get(port, "/t/ladder/rounds.html")[1]
    assert json.loads(get(port, "/t/ladder/api/progress.json")[1])["games"] == 0
    result = runner.invoke(app, ["report", "ladder", "-o", str(tmp_path / "s"), "--db",
                                 str(db)])
    assert (result.exit_code, result.stderr) == (
        1, "Error: tournament 'ladder' has no games yet: nothing to report\n")


def test_the_live_league_counts_games_as_they_land(league_path: Path, tmp_path: Path,
                                                    serving: Any) -> None:
    db = tmp_path / "copy.db"
    db.write_bytes(league_path.read_bytes())
    port = serving(db)
    before = json.loads(get(port, "/t/ladder/api/progress.json")[1])
    assert before["games"] == 8
    with sqlite3.connect(db) as conn:  # a game lands: a copy of one under a new id
        conn.execute(
            "INSERT INTO games SELECT 'ladder/r5/t0/g0', tournament_id, 5, 0, 0, seed, "
            "seats_json, starting_seat, placements_json, desmos_json, ascension, tiebreak, "
            "failures_json, forfeits_json, decisions, duration_s, record_path, created_at, "
            "latency_json FROM games WHERE id = 'ladder/r4/t0/g0'")
    assert json.loads(get(port, "/t/ladder/api/progress.json")[1])["games"] == 9
    index = get(port, "/t/ladder/index.html")[1]
    assert '<dd id="progress">9 games</dd>' in index
    assert 'data-live="9"' in index



def test_the_versions_a_running_league_is_vetting_are_shown_as_arena_status_shows_them(
        tmp_path: Path, serving: Any) -> None:
    from arena.tournament.league_store import set_vetting
    from arena.tournament.store import Store

    db = league_db.build(tmp_path / "a.db", state="running")
    with Store(db) as store:
        row = store.tournament("ladder")
        assert row is not None
        set_vetting(store, row.id, {"eve<i>@v1": 5, "alpha@v3": 5},
                    {"alpha@v3": ["alpha@v2<b>"]})
    port = serving(db)
    with Store(db) as held, held.lock("ladder"):  # a run holds it: its rows are live
        status = runner.invoke(app, ["status", "ladder", "--db", str(db)]).stdout
        index = get(port, "/t/ladder/index.html")[1]
        progress = json.loads(get(port, "/t/ladder/api/progress.json")[1])
    told = [line.strip() for line in status.splitlines() if "being vetted" in line]
    assert told == ["eve<i>@v1: being vetted since table 5", "alpha@v3: being vetted since "
                    "table 5 (alpha@v2<b> gave way to it before its vet ended)"]
    shown = re.findall(r'<li class="entry vetting">(.*?)</li>', index)
    # every bot key of a line isolated, the older version that gave way too: a right-to-left
    # name outside a <bdi> would reorder the words around it
    assert shown == ["<bdi>eve&lt;i&gt;@v1</bdi>: being vetted since table 5",
                     "<bdi>alpha@v3</bdi>: being vetted since table 5 (<bdi>alpha@v2&lt;b&gt;"
                     "</bdi> gave way to it before its vet ended)"]
    assert progress["entries"] == [5, 3, 2]
    assert 'data-entries="5,3,2"' in index
    # no run holds it: a killed run's rows, which the next run clears, are not shown
    assert "being vetted" not in get(port, "/t/ladder/index.html")[1]
    assert json.loads(get(port, "/t/ladder/api/progress.json")[1])["entries"] == [5, 3, 0]


def test_a_version_entering_while_the_page_is_read_does_not_break_the_league_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page reads a league's entries and its vet line at one moment: a run that enters
    a version (or changes its line) between the page's reads is seen after, not half."""
    import arena.web.data as data
    from arena.tournament.league_store import set_vetting
    from arena.tournament.store import Store

    db = league_db.build(tmp_path / "a.db", state="running")
    with Store(db) as store:
        row = store.tournament("ladder")
        assert row is not None
        set_vetting(store, row.id, {"eve@v1": 5})
    read_line = data.vetting

    def run_moves_on(store: Any, tournament_id: int) -> dict[str, int]:
        line = read_line(store, tournament_id)
        with Store(db) as writer:  # the league's run, between two of the page's reads
            set_vetting(writer, tournament_id, {"eve@v1": 5, "zed@v1": 6})
        return line

    monkeypatch.setattr(data, "vetting", run_moves_on)
    with Store(db) as held, held.lock("ladder"):  # a run holds it: its rows are live
        entries = data.load_tournament(db, "ladder").entries
    assert [(e["state"], e["key"]) for e in entries if e["state"] == "vetting"] == [
        ("vetting", "eve@v1")]
    assert [e["line"] for e in entries][-1] == "eve@v1: being vetted since table 5"


def test_a_live_pages_progress_counts_are_read_at_one_moment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The progress a live page polls reads its counts at one moment: a version the run
    puts on its vet between two of its reads is seen by the next poll, not counted in this
    one beside entries read before it."""
    import arena.web.data as data
    from arena.tournament.league_store import set_vetting
    from arena.tournament.store import Store

    db = league_db.build(tmp_path / "a.db", state="running")
    with Store(db) as store:
        row = store.tournament("ladder")
        assert row is not None
        set_vetting(store, row.id, {"eve@v1": 5})
    read_counts = data.entry_counts

    def run_moves_on(store: Any, tournament_id: int) -> Any:
        counts = read_counts(store, tournament_id)
        with Store(db) as writer:  # the league's run, between two of the poll's reads
            set_vetting(writer, tournament_id, {"eve@v1": 5, "zed@v1": 6})
        return counts

    monkeypatch.setattr(data, "entry_counts", run_moves_on)
    with Store(db) as held, held.lock("ladder"):  # a run holds it: its rows are live
        assert data.progress(db, "ladder")["entries"] == [5, 3, 1]
        assert data.progress(db, "ladder")["entries"] == [5, 3, 2]


# -- tournaments continued with --continue, or started again with --new-edition ------------------
class _Passed:
    ok = True

    def failures(self) -> list[str]:
        return []


def test_continued_and_new_edition_tournaments(tmp_path: Path, serving: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.registry import submit
    from arena.tournament.runner import run_tournament
    from arena.tournament.spec_loading import load_spec

    bots_dir = tmp_path / "bots"
    bots_dir.mkdir()
    monkeypatch.setenv("ARENA_BOTS_DIR", str(bots_dir))
    monkeypatch.chdir(tmp_path)
    first = REPO / "tests" / "tournament" / "bots" / "first.py"
    old = submit(first, "mine", bots_dir, check=lambda spec: _Passed()).version
    db = tmp_path / "arena.db"
    spec = tmp_path / "cup.yaml"
    spec.write_text(yaml.safe_dump({
        "name": "cup", "format": "round_robin", "players_per_game": 2, "rounds": 2,
        "games_per_match": 1, "seed": 11, "event_date": "2026-11-29", "results": str(db),
        "bots": ["mine", str(REPO / "bots" / "greedy.py"), str(REPO / "bots" / "collector.py")]}))
    run_tournament(load_spec(spec), 1)
    with sqlite3.connect(db) as conn:  # the store as a run stopped before round 2 left it
        conn.execute("DELETE FROM records WHERE game_id IN (SELECT id FROM games WHERE "
                     "round >= 2)")
        conn.execute("DELETE FROM games WHERE round >= 2")
        conn.execute("UPDATE tournaments SET state = 'interrupted'")
    changed = tmp_path / "mine_v2.py"
    changed.write_text(first.read_text() + "\n# faster\n")
    new = submit(changed, "mine", bots_dir, check=lambda spec: _Passed(), update=True).version
    run_tournament(load_spec(spec), 1, carry_on=True)
    changed.write_text(first.read_text() + "\n# faster still\n")
    submit(changed, "mine", bots_dir, check=lambda spec: _Passed(), update=True)
    assert run_tournament(load_spec(spec), 1, new_edition=True).name == "cup-2"
    port = serving(db)
    index = get(port, "/t/cup/index.html")[1]
    assert table_keys(index, "leaderboard") == [
        row["key"] for row in board_json(db, "cup")["bots"]]
    assert {f"mine@{old}", f"mine@{new}"} <= set(table_keys(index, "leaderboard"))
    assert f'<td class="mono">{old}</td>' in index and f'<td class="mono">{new}</td>' in index
    assert 'id="leaderboard-all"' not in index  # every version is on the one leaderboard
    rounds = get(port, "/t/cup/rounds.html")[1]
    assert f"mine@{old}</bdi> <b>" in rounds and f"mine@{new}</bdi> <b>" in rounds
    assert f">mine@{old}</bdi></th>" in get(port, "/t/cup/h2h.html")[1]
    edition = get(port, "/t/cup-2/index.html")[1]
    assert table_keys(edition, "leaderboard") == [
        row["key"] for row in board_json(db, "cup-2")["bots"]]
    assert '<h1>cup-2</h1>' in edition
    assert "<bdi>mine</bdi> <b>" in get(port, "/t/cup-2/rounds.html")[1]
    assert 'href="t/cup-2/index.html"' in get(port, "/")[1]
    assert get(port, "/t/cup-2/games/r1-t0-g0.html")[0] == 200
    result = runner.invoke(app, ["report", "cup-2", "-o", str(tmp_path / "s"), "--db", str(db),
                                 "-j", "1"])
    assert result.exit_code == 0 and (tmp_path / "s" / "games" / "r1-t0-g0.html").is_file()


def test_a_league_lists_its_latest_games_first(tmp_path: Path) -> None:
    """A league plays on: its games page opens on the games just played, as its tables page
    does, not on the first ones, which a long league's later pages bury."""
    from arena.web.data import load_tournament
    from arena.web.site import games_listing, render_page

    data = load_tournament(league_db.build(tmp_path / "a.db", tables=3), "ladder")
    for game in data.games:  # a failure in every game: the list of failures follows them
        game.failures = [{"type": "crash", "seat": 0, "detail": "exited"}]
    games = render_page(data, "games.html")
    body = games.split('<table id="games"', 1)[1].split("</table>", 1)[0]
    rounds = [int(r) for r in re.findall(r'</a></td><td>(\d+)</td>', body)]
    assert rounds == sorted(rounds, reverse=True) and rounds[0] == 3, rounds
    listed = [row[1] for row in games_listing(data, newest_first=True)["rows"]]
    assert listed == sorted(listed, reverse=True)
    slugs = re.findall(r'<li data-bot="[^"]*" data-failure="[^"]*"><a href="games/([^"]+)\.html',
                       games)
    assert len(slugs) == 6 and slugs == sorted(slugs, reverse=True), slugs


def test_a_leagues_progress_gives_its_budget_as_status_json_does(tmp_path: Path,
                                                                  serving: Any) -> None:
    port = serving(league_db.build(tmp_path / "budget.db", budget=8))
    progress = json.loads(get(port, "/t/ladder/api/progress.json")[1])
    assert (progress["games"], progress["budget_games"], progress["budget_spent"]) == (
        8, 8, True)
    status = json.loads(runner.invoke(app, ["status", "ladder", "--db",
                                            str(tmp_path / "budget.db"), "-f", "json"]).stdout)
    assert {key: status[key] for key in ("budget_games", "budget_spent")} == {
        key: progress[key] for key in ("budget_games", "budget_spent")}
    unbudgeted = serving(league_db.build(tmp_path / "open.db"))
    progress = json.loads(get(unbudgeted, "/t/ladder/api/progress.json")[1])
    assert (progress["budget_games"], progress["budget_spent"]) == (None, None)
