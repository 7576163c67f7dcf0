"""No bot process is dealt a deal twice, through the real sandboxed referee: a process that
held one seat's cards of a deal would know them in another seat's hand when the deal comes
again, in a duplicate replay or, with a deal book, at its next table of the round."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from tournament_fixtures import REPO, _repo_cwd, write_spec  # noqa: F401 - autouse fixture

from arena.tournament.game_records import game_record
from arena.tournament.runner import run_tournament
from arena.tournament.spec import load_spec
from arena.tournament.store import Store

SPY = str(REPO / "tests" / "tournament" / "bots" / "spy.py")


def test_each_process_is_dealt_each_deal_at_most_once(tmp_path: Path) -> None:
    book = tmp_path / "deals.txt"
    book.write_text("101\n102\n103\n104\n")
    db = tmp_path / "deals.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="deals", format="round_robin",
                      bots=[SPY, "greedy", "collector"], rounds=2, games_per_match=2,
                      duplicate=True, deals=str(book))
    summary = run_tournament(load_spec(spec), 1)  # one worker: it keeps the spy's processes
    assert summary.games_recorded == 2 * 3 * 2 * 2 and not summary.mismatches
    dealt: dict[str, list[int]] = defaultdict(list)
    tables: dict[str, set[tuple[int, int]]] = defaultdict(set)
    with Store(db) as store:
        tid = store.tournament("deals").id
        for game in store.games(tid):
            record = game_record(store, game.id)
            if "spy" not in record["players"]:
                continue
            seat = record["players"].index("spy")
            (token,) = re.findall(r"process (\w+)", record["referee"]["logs"][str(seat)])
            dealt[token].append(game.seed)
            tables[token].add((game.round, game.table_index))
    assert sum(len(seeds) for seeds in dealt.values()) == 16  # the spy plays 16 of 24 games
    assert {seed for seeds in dealt.values() for seed in seeds} == {101, 102, 103, 104}
    for token, seeds in dealt.items():
        assert len(seeds) == len(set(seeds)), f"process {token} was dealt {sorted(seeds)}"
    assert any(len(played) > 1 for played in tables.values()), "no process was ever kept"
