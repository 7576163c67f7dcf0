"""Spec validation: one test per kind of mistake, exact one-line messages, also through the CLI."""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
from pathlib import Path

import pytest
import trueskill
from tournament_fixtures import REPO, _repo_cwd  # noqa: F401 - _repo_cwd: an autouse fixture
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import SpecError
from arena.registry import SAMPLE_BOTS_DIR, resolve
from arena.sandbox import Limits
from arena.tournament.spec_loading import load_spec

BOTS = Path(__file__).resolve().parent / "bots"
runner = CliRunner()

VALID = """\
name: t
format: round_robin
bots: [greedy, collector]
"""


def write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def problems(tmp_path: Path, text: str) -> list[str]:
    """The problem lines of the SpecError for ``text`` (header line dropped)."""
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    lines = str(info.value).split("\n")
    assert lines[0] == f"{path} is not a valid tournament spec:"
    return [line.strip() for line in lines[1:]]


def test_valid_spec_defaults(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, VALID))
    assert [b.name for b in spec.entrants] == ["greedy", "collector"]
    assert spec.players_per_game == 2 and spec.games_per_match == 2
    assert spec.seed is None  # a secret one is drawn when the tournament is created
    assert spec.effective_workers() == (os.cpu_count() or 1)
    assert spec.effective_workers(3) == 3
    assert spec.rating.resolved() == {
        "mu": trueskill.MU, "sigma": trueskill.SIGMA, "beta": trueskill.BETA,
        "tau": 0.0, "draw_probability": trueskill.DRAW_PROBABILITY}
    assert spec.backend == "local" and spec.results == "results/arena.db"
    assert spec.limits_object().decision_ms > 0


def test_hash_ignores_how_the_run_is_carried_out(tmp_path: Path) -> None:
    base = load_spec(write(tmp_path, VALID)).spec_hash()
    same = load_spec(write(tmp_path, VALID + "workers: 7\nresults: x.db\nbackend: local\n"))
    assert same.spec_hash() == base
    other = load_spec(write(tmp_path, VALID + "games_per_match: 3\n"))
    assert other.spec_hash() != base


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"^no tournament spec at .*nope\.yaml$"):
        load_spec(tmp_path / "nope.yaml")


def test_a_spec_that_never_ends_is_refused_after_a_few_mib() -> None:
    with pytest.raises(SpecError) as info:
        load_spec("/dev/zero")
    assert str(info.value) == "/dev/zero is over 4 MiB: not a tournament spec (a short YAML file)"


def test_a_spec_through_a_pipe_is_read(tmp_path: Path) -> None:
    import os
    import threading

    os.mkfifo(tmp_path / "spec.yaml")  # as a shell's <(...) gives it
    text = "name: piped\nformat: round_robin\nbots: [random, greedy]\nseed: 1\n"
    writer = threading.Thread(target=(tmp_path / "spec.yaml").write_text, args=(text,))
    writer.start()
    assert load_spec(tmp_path / "spec.yaml").name == "piped"
    writer.join()


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="is a directory, not a tournament spec"):
        load_spec(tmp_path)


def test_bad_yaml_syntax_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "name: t\nformat: swiss\nbots: [a, b\nrounds: 3\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value) == (
        f"{path} line 4, column 7: invalid YAML: expected ',' or ']', but got ':' "
        "(while parsing a flow sequence)")


def test_an_impossible_date_is_a_yaml_error_not_a_traceback(tmp_path: Path) -> None:
    """Unquoted, 2026-13-45 looks like a date to YAML, whose constructor then raises."""
    path = write(tmp_path, VALID + "event_date: 2026-13-45\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value) == (
        f"{path} line 4, column 13: invalid YAML: '2026-13-45' is not a date (month must be "
        "in 1..12); quote it if it is text")


def test_a_key_given_twice_is_refused_not_overwritten(tmp_path: Path) -> None:
    """PyYAML keeps the last of two equal keys: a second ``name:`` ran a tournament under a
    name the organiser did not mean."""
    path = write(tmp_path, "name: cup\nformat: round_robin\nbots: [random, greedy]\n"
                           "limits: {decision_ms: 500}\nname: test\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value) == (
        f"{path} line 5, column 1: invalid YAML: the key 'name' is given twice (also on "
        "line 1) (while reading a mapping)")
    path.write_text("name: cup\nformat: round_robin\nbots: [random, greedy]\n"
                    "limits: {decision_ms: 500, decision_ms: 50}\n")
    with pytest.raises(SpecError, match=r"line 4, column 28: invalid YAML: the key "
                                        r"'decision_ms' is given twice \(also on line 4\)"):
        load_spec(path)


@pytest.mark.parametrize(("rating", "problem"), [
    ("{draw_probability: 0.999, tau: 0}", None), ("{tau: 1.0e+6}", None),
    ("{draw_probability: 1}", "rating.draw_probability: must be at least 0 and below 1, got 1.0"),
    ("{tau: -0.5}", "rating.tau: must be 0 or more, got -0.5"),
    ("{tau: 1.0e+7}", "rating.tau: must be at most 1e+06, got 1e+07")])
