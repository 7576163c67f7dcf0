"""A duplicate deal's seatings on several local workers: never two seatings of a deal in play
at once (a bot's process holding one seat's cards of a deal must not run while another of its
processes plays the deal from another seat), and the same games as one worker."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from tournament_fixtures import _repo_cwd  # noqa: F401 - autouse

from arena.registry import resolve
from arena.tournament.boards import BoardRelay, split_seatings
from arena.tournament.tasks import TableTask

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")


def deal(table: int, first: str, second: str, games: int = 4) -> TableTask:
    """A two-seating duplicate deal of round 1 at tables ``table`` and ``table + 1``."""
    return TableTask(tournament="t", round=1, table=table, bots=(resolve(first), resolve(second)),
                     bot_ids=(table + 1, table + 2), games=games, seed=7 + table, limits={},
                     event_date=dt.date(2026, 1, 1), duplicate="rotations",
                     seatings=((table, (table + 1, table + 2)),
                               (table + 1, (table + 2, table + 1))))


def test_first_seatings_come_first_and_a_replay_waits_for_its_deals_to_end() -> None:
    tasks = split_seatings([deal(0, "greedy", "collector"), deal(2, "random", "heuristic")], 2)
    assert [(task.deal_key, task.seating) for task in tasks] == [
        ((1, 0), 0), ((1, 2), 0), ((1, 0), 1), ((1, 2), 1)]
    relay = BoardRelay()
    assert [relay.ready(task, ()) for task in tasks] == [True, True, False, False]
    relay.ended(tasks[1])
    assert [relay.ready(task, ()) for task in tasks] == [True, True, False, True]
    assert not relay.ready(tasks[3], [tasks[1]])  # a first seating told again, in play


def test_two_replays_of_a_deal_are_not_in_play_at_once() -> None:
    three = replace(deal(0, "greedy", "collector"), bots=tuple(resolve(b) for b in
                                                                ("greedy", "collector", "random")),
                    seatings=((0, (1, 2, 3)), (1, (2, 3, 1)), (2, (3, 1, 2))))
    first, *replays = split_seatings([three], 2)
    relay = BoardRelay()
    relay.ended(first)
    assert relay.ready(replays[0], []) and relay.ready(replays[1], [])
    assert not relay.ready(replays[1], [replays[0]])


def test_tables_dealt_the_same_deals_of_a_book_share_no_bot_in_play_or_kept() -> None:
    book = (101, 102)
    tables = [replace(deal(0, "greedy", "collector"), duplicate="none", seatings=(), deals=book),
              replace(deal(2, "greedy", "random"), duplicate="none", seatings=(), deals=book),
              replace(deal(4, "heuristic", "random"), duplicate="none", seatings=(),
                      deals=(103, 104))]
    tasks = split_seatings(tables, 2)
    relay = BoardRelay()
    assert not relay.ready(tasks[1], [tasks[0]])  # greedy would hold deal 101 twice
    assert relay.ready(tasks[2], [tasks[0]])
    assert [task.keep_bots for task in tasks] == [False, False, True]


def test_a_first_seating_keeps_its_processes_only_when_its_bots_play_no_other_deal() -> None:
    apart = split_seatings([deal(0, "greedy", "collector"), deal(2, "random", "heuristic")], 2)
    assert all(task.keep_bots for task in apart)
    # greedy plays both deals: its first seating's process, kept, could play the other deal
    # while this deal's replay is in play on the other worker
    shared = split_seatings([deal(0, "greedy", "collector"), deal(2, "greedy", "random")], 2)
    assert [(task.seating, task.keep_bots) for task in shared] == [
        (0, False), (0, False), (1, True), (1, True)]


def test_no_deal_has_two_seatings_in_play_at_once_on_two_workers() -> None:
    """The pool's own order of events: each replay is handed out only after its deal's first
    seating has sent its last game and ended; the games are those of one worker."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import datetime as dt, json
        from arena.registry import resolve
        from arena.tournament import pool as pool_module
        from arena.tournament.boards import BoardRelay
        from arena.tournament.tasks import DoneMessage, GameBatch, GameMessage, TableTask

        def deal(table, first, second):
            return TableTask(tournament="t", round=1, table=table,
                             bots=(resolve(first), resolve(second)),
                             bot_ids=(table + 1, table + 2), games=30, seed=7 + table,
                             limits={}, event_date=dt.date(2026, 1, 1), duplicate="rotations",
                             seatings=((table, (table + 1, table + 2)),
                                       (table + 1, (table + 2, table + 1))))

        events = []
        class Recording(BoardRelay):
            def handed(self, task):
                events.append(["handed", task.deal_key[1], task.seating])
                return super().handed(task)
        pool_module.BoardRelay = Recording

        def play(workers):
            rows = {}
            def note(message):
                for m in message.games if isinstance(message, GameBatch) else [message]:
                    if isinstance(m, DoneMessage):
                        events.append(["done", m.key[1]])
                    elif isinstance(m, GameMessage):
                        table = m.row["table_index"]
                        events.append(["game", table])
                        rows[m.row["id"]] = [m.row[k] for k in ("seed", "starting_seat",
                                                                  "placements", "decisions")]
            pool = pool_module.LocalPool(workers)
            try:
                pool.run([deal(0, "greedy", "collector"), deal(2, "random", "heuristic")],
                         note)
            finally:
                pool.close()
            return rows

        one = play(1)
        events.clear()
        two = play(2)
        print(json.dumps([len(one), one == two, events]))
    """)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    games, same, events = json.loads(out.stdout)
    assert games == 120 and same
    handed = [(e[1], e[2]) for e in events if e[0] == "handed"]
    assert sorted(handed) == [(0, 0), (0, 1), (2, 0), (2, 1)]  # each seating a task
    for first in (0, 2):
        replay = events.index(["handed", first, 1])
        ended = events.index(["done", first])
        assert ended < replay, f"deal {first}: its replay was handed out before its end"
        assert ["game", first] not in events[replay:], "a first seating's game after its replay"
        assert ["game", first + 1] not in events[:replay], "a replay's game before its hand-out"


def test_tables_of_a_books_same_deals_with_a_bot_in_common_follow_each_other() -> None:
    """Three tables dealt the same two deals of a book on two workers, greedy at two of them:
    the second of those is handed out only once the first has ended."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import datetime as dt, json
        from arena.registry import resolve
        from arena.tournament import pool as pool_module
        from arena.tournament.boards import BoardRelay
        from arena.tournament.tasks import DoneMessage, GameBatch, TableTask

        def table(index, first, second):
            return TableTask(tournament="t", round=1, table=index,
                             bots=(resolve(first), resolve(second)), bot_ids=(1, 2),
                             games=2, seed=7, limits={}, event_date=dt.date(2026, 1, 1),
                             deals=(101, 102))

        events = []
        class Recording(BoardRelay):
            def handed(self, task):
                events.append(["handed", task.table])
                return super().handed(task)
        pool_module.BoardRelay = Recording
        def note(message):
            for m in message.games if isinstance(message, GameBatch) else [message]:
                if isinstance(m, DoneMessage):
                    events.append(["done", m.key[1]])
        pool = pool_module.LocalPool(2)
        try:
            pool.run([table(0, "greedy", "collector"), table(1, "greedy", "random"),
                      table(2, "collector", "heuristic")], note)
        finally:
            pool.close()
        print(json.dumps(events))
    """)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    events = json.loads(out.stdout)
    assert events.index(["done", 0]) < events.index(["handed", 1]), events
