"""The local worker pool's signal handling: a Ctrl-C is the parent's to handle, always.

The checks run in a fresh interpreter: a process-directed signal may be taken by any thread
that does not block it, and the test process holds threads of other tests."""

from __future__ import annotations

import importlib
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from tournament_fixtures import _repo_cwd, write_spec  # noqa: F401 - _repo_cwd: autouse

from arena.sandbox import probe
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")


#: Code for run(): ``table(round, index)``, a one-game table of two random bots.
RANDOM_TABLES = """
        import datetime as dt, os, signal
        from arena.registry import resolve
        from arena.tournament.pool import LocalPool
        from arena.tournament.tasks import DoneMessage, TableTask

        spec = resolve("random")
        def table(round_no, index):
            return TableTask(tournament="t", round=round_no, table=index, bots=(spec, spec),
                             bot_ids=(1, 2), games=1, seed=10 * round_no + index, limits={},
                             event_date=dt.date(2026, 1, 1))
"""


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_ctrl_c_while_a_worker_starts_reaches_the_parent() -> None:
    """The worker starts ignoring SIGINT (the parent stops workers in order), and the
    parent still gets a Ctrl-C that lands while it starts one, also with a helper thread
    started under sigint_blocked (the progress bar's); ignoring the signal in the parent
    for that instant used to drop it."""
    out = run("""
        import multiprocessing.process, os, signal, threading, time
        from arena.tournament.pool import LocalPool, sigint_blocked

        got = []
        signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
        with sigint_blocked():
            threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        start = multiprocessing.process.BaseProcess.start

        def interrupted_start(self):
            os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, mid-spawn
            start(self)

        multiprocessing.process.BaseProcess.start = interrupted_start
        pool = LocalPool(2)
        workers = [pool._spawn(), pool._spawn()]  # the first also starts the tracker
        status = open(f"/proc/{workers[1].process.pid}/status").read()
        ignored = int(next(l for l in status.splitlines() if l.startswith("SigIgn:"))
                      .split()[1], 16)
        print(len(got), bool(ignored & (1 << (signal.SIGINT - 1))),
              signal.getsignal(signal.SIGINT) is not signal.SIG_IGN,
              signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))
        pool.close(kill=True)
    """)
    assert out == "2 True True False"


def test_sigint_blocked_leaves_the_main_thread_as_it_was() -> None:
    out = run("""
        import signal, threading
        from arena.tournament.pool import sigint_blocked

        seen = {}
        def report():
            seen["blocked"] = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
        with sigint_blocked():
            inside = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
            thread = threading.Thread(target=report)
            thread.start()
            thread.join()
        after = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
        print(inside, seen["blocked"], after)
    """)
    assert out == "True True False"


def test_a_worker_killed_between_rounds_is_replaced() -> None:
    """A worker that dies idle (between two Swiss rounds) is found dead when the next round
    is handed out: its tables go to a new worker. Sending on its broken pipe used to end
    the run with exit code 1 and no message."""
    out = run(RANDOM_TABLES + """
        done = []
        pool = LocalPool(2)
        try:
            keep = lambda m: done.append(m.key) if isinstance(m, DoneMessage) else None
            pool.run([table(1, 0), table(1, 1)], keep)
            victim = pool._workers[0].process
            os.kill(victim.pid, signal.SIGKILL)
            victim.join(30)
            pool.run([table(2, 0), table(2, 1)], keep)
            print(sorted(done), len(pool._workers),
                  all(w.process.is_alive() for w in pool._workers))
        finally:
            pool.close()
    """)
    assert out == "[(1, 0), (1, 1), (2, 0), (2, 1)] 2 True"


