"""``arena bench leaderboard``: what a big tournament's leaderboard and site pages cost to read.

For each size, a finished Swiss tournament of seeded random results is written to a temporary
database through the store (``bots`` entrants, tables of ``players``, ten games a table, a new
random pairing each round). Then each of these is timed ``repeat`` times (the median is shown):

* the leaderboard (:func:`~arena.rating.leaderboard.build_leaderboard`, what ``arena
  leaderboard`` computes) with no rating history stored, as a running tournament's is, and
  every call was before the history was reused;
* storing the history once (:func:`~arena.rating.trueskill_rating.rate_tournament_run`, what
  ``arena run`` does as it finishes);
* the leaderboard again, now with the history stored;
* one tournament's data for the site (:func:`~arena.web.data.load_tournament`, what ``arena
  serve`` and ``arena report`` read for a tournament's pages), without and with the history.

Both leaderboards must list the very same ratings (``same``), and the one with the history
must have rated no game itself (``rated_with_history``).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.common.fitting import aligned, fit_columns, not_shown_lines
from arena.rating.games import connect, find_tournament, load_games, tournament_bots
from arena.rating.leaderboard import Leaderboard, build_leaderboard
from arena.rating.trueskill_rating import rate_stored, rate_tournament_run
from arena.referee.seeds import utc_today
from arena.tournament.game_records import compress_record
from arena.tournament.store import Store, game_id
from arena.web.data import load_tournament

__all__ = ["LeaderboardBenchResult", "run_leaderboard_bench", "write_tournament"]

#: The synthetic tournament's name and its games per table.
_NAME = "big"
_GAMES_PER_TABLE = 10


@dataclass
class LeaderboardBenchResult:
    """Per size and table size: median seconds of each read, with and without history."""

    bots: int
    repeat: int
    rows: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"bots": self.bots, "repeat": self.repeat, "rows": self.rows,
                "cpus": os.cpu_count()}

    def render(self, width: int | None = None) -> str:
        """The report; on a terminal ``width`` columns wide, its table without the columns
        that matter least (the site's reads first)."""
        cells = [{"games": str(row["games"]), "players": str(row["players"]),
                  "board (no history)": f"{row['board_cold_s']:.2f}",
                  "store history": f"{row['store_history_s']:.2f}",
                  "board (history)": f"{row['board_warm_s']:.2f}",
                  "speed-up": f"{row['board_cold_s'] / max(row['board_warm_s'], 1e-9):.1f}x",
                  "site (no history)": f"{row['site_cold_s']:.2f}",
                  "site (history)": f"{row['site_warm_s']:.2f}",
                  "same": "yes" if row["same"] else "NO"} for row in self.rows]

        def table(kept: Sequence[str], most: int | None) -> str:
            return aligned(kept, [[cell[c] for c in kept] for cell in cells], ["same"])

        text, left_out = fit_columns(table, _COLUMNS, _LEFT_OUT, width)
        return "\n".join([f"leaderboard bench: seconds to read a finished Swiss tournament of "
                          f"{self.bots} bots (median of {self.repeat})", text,
                          *not_shown_lines(left_out, "--format json has every figure")])


#: The report's columns, and those a narrow terminal leaves out, first to last.
_COLUMNS = ("games", "players", "board (no history)", "store history", "board (history)",
            "speed-up", "site (no history)", "site (history)", "same")
_LEFT_OUT = ("site (history)", "site (no history)", "store history", "speed-up",
             "board (history)")


def write_tournament(path: Path, games: int, players: int, bots: int, seed: int) -> None:
    """A finished Swiss tournament of ``games`` seeded random results at ``path``."""
    rng = random.Random(seed)
    with Store(path) as store:
        spec = {"name": _NAME, "format": "swiss", "players_per_game": players, "seed": seed}
        row = store.create_tournament(
            name=_NAME, spec_hash="bench", spec_json=spec, format="swiss",
            players_per_game=players, seed=seed, event_date=utc_today(), rounds=0,
            games_planned=games, spec_path=None,
            bots=[(f"bot{i}", "v1", f"bots/bot{i}", {}) for i in range(bots)])
        entrants = store.entrant_ids(row.id)
        tables = bots // players
        batch: list[tuple[dict[str, Any], bytes]] = []
        for number in range(games):
            rnd, rest = divmod(number, tables * _GAMES_PER_TABLE)
            table, index = divmod(rest, _GAMES_PER_TABLE)
            if rest == 0:
                rng.shuffle(entrants)
            seats = entrants[table * players:(table + 1) * players]
            scores = [rng.randrange(3 * players) for _ in seats]  # a few shared places
            gid = game_id(_NAME, rnd, table, index)
            batch.append(({
                "id": gid, "round": rnd, "table_index": table, "game_index": index,
                "seed": rng.randrange(2**62), "seats": seats, "starting_seat": 0,
                "placements": [1 + sum(o > s for o in scores) for s in scores],
                "desmos": ["Nothing"] * players, "ascension": False, "tiebreak": "",
                "failures": [], "forfeits": {}, "decisions": 30, "duration_s": 0.01,
            }, compress_record({"id": gid})))
            if len(batch) == 5000 or number == games - 1:
                store.record_games(row.id, batch)
                batch = []
        store.set_state(row.id, "finished")


def _median_s(action: Callable[[], object], repeat: int,
              setup: Callable[[], object] = lambda: None) -> float:
    times = []
    for _ in range(repeat):
        setup()
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def _ratings(board: Leaderboard) -> list[tuple[str, float, float]]:
    return [(row.key, row.mu, row.sigma) for row in board.rows]


def _drop_history(path: Path) -> None:
    with Store(path) as store, store.transaction() as conn:
        conn.execute("DELETE FROM rating_history")
        conn.execute("DELETE FROM rating_stamps")


def _rated_now(path: Path) -> int:
    """Games TrueSkill itself rates in a leaderboard of the tournament as it is stored now."""
    with connect(path) as conn:
        info = find_tournament(conn, _NAME, path)
        return rate_stored(conn, info, load_games(conn, info.id),
                           tournament_bots(conn, info.id)).computed


def _size(directory: Path, games: int, players: int, bots: int, seed: int,
          repeat: int) -> dict[str, Any]:
    path = directory / f"{games}-{players}.db"
    write_tournament(path, games, players, bots, seed)
    cold = build_leaderboard(path, _NAME)
    board_cold = _median_s(lambda: build_leaderboard(path, _NAME), repeat)
    site_cold = _median_s(lambda: load_tournament(path, _NAME), repeat)
    store_history = _median_s(lambda: rate_tournament_run(path, _NAME), repeat,
                              setup=lambda: _drop_history(path))
    warm = build_leaderboard(path, _NAME)
    return {"games": games, "players": players, "board_cold_s": board_cold,
            "store_history_s": store_history,
            "board_warm_s": _median_s(lambda: build_leaderboard(path, _NAME), repeat),
            "site_cold_s": site_cold,
            "site_warm_s": _median_s(lambda: load_tournament(path, _NAME), repeat),
            "same": _ratings(cold) == _ratings(warm), "rated_with_history": _rated_now(path)}


def run_leaderboard_bench(games: Sequence[int] = (10_000, 50_000),
                          players: Sequence[int] = (2, 4), *, bots: int = 200,
                          repeat: int = 3, seed: int = 0) -> LeaderboardBenchResult:
    """Time the reads of a synthetic finished tournament for every size and table size."""
    if bots < max(players):
        raise ValueError(f"{bots} bots cannot fill a table of {max(players)}")
    result = LeaderboardBenchResult(bots=bots, repeat=repeat)
    with tempfile.TemporaryDirectory(prefix="arena-bench-board-") as tmp:
        for n in games:
            for k in players:
                result.rows.append(_size(Path(tmp), n, k, bots, seed, repeat))
    return result
