"""``arena.engine.simulate`` and ``arena.bench.engine``: the counts add up, records replay
(``arena.engine.record``), and RULES.md's generated tables match the code
(``arena.engine.rules_text``). No wall-clock assertions."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from arena.bench.engine import BenchRow, EngineBench, bench_census, bench_evaluate, bench_play
from arena.engine.cards import NOTATION
from arena.engine.config import GameConfig
from arena.engine.desmos import Category
from arena.engine.effects import EFFECTS, TRIGGER_WINDOWS
from arena.engine.record import iter_records, read_records, replay_one, replay_records
from arena.engine.result import GameResult
from arena.engine.rules_text import (
    CATEGORY_LABELS,
    census_table_markdown,
    effect_rows,
    effect_table_markdown,
    rules_summary,
)
from arena.engine.simulate import simulate
from arena.engine.state import State, Trap
from arena.errors import ReplayError, RulesError

ROOT = Path(__file__).resolve().parents[2]
#: The rulebook RULES.md quotes (outside the repository; the test skips without it).
RULEBOOK = ROOT.parent / "shared" / "seeds" / "000_18d473cfdd6306ef.txt"
GOD_FACES = {f"God-{r}" for r in range(1, 8)}


@pytest.fixture(scope="module", params=[2, 3, 4, 5])
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    players = request.param
    path = tmp_path_factory.mktemp("sim") / f"p{players}.jsonl"
    return simulate(players, 40, seed=players, records_path=path), path


def test_wins_per_seat_sum_to_games(run) -> None:
    report, _ = run
    assert len(report.wins) == report.players
    assert sum(report.wins) == pytest.approx(report.games)
    assert sum(report.win_rates) == pytest.approx(1.0)


def test_category_counts_sum_to_showdown_hands(run) -> None:
    report, _ = run
    assert report.showdowns + report.ascensions == report.games
    assert sum(report.categories.values()) == report.showdowns * report.players
    assert sum(report.winning_categories.values()) == report.showdowns
    assert report.categories[Category.ASCENSION.label] == 0  # an Ascension ends the game
    assert list(report.categories) == list(CATEGORY_LABELS)


def test_tiebreaks_sum_to_games_and_ascensions_match(run) -> None:
    report, _ = run
    assert sum(report.tiebreaks.values()) == report.games
    assert report.tiebreaks["ascension"] == report.ascensions


def test_turn_and_effect_counts_agree(run) -> None:
    report, _ = run
    assert sum(report.actions.values()) == report.turns
    assert report.swaps <= report.turns
    # every played card resolves its effect once; every triggered trap too
    assert sum(h["played"] for h in report.effects.values()) == report.actions["play"]
    assert sum(h["trap"] for h in report.effects.values()) == report.traps["triggered"]
    assert report.traps["set"] == report.actions["trap"]
    assert report.traps["triggered"] == sum(report.traps[f"triggered_{w}"]
                                            for w in TRIGGER_WINDOWS)
    gone = sum(report.traps[w] for w in ("triggered", "expired", "destroyed", "cleared"))
    assert gone <= report.traps["set"]
    for what, seats in report.traps_by_seat.items():
        assert sum(seats) == report.traps[what]
    for face, hows in report.effects.items():
        assert sum(report.effects_by_seat[face]) == sum(hows.values())
        if face not in GOD_FACES:
            assert hows["discarded"] == 0, f"{face} fired on a discard: only Gods do"
    assert report.pile_exhausted == 0


def test_game_length_is_the_rounds(run) -> None:
    report, _ = run
    full = report.players * report.rounds
    assert report.turns <= report.games * full
    assert report.turns >= report.showdowns * full
    assert report.decisions > 0


def test_records_file_has_one_replayable_line_per_game(run) -> None:
    report, path = run
    lines = path.read_text().splitlines()
    assert len(lines) == report.games
    records = [json.loads(line) for line in lines]
    assert replay_records(records) == report.games
    placements = [r["result"]["placements"] for r in records]
    firsts = [0] * report.players
    for places in placements:
        for seat, place in enumerate(places):
            firsts[seat] += place == 1
    assert firsts == [round(w) for w in report.wins]


def test_same_seed_same_report() -> None:
    def strip(data: dict) -> dict:
        return {k: v for k, v in data.items()
                if k not in ("seconds", "games_per_second", "decisions_per_second")}

    a = simulate(3, 15, seed=11).to_json()
    b = simulate(3, 15, seed=11).to_json()
    c = simulate(3, 15, seed=12).to_json()
    assert strip(a) == strip(b)
    assert strip(a) != strip(c)


@pytest.mark.parametrize("players", [0, 1, 6])
def test_bad_player_counts_are_refused(players: int) -> None:
    with pytest.raises(RulesError, match=f"Palaestra is played by 2 to 5 players, not {players}"):
        simulate(players, 1, seed=0)


def test_no_games_is_refused() -> None:
    with pytest.raises(RulesError, match="at least 1 game"):
        simulate(2, 0, seed=0)


def test_report_renders_and_serialises() -> None:
    report = simulate(4, 5, seed=3)
    text = report.render()
    for needle in ("decisions/s", "win rate", "category at showdown", "Hermes", "triggered"):
        assert needle in text
    data = json.loads(json.dumps(report.to_json()))
    assert data["games"] == 5 and len(data["win_rate_by_seat"]) == 4


# ---------------------------------------------------------------------------- replay
def _records(tmp_path: Path, games: int = 3) -> tuple[Path, list[dict]]:
    path = tmp_path / "games.jsonl"
    simulate(2, games, seed=5, records_path=path)
    return path, [json.loads(line) for line in path.read_text().splitlines()]


def test_replay_one_catches_a_tampered_event(tmp_path: Path) -> None:
    _, records = _records(tmp_path, 1)
    record = records[0]
    event = next(e for e in record["events"] if e["type"] == "deal")
    event["cards"] = list(reversed(event["cards"]))
    with pytest.raises(ReplayError, match="events differ from the recorded events at event"):
        replay_one(record)


def test_replay_one_catches_a_tampered_seed_field(tmp_path: Path) -> None:
    _, records = _records(tmp_path, 1)
    records[0]["seed"] += 1
    with pytest.raises(ReplayError, match="the replayed seed .* differs from the recorded"):
        replay_one(records[0])


def test_replay_records_names_the_game(tmp_path: Path) -> None:
    _, records = _records(tmp_path)
    records[1]["choices"][0][2] = 999
    with pytest.raises(ReplayError, match=r"^game 2: choice 0: option 999 is not legal here$"):
        replay_records(records)


def test_replay_one_refuses_garbage() -> None:
    with pytest.raises(ReplayError, match="not a game record"):
        replay_one([1, 2, 3])
    with pytest.raises(ReplayError, match="not a game record"):
        replay_one({"config": [], "choices": []})


def test_read_records_accepts_jsonl_a_record_and_a_list(tmp_path: Path) -> None:
    path, records = _records(tmp_path)
    padded = tmp_path / "padded.jsonl"
    padded.write_text("\n" + path.read_text() + "\n\n")
    assert read_records(padded) == records
    single = tmp_path / "one.json"
    single.write_text(json.dumps(records[0], indent=2))
    assert read_records(single) == [records[0]]
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(records))
    assert read_records(listed) == records


def test_read_records_ends_lines_at_newlines_only(tmp_path: Path) -> None:
    """JSON leaves U+2028 and U+0085 unescaped in strings (an export's bot logs): they were
    taken for line ends, and the file was 'not JSON'."""
    path, records = _records(tmp_path, 2)
    for record in records:
        record["referee"] = {"logs": {"0": "one\u2028two\x85three\u2029"}}
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records),
                    encoding="utf-8")
    assert read_records(path) == records


def test_iter_records_reads_as_it_goes(tmp_path: Path) -> None:
    """The records before a torn line come out before its error (a file is not read whole)."""
    path, records = _records(tmp_path, 3)
    lines = path.read_text().split("\n")
    path.write_text("\n".join([lines[0], lines[1], lines[2][:50]]) + "\n")
    reading = iter_records(path)
    assert [next(reading), next(reading)] == records[:2]
    with pytest.raises(ReplayError, match="games.jsonl line 3 is not JSON"):
        next(reading)


def test_read_records_errors(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="^no such file: "):
        read_records(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\nnot json\n')
    with pytest.raises(ReplayError, match="bad.jsonl line 2 is not JSON"):
        read_records(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(ReplayError, match="holds no game records"):
        read_records(empty)


# ---------------------------------------------------------------------------- RULES.md
def test_effect_rows_cover_every_face_once() -> None:
    faces = [row[0] for row in effect_rows()]
    assert faces == list(dict.fromkeys(NOTATION))
    assert sum(row[1] for row in effect_rows()) == 52
    for face, _, name, text in effect_rows()[:-1]:
        assert (name, text) == (EFFECTS[face].name, EFFECTS[face].text)


def test_the_summary_breaks_only_a_tie_for_first_place() -> None:
    """Ruling 12: equal Desmos below first place share a placement; only equal first place
    goes to the book finished within the year, then to Rock-Paper-Scissors."""
    ties = next(line for line in rules_summary().splitlines() if line.startswith("Ties:"))
    assert "first place" in ties and "within the year" in ties and "share" in ties, ties


def test_rules_md_effect_table_matches_the_code() -> None:
    rules = (ROOT / "RULES.md").read_text(encoding="utf-8")
    table = effect_table_markdown()
    assert table in rules, ("RULES.md's effect table differs from arena.engine.effects.EFFECTS;"
                            " regenerate it with: arena rules --effects --format markdown")
    # and no stale effect row survives elsewhere in the document
    rows = [line for line in rules.splitlines() if line.startswith("| `")]
    assert rows == table.splitlines()[2:]


def test_rules_md_quotes_every_sentence_of_the_rulebook() -> None:
    if not RULEBOOK.exists():
        pytest.skip(f"rulebook not found at {RULEBOOK}")
    rules = (ROOT / "RULES.md").read_text(encoding="utf-8").splitlines()
    quoted = [line[2:] for line in rules if line.startswith("> ")]
    headings = {line.lstrip("#").strip() for line in rules if line.startswith("## ")}
    missing = []
    for line in RULEBOOK.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line in headings:
            continue
        for sentence in re.split(r"(?<=[.!)])\s+(?=[A-Z•©])", line):
            if not any(sentence in quote for quote in quoted):
                missing.append(sentence)
    assert not missing, f"RULES.md does not quote: {missing}"


#: `name.attr` in RULES.md that name a record's field, not the code
RECORD_FIELDS = {"config.rules", "config.event_date"}


def test_rules_md_names_code_that_exists() -> None:
    """Every ruling says where the code decides it (`effects.tyche`, `State.used`, ...): each
    such name must be found there, or a reader is sent to code that does not exist."""
    rules = (ROOT / "RULES.md").read_text(encoding="utf-8")
    modules = {path.stem for path in (ROOT / "arena" / "engine").glob("*.py")}
    state = State(GameConfig())
    classes: dict[str, object] = {"State": state, "Trap": Trap(0, 0, 0),
                                  "GameConfig": GameConfig(), "GameResult": GameResult}
    missing = []
    for name in sorted(set(re.findall(r"`(?:arena\.engine\.)?([A-Za-z_]+(?:\.[A-Za-z_]+)+)`",
                                      rules))):
        head, *path = name.split(".")
        if name in RECORD_FIELDS or (head not in modules and head not in classes):
            continue
        obj = classes.get(head) or importlib.import_module(f"arena.engine.{head}")
        for attr in path:
            if not hasattr(obj, attr):
                missing.append(name)
                break
            obj = getattr(obj, attr)
    assert not missing, f"RULES.md names code that does not exist: {missing}"


def test_rules_md_census_table_matches_the_code() -> None:
    rules = (ROOT / "RULES.md").read_text(encoding="utf-8")
    assert census_table_markdown() in rules, (
        "RULES.md's census table differs from arena.engine.desmos.census(); regenerate it with "
        "arena.engine.rules_text.census_table_markdown()")


# ---------------------------------------------------------------------------- bench
def test_bench_play_and_evaluate_report_rates() -> None:
    rows = bench_play(2, games=2, repeat=2)
    assert [r.unit for r in rows] == ["decisions/s", "games/s"]
    assert all(r.value > 0 and r.cpu_value > 0 and len(r.samples) == 2 for r in rows)
    row = bench_evaluate(hands=500, repeat=3)
    assert row.unit == "evaluations/s" and len(row.samples) == 3 and row.value > 0


def test_bench_census_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr("arena.bench.engine.census", lambda: calls.append(1))
    rows = bench_census(repeat=2)
    assert len(calls) == 3
    assert [(r.what, r.unit) for r in rows] == [("Desmos census, first run", "seconds"),
                                               ("Desmos census", "seconds"),
                                               ("Desmos census", "hands/s")]
    bench = EngineBench(rows + [BenchRow("x", 1.0, "u", [1.0], "", 1.0, [1.0])], cpu=None,
                        repeat=2)
    assert "median of 2 repetitions" in bench.render()
    assert json.loads(json.dumps(bench.to_json()))["repeat"] == 2


@pytest.mark.parametrize("width", [40, 60])
def test_the_engine_bench_fits_a_narrow_terminal_and_names_what_it_leaves_out(
        width: int) -> None:
    # its table of seven columns ran on past the terminal's edge
    rows = [BenchRow("random play, 4 players", 123456.0, "decisions/s", [120000.0, 130000.0],
                     "100 games per repetition, observations built, events tracked",
                     123000.0, [123000.0]),
            BenchRow("Desmos evaluate()", 3e6, "evaluations/s", [3e6], "", 3e6, [3e6])]
    bench = EngineBench(rows, cpu=0, repeat=5)
    whole = bench.render()
    assert "note" in whole and "Not shown" not in whole
    table = bench.render(width=width)
    # the table's lines (the CLI wraps the title and the line under it at words)
    assert all(len(line) <= width for line in table.splitlines()[2:-1]), table
    assert "evaluations/s" in table and "Not shown, to fit the terminal: note," in table
