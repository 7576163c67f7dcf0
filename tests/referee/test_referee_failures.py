"""Failure records: types are checked, and ``describe`` tells people why, once per reason."""

from __future__ import annotations

import pytest

from arena.referee.failures import (
    BEFORE_FIRST_ANSWER,
    Failure,
    after_game,
    describe,
    without_game,
)


def test_an_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown failure type 'oops'"):
        Failure("oops", "x")


def test_describe_groups_by_bot_and_type_in_order() -> None:
    slow = Failure("timeout", "no answer within 100 ms").to_json()
    bad = Failure("illegal_choice",
                  "choice 7 is outside the 3 legal options (valid: 0-2)").to_json()
    lines = describe([("a", "0", slow), ("b", "0", bad), ("a", "1", slow), ("a", "1", slow)])
    assert lines == [
        "a timeout, 3 times (games 0, 1): no answer within 100 ms",
        "b illegal_choice (game 0): choice 7 is outside the 3 legal options (valid: 0-2)",
    ]


def test_a_noisy_bot_does_not_crowd_out_the_others() -> None:
    """Numbered debug prints give a new detail each time: one line for them all."""
    noisy = [("chatty", "0", Failure("protocol_error", f"not JSON: 'DEBUG act {i}'").to_json())
             for i in range(40)]
    crash = ("other", "3", Failure("crash", "exit code 1").to_json())
    assert describe([*noisy, crash], limit=10) == [
        "chatty protocol_error, 40 times (game 0): not JSON: 'DEBUG act 0' (and 39 other "
        "details)",
        "other crash (game 3): exit code 1",
    ]


def test_describe_shows_the_first_reasons_and_counts_the_rest() -> None:
    many = [(f"bot{b}", "0", Failure("crash", "exit code 1").to_json()) for b in range(12)]
    lines = describe(many, limit=10)
    assert lines[0] == "bot0 crash (game 0): exit code 1"
    assert len(lines) == 11 and lines[-1] == "... and 2 more"
    games = [("a", str(g), Failure("crash", f"exit code {g % 2}").to_json()) for g in range(7)]
    assert describe(games) == ["a crash, 7 times (games 0, 1, 2, 3, 4, ...): exit code 0 (and "
                               "1 other detail)"]
    assert describe([]) == []


def test_a_death_after_each_game_is_one_detail_though_each_names_its_game() -> None:
    """A bot dying in its ``on_game_end`` every game fails the same way each time: the game
    each detail names does not make it another reason."""
    ends = [("a", str(g + 1), Failure("crash", BEFORE_FIRST_ANSWER + after_game(g)
                                      + " (exit code 1)").to_json()) for g in range(4)]
    other = ("a", "5", Failure("crash", "exit code 2").to_json())
    assert describe([*ends, other]) == [
        "a crash, 5 times (games 1, 2, 3, 4, 5): exited before its first answer of the game, "
        "after game 0 of the match ended (exit code 1) (and 1 other detail)"]
    assert without_game(ends[3][2]["detail"]) == BEFORE_FIRST_ANSWER + " (exit code 1)"
