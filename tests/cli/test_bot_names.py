"""One rule for a bot's name, wherever a name enters (docs/BOTS.md, "Names"): a spec entry's
name, a submit, a bot.yaml, a bot given to ``arena match`` by path, each refuse a bad name
with the same words, then say how to give another."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from arena.cli.main import app
from arena.registry import SAMPLE_BOTS_DIR

runner = CliRunner()

RULE = ("bot name 'Mon bot' is not allowed: use 1-40 letters, digits, '_', '-' or '.', "
        "starting with a letter or digit")


def _module_named(path: Path, name: str) -> Path:
    """The random sample bot, naming itself ``name``."""
    path.write_text((SAMPLE_BOTS_DIR / "random.py").read_text().replace(
        'name = "random"', f"name = {name!r}"))
    return path


def _directory_named(path: Path, name: str) -> Path:
    """The random sample bot in a directory whose bot.yaml names it ``name``."""
    path.mkdir()
    _module_named(path / "bot.py", "random")
    (path / "bot.yaml").write_text(yaml.safe_dump({"name": name, "module": "bot.py"}))
    return path


def _run_spec(tmp_path: Path, entry: object) -> tuple[int, str]:
    db = tmp_path / "arena.db"
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({
        "name": "names", "format": "round_robin", "bots": ["greedy", entry], "rounds": 1,
        "games_per_match": 1, "seed": 3, "results": str(db)}))
    result = runner.invoke(app, ["run", str(spec), "--no-trial", "--no-progress"])
    said = [line for line in result.stderr.splitlines(keepends=True)  # what is said first
            if not line.startswith(("New results database: ", "warning: "))]
    return result.exit_code, "".join(said)


def test_a_spec_entry_s_name_is_refused_by_the_rule(tmp_path: Path) -> None:
    code, said = _run_spec(tmp_path, {"bot": "random", "name": "Mon bot"})
    assert (code, said) == (1, f"Error: bots[1]: {RULE}; enter it under another name: "
                               "{bot: REF, name: NAME}\n")


@pytest.mark.parametrize("kind", ["bot.yaml", "module"])
def test_a_name_a_bot_gives_itself_is_refused_by_a_new_tournament(tmp_path: Path,
                                                                   kind: str) -> None:
    """A bot entered by path kept any name its files gave it ('Mon bot'), which a spec's own
    entry or a submit refused."""
    bot = (_directory_named(tmp_path / "mon", "Mon bot") if kind == "bot.yaml"
           else _module_named(tmp_path / "mon.py", "Mon bot"))
    code, said = _run_spec(tmp_path, str(bot))
    assert (code, said) == (1, f"Error: bots[1]: {RULE}; enter it under another name: "
                               "{bot: REF, name: NAME}\n")


def test_submit_refuses_a_bad_name_by_the_rule(tmp_path: Path) -> None:
    bot = _directory_named(tmp_path / "mon", "Mon bot")
    env = {"ARENA_BOTS_DIR": str(tmp_path / "bots")}
    own = runner.invoke(app, ["submit", str(bot)], env=env)
    assert (own.exit_code, own.stderr) == (
        1, f"Error: {RULE} (--name NAME registers it under another)\n")
    given = runner.invoke(app, ["submit", str(bot), "--name", "Mon bot"], env=env)
    assert (given.exit_code, given.stderr) == (1, f"Error: {RULE}\n")
    assert not (tmp_path / "bots" / "registry.yaml").exists()



@pytest.mark.parametrize(("registered", "new"), [("botl", "bot1"), ("mybot", "rnybot")])
def test_submit_warns_of_a_name_looking_like_a_registered_one_in_ascii(
        tmp_path: Path, registered: str, new: str) -> None:
    """A non-ASCII look-alike of a registered name was refused, an ASCII one let in unsaid:
    it is said, as a new tournament says it of an earlier tournament's bot, and registered
    (a registry may hold both already)."""
    env = {"ARENA_BOTS_DIR": str(tmp_path / "bots")}
    first = runner.invoke(app, ["submit", str(SAMPLE_BOTS_DIR / "random.py"), "--name",
                                registered], env=env)
    assert (first.exit_code, first.stderr) == (0, "")
    second = runner.invoke(app, ["submit", str(SAMPLE_BOTS_DIR / "greedy.py"), "--name", new],
                           env=env)
    assert (second.exit_code, second.stderr) == (0, (
        f"warning: the name {new} looks like {registered}, a registered bot (the same letters "
        "to the eye, or but for case): arena bots lists both, which a reader may take for "
        "one bot\n"))
    assert second.stdout.splitlines()[-1].startswith(f"Registered {new} version ")

def test_an_update_of_a_look_alike_name_is_not_warned_again(tmp_path: Path) -> None:
    """The warning is said once, when the name is first registered: its updates are the
    same name, which the author has been told of."""
    env = {"ARENA_BOTS_DIR": str(tmp_path / "bots")}
    runner.invoke(app, ["submit", str(SAMPLE_BOTS_DIR / "random.py"), "--name", "botl"],
                  env=env)
    first = runner.invoke(app, ["submit", str(SAMPLE_BOTS_DIR / "random.py"), "--name",
                                "bot1"], env=env)
    assert first.exit_code == 0 and "looks like botl" in first.stderr
    update = runner.invoke(app, ["submit", str(SAMPLE_BOTS_DIR / "greedy.py"), "--name",
                                 "bot1", "--update"], env=env)
    assert (update.exit_code, update.stderr) == (0, "")
    assert update.stdout.splitlines()[-1].startswith("Registered bot1 version ")
    bots = yaml.safe_load((tmp_path / "bots" / "registry.yaml").read_text())["bots"]
    assert set(bots) == {"botl", "bot1"} and bots["bot1"]["path"] == "bot1.py"
    assert bots["bot1"]["version"] != bots["botl"]["version"]  # greedy's, not random's


@pytest.mark.parametrize("kind", ["bot.yaml", "module"])
def test_a_match_refuses_a_bot_given_by_path_with_a_bad_name(tmp_path: Path, kind: str) -> None:
    bot = (_directory_named(tmp_path / "mon", "Mon bot") if kind == "bot.yaml"
           else _module_named(tmp_path / "mon.py", "Mon bot"))
    result = runner.invoke(app, ["match", "random", str(bot), "--games", "1", "--seed", "1",
                                 "-q"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (f"Error: {RULE}; register the bot under another name (arena "
                             "submit BOT --name NAME)\n")


def test_run_check_lists_the_names_a_new_tournament_refuses(tmp_path: Path) -> None:
    from arena.tournament.preflight import check_lines
    from arena.tournament.spec_loading import spec_from_mapping

    spec = spec_from_mapping({"name": "names", "format": "round_robin", "seed": 3,
                              "bots": ["greedy", {"bot": "random", "name": "Mon bot"}]})
    lines, ready = check_lines(spec, tmp_path / "arena.db", [])
    assert not ready
    assert (f"Refused name: bots[1]: {RULE}; enter it under another name: {{bot: REF, name: "
            "NAME}") in lines


def test_run_check_says_a_refused_name_before_an_entry_that_does_not_start(
        tmp_path: Path) -> None:
    """A run refuses a new tournament's names before any bot starts, so the check's verdict
    names them first, even beside an entry that did not start."""
    from arena.tournament.preflight import TrialStart, check_lines
    from arena.tournament.spec_loading import spec_from_mapping

    spec = spec_from_mapping({"name": "names", "format": "round_robin", "seed": 3,
                              "bots": ["greedy", {"bot": "random", "name": "Mon bot"}]})
    trials = [TrialStart(spec.entrants[0], "exited before answering 'hello'"),
              TrialStart(spec.entrants[1], None)]
    lines, ready = check_lines(spec, tmp_path / "arena.db", trials)
    assert not ready
    assert lines[-1] == ("1 of 2 entries does not start, but arena run refuses the names "
                         "above in a new tournament.")


@pytest.mark.parametrize("trial", ["--trial", "--no-trial"])
def test_a_run_refused_for_a_name_leaves_no_database_behind(tmp_path: Path, trial: str) -> None:
    """A new tournament refused for an entrant's name made its results database (and the
    directory it was to be in) first, said "New results database", then refused: the
    refusal comes before anything is made, and before any bot starts."""
    db = tmp_path / "results" / "arena.db"
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({
        "name": "names", "format": "round_robin", "rounds": 1, "games_per_match": 1,
        "bots": ["greedy", {"bot": "random", "name": "Mon bot"}], "seed": 3,
        "results": str(db)}))
    result = runner.invoke(app, ["run", str(spec), trial, "--no-progress"])
    said = [line for line in result.stderr.splitlines(keepends=True)
            if not line.startswith("warning: sandbox")]  # the sandbox's missing layers, if any
    assert (result.exit_code, "".join(said)) == (
        1, f"Error: bots[1]: {RULE}; enter it under another name: {{bot: REF, name: NAME}}\n")
    assert [path.name for path in tmp_path.iterdir()] == ["spec.yaml"]


def test_a_match_refuses_a_bot_naming_itself_as_a_numbered_copy(tmp_path: Path) -> None:
    """A bot entered twice shows as random#1 and random#2; one whose files named it
    'random#1' was let in as if numbered, and two entrants showed the same label."""
    bot = _module_named(tmp_path / "copy.py", "random#1")
    result = runner.invoke(app, ["match", "random", "random", str(bot), "--games", "1",
                                 "--seed", "1", "-q"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: bot name 'random#1' is not allowed: use 1-40 letters, digits, '_', '-' or '.', "
        "starting with a letter or digit; register the bot under another name (arena submit "
        "BOT --name NAME)\n")
