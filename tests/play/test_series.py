"""A scripted person's series against sandboxed bots: the showdown, the running score, who
starts the next game, review, and records ``arena game`` opens."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from play_script import Script, enter_or_first, quiet_console
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import BotError
from arena.play.person import Person
from arena.play.session import PlayRequest, Series
from arena.rating.match_series import told_apart
from arena.sandbox import probe

BOTS = Path(__file__).resolve().parents[2] / "bots"
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")


def _menu_then_enter(answers: list[str]) -> Script:
    """Enter at every decision (the first number where it has no default); ``answers`` at
    the menus after the games."""

    def then(prompt: str) -> str:
        if prompt.startswith(("a = again", "Series over")):
            return answers.pop(0)
        return enter_or_first(prompt)

    return Script([], then=then)


@needs_sandbox
def test_a_series_keeps_score_and_the_loser_starts_the_next_game(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    console, out = quiet_console()
    script = _menu_then_enter(["a", "r", ""])  # again; review; then the end (Enter = quit)
    person = Person(console, script, 1)
    request = PlayRequest(bots=told_apart([str(BOTS / "random.py")]), seat=1, name="alice", seed=4,
                          games=2, records=records)
    series = Series(request, person, console, script)
    outcome = series.play()
    text = out.getvalue()
    assert len(outcome.games) == 2 and outcome.seats[1] == "person:alice"
    assert text.count("\nShowdown\n") == 2 and "place  player" in text
    assert "After 1 game: random" in text and series.score_line() in text
    assert "Series over. r = review the game, q = quit (Enter = quit): " in script.prompts
    first, second = (json.loads(line) for line in records.read_text().splitlines())
    places = first["result"]["placements"]
    losers = [seat for seat, place in enumerate(places) if place == max(places)]
    assert second["starting_seat"] in losers  # the loser starts (a lot among shared last)
    assert first["referee"]["seats"][1] == "person:alice"
    # the review tells the whole game: every seat's dealt hand, marked with who saw it
    assert "[seen by random]" in text
    shown = CliRunner().invoke(app, ["game", str(records), "-n", "2", "--seat", "1"])
    assert shown.exit_code == 0, shown.output
    assert "seat 1 person:alice" in shown.output
    page = tmp_path / "game.html"  # and the replay viewer opens it
    replay = CliRunner().invoke(app, ["game", str(records), "-n", "1", "--html", str(page)])
    assert replay.exit_code == 0, replay.output
    assert page.stat().st_size > 0


@needs_sandbox
def test_the_review_names_the_seed_the_series_ends_with(tmp_path: Path) -> None:
    # the telling's own seed is the game's, derived from the table's: --seed takes the other
    records = tmp_path / "games.jsonl"
    console, out = quiet_console(width=200)  # the seed lines unwrapped
    script = _menu_then_enter(["r", "a", "r", ""])  # review each of the two games
    request = PlayRequest(bots=told_apart([str(BOTS / "random.py")]), seed=6, games=2,
                          records=records, event_date=dt.date(2026, 12, 4))
    Series(request, Person(console, script, 0), console, script).play()
    lines = out.getvalue().splitlines()
    first, second = (json.loads(line) for line in records.read_text().splitlines())
    # the day too: who starts the first game depends on it (ruling 13)
    # game 1's review, with game 2 still to play, withholds it: it deals game 2 too
    told = lines.index("The seed that deals this game again is told when the series ends "
                       "(it deals the games still to come).")
    assert lines[told + 1].startswith(f"2 players, {first['rounds']} rounds, "
                                      f"game seed {first['seed']}; ")
    told = lines.index("Seed 6, game 2 (--seed 6 --event-date 2026-12-04 deals game 1 again; "
                       "later deals depend on who lost)")
    assert f"game seed {second['seed']}; " in lines[told + 1]


@needs_sandbox
def test_a_review_before_the_next_game_does_not_tell_the_seed_that_deals_it() -> None:
    # told after game 1, the table's seed dealt game 2 to whoever computed it: the bots'
    # hands and the draw pile's order (game seed = a hash of it and the game's number)
    console, out = quiet_console(width=200)
    script = _menu_then_enter(["r", "a", ""])  # review game 1, then play game 2
    seed = 2352394001421258731
    request = PlayRequest(bots=told_apart([str(BOTS / "random.py")]), seed=seed, games=2,
                          event_date=dt.date(2026, 12, 4))
    Series(request, Person(console, script, 0), console, script).play()
    text = out.getvalue()
    second_game = text.index("\nShowdown\n", text.index("\nShowdown\n") + 1)
    assert str(seed) not in text[:second_game]


_ILLEGAL_THROW = """from arena.sdk import Bot, Request


