"""``arena bots remove``: unregistering a bot ``arena submit`` registered."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from arena.cli.main import app
from arena.registry import BotSpec, kept_versions, resolve, submit

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "bots"

runner = CliRunner()


def _passing(spec: BotSpec) -> Any:
    return SimpleNamespace(ok=True, failures=lambda: [])


def _submitted(source: Path, name: str, bots_dir: Path, update: bool = False) -> BotSpec:
    """Register ``source`` as ``name`` (the compliance check is not what is tested here)."""
    return submit(source, name=name, bots_dir=bots_dir, check=_passing, update=update)


def _directory_bot(root: Path, author: str) -> Path:
    bot = root / f"source-{author}"
    bot.mkdir()
    shutil.copy(SAMPLES / "random.py", bot / "bot.py")
    (bot / "bot.yaml").write_text(f"name: dirbot\nmodule: bot.py\nauthor: {author}\n")
    return bot


def _entries(bots_dir: Path) -> dict[str, Any]:
    return yaml.safe_load((bots_dir / "registry.yaml").read_text())["bots"]


def _remove(name: str, env: dict[str, str | None]) -> Any:
    return runner.invoke(app, ["bots", "remove", name], env=env)


def test_removing_a_bot_takes_its_files_its_kept_versions_and_its_entry(
        tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    first = _submitted(_directory_bot(tmp_path, "ann"), "dirbot", bots)
    (bots / "dirbot").chmod(0o555)  # as a read-only bot directory is copied
    second = _submitted(_directory_bot(tmp_path, "bob"), "dirbot", bots, update=True)
    other = _submitted(SAMPLES / "random.py", "other", bots)
    assert list(kept_versions("dirbot", bots)) == [first.version]
    env: dict[str, str | None] = {"ARENA_BOTS_DIR": str(bots)}
    result = _remove("dirbot", env)
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"Removed dirbot version {second.version} from {bots}: its files "
                             "(dirbot), 1 earlier version kept by --update and its registry "
                             "entry; stored results keep its games\n")
    assert sorted(p.name for p in bots.iterdir()) == [".versions", "other.py", "registry.yaml"]
    assert list((bots / ".versions").iterdir()) == [] and list(_entries(bots)) == ["other"]
    assert resolve("other", bots).version == other.version
    again = _remove("dirbot", env)
    assert again.exit_code == 1
    assert again.stderr == "Error: unknown bot 'dirbot' (registered: other)\n"


def test_removing_a_bot_under_a_sample_name_finds_the_sample_again(tmp_path: Path,
                                                                     monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)  # no ./bots here: the bots directory is ARENA_HOME's
    env: dict[str, str | None] = {"ARENA_BOTS_DIR": None,
                                  "ARENA_HOME": str(tmp_path / "home")}
    monkeypatch.delenv("ARENA_BOTS_DIR", raising=False)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))  # the submit's too
    bots = tmp_path / "home" / "bots"
    mine = _submitted(SAMPLES / "random.py", "greedy", bots, update=True)
    assert resolve("greedy", bots).path == bots / "greedy.py"
    result = _remove("greedy", env)
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"Removed greedy version {mine.version} from {bots}: its files "
                             "(greedy.py), 1 earlier version kept by --update and its registry "
                             "entry; stored results keep its games; the sample bot greedy "
                             "answers to its name again\n")
    assert resolve("greedy", bots).path == SAMPLES / "greedy.py"
    sample = _remove("greedy", env)
    assert sample.exit_code == 1 and sample.stdout == ""
    assert sample.stderr == (f"Error: 'greedy' is a sample bot of the arena's checkout "
                             f"({SAMPLES / 'greedy.py'}): it cannot be removed\n")
    assert (SAMPLES / "greedy.py").is_file()


def test_a_sample_bot_is_refused_before_anything_was_submitted(tmp_path: Path,
                                                               monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    result = _remove("heuristic", {"ARENA_BOTS_DIR": None,
                                   "ARENA_HOME": str(tmp_path / "home")})
    assert result.exit_code == 1
    assert result.stderr == (f"Error: 'heuristic' is a sample bot of the arena's checkout "
                             f"({SAMPLES / 'heuristic.py'}): it cannot be removed\n")
    assert not (tmp_path / "home").exists()


def test_a_bot_file_no_entry_names_is_left_to_its_author(tmp_path: Path) -> None:
    """A ./bots of a project holds its author's own files: only copies submit made go."""
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(SAMPLES / "random.py", bots / "own.py")
    _submitted(SAMPLES / "random.py", "copied", bots)
    result = _remove("own", {"ARENA_BOTS_DIR": str(bots)})
    assert result.exit_code == 1
    assert result.stderr == (f"Error: 'own' was not registered by arena submit: "
                             f"{bots / 'own.py'} is a file of your own in the bots directory, "
                             "left to you to delete\n")
    assert (bots / "own.py").is_file() and list(_entries(bots)) == ["copied"]