def test_a_table_whose_worker_dies_mid_table_is_played_again_by_another() -> None:
    """A worker killed while it plays a table (its first games already sent) is dropped,
    and the table goes back to the queue: every table ends, once."""
    code = RANDOM_TABLES.replace("games=1,", "games=40 if (round_no, index) == (1, 0) else 1,")
    out = run(code + """
        from arena.tournament.tasks import GameBatch

        done, killed = [], []
        pool = LocalPool(2)

        def keep(message):
            if isinstance(message, DoneMessage):
                done.append(message.key)
            games = message.games if isinstance(message, GameBatch) else []
            if not killed and any(game.key == (1, 0) for game in games):
                worker = next(w for w in pool._workers
                              if w.task is not None and w.task.key == (1, 0))
                killed.append(worker.task.key)
                os.kill(worker.process.pid, signal.SIGKILL)
        try:
            pool.run([table(1, 0), table(1, 1), table(1, 2)], keep)
            print(sorted(done), killed)
        finally:
            pool.close()
    """)
    assert out == "[(1, 0), (1, 1), (1, 2)] [(1, 0)]"


def test_workers_take_the_parents_sandbox_probe_instead_of_probing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner hands its probe to the workers it spawns (a probe takes a second or more
    per process): a report marked in the parent is the one the tables are recorded with."""
    real = probe()
    marked = replace(real, level=real.level + "+handed")
    monkeypatch.setattr(importlib.import_module("arena.tournament.runner"), "probe",
                        lambda: marked)
    db = tmp_path / "a.db"
    summary = run_tournament(load_spec(write_spec(tmp_path / "spec.yaml", db, rounds=1,
                                                  games_per_match=1)), 2, trial=False)
    assert summary.state == "finished"
    with sqlite3.connect(db) as conn:
        levels = {row[0] for row in conn.execute("SELECT sandbox_level FROM tables")}
    assert levels == {marked.level}


def test_a_workers_games_reach_the_parent_once_in_order_before_its_table_ends() -> None:
    """A worker holds finished games briefly and sends them together (one wake-up and one
    transaction of the parent for several games): every game arrives once, in order, and
    all of them before the table's DoneMessage."""
    out = run("""
        import datetime as dt
        from arena.registry import resolve
        from arena.tournament.pool import LocalPool
        from arena.tournament.tasks import DoneMessage, GameBatch, GameMessage, TableTask

        spec = resolve("random")
        task = TableTask(tournament="t", round=1, table=0, bots=(spec, spec), bot_ids=(1, 2),
                         games=6, seed=5, limits={}, event_date=dt.date(2026, 1, 1))
        seen = []
        def note(message):
            games = message.games if isinstance(message, GameBatch) else [message]
            for m in games:  # (a warning logged in the worker may come between)
                if isinstance(m, GameMessage | DoneMessage):
                    seen.append(m.row["game_index"] if isinstance(m, GameMessage) else "done")
        pool = LocalPool(1)
        try:
            pool.run([task], note)
        finally:
            pool.close()
        print(seen)
    """)
    assert out == "[0, 1, 2, 3, 4, 5, 'done']"


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_pinned_workers_each_keep_a_cpu_and_a_replacement_takes_the_dead_ones() -> None:
    out = run(RANDOM_TABLES + """
        def cpus(worker):
            return os.sched_getaffinity(worker.process.pid)
        pool = LocalPool(2, pin_workers=True)
        try:
            pool.run([table(1, 0), table(1, 1)], lambda message: None)
            before = [cpus(w) for w in pool._workers]
            victim = pool._workers[0]
            os.kill(victim.process.pid, signal.SIGKILL)
            victim.process.join(30)
            pool.run([table(2, 0), table(2, 1)], lambda message: None)
            after = sorted(map(sorted, (cpus(w) for w in pool._workers)))
            print(sorted(map(sorted, before)) == [[pool.cores[0]], [pool.cores[1]]],
                  after == sorted(map(sorted, before)),
                  victim not in pool._workers)
        finally:
            pool.close()
    """)
    assert out == "True True True"


