"""`arena match`'s table of games reads a forfeit as the table's last place (RULES.md E28),
as its bots' table (mean place) and `arena game` do: a game two bots never started shows
neither first. Its figures besides: who started each game, each bot's wins and mean place, a
sequential test's score line."""

from __future__ import annotations

from arena.cli.match_report import Shown, games_table, progress_line, render_match
from arena.rating.sprt import Score, SprtTest
from arena.referee.outcome import GameOutcome, MatchOutcome

NEVER = "startup_failure"


def _game(index: int, placements: list[int], forfeits: dict[int, str]) -> GameOutcome:
    return GameOutcome(game_id=f"m/g{index}", game_index=index, seed=index,
                       seats=["a@1", "b@1", "c@1"], names=["a", "b", "c"], starting_seat=0,
                       placements=placements, desmos=["Pair", "Pair", "Pair"],
                       ascension=False, tiebreak="none", failures=[], forfeits=forfeits,
                       decisions=0, duration_s=0.0, latency=[], record={})


def test_the_games_table_places_forfeited_seats_last() -> None:
    games = [_game(0, [1, 1, 1], {0: NEVER, 1: NEVER, 2: NEVER}),
             _game(1, [2, 1, 3], {2: NEVER})]
    match = MatchOutcome(match_id="m", seats=["a@1", "b@1", "c@1"], names=["a", "b", "c"],
                         games=games, bots=[], sandbox_level="", limits={}, duration_s=0.0)
    rows = [line.split() for line in games_table(match).splitlines()[2:]]
    assert [row[2:5] for row in rows] == [["3", "3", "3"], ["2", "1", "3"]]


def test_the_games_table_names_who_started_each_game() -> None:
    games = [_game(index, [1, 2, 3], {}) for index in range(3)]
    for game in games:
        game.starting_seat = game.game_index
    match = MatchOutcome(match_id="m", seats=["a@1", "b@1", "c@1"], names=["a", "b", "c"],
                         games=games, bots=[], sandbox_level="", limits={}, duration_s=0.0)
    lines = games_table(match).splitlines()
    assert lines[0].split()[:2] == ["game", "starts"]
    assert [line.split()[1] for line in lines[2:]] == ["a", "b", "c"]


def _diagnostics(name: str) -> dict[str, object]:
    return {"name": name, "bot": f"{name}@1", "decisions": 7, "median_ms": 1.0,
            "max_ms": 2.0, "timeouts": 0, "failures": {}, "forfeits": 0, "restarts": 0}


def test_the_bots_table_gives_each_bots_wins_and_mean_place() -> None:
    games = [_game(0, [1, 2, 3], {}), _game(1, [3, 1, 2], {}), _game(2, [1, 3, 2], {})]
    match = MatchOutcome(match_id="m", seats=["a@1", "b@1", "c@1"], names=["a", "b", "c"],
                         games=games, bots=[_diagnostics(name) for name in "abc"],
                         sandbox_level="", limits={}, duration_s=0.0)
    lines = render_match(match, "seed 1", Shown(table=False, progress=0)).splitlines()
    head = lines.index(next(line for line in lines if line.startswith("bot ")))
    assert lines[head].split()[:5] == ["bot", "version", "wins", "mean", "place"]
    assert [line.split()[:4] for line in lines[head + 2:head + 5]] == [
        ["a", "1", "2", "1.667"], ["b", "1", "1", "2"], ["c", "1", "0", "2.333"]]


def test_a_progress_line_gives_the_score_as_points_for_and_against() -> None:
    line = progress_line(Score(wins=5, draws=2, losses=3), SprtTest(0, 50), 10)
    assert line.startswith("Games 10: score 6-4 (60.0%), Elo ")
