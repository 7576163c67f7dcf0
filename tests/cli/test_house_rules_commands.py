"""House rules on the command line and in tournament specs: ``--rule NAME=VALUE`` on
``arena simulate``, ``arena desmos`` and ``arena rules``; the spec's ``rules:`` block,
validated, hashed only when chosen, and in every stored game record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine.houserules import RULE_CHOICES, HouseRules
from arena.engine.record import replay_one
from arena.errors import SpecError
from arena.tournament.game_records import game_record
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import spec_from_mapping
from arena.tournament.store import Store

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args))


def test_simulate_plays_and_records_the_chosen_rules(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    result = _run("simulate", "-p", "3", "-g", "4", "--rule", "kinds=family", "--rule",
                  "reclaim=strict", "--records", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    rules = {**HouseRules().to_json(), "kinds": "family", "reclaim": "strict"}
    assert json.loads(result.output)["rules"] == rules
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["config"]["rules"] == rules for r in records)
    for record in records:
        replay_one(record)
    assert _run("replay", str(out)).exit_code == 0


@pytest.mark.parametrize("rule, message", [
    ("kinds", "Error: a house rule is NAME=VALUE (e.g. trap_windows=turn_and_play), not 'kinds'"),
    ("colour=red", "Error: no house rule 'colour': the house rules are kinds, dealt_palaestron, "
                   "reclaim, trap_windows"),
    ("kinds=tribe", "Error: house rule kinds must be one of type, family, not 'tribe'"),
    ("trap_window=any_time", "Error: no house rule 'trap_window' (did you mean "
                             "'trap_windows'?): the house rules are kinds, dealt_palaestron, "
                             "reclaim, trap_windows"),
    ("trap_windows=turn_and_plays", "Error: house rule trap_windows must be one of any_time, "
                                    "turn_and_play, not 'turn_and_plays' (did you mean "
                                    "'turn_and_play'?)"),
])
def test_a_bad_rule_is_one_line_and_exit_1(rule: str, message: str) -> None:
    for command in (["simulate", "-g", "1"], ["desmos", "--census"], ["rules"]):
        result = _run(*command, "--rule", rule)
        assert result.exit_code == 1 and result.output == message + "\n", result.output


def test_rules_lists_every_house_rule_and_marks_the_chosen() -> None:
    result = _run("rules", "--house", "--rule", "kinds=family", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == list(RULE_CHOICES)
    assert data["kinds"]["value"] == "family" and data["kinds"]["default"] == "type"
    assert data["reclaim"]["value"] == "today"
    table = _run("rules", "--house").output
    assert all(value in table for choices in RULE_CHOICES.values() for value in choices)
    assert "Played with default house rules" in _run("rules").output


def test_the_summary_tells_the_trap_windows_of_the_chosen_rules() -> None:
    default = [line for line in _run("rules").output.splitlines() if line.startswith("Traps:")]
    assert default == ["Traps: their owner may trigger them at the start of any turn, when an "
                       "opponent declares a play, triggers a trap or force-discards a God, when "
                       "a Palaestron is drawn, and before the showdown (not in the turn they "
                       "were set in); they expire at the end of the owner's second turn after "
                       "the one they were set in."]
    # the house rule's reading names the same windows, the discarded God's among them (E10)
    assert "discarded Gods" in _run("rules", "--house").output
    narrow = _run("rules", "--rule", "trap_windows=turn_and_play").output
    assert "Traps: their owner may trigger them at the start of any turn and when an opponent " \
           "declares a play (not in the turn they were set in);" in narrow
    assert "Played with house rules: trap_windows=turn_and_play" in narrow


def test_desmos_under_the_family_reading() -> None:
    census = _run("desmos", "--census", "--rule", "kinds=family").output
    assert "348,159" in census and "High Hand              0" in census
    hand = ["Agari-5", "Umbrae-6", "Sophoi-4", "Fate-5", "Beast-4"]
    assert "Category: High Hand" in _run("desmos", *hand).output
    assert "Category: Triplet" in _run("desmos", *hand, "--rule", "kinds=family").output


# ---------------------------------------------------------------------------- specs
BASE = {"name": "t", "format": "round_robin", "bots": ["random", "greedy"],
        "games_per_match": 2, "seed": 5, "event_date": "2026-11-29"}


def test_a_spec_validates_its_rules_in_one_line() -> None:
    with pytest.raises(SpecError) as error:
        spec_from_mapping({**BASE, "rules": {"kinds": "tribe"}})
    assert "rules: house rule kinds must be one of type, family, not 'tribe'" in str(error.value)
    with pytest.raises(SpecError, match="no house rule 'kind'"):
        spec_from_mapping({**BASE, "rules": {"kind": "family"}})


def test_a_spec_hashes_its_rules_only_when_chosen() -> None:
    plain = spec_from_mapping(BASE)
    assert spec_from_mapping({**BASE, "rules": {"kinds": "type"}}).spec_hash() \
        == plain.spec_hash()
    family = spec_from_mapping({**BASE, "rules": {"kinds": "family"}})
    assert family.spec_hash() != plain.spec_hash()
    assert family.house_rules() == HouseRules(kinds="family")
    assert family.to_json()["rules"] == {"kinds": "family"}


def test_a_tournament_plays_every_game_under_its_rules(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    spec = spec_from_mapping({**BASE, "results": str(db),
                              "rules": {"kinds": "family", "dealt_palaestron": "redeal"}})
    summary = run_tournament(spec, 1, trial=False)
    assert summary.state == "finished" and not summary.mismatches
    store = Store(db)
    try:
        row = store.require("t")
        assert row.spec["rules"] == {"kinds": "family", "dealt_palaestron": "redeal"}
        games = [r[0] for r in store.conn.execute("SELECT id FROM games")]
        assert games
        for game in games:
            record = game_record(store, game)
            assert record["config"]["rules"]["kinds"] == "family"
            assert record["config"]["rules"]["dealt_palaestron"] == "redeal"
    finally:
        store.close()
    shown = _run("game", games[0], "--db", str(db))
    assert shown.exit_code == 0, shown.output
    assert "house rules: kinds=family, dealt_palaestron=redeal" in shown.output
