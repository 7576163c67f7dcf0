"""``arena game GAME --seat S --rerun BOT``: a seat's bot asked again, in-process, the
decisions of a recorded game; the crash shown with its traceback, the same answers said so,
the first different answer named, a forfeit the rerun does not meet said so; one-line errors
for a bad game or seat; the bot handed only what its seat was shown."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine import GameConfig, RandomAgent, new_game
from arena.referee.game_report import seat_view
from arena.referee.rerun import rerun_seat
from arena.registry import catalog
from arena.sdk.bot import as_index
from arena.sdk.local import BotAgent
from arena.sdk.runner import load_bot

runner = CliRunner()

#: The line under the first that says how decisions are named.
_NAMING = ("(decision N: seat 0's N-th decision of its game, from 1; act K: the referee's "
           "request id, counted over the bot's match from 0)")

_BOT_SEED = 424242

#: Answers from self.rng, so the recorded bot_seed replays them; crashes at its first turn
#: of round 2 when CRASH is set (the rare situation of a real bot).
_BOT = '''from arena.sdk import Bot, Request

CRASH = {crash}
CHANGED = {changed}
ILLEGAL = {illegal}


class Rolling(Bot):
    def on_game_start(self, game):
        self.changed = False
        self.asked = 0

    def act(self, request: Request) -> int:
        self.asked += 1
        if self.asked == ILLEGAL:
            return len(request.legal)
        if CRASH and request.kind == "turn" and request.observation["round"] == 2:
            raise RuntimeError("round 2 is too much")
        choice = self.rng.randrange(len(request.legal))
        if CHANGED and len(request.legal) > 1 and not self.changed:
            self.changed = True
            return (choice + 1) % len(request.legal)
        return choice
'''


def _bot(tmp_path: Path, name: str, *, crash: bool = False, changed: bool = False,
         illegal: int = 0) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(_BOT.format(crash=crash, changed=changed, illegal=illegal))
    return path


def _refereed(bot_file: Path, path: Path, *, timeouts: tuple[int, ...] = (),
              max_strikes: int = 3, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A record as the referee keeps it, of ``bot_file`` in seat 0 against a random agent in
    seat 1, written to ``path``: the seat's decisions numbered in ``timeouts`` (from 1) time
    out, and those and illegal answers are strikes (option 0 played) up to the forfeit past
    ``max_strikes``; a crash forfeits at once."""
    agent = BotAgent(load_bot(bot_file), bot_seeds=[_BOT_SEED], options=options)
    rival = RandomAgent(5)
    state = new_game(GameConfig(players=("mine", "rival"), seed=11))
    failures: list[dict[str, Any]] = []
    asked = 0
    while state.decision is not None:
        decision = state.decision
        index = 0
        if decision.seat == 1:
            index = rival.choose(decision, state.observe(1))
        elif 0 not in state.forfeits:
            asked += 1
            try:
                index = agent.choose(decision, state.observe(0))
                kind = ("timeout" if asked in timeouts else None if as_index(
                    agent.last_answer) == index else "illegal_choice")
            except RuntimeError:
                kind = "crash"
            if kind is not None:
                failures.append({"seat": 0, "bot": "mine@1", "type": kind,
                                 "detail": f"{kind} detail", "decision": asked - 1,
                                 "round": state.round, "kind": decision.kind})
                index = 0
                if kind == "crash" or len(failures) > max_strikes:
                    state.forfeit(0, kind)
        state.apply(index)
    record = state.record()
    record["referee"] = {"match_id": "cup/r1/t0", "game_index": 0,
                         "seats": ["mine@1", "rival@2"], "failures": failures, "logs": {},
                         "bot_seeds": [_BOT_SEED, 99]}
    path.write_text(json.dumps(record) + "\n")
    return record


def _rerun(records: Path, bot_file: Path, seat: int = 0) -> Any:
    return runner.invoke(app, ["game", str(records), "--seat", str(seat), "--rerun",
                               str(bot_file)], env={"PYTHONHASHSEED": "0"})


def _seat_decisions(record: dict[str, Any], seat: int) -> int:
    return sum(1 for c in seat_view(record, seat)["choices"])


