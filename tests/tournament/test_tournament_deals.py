"""No bot process is dealt a deal twice, through the real sandboxed referee: a process that
held one seat's cards of a deal would know them in another seat's hand when the deal comes
again, in a duplicate replay or, with a deal book, at its next table of the round."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from tournament_fixtures import REPO, _repo_cwd, write_spec  # noqa: F401 - autouse fixture

from arena.tournament.game_records import game_record
from arena.tournament.runner import run_tournament
from arena.tournament.spec_loading import load_spec
from arena.tournament.store import GameRow, Store

SPY = str(REPO / "tests" / "tournament" / "bots" / "spy.py")


def _spy_games(store: Store, tid: int) -> Iterator[tuple[GameRow, str]]:
    """The games the spy played, each with the token its process logged."""
    for game in store.games(tid):
        record = game_record(store, game.id)
        if "spy" not in record["players"]:
            continue
        seat = record["players"].index("spy")
        (token,) = re.findall(r"process (\w+)", record["referee"]["logs"][str(seat)])
        yield game, token


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
        for game, token in _spy_games(store, tid):
            dealt[token].append(game.seed)
            tables[token].add((game.round, game.table_index))
    assert sum(len(seeds) for seeds in dealt.values()) == 16  # the spy plays 16 of 24 games
    assert {seed for seeds in dealt.values() for seed in seeds} == {101, 102, 103, 104}
    for token, seeds in dealt.items():
        assert len(seeds) == len(set(seeds)), f"process {token} was dealt {sorted(seeds)}"
    assert any(len(played) > 1 for played in tables.values()), "no process was ever kept"


def test_a_first_seatings_process_plays_no_other_deal_while_its_replay_may_be_in_play(
        tmp_path: Path) -> None:
    """On two workers a round of three deals is played seating by seating; the spy plays two
    of them. Its process at a deal's first seating is not kept for its other deal, which a
    worker could play while this deal's replay is in play on the other worker."""
    db = tmp_path / "two.db"
    spec = write_spec(tmp_path / "spec.yaml", db, name="two", format="round_robin",
                      bots=[SPY, "greedy", "collector"], rounds=1, games_per_match=2,
                      duplicate=True)
    summary = run_tournament(load_spec(spec), 2)
    assert summary.games_recorded == 3 * 2 * 2 and not summary.mismatches
    tables_of: dict[str, set[tuple[int, int]]] = defaultdict(set)
    with Store(db) as store:
        tid = store.tournament("two").id
        firsts: dict[tuple[int, int], int] = {}
        for table in store.tables(tid):
            key = (table.round, table.deal)
            firsts[key] = min(firsts.get(key, table.table_index), table.table_index)
        deal_of = {(t.round, t.table_index): (t.round, t.deal) for t in store.tables(tid)}
        first_tokens = set()
        for game, token in _spy_games(store, tid):
            deal = deal_of[(game.round, game.table_index)]
            tables_of[token].add(deal)
            if firsts[deal] == game.table_index:
                first_tokens.add(token)
    assert len(first_tokens) == 2  # the spy's two deals
    for token in first_tokens:
        assert len(tables_of[token]) == 1, f"process {token} played deals {tables_of[token]}"
