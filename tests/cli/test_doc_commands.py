"""The commands the README, RULES.md and docs/*.md give a reader to run name commands and
options the arena has: a renamed or dropped option would leave a page telling readers to type
one that fails with a usage error."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from arena.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "RULES.md", *sorted((ROOT / "docs").glob("*.md"))]

#: An option as a command line writes it: not the tail of a word (``my-bot``, ``a-b``).
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
#: Where a shell line goes on to another command.
_NEXT_COMMAND = re.compile(r"&&|\|\||[|;>]")


def _written_commands(text: str) -> list[str]:
    """Every ``arena ...`` of a page: in inline code (with a line break read as a space), and
    each line of a code block that starts with one (``$ `` and an environment variable
    before it allowed), each cut at a comment and split where the shell starts another."""
    spans = [" ".join(span.split()) for span in re.findall(r"`(arena [^`]+)`", text)]
    for block in re.findall(r"^ *```[a-z]*\n(.*?)^ *```", text, re.S | re.M):
        for line in block.splitlines():
            found = re.match(r"\s*(?:\$ )?(?:[A-Z_]+=\S+ )*(arena .*)", line)
            if found:
                spans.append(found[1].split(" #", 1)[0])
    commands = []
    for span in spans:
        commands += [part.strip() for part in _NEXT_COMMAND.split(span)
                     if part.strip().startswith("arena ")]
    return commands


def _resolve(words: list[str]) -> tuple[list[str], Any]:
    """The command the words name (a group's subcommand when the next word is one) and the
    words that name it."""
    command: Any = typer.main.get_command(app)
    named = []
    for word in words:
        commands: dict[str, Any] = getattr(command, "commands", {})
        if word not in commands:
            break
        command = commands[word]
        named.append(word)
    return named, command


def _options(command: Any) -> set[str]:
    return {opt for param in command.params
            for opt in (*param.opts, *getattr(param, "secondary_opts", []))
            if opt.startswith("-")}


def _unknown_commands_and_options() -> list[str]:
    """Each command written with a command or an option that the arena lacks, named."""
    wrong = []
    for page in PAGES:
        for written in _written_commands(page.read_text(encoding="utf-8")):
            words = [word.rstrip("\\") for word in written.split()[1:]]  # a table's \|
            named, command = _resolve(words)
            rest = words[len(named):]
            # a group's next word is one of its commands, an option, or '...' eliding them
            if hasattr(command, "commands") and rest and rest[0][:1] not in ("-", "."):
                wrong.append(f"{page.name}: arena {' '.join(named)} has no command "
                             f"{rest[0]}: {written}")
            options = _options(command)
            for option in _OPTION.findall(written):
                if option not in options:
                    wrong.append(f"{page.name}: arena {' '.join(named)} has no {option}: "
                                 f"{written}")
    return wrong


def test_the_docs_write_many_commands_with_options() -> None:
    """The reader below reads what the pages write (it would pass on finding nothing)."""
    written = [c for page in PAGES for c in _written_commands(page.read_text("utf-8"))]
    assert len(written) > 300
    assert "arena match learned greedy --games 400 --duplicate rotations --seed 2026" in written
    assert "arena check-bot mybot" in written  # a console block's line, its comment cut
    assert "arena leaderboard ladder_2p --wide" in written  # after '&&', across a line break


def test_every_option_the_docs_write_is_one_its_command_takes() -> None:
    assert _unknown_commands_and_options() == []


def test_a_command_or_option_the_arena_lacks_is_found(
        monkeypatch: Any, tmp_path: Path) -> None:
    page = tmp_path / "PAGE.md"
    page.write_text("Run `arena leaderboard swiss --widest`, then `arena bots purge`\n\n"
                    "```sh\n$ arena bots prune --dry-run --all   # a comment --ignored\n```\n")
    monkeypatch.setattr(f"{__name__}.PAGES", [page])
    assert _unknown_commands_and_options() == [
        "PAGE.md: arena leaderboard has no --widest: arena leaderboard swiss --widest",
        "PAGE.md: arena bots has no command purge: arena bots purge",
        "PAGE.md: arena bots prune has no --all: arena bots prune --dry-run --all"]
