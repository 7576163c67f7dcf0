"""Self-play statistics: many in-process games between built-in random agents.

``simulate(players, games, seed)`` plays ``games`` games of ``players`` seats, every seat a
:class:`~arena.engine.agents.RandomAgent`, through :func:`~arena.engine.agents.play_game`
(an observation is built at every decision, events are tracked), and counts what happened
from each game's result, turn log and event log. ``records_path`` writes one game record per
line (JSON lines) that ``arena replay`` re-plays.

Conventions (also in RULES.md, "Balance findings"):

* Every game starts at seat 0, so seat ``k`` is always the ``k+1``-th to act in a round.
* A win is first place. The showdown always settles first place to one seat (book, then
  Rock-Paper-Scissors, then a lot), but should a game ever end with several seats placed
  first each gets ``1 / len(firsts)`` of the win, so the win column always sums to ``games``.
* "Categories at showdown" counts every seat's hand in the games that reached the showdown
  (``players`` hands per game); games ended by The Ascension have no showdown and are counted
  under ``ascensions``.
* ``seconds`` is the time spent inside ``play_game`` only (not the counting, not the writing of
  records); games/s and decisions/s are measured on it. A decision is a choice an agent was
  asked; choices with a single legal option are taken by the engine and are not decisions,
  but for the two whose number of options only their player knows (RULES.md E21).
"""

from __future__ import annotations

import contextlib
import json
import random
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena.common.fitting import fit_rows, fitting_width, not_shown, widest
from arena.engine.agents import RandomAgent, play_game
from arena.engine.config import GameConfig, rounds_for
from arena.engine.desmos import Category
from arena.engine.effects import EFFECTS, TRIGGER_WINDOWS
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.rules_text import (
    CATEGORY_LABELS,
)
from arena.errors import ArenaError, RulesError

__all__ = [
    "EFFECT_HOWS",
    "SimulationReport",
    "game_seeds",
    "simulate",
]
#: How an effect came to resolve: played from the hand, triggered from a trap, or a God
#: resolving because it was force-discarded.
EFFECT_HOWS = ("played", "trap", "discarded")
_TIEBREAKS = ("none", "book", "rps", "lot", "ascension")


