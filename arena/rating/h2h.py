"""Head-to-head: how often each bot placed ahead of each other bot, with 95% Wilson intervals.

Every game where both A and B sat counts once for the pair, whatever the table size (a
four-player game is six pairwise meetings), unless both forfeited it: they did not meet
(E28). A's score against B is ``ahead + ties / 2`` (a shared place is half a win, as in
chess scoring); its win rate is score / games and the interval is Wilson's score interval
at 95%, which stays inside [0, 1] and behaves for small samples and for rates near 0 or 1,
unlike the normal approximation.

The games of a pair are not independent trials when deals repeat: games with the same seed
at tables of the same size are one deal played in several seatings (``duplicate``), and their
outcomes go together (the same bot often wins a deal from every seat). The interval then uses
Kish's effective number of games, ``n / design effect``, the design effect being the variance
of the score with the deals as clusters over the binomial variance. It lies between the
number of deals (outcomes that always go together) and the number of games (outcomes as good
as independent, and always without duplicate deals); the interval stays centred on the
pair's win rate.
"""

from __future__ import annotations

import math
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena.common.fitting import fitting_width, not_shown, widest, with_notes
from arena.errors import StoreError
from arena.rating.games import StoredGame, connect, find_tournament, load_games
from arena.rating.leaderboard import rating_order
from arena.rating.render import check_format, render_csv, render_json, render_table
from arena.rating.sprt import Z95, elo_of_score
from arena.rating.trueskill_rating import game_entries, rate_stored

__all__ = ["HeadToHead", "PairRecord", "build_h2h", "compute_h2h", "effective_games", "h2h_json",
           "render_h2h", "repeated_deals", "wilson"]



