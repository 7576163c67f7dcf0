"""``arena match --sprt``: a progress line every N games, the per-game table only with
--verbose, --quiet for scripts, and a verdict in plain words."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.cli.match_report import head_to_head_lines, sprt_verdict
from arena.rating.match_series import MatchSeries
from arena.rating.sprt import Score, SprtTest, describe_elo
from arena.referee.outcome import GameOutcome, MatchOutcome
from arena.registry import SAMPLE_BOTS_DIR
from arena.registry.manifest import spec_from_path
from arena.sandbox import probe

runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not probe().can_run, reason="bots cannot run here")
TABLE_HEAD = "game  seats"


def _match(*args: str) -> list[str]:
    result = runner.invoke(app, ["match", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@needs_sandbox
def test_a_sequential_test_shows_progress_lines_and_a_plain_verdict() -> None:
    """random loses nearly every game to greedy: H0 is accepted, said as what it means."""
    data = json.loads("\n".join(_match("random", "greedy", "--sprt", "0,50", "--seed", "1",
                                       "--json")))
    played, sprt = len(data["games"]), data["sprt"]
    assert sprt["decision"] == "H0"
    lines = _match("random", "greedy", "--sprt", "0,50", "--seed", "1", "--progress", "8")
    progress = [line for line in lines if line.startswith("Games ")]
    assert [line.split(":")[0] for line in progress] == [
        f"Games {n}" for n in range(8, played + 1, 8)]
    assert progress[0].startswith("Games 8: score ")
    assert " (bounds -2.94, 2.94)" in progress[0] and ", Elo " in progress[0]
    assert not any(TABLE_HEAD in line for line in lines)  # the per-game table needs -v
    assert lines[-1] == (
        f"SPRT elo0=0 elo1=50 alpha=0.05 beta=0.05: LLR {sprt['llr']:.2f} (bounds -2.94, "
        f"2.94) after {played} games: H0 accepted: random is not 50 Elo stronger than greedy")


@needs_sandbox
def test_a_verdict_on_two_versions_of_one_bot_names_each_by_its_version(
        tmp_path: Path) -> None:
    """The tables number two versions of one bot (random#1, random#2), and the verdict did
    too: an author testing a new version against the old read which was stronger only by
    going back to the version column."""
    newer = tmp_path / "random.py"  # greedy's play under random's name: a new version
    newer.write_text((SAMPLE_BOTS_DIR / "greedy.py").read_text().replace(
        'name = "greedy"', 'name = "random"'))
    old, new = (spec_from_path(path).version for path in (SAMPLE_BOTS_DIR / "random.py", newer))
    lines = _match("random", str(newer), "--sprt", "0,50", "--seed", "1")
    assert lines[-2].startswith(f"random@{old} against random@{new}: "), lines[-2]
    assert lines[-1].endswith(
        f"H0 accepted: random@{old} is not 50 Elo stronger than random@{new}"), lines[-1]


@needs_sandbox
def test_a_bot_against_itself_is_named_by_its_numbers_in_the_head_to_head() -> None:
    """One version entered twice: ``random@version`` would name both sides alike, so the
    head-to-head keeps the tables' numbers."""
    lines = _match("random", "random", "--games", "2", "--seed", "2")
    assert lines[-1].startswith("random#1 against random#2: "), lines[-1]


@needs_sandbox
def test_verbose_shows_the_games_and_quiet_shows_no_progress() -> None:
    verbose = _match("random", "greedy", "--sprt", "0,50", "--seed", "1", "-v")
    assert any(TABLE_HEAD in line for line in verbose)
    quiet = _match("random", "greedy", "--sprt", "0,50", "--seed", "1", "--quiet")
    assert quiet[0].startswith("Match random vs greedy: ")
    assert not any(line.startswith("Games ") or TABLE_HEAD in line for line in quiet)
    assert quiet[-1] == verbose[-1]
    plain = _match("random", "greedy", "--seed", "1", "--games", "2", "-q")
    assert not any(TABLE_HEAD in line for line in plain)


def test_verbose_and_quiet_together_are_a_usage_error() -> None:
    result = runner.invoke(app, ["match", "random", "greedy", "-v", "-q"])
    assert result.exit_code == 2
    assert ("--verbose and --quiet ask for opposite things: give one"
            in " ".join(result.stderr.replace("│", " ").split()))


@pytest.mark.parametrize(("elo0", "elo1", "decision", "said"), [
    (0, 10, "H1", "H1 accepted: a is stronger than b"),
    (5, 10, "H1", "H1 accepted: a is more than 5 Elo stronger than b"),
    (-10, 0, "H1", "H1 accepted: a is at most 10 Elo weaker than b"),
    (0, 50, "H0", "H0 accepted: a is not 50 Elo stronger than b"),
    (-10, 0, "H0", "H0 accepted: a is not stronger than b"),
    (-20, -10, "H0", "H0 accepted: a is more than 10 Elo weaker than b"),
])
def test_the_verdict_says_what_the_hypothesis_means(elo0: float, elo1: float, decision: str,
                                                    said: str) -> None:
    assert sprt_verdict(decision, ["a", "b"], SprtTest(elo0, elo1)) == said


@needs_sandbox
def test_a_short_seed_or_a_deal_book_is_flagged_when_a_contest_bot_plays(
        tmp_path: Path) -> None:
    """As for a tournament: a bot could find a short seed from its ``bot_seed`` and then know
    every hand; the shipped samples alone are nobody's contest. A short seed is a note that
    says it is fine for a try and names the option to leave out: the docs' ``--seed 1``
    examples warned a newcomer in a tournament's words ("leave 'seed' out")."""
    mine = tmp_path / "mine.py"
    mine.write_text((SAMPLE_BOTS_DIR / "greedy.py").read_text() + "# mine now\n")
    book = tmp_path / "book.txt"
    book.write_text("42\n")
    for args, said in (
            (["random", "greedy", "--seed", "5"], None),
            (["random", str(mine), "--seed", "5"], "note: seed 5 is short, which is fine "
             "for trying bots out; but a bot could find it by trying seeds against the "
             "bot_seed it is sent, and then know every hand, so for a match that must be "
             "fair leave --seed out (a secret one is drawn, and printed after the match to "
             "replay it)."),
            (["random", str(mine)], None),  # a secret seed is drawn
            (["random", str(mine), "--deals", str(book)], "warning: the deal book's deals "
             "are known to whoever holds the book, and 1 of its deals are short (such as "
             "42)")):
        result = runner.invoke(app, ["match", *args, "--games", "1"])
        assert result.exit_code == 0, result.output
        warned = [line for line in result.stderr.splitlines()
                  if line.startswith(("warning: ", "note: ")) and "sandbox layer" not in line]
        assert warned == ([] if said is None else [warned[0]]), args
        if said is not None:
            assert warned[0].startswith(said), warned


@pytest.mark.parametrize(("name", "spelled"), [
    ("gr\u0435\u0435dy", "gr\u0435\u0435dy ('gr\\u0435\\u0435dy')"),  # Cyrillic e
    ("Greedy", "Greedy"),
    ("greedl", None),  # not a look-alike: plays
])
def test_a_match_refuses_two_names_that_look_alike_naming_both(
        tmp_path: Path, name: str, spelled: str | None) -> None:
    """A bot given by path may name itself anything: 'gr\u0435\u0435dy' beside greedy made
    two rows of the match's table no reader could tell apart; ``arena run`` refused them,
    ``arena match`` played."""
    bot = tmp_path / "lookalike.py"
    bot.write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
        'name = "random"', f"name = {name!r}"))
    result = runner.invoke(app, ["match", "greedy", str(bot), "--games", "1", "--seed", "1",
                                 "-q"])
    if spelled is None:
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f"Error: the names greedy and {spelled} look alike (the same letters to the eye, or "
        "but for case): the results could not tell the two bots apart; register one under "
        "another name (arena submit BOT --name NAME)\n")


