"""Names a reader cannot tell apart."""

from __future__ import annotations

from arena.common.lookalike import disguise, look_alike_of


def test_the_first_other_name_a_name_passes_for_is_found() -> None:
    assert look_alike_of("botl", ["bot1", "botI", "greedy"]) == "bot1"
    assert look_alike_of("bot1", ["bot1", "bot10"]) is None  # itself aside; digits differ
    assert look_alike_of("gr\u0435edy", ["random", "greedy"]) == "greedy"


def test_an_ascii_name_passes_for_no_other_by_its_letters_alone() -> None:
    assert disguise("botl", ["bot1"]) is None
    assert disguise("gr\u0435edy") is not None  # a Cyrillic e among Latin letters