# ================================================================================ doc tables
# ================================================================================ the report
@dataclass
class SimulationReport:
    """What ``games`` random-agent games of ``players`` seats did. Counts are plain ints
    (the win shares are floats); ``to_json`` is the ``--format json`` document."""

    players: int
    games: int
    seed: int
    rounds: int
    seconds: float = 0.0
    decisions: int = 0
    turns: int = 0
    #: first places per seat (fractions only if first place were ever shared)
    wins: list[float] = field(default_factory=list)
    #: sum of 1-based placements per seat (for the mean placement)
    placement_sum: list[int] = field(default_factory=list)
    showdowns: int = 0
    #: every hand at every showdown, by category label
    categories: dict[str, int] = field(default_factory=dict)
    #: the first-placed hand of every showdown, by category label
    winning_categories: dict[str, int] = field(default_factory=dict)
    ascensions: int = 0
    palaestrons: int = 0
    tiebreaks: dict[str, int] = field(default_factory=dict)
    #: face -> how (played / trap / discarded) -> count
    effects: dict[str, dict[str, int]] = field(default_factory=dict)
    #: face -> resolutions per seat (any how)
    effects_by_seat: dict[str, list[int]] = field(default_factory=dict)
    #: turn actions (hold / play / trap) and swaps
    actions: dict[str, int] = field(default_factory=dict)
    swaps: int = 0
    #: traps: set, triggered (by window), expired, destroyed (by an effect), cleared (Palaestron)
    traps: dict[str, int] = field(default_factory=dict)
    traps_by_seat: dict[str, list[int]] = field(default_factory=dict)
    forced_discards: int = 0
    reshuffles: int = 0
    pile_exhausted: int = 0
    records_path: str | None = None
    rules: HouseRules = DEFAULT_RULES

    def __post_init__(self) -> None:
        n = self.players
        if not self.wins:
            self.wins = [0.0] * n
        if not self.placement_sum:
            self.placement_sum = [0] * n
        for label in CATEGORY_LABELS:
            self.categories.setdefault(label, 0)
            self.winning_categories.setdefault(label, 0)
        for method in _TIEBREAKS:
            self.tiebreaks.setdefault(method, 0)
        for face in EFFECTS:
            self.effects.setdefault(face, dict.fromkeys(EFFECT_HOWS, 0))
            self.effects_by_seat.setdefault(face, [0] * n)
        for action in ("hold", "play", "trap"):
            self.actions.setdefault(action, 0)
        for what in ("set", "triggered", *(f"triggered_{w}" for w in TRIGGER_WINDOWS),
                     "expired", "destroyed", "cleared"):
            self.traps.setdefault(what, 0)
        for what in ("set", "triggered", "expired", "destroyed", "cleared"):
            self.traps_by_seat.setdefault(what, [0] * n)

    # ---------------------------------------------------------------- derived figures
    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def win_rates(self) -> list[float]:
        return [w / self.games for w in self.wins]

    @property
    def mean_placements(self) -> list[float]:
        return [p / self.games for p in self.placement_sum]

    # ---------------------------------------------------------------- counting one game
    def add_game(self, state: Any, play_seconds: float) -> None:
        """Count one finished game (``state`` is a finished :class:`State`)."""
        result = state.result
        assert result is not None, "simulate counts finished games only"
        self.seconds += play_seconds
        self.decisions += len(state.choices)
        self.turns += len(state.turn_log)
        firsts = result.winners
        for seat in firsts:
            self.wins[seat] += 1 / len(firsts)
        for seat, place in enumerate(result.placements):
            self.placement_sum[seat] += place
        self.tiebreaks[result.tiebreak] = self.tiebreaks.get(result.tiebreak, 0) + 1
        if result.ascension:
            self.ascensions += 1
        else:
            self.showdowns += 1
            for label in result.desmos:
                self.categories[label] += 1
            for seat in firsts:
                self.winning_categories[result.desmos[seat]] += 1
        for turn in state.turn_log:
            self.actions[turn["action"]] += 1
            self.swaps += bool(turn["swap"])
        for to, event in state.log:
            kind = event["type"]
            if kind == "effect":
                face = event["card"]
                self.effects[face][event["how"]] += 1
                self.effects_by_seat[face][event["seat"]] += 1
            elif kind == "set_trap":
                if to is not None and to >= 0:  # the owner's copy; the others' copy is its twin
                    self.traps["set"] += 1
                    self.traps_by_seat["set"][event["seat"]] += 1
            elif kind == "trap_triggered":
                self.traps["triggered"] += 1
                self.traps[f"triggered_{event['window']}"] += 1
                self.traps_by_seat["triggered"][event["seat"]] += 1
            elif kind in ("trap_expired", "trap_destroyed", "trap_cleared"):
                what = kind[5:]
                self.traps[what] += 1
                self.traps_by_seat[what][event["seat"]] += 1
            elif kind == "palaestron":
                self.palaestrons += 1
            elif kind == "forced_discard":
                self.forced_discards += 1
            elif kind == "reshuffle":
                self.reshuffles += 1
            elif kind == "pile_exhausted":
                self.pile_exhausted += 1

    # ---------------------------------------------------------------- output
    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 6),
            "games_per_second": round(self.games_per_second, 1),
            "decisions": self.decisions,
            "decisions_per_second": round(self.decisions_per_second, 1),
            "turns": self.turns,
            "mean_decisions_per_game": self.decisions / self.games,
            "mean_turns_per_game": self.turns / self.games,
            "wins_by_seat": list(self.wins),
            "win_rate_by_seat": self.win_rates,
            "mean_placement_by_seat": self.mean_placements,
            "showdowns": self.showdowns,
            "categories_at_showdown": dict(self.categories),
            "winning_categories": dict(self.winning_categories),
            "ascensions": self.ascensions,
            "palaestrons": self.palaestrons,
            "tiebreaks": dict(self.tiebreaks),
            "effects": {face: dict(hows) for face, hows in self.effects.items()},
            "effects_by_seat": {face: list(s) for face, s in self.effects_by_seat.items()},
            "actions": dict(self.actions),
            "swaps": self.swaps,
            "traps": dict(self.traps),
            "traps_by_seat": {what: list(s) for what, s in self.traps_by_seat.items()},
            "forced_discards": self.forced_discards,
            "reshuffles": self.reshuffles,
            "pile_exhausted": self.pile_exhausted,
            "records": self.records_path,
            "rules": self.rules.to_json(),
        }

    def render(self, tablefmt: str = "simple", width: int | None = None) -> str:
        """The report as tabulate tables, one section after another; ``width``: a terminal's
        columns, which each table fits by leaving out its least telling columns (the
        per-seat ones first), said under it (None: a pipe's, every column; a document's or a
        ``tsv``'s too, whatever ``width``: :func:`fitting_width`)."""
        g = self.games
        width = fitting_width(tablefmt, width)
        seat_columns = tuple(f"seat {s}" for s in range(self.players))
        tsv = tablefmt == "tsv"

        def table(rows: list[Any], headers: list[str], drop_order: tuple[str, ...] = ()) -> str:
            # a tsv's percentages are numbers alone, their headers saying "%" (_percent)
            shown = [f"{h} %" if tsv and h in _PERCENT_HEADERS else h for h in headers]
            return _fitted_table(rows, shown, tablefmt, width,
                                 tuple(shown[headers.index(h)] for h in drop_order))

        def pct(share: float, digits: int) -> str:
            return _percent(share, digits, tsv)

        turns = max(self.turns, 1)
        sections = [self._overview(tablefmt, width)]

        seats = [(seat, f"{self.wins[seat]:g}", pct(100 * self.win_rates[seat], 1),
                  f"{self.mean_placements[seat]:.2f}")
                 for seat in range(self.players)]
        sections.append(table(seats, ["seat (turn order)", "wins", "win rate", "mean place"],
                              ("mean place",)))

        hands = max(self.showdowns * self.players, 1)
        showdowns = max(self.showdowns, 1)
        cats = [(label, self.categories[label], pct(100 * self.categories[label] / hands, 2),
                 self.winning_categories[label],
                 pct(100 * self.winning_categories[label] / showdowns, 2))
                for label in CATEGORY_LABELS if label != Category.ASCENSION.label]
        sections.append(table(cats, ["category at showdown", "hands", "share", "won with",
                                     "share of wins"], ("share of wins", "won with")))

        settled = [(m, c, pct(100 * c / g, 2)) for m, c in self.tiebreaks.items()]
        sections.append(table(settled, ["first place settled by", "games", "share"],
                              ("games",)))

        acts = [(a, c, pct(100 * c / turns, 1)) for a, c in self.actions.items()]
        acts.append(("swap (after any action)", self.swaps, pct(100 * self.swaps / turns, 1)))
        sections.append(table(acts, ["turn action", "turns", "share"], ("turns",)))

        trap_rows = [(what, self.traps[what], *self.traps_by_seat.get(what, [""] * self.players))
                     for what in self.traps]
        sections.append(table(trap_rows, ["traps", "total", *seat_columns], seat_columns))

        effect_rows_ = []
        for face, hows in self.effects.items():
            total = sum(hows.values())
            effect_rows_.append((face, EFFECTS[face].name, hows["played"], hows["trap"],
                                 hows["discarded"], total, f"{total / g:.3f}",
                                 *self.effects_by_seat[face]))
        sections.append(table(
            effect_rows_, ["card", "effect", "played", "trap", "discarded", "total", "per game",
                           *seat_columns],
            (*seat_columns, "per game", "discarded", "trap", "played", "effect")))
        return "\n\n".join(sections)

    def _overview(self, tablefmt: str, width: int | None) -> str:
        """The report's first section: the run and its figures per game; on a terminal
        narrower than its table, a line a figure, wrapped at words."""
        g = self.games
        tsv = tablefmt == "tsv"
        thousands = "" if tsv else ","  # 2,996.2 is 2.996 where a comma marks the decimals
        ascensions = f"{100 * self.ascensions / g:.2f}"
        palaestrons = f"{100 * self.palaestrons / g:.1f}"
        overview = [
            ("players", self.players), ("rounds", self.rounds), ("games", g),
            ("seed", self.seed), ("rules", self.rules.describe()),
            ("seconds (in play_game)", f"{self.seconds:.3f}"),
            ("games/s", f"{self.games_per_second:{thousands}.1f}"),
            ("decisions/s", f"{self.decisions_per_second:{thousands}.0f}"),
            ("decisions per game", f"{self.decisions / g:.1f}"),
            ("turns per game", f"{self.turns / g:.2f}"),
            ("showdowns", self.showdowns),
            # a tsv's cells are each one number: the count, then its share on a row of its own
            *([("ascensions", self.ascensions), ("ascensions %", ascensions),
               ("Palaestron played", self.palaestrons),
               ("Palaestron played % of games", palaestrons)] if tsv else
              [("ascensions", f"{self.ascensions} ({ascensions}%)"),
               ("Palaestron played", f"{self.palaestrons} ({palaestrons}% of games)")]),
            ("forced discards per game", f"{self.forced_discards / g:.2f}"),
            ("reshuffles", self.reshuffles),
            ("draws from an exhausted pile", self.pile_exhausted),
        ]
        if self.records_path:
            overview.append(("records", self.records_path))
        summary = _fitted_table(overview, ["simulation", ""], tablefmt, width, ())
        if width is not None and widest(summary) > width:
            summary = "\n".join(textwrap.fill(f"{label}: {value}", width, subsequent_indent="  ")
                                 for label, value in overview)
        return summary