def test_a_duplicate_deal_on_two_workers_plays_each_seating_on_its_own_the_same_games() -> None:
    """With fewer than two deals a worker, each seating of a deal is a task of its own, the
    replay handed out once the first seating has ended, with every board's start: the same
    games as one worker playing the deal, each table done on its own. The first seating's
    worker killed mid-deal: its replacement plays it again, the replay then follows, and
    every game still arrives, unchanged."""
    out = run("""
        import datetime as dt, json, os, signal
        from arena.registry import resolve
        from arena.tournament.pool import LocalPool
        from arena.tournament.tasks import DoneMessage, GameBatch, GameMessage, TableTask

        bots = (resolve("greedy"), resolve("collector"))
        task = TableTask(tournament="t", round=1, table=0, bots=bots, bot_ids=(1, 2),
                         games=120, seed=7, limits={}, event_date=dt.date(2026, 1, 1),
                         duplicate="rotations", seatings=((0, (1, 2)), (1, (2, 1))))

        def play(workers, kill=False):
            rows, done = {}, []
            pool = LocalPool(workers)
            def note(message):
                games = message.games if isinstance(message, GameBatch) else [message]
                for m in games:
                    if isinstance(m, DoneMessage):
                        done.append([list(m.key), list(m.also)])
                    elif isinstance(m, GameMessage):
                        key = m.row["id"]
                        row = [m.row[k] for k in ("seed", "starting_seat", "placements",
                                                  "seats", "decisions")]
                        assert rows.setdefault(key, row) == row, (key, row, rows[key])
                        if kill and m.row["table_index"] == 0 and len(rows) >= 2:
                            kill.clear()  # once
                            first = next(w for w in pool._workers
                                 if w.task is not None and w.task.key == (1, 0))
                            os.kill(first.process.pid, signal.SIGKILL)
            try:
                pool.run([task], note)
            finally:
                pool.close()
            return rows, sorted(done), pool._attempts.get((1, 0))

        one, one_done, _ = play(1)
        two, two_done, _ = play(2)
        killed, killed_done, attempts = play(2, kill=[True])
        print(json.dumps([len(one), one == two == killed, one_done, two_done, killed_done,
                          attempts]))
    """)
    assert json.loads(out) == [240, True, [[[1, 0], [1]]], [[[1, 0], []], [[1, 1], []]],
                               [[[1, 0], []], [[1, 1], []]], 2]


@pytest.mark.parametrize("changed", [False, True])
def test_a_bot_is_restarted_mid_table_only_while_its_files_are_its_versions(
        monkeypatch: pytest.MonkeyPatch, changed: bool) -> None:
    """A bot that dies after each game is restarted for the next one; were its files
    changed since the table began, the restart would run other code under its version's
    name, so the table stops with one line instead, its games so far sent."""
    import datetime as dt

    import arena.referee.match
    from arena.registry import files_unchanged, resolve
    from arena.tournament.tasks import DoneMessage, ErrorMessage, GameMessage, TableTask
    from arena.tournament.worker import play_table

    crasher = resolve(str(Path(__file__).resolve().parents[1] / "fixtures" / "bots"
                          / "end_crasher.py"))
    checked: list[str] = []

    def check(bot: object) -> bool:
        checked.append(getattr(bot, "key", ""))
        return files_unchanged(bot) and not changed  # type: ignore[arg-type]

    monkeypatch.setattr(arena.referee.match, "files_unchanged", check)
    task = TableTask(tournament="t", round=1, table=0, bots=(crasher, resolve("random")),
                     bot_ids=(1, 2), games=3, seed=7, limits={},
                     event_date=dt.date(2026, 1, 1))
    messages: list[object] = []
    play_table(task, messages.append)
    games = [m for m in messages if isinstance(m, GameMessage)]
    assert checked and set(checked) == {crasher.key}  # only the restarted bot, at its restarts
    if not changed:
        assert len(games) == 3 and isinstance(messages[-1], DoneMessage)
        return
    assert [g.row["game_index"] for g in games] == [0]
    error = messages[-1]
    assert isinstance(error, ErrorMessage) and error.message == (
        f"table r1/t0: bot {crasher.key}: its files at {crasher.path} changed or went away "
        "since it entered, so it was not restarted; put them back to go on, or see "
        "docs/TOURNAMENTS.md for a bot updated mid-tournament")