def test_the_same_bot_gives_the_same_answers(tmp_path: Path) -> None:
    bot = _bot(tmp_path, "same")
    record = _refereed(bot, tmp_path / "g.jsonl")
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.exit_code == 0, result.output
    count = _seat_decisions(record, 0)
    assert result.output.splitlines() == [
        f"Game 1 of {tmp_path / 'g.jsonl'} (cup/r1/t0/g0): seat 0 (mine@1) rerun in-process "
        f"with {bot}, bot_seed {_BOT_SEED}",
        _NAMING,
        f"Decisions 1-{count} (acts 0-{count - 1}): the same answers as recorded",
        "Same answers: the bot answered every decision of seat 0 as recorded"]


def test_a_crash_is_shown_with_its_traceback(tmp_path: Path) -> None:
    record = _refereed(_bot(tmp_path, "crashing", crash=True), tmp_path / "g.jsonl")
    assert record["forfeits"][0]["seat"] == 0
    bot = _bot(tmp_path, "crashing_again", crash=True)
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.exit_code == 1
    out = result.output.splitlines()
    before = _seat_decisions(record, 0)
    assert out[1] == _NAMING
    assert out[2] == (f"Decisions 1-{before} (acts 0-{before - 1}): the same answers as "
                      "recorded")
    assert out[3] == (f"Decision {before + 1} (act {before}; round 2, a turn decision), where "
                      f"the recorded bot forfeited (crash at act {before}: crash detail): the "
                      "bot raised:")
    assert out[4] == "Traceback (most recent call last):"
    line = bot.read_text().splitlines().index(
        '            raise RuntimeError("round 2 is too much")') + 1
    assert f'  File "{bot}", line {line}, in act' in out
    assert out[-1] == "RuntimeError: round 2 is too much"


def test_pdb_opens_where_the_bot_raised(tmp_path: Path) -> None:
    _refereed(_bot(tmp_path, "crashing", crash=True), tmp_path / "g.jsonl")
    result = runner.invoke(app, ["game", str(tmp_path / "g.jsonl"), "--seat", "0", "--rerun",
                                 str(_bot(tmp_path, "again", crash=True)), "--pdb"],
                           input="p request.kind, request.observation['round']\nq\n")
    assert result.exit_code == 1
    assert "(Pdb) ('turn', 2)" in result.output.splitlines()


def test_a_changed_bot_is_told_where_it_first_answers_otherwise(tmp_path: Path) -> None:
    record = _refereed(_bot(tmp_path, "before"), tmp_path / "g.jsonl")
    result = _rerun(tmp_path / "g.jsonl", _bot(tmp_path, "after", changed=True))
    assert result.exit_code == 1
    state = new_game(GameConfig.from_json(record["config"]))
    number = 0
    for seat, _, index in record["choices"]:  # the seat's first choice among several
        decision = state.decision
        assert decision is not None
        if seat == 0:
            number += 1
            if len(decision.options) > 1:
                break
        state.apply(index)
    options = decision.options
    answer = (index + 1) % len(options)
    assert result.output.splitlines()[1:] == [
        _NAMING,
        *([f"Decisions 1-{number - 1} (acts 0-{number - 2}): the same answers as recorded"]
          if number > 2 else
          ["Decision 1 (act 0): the same answers as recorded"] if number == 2 else []),
        f"Decision {number} (act {number - 1}; round {state.round}, a {decision.kind} "
        f"decision): the bot answers option {answer} {json.dumps(options[answer])}; the record "
        f"has option {index} {json.dumps(options[index])}"]


def test_timeouts_are_not_compared_and_a_timeout_forfeit_is_not_met(tmp_path: Path) -> None:
    """The record's timeouts played option 0; the rerun has no clock, so it asks the bot (its
    state goes on as it did) without comparing; the timeout past the strikes that forfeited
    the seat gets an answer here, and is said not to reproduce."""
    bot = _bot(tmp_path, "slow")
    _refereed(bot, tmp_path / "g.jsonl", timeouts=(2, 3), max_strikes=1)
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.exit_code == 1
    out = result.output.splitlines()
    assert re.fullmatch(r"Decisions 1-2 \(acts 0-1\): the same answers as recorded, but for "
                        r"decision 2 \(act 1; \d+\.\d\d s here\): timed out in the record, "
                        r"not compared \(the rerun has no clock\)", out[2]), out[2]
    assert re.fullmatch(r"Decision 3 \(act 2; round \d, a \w+ decision\), where the recorded "
                        r"bot forfeited \(timeout at act 2: timeout detail\): the bot answers "
                        r"option \d+ .*: the forfeit is not reproduced \(the rerun has no clock; "
                        r"the bot took \d+\.\d\d s here\)", out[3]), out[3]