def test_rating_bounds_allow_their_edge_and_refuse_past_it(tmp_path: Path, rating: str,
                                                          problem: str | None) -> None:
    """Each rating bound holds at its edge and refuses just past it, as its message says."""
    text = f"{VALID}rating: {rating}\n"
    if problem is None:
        load_spec(write(tmp_path, text))
        return
    assert problems(tmp_path, text) == [problem]


@pytest.mark.parametrize(("form", "field", "top"), [
    ("round_robin", "games_per_match", 10_000), ("swiss", "rounds", 1_000),
    ("round_robin", "max_tables", 10_000), ("league", "tables_at_once", 64)])
def test_a_count_may_be_its_bound_and_not_one_more(tmp_path: Path, form: str, field: str,
                                                   top: int) -> None:
    """The bound the message names is allowed: a spec asking for exactly it runs."""
    body = f"name: t\nformat: {form}\nbots: [greedy, collector]\n"
    assert getattr(load_spec(write(tmp_path, f"{body}{field}: {top}\n")), field) == top
    assert problems(tmp_path, f"{body}{field}: {top + 1}\n") == [
        f"{field}: must be between 1 and {top:,}, got {top + 1:,}"]


@pytest.mark.parametrize(("body", "problem"), [
    ("rounds: 100000000", "rounds: must be between 1 and 1,000, got 100,000,000"),
    ("games_per_match: 100000000000000000000000",
     "games_per_match: must be between 1 and 10,000, got 100,000,000,000,000,000,000,000"),
    ("max_tables: 1000000000", "max_tables: must be between 1 and 10,000, got 1,000,000,000"),
    ("limits: {decision_ms: 1000000000000000}",
     "limits.decision_ms: must be at most 86,400,000 (a day), got 1,000,000,000,000,000"),
    ("rating: {mu: -5}",
     "rating.sigma: must be between 0.001 and 1e+06 (mu / 3 when not given), got -1.66667"),
    ("rating: {mu: 1.0e+308}", "rating.mu: must be between -1e+06 and 1e+06, got 1e+308"),
    ("rating: {mu: 25, sigma: 1.0e-300}",
     "rating.sigma: must be between 0.001 and 1e+06, got 1e-300"),
    ("rating: {mu: 0, sigma: 8}", None),
])
def test_values_past_sane_bounds_are_refused_before_anything_runs(
        tmp_path: Path, body: str, problem: str | None) -> None:
    """Each of these used to fill memory, overflow SQLite or the clock, or fail only after
    every game was played."""
    path = write(tmp_path, f"name: t\nformat: round_robin\nbots: [random, greedy]\n{body}\n")
    if problem is None:
        assert load_spec(path).rating.resolved()["beta"] == 4
        return
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert f"\n  {problem}" in str(info.value)


@pytest.mark.parametrize(("body", "problem"), [
    ('rating: {mu: "25"}', "rating.mu: must be a number, got '25'"),
    ("rating: {tau: true}", "rating.tau: must be a number, got True"),
    ('seed: "5"', "seed: must be an integer, got '5'"),
    ('results: ""', "results: must name the results database file (default "
                    "results/arena.db), got ''"),
    ("event_date: 2026-12-01 10:00:00",
     "event_date: must be a date (YYYY-MM-DD), got 2026-12-01 10:00:00"),
])
def test_values_of_the_wrong_kind_are_refused_alike(tmp_path: Path, body: str,
                                                    problem: str) -> None:
    """A quoted number is a mistake in every numeric field (it was taken in ``rating``),
    an empty results path names no file, and a date with a time reads as written."""
    path = write(tmp_path, f"name: t\nformat: round_robin\nbots: [random, greedy]\n{body}\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert f"\n  {problem}" in str(info.value)
    assert load_spec(write(tmp_path, "name: t\nformat: round_robin\nbots: [random, greedy]\n"
                                     "rating: {mu: 30, tau: 0.5}\n")).rating.mu == 30.0


def test_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "- a\n- b\n")
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value) == (f"{path}: a tournament spec must be a YAML mapping "
                               "(name: ..., format: ..., bots: [...]), got a list")


def test_empty_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="got an empty file$"):
        load_spec(write(tmp_path, ""))


def test_unknown_field_suggests_the_known_one(tmp_path: Path) -> None:
    [line] = problems(tmp_path, VALID + "player_per_game: 3\n")
    assert line.startswith("player_per_game: unknown field (did you mean 'players_per_game'?) "
                           "(known: name, format, bots,")


@pytest.mark.parametrize(("section", "line"), [
    ("budget: {games: 10, turns: 3}",
     "budget.turns: unknown field (known: games, minutes)"),
    ("rating: {sigm: 3}",
     "rating.sigm: unknown field (did you mean 'sigma'?) (known: mu, sigma, beta, tau, "
     "draw_probability)")])
def test_an_unknown_field_of_a_section_lists_that_sections_fields(
        tmp_path: Path, section: str, line: str) -> None:
    # budget's used to list the spec's top-level fields
    assert problems(tmp_path, VALID + section + "\n") == [line]


@pytest.mark.parametrize(("field", "meant"), [
    ("games: 4", "games_per_match"), ("players: 3", "players_per_game"),
    ("decision_ms: 500", "limits.decision_ms")])
