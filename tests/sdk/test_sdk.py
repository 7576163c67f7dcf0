"""The bot kit: Bot, Request, the runner's protocol handling, loading, and the sample bots."""

from __future__ import annotations

import fnmatch
import io
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from staged_ascension import ascending_at_once, trap_a_non_god

from arena.engine import GameConfig, RandomAgent, play_game
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.errors import BotError, ProtocolError
from arena.protocol import messages
from arena.protocol.schema import validate
from arena.registry.manifest import spec_from_path
from arena.sdk import Bot, GameEnd, GameStart, Request
from arena.sdk import line_request as line_request_module
from arena.sdk.line_request import LineRequest
from arena.sdk.local import BotAgent
from arena.sdk.runner import BotLoadError, find_bot_class, load_bot, serve

ROOT = Path(__file__).resolve().parents[2]


class Listener(Bot):
    name = "listener"
    author = "Ann"
    last_read_page = "2026-11-20"

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def on_game_start(self, game: GameStart) -> None:
        self.calls.append(game)

    def on_event(self, event: dict[str, Any]) -> None:
        self.calls.append(event)

    def act(self, request: Request) -> int:
        self.calls.append(request)
        return len(request.legal) - 1

    def on_game_end(self, result: GameEnd) -> None:
        self.calls.append(result)


def run(bot: Bot, lines: list[bytes]) -> tuple[int, list[dict[str, Any]]]:
    read, write = os.pipe()
    code = serve(bot, io.BytesIO(b"".join(lines)), write)
    os.close(write)
    with os.fdopen(read, "rb") as out:
        answers = [json.loads(line) for line in out.read().splitlines()]
    for answer in answers:
        assert validate(answer) == []
    return code, answers


def test_a_whole_exchange() -> None:
    bot = Listener()
    code, answers = run(bot, [
        messages.hello({"decision_ms": 100}),
        b"not json, ignored\n",
        b'{"type":"future_message","x":1}\n',
        messages.game_start(0, 1, ["a", "b"], 0, 5),
        messages.event({"type": "draw", "seat": 1, "card": "God-3"}),
        messages.act(5, "swap", {"hand": ["God-3", "Crown"]}, [{"swap": None}, {"swap": "Crown"}],
                     800, {"round": 1}),
        messages.game_end(0, [2, 1], ["Pair", "Triplet"], False, "none", {0: "timeout"}),
        messages.bye(),
        messages.act(6, "turn", {}, [{"action": "hold"}]),  # after bye: never read
    ])
    assert code == 0
    assert answers == [
        {"type": "ready", "protocol": 1, "name": "listener", "author": "Ann",
         "last_read_page": "2026-11-20"},
        {"type": "action", "id": 5, "choice": 1},
    ]
    start, event, request, end = bot.calls
    assert start == GameStart(0, 1, ["a", "b"], 0, 5, start.raw)
    assert event == {"type": "draw", "seat": 1, "card": "God-3", }
    assert (request.id, request.kind, request.hand, request.time_ms, request.seat) == (
        5, "swap", ["God-3", "Crown"], 800, 1)
    assert request.context == {"round": 1}
    assert end.placements == [2, 1] and end.forfeits == {0: "timeout"}


def test_game_end_gives_the_places_the_standings_count_from_any_referee() -> None:
    """RULES.md E28: two of three seats forfeited are both last, 3, where the engine's
    placements put them second; a referee older than standing_places sent none, and the kit
    computes them from the placements and forfeits."""
    forfeits = {1: "crash", 2: "timeout"}
    sent = messages.game_end(0, [1, 2, 2], ["Pair"] * 3, False, "none", forfeits, [1, 3, 3])
    older = {key: value for key, value in json.loads(sent).items()
             if key != "standing_places"}
    bot = Listener()
    run(bot, [messages.hello({}), messages.game_start(0, 0, ["a", "b", "c"], 0, 5), sent,
              messages.game_start(1, 0, ["a", "b", "c"], 0, 5),
              json.dumps({**older, "game": 1}).encode() + b"\n", messages.bye()])
    ends = [call for call in bot.calls if isinstance(call, GameEnd)]
    assert [(end.placements, end.standing_places) for end in ends] == [
        ([1, 2, 2], [1, 3, 3]), ([1, 2, 2], [1, 3, 3])]
    assert GameEnd(0, [1, 1], ["Pair"] * 2, False, "none", {0: "crash", 1: "crash"}
                   ).standing_places == [2, 2]