def test_an_illegal_answer_the_record_struck_is_reproduced(tmp_path: Path) -> None:
    bot = _bot(tmp_path, "wild", illegal=3)
    record = _refereed(bot, tmp_path / "g.jsonl")
    strike = record["referee"]["failures"][0]
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.exit_code == 1
    state = new_game(GameConfig.from_json(record["config"]))
    mine = [n for n, (seat, _, _) in enumerate(record["choices"]) if seat == 0]
    for _, _, index in record["choices"][:mine[2]]:
        state.apply(index)
    legal = len(state.decision.options)  # type: ignore[union-attr]
    assert result.stdout.splitlines()[1:] == [
        _NAMING,
        "Decisions 1-2 (acts 0-1): the same answers as recorded",
        f"Decision 3 (act 2; round {strike['round']}, a {strike['kind']} decision), where the "
        "record has a failure (illegal_choice at act 2: illegal_choice detail; the referee "
        f"played option 0): the bot answers {legal}, not an index into the {legal} legal "
        "options: the failure is reproduced"]


def test_a_forfeit_after_the_last_recorded_choice_asks_every_decision(tmp_path: Path) -> None:
    # the seat's own forfeit is not played (the bot is asked as it was then); one that came
    # after the last choice leaves every recorded decision to ask and compare
    bot = _bot(tmp_path, "late")
    record = _refereed(bot, tmp_path / "g.jsonl")
    record["forfeits"].append({"seat": 0, "reason": "crash", "at_choice": len(record["choices"])})
    record["referee"]["failures"].append({"seat": 0, "bot": "mine@1", "type": "crash",
                                          "detail": "crash detail", "decision": None})
    (tmp_path / "g.jsonl").write_text(json.dumps(record) + "\n")
    count = _seat_decisions(record, 0)
    outcome = rerun_seat(record, 0, load_bot(bot))
    assert (outcome.same, outcome.stopped_at, outcome.error) == (count, None, None)
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.output.splitlines()[2:] == [
        f"Decisions 1-{count} (acts 0-{count - 1}): the same answers as recorded",
        "Same answers, but the recorded bot forfeited outside its own decisions (crash: crash "
        "detail): not reproduced here"]


def test_the_bot_is_handed_its_seats_events_only(tmp_path: Path) -> None:
    """What ``arena game --seat`` shows of the seat is all the bot gets: its feed, its seed."""
    listening = tmp_path / "listening.py"
    listening.write_text(_BOT.format(crash=False, changed=False, illegal=0) + (
        "\n    def on_event(self, event):\n        self.events.append(event)\n"
        "\n    def seed(self, bot_seed):\n        super().seed(bot_seed)\n"
        "        self.events, self.seed_seen = [], bot_seed\n"))
    record = _refereed(listening, tmp_path / "g.jsonl")
    bot = load_bot(listening)
    assert rerun_seat(record, 0, bot).same_answers
    shown = seat_view(record, 0)
    assert bot.events == [{k: v for k, v in e.items() if k != "to"}  # type: ignore[attr-defined]
                          for e in shown["events"]]
    assert bot.seed_seen == shown["referee"]["bot_seeds"][0]  # type: ignore[attr-defined]


@pytest.mark.parametrize("args, message", [
    (["--seat", "2"], "Error: Game 1 of {file} (cup/r1/t0/g0) has seats 0-1; there is no seat 2\n"),
    (["-n", "2", "--seat", "0"], "Error: {file} holds 1 game record; there is no record 2\n"),
])
def test_a_bad_seat_or_game_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    bot = _bot(tmp_path, "any")
    _refereed(bot, tmp_path / "g.jsonl")
    result = runner.invoke(app, ["game", str(tmp_path / "g.jsonl"), *args, "--rerun",
                                 str(bot)])
    assert (result.exit_code, result.output) == (1, message.format(file=tmp_path / "g.jsonl"))


