"""Bots loaded into one process (the bench's in-process replay, learning opponents,
``BotAgent`` experiments) each run their own code: their own module and their own helpers."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bench.inprocess import replay_in_process
from arena.errors import BotLoadError
from arena.sdk.bot import Request
from arena.sdk.runner import load_bot, load_bot_class
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import spec_from_mapping

ROOT = Path(__file__).resolve().parents[2]

BOT = """\
from arena.sdk import Bot
import strategy
from tactics import pick


class {name}(Bot):
    name = "{name}"

    def act(self, request):
        import late  # a helper imported only when asked, as some bots do
        return pick(request.legal, strategy.END, late.SHIFT)
"""

#: Each bot's helpers: one plays the first option, the other the last.
HELPERS = {
    "first": {"strategy.py": "END = 0\n", "tactics/__init__.py": "from .choose import pick\n",
              "tactics/choose.py": "def pick(legal, end, shift):\n    return end + shift\n",
              "late.py": "SHIFT = 0\n"},
    "last": {"strategy.py": "END = -1\n", "tactics/__init__.py": "from .choose import pick\n",
             "tactics/choose.py": ("def pick(legal, end, shift):\n"
                                   "    return (end + shift) % len(legal)\n"),
             "late.py": "SHIFT = 0\n"},
}


def bot_directory(root: Path, name: str) -> Path:
    """A package bot ``root/name/bot.py`` with its helpers beside it."""
    home = root / name
    (home / "tactics").mkdir(parents=True)
    (home / "bot.py").write_text(BOT.format(name=name))
    for file, text in HELPERS[name].items():
        (home / file).write_text(text)
    return home


def ask(bot: object, options: int = 3) -> int:
    request = Request(0, "turn", {}, [{"o": i} for i in range(options)], None, {}, 0)
    return bot.act(request)  # type: ignore[attr-defined,no-any-return]


def test_two_bots_named_bot_py_each_run_their_own_helpers(tmp_path: Path) -> None:
    first = load_bot(bot_directory(tmp_path / "a", "first"))
    last = load_bot(bot_directory(tmp_path / "b", "last"))
    assert (ask(first), ask(last)) == (0, 2)
    assert (ask(first, 5), ask(last, 5)) == (0, 4)
    assert type(first).__module__ != type(last).__module__


def test_bots_stay_apart_run_from_inside_a_bot_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's own directory is on its path: a bot directory's modules found there
    are still that bot's alone."""
    first_home = bot_directory(tmp_path / "a", "first")
    monkeypatch.syspath_prepend(str(first_home))
    first = load_bot(first_home)
    last = load_bot(bot_directory(tmp_path / "b", "last"))
    assert (ask(first), ask(last)) == (0, 2)


def test_loading_leaves_the_callers_imports_and_path_alone(tmp_path: Path) -> None:
    path = list(sys.path)
    load_bot(bot_directory(tmp_path, "first"))
    assert sys.path == path
    assert not {"strategy", "tactics", "late"} & set(sys.modules)


def test_a_helper_named_like_the_standard_library_does_not_shadow_it(tmp_path: Path) -> None:
    home = bot_directory(tmp_path, "first")
    (home / "json.py").write_text("raise RuntimeError('the bot shadowed json')\n")
    (home / "strategy.py").write_text("import json\nEND = json.loads('0')\n")
    assert ask(load_bot(home)) == 0


def test_a_bot_loaded_twice_shares_no_module_state(tmp_path: Path) -> None:
    home = bot_directory(tmp_path, "first")
    assert load_bot_class(home) is not load_bot_class(home / "bot.py")


def test_a_bot_that_is_not_there_is_said_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(BotLoadError, match="not found"):
        load_bot(tmp_path / "bot.py")
    home = bot_directory(tmp_path, "first")
    (home / "strategy.py").write_text("import tactics.absent\n")
    with pytest.raises(ModuleNotFoundError, match="^No module named 'tactics.absent'$"):
        load_bot(home)


def test_a_pickled_bot_is_loaded_again_in_another_process(tmp_path: Path) -> None:
    """Its module is found again from the file (a vector environment's subprocesses, a
    checkpoint); where the file is gone, the one line says which."""
    home = bot_directory(tmp_path, "last")
    bot = load_bot(home)
    bot.note = "remembered"  # type: ignore[attr-defined]
    saved = tmp_path / "bot.pickle"
    saved.write_bytes(pickle.dumps(bot))
    script = ("import pickle\nfrom arena.sdk.bot import Request\n"
              f"bot = pickle.loads(open({str(saved)!r}, 'rb').read())\n"
              "print(bot.note, bot.act(Request(0, 'turn', {}, [{}, {}, {}], None, {}, 0)))\n")

    def elsewhere() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120,
                              check=False)

    done = elsewhere()
    assert done.stdout.split() == ["remembered", "2"], done.stderr[-1500:]
    home.rename(tmp_path / "moved")
    gone = elsewhere().stderr.splitlines()[-1]
    assert gone == (f"arena.errors.BotLoadError: bot module {home / 'bot.py'} not found (a bot "
                    "loaded in-process is found again at the path of its file)")


def test_the_bench_replays_two_package_bots_as_they_played(tmp_path: Path) -> None:
    homes = [str(bot_directory(tmp_path / "a", "first")),
             str(bot_directory(tmp_path / "b", "last"))]
    db = tmp_path / "apart.db"
    spec = spec_from_mapping({"name": "apart", "format": "round_robin", "bots": homes,
                              "games_per_match": 6, "seed": 5, "results": str(db)})
    run_tournament(spec, 1)
    replayed = replay_in_process(db, spec.name, spec.entrants)
    assert (replayed.games, replayed.differing) == (6, 0)


def test_a_bot_file_beside_the_arena_package_is_loaded_with_the_kit_in_use(
        tmp_path: Path) -> None:
    """A newcomer writes my_bot.py in the arena's checkout, beside ``arena/``: its
    ``from arena.sdk import Bot`` is the kit this process runs (as in the sandbox, where the
    kit comes first), not a second copy of it found in the bot's directory, whose Bot class
    the loader would not know (``class MyBot ... does not subclass it``)."""
    (tmp_path / "arena").symlink_to(ROOT / "arena", target_is_directory=True)
    (tmp_path / "my_bot.py").write_text("from arena.sdk import Bot\n\n\nclass MyBot(Bot):\n"
                                        "    def act(self, request):\n        return 0\n")
    code = ("import sys\nfrom arena.sdk.runner import load_bot\n"
            "bot = load_bot(sys.argv[1])\nprint(type(bot).__name__)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "my_bot.py")],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "MyBot\n"
