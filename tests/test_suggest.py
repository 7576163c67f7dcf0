"""Did-you-mean: a misspelling is offered its name; a name that merely shares letters is not."""

from __future__ import annotations

import pytest

from arena.common.suggest import closest, did_you_mean


@pytest.mark.parametrize(("typed", "choices", "meant"), [
    ("swis", ["round_robin", "swiss", "gauntlet", "league"], "swiss"),
    ("gredy", ["random", "greedy", "collector"], "greedy"),
    ("my_bto.py", ["my_bot.py", "other.py"], "my_bot.py"),
    ("nmae", ["name", "path", "options"], "name"),
    ("trail", ["trial", "final"], "trial"),
    ("alpah", ["alpha", "beta"], "alpha"),
])
def test_a_misspelling_is_offered_the_name_it_misspells(typed: str, choices: list[str],
                                                        meant: str) -> None:
    assert closest(typed, choices) == meant


@pytest.mark.parametrize(("typed", "choices"), [
    ("trial", ["final"]),  # only 'ial' in common: no misspelling of it
    ("rnd", ["random"]),
    ("seat", ["seed"]),
])
def test_a_name_sharing_only_some_letters_is_offered_nothing(typed: str,
                                                             choices: list[str]) -> None:
    assert closest(typed, choices) is None
    assert did_you_mean(typed, choices) == ""


def test_the_offer_quotes_the_name() -> None:
    assert did_you_mean("gredy", ["greedy"]) == " (did you mean 'greedy'?)"
