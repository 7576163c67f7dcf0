"""What a bot is: :class:`BotSpec`, the registry's names and the checks of options (a bot's
name has its rule in :mod:`arena.common.names`)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.common.printable import printable

__all__ = [
    "MANIFEST",
    "MANIFEST_KEYS",
    "METADATA_KEYS",
    "PYTHON",
    "REGISTRY_FILE",
    "RUNNER",
    "SAMPLE_BOTS_DIR",
    "VERSIONS_DIR",
    "BotSpec",
    "default_bots_dir",
    "option_problems",
    "options_digest",
    "sample_bots_seen",
]

MANIFEST = "bot.yaml"
REGISTRY_FILE = "registry.yaml"
METADATA_KEYS = ("author", "version", "last_read_page", "last_book_finished")
#: Where ``submit --update`` keeps the versions it replaced (``<name>@<version>/``).
VERSIONS_DIR = ".versions"
#: The sample bots shipped with the arena (found by name unless ``$ARENA_BOTS_DIR`` is set).
SAMPLE_BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"
#: Every key a ``bot.yaml`` may hold (the metadata either at the top or under ``metadata``).
MANIFEST_KEYS = ("name", "command", "module", "metadata", "requirements", "python",
                 *METADATA_KEYS)
#: Stands for "the Python interpreter the sandbox runs bots with" in a command; the referee
#: substitutes it at launch (see :mod:`arena.referee.launch`).
PYTHON = "{python}"
#: How a module bot is run: ``python -m arena.sdk.runner`` but with the working directory (the
#: bot's) taken off ``sys.path`` before anything is imported. ``-m`` puts it first while Python
#: imports the runner, so a bot file named like a standard module (``copy.py``, ``json.py``)
#: broke the start-up; ``-P`` does the same but needs Python 3.11.
RUNNER = ("-c", "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
                 "import runpy; runpy.run_module('arena.sdk.runner', run_name='__main__', "
                 "alter_sys=True)")


@dataclass(frozen=True)
class BotSpec:
    """A resolved bot: how to start it and what it is.

    ``path`` is the module file or the bot directory: the sandbox copies exactly that into
    the bot's private working directory, so a single-file bot never sees its neighbours in
    ``bots/``. ``command`` is the argv run there, where :data:`PYTHON` stands for the
    sandbox's interpreter; ``version`` the content hash of ``files``.
    """

    name: str
    version: str
    path: Path
    command: tuple[str, ...]
    metadata: dict[str, Any] = field(default_factory=dict)
    kind: str = "module"  # "module" (kit runner) or "command" (any language)
    files: tuple[Path, ...] = ()
    #: Settings sent to the bot in ``hello`` (``options``), e.g. a fixed search budget.
    options: dict[str, Any] = field(default_factory=dict)
    #: The packages ``bot.yaml`` requires (normalized pip requirement strings) and the Python
    #: version it asks for (``python: "3.11"``; None: the sandbox's).
    requirements: tuple[str, ...] = ()
    python: str | None = None
    #: The built environment the bot runs in (:mod:`arena.registry.environments`); None when
    #: it needs none or it is not built yet.
    environment: Path | None = None
    #: The content hash of the files alone when ``version`` folds in more (an environment's
    #: packages); empty when the version's files part is that hash.
    files_hash: str = ""

    @property
    def key(self) -> str:
        """``name@version``: the identity of a bot in results."""
        return f"{self.name}@{self.version}"

    @property
    def files_digest(self) -> str:
        """The content hash of the bot's files alone (what a copy of them must hash to)."""
        return self.files_hash or self.files_version

    @property
    def files_version(self) -> str:
        """The content hash of the files alone (the version without the options' part)."""
        return self.version.partition("+")[0]

    def with_options(self, options: dict[str, Any]) -> BotSpec:
        """This bot with ``options`` for ``hello``; its version names them, so results of
        one bot under different settings stay apart."""
        if not options:
            return replace(self, options={}, version=self.files_version)
        return replace(self, options=dict(options),
                       version=f"{self.files_version}+o{options_digest(options)}")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "path": str(self.path),
                "command": list(self.command), "kind": self.kind,
                "metadata": dict(self.metadata), "options": dict(self.options),
                **({"requirements": list(self.requirements),
                    "environment": str(self.environment) if self.environment else None}
                   if self.requirements else {})}


def default_bots_dir() -> Path:
    """The bots directory: where ``arena submit`` registers a bot (``registry.yaml``, the
    bot's copy, ``.versions/``) and where names are looked up. The one rule, in order:

    1. ``$ARENA_BOTS_DIR`` when set: that directory alone (a contest's own registry);
    2. ``./bots`` when the working directory has one of its own (not the arena's samples);
    3. ``$ARENA_HOME/bots`` when ``ARENA_HOME`` is set, else the user's data directory,
       ``$XDG_DATA_HOME/palaestra-arena/bots`` (``~/.local/share/palaestra-arena/bots``):
       never the arena's checkout, whose ``bots/`` holds the sample bots.

    In cases 2 and 3 the sample bots are found by name too (:func:`sample_bots_seen`)."""
    env = os.environ.get("ARENA_BOTS_DIR")
    if env:
        return Path(env)
    here = Path("bots")
    if here.is_dir() and here.resolve() != SAMPLE_BOTS_DIR:
        return here
    home = os.environ.get("ARENA_HOME")
    if home:
        return Path(home) / "bots"
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                             "share")
    return Path(data) / "palaestra-arena" / "bots"


def sample_bots_seen(bots_dir: Path) -> bool:
    """Whether names are looked up among the sample bots too, after ``bots_dir``: yes for the
    default bots directory, unless ``$ARENA_BOTS_DIR`` chose one to hold every bot."""
    if os.environ.get("ARENA_BOTS_DIR"):
        return False
    return bots_dir.resolve() in (default_bots_dir().resolve(), SAMPLE_BOTS_DIR)


_OPTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,59}")  # fullmatch


def option_problems(options: Any, where: str = "options") -> list[str]:
    """What is wrong with a bot's ``options`` (one line each; empty when fine): a mapping of
    names (1-60 letters, digits, '_', '-' or '.') to strings, numbers or booleans, the values
    every bot can read from ``hello``."""
    if not isinstance(options, dict):
        return [f"{where}: must be a mapping of option names to values, got "
                f"{_shown(options)}"]
    problems = []
    for key, value in options.items():
        if isinstance(key, bool):
            problems.append(f"{where}: option name {key} is not a name: YAML reads an unquoted "
                            "on, off, yes or no as true or false; quote it")
        elif not isinstance(key, str) or not _OPTION_NAME.fullmatch(key):
            problems.append(f"{where}: option name {key!r} must be 1-60 letters, digits, '_', "
                            "'-' or '.', starting with a letter or digit")
        elif not isinstance(value, str | int | float | bool) or (
                isinstance(value, float) and not math.isfinite(value)):  # not JSON
            problems.append(f"{where}.{key}: must be a string, number or true/false, got "
                            f"{_shown(value)}")
        elif isinstance(value, str) and printable(value) != value:  # shown in every table
            problems.append(f"{where}.{key}: must not hold control or invisible characters, got "
                            f"{printable(value)!r}")
    return problems


def _shown(value: Any) -> str:
    return ("a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict)
            else repr(value))


def options_digest(options: dict[str, Any]) -> str:
    """First 8 hex digits of a sha256 over the options as canonical JSON (key order does not
    matter)."""
    text = json.dumps(options, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:8]