def test_hello_options_reach_configure_before_the_first_game() -> None:
    class Tuned(Listener):
        def configure(self, options: dict[str, Any]) -> None:
            super().configure(options)
            self.calls.append(("configure", dict(self.options)))

    bot = Tuned()
    code, answers = run(bot, [messages.hello(options={"depth": 2}),
                              messages.game_start(0, 1, ["a", "b"], 0, 5), messages.bye()])
    assert code == 0 and answers[0]["type"] == "ready"
    assert bot.calls[0] == ("configure", {"depth": 2})
    assert isinstance(bot.calls[1], GameStart)
    plain = Listener()
    assert plain.options == {}
    run(plain, [messages.hello(options={"depth": 2})])
    assert plain.options == {"depth": 2}  # the default keeps them

    class KeepsThemItself(Listener):  # the natural override, without super()
        def configure(self, options: dict[str, Any]) -> None:
            self.options = {"depth": 1, **options}

    own = KeepsThemItself()
    code, _ = run(own, [messages.hello(options={"width": 3})])
    assert code == 0 and own.options == {"depth": 1, "width": 3}


def test_a_bad_option_fails_the_start_with_its_message(tmp_path: Path) -> None:
    bot = tmp_path / "strict.py"
    bot.write_text("from arena.sdk import Bot\nclass S(Bot):\n    def act(self, r):\n"
                   "        return 0\n    def configure(self, options):\n"
                   "        raise ValueError(f'unknown option {sorted(options)[0]!r}')\n")
    done = runner(bot, [messages.hello(options={"depht": 2})])
    assert done.returncode == 1 and done.stdout == b""  # no 'ready': a start-up failure
    assert done.stderr.decode().strip().splitlines()[-1] == \
        "ValueError: unknown option 'depht'"


def test_end_of_input_is_a_clean_exit() -> None:
    assert run(Listener(), [messages.hello()])[0] == 0


def test_default_name_and_dates_as_dates() -> None:
    import datetime as dt

    class Plain(Bot):
        last_book_finished = dt.date(2026, 10, 2)

    assert Plain().metadata() == {"name": "Plain", "last_book_finished": "2026-10-02"}
    with pytest.raises(NotImplementedError, match="Plain must implement act"):
        Plain().act(Request(0, "turn", {}, []))


def test_find_bot_class(tmp_path: Path) -> None:
    file = tmp_path / "two.py"
    file.write_text(textwrap.dedent("""
        from arena.sdk import Bot
        class Base(Bot):
            def act(self, request):
                return 0
        class Refined(Base):
            pass
        class Other(Bot):
            def act(self, request):
                return 0
    """))
    # the file's name alone (the sandbox's /bot/two.py is no path of the author's), no helper
    # module (a single-file bot is copied alone), and the command whole within 200 characters
    with pytest.raises(BotLoadError, match=r"^several Bot subclasses in two.py: keep one, or "
                                           r"name one in a bot directory's bot.yaml: command: "
                                           r"\[python3, -m, arena.sdk.runner, two.py, --class, "
                                           r"Base\]; found Base, Other, Refined$"):
        load_bot(file)
    assert type(load_bot(file, "Other")).__name__ == "Other"
    with pytest.raises(BotLoadError, match=r"^no Bot subclass named 'Nope' in two.py \(found: "
                                           r"Base, Other, Refined\)$"):
        load_bot(file, "Nope")
    with pytest.raises(BotLoadError, match=r"^no Bot subclass named 'Othr' in two.py \(did you "
                                           r"mean 'Other'\?\) \(found: Base, Other, Refined\)$"):
        load_bot(file, "Othr")
    leaf = tmp_path / "leaf.py"
    leaf.write_text(file.read_text().split("class Other")[0])
    assert type(load_bot(leaf)).__name__ == "Refined"
    empty = tmp_path / "empty.py"
    empty.write_text("from arena.sdk import Bot\n")
    with pytest.raises(BotLoadError, match=r"^no subclass of arena.sdk.Bot defined in empty.py "
                                           r"\(a program that speaks the protocol itself"):
        load_bot(empty)
    # the usual slip, `class MyBot:` without `(Bot)`, is named
    plain = tmp_path / "plain.py"
    plain.write_text("class MyBot:\n    def act(self, request):\n        return 0\n")
    with pytest.raises(BotLoadError, match=r"^no subclass of arena.sdk.Bot defined in plain.py: "
                                           r"class MyBot has an act\(\) but does not subclass "
                                           r"it \(write class MyBot\(Bot\)\)$"):
        load_bot(plain)
    bare = tmp_path / "bare.py"
    bare.write_text("def act(request):\n    return 0\n")
    with pytest.raises(BotLoadError, match=r"^no subclass of arena.sdk.Bot defined in bare.py: "
                                           r"act\(\) is a function of the module; the kit calls "
                                           r"the act\(self, request\) of a class MyBot\(Bot\)$"):
        load_bot(bare)
    with pytest.raises(BotLoadError, match="not found"):
        load_bot(tmp_path / "absent.py")
    assert find_bot_class(sys.modules[__name__], "Listener") is Listener