def test_a_field_named_like_a_command_line_option_is_shown_the_spec_field(
        tmp_path: Path, field: str, meant: str) -> None:
    [line] = problems(tmp_path, VALID + field + "\n")
    assert line.startswith(f"{field.split(':')[0]}: unknown field (did you mean '{meant}'?) "
                           "(known: name, format, bots,")


def test_missing_required_field(tmp_path: Path) -> None:
    assert problems(tmp_path, "format: round_robin\nbots: [greedy, collector]\n") == [
        "name: is required"]


def test_wrong_type(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "games_per_match: many\n") == [
        "games_per_match: must be an integer, got 'many'"]


def test_out_of_range_players(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "players_per_game: 7\n") == [
        "players_per_game: must be between 2 and 5 (Palaestra's table sizes), got 7"]


@pytest.mark.parametrize(("sizes", "error"), [
    ("[2, 7]", "players_per_game: must be between 2 and 5 (Palaestra's table sizes), got 7"),
    ("[2, 2]", "players_per_game: lists a table size twice: [2, 2]"),
    ("[]", "players_per_game: give a table size, or a list of them"),
    ("two", "players_per_game: must be a table size (2-5) or a list of them, got 'two'"),
    ("[2, true]", "players_per_game: must be a table size (2-5) or a list of them, got a list "
                  "holding True"),
    ("true", "players_per_game: must be a table size (2-5) or a list of them, got True"),
])
def test_bad_list_of_table_sizes(tmp_path: Path, sizes: str, error: str) -> None:
    assert problems(tmp_path, VALID + f"players_per_game: {sizes}\n") == [error]


def test_a_list_of_table_sizes_is_a_ladder(tmp_path: Path) -> None:
    assert load_spec(write(tmp_path, VALID + "players_per_game: [2]\n")).table_sizes == (2,)
    assert problems(tmp_path, VALID + "players_per_game: [2, 3]\n") == [
        "bots: 2 bot(s) cannot fill tables of 3 players (need at least 3)"]
    swiss = VALID.replace("round_robin", "swiss") + "rounds: 2\nplayers_per_game: [2, 3]\n"
    assert problems(tmp_path, swiss)[0] == (
        "players_per_game: Swiss pairs one table size a round; give one number, not [2, 3]")


def test_duplicate_takes_a_seating(tmp_path: Path) -> None:
    assert load_spec(write(tmp_path, VALID + "duplicate: permutations\n")).duplicate == \
        "permutations"
    assert problems(tmp_path, VALID + "duplicate: perms\n") == [
        "duplicate: must be true, false, rotations or permutations; got 'perms'"]
    # a near miss is named, as an unknown field's is
    assert problems(tmp_path, VALID + "duplicate: rotation\n") == [
        "duplicate: must be true, false, rotations or permutations; got 'rotation' (did you "
        "mean 'rotations'?)"]


def test_unknown_format(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("round_robin", "swis")) == [
        "format: must be one of round_robin, swiss, gauntlet, league; got 'swis' (did you mean "
        "'swiss'?)"]
    assert problems(tmp_path, VALID.replace("round_robin", "knockout")) == [
        "format: must be one of round_robin, swiss, gauntlet, league; got 'knockout'"]


def test_unknown_bot(tmp_path: Path) -> None:
    [line] = problems(tmp_path, VALID.replace("collector", "grredy"))
    assert line.startswith("bots[1]: unknown bot 'grredy' (did you mean 'greedy'?) (registered: ")


def test_a_path_with_a_tilde_and_a_nul_is_no_bot_not_a_traceback(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("collector", '"~a\\x00/b.py"')) == [
        "bots[1]: no bot at ~a\x00/b.py"]


def test_an_entrys_mistyped_key_is_told_the_key_it_misspells(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("collector", "{bot: collector, nmae: c2, x: 1}")) == [
        "bots[1]: unknown key(s) nmae (did you mean 'name'?), x (an entry is a bot reference, "
        "or {bot: REF, name: NAME, options: {...}})"]


def test_bot_path_that_does_not_exist(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("collector", "bots/nothing.py")) == [
        "bots[1]: no bot at bots/nothing.py"]


def test_bot_listed_twice(tmp_path: Path) -> None:
    lines = problems(tmp_path, VALID.replace("collector", "greedy"))
    assert lines[0].startswith("bots[1]: greedy (greedy@") and lines[0].endswith(
        ") is listed twice (also bots[0]); to seat two copies, enter one under another name: "
        "{bot: REF, name: NAME}")


def test_too_few_bots_for_the_table_size(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "players_per_game: 3\n") == [
        "bots: 2 bot(s) cannot fill tables of 3 players (need at least 3)"]


def test_swiss_needs_rounds(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("round_robin", "swiss")) == [
        "rounds: required for format swiss (how many rounds to pair)"]


def test_gauntlet_needs_challengers(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("round_robin", "gauntlet")) == [
        "challengers: required for format gauntlet (the bots that play against the field)"]


def test_challengers_only_for_gauntlet(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "challengers: [random]\n") == [
        "challengers: only used by format gauntlet, not round_robin"]


def test_unknown_limit(tmp_path: Path) -> None:
    [line] = problems(tmp_path, VALID + "limits: {decsion_ms: 5}\n")
    assert line.startswith("limits.decsion_ms: unknown limit (did you mean 'decision_ms'?) "
                           "(known: decision_ms, ")