class Cheat(Bot):
    name = "cheat"

    def act(self, request: Request) -> int:
        return 99 if request.kind == "rps" else 0
"""


@needs_sandbox
def test_a_bots_strike_at_rock_paper_scissors_is_told_once_the_throws_are_shown(
        tmp_path: Path) -> None:
    # told before the person threw, "option 0 is played for it" named the bot's throw (Rock)
    bot = tmp_path / "cheat.py"
    bot.write_text(_ILLEGAL_THROW)
    console, out = quiet_console(width=200)
    script = _menu_then_enter(["q"])
    # seed 112 ties the hands of two players who play option 0 throughout; the bot throws
    # first, before the person in seat 1
    request = PlayRequest(bots=told_apart([str(bot)]), seat=1, seed=112, games=1,
                          event_date=dt.date(2026, 12, 4))
    Series(request, Person(console, script, 1), console, script).play()
    text = out.getvalue()
    throw = text.index("Sudden-death Rock-Paper-Scissors")
    notice = text.index("cheat chose no legal option: a throw drawn by lot is played for it")
    assert throw < text.index("Rock-paper-scissors: cheat ") < notice


@needs_sandbox
def test_quit_at_the_menu_ends_the_series_and_the_bots() -> None:
    console, out = quiet_console()
    script = _menu_then_enter(["q"])
    bots = told_apart([str(BOTS / "random.py"), str(BOTS / "greedy.py")])
    series = Series(PlayRequest(bots=bots, seed=2),
                    Person(console, script, 0), console, script)
    outcome = series.play()
    assert len(outcome.games) == 1
    assert all(bot["exit"] is not None for bot in outcome.bots)


@needs_sandbox
def test_a_bots_failures_are_told_after_the_game() -> None:
    console, out = quiet_console()
    script = _menu_then_enter([""])
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "bots" / "out_of_range.py"
    series = Series(PlayRequest(bots=told_apart([str(fixture)]), seed=3, games=1),
                    Person(console, script, 0), console, script)
    outcome = series.play()
    assert outcome.games[0].failures
    text = out.getvalue()
    assert "Bot failures this game:" in text
    assert [line for line in text.splitlines() if line.startswith("  out_of_range illegal_choice")]


@needs_sandbox
def test_every_distinct_reason_a_bot_failed_in_the_game_is_told() -> None:
    """The garbled bot answers with two protocol errors in turn, each twice before its fourth
    strike forfeits it: both are told, not one with a count of the others."""
    console, out = quiet_console(width=200)
    script = _menu_then_enter([""])
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "bots" / "garbled"
    Series(PlayRequest(bots=told_apart([str(fixture)]), seed=3, games=1),
           Person(console, script, 0), console, script).play()
    lines = out.getvalue().splitlines()
    at = lines.index("Bot failures this game:")
    assert lines[at + 1:at + 3] == [
        "  garbled protocol_error, 2 times: not JSON: 'not json' (stdout carries protocol lines "
        "only: print logs to stderr)",
        "  garbled protocol_error, 2 times: 'action' needs an integer 'choice', got none"]
    assert not lines[at + 3].startswith("  ")


@needs_sandbox
def test_brackets_typed_at_the_menu_are_refused_as_typed() -> None:
    # rich reads [...] as markup: "[/]" closes nothing and used to raise MarkupError
    console, out = quiet_console()
    script = _menu_then_enter(["[/]", "q"])
    series = Series(PlayRequest(bots=told_apart([str(BOTS / "random.py")]), seed=2),
                    Person(console, script, 0), console, script)
    series.play()
    assert "'[/]' is not a choice here: a, r or q." in out.getvalue()


@needs_sandbox
def test_a_second_series_adds_its_records_to_the_first_ones(tmp_path: Path) -> None:
    # a series played with the same --records file wrote over the games of the one before
    records = tmp_path / "games.jsonl"
    for seed in (4, 5):
        console, _ = quiet_console()
        script = _menu_then_enter([""])
        Series(PlayRequest(bots=told_apart([str(BOTS / "random.py")]), seed=seed, games=1,
                           records=records), Person(console, script, 0), console, script).play()
        if seed == 4:
            first = records.read_text()
    lines = records.read_text().splitlines()
    assert len(lines) == 2 and records.read_text().startswith(first)
    assert json.loads(lines[0])["seed"] != json.loads(lines[1])["seed"]


@needs_sandbox
def test_a_bots_failures_name_paths_under_its_directory(tmp_path: Path) -> None:
    """The person at the table may be the bot's author: the path they can open, as check-bot
    and arena match name it."""
    (tmp_path / "reader.py").write_text(
        "import os\nfrom arena.sdk import Bot\n\n\nclass Reader(Bot):\n    name = 'reader'\n\n"
        "    def act(self, request):\n"
        "        return len(open(os.path.join(os.path.dirname(__file__), 'book.json')).read())\n")
    console, out = quiet_console(width=400)
    script = _menu_then_enter(["", ""])
    Series(PlayRequest(bots=told_apart([str(tmp_path / "reader.py")]), seed=3, games=1),
           Person(console, script, 0), console, script).play()
    lines = out.getvalue().splitlines()
    at = lines.index("Bot failures this game:")
    assert lines[at + 1].startswith("  reader crash: ")
    assert f"No such file or directory: '{tmp_path}/book.json' (at reader.py line 9, in act)" \
        in lines[at + 1], lines[at + 1]


@needs_sandbox
def test_a_bot_that_does_not_start_is_told_with_paths_under_its_directory(
        tmp_path: Path) -> None:
    bot = tmp_path / "reader"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: reader\ncommand: [python3, bot.py]\n")
    (bot / "bot.py").write_text("import os\nopen(os.path.join(os.path.dirname("
                                "os.path.abspath(__file__)), 'book.json'))\n")
    console, _ = quiet_console()
    script = _menu_then_enter([""])
    with pytest.raises(BotError) as raised:
        Series(PlayRequest(bots=told_apart([str(bot)]), seed=3, games=1),
               Person(console, script, 0), console, script).play()
    assert str(raised.value) == (
        "reader did not start: exited before answering 'hello' (exit code 1); "
        f"FileNotFoundError: [Errno 2] No such file or directory: '{bot}/book.json' (at bot.py "
        "line 2, in <module>)")


def test_the_score_counts_no_win_for_a_seat_that_forfeited() -> None:
    """A forfeited seat never wins (RULES.md E18), even sharing first place: the running
    score counts as the standings do."""
    from arena.referee.outcome import GameOutcome

    console, _ = quiet_console()
    script = Script([])
    series = Series(PlayRequest(bots=told_apart([str(BOTS / "random.py")]), name="alice",
                                seed=4), Person(console, script, 0), console, script)
    shared = GameOutcome(game_id="m/g0", game_index=0, seed=0, seats=["person:alice", "r@1"],
                         names=["alice", "random"], starting_seat=0, placements=[1, 1],
                         desmos=["Pair", "Pair"], ascension=False, tiebreak="none",
                         failures=[], forfeits={1: "crash"}, decisions=0, duration_s=0.0,
                         latency=[], record={})
    series.match.played.append(shared)
    assert series.score_line() == "After 1 game: alice 1 win, random 0 wins"


@needs_sandbox
def test_the_review_of_a_one_game_series_names_the_seed_that_deals_it_again() -> None:
    console, out = quiet_console(width=200)  # the seed line unwrapped
    script = _menu_then_enter(["r", ""])
    request = PlayRequest(bots=told_apart([str(BOTS / "random.py")]), seed=6, games=1,
                          event_date=dt.date(2026, 12, 4))
    Series(request, Person(console, script, 0), console, script).play()
    assert ("Seed 6 (--seed 6 --event-date 2026-12-04 deals this game again)"
            in out.getvalue().splitlines())