@pytest.mark.parametrize("changed", [False, True])
def test_a_bot_edited_between_the_tables_check_and_its_copy_is_not_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: bool) -> None:
    """The table checks a bot's files, then the sandbox copies them for the launch: an author
    who edits them in between would run the edit under the checked version's name. The copy,
    what runs, is hashed: the table stops as for any bot whose files changed, no game
    played; an unchanged bot plays."""
    import datetime as dt

    import arena.sandbox.spawn
    from arena.registry import resolve
    from arena.tournament.tasks import DoneMessage, ErrorMessage, GameMessage, TableTask
    from arena.tournament.worker import play_table

    mine = tmp_path / "mine.py"
    mine.write_text(Path(resolve("random").path).read_text())
    bot = resolve(str(mine))
    real_copy = arena.sandbox.spawn.copy_bot

    def copy_bot(workdir: Path, dest: Path, gid: int | None,
                 only: frozenset[str] | None = None) -> str:
        if changed and workdir == mine:  # the author's edit, just after the table's check
            mine.write_text(mine.read_text() + "# edited\n")
        return real_copy(workdir, dest, gid, only)

    monkeypatch.setattr(arena.sandbox.spawn, "copy_bot", copy_bot)
    task = TableTask(tournament="t", round=1, table=0, bots=(bot, resolve("random")),
                     bot_ids=(1, 2), games=2, seed=7, limits={},
                     event_date=dt.date(2026, 1, 1))
    messages: list[object] = []
    play_table(task, messages.append)
    games = [m for m in messages if isinstance(m, GameMessage)]
    if not changed:
        assert len(games) == 2 and isinstance(messages[-1], DoneMessage)
        return
    assert games == []
    error = messages[-1]
    assert isinstance(error, ErrorMessage) and error.message == (
        f"table r1/t0: bot {bot.key}: its files at {bot.path} changed or went away "
        "since it entered, so it was not started; put them back to go on, or see "
        "docs/TOURNAMENTS.md for a bot updated mid-tournament")


def test_a_worker_exits_once_on_sigterm_and_never_inside_a_finaliser(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A runner killed with kill -9 sends each worker two SIGTERMs (PR_SET_PDEATHSIG's, then
    the parent watch's): the second must not cut short the first's cleanup, which reaps the
    bots, and one landing in a ``__del__`` (where Python drops an exception) is sent again."""
    import signal
    import time

    from arena.tournament import worker

    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(worker.os, "kill", lambda pid, signum: sent.append((pid, signum)))
    previous = signal.signal(signal.SIGTERM, worker._terminate)
    try:
        class Lost:
            def __del__(self) -> None:
                worker._terminate(signal.SIGTERM, sys._getframe())

        Lost()
        for _ in range(50):
            if sent:
                break
            time.sleep(0.02)
        assert sent == [(os.getpid(), signal.SIGTERM)]
        assert signal.getsignal(signal.SIGTERM) is worker._terminate
        with pytest.raises(SystemExit) as exiting:
            worker._terminate(signal.SIGTERM, sys._getframe())
        assert exiting.value.code == 143
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN  # the second: no exit again
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_warning_a_worker_logs_while_ending_its_kept_bots_reaches_the_run(
        tmp_path: Path) -> None:
    """Once the games are played, the workers end the bot processes they kept (``bye``,
    grace, kill) and send what they still have to say; a warning logged then (a kept bot's
    end, its cgroup) is the run's like any other: reported, and in its summary's warnings.
    The worker's warning is made by the script, which every spawned worker imports as its
    main module, so a real pool's real workers send it."""
    script = tmp_path / "noisy_workers.py"
    script.write_text(textwrap.dedent("""
        import logging, sys
        from arena.referee.keeper import BotKeeper

        SAID = "a kept bot did not end (said while the worker wound down)"
        ending = BotKeeper.close

        def ending_noisily(self):
            logging.getLogger("arena.referee.keeper").warning(SAID)
            ending(self)

        BotKeeper.close = ending_noisily

        if __name__ == "__main__":
            from arena.tournament.events import RunWarning
            from arena.tournament.runner import run_tournament
            from arena.tournament.spec_loading import load_spec

            events = []
            summary = run_tournament(load_spec(sys.argv[1]), 2, trial=False,
                                     report=events.append)
            reported = [e for e in events if isinstance(e, RunWarning) and e.text == SAID]
            print(summary.state, summary.warnings.count(SAID), len(reported))
    """))
    spec = write_spec(tmp_path / "spec.yaml", tmp_path / "a.db", bots=["random", "greedy"],
                      rounds=1, games_per_match=2)
    done = subprocess.run([sys.executable, str(script), str(spec)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["finished", "1", "1"]