#: The columns of percentages, ``75.0%``: a tsv's header says ``%`` and its cells are the
#: numbers alone, which a spreadsheet reads as the same numbers in every locale.
_PERCENT_HEADERS = frozenset({"win rate", "share", "share of wins"})


def _percent(share: float, digits: int, tsv: bool) -> str:
    """A percentage as the text table shows it, ``75.0%``; in a tsv the number alone."""
    return f"{share:.{digits}f}" if tsv else f"{share:.{digits}f}%"


def _fitted_table(rows: list[Any], headers: list[str], tablefmt: str, width: int | None,
                  drop_order: tuple[str, ...]) -> str:
    """A table of the report, without the columns of ``drop_order`` a terminal of ``width``
    columns has no room for, and a line naming them."""
    text, left_out = fit_rows(headers, rows, drop_order, width, tablefmt=tablefmt)
    seats = [column for column in headers if column.startswith("seat ")]
    if any(column in left_out for column in seats):  # the seats go together, or a few stay
        left_out = [*seats, *(c for c in left_out if c not in seats)]
        text, _ = fit_rows(headers, rows, (), None, tablefmt=tablefmt,
                           columns=[column for column in headers if column not in left_out])
    if not left_out or width is None:
        return text
    return text + "\n" + textwrap.fill(not_shown(left_out, "--format json has every figure"),
                                       width)


