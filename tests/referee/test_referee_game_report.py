"""``arena.referee.game_report``: a refereed game's record told with its bots, failures and
logs, and cut down to one seat's view."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from staged_ascension import ascending_at_once, trap_a_non_god

from arena.engine import GameConfig, RandomAgent, play_game
from arena.engine.narration import event_lines, header_lines, sees
from arena.referee.game_report import report_game, seat_view


def _refereed(players: int = 3, seed: int = 4) -> dict[str, Any]:
    names = tuple(f"bot{i}" for i in range(players))
    state = play_game(GameConfig(players=names, seed=seed),
                      [RandomAgent(seed + i) for i in range(players)])
    record = json.loads(json.dumps(state.record()))
    record["referee"] = {
        "match_id": "cup/r1/t0", "game_index": 2,
        "seats": [f"bot{i}@abc{i}" for i in range(players)],
        "failures": [
            {"type": "timeout", "detail": "no answer within 1000 ms", "seat": 1,
             "bot": "bot1@abc1", "game": 2, "decision": 7, "round": 2, "kind": "swap"},
            {"type": "crash", "detail": "exited mid-game (exit code 1)", "seat": 2,
             "bot": "bot2@abc2", "game": 2, "decision": None},
        ],
        "logs": {"1": "thinking...\nstill thinking\n", "2": "Traceback\nKeyError: 3\n"},
        "sandbox_level": "bwrap+rlimits",
        "bot_seeds": [seed * 1000 + i for i in range(players)],
        "first_act_ids": [10 * i for i in range(players)],
    }
    return record


def test_the_report_names_bots_failures_events_and_logs() -> None:
    record = _refereed()
    lines = report_game(record)
    assert lines[0] == ("Bots: seat 0 bot0@abc0, seat 1 bot1@abc1, seat 2 bot2@abc2; "
                        "sandbox bwrap+rlimits")
    header = header_lines(record)
    assert lines[1:1 + len(header)] == header
    at = lines.index("Failures:")
    assert lines[at + 1:at + 3] == [
        "  seat 1 bot1@abc1: timeout at act 7 (round 2, a swap decision): no answer "
        "within 1000 ms",
        "  seat 2 bot2@abc2: crash: exited mid-game (exit code 1)"]
    events = event_lines(record)
    assert lines[at + 3] == ""
    assert lines[at + 4:at + 4 + len(events)] == events
    assert lines[at + 4 + len(events):] == [
        "", "Log of seat 1 (bot1@abc1):", "  | thinking...", "  | still thinking", "",
        "Log of seat 2 (bot2@abc2):", "  | Traceback", "  | KeyError: 3"]
    assert "Log of seat" not in "\n".join(report_game(record, logs=False))


def test_one_seat_sees_only_its_feed_failures_and_log() -> None:
    record = _refereed()
    lines = report_game(record, seat=2)
    assert "  seat 2 bot2@abc2: crash: exited mid-game (exit code 1)" in lines
    assert not any("timeout" in line or "thinking" in line for line in lines)
    assert lines[-3:] == ["Log of seat 2 (bot2@abc2):", "  | Traceback", "  | KeyError: 3"]
    view = seat_view(record, 2)
    assert view["events"] == [e for e in record["events"] if sees(e["to"], 2)]
    assert len(view["events"]) < len(record["events"])
    assert [f["seat"] for f in view["referee"]["failures"]] == [2]
    assert view["referee"]["logs"] == {"2": "Traceback\nKeyError: 3\n"}
    assert record["referee"]["logs"].keys() == {"1", "2"}  # the record itself is untouched
    assert "Failures: none" in report_game(record, seat=0)
    with pytest.raises(ValueError, match=r"seat 3 is not in this game \(seats 0-2\)"):
        seat_view(record, 3)


def test_a_seat_view_holds_its_own_book_date_only() -> None:
    """Each bot tells the referee its own last_book_finished (the first tie-break); no seat is
    sent another's, yet --seat's json carried every seat's."""
    record = _refereed()
    dates = ["2026-10-02", "2026-03-15", None]
    record["config"]["last_book_finished"] = dates
    for seat in range(3):
        view = seat_view(record, seat)
        assert view["config"]["last_book_finished"] == [
            date if i == seat else None for i, date in enumerate(dates)]
        assert {k: v for k, v in view["config"].items() if k != "last_book_finished"} == {
            k: v for k, v in record["config"].items()
            if k not in ("seed", "last_book_finished")}
    assert record["config"]["last_book_finished"] == dates  # the record itself is untouched


def test_a_seat_view_after_an_ascension_holds_no_category_it_was_not_shown() -> None:
    """After an Ascension a bot's ``game_end``, and the event in its feed, give ``null`` for
    a hand nobody was shown (RULES.md E31); ``--seat``'s view, the feed ``--rerun`` hands a
    bot, gave every seat's category, in its events and its result."""
    state = ascending_at_once(GameConfig(players=("a", "b", "c"), seed=3))
    assert state.decision is not None
    ascender = state.decision.seat
    state.apply(trap_a_non_god(state.decision.options))
    assert state.result is not None and state.result.ascension
    record = json.loads(json.dumps(state.record()))
    desmos = record["result"]["desmos"]
    for seat in range(3):
        seen = [category if other in (seat, ascender) else None
                for other, category in enumerate(desmos)]
        view = seat_view(record, seat)
        ends = [e for e in view["events"] if e["type"] == "game_end"]
        assert [e["desmos"] for e in ends] == [seen]
        assert view["result"]["desmos"] == seen
    assert record["result"]["desmos"] == desmos  # the record itself is untouched
    assert None not in desmos