def test_a_seats_view_cannot_be_rerun(tmp_path: Path) -> None:
    """What ``arena game --seat S --format json`` writes has no seed to deal the game from."""
    bot = _bot(tmp_path, "any")
    view = tmp_path / "view.json"
    view.write_text(json.dumps(seat_view(_refereed(bot, tmp_path / "g.jsonl"), 0)))
    result = runner.invoke(app, ["game", str(view), "--seat", "0", "--rerun", str(bot)])
    assert (result.exit_code, result.output) == (
        1, "Error: the record holds no seed to deal the game from (a seat's view, as arena "
           "game --seat --format json writes it, leaves it out): rerun from the whole record\n")


def test_a_stored_game_reruns_the_bot_with_the_options_it_was_entered_with(
        tmp_path: Path) -> None:
    import datetime as dt

    from arena.tournament.game_records import compress_record
    from arena.tournament.store import Store

    picky = tmp_path / "picky.py"
    picky.write_text("from arena.sdk import Bot\n\n\nclass Picky(Bot):\n"
                     "    def act(self, request):\n"
                     "        return min(self.options['pick'], len(request.legal) - 1)\n")
    record = _refereed(picky, tmp_path / "g.jsonl", options={"pick": 2})
    record["referee"]["seats"] = ["picky@v1+o1a2b", "rival@v1"]
    db = tmp_path / "arena.db"
    with Store(db) as store:
        row = store.create_tournament(
            name="cup", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=1, spec_path=None,
            bots=[("picky", "v1+o1a2b", str(picky), {"options": {"pick": 2}}),
                  ("rival", "v1", "bots/rival.py", {})])
        store.record_game(row.id, {
            "id": "cup/r1/t0/g0", "round": 1, "table_index": 0, "game_index": 0, "seed": 5,
            "seats": [1, 2], "starting_seat": 0, "placements": [1, 2],
            "desmos": ["Pair", "Pair"], "ascension": False, "tiebreak": "",
            "failures": [], "forfeits": {}, "decisions": 31, "duration_s": 0.01,
            "latency": [{}, {}]}, compress_record(record))
    result = runner.invoke(app, ["game", "cup/r1/t0/g0", "--seat", "0", "--rerun", str(picky),
                                 "--db", str(db)], env={"PYTHONHASHSEED": "0"})
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert out[0] == (f"Game cup/r1/t0/g0: seat 0 (picky@v1+o1a2b) rerun in-process with "
                      f"{picky}, bot_seed {_BOT_SEED}, options pick=2")
    assert out[-1] == "Same answers: the bot answered every decision of seat 0 as recorded"


def test_a_stored_game_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    from arena.tournament.store import Store

    db = tmp_path / "arena.db"
    Store(db).close()
    result = runner.invoke(app, ["game", "cup/r1/t0/g0", "--seat", "0", "--rerun",
                                 str(_bot(tmp_path, "any")), "--db", str(db)])
    assert (result.exit_code, result.output) == (
        1, f"Error: no tournament named 'cup' in {db} (stored: none)\n")