def test_limit_out_of_range(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "limits: {memory_mb: 0}\n") == [
        "limits.memory_mb: must be positive, got 0"]
    assert problems(tmp_path, VALID + "limits: {decision_ms: -1, memory_mb: 0, cpu: 1}\n") == [
        "limits.decision_ms: must be positive, got -1",
        "limits.memory_mb: must be positive, got 0",
        "limits.cpu: unknown limit (known: " + ", ".join(
            f.name for f in dataclasses.fields(Limits)) + ", ponder)"]


def test_ponder_is_a_limit_off_by_default(tmp_path: Path) -> None:
    """Bots are stopped between their decisions unless the spec lets them ponder; the
    setting is a boolean, and part of what decides the tournament only when on."""
    assert problems(tmp_path, VALID + "limits: {ponder: 1}\n") == [
        "limits.ponder: must be true or false, got 1"]
    spec = load_spec(write(tmp_path, VALID + "limits: {ponder: true, decision_ms: 200}\n"))
    assert spec.ponder and spec.limits_object().decision_ms == 200
    assert spec.canonical()["limits"]["ponder"] is True
    plain = load_spec(write(tmp_path, VALID, "plain.yaml"))
    assert not plain.ponder and "ponder" not in plain.canonical()["limits"]


def test_pin_workers_is_a_boolean_off_by_default_outside_the_hash(tmp_path: Path) -> None:
    """How the run is carried out (like workers), not what it plays: the hash stays."""
    assert problems(tmp_path, VALID + "pin_workers: 1\n") == [
        "pin_workers: must be true or false, got 1"]
    pinned = load_spec(write(tmp_path, VALID + "pin_workers: true\n"))
    plain = load_spec(write(tmp_path, VALID, "plain.yaml"))
    assert pinned.pin_workers and not plain.pin_workers
    assert pinned.spec_hash() == plain.spec_hash()


def test_rating_out_of_range(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "rating: {draw_probability: 1.5}\n") == [
        "rating.draw_probability: must be at least 0 and below 1, got 1.5"]


def test_bad_event_date(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "event_date: yesterday\n") == [
        "event_date: must be a date (YYYY-MM-DD), got 'yesterday'"]


def test_bad_name(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("name: t", "name: a/b")) == [
        "name: must be 1-60 ASCII letters (a-z, A-Z), digits, '_', '-' or '.', starting with "
        "a letter or digit; got 'a/b'"]


def test_cli_run_into_a_directory_says_it_is_one(tmp_path: Path) -> None:
    """`results: cups/` (or --db cups) said '... is not a usable results database (unable to
    open database file)', where --check and status say it is a directory."""
    cups = tmp_path / "cups"
    cups.mkdir()
    path = write(tmp_path, VALID + f"results: {cups}\n")
    result = runner.invoke(app, ["run", str(path), "--no-trial", "--no-progress"])
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {cups} is a directory, not a results database: name a "
                             f"file in it ({cups / 'arena.db'})\n")
    assert list(cups.iterdir()) == []


def test_cli_a_list_of_table_sizes_names_the_item_that_is_none(tmp_path: Path) -> None:
    """The refusal said 'got a list' of a list, which a table size may be."""
    path = write(tmp_path, VALID + "players_per_game: [2, four]\n")
    result = runner.invoke(app, ["run", str(path), "--check", "--no-trial"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {path} is not a valid tournament spec:\n  players_per_game: must be a table "
        "size (2-5) or a list of them, got a list holding 'four'\n")


def test_cli_a_name_in_another_script_is_told_the_letters_are_ascii(tmp_path: Path) -> None:
    """'турнир' is letters: the refusal said a name must be letters, and it was."""
    path = write(tmp_path, VALID.replace("name: t", "name: турнир"))
    result = runner.invoke(app, ["run", str(path), "--check", "--no-trial"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {path} is not a valid tournament spec:\n  name: must be 1-60 ASCII letters "
        "(a-z, A-Z), digits, '_', '-' or '.', starting with a letter or digit; got 'турнир'\n")


def test_bot_entry_mapping_needs_a_name_or_options(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace("collector", "{bot: random}")) == [
        "bots[1]: give a name, options or both (a bare bot is written as its reference)"]
    assert problems(tmp_path, VALID.replace("collector", "{name: r2}")) == [
        "bots[1].bot: is required (a non-empty string)"]


def test_entry_with_options_is_its_own_version(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, VALID.replace(
        "[greedy, collector]",
        "[greedy, {bot: greedy, name: g2, options: {depth: 2, mode: fast, enabled: true}}]")))
    plain, tuned = spec.entrants
    assert plain.options == {} and tuned.options == {"depth": 2, "mode": "fast", "enabled": True}
    assert tuned.files_version == plain.version
    assert tuned.version.startswith(plain.version + "+o")
    # the same options in another order are the same bot; other values another version
    again = load_spec(write(tmp_path, VALID.replace(
        "[greedy, collector]",
        "[greedy, {bot: greedy, name: g2, options: {enabled: true, mode: fast, depth: 2}}]"),
        "again.yaml"))
    other = load_spec(write(tmp_path, VALID.replace(
        "[greedy, collector]",
        "[greedy, {bot: greedy, name: g2, options: {depth: 3, mode: fast, enabled: true}}]"),
        "other.yaml"))
    assert again.entrants[1].key == tuned.key
    assert other.entrants[1].key != tuned.key
    assert spec.spec_hash() == again.spec_hash() != other.spec_hash()


def test_a_results_key_with_options_needs_those_options(tmp_path: Path) -> None:
    """A key copied from a leaderboard plays only with the options its digest names."""
    tuned = resolve("greedy").with_options({"depth": 2})
    assert problems(tmp_path, VALID.replace("collector", tuned.key)) == [
        f"bots[1]: {tuned.key!r} names options (+{tuned.version.partition('+')[2]}) but was "
        "given no options: a results key cannot carry options, give them with the bot ('-o' "
        f"in 'arena match', 'options:' in a spec) or enter {tuned.name}@{tuned.files_version}"]
    spec = load_spec(write(tmp_path, VALID.replace(
        "collector", f"{{bot: '{tuned.key}', name: g2, options: {{depth: 2}}}}")))
    assert spec.entrants[1].key == f"g2@{tuned.version}"


def test_entry_options_without_a_name_keep_the_bot_name(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, VALID.replace(
        "collector", "{bot: collector, options: {iterations: 10}}")))
    assert [b.name for b in spec.entrants] == ["greedy", "collector"]
    assert spec.entrants[1].options == {"iterations": 10}


