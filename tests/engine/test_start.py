"""Who starts (ruling 13): the most recent ``last_read_page`` in the first game of a match,
then the loser of the previous game; ties by a lot drawn from the seed."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from engine_scenario import final_showdown

from arena.engine import FirstOptionAgent, GameConfig, play_game
from arena.engine.start import first_contenders, first_starting_seat, next_starting_seat
from arena.engine.state import GameResult

UTC = dt.timezone.utc


def result(placements: list[int]) -> GameResult:
    n = len(placements)
    return GameResult(placements, ["Pair"] * n, False, "none", {}, [[1, []]] * n)


def test_the_most_recent_reader_starts() -> None:
    reads = [dt.datetime(2026, 11, 28, 22, 0), dt.datetime(2026, 11, 29, 7, 15),
             dt.datetime(2026, 11, 29, 7, 14)]
    assert first_starting_seat(reads, seed=0) == 1
    # minutes matter; the seed does not when there is no tie
    assert {first_starting_seat(reads, seed=s) for s in range(20)} == {1}


def test_dates_and_datetimes_mix() -> None:
    # a bare date is some time of its day: later than the day before, earlier than the next
    assert first_starting_seat([dt.date(2026, 11, 29), dt.datetime(2026, 11, 28, 23, 59)],
                               seed=0) == 0
    assert first_starting_seat([dt.date(2026, 11, 29), "2026-11-30T00:00"], seed=0) == 1
    assert first_starting_seat([dt.date(2026, 11, 28), dt.date(2026, 11, 29)], seed=0) == 1


def test_a_date_and_a_time_of_the_same_day_go_to_the_lot() -> None:
    # which was read later is unknown; the earlier of two times that day is out of it
    for reads in ([dt.date(2026, 11, 29), dt.datetime(2026, 11, 29, 0, 1)],
                  ["2026-11-29", "2026-11-29T23:59:59"],
                  [dt.datetime(2026, 11, 29, 9), dt.date(2026, 11, 29),
                   dt.datetime(2026, 11, 29, 10)]):
        picks = {first_starting_seat(reads, seed=s) for s in range(40)}  # type: ignore[arg-type]
        assert picks == {len(reads) - 2, len(reads) - 1}, reads


def test_a_reading_is_in_the_future_by_its_own_calendar() -> None:
    # 22:00 at UTC-5 on the match day is the next day in UTC: still read on the match day
    minus_five = dt.timezone(dt.timedelta(hours=-5))
    reads = [dt.datetime(2026, 11, 29, 22, 0, tzinfo=minus_five), dt.date(2026, 11, 1)]
    assert first_starting_seat(reads, seed=0, event_date=dt.date(2026, 11, 29)) == 0
    plus_five = dt.timezone(dt.timedelta(hours=5))
    reads = [dt.datetime(2026, 11, 30, 2, 0, tzinfo=plus_five), dt.date(2026, 11, 1)]
    assert first_starting_seat(reads, seed=0, event_date=dt.date(2026, 11, 29)) == 1


def test_aware_datetimes_compare_in_utc() -> None:
    # 08:00 in UTC+2 is 06:00 UTC: earlier than 07:00 UTC
    plus_two = dt.timezone(dt.timedelta(hours=2))
    reads = [dt.datetime(2026, 11, 29, 8, 0, tzinfo=plus_two),
             dt.datetime(2026, 11, 29, 7, 0, tzinfo=UTC)]
    assert first_starting_seat(reads, seed=0) == 1


def test_missing_values_count_as_oldest() -> None:
    assert first_starting_seat([None, None, dt.date(1970, 1, 1), None], seed=3) == 2
    # an empty value is missing too: nobody known, so a lot among both
    assert {first_starting_seat([None, ""], seed=s) for s in range(30)} == {0, 1}


def test_iso_strings_are_read_and_garbage_counts_as_missing() -> None:
    reads = ["2026-11-29T10:00:00", "2026-11-29T09:00:00", "not a date"]
    assert first_starting_seat(reads, seed=0) == 0  # type: ignore[arg-type]
    assert first_starting_seat(["garbage", "2001-01-01"], seed=0) == 1  # type: ignore[list-item]


def test_an_instant_out_of_the_calendar_in_utc_counts_as_missing() -> None:
    # year 1 at midnight in UTC+14 is before year 1 in UTC, 9999's last minute in UTC-14
    # after 9999: no date holds either, so neither is a reading (the engine raised)
    early, late = "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:00-14:00"
    assert first_contenders([early, "2001-01-01"]) == [1]  # type: ignore[list-item]
    assert first_contenders([late, None]) == [0, 1]
    assert first_starting_seat([dt.datetime.fromisoformat(early), dt.date(1970, 1, 1)],
                               seed=0) == 1


def test_ties_go_to_a_seeded_lot_among_the_tied_only() -> None:
    same = dt.datetime(2026, 11, 29, 9, 0)
    reads = [None, same, dt.datetime(2026, 1, 1), same, same]
    picks = [first_starting_seat(reads, seed=s) for s in range(60)]
    assert set(picks) == {1, 3, 4}
    # the lot is a function of the seed: the same seed, the same starter
    assert picks == [first_starting_seat(reads, seed=s) for s in range(60)]


def test_nobody_known_is_a_lot_among_everyone() -> None:
    picks = {first_starting_seat([None] * 4, seed=s) for s in range(80)}
    assert picks == {0, 1, 2, 3}


def test_the_loser_of_the_previous_game_starts_the_next() -> None:
    assert next_starting_seat(result([2, 1, 3]), seed=0) == 2
    assert next_starting_seat(result([1, 2]), seed=0) == 1
    # shared last place: a seeded lot among the losers only
    picks = [next_starting_seat(result([3, 1, 3, 2]), seed=s) for s in range(40)]
    assert set(picks) == {0, 2}
    assert picks == [next_starting_seat(result([3, 1, 3, 2]), seed=s) for s in range(40)]


def test_a_forfeited_seat_is_the_loser() -> None:
    state = final_showdown(["God-1 God-2 God-4 God-5 Fate-1",
                            "Agari-5 Agari-6 Sophoi-4 Fate-5 Beast-4",
                            "God-3 Agari-1 Umbrae-5 Arcoi-3 Beast-1"])
    assert state.result is not None and state.result.placements == [1, 2, 3]
    assert next_starting_seat(state.result, seed=0) == 2
    forfeited = GameResult([3, 1, 2], ["Quartet", "Pair", "High Hand"], False, "none",
                           {0: "timeout"}, [[7, []], [1, []], [0, []]])
    assert next_starting_seat(forfeited, seed=0) == 0


@pytest.mark.parametrize("start", [0, 1, 2, 3])
def test_the_starting_seat_opens_every_round(start: int) -> None:
    state = play_game(GameConfig(players=("a", "b", "c", "d"), seed=1, starting_seat=start),
                      [FirstOptionAgent()] * 4)
    seats = [t["seat"] for t in state.turn_log]
    assert seats == [(start + k) % 4 for k in range(4)] * 4
    game_start = next(e for _, e in state.log if e["type"] == "game_start")
    assert game_start["starting_seat"] == start


def test_a_match_chains_starting_seats() -> None:
    # first game from reading metadata, later games from the previous loser
    start = first_starting_seat([None, dt.date(2026, 11, 1), dt.date(2026, 10, 1)], seed=4)
    assert start == 1
    seen = []
    for game in range(4):
        config = GameConfig(players=("a", "b", "c"), seed=100 + game, starting_seat=start)
        state = play_game(config, [FirstOptionAgent()] * 3)
        assert state.turn_log[0]["seat"] == start
        assert state.result is not None
        seen.append(start)
        start = next_starting_seat(state.result, seed=100 + game)
        assert state.result.placements[start] == max(state.result.placements)
    assert len(seen) == 4


def test_a_starting_seat_outside_the_table_is_refused() -> None:
    from arena.errors import RulesError

    with pytest.raises(RulesError, match="starting seat 3"):
        GameConfig(players=("a", "b", "c"), starting_seat=3)


def test_config_takes_iso_dates_and_refuses_what_it_cannot_record() -> None:
    from arena.engine import RandomAgent
    from arena.errors import RulesError

    config = GameConfig(players=("a", "b"), event_date="2026-01-01",  # type: ignore[arg-type]
                        last_book_finished=("2025-12-24", None))  # type: ignore[arg-type]
    assert config.event_date == dt.date(2026, 1, 1)
    assert config.last_book_finished == (dt.date(2025, 12, 24), None)
    record = play_game(config, [RandomAgent(1), RandomAgent(2)]).record()  # no crash here
    assert record["config"]["event_date"] == "2026-01-01"
    for bad, message in [({"seed": "abc"}, "the seed must be an integer, not 'abc'"),
                         ({"seed": True}, "the seed must be an integer, not True"),
                         ({"event_date": "tomorrow"},
                          "event_date must be a date (or YYYY-MM-DD), not 'tomorrow'"),
                         ({"last_book_finished": (3, None)},
                          "last_book_finished must be a date (or YYYY-MM-DD), not 3")]:
        with pytest.raises(RulesError, match=f"^{re.escape(message)}$"):
            GameConfig(players=("a", "b"), **bad)  # type: ignore[arg-type]
    for players in (2, "ab"):  # a count, or one string, is not a list of names
        with pytest.raises(RulesError, match="^players must be a sequence of player names"):
            GameConfig(players=players)  # type: ignore[arg-type]



@pytest.mark.parametrize("reads", [
    [None, None, None],
    [dt.date(2026, 11, 29), dt.datetime(2026, 11, 29, 7, 15), None],
    [dt.datetime(2026, 11, 28, 22, 0), dt.datetime(2026, 11, 29, 7, 15), None],
    [dt.date(2030, 1, 1), dt.date(2026, 11, 2), dt.date(2026, 11, 2)],
])
def test_the_contenders_are_the_seats_the_first_start_can_fall_to(
        reads: list[dt.date | None]) -> None:
    # arena play says whether the start was read or drawn: the contenders must tell it
    day = dt.date(2026, 11, 29)
    starts = {first_starting_seat(reads, seed=s, event_date=day) for s in range(40)}
    assert starts == set(first_contenders(reads, day))