def test_rerun_needs_a_seat(tmp_path: Path) -> None:
    result = runner.invoke(app, ["game", "cup/r1/t0/g0", "--rerun", "bot.py"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert "--rerun asks one seat's bot: say which with --seat S" in result.output


#: Counts the games of its match; in its second, crashes at its first turn of round 2.
_COUNTING = '''from arena.sdk import Bot


class Counting(Bot):
    def __init__(self):
        self.games = 0

    def on_game_start(self, game):
        self.games += 1

    def act(self, request):
        if self.games == 2 and request.kind == "turn" and request.observation["round"] == 2:
            raise RuntimeError("second game, round 2")
        return self.rng.randrange(len(request.legal))
'''


def _match_records(tmp_path: Path) -> tuple[Path, Path, int]:
    """A sandboxed match of the counting bot against the random bot, its two games' records,
    and the counting bot's seat."""
    bot = tmp_path / "counting.py"
    bot.write_text(_COUNTING)
    records = tmp_path / "match.jsonl"
    played = runner.invoke(app, ["match", str(bot), "bots/random.py", "--games", "2",
                                 "--seed", "3", "--records", str(records)])
    assert played.exit_code == 0, played.output
    second = json.loads(records.read_text().splitlines()[1])
    seat = next(i for i, key in enumerate(second["referee"]["seats"])
                if key.startswith("counting@"))
    assert [f["seat"] for f in second["forfeits"]] == [seat]  # it crashed in game 1 only
    return bot, records, seat


def test_a_failure_from_an_earlier_games_state_reproduces_from_the_start(
        tmp_path: Path) -> None:
    bot, records, seat = _match_records(tmp_path)
    args = ["game", str(records), "-n", "2", "--seat", str(seat), "--rerun", str(bot)]
    alone = runner.invoke(app, args, env={"PYTHONHASHSEED": "0"})
    assert alone.exit_code == 1
    assert "the forfeit is not reproduced" in alone.output.splitlines()[-1]
    assert "Traceback (most recent call last):" not in alone.output
    whole = runner.invoke(app, [*args, "--from-start"], env={"PYTHONHASHSEED": "0"})
    assert whole.exit_code == 1
    out = whole.output.splitlines()
    first = json.loads(records.read_text().splitlines()[0])
    count = sum(1 for choice in first["choices"] if choice[0] == seat)
    assert out[2] == (f"Game match/g0: Decisions 1-{count} (acts 0-{count - 1}): the same "
                      "answers as recorded")
    assert re.fullmatch(r"Game match/g1: Decision \d+ \(act \d+; round 2, a turn "
                        r"decision\), where the recorded bot forfeited \(crash at act \d+: .*\): "
                        r"the bot raised:", out[4]), out[4]
    assert out[-1] == "RuntimeError: second game, round 2"


def test_from_start_stops_at_an_earlier_game_that_differs_and_names_it(
        tmp_path: Path) -> None:
    """Rerunning game 1 from the start with a bot that already answers game 0 otherwise:
    the rerun stops in game 0, and says it is game 0, not the game asked for."""
    bot, records, seat = _match_records(tmp_path)
    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / "counting.py").write_text(bot.read_text().replace(
        "return self.rng.randrange(len(request.legal))", "return len(request.legal) - 1"))
    result = runner.invoke(app, ["game", str(records), "-n", "2", "--seat", str(seat),
                                 "--rerun", str(changed / "counting.py"), "--from-start"],
                           env={"PYTHONHASHSEED": "0"})
    assert result.exit_code == 1
    out = result.output.splitlines()
    assert re.fullmatch(r"Game match/g0: Decision \d+ \(act \d+; round \d+, an? \w+ "
                        r"decision\): the bot answers option .*; the record has option .*",
                        out[-1]), out[-1]
    assert not any(line.startswith("Game match/g1") for line in out)


def test_from_start_needs_the_earlier_games(tmp_path: Path) -> None:
    bot, records, seat = _match_records(tmp_path)
    alone = tmp_path / "second.jsonl"
    alone.write_text(records.read_text().splitlines()[1] + "\n")
    result = runner.invoke(app, ["game", str(alone), "--seat", str(seat), "--rerun", str(bot),
                                 "--from-start"])
    assert (result.exit_code, result.output) == (
        1, f"Error: --from-start replays the match's games before game 1, and game 0 of it "
           f"with seat {seat}'s bot is not at hand (a stored game reads the results database, "
           "a records file the records before it)\n")


def test_a_stored_game_reruns_from_the_start_of_its_match(tmp_path: Path) -> None:
    import datetime as dt

    from arena.tournament.game_records import compress_record
    from arena.tournament.store import Store

    bot, records, seat = _match_records(tmp_path)
    games = [json.loads(line) for line in records.read_text().splitlines()]
    db = tmp_path / "arena.db"
    with Store(db) as store:
        row = store.create_tournament(
            name="cup", spec_hash="abc", spec_json={}, format="round_robin",
            players_per_game=2, seed=1, event_date=dt.date(2026, 11, 29), rounds=1,
            games_planned=2, spec_path=None,
            bots=[(key.split("@")[0], key.split("@")[1], "bots/x.py", {})
                  for key in games[0]["referee"]["seats"]])
        for index, record in enumerate(games):
            record["referee"]["match_id"] = "cup/r1/t0"
            store.record_game(row.id, {
                "id": f"cup/r1/t0/g{index}", "round": 1, "table_index": 0,
                "game_index": index, "seed": 5, "seats": [1, 2], "starting_seat": 0,
                "placements": [1, 2], "desmos": ["Pair", "Pair"], "ascension": False,
                "tiebreak": "", "failures": [], "forfeits": {}, "decisions": 31,
                "duration_s": 0.01, "latency": [{}, {}]}, compress_record(record))
    result = runner.invoke(app, ["game", "cup/r1/t0/g1", "--seat", str(seat), "--rerun",
                                 str(bot), "--from-start", "--db", str(db)],
                           env={"PYTHONHASHSEED": "0"})
    assert result.exit_code == 1
    out = result.output.splitlines()
    assert out[2].startswith("Game cup/r1/t0/g0: Decisions 1-")
    assert out[-1] == "RuntimeError: second game, round 2"


def test_a_later_game_alone_without_failures_says_its_act_ids_are_unknown(
        tmp_path: Path) -> None:
    bot = _bot(tmp_path, "same")
    record = _refereed(bot, tmp_path / "g.jsonl")
    record["referee"]["game_index"] = 1
    (tmp_path / "g.jsonl").write_text(json.dumps(record) + "\n")
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.exit_code == 0, result.output
    count = _seat_decisions(record, 0)
    assert result.output.splitlines()[3:5] == [
        "note: the record does not tell game 1's act ids (its failures place none, and the "
        "match's earlier games are not at hand): the bot's request ids here differed from the "
        "game's",
        f"Decisions 1-{count}: the same answers as recorded"]


def test_a_later_game_alone_takes_its_act_ids_from_the_record(tmp_path: Path) -> None:
    # a record from before first_act_ids was kept says its ids are unknown (above)
    bot = _bot(tmp_path, "same")
    record = _refereed(bot, tmp_path / "g.jsonl")
    record["referee"] |= {"game_index": 1, "first_act_ids": [40, None]}
    (tmp_path / "g.jsonl").write_text(json.dumps(record) + "\n")
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.exit_code == 0, result.output
    count = _seat_decisions(record, 0)
    assert "act ids" not in result.output
    assert f"Decisions 1-{count} (acts 40-{40 + count - 1}): the same answers as recorded" in (
        result.output.splitlines())


def test_a_death_before_the_first_answer_is_no_failure_at_a_decision(tmp_path: Path) -> None:
    """The referee restarted the bot and asked its first decision again, under the next act
    id: the answers are the same, the ids one further on."""
    bot = _bot(tmp_path, "same")
    record = _refereed(bot, tmp_path / "g.jsonl")
    first = next(t for t in record["turns"] if t["seat"] == 0)  # its first decision's round
    kind = next(c[1] for c in record["choices"] if c[0] == 0)
    record["referee"]["failures"] = [{
        "type": "crash", "seat": 0, "bot": "mine@1", "game": 0, "decision": 0,
        "round": first["round"], "kind": kind,
        "detail": "exited before its first answer of the game (exit code 1); restarted and "
                  "asked again"}]
    (tmp_path / "g.jsonl").write_text(json.dumps(record) + "\n")
    result = _rerun(tmp_path / "g.jsonl", bot)
    assert result.exit_code == 0, result.output
    count = _seat_decisions(record, 0)
    assert result.output.splitlines()[2] == (f"Decisions 1-{count} (acts 1-{count}): the same "
                                             "answers as recorded")


def _submitted_copy(bot: Path, bots_dir: Path, marker: Path) -> Path:
    """``bot`` as submitted to ``bots_dir``, saying at import, in ``marker``, that it ran."""
    bots_dir.mkdir()
    copy = bots_dir / bot.name
    copy.write_text(bot.read_text() + f"\nfrom pathlib import Path\nPath({str(marker)!r})"
                    ".write_text('ran')\n")
    return copy


def test_a_submitted_bot_is_not_run_in_process_unless_the_user_says_so(tmp_path: Path) -> None:
    """An organiser who reran a student's submitted bot ran its code unsandboxed, as the
    organiser, from its import on: nothing said so."""
    bot = _bot(tmp_path, "same")
    _refereed(bot, tmp_path / "g.jsonl")
    bots_dir, marker = tmp_path / "submitted", tmp_path / "ran"
    copy = _submitted_copy(bot, bots_dir, marker)
    env = {"PYTHONHASHSEED": "0", "ARENA_BOTS_DIR": str(bots_dir)}
    args = ["game", str(tmp_path / "g.jsonl"), "--seat", "0", "--rerun", str(copy)]
    refused = runner.invoke(app, args, env=env)
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr == (
        f"Error: {copy}: it is a bot submitted to the bots directory {bots_dir}; --rerun runs "
        "a bot in this process, unsandboxed, with your rights (your files, your network): "
        "read its code, then add --unsandboxed to rerun it all the same, or let its author "
        "rerun it (arena status NAME --records gives them the games)\n")
    assert not marker.exists()
    rerun = runner.invoke(app, [*args, "--unsandboxed"], env=env)
    assert rerun.exit_code == 0, rerun.output
    assert marker.read_text() == "ran"


def test_a_bot_whose_files_another_user_owns_is_not_run_in_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = _bot(tmp_path, "same")
    _refereed(bot, tmp_path / "g.jsonl")
    owner = bot.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    refused = _rerun(tmp_path / "g.jsonl", bot)
    assert refused.exit_code == 1
    assert refused.stderr.startswith(
        f"Error: {bot}: {bot} belongs to another user (uid {owner}), not to you (uid "
        f"{owner + 1}); --rerun runs a bot in this process, unsandboxed"), refused.output


def test_a_mistyped_bot_path_is_one_line(tmp_path: Path) -> None:
    """Whose the bot is was asked of its files before they were found: a path mistyped gave a
    traceback."""
    _refereed(_bot(tmp_path, "same"), tmp_path / "g.jsonl")
    result = _rerun(tmp_path / "g.jsonl", tmp_path / "mybot.py")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: bot module {tmp_path / 'mybot.py'} not found\n"


def test_where_the_bots_directory_is_the_samples_a_submitted_bot_is_still_someone_elses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ARENA_BOTS_DIR set to the checkout's bots/: what was submitted there (a registered
    bot's copy, a kept version) is not the arena's own sample."""
    samples = tmp_path / "bots"
    (samples / ".versions" / "kid@v1").mkdir(parents=True)
    (samples / "greedy.py").write_text("x = 1\n")
    kept = samples / ".versions" / "kid@v1" / "kid.py"
    kept.write_text("x = 2\n")
    (samples / "kid.py").write_text("x = 3\n")
    (samples / "registry.yaml").write_text("bots:\n  kid: {path: kid.py}\n")
    monkeypatch.setattr(catalog, "SAMPLE_BOTS_DIR", samples.resolve())
    assert catalog.someone_elses(samples / "greedy.py", samples) is None
    for submitted in (kept, samples / "kid.py"):
        assert catalog.someone_elses(submitted, samples) == (
            f"it is a bot submitted to the bots directory {samples}")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_link_to_another_users_file_is_someone_elses(tmp_path: Path) -> None:
    """A directory bot holding a link to a file another user owns runs that user's code."""
    theirs = tmp_path / "theirs.py"
    theirs.write_text("x = 1\n")
    os.chown(theirs, os.getuid() + 4242, -1)
    bot = tmp_path / "mine"
    bot.mkdir()
    (bot / "bot.py").symlink_to(theirs)
    assert catalog.someone_elses(bot, tmp_path / "registry") == (
        f"{bot / 'bot.py'} belongs to another user (uid {os.getuid() + 4242}), not to you "
        f"(uid {os.getuid()})")


def test_a_hook_missing_its_argument_is_one_line_naming_it(tmp_path: Path) -> None:
    """The in-process rerun refuses ``def act(self)`` in the sandboxed runner's words, where
    the first decision raised a TypeError naming no line of the bot."""
    _refereed(_bot(tmp_path, "any"), tmp_path / "g.jsonl")
    noarg = tmp_path / "noarg.py"
    noarg.write_text("from arena.sdk import Bot\n\n\nclass NoArg(Bot):\n"
                     "    def act(self):\n        return 0\n")
    result = _rerun(tmp_path / "g.jsonl", noarg)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        "Error: NoArg.act(self) (noarg.py line 5) is called with one argument, the request: "
        "write def act(self, request)")
