"""A game page for a record of older rules (arena.web.recorded): what the record holds, told
without replaying it, under the line saying why."""

from __future__ import annotations

import random
from typing import Any

from site_db import isolated_names

from arena.common.plural import ordinal
from arena.engine.config import GameConfig
from arena.engine.game import new_game
from arena.engine.narration import event_lines, header_lines
from arena.engine.record import other_format
from arena.web.recorded import build_recorded
from arena.web.site import game_page

OLDER = "palaestra-record/5"


def older(players: int, seed: int, forfeits: tuple[int, ...] = ()) -> dict[str, Any]:
    """A random game's record, said to be made under format 5's rules; ``forfeits``: seats
    that forfeit before the first choice."""
    state = new_game(GameConfig(players=tuple(f"p{i}" for i in range(players)), seed=seed,
                                starting_seat=0))
    for seat in forfeits:
        state.forfeit(seat, "startup_failure")
    rng = random.Random(seed)
    while state.decision is not None:
        state.apply(rng.randrange(len(state.decision.options)))
    record = state.record()
    record["format"] = OLDER
    return record


def test_the_page_holds_the_records_places_categories_hands_and_events() -> None:
    for players, seed in ((2, 3), (3, 11), (5, 29)):
        record = older(players, seed)
        game = build_recorded(record, "g")
        [showdown] = [e for e in record["events"] if e["type"] == "showdown"]
        seats = game["seats"]
        assert [s["place"] for s in seats] == [ordinal(p) for p in
                                               record["result"]["placements"]]
        assert [s["category"] for s in seats] == record["result"]["desmos"]
        assert [s["hand"] for s in seats] == showdown["hands"]
        named = isolated_names(record)  # each name isolated, as the replay's narration
        assert game["lines"] == event_lines(named)
        assert game["header"] == header_lines(named)
        assert game["choices"] == len(record["choices"])
        assert game["note"] == (
            "The step-by-step replay needs the rules this game was played under "
            "(palaestra-record/5); this arena plays palaestra-record/7, so the game is shown "
            "as recorded.")


def test_a_forfeit_is_the_tables_last_place() -> None:
    """As the standings count it (RULES.md E28): a game both seats forfeited has no first."""
    game = build_recorded(older(2, 3, forfeits=(0, 1)))
    assert [(s["place"], s["first"], s["forfeit"]) for s in game["seats"]] == [
        ("2nd", False, "startup_failure"), ("2nd", False, "startup_failure")]
    assert "First place" not in game_page(older(2, 3, forfeits=(0, 1)), "g")


def test_after_the_ascension_only_the_ascending_hand_was_shown() -> None:
    record = {"format": OLDER, "players": ["a", "b"],
              "events": [{"to": "all", "type": "ascension", "seat": 1,
                          "hand": ["God-1", "God-2", "God-3", "God-4", "God-5"], "turn": 3}],
              "result": {"placements": [2, 1], "desmos": ["Pair", "The Ascension"],
                         "ascension": True, "tiebreak": "ascension", "forfeits": {}}}
    game = build_recorded(record)
    assert [s["hand"] for s in game["seats"]] == [None, ["God-1", "God-2", "God-3", "God-4",
                                                         "God-5"]]
    assert game["tiebreak_text"] == "The Ascension"


def test_a_damaged_record_is_shown_as_far_as_it_goes() -> None:
    """Fields of another type count as missing: the page is still written."""
    record = {"format": 5, "players": ["a", "b"], "result": {"placements": "x", "desmos": 3},
              "events": "x", "choices": None, "referee": {"seats": ["a@v1"]}}
    assert other_format(record) == "5"
    game = build_recorded(record)
    assert [(s["bot"], s["place"], s["category"], s["hand"]) for s in game["seats"]] == [
        ("a", "?", "?", None), ("b", "?", "?", None)]
    assert "(5); this arena plays" in game_page(record, "g")


def test_a_record_of_todays_rules_is_replayed() -> None:
    record = older(2, 3)
    del record["format"]  # read as today's, as the replay reads it
    assert other_format(record) is None
    assert 'id="game-data"' in game_page(record, "g")