@pytest.mark.parametrize(("name", "problem"), [
    ("gr\u0435\u0435dy", "mixes U+0435 CYRILLIC SMALL LETTER IE (drawn like 'e') into ASCII "
                         "letters"),
    ("I\u015f\u0131k", None),  # Turkish: its dotless i is a Latin letter, no disguise
    ("\u0416\u0435\u043d\u044f", None),  # wholly Cyrillic, and like no registered name
])
def test_a_match_refuses_a_name_passing_for_an_ascii_one(tmp_path: Path, name: str,
                                                         problem: str | None) -> None:
    """'gr\u0435\u0435dy' (Cyrillic e) against random, greedy not at the table, played: its
    rows read as greedy's."""
    from arena.common.lookalike import disguise

    assert disguise(name, ["greedy", "random"]) == problem
    if problem is None:
        return
    bot = tmp_path / "lookalike.py"
    bot.write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
        'name = "random"', f"name = {name!r}"))
    result = runner.invoke(app, ["match", "random", str(bot), "--games", "1", "--seed", "1",
                                 "-q"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f"Error: the name gr\u0435\u0435dy ('gr\\u0435\\u0435dy') {problem}: a reader would take "
        "it for another name; register the bot under another name (arena submit BOT --name "
        "NAME)\n")


def test_ascii_look_alikes_are_refused_and_numbered_versions_are_not() -> None:
    """TR39's ASCII look-alikes (1 and l, 0 and O, rn and m, a capital I and an l) are one
    stroke apart in the leaderboard's font; digits are not each other's look-alikes."""
    from arena.common.lookalike import look_alike

    for a, b in [("bot1", "botl"), ("bot0", "botO"), ("corn", "com"), ("AI", "Al"),
                 ("AI", "ai"), ("Greedy", "greedy")]:
        assert look_alike(a, b) and look_alike(b, a), (a, b)
    for a, b in [("bot1", "bot10"), ("bot1", "bot2"), ("bot1", "boti"), ("ai", "al"),
                 ("J\u00fcrgen", "Jurgen"), ("mcts-v1", "mcts-vi")]:
        assert not look_alike(a, b), (a, b)


def _paired(*places: tuple[int, int]) -> list[GameOutcome]:
    """random's games against greedy, each deal played both ways round (as a sequential test
    plays them): each game's places given random's first, whatever the seats."""
    games = []
    for index, by_bot in enumerate(places):
        entrants = [0, 1] if index % 2 == 0 else [1, 0]
        names = [("random", "greedy")[bot] for bot in entrants]
        games.append(GameOutcome(
            game_id=f"m/g{index}", game_index=index, seed=index // 2,
            seats=[f"{name}@1" for name in names], names=names, starting_seat=0,
            placements=[by_bot[bot] for bot in entrants], desmos=["", ""], ascension=False,
            tiebreak="none", failures=[], forfeits={}, decisions=0, duration_s=0.0,
            latency=[], record={}, entrants=entrants))
    return games


def _outcome(games: list[GameOutcome]) -> MatchOutcome:
    """random against greedy's match of ``games``, as the referee gives it back."""
    bots = [{"seat": seat, "name": name, "bot": f"{name}@1", "decisions": 0,
             "median_ms": None, "max_ms": None, "timeouts": 0, "failures": {},
             "forfeits": 0, "restarts": 0} for seat, name in enumerate(["random", "greedy"])]
    return MatchOutcome(match_id="m", seats=["random@1", "greedy@1"],
                        names=["random", "greedy"], games=games, bots=bots,
                        sandbox_level="", limits={}, duration_s=0.0)


def test_the_statistics_count_each_game_for_the_bot_wherever_it_sat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two deals both ways round: random wins the first from either seat, loses the third
    game and shares the first place of the fourth; the score, Elo, LOS and test follow it,
    and a test the games left undecided says it stopped at the cap."""
    games = _paired((1, 2), (1, 2), (2, 1), (1, 1))

    def play(series: MatchSeries, **kwargs: object) -> MatchOutcome:
        return _outcome(games)

    monkeypatch.setattr(MatchSeries, "play", play)
    data = json.loads("\n".join(_match("random", "greedy", "--sprt", "0,10", "--alpha",
                                       "0.05", "--beta", "0.1", "--seed", "1", "--json")))
    assert data["elo"] == {"wins": 2, "draws": 1, "losses": 1, "score": 0.625,
                           "elo": 88.7, "elo_95": [-221.2, None], "los": 0.7181}
    assert data["sprt"] == {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.1,
                            "llr": 0.0271, "bounds": [-2.2513, 2.8904], "decision": None}
    lines = _match("random", "greedy", "--sprt", "0,10", "--alpha", "0.05", "--beta", "0.1",
                   "--games", "4", "--seed", "1")
    assert lines[-1] == ("SPRT elo0=0 elo1=10 alpha=0.05 beta=0.1: LLR 0.03 (bounds -2.25, "
                         "2.89) after 4 games: undecided at the cap of 4 games (--games)")


def test_a_ctrl_c_mid_deal_tells_the_test_over_the_whole_deals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped after the first game of the second deal: the wins so far count all three
    games, each for the bot that played it from either seat, and the test the first deal
    alone, as it decides only on whole deals."""
    def play(series: MatchSeries, **kwargs: object) -> None:
        series.played.extend(_paired((1, 2), (1, 2), (1, 2)))
        raise KeyboardInterrupt

    monkeypatch.setattr(MatchSeries, "play", play)
    result = runner.invoke(app, ["match", "random", "greedy", "--sprt", "0,10", "--games",
                                 "10", "--seed", "7", "--event-date", "2030-06-01"])
    assert result.exit_code == 130
    assert result.stderr.splitlines() == [
        "Interrupted after 3 of 10 games (--seed 7 --event-date 2030-06-01 --games 10 "
        "--sprt 0,10 replays them); wins so far: random 3, greedy 0",
        "random against greedy: 2 wins, 0 shared places, 0 losses; score 100.0%; Elo "
        "difference at least -113.4 (95% bound; every game won, so no estimate); likelihood "
        "of superiority 92.1%",
        "SPRT elo0=0 elo1=10 alpha=0.05 beta=0.05: LLR 0.06 (bounds -2.94, 2.94) after 2 "
        "games: undecided so far",
        "Interrupted."]


def test_the_head_to_head_says_a_test_undecided_at_the_cap() -> None:
    score, test = Score(30, 10, 20), SprtTest(0, 10)
    said = ("a against b: 30 wins, 10 shared places, 20 losses; score 58.3%; Elo difference "
            "+58.5 (95%: -21.0 to +144.6); likelihood of superiority 92.1%")
    llr = "SPRT elo0=0 elo1=10 alpha=0.05 beta=0.05: LLR 0.26 (bounds -2.94, 2.94) after 60 games"
    assert head_to_head_lines(["a", "b"], score, test, 60) == [
        said, f"{llr}: undecided at the cap of 60 games (--games)"]
    assert head_to_head_lines(["a", "b"], score, test, None) == [
        said, f"{llr}: undecided so far"]


def test_the_progress_line_counts_the_games_played_and_says_what_the_test_left_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game both bots forfeited is no game between them: the test leaves it out, and the
    line's 'Games N' counted only the rest, lagging the games played."""
    games = _paired((1, 2), (1, 2), (1, 1), (2, 1))
    games[2] = replace(games[2], forfeits={0: "startup_failure", 1: "startup_failure"})

    def play(series: MatchSeries, on_game: Callable[[GameOutcome], None],
             **kwargs: object) -> MatchOutcome:
        for game in games:
            series.played.append(game)
            on_game(game)
        return _outcome(games)

    monkeypatch.setattr(MatchSeries, "play", play)
    result = runner.invoke(app, ["match", "random", "greedy", "--sprt", "0,10", "--games",
                                 "4", "--seed", "1", "--progress", "2"])
    test = SprtTest(0, 10)
    first, second = Score(2, 0, 0), Score(2, 0, 1)
    assert [line for line in result.stdout.splitlines() if line.startswith("Games ")] == [
        f"Games 2: score 2-0 (100.0%), Elo {describe_elo(first)}, LLR "
        f"{test.llr(first):.2f} (bounds -2.94, 2.94)",
        f"Games 4 (3 counted; 1 forfeited by both): score 2-1 (66.7%), Elo "
        f"{describe_elo(second)}, LLR {test.llr(second):.2f} (bounds -2.94, 2.94)"]