def test_a_bot_whose_files_were_deleted_by_hand_is_named_then_removed(tmp_path: Path) -> None:
    """Its entry stayed, and every command said 'unknown bot', suggesting other names."""
    bots = tmp_path / "bots"
    gone = _submitted(SAMPLES / "random.py", "gone", bots)
    _submitted(SAMPLES / "greedy.py", "gonzo", bots)
    (bots / "gone.py").unlink()
    env: dict[str, str | None] = {"ARENA_BOTS_DIR": str(bots)}
    match = runner.invoke(app, ["match", "gone", "gonzo", "--games", "1"], env=env)
    assert match.exit_code == 1
    assert match.stderr == (f"Error: bot 'gone' is registered in {bots / 'registry.yaml'}, but "
                            f"its files at {bots / 'gone.py'} are gone: put them back, or "
                            "'arena bots remove gone' drops its entry\n")
    result = _remove("gone", env)
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"Removed gone version {gone.version} from {bots}: its registry "
                             f"entry (its files at {bots / 'gone.py'} were gone already); "
                             "stored results keep its games\n")
    assert list(_entries(bots)) == ["gonzo"]


@pytest.mark.parametrize("path", ["../elsewhere.py", ".", "sub/x.py", "registry.yaml"])
def test_an_entry_pointing_outside_the_bots_directory_loses_only_its_entry(
        tmp_path: Path, path: str) -> None:
    """A hand-edited path may name anything: the bots directory itself, or files the arena
    never copied; removing the registration must not delete them."""
    bots = tmp_path / "bots"
    _submitted(SAMPLES / "random.py", "mine", bots)
    (bots / "sub").mkdir()
    shutil.copy(SAMPLES / "random.py", bots / "sub" / "x.py")
    shutil.copy(SAMPLES / "random.py", tmp_path / "elsewhere.py")
    entries = _entries(bots)
    entries["mine"]["path"] = path
    (bots / "registry.yaml").write_text(yaml.safe_dump({"bots": entries}))
    result = _remove("mine", {"ARENA_BOTS_DIR": str(bots)})
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Removed mine version {entries['mine']['version']} from "
                                    f"{bots}: its registry entry (its files at {bots / path} "
                                    "lie outside the bots directory's copies: left as they "
                                    "are)")
    assert (tmp_path / "elsewhere.py").is_file() and (bots / "sub" / "x.py").is_file()
    assert (bots / "mine.py").is_file() and _entries(bots) == {}


def test_the_list_is_still_arena_bots(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    _submitted(SAMPLES / "random.py", "mine", bots)
    listing = runner.invoke(app, ["bots", "--json"], env={"ARENA_BOTS_DIR": str(bots)})
    assert listing.exit_code == 0 and '"name": "mine"' in listing.stdout
    usage = runner.invoke(app, ["bots", "--help"], terminal_width=200)
    assert "Usage: arena bots [OPTIONS] [COMMAND [ARGS]...]" in usage.stdout


def test_an_entry_sharing_another_bots_files_leaves_them(tmp_path: Path) -> None:
    """An alias made by hand ('old-name: {path: mine.py}'): removing it must not take the
    files of the bot still registered."""
    bots = tmp_path / "bots"
    mine = _submitted(SAMPLES / "random.py", "mine", bots)
    entries = _entries(bots)
    entries["alias"] = dict(entries["mine"])
    (bots / "registry.yaml").write_text(yaml.safe_dump({"bots": entries}))
    result = _remove("alias", {"ARENA_BOTS_DIR": str(bots)})
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"Removed alias version {mine.version} from {bots}: its registry "
                             f"entry (its files at {bots / 'mine.py'} are bot 'mine''s too: "
                             "left as they are); stored results keep its games\n")
    assert resolve("mine", bots).version == mine.version and list(_entries(bots)) == ["mine"]


def test_a_versions_directory_that_is_a_link_removes_nothing(tmp_path: Path) -> None:
    """'.versions' made a link to anywhere: the removed bot's NAME@VERSION directories there
    are not the bots directory's to remove, nor is the bot gone without them."""
    bots, elsewhere = tmp_path / "bots", tmp_path / "elsewhere"
    _submitted(_directory_bot(tmp_path, "ann"), "dirbot", bots)
    (elsewhere / "dirbot@2026").mkdir(parents=True)
    (elsewhere / "dirbot@2026" / "notes.txt").write_text("keep me")
    (bots / ".versions").symlink_to(elsewhere)
    result = _remove("dirbot", {"ARENA_BOTS_DIR": str(bots)})
    assert result.exit_code == 1 and result.stderr.startswith("Error: "), result.output
    assert f"{bots / '.versions'} is a symbolic link" in result.stderr
    assert "nothing was removed" in result.stderr
    assert (elsewhere / "dirbot@2026" / "notes.txt").read_text() == "keep me"
    assert "dirbot" in _entries(bots) and (bots / "dirbot").is_dir()