def test_bad_entry_options(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace(
        "collector", "{bot: collector, options: [1, 2]}")) == [
        "bots[1].options: must be a mapping of option names to values, got a list"]
    assert problems(tmp_path, VALID.replace(
        "collector", "{bot: collector, options: {depth: [1, 2], 'a b': 1}}")) == [
        "bots[1].options.depth: must be a string, number or true/false, got a list",
        "bots[1].options: option name 'a b' must be 1-60 letters, digits, '_', '-' or '.', "
        "starting with a letter or digit"]
    assert problems(tmp_path, VALID.replace(
        "collector", "{bot: collector, options: {on: 1}}")) == [
        "bots[1].options: option name True is not a name: YAML reads an unquoted on, off, "
        "yes or no as true or false; quote it"]


def test_a_clash_of_names_is_one_error_not_two(tmp_path: Path) -> None:
    """The table-size check counts entrants only once they are valid: a clash that leaves
    one bot is not also "1 bot cannot fill tables of 2"."""
    assert problems(tmp_path, VALID.replace("[greedy, collector]",
                                            "[random, {bot: greedy, name: random}]")) == [
        "bots[1]: the name random is taken by bots[0] (another version or other options); "
        "enter it as {bot: REF, name: NAME}"]


def test_one_name_one_bot(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID.replace(
        "collector", "collector, {bot: greedy, options: {depth: 2}}")) == [
        "bots[2]: the name greedy is taken by bots[0] (another version or other options); "
        "enter it as {bot: REF, name: NAME}"]
    assert problems(tmp_path, VALID.replace(
        "collector", "collector, {bot: collector, name: greedy}")) == [
        "bots[2]: the name greedy is taken by bots[0] (another version or other options); "
        "enter it as {bot: REF, name: NAME}"]


@pytest.mark.parametrize(("name", "spelled"), [
    ("gr\u0435\u0435dy", "gr\u0435\u0435dy ('gr\\u0435\\u0435dy')"),  # Cyrillic e
    ("\uff47reedy", "\uff47reedy ('\\uff47reedy')"),  # fullwidth g
    ("Greedy", "Greedy")])
def test_a_name_that_looks_like_another_entrants_is_refused_naming_both(
        tmp_path: Path, name: str, spelled: str) -> None:
    """A bot given by path may name itself anything: 'gr\u0435\u0435dy' (two Cyrillic e)
    sat beside greedy in the leaderboard, two rows no reader could tell apart."""
    bot = tmp_path / "lookalike.py"
    bot.write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
        'name = "random"', f"name = {name!r}"))
    spec = write(tmp_path, VALID.replace("collector", str(bot)))
    assert problems(tmp_path, VALID.replace("collector", str(bot))) == [
        f"bots[1]: the name {spelled} looks like greedy, the name of bots[0] (the same "
        "letters to the eye, or but for case); enter one under another name: {bot: REF, "
        "name: NAME}"]
    result = runner.invoke(app, ["run", str(spec), "--check"])
    assert result.exit_code == 1 and f"bots[1]: the name {spelled} looks like" in \
        result.stderr, result.output
    names = ["J\u00fcrgen", "\u0416\u0435\u043d\u044f", "\u674e\u96f7"]  # not look-alikes
    for i, other in enumerate(names):
        (tmp_path / f"b{i}.py").write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
            'name = "random"', f"name = {other!r}"))
    fine = load_spec(write(tmp_path, VALID.replace(
        "collector", ", ".join(str(tmp_path / f"b{i}.py") for i in range(3)))))
    assert [b.name for b in fine.entrants] == ["greedy", *names]