def test_a_bot_the_kit_cannot_load_is_a_bot_error(tmp_path: Path) -> None:
    """In-process loaders (the learning opponents, the benchmarks) pass it on as it is, and
    the command line says it in one ``Error:`` line."""
    with pytest.raises(BotError, match="not found"):
        load_bot(tmp_path / "absent.py")


def runner(path: Path, lines: list[bytes], cwd: Path | None = None
           ) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "arena.sdk.runner", str(path)],
                          input=b"".join(lines), capture_output=True, timeout=60, env=env,
                          cwd=cwd or path.parent)


def test_runner_process_keeps_prints_off_the_protocol(tmp_path: Path) -> None:
    bot = tmp_path / "chatty.py"
    bot.write_text(textwrap.dedent("""
        import os
        from arena.sdk import Bot
        print("loading")
        class Chatty(Bot):
            def act(self, request):
                print("thinking")
                os.write(1, b"raw fd 1\\n")
                self.log("logged")
                return 0
    """))
    done = runner(bot, [messages.hello(), messages.act(0, "turn", {}, [{"a": 1}]),
                        messages.bye()])
    assert done.returncode == 0
    assert [json.loads(x)["type"] for x in done.stdout.splitlines()] == ["ready", "action"]
    assert done.stderr.decode().split() == ["loading", "thinking", "raw", "fd", "1", "logged"]