def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` (half successes allowed for ties;
    ``n`` may be an effective, fractional number of trials)."""
    if n <= 0:
        raise ValueError("a Wilson interval needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, {n}], got {successes}")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


def effective_games(rate: float, n: int, per_deal: Sequence[Sequence[float]]) -> float:
    """Kish's effective sample size of ``n`` games in deals (``[score, games]`` each) whose
    outcomes may go together: ``n`` over the design effect, between the number of deals and
    ``n``. With a rate of 0 or 1 nothing varies to measure it by, so the deals count."""
    clusters = len(per_deal)
    if clusters >= n:
        return float(n)
    binomial = rate * (1 - rate) / n
    if clusters < 2 or binomial == 0:
        return float(clusters)
    spread = sum((s - rate * g) ** 2 for s, g in per_deal) * clusters / (clusters - 1)
    design_effect = spread / (n * n) / binomial
    if design_effect <= 0:
        return float(n)
    return min(float(n), max(float(clusters), n / design_effect))


@dataclass(frozen=True)
class PairRecord:
    """Bot ``a`` against bot ``b`` over the games where both sat."""

    a: str
    b: str
    games: int
    #: Distinct deals among those games (same seed and table size: one deal, reseated).
    deals: int
    #: The games' worth as independent trials (Kish), between ``deals`` and ``games``: the
    #: interval's sample size.
    effective: float
    ahead: int
    behind: int
    ties: int
    score: float
    win_rate: float
    low: float
    high: float
    #: The win rate and its interval as Elo differences (logistic model; None where a rate
    #: of 0 or 1 makes it infinite).
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None


@dataclass
class HeadToHead:
    """The matrix: bots in leaderboard order and a record per ordered pair that met."""

    scope: str
    bots: list[str]
    pairs: dict[tuple[str, str], PairRecord]
    #: The most bots a game of it seated: above two, placed ahead is not won.
    largest_table: int = 2


def compute_h2h(games: Sequence[StoredGame], order: Sequence[str] | None = None,
                scope: str = "") -> HeadToHead:
    """Count every ordered pair's meetings; ``order`` lists the bots (default: sorted keys)."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    #: per pair and deal (tournament, seed, table size): [score, games]
    deals: dict[tuple[str, str], dict[tuple[int, int, int], list[float]]] = defaultdict(dict)
    seen: set[str] = set()
    largest = 2
    for game in games:
        largest = max(largest, len(game.seats))
        entries = [(bot.key, place) for bot, place in game_entries(game)]
        seen.update(key for key, _ in entries)
        deal = (game.tournament_id, game.seed, len(game.seats))
        absent = {bot.key for bot in game.forfeited_bots}
        for a, pa in entries:
            for b, pb in entries:
                if a == b or (a in absent and b in absent):
                    continue  # two bots that both forfeited did not meet (E28)
                slot = 0 if pa < pb else 1 if pa > pb else 2
                counts[(a, b)][slot] += 1
                tally = deals[(a, b)].setdefault(deal, [0.0, 0])
                tally[0] += 1.0 if slot == 0 else 0.0 if slot == 1 else 0.5
                tally[1] += 1
    bots = list(order) if order is not None else []
    bots += sorted(seen - set(bots))
    pairs: dict[tuple[str, str], PairRecord] = {}
    for (a, b), (ahead, behind, ties) in sorted(counts.items()):
        n = ahead + behind + ties
        score = ahead + ties / 2
        per_deal = list(deals[(a, b)].values())
        effective = effective_games(score / n, n, per_deal)
        low, high = wilson(score / n * effective, effective)
        pairs[(a, b)] = PairRecord(a, b, n, len(per_deal), round(effective, 1), ahead,
                                   behind, ties, score, score / n, low, high,
                                   _elo(score / n), _elo(low), _elo(high))
    return HeadToHead(scope=scope, bots=bots, pairs=pairs, largest_table=largest)


def _elo(rate: float) -> float | None:
    elo = elo_of_score(rate)
    return None if math.isinf(elo) else elo


def build_h2h(db_path: str | Path, tournament: str, players: int | None = None) -> HeadToHead:
    """The head-to-head matrix of a stored tournament, bots in leaderboard order; with
    ``players``, only the games at tables of that size (a ladder may mix sizes)."""
    with connect(db_path) as conn:
        info = find_tournament(conn, tournament, db_path)
        games = load_games(conn, info.id)
        order = rating_order(rate_stored(conn, info, games).ratings)
    scope = info.name
    if players is not None:
        sizes = sorted({len(game.seats) for game in games})
        games = [game for game in games if len(game.seats) == players]
        scope = f"{info.name}, {players}-player tables"
        if not games:  # an empty matrix would look like bots that never met
            have = (f"its games seat {', '.join(map(str, sizes))} players" if sizes
                    else "it has no games yet")
            raise StoreError(f"{info.name} has no games at {players}-player tables ({have})")
    return compute_h2h(games, order, scope=scope)


def _labels(keys: Sequence[str]) -> dict[str, str]:
    """Short labels: the bot's name when it is unique in the matrix, else name@version."""
    names = [key.rsplit("@", 1)[0] for key in keys]
    return {key: name if names.count(name) == 1 else key for key, name in zip(keys, names,
                                                                                strict=True)}


def _cell(record: PairRecord | None, shown: int = 3) -> str:
    """``45% (28-63) n=40``, or its first ``shown`` parts of three (a narrower terminal's
    matrix: ``45% n=40``, ``45%``); the deals and the effective number of games are in the
    footnote, csv and json."""
    if record is None:
        return ""  # never met
    parts = [f"{100 * record.win_rate:.0f}%",
             f"({100 * record.low:.0f}-{100 * record.high:.0f})", f"n={record.games}"]
    return " ".join(parts if shown == 3 else [parts[0], parts[2]][:shown])


#: What a narrower matrix leaves out of its cells, by the cells' parts left (``_cell``).
_LEFT_OUT = {2: "the 95% intervals", 1: "the 95% intervals and the games (n)"}


def h2h_json(h2h: HeadToHead) -> dict[str, Any]:
    """The JSON document of ``arena h2h --format json``."""
    return {
        "scope": h2h.scope,
        "bots": h2h.bots,
        "interval": "Wilson score, 95%, on the effective number of games (Kish: deals "
                    "repeated in several seatings weigh less); a shared place counts half; "
                    "elo, elo_low and elo_high are the rate and its interval as Elo "
                    "differences (logistic; null where infinite)",
        "pairs": [asdict(record) for record in h2h.pairs.values()],
    }


def render_h2h(h2h: HeadToHead, fmt: str = "simple", width: int | None = None) -> str:
    """json (pairs), csv (one row per ordered pair) or a tabulate matrix (row bot vs column);
    ``width``: a terminal's columns, which the matrix fits by shortening its cells, or else
    gives way to a line a pair (None: a pipe's or a file's, every figure as always; a
    document's or a ``tsv``'s too, whatever ``width``: :func:`fitting_width`)."""
    check_format(fmt)
    if fmt == "json":
        return render_json(h2h_json(h2h))
    if fmt == "csv":
        headers = ["a", "b", "games", "deals", "effective", "ahead", "behind", "ties", "score",
                   "win_rate", "low", "high", "elo", "elo_low", "elo_high"]
        return render_csv(headers, [asdict(record) for record in h2h.pairs.values()])
    if not h2h.bots:  # a header alone reads like a bug
        return "No games recorded yet: no head-to-head to show."
    width = fitting_width(fmt, width)
    notes = []
    if h2h.largest_table > 2:  # a reader takes a cell for a win rate, as at two seats
        notes.append("At tables of more than two, a cell is how often the row's bot placed "
                     "ahead of the column's in the games both sat in (a shared place counts "
                     "half), not how often it won.")
    for shown in (3, 2, 1):  # the least useful parts first, while the matrix is too wide
        table = _matrix(h2h, fmt, shown)
        if width is None or widest(table) <= width:
            break
    else:  # even the rates alone are too wide: a line a pair, shortened the same way
        notes = []  # its own line says what a pair's figure counts
        assert width is not None  # a pipe's (None) took the first matrix
        for shown in (3, 2, 1):
            table = _pair_lines(h2h, fmt, shown)
            if widest(table) <= width:
                break
        notes.append("A line a pair, to fit the terminal: how often bot placed ahead of "
                     "vs; vs ahead of bot is the rest.")
    if shown < 3:
        notes.append(not_shown([_LEFT_OUT[shown]], "--format csv has every figure"))
    note = repeated_deals((r.games, r.deals, r.effective) for r in h2h.pairs.values())
    if note is not None:
        notes.append(f"{note}; --format csv lists each pair's deals and effective games.")
    if width is not None:  # a terminal's: the notes wrap at words, not mid-word
        notes = [textwrap.fill(line, width) for line in notes]
    return with_notes(table, notes, fmt)


def _matrix(h2h: HeadToHead, fmt: str, shown: int) -> str:
    """The table of row bot vs column bot, each cell with its first ``shown`` parts."""
    labels = _labels(h2h.bots)
    rows = []
    for a in h2h.bots:
        cells = [labels[a]]
        for b in h2h.bots:
            cells.append("-" if a == b else _cell(h2h.pairs.get((a, b)), shown))
        rows.append(cells)
    headers = ["row vs column", *(labels[b] for b in h2h.bots)]
    return render_table(headers, rows, fmt)


def _pair_lines(h2h: HeadToHead, fmt: str, shown: int = 3) -> str:
    """Each pair that met, once (the higher placed bot first): the matrix's cell of its row
    bot against its column bot, its first ``shown`` figures (as :func:`_cell`'s) in columns
    of their own."""
    labels = _labels(h2h.bots)
    keep = ["ahead", "95%", "n"] if shown == 3 else ["ahead", "n"][:shown]
    rows: list[list[str | int]] = []
    for i, a in enumerate(h2h.bots):
        for b in h2h.bots[i + 1:]:
            record = h2h.pairs.get((a, b))
            if record is not None:
                figures: dict[str, str | int] = {
                    "ahead": f"{100 * record.win_rate:.0f}%",
                    "95%": f"{100 * record.low:.0f}-{100 * record.high:.0f}",
                    "n": record.games}
                rows.append([labels[a], labels[b], *(figures[k] for k in keep)])
    return render_table(["bot", "vs", *keep], rows, fmt)


def repeated_deals(pairs: Iterable[tuple[int, int, float]]) -> str | None:
    """What repeated deals do to the intervals, from each pair's (games, deals, effective
    games); None when no pair met on a deal twice, or when their outcomes varied as
    independent games' would (seatings that split their deals: nothing is wider)."""
    shares = [effective / games for games, deals, effective in pairs
              if deals != games and round(100 * effective / games) < 100]
    if not shares:
        return None
    return ("Deals repeat in several seatings: a pair's n games count as fewer independent "
            f"ones (down to {100 * min(shares):.0f}% of n here; Kish), and the intervals are "
            "that much wider")