@pytest.mark.parametrize(("name", "problem"), [
    ("gr\u0435\u0435dy", "gr\u0435\u0435dy ('gr\\u0435\\u0435dy') mixes U+0435 CYRILLIC SMALL "
                         "LETTER IE (drawn like 'e') into ASCII letters"),
    ("\uff52\uff41\uff4e\uff44\uff4f\uff4d", "\uff52\uff41\uff4e\uff44\uff4f\uff4d "
     "('\\uff52\\uff41\\uff4e\\uff44\\uff4f\\uff4d') passes for random: U+FF52 FULLWIDTH LATIN "
     "SMALL LETTER R (drawn like 'r'), U+FF41 FULLWIDTH LATIN SMALL LETTER A (drawn like 'a'), "
     "U+FF4E FULLWIDTH LATIN SMALL LETTER N (drawn like 'n'), U+FF44 FULLWIDTH LATIN SMALL "
     "LETTER D (drawn like 'd'), U+FF4F FULLWIDTH LATIN SMALL LETTER O (drawn like 'o'), "
     "U+FF4D FULLWIDTH LATIN SMALL LETTER M (drawn like 'm')")])
def test_a_name_passing_for_another_is_refused_though_that_bot_is_not_entered(
        tmp_path: Path, name: str, problem: str) -> None:
    """'gr\u0435\u0435dy' (Cyrillic e) entered by path without greedy was let through: its
    rows read as greedy's wherever results are shown."""
    bot = tmp_path / "lookalike.py"
    bot.write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
        'name = "random"', f"name = {name!r}"))
    assert problems(tmp_path, VALID.replace("greedy, collector", f"collector, {bot}")) == [
        f"bots[1]: the name {problem}: a reader would take it for another name; enter it "
        "under another name: {bot: REF, name: NAME}"]


def test_renamed_entry_plays_as_its_own_bot(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, VALID.replace("collector", "{bot: greedy, name: g2}")))
    first, second = spec.entrants
    assert (first.name, second.name) == ("greedy", "g2")
    assert first.version == second.version and first.key != second.key


def test_a_bot_name_longer_than_a_file_name_may_be_is_a_problem_not_a_crash(
        tmp_path: Path) -> None:
    """Looked up from the spec's directory too, where the system refused the name (an
    OSError's traceback): the spec's problem, as an unknown bot is."""
    [line] = problems(tmp_path, VALID.replace("collector", "x" * 300))
    assert line.startswith("bots[1]: no bot xxx") and "longer than a file name" in line


def test_every_mistake_at_once(tmp_path: Path) -> None:
    lines = problems(tmp_path, "name: t\nformat: swiss\nbots: [greedy, nobody]\n"
                               "players_per_game: 9\nseed: -1\nworkerz: 2\n")
    assert lines[0] == "players_per_game: must be between 2 and 5 (Palaestra's table sizes), " \
                       "got 9"
    assert lines[1] == "seed: must be between 0 and 2**63 - 1, got -1"
    assert lines[2].startswith("workerz: unknown field (did you mean 'workers'?)")
    assert lines[3].startswith("bots[1]: unknown bot 'nobody'")
    assert len(lines) == 4


def test_fixture_bots_by_path_relative_to_the_spec(tmp_path: Path) -> None:
    spec_dir = BOTS.parent
    path = spec_dir / "_relative_spec.yaml"
    path.write_text("name: t\nformat: round_robin\nbots: [bots/first.py, bots/last.py]\n")
    try:
        spec = load_spec(path)
    finally:
        path.unlink()
    assert [b.name for b in spec.entrants] == ["first", "last"]