def test_runner_offers_and_dumps_its_stack_on_sigusr1(tmp_path: Path) -> None:
    """What the referee relies on at a timeout: the ready says it, the dump names the line."""
    bot = tmp_path / "loop.py"
    bot.write_text("from arena.sdk import Bot\n\n\nclass Loop(Bot):\n"
                   "    def act(self, request):\n        self.log('in act')\n"
                   "        while True: pass\n")  # one line: the loop is at it
    proc = subprocess.Popen([sys.executable, "-m", "arena.sdk.runner", str(bot)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(messages.hello() + messages.act(0, "turn", {}, [{"a": 1}]))
        proc.stdin.flush()
        ready = json.loads(proc.stdout.readline())
        assert ready["stack_dump"] is True and validate(ready) == []
        assert proc.stderr.readline() == b"in act\n"  # about to loop
        stuck = f'  File "{bot}", line 7 in act\n'
        for _ in range(50):  # the first may come while log() still returns
            proc.send_signal(signal.SIGUSR1)
            lines = [proc.stderr.readline().decode()]
            while "_run_module_as_main" not in lines[-1]:
                assert lines[-1], f"the runner ended ({proc.wait()}) at SIGUSR1: {lines}"
                lines.append(proc.stderr.readline().decode())
            if stuck in lines:
                break
        assert stuck in lines, lines
        assert proc.poll() is None, "the dump does not end the bot"
    finally:
        proc.kill()
        proc.wait()


def test_a_module_named_like_the_stdlib_does_not_shadow_it(tmp_path: Path) -> None:
    done = runner(ROOT / "bots" / "random.py",
                  [messages.hello(), messages.act(0, "turn", {}, [{"a": 1}, {"b": 2}]),
                   messages.bye()], cwd=ROOT / "bots")
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout.splitlines()[1])["choice"] in (0, 1)


def test_runner_reports_bot_errors(tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("from arena.sdk import Bot\nclass B(Bot):\n    def act(self, r):\n"
                   "        return 1 // 0\n")
    done = runner(bot, [messages.hello(), messages.act(0, "turn", {}, [{"a": 1}])])
    assert done.returncode == 1
    assert "[runner] the bot raised:" in done.stderr.decode()
    assert "ZeroDivisionError" in done.stderr.decode()
    syntax = tmp_path / "syntax.py"
    syntax.write_text("def (:\n")
    done = runner(syntax, [messages.hello()])
    assert done.returncode == 2 and "loading" in done.stderr.decode()
    usage = subprocess.run([sys.executable, "-m", "arena.sdk.runner"], capture_output=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert usage.returncode == 2 and b"usage:" in usage.stderr


def test_a_bot_whose_init_wants_arguments_is_told_in_one_line(tmp_path: Path) -> None:
    bot = tmp_path / "deep.py"
    bot.write_text("from arena.sdk import Bot\nclass Deep(Bot):\n    def __init__(self, depth):\n"
                   "        self.depth = depth\n    def act(self, r):\n        return 0\n")
    done = runner(bot, [messages.hello()])
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        "[runner] Deep() needs arguments (Deep.__init__() missing 1 required positional "
        "argument: 'depth'): the runner passes none; settings reach configure(options)"]
    inside = tmp_path / "inside.py"  # a TypeError of the bot's own __init__: its traceback
    inside.write_text("from arena.sdk import Bot\nclass Inside(Bot):\n    def __init__(self):\n"
                      "        len(5)\n    def act(self, r):\n        return 0\n")
    done = runner(inside, [messages.hello()])
    assert done.returncode == 2 and 'inside.py", line 4, in __init__' in done.stderr.decode()


@pytest.mark.parametrize("name", ["greedy", "collector"])
def test_sample_strategies_beat_random(name: str) -> None:
    wins = losses = 0
    for game in range(30):
        seat = game % 2
        agents: list[Any] = [RandomAgent(game), RandomAgent(game + 100)]
        agents[seat] = BotAgent(load_bot(ROOT / "bots" / f"{name}.py"))
        places = play_game(GameConfig(players=("a", "b"), seed=game, starting_seat=game % 2),
                           agents).result.placements  # type: ignore[union-attr]
        wins += places[seat] < places[1 - seat]
        losses += places[seat] > places[1 - seat]
    assert wins > 2 * losses, (wins, losses)


def test_bot_agent_falls_back_to_the_safe_default_and_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    class Wild(Bot):
        def act(self, request: Request) -> Any:
            return None if request.id % 2 else 99

    agent = BotAgent(Wild())
    state = play_game(GameConfig(players=("a", "b"), seed=1), [agent, RandomAgent(1)])
    mine = [index for seat, _, index in state.choices if seat == 0]
    assert mine and all(index == 0 for index in mine)
    assert agent.invalid_answers == agent.next_id > 3  # every answer was counted as invalid
    logged = capsys.readouterr().err.splitlines()  # the first three, not one per decision
    assert len(logged) == 3
    assert logged[0].startswith("[BotAgent] act() returned 99 (int), not an index into the ")
    assert logged[1].startswith("[BotAgent] act() returned None (NoneType), not an index ")
    assert logged[2].endswith("option 0 played (the referee would count a strike) (further "
                              "ones are only counted in invalid_answers)")


def test_a_sandboxed_game_of_random_bots_replays_in_process_from_its_record() -> None:
    """The record keeps the bot_seed each bot was sent: with it, BotAgent makes the same
    random choices in-process as the bot did in the sandbox."""
    import datetime as dt

    from arena.referee.match import MatchRequest, play_match
    from arena.registry import resolve
    from arena.sandbox import Limits, probe

    if not probe().can_run:
        pytest.skip("bots cannot run on this machine")
    random_bot = ROOT / "bots" / "random.py"
    outcome = play_match(MatchRequest(bots=[resolve(random_bot), resolve(random_bot)], games=2,
                                      seed=5, limits=Limits(),
                                      event_date=dt.date(2026, 11, 30)))
    for game in outcome.games:
        record = game.record
        seeds = record["referee"]["bot_seeds"]
        assert len(set(seeds)) == 2
        agents = [BotAgent(load_bot(random_bot), bot_seeds=[seeds[seat]]) for seat in (0, 1)]
        replayed = play_game(GameConfig.from_json(record["config"]), agents)
        assert [list(c) for c in replayed.choices] == record["choices"]


def test_bot_agent_hands_options_to_configure_as_hello_does() -> None:
    class Deep(Bot):
        def configure(self, options: dict[str, Any]) -> None:
            if set(options) - {"depth"}:
                raise ValueError(f"unknown option(s): {sorted(set(options) - {'depth'})}")
            super().configure(options)

        def act(self, request: Request) -> int:
            return min(self.options.get("depth", 0), len(request.legal) - 1)

    assert BotAgent(Deep(), options={"depth": 2}).bot.options == {"depth": 2}
    assert BotAgent(Deep()).bot.options == {}
    with pytest.raises(ValueError, match=r"unknown option\(s\): \['width'\]"):
        BotAgent(Deep(), options={"width": 3})


def test_bot_agent_keeps_the_options_of_a_bot_given_configured() -> None:
    """A bot configured before it is handed over keeps its options (an environment makes an
    agent every episode); one never configured is configured with none once, as the
    sandboxed kit does before the first game; options given are handed over again."""
    class Counting(Bot):
        def __init__(self) -> None:
            self.configured: list[dict[str, Any]] = []

        def configure(self, options: dict[str, Any]) -> None:
            super().configure(options)
            self.configured.append(dict(options))

        def act(self, request: Request) -> int:
            return 0

    tuned = Counting()
    tuned.configure({"depth": 3})
    for _ in range(2):
        assert BotAgent(tuned).bot.options == {"depth": 3}
    assert tuned.configured == [{"depth": 3}]
    fresh = Counting()
    BotAgent(fresh)
    BotAgent(fresh)
    assert fresh.configured == [{}]
    assert BotAgent(tuned, options={"depth": 1}).bot.options == {"depth": 1}
    assert tuned.configured == [{"depth": 3}, {"depth": 1}]


def test_bot_agent_knows_a_bot_configured_by_an_override_that_keeps_its_own_settings(
        ) -> None:
    """An override not calling super().configure left the bot looking never configured:
    every new agent configured it again with none, losing its settings."""
    class Own(Bot):
        def __init__(self) -> None:
            self.depth = 1
            self.calls = 0

        def configure(self, options: dict[str, Any]) -> None:
            self.depth = int(options.get("depth", 1))
            self.calls += 1

        def act(self, request: Request) -> int:
            return 0

    tuned = Own()
    tuned.configure({"depth": 3})
    BotAgent(tuned)
    BotAgent(tuned)
    assert (tuned.depth, tuned.calls) == (3, 1)
    fresh = Own()
    BotAgent(fresh)
    BotAgent(fresh)
    assert (fresh.depth, fresh.calls) == (1, 1)


def test_bot_agent_configures_a_bot_whose_options_were_only_read() -> None:
    """Reading bot.options before any configure made the bot look configured: the agent
    then skipped the configure({}) the sandboxed kit calls before the first game."""
    class Reading(Bot):
        def __init__(self) -> None:
            self.calls: list[dict[str, Any]] = []

        def configure(self, options: dict[str, Any]) -> None:
            super().configure(options)
            self.calls.append(dict(options))

        def act(self, request: Request) -> int:
            return 0

    bot = Reading()
    assert bot.options == {}
    BotAgent(bot)
    BotAgent(bot)
    assert bot.calls == [{}]


def test_bot_agent_follows_games_as_the_runner_does() -> None:
    """In-process, a kit bot gets what the sandboxed runner gives it: a reseeded rng and
    on_game_start per game, every event of its seat once and in order, on_game_end with the
    result after the game's last events."""

    class Follower(Listener):
        def on_game_start(self, game: GameStart) -> None:
            self.seat = game.seat  # state set here is there in act
            self.calls.append(game)

        def act(self, request: Request) -> int:
            assert request.seat == self.seat
            self.calls.append(request)
            return self.rng.randrange(len(request.legal))

    def games(seed: int) -> tuple[Follower, list[Any]]:
        bot = Follower()
        agent = BotAgent(bot, seed=seed)
        states = [play_game(GameConfig(players=("me", "rnd"), seed=g),
                            [agent, RandomAgent(g)]) for g in (5, 6)]
        return bot, states

    bot, states = games(3)
    starts = [c for c in bot.calls if isinstance(c, GameStart)]
    ends = [c for c in bot.calls if isinstance(c, GameEnd)]
    assert [s.game for s in starts] == [0, 1] and [e.game for e in ends] == [0, 1]
    for number, state in enumerate(states):
        begin = bot.calls.index(starts[number])
        stop = bot.calls.index(ends[number])
        game_calls = bot.calls[begin + 1:stop]
        events = [c for c in game_calls if isinstance(c, dict)]
        assert events == state.events_for(0)  # every event of the seat, once, in order
        assert ends[number].placements == list(state.result.placements)
        assert ends[number].standing_places == state.result.standing_places
        assert ends[number].raw["standing_places"] == state.result.standing_places
        assert starts[number].players == ["me", "rnd"] and starts[number].bot_seed is not None
    again, replayed = games(3)  # the same seed: the bot's random choices replay
    assert [s.choices for s in replayed] == [s.choices for s in states]
    assert [s.bot_seed for s in starts] == [c.bot_seed for c in again.calls
                                            if isinstance(c, GameStart)]
    other, _ = games(4)
    assert [s.bot_seed for s in starts] != [c.bot_seed for c in other.calls
                                            if isinstance(c, GameStart)]


def test_bot_agent_tells_a_game_replayed_alone_its_index_in_the_match() -> None:
    """A match's fourth game replayed alone is game 3 to the bot, as the referee told it,
    with the bot_seed given for the first game the agent plays."""
    bot = Listener()
    play_game(GameConfig(players=("me", "rnd"), seed=5),
              [BotAgent(bot, first_game=3, bot_seeds=[77]), RandomAgent(5)])
    starts = [c for c in bot.calls if isinstance(c, GameStart)]
    ends = [c for c in bot.calls if isinstance(c, GameEnd)]
    assert [(s.game, s.bot_seed, s.raw["game"]) for s in starts] == [(3, 77, 3)]
    assert [(e.game, e.raw["game"]) for e in ends] == [(3, 3)]


def test_rng_takes_only_a_random_random_which_the_kit_can_reseed() -> None:
    """A bot that puts another generator in ``self.rng`` (a numpy Generator, as the docs'
    package example once did) is told so where it does it, not with an AttributeError from
    inside the kit when the next game reseeds it."""

    class Mine(random.Random):
        pass

    class NotRandom:
        def random(self) -> float:
            return 0.5

    bot = Listener()
    bot.rng = Mine(3)  # a subclass is a random.Random: reseeded like one
    bot.seed(7)
    assert bot.rng.random() == random.Random(7).random()
    with pytest.raises(TypeError, match=r"^self\.rng must be a random\.Random \(the kit reseeds "
                       r"it at every game start\), not NotRandom: keep yours under another "
                       r"name, e.g\. self\.np_rng$"):
        bot.rng = NotRandom()  # type: ignore[assignment]


def test_the_docs_package_example_plays_several_games() -> None:
    """The bot of docs/BOTS.md, "Using packages", as the reader copies it: it keeps its numpy
    generator beside the kit's rng, so every game after the first starts."""
    np = pytest.importorskip("numpy")
    text = (ROOT / "docs" / "BOTS.md").read_text(encoding="utf-8")
    source = text.split("```python\n# mybot/bot.py\n", 1)[1].split("```", 1)[0]
    space: dict[str, Any] = {"np": np}
    exec(compile(source, "BOTS.md", "exec"), space)  # noqa: S102 - the docs' own example
    agent = BotAgent(space["MyBot"]())
    for game in range(3):
        play_game(GameConfig(players=("me", "rnd"), seed=game), [agent, RandomAgent(game)])
    assert agent.invalid_answers == 0


def test_the_readme_bot_plays_and_enters_the_shipped_league(tmp_path: Path) -> None:
    """README.md's "Writing a bot", saved as my_bot.py as the reader is told: its games are
    legal, and the name it is registered under is one the shipped league enters."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (tmp_path / "my_bot.py").write_text(text.split("```python\n", 1)[1].split("```", 1)[0])
    assert "arena submit my_bot.py" in text and "tournaments/league.yaml" in text
    league = yaml.safe_load((ROOT / "tournaments" / "league.yaml").read_text(encoding="utf-8"))
    name = spec_from_path(tmp_path / "my_bot.py").name
    assert any(fnmatch.fnmatchcase(name, entry) for entry in league["bots"]), name
    agent = BotAgent(load_bot(tmp_path / "my_bot.py"))
    for game in range(3):
        play_game(GameConfig(players=(name, "rnd"), seed=game), [agent, RandomAgent(game)])
    assert agent.invalid_answers == 0


# ---------------------------------------------------------------------------------------------
# an act is decoded only when the bot reads it


class Recorder(Bot):
    """Reads every field of each request (the first time through a lazy request)."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []
        self.types: list[type] = []

    def act(self, request: Request) -> int:
        self.types.append(type(request))
        self.seen.append((request.id, request.kind, request.seat, request.observation,
                          request.legal, request.time_ms, request.context))
        self.types.append(type(request))
        return len(request.legal) - 1


def _acts() -> list[bytes]:
    return [messages.game_start(0, 1, ["a", "b"], 0, 5),
            messages.event({"type": "draw", "seat": 1}),
            messages.act(3, "swap", {"hand": ["Crown"]}, [{"swap": None}, {"swap": "Crown"}],
                         700, {"round": 1}),
            messages.act(4, "rps", {"hand": []}, [{"throw": "rock"}, {"throw": "paper"}]),
            messages.act(10 ** 12, "turn", {"é": "\u2028"}, [{"a": [1, None, True]}], 5)]


def test_a_request_reads_like_the_act_it_came_from() -> None:
    bot = Recorder()
    code, answers = run(bot, [messages.hello(), *_acts(), messages.bye()])
    assert code == 0
    assert [(a["id"], a["choice"]) for a in answers[1:]] == [(3, 1), (4, 1), (10 ** 12, 0)]
    assert bot.seen == [
        (3, "swap", 1, {"hand": ["Crown"]}, [{"swap": None}, {"swap": "Crown"}], 700,
         {"round": 1}),
        (4, "rps", 1, {"hand": []}, [{"throw": "rock"}, {"throw": "paper"}], None, {}),
        (10 ** 12, "turn", 1, {"é": "\u2028"}, [{"a": [1, None, True]}], 5, {}),
    ]
    # the first is decoded when read; a bot that reads gets the later ones decoded at once
    assert bot.types == [LineRequest, LineRequest, *[Request] * 4]
    assert isinstance(bot.seen, list) and all(issubclass(t, Request) for t in bot.types)


def test_a_bot_that_reads_nothing_pays_no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[bytes] = []
    real = line_request_module.decode

    def counting(line: bytes) -> Any:
        decoded.append(line)
        return real(line)

    monkeypatch.setattr(line_request_module, "decode", counting)  # what a lazy request calls
    seen: list[Request] = []

    class Blind(Bot):
        def act(self, request: Request) -> int:
            seen.append(request)
            return 0

    code, answers = run(Blind(), [messages.hello(), *_acts(), messages.bye()])
    assert code == 0 and [a["id"] for a in answers[1:]] == [3, 4, 10 ** 12]
    assert decoded == [] and len(seen) == 3
    assert all(isinstance(r, LineRequest) and not r.decoded for r in seen)  # never decoded
    # the first read decodes it (once): every later read is a plain attribute read
    assert seen[0].legal and seen[0].decoded and len(decoded) == 1
    assert seen[0].observation and seen[0].time_ms == 700 and len(decoded) == 1


def test_a_field_the_bot_sets_before_reading_stays_its_own() -> None:
    class Editor(Bot):
        def act(self, request: Request) -> int:
            request.legal = [{"mine": True}]
            assert request.observation == {"hand": ["Crown"]}
            assert request.legal == [{"mine": True}] and request.context == {"round": 1}
            return 0

    assert run(Editor(), [*_acts()[:3], messages.bye()])[1] == [
        {"type": "action", "id": 3, "choice": 0}]


def test_a_broken_act_line_raises_when_the_bot_reads_it(tmp_path: Path) -> None:
    bot = tmp_path / "reader.py"
    bot.write_text("from arena.sdk import Bot\nclass R(Bot):\n    def act(self, r):\n"
                   "        return len(r.legal) - 1\n")
    broken = b'{"type":"act","id":1,"decision":"turn","observation":{oops}\n'
    done = runner(bot, [messages.hello(), broken])
    assert done.returncode == 1
    assert "[runner] the bot raised:" in done.stderr.decode()


def test_an_answer_that_is_not_an_int_is_a_strike_not_a_crash(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A forgotten ``return`` (None), a float or a bool goes out as no choice (the referee
    counts a protocol error) with the reason in the bot's log; an integer-like value (a numpy
    integer) goes out as its index. Both ways of answering (lazy and decoded) do the same."""

    class Index:
        def __index__(self) -> int:
            return 1

    class Sloppy(Bot):
        def __init__(self) -> None:
            self.returns: list[Any] = [None, 1.0, Index(), None, True, Index(), 1]

        def act(self, request: Request) -> Any:
            if len(self.returns) < 4:
                request.legal  # noqa: B018 - reading it switches the runner to decoding
            return self.returns.pop(0)

    acts = [messages.act(n, "swap", {"hand": ["Crown"]}, [{"swap": None}, {"swap": "Crown"}])
            for n in range(7)]
    read, write = os.pipe()
    code = serve(Sloppy(), io.BytesIO(b"".join([messages.hello(), *acts, messages.bye()])),
                 write)
    os.close(write)
    with os.fdopen(read, "rb") as out:
        answers = [json.loads(line) for line in out.read().splitlines()][1:]
    assert code == 0
    assert [a["choice"] for a in answers] == [None, None, 1, None, None, 1, 1]
    assert [a["id"] for a in answers] == list(range(7))
    log = capsys.readouterr().err.splitlines()
    where = f"test_sdk.py line {Sloppy.act.__code__.co_firstlineno}"
    assert log[0] == (f"[runner] act() ({where}) returned None (NoneType), not an int index "
                      "into request.legal: every way through act() must end in 'return "
                      "INDEX'; sent as no choice (a strike)")
    assert [line.split(" returned ")[1].split(",")[0] for line in log] == [
        "None (NoneType)", "1.0 (float)", "None (NoneType)", "True (bool)"]
    with pytest.raises(ProtocolError, match="'action' needs an integer 'choice'"):
        messages.parse_action(json.dumps(answers[0]).encode(), 0, 2)


def test_bot_agent_names_the_house_rules_in_game_start_as_the_referee_does() -> None:
    rules = HouseRules(kinds="family")
    for given, told in ((rules, {**DEFAULT_RULES.to_json(), "kinds": "family"}),
                        (DEFAULT_RULES, None)):
        bot = Listener()
        play_game(GameConfig(players=("a", "b"), seed=2, rules=given),
                  [BotAgent(bot, rules=given), RandomAgent(1)])
        starts = [c for c in bot.calls if isinstance(c, GameStart)]
        assert [s.raw.get("rules") for s in starts] == [told]


def test_bot_agent_without_event_tracking_starts_each_game_once() -> None:
    import enum

    class Pick(enum.IntEnum):
        LAST = 1

    class Counter(Listener):
        def act(self, request: Request) -> Any:
            self.calls.append(request)
            return Pick.LAST if len(request.legal) > 1 else 0  # integer-like, as numpy's

    bot = Counter()
    agent = BotAgent(bot)
    for seed in (3, 4):
        play_game(GameConfig(players=("a", "b"), seed=seed, track_events=False),
                  [agent, RandomAgent(1)])
    assert [c.game for c in bot.calls if isinstance(c, GameStart)] == [0, 1]
    ends = [c for c in bot.calls if isinstance(c, GameEnd)]
    assert [e.game for e in ends] == [0, 1] and agent.invalid_answers == 0
    assert ends[1].raw == {"type": "game_end", "game": 1, "placements": ends[1].placements,
                           "desmos": ends[1].desmos, "ascension": ends[1].ascension,
                           "tiebreak": ends[1].tiebreak, "forfeits": {},
                           "standing_places": ends[1].placements}


def test_a_second_hello_begins_a_new_match_with_a_new_bot_instance() -> None:
    made: list[Listener] = []

    def new_bot() -> Listener:
        made.append(Listener())
        return made[-1]

    first = new_bot()
    game = [messages.game_start(0, 0, ["a", "b"], 0, 5),
            messages.act(1, "turn", {}, [{"action": "hold"}, {"action": "play"}]),
            messages.game_end(0, [1, 2], ["Pair", "Pair"], False, "none", {})]
    code, answers = run_with(first, [messages.hello(options={}), *game,
                                     messages.hello(options={}), *game, messages.bye()],
                             new_bot)
    assert code == 0
    assert [a["type"] for a in answers] == ["ready", "action", "ready", "action"]
    assert answers[0]["rematch"] is True and answers[2]["rematch"] is True
    # the second match is played by a new instance: nothing on self carries over
    assert len(made) == 2 and len(made[0].calls) == len(made[1].calls) == 3


def test_a_bot_that_declines_rematches_offers_none() -> None:
    class Alone(Listener):
        rematch = False

    code, answers = run_with(Alone(), [messages.hello(), messages.bye()], Alone)
    assert code == 0 and answers == [{"type": "ready", "protocol": 1, "name": "listener",
                                      "author": "Ann", "last_read_page": "2026-11-20"}]
    # without a way to make a new instance (serve's default) no rematch is offered either
    code, answers = run(Listener(), [messages.hello(), messages.bye()])
    assert "rematch" not in answers[0]


def run_with(bot: Bot, lines: list[bytes],
             new_bot: Any) -> tuple[int, list[dict[str, Any]]]:
    read, write = os.pipe()
    code = serve(bot, io.BytesIO(b"".join(lines)), write, new_bot=new_bot)
    os.close(write)
    with os.fdopen(read, "rb") as out:
        answers = [json.loads(line) for line in out.read().splitlines()]
    for answer in answers:
        assert validate(answer) == []
    return code, answers


@pytest.mark.parametrize("odd", [
    {"forfeits": [1]}, {"forfeits": {"x": "crash"}}, {"placements": None}, {"placements": 5},
    {"game": "x"}, {"desmos": None}, {"standing_places": [1]},
    {"standing_places": [{"a": 1}, "b", None]}, {"placements": ["1", "2", "3"]},
], ids=repr)
def test_an_odd_game_end_never_crashes_the_bot(odd: dict[str, Any]) -> None:
    """A field of another type counts as missing, as the kit promises for a missing one (a
    referee of another implementation, a test harness): the kit's own code raised, and the
    bot crashed before its on_game_end; standing places that are no place for each seat are
    computed from the placements and forfeits."""
    sent = json.loads(messages.game_end(0, [1, 2, 2], ["Pair"] * 3, False, "none",
                                        {1: "crash", 2: "timeout"}, [1, 3, 3]))
    bot = Listener()
    run(bot, [messages.hello({}), messages.game_start(0, 0, ["a", "b", "c"], 0, 5),
              json.dumps({**sent, **odd}).encode() + b"\n",
              json.dumps({"type": "game_start", "game": "x", "seat": None}).encode() + b"\n",
              messages.bye()])
    [end] = [call for call in bot.calls if isinstance(call, GameEnd)]
    assert len(end.standing_places) == len(end.placements)
    assert all(isinstance(place, int) for place in end.standing_places)
    if "placements" not in odd and "forfeits" not in odd:
        assert end.standing_places == [1, 3, 3]
    assert [call.seat for call in bot.calls if isinstance(call, GameStart)] == [0, -1]


def test_an_in_process_bot_is_told_no_category_an_ascension_left_hidden() -> None:
    # as the referee sends it: its own category and the ascender's, None for the others
    state = ascending_at_once(GameConfig(players=("a", "b", "c"), seed=3))
    assert state.decision is not None
    ascender = state.decision.seat
    state.apply(trap_a_non_god(state.decision.options))
    assert state.result is not None and state.result.ascension
    seat = (ascender + 1) % 3

    class Ended(Bot):
        ends: list[GameEnd] = []

        def act(self, request: Request) -> int:
            return 0

        def on_game_end(self, result: GameEnd) -> None:
            self.ends.append(result)

    bot = Ended()
    BotAgent(bot).game_over(state, seat)
    shown = [state.result.desmos[s] if s in (seat, ascender) else None for s in range(3)]
    assert bot.ends[0].desmos == shown and bot.ends[0].raw["desmos"] == shown