# ================================================================================ simulate
def game_seeds(seed: int, games: int, players: int) -> list[tuple[int, list[int]]]:
    """(game seed, agent seed per seat) for each game, all drawn from ``seed``."""
    master = random.Random(f"simulate:{seed}")
    return [(master.getrandbits(48), [master.getrandbits(48) for _ in range(players)])
            for _ in range(games)]


def simulate(players: int, games: int, seed: int, records_path: str | Path | None = None,
             rules: HouseRules = DEFAULT_RULES) -> SimulationReport:
    """Play ``games`` games of ``players`` random agents (all from ``seed``) and count.

    Raises :class:`RulesError` for a player count other than 2..5 or fewer than one game,
    :class:`ArenaError` when ``records_path`` cannot be written.
    """
    rounds = rounds_for(players)
    if games < 1:
        raise RulesError(f"a simulation needs at least 1 game, not {games}")
    report = SimulationReport(players=players, games=games, seed=seed, rounds=rounds,
                              records_path=str(records_path) if records_path else None,
                              rules=rules)
    names = tuple(f"random-{seat}" for seat in range(players))
    out: IO[str] | None = None
    if records_path is not None:
        try:
            out = open(records_path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise ArenaError(f"cannot write records to {records_path}: "
                             f"{exc.strerror or exc}") from None
    try:
        for game_seed, agent_seeds in game_seeds(seed, games, players):
            config = GameConfig(players=names, seed=game_seed, rules=rules)
            agents = [RandomAgent(s) for s in agent_seeds]
            started = time.perf_counter()
            state = play_game(config, agents)
            elapsed = time.perf_counter() - started
            report.add_game(state, elapsed)
            if out is not None:
                out.write(json.dumps(state.record(), separators=(",", ":")) + "\n")
        if out is not None:
            out.close()
    except OSError as exc:
        raise ArenaError(f"cannot write records to {records_path}: "
                         f"{exc.strerror or exc}") from None
    finally:
        if out is not None and not out.closed:
            with contextlib.suppress(OSError):  # what is unwritten is said above
                out.close()
    return report


# ================================================================================ replay