# ------------------------------------------------------------------ through the CLI
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (VALID + "players_per_game: 7\n",
         "  players_per_game: must be between 2 and 5 (Palaestra's table sizes), got 7\n"),
        (VALID.replace("round_robin", "swiss"),
         "  rounds: required for format swiss (how many rounds to pair)\n"),
        (VALID + "games_per_match: many\n",
         "  games_per_match: must be an integer, got 'many'\n"),
    ],
)
def test_cli_prints_one_line_per_problem(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    result = runner.invoke(app, ["run", str(path), "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {path} is not a valid tournament spec:\n{expected}"
    assert "Traceback" not in result.output
    assert not (tmp_path / "x.db").exists()


def test_cli_missing_spec(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: no tournament spec at {tmp_path / 'nope.yaml'}\n"


def test_cli_missing_sample_spec_says_where_the_arenas_specs_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A student following the README from a folder of their own types the checkout's
    relative path: the error gives the path that works."""
    monkeypatch.chdir(tmp_path)
    samples = SAMPLE_BOTS_DIR.parent / "tournaments"
    league = shlex.quote(str(samples / "league.yaml"))
    for typed in ("tournaments/league.yaml", "league.yaml"):
        result = runner.invoke(app, ["run", typed])
        assert result.exit_code == 1
        assert result.stderr == (
            f"Error: no tournament spec at {typed} (the arena's sample specs are in "
            f"{shlex.quote(str(samples))}: arena run {league})\n")
    for typed in ("tournaments/nope.yaml", "other/league.yaml"):
        assert runner.invoke(app, ["run", typed]).stderr == (
            f"Error: no tournament spec at {typed}\n")


def test_cli_bad_yaml(tmp_path: Path) -> None:
    path = write(tmp_path, "name: [unclosed\n")
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {path} line 2, column 1: invalid YAML: ")


def test_cli_yaml_nested_deeper_than_the_parser_recurses_is_one_error_line(
        tmp_path: Path) -> None:
    """PyYAML recurses per bracket: a few thousand of them raised RecursionError, a traceback."""
    path = write(tmp_path, VALID + "rules: " + "[" * 5000 + "]" * 5000 + "\n")
    result = runner.invoke(app, ["run", str(path), "--check", "--no-trial"])
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {path}: invalid YAML: its lists or mappings are nested "
                             "too deeply to read\n")


def test_cli_quotes_a_huge_value_briefly(tmp_path: Path) -> None:
    """YAML aliases make a list of 59,049 items from six lines: the refusal quoted all of it
    (a 300 KB line; at eight levels, 226 MB and a minute)."""
    levels = ["  a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    levels += [f"  {key}: &{key} [{', '.join([f'*{below}'] * 9)}]"
               for below, key in zip("abcd", "bcde", strict=True)]
    path = write(tmp_path, VALID + "anchors:\n" + "\n".join(levels) + "\n"
                 "rules: *e\nlimits: {decision_ms: *e}\nduplicate: *e\n")
    result = runner.invoke(app, ["run", str(path), "--check", "--no-trial"])
    assert result.exit_code == 1
    shown = "[" + "[[...], [...], [...], [...], ...], " * 4 + "...]"
    assert sorted(result.stderr.split("\n")[1:5]) == [
        "  anchors: unknown field (known: name, format, bots, challengers, players_per_game, "
        "games_per_match, rounds, seed, limits, workers, rating, event_date, duplicate, backend, "
        "reuse_bots, pin_workers, results, max_tables, rules, deals, budget, tables_at_once, "
        "withdrawn, joined)",
        f"  duplicate: must be true, false, rotations or permutations; got {shown}",
        f"  limits.decision_ms: must be an integer, got {shown}",
        f"  rules: house rules must be a mapping of NAME: VALUE, not {shown}"]


def test_run_and_status_help_carry_an_example() -> None:
    for command in ("run", "status"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0
        assert f"Example: arena {command}" in result.output


@pytest.mark.parametrize("seed, entry, warned", [
    (2026, "greedy", False),  # the shipped samples: a demo, nobody's contest entry
    (2026, str(BOTS / "first.py"), True),
    (2**48 - 1, str(BOTS / "first.py"), True),
    (2**48, str(BOTS / "first.py"), False),
    (None, str(BOTS / "first.py"), False),  # a secret one is drawn
    (2026, "{copy}", False),  # a clone's own copy of a sample is still the sample
    (2026, "{changed}", True),  # ... but not once it is changed
])
def test_a_short_seed_is_flagged_when_a_contest_bot_plays(
        tmp_path: Path, seed: int | None, entry: str, warned: bool) -> None:
    (tmp_path / "copy").mkdir()
    (tmp_path / "changed").mkdir()
    shutil.copy(SAMPLE_BOTS_DIR / "greedy.py", tmp_path / "copy" / "greedy.py")
    (tmp_path / "changed" / "greedy.py").write_text(
        (SAMPLE_BOTS_DIR / "greedy.py").read_text() + "# mine now\n")
    entry = entry.format(copy=tmp_path / "copy" / "greedy.py",
                         changed=tmp_path / "changed" / "greedy.py")
    text = VALID.replace("greedy", entry) + ("" if seed is None else f"seed: {seed}\n")
    warning = load_spec(write(tmp_path, text)).exposure_warning()
    if not warned:
        assert warning is None
        return
    assert warning == (
        f"seed {seed} is short: a bot could find it by trying seeds against the bot_seed it "
        "is sent, and then know every hand. For a contest leave 'seed' out (a secret one is "
        "drawn, kept with the results and shown once the tournament finishes; a seed the "
        "spec writes, however long, is shown by arena status and the site from the start).")


@pytest.mark.parametrize("book, said", [
    ("42\n7364021938475610293\n", ", and 1 of its deals are short (such as 42): a bot could "
     "find those by trying seeds against its own hand"),
    ("7364021938475610293\n", ""),
])
def test_a_deal_book_is_flagged_when_a_contest_bot_plays(tmp_path: Path, book: str,
                                                         said: str) -> None:
    """A book's deals are the game seeds: whoever holds the book knows every hand, and a short
    deal a bot finds by trying seeds against the hand it is dealt (a drawn seed or not)."""
    (tmp_path / "book.txt").write_text(book)
    for entry, warned in (("greedy", False), (str(BOTS / "first.py"), True)):
        text = VALID.replace("greedy", entry) + "deals: book.txt\n"
        warning = load_spec(write(tmp_path, text)).exposure_warning()
        assert warning == (f"the deal book's deals are known to whoever holds the book{said}. "
                           "For a contest use a private book of seeds of 15 digits or more."
                           if warned else None)


def test_a_league_with_its_seed_in_the_spec_is_flagged_when_a_contest_bot_plays(
        tmp_path: Path) -> None:
    """A league's seed decides every later deal, and one written in the spec is shown while
    the league runs, as new versions of its bots enter: an author could read it and submit a
    bot that knows them. A tournament's entrants cannot change while it runs."""
    seed = "seed: 736402193847561029\n"
    league = VALID.replace("round_robin", "league")
    mine = str(BOTS / "first.py")
    for text, warned in ((league.replace("greedy", mine) + seed, True),
                         (league + seed, False), (league.replace("greedy", mine), False),
                         (VALID.replace("greedy", mine) + seed, False)):
        warning = load_spec(write(tmp_path, text)).exposure_warning()
        assert warning == (
            "a league's seed written in its spec is shown while it runs (arena status, the "
            "site) and decides every later deal, while new versions of its bots enter: an "
            "author who reads it could submit a bot that knows them. Leave 'seed' out (a "
            "secret one is drawn and never shown)." if warned else None), text


def test_a_budget_is_for_leagues_only(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "budget: {games: 10}\n") == [
        "budget: only used by format league, not round_robin"]
    assert problems(tmp_path, VALID.replace("round_robin", "league")
                    + "budget: {games: 0, minutes: -1}\n") == [
        "budget.games: must be at least 1, got 0",
        "budget.minutes: must be greater than 0, got -1.0"]


def test_a_league_takes_no_deal_book(tmp_path: Path) -> None:
    """A league plays on, dealing a book's deals again and again, while its games are shown
    and new versions of its bots enter: an author who saw a deal played could submit a bot
    that knows every hand of it the next time round."""
    (tmp_path / "book.txt").write_text("7364021938475610293\n")
    assert problems(tmp_path, VALID.replace("round_robin", "league") + "deals: book.txt\n") == [
        "deals: a league takes no deal book (it would deal the book's deals again to versions "
        "submitted after those games were shown)"]
    assert load_spec(write(tmp_path, VALID + "deals: book.txt\n")).deal_seeds == (
        7364021938475610293,)


def test_a_field_name_yaml_reads_as_a_number_is_named(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "1: 2\nrating: {3: 4}\n") == [
        "rating: a field name must be text, got 3", "spec: a field name must be text, got 1"]


def test_tables_at_once_is_for_leagues_only(tmp_path: Path) -> None:
    assert problems(tmp_path, VALID + "tables_at_once: 2\n") == [
        "tables_at_once: only used by format league, not round_robin"]
    assert problems(tmp_path, VALID.replace("round_robin", "league")
                    + "tables_at_once: 0\n") == [
        "tables_at_once: must be between 1 and 64, got 0"]


def test_permutations_at_five_seats_warn_of_the_processes_a_table_keeps(tmp_path: Path) -> None:
    """A duplicate table keeps a process of each bot for each seating: in permutations, 600
    at a table of 5 (about 13 GB of sample bots), which arena run --check and the run say
    before they start any; 96 at a table of 4 is said nowhere but the docs."""
    from arena.tournament.planning import seating_warning
    from arena.tournament.preflight import check_lines

    five = load_spec(write(tmp_path, VALID.replace("[greedy, collector]", (
        "[greedy, collector, random, heuristic, learned]\nplayers_per_game: 5\n"
        "duplicate: permutations\n"))))
    warning = seating_warning(five)
    assert warning is not None and "600 bot processes" in warning, warning
    assert f"warning: {warning}" in check_lines(five, tmp_path / "a.db", [])[0]
    four = load_spec(write(tmp_path, VALID.replace("[greedy, collector]", (
        "[greedy, collector, random, heuristic, learned]\nplayers_per_game: 4\n"
        "duplicate: permutations\n")), "four.yaml"))
    assert seating_warning(four) is None
    # nine bots at Swiss tables of 4 sit 5 + 4
    swiss = load_spec(write(tmp_path, VALID.replace("round_robin", "swiss").replace(
        "[greedy, collector]", "[" + ", ".join(["greedy"] + [
            f"{{bot: greedy, name: g{i}}}" for i in range(8)]) + "]\nrounds: 1\n"
        "players_per_game: 4\nduplicate: permutations\n"), "swiss.yaml"))
    assert "600 bot processes" in (seating_warning(swiss) or "")


def test_a_round_robin_whose_balanced_schedule_leaves_pairs_apart_says_so(
        tmp_path: Path) -> None:
    """20 entrants at tables of 5 have 15,504 five-sets: the balanced schedule plays 20
    tables, where 10 of the 190 pairs never sit together (no cyclic cover exists); --check
    says so rather than leave an empty head-to-head to find."""
    from arena.tournament.planning import unmet_pairs_warning
    from arena.tournament.preflight import check_lines

    bots = "[" + ", ".join(["greedy"] + [f"{{bot: greedy, name: g{i}}}" for i in range(19)])
    apart = load_spec(write(tmp_path, VALID.replace("[greedy, collector]", (
        bots + "]\nplayers_per_game: 5\n"))))
    warning = unmet_pairs_warning(apart)
    assert warning is not None and "10 of the 190 pairs" in warning, warning
    assert f"warning: {warning}" in check_lines(apart, tmp_path / "a.db", [])[0]
    twice = load_spec(write(tmp_path, VALID.replace("[greedy, collector]", (
        bots + "]\nplayers_per_game: 5\nrounds: 2\n")), "twice.yaml"))
    assert unmet_pairs_warning(twice) is None  # the second cycle's blocks seat them
    few = load_spec(write(tmp_path, VALID.replace("[greedy, collector]", (
        "[greedy, collector, random, heuristic, learned, {bot: greedy, name: g2}]\n"
        "players_per_game: 5\n")), "few.yaml"))
    assert unmet_pairs_warning(few) is None  # every five of six: all meet