def test_a_record_without_a_referee_part_is_the_engine_telling() -> None:
    record = _refereed()
    del record["referee"]
    assert report_game(record) == [*header_lines(record), "", *event_lines(record)]


_CARD = re.compile(r"\b(?:God|Agari|Umbrae|Arcoi|Sophoi|Fate|Beast)-\d\b|\bCrown\b")


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(2**30, 2**40), data=st.data())
def test_a_seat_view_names_no_card_and_no_seed_the_seat_was_not_sent(
        players: int, seed: int, data: st.DataObject) -> None:
    """Every card the view names is named in the seat's own feed, other seats' traps are
    face down in the turn log, and the seed (which rebuilds the deal) is not in it at all."""
    record = _refereed(players, seed)
    seat = data.draw(st.integers(0, players - 1))
    view = seat_view(record, seat)
    feed = [e for e in record["events"] if sees(e["to"], seat)]
    # of the bot seeds, only its own (the others' would replay their random choices)
    assert view["referee"]["bot_seeds"] == [
        s if i == seat else None for i, s in enumerate(record["referee"]["bot_seeds"])]
    assert view["referee"]["first_act_ids"] == [  # how often the others were asked: theirs
        s if i == seat else None for i, s in enumerate(record["referee"]["first_act_ids"])]
    del view["referee"]  # the bot's own log and failures: its own words
    text = json.dumps(view)
    assert set(_CARD.findall(text)) <= set(_CARD.findall(json.dumps(feed)))
    traps = [n for n, t in enumerate(record["turns"]) if t["action"] == "trap"]
    assert [view["turns"][n]["card"] is None for n in traps] == [
        record["turns"][n]["seat"] != seat for n in traps]
    assert str(record["seed"]) not in text
    assert all(choice[0] == seat for choice in view["choices"])


def test_a_forfeited_seat_is_shown_nothing_after_its_forfeit() -> None:
    """The referee stops a forfeiting bot: its view ends there, though the game goes on."""
    from arena.engine import new_game

    state = new_game(GameConfig(players=("a", "b", "c"), seed=11))
    rng = RandomAgent(3)
    for _ in range(12):
        state.apply(rng.choose(state.decision, state.observe(state.decision.seat)))
    state.forfeit(1, "crash")
    while state.decision is not None:
        state.apply(0 if state.decision.seat == 1 else
                    rng.choose(state.decision, state.observe(state.decision.seat)))
    record = json.loads(json.dumps(state.record()))
    cut = next(i for i, e in enumerate(record["events"])
               if e["type"] == "forfeit" and e["seat"] == 1)
    before = [e for e in record["events"][:cut] if sees(e["to"], 1)]
    assert seat_view(record, 1)["events"] == before
    assert len(seat_view(record, 0)["events"]) > len(before)  # the others see it all
    lines = event_lines(record, 1)
    assert lines[-1] == "  (b forfeits here: shown nothing more)"
    assert not any("showdown" in line.lower() for line in lines)


def test_a_forfeited_seats_json_view_ends_at_its_forfeit() -> None:
    """Its events ended there, but its view went on: the referee's safe defaults played for
    it as its choices, the turns and forfeits after it left, and the result it was never
    sent (other seats' categories among them)."""
    from arena.engine import new_game

    state = new_game(GameConfig(players=("a", "b", "c"), seed=11))
    rng = RandomAgent(3)
    for _ in range(12):
        state.apply(rng.choose(state.decision, state.observe(state.decision.seat)))
    state.forfeit(1, "crash")
    for _ in range(9):
        state.apply(0 if state.decision.seat == 1 else
                    rng.choose(state.decision, state.observe(state.decision.seat)))
    state.forfeit(2, "timeout")
    while state.decision is not None:
        state.apply(0 if state.decision.seat in (1, 2) else
                    rng.choose(state.decision, state.observe(state.decision.seat)))
    record = json.loads(json.dumps(state.record()))
    view = seat_view(record, 1)
    assert view["choices"] == [c for c in record["choices"][:12] if c[0] == 1]
    assert len(view["choices"]) < len([c for c in record["choices"] if c[0] == 1])
    left = next(e["turn"] for e in record["events"] if e["type"] == "forfeit")
    assert view["turns"] == record["turns"][:left] and left < len(record["turns"])
    assert view["forfeits"] == [{"seat": 1, "reason": "crash", "at_choice": 12}]
    assert view["result"] is None
    assert record["result"] is not None and len(record["forfeits"]) == 2  # untouched
    # the seat that forfeited later saw the first forfeit, and the others see the game whole
    assert seat_view(record, 2)["forfeits"] == record["forfeits"]
    whole = seat_view(record, 0)
    assert whole["result"] == record["result"] and whole["forfeits"] == record["forfeits"]
    assert len(whole["turns"]) == len(record["turns"])


@pytest.mark.parametrize("field", ["seats", "failures", "logs"])
def test_a_referee_field_of_the_wrong_type_is_left_out_not_a_traceback(field: str) -> None:
    """arena game on a records file from elsewhere: a number where the seats, failures or
    logs go ended in a TypeError or AttributeError traceback."""
    record = _refereed()
    record["referee"][field] = 7
    text = "\n".join(report_game(record))
    assert ("Log of seat" in text) == (field != "logs")
    assert ("Failures: none" in text) == (field == "failures")
