"""The match of ``arena match`` as a library: seatings, records, bots told apart, the
sequential test's early stop (sample bots in the sandbox, a few games each)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.errors import ArenaError, BotNameError
from arena.rating import match_series
from arena.rating.match_series import (
    SPRT_GAMES,
    MatchSeries,
    default_seating,
    first_bot_score,
    games_per_deal,
    told_apart,
    wins_so_far,
)
from arena.rating.sprt import SprtTest
from arena.referee.match import GameOutcome
from arena.registry import resolve
from arena.sandbox import Limits, probe

BOTS = Path(__file__).resolve().parents[2] / "bots"
RANDOM, GREEDY = str(BOTS / "random.py"), str(BOTS / "greedy.py")
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")


def test_seating_arithmetic() -> None:
    assert default_seating(sequential=True) == "rotations"
    assert default_seating(sequential=False) == "none"
    assert games_per_deal(2, "none") == 1
    assert games_per_deal(2, "rotations") == 2
    assert games_per_deal(3, "permutations") == 6
    assert games_per_deal(5, "rotations") == 5  # five bots, the most a match seats
    assert SPRT_GAMES % games_per_deal(2, "rotations") == 0


def test_a_bot_entered_twice_is_told_apart() -> None:
    specs = told_apart([RANDOM, RANDOM, GREEDY])
    assert [s.name for s in specs] == ["random#1", "random#2", "greedy"]
    assert told_apart([resolve(GREEDY)])[0] == resolve(GREEDY)


def test_names_are_numbered_once_and_a_numbered_name_is_refused() -> None:
    """Told apart again, random#1 passed as random: a bot naming itself so was let in as a
    numbered copy. The numbers are given once; '#' is in no bot's name."""
    specs = told_apart([RANDOM, RANDOM])
    with pytest.raises(BotNameError, match="^bot name 'random#1' is not allowed: "):
        told_apart(specs)


@needs_sandbox
def test_a_series_plays_its_games_reports_each_and_writes_their_records(
        tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    seen: list[GameOutcome] = []
    series = MatchSeries(told_apart([RANDOM, GREEDY]), games=2, seed=5, limits=Limits(),
                         seating="rotations", records=records)
    outcome = series.play(on_game=seen.append)
    assert outcome.names == ["random", "greedy"]
    assert len(outcome.games) == 2 and seen == series.played == outcome.games
    lines = records.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [game.record for game in outcome.games]
    assert series.whole_deals() == outcome.games
    score = first_bot_score(outcome.games)
    assert score.games == 2
    wins = dict(wins_so_far(outcome.games))
    assert set(wins) == {"random", "greedy"} and sum(wins.values()) <= 2


@needs_sandbox
def test_a_decided_sequential_test_stops_the_series_at_a_whole_deal() -> None:
    """Bounds so wide apart in Elo and so loose in error rates that the first decisive deal
    decides: the series stops there, long before its cap."""
    test = SprtTest(-1000, 1000, alpha=0.45, beta=0.45)
    series = MatchSeries(told_apart([GREEDY, RANDOM]), games=8, seed=3, limits=Limits(),
                         seating="rotations", test=test)
    outcome = series.play()
    assert len(outcome.games) < 8 and len(outcome.games) % 2 == 0
    assert test.decision(first_bot_score(outcome.games)) is not None


@needs_sandbox
def test_records_that_cannot_be_written_stop_the_series_with_one_error(tmp_path: Path) -> None:
    series = MatchSeries(told_apart([RANDOM, GREEDY]), games=2, seed=1, limits=Limits(),
                         records=tmp_path)
    with pytest.raises(ArenaError, match=f"cannot write game records to {tmp_path}: "):
        series.play()
    assert len(series.played) == 1  # the first game ended; its record could not be written


@needs_sandbox
def test_a_bot_edited_during_the_match_is_not_restarted_under_its_version(
        tmp_path: Path) -> None:
    """A bot entered by path dies after each game and is restarted for the next; edited
    after the first game, it was restarted from the edit, whose games counted under the
    version checked at the start. The match stops instead, saying why, its game kept."""
    from arena.errors import FilesChangedError

    bot = tmp_path / "end_crasher.py"
    bot.write_text((BOTS.parent / "tests" / "fixtures" / "bots" / "end_crasher.py").read_text())
    key = resolve(str(bot)).key
    records = tmp_path / "games.jsonl"
    series = MatchSeries(told_apart([str(bot), RANDOM]), games=3, seed=7, limits=Limits(),
                         records=records)

    def edit(game: GameOutcome) -> None:
        if len(series.played) == 1:
            bot.write_text(bot.read_text() + "\n# edited during the match\n")

    with pytest.raises(FilesChangedError) as info:
        series.play(on_game=edit)
    assert str(info.value).startswith(
        f"bot {key}: its files at {bot} changed or went away since it entered, so it was not "
        "restarted; ")
    assert len(series.played) == 1 and len(records.read_text().splitlines()) == 1


def test_a_series_replaces_the_records_a_file_held_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match's records file describes that match alone: an earlier match's games in it
    would be read as this one's."""
    games = [GameOutcome(game_id=f"m/g{index}", game_index=index, seed=index,
                         seats=["random@1", "greedy@1"], names=["random", "greedy"],
                         starting_seat=0, placements=[1, 2], desmos=["", ""], ascension=False,
                         tiebreak="none", failures=[], forfeits={}, decisions=0,
                         duration_s=0.0, latency=[], record={"game": index})
             for index in range(2)]

    def play_match(request: object, on_game: Callable[[GameOutcome], None],
                   stop: object) -> None:
        for game in games:
            on_game(game)

    monkeypatch.setattr(match_series, "play_match", play_match)
    records = tmp_path / "games.jsonl"
    records.write_text('{"game":"of an earlier match"}\n')
    MatchSeries(told_apart([RANDOM, GREEDY]), games=2, seed=1, limits=Limits(),
                records=records).play()
    assert records.read_text().splitlines() == ['{"game":0}', '{"game":1}']
