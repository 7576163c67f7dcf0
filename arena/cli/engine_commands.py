"""CLI commands of the engine layer (registered by arena.cli.main).

``desmos`` evaluates, compares and counts Desmos hands. Bad cards raise
:class:`arena.errors.CardError`, which the root group shows as one ``Error: ...`` line.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from tabulate import tabulate

from arena.cli.options import TableFormatOption
from arena.cli.terminal import fill_words, terminal_width, wrapped
from arena.common.fitting import TERMINAL_FORMATS, tabulated, widest
from arena.engine.cards import NOTATION, PALAESTRON, parse_cards
from arena.engine.desmos import HAND_SIZE, Category, Desmos, census, desmos
from arena.engine.houserules import RULE_CHOICES, RULE_HELP, HouseRules, rules_from_texts
from arena.engine.record import iter_records, replay_records
from arena.engine.rules_text import effect_rows, effect_table_markdown, rules_summary
from arena.engine.simulate import simulate
from arena.errors import CardError
from arena.rating.render import TABLE_FORMATS

__all__ = ["RULE_OPTION_HELP", "register"]

RULE_OPTION_HELP = ("A house rule NAME=VALUE (repeatable; arena rules --house lists them), "
                    "e.g. kinds=family.")


def _hand(texts: list[str] | str, kinds: str = "type") -> Desmos:
    """Parse one full Desmos: exactly five cards, no Palaestron."""
    cards = parse_cards(texts)
    if PALAESTRON in cards:
        raise CardError("the Palaestron cannot be part of a Desmos")
    if len(cards) != HAND_SIZE:
        raise CardError(f"a Desmos is exactly {HAND_SIZE} cards, got {len(cards)}")
    return desmos(cards, kinds)


def _compared(texts: str, which: int, kinds: str) -> Desmos:
    """One of ``--compare``'s hands; a bad one is named (hand 1 or 2)."""
    try:
        return _hand(texts, kinds)
    except CardError as exc:
        raise CardError(f"hand {which} ({texts!r}): {exc}") from None


def _key_text(hand: Desmos) -> str:
    return " ".join(str(tier) for tier in hand.key)


def _show(hand: Desmos) -> str:
    return "\n".join([
        f"Desmos:   {' '.join(NOTATION[cid] for cid in hand.cards)}",
        f"Category: {hand.category.label}",
        f"Tie key:  {_key_text(hand)}",
    ])


def _verdict(first: Desmos, second: Desmos) -> str:
    if first == second:
        return (f"Tie: both are {first.category.label} with tie key {_key_text(first)} "
                "(a true tie; rank numbers never break ties)")
    winner, loser, number = (first, second, 1) if first > second else (second, first, 2)
    if winner.category != loser.category:
        why = f"{winner.category.label} beats {loser.category.label}"
    else:
        why = f"same category, tie key {_key_text(winner)} beats {_key_text(loser)}"
    return f"Hand {number} wins: {why}"


def _hand_json(hand: Desmos) -> dict[str, object]:
    return {"cards": [NOTATION[cid] for cid in hand.cards], "category": hand.category.label,
            "tie_key": list(hand.key)}


def _desmos_json(cards: list[str], compare: tuple[str, str] | None,
                 kinds: str) -> dict[str, object]:
    """``desmos --format json``: a hand; two compared, the winner (1 or 2, or null for a
    true tie) and why; or the census (no cards and no --compare)."""
    if compare is not None:
        first, second = (_compared(compare[0], 1, kinds), _compared(compare[1], 2, kinds))
        winner = None if first == second else 1 if first > second else 2
        return {"hands": [_hand_json(first), _hand_json(second)], "winner": winner,
                "verdict": _verdict(first, second)}
    if cards:
        return _hand_json(_hand(cards, kinds))
    counts = census(kinds)
    return {"total": sum(counts.values()),
            "categories": [{"category": category.label, "hands": counts[category]}
                           for category in sorted(Category, reverse=True)]}


def _census_table(kinds: str = "type") -> str:
    counts = census(kinds)
    total = sum(counts.values())
    rows = [[category.label, f"{counts[category]:,}", f"{100 * counts[category] / total:.4f}%"]
            for category in sorted(Category, reverse=True)]
    rows.append(["Total", f"{total:,}", "100.0000%"])
    return tabulate(rows, headers=["Category", "Hands", "Share"], colalign=("left", "right",
                                                                           "right"))


def desmos_command(
    cards: Annotated[
        list[str] | None,
        typer.Argument(metavar="CARDS",
                       help="Five cards in public notation (God-3, Agari-6, Fate-1, Crown, ...).",
                       show_default=False),
    ] = None,
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option("--compare", metavar="HAND HAND",
                     help='Compare two hands, each one quoted string of five cards.'),
    ] = None,
    count: Annotated[
        bool,
        typer.Option("--census", help="Count every 5-card hand of the 51 cards other than the "
                                      "Palaestron (2,349,060 hands) by category."),
    ] = False,
    rule: Annotated[list[str] | None, typer.Option("--rule", metavar="NAME=VALUE",
                                                   help=RULE_OPTION_HELP)] = None,
    fmt: TableFormatOption = None,
) -> None:
    """Evaluate, compare or count Desmos hands (help text: ``_DESMOS_HELP``)."""
    modes = sum([bool(cards), compare is not None, count])
    if modes != 1:
        raise typer.BadParameter("give five cards, --compare HAND HAND or --census (one of them)")
    kinds = rules_from_texts(rule).kinds  # the only house rule that changes hand values
    if fmt == "json":
        typer.echo(json.dumps(_desmos_json(cards or [], compare, kinds), indent=2))
        return
    if count:
        typer.echo(_census_table(kinds))
    elif compare is not None:
        first, second = (_compared(compare[0], 1, kinds), _compared(compare[1], 2, kinds))
        # a terminal's lines wrap at words (it broke a card's name), continued indented
        typer.echo(wrapped(f"Hand 1: {first.describe()}", indent=" " * 8))
        typer.echo(wrapped(f"Hand 2: {second.describe()}", indent=" " * 8))
        typer.echo(wrapped(_verdict(first, second), indent="  "))
    else:
        typer.echo(wrapped(_show(_hand(cards or [], kinds)), indent=" " * 10))


_DESMOS_HELP = "\n\n".join([
    "Evaluate a Desmos: print its category and tie key. With --compare, say which of two hands "
    "wins (or that they truly tie). With --census, count every 5-card hand by category.",
    "Categories, best first: The Ascension, Quartet, Full Domain, Rank Flush, Straight, "
    "Triplet, Two Pair, Pair, High Hand. Crowns are wild (any card, or a Crown). The tie key "
    "lists each card's tier (God 5, Crown 4, Class 3, Fate 2, Beast 1), biggest groups first "
    "(a Rank Flush: highest tier first); rank numbers never break ties.",
    "Example: arena desmos God-1 God-2 Crown Fate-3 Beast-1",
    'Example: arena desmos --compare "God-1 God-2 Agari-1 Agari-2 Fate-1" '
    '"Umbrae-1 Umbrae-2 Arcoi-1 Arcoi-2 God-3"',
    "--format json prints the same as one JSON document: a hand's cards, category and "
    "tie_key; with --compare both hands, the winner (1, 2, or null for a true tie) and the "
    "verdict; with --census each category's number of hands and the total.",
    "Example: arena desmos --census",
    "Example: arena desmos --census --rule kinds=family",
])


# -------------------------------------------------------------- simulate, replay, rules

_SIMULATE_HELP = "\n\n".join([
    "Play in-process games between built-in random agents and print what happened: games/s, "
    "decisions/s, win rate by seat (seat 0 always acts first), categories at showdown, game "
    "length, how often each card effect and trap was used, Palaestron, Ascension and "
    "tie-break counts. Everything is drawn from --seed: the same seed gives the same games.",
    "--records writes one game record per line (JSON lines); check them with arena replay.",
    "A terminal too narrow for a table leaves out its per-seat columns first, and says which; "
    "--format json has every figure.",
    "Example: arena simulate --players 4 --games 1000 --seed 7",
    "Example: arena simulate -p 2 -g 500 -s 1 --records games.jsonl --format json",
    "Example: arena simulate -p 5 --rule kinds=family --rule reclaim=strict",
])

_REPLAY_HELP = "\n\n".join([
    "Re-play every game record in FILE (JSON lines, one record per line, as written by "
    "arena simulate --records; or one JSON record) from its seed and choices, and check that "
    "the result, the turns, the events and every other recorded field come out identical. "
    "The first difference fails with 'Error: game K: ...' (K counts records from 1); "
    "--format json prints {\"replayed\": N, \"identical\": true} when none differs.",
    "Example: arena replay games.jsonl",
])

_RULES_HELP = "\n\n".join([
    "Print Palaestra in brief, or with --effects the effect of every card (the table of "
    "RULES.md; --format markdown prints exactly that Markdown block).",
    "With --house, list the house rules (the readings of the rulebook a game may choose, "
    "RULES.md 'House rules'), defaults first; --rule NAME=VALUE marks a chosen reading.",
    "A terminal too narrow for either table (--format table) shows its rows as blocks: a "
    "heading line, then the text under it, wrapped at words. The rules in brief are text "
    "alone: --format goes with --effects or --house.",
    "Example: arena rules --effects",
    "Example: arena rules --effects --format markdown",
    "Example: arena rules --house --rule kinds=family",
])


def _table_format(value: str) -> str:
    if value not in ("table", "json", "markdown", *TABLE_FORMATS):
        raise typer.BadParameter(f"unknown format '{value}' (table, json, markdown or a "
                                 "tabulate format)")
    return value


def simulate_command(
    players: Annotated[int, typer.Option("--players", "-p", help="Players per game (2-5).")
                       ] = 4,
    games: Annotated[int, typer.Option("--games", "-g", help="Games to play.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of every game and agent.")
                    ] = 0,
    records: Annotated[
        str | None,
        typer.Option("--records", metavar="FILE.jsonl",
                     help="Write one game record per line to this file."),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", callback=_table_format,
                          help="table, markdown, json or any tabulate format.")
    ] = "table",
    rule: Annotated[list[str] | None, typer.Option("--rule", metavar="NAME=VALUE",
                                                   help=RULE_OPTION_HELP)] = None,
) -> None:
    """Play in-process games and report (help text: ``_SIMULATE_HELP``)."""
    report = simulate(players, games, seed, records, rules_from_texts(rule))
    if fmt == "json":
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        typer.echo(report.render(_tabulate_format(fmt), width=terminal_width()))


def replay_command(
    file: Annotated[str, typer.Argument(metavar="FILE",
                                         help="Game records: JSON lines or one JSON record.")],
    fmt: TableFormatOption = None,
) -> None:
    """Replay records and check them (help text: ``_REPLAY_HELP``)."""
    replayed = replay_records(iter_records(file))  # a record at a time: any size of file
    if fmt == "json":
        typer.echo(json.dumps({"replayed": replayed, "identical": True}, indent=2))
        return
    typer.echo(f"replayed {replayed} game{'s' if replayed != 1 else ''}: identical")


def rules_command(
    effects: Annotated[bool, typer.Option("--effects", help="Print every card's effect.")
                       ] = False,
    fmt: Annotated[
        str, typer.Option("--format", "-f", metavar="FMT", callback=_table_format,
                          help="table, markdown, json or any tabulate format.")
    ] = "table",
    house: Annotated[bool, typer.Option("--house", help="List the house rules.")] = False,
    rule: Annotated[list[str] | None, typer.Option("--rule", metavar="NAME=VALUE",
                                                   help=RULE_OPTION_HELP)] = None,
) -> None:
    """Print the rules or the card effects (help text: ``_RULES_HELP``)."""
    chosen = rules_from_texts(rule)
    if not (house or effects) and fmt != "table":  # a script asking json must not get prose
        raise typer.BadParameter("the rules in brief are text; --format goes with --effects "
                                 "or --house", param_hint="'--format' / '-f'")
    if house:
        typer.echo(_house_rules(chosen, fmt))
        return
    if not effects:
        # a terminal's lines wrap at words (it broke them mid-word), continued indented
        typer.echo(wrapped(rules_summary(chosen), indent="  "))
        typer.echo("")
        typer.echo(wrapped(f"Played with {chosen.describe()} (arena rules --house lists "
                           "them)."))
        return
    if fmt == "markdown":
        typer.echo(effect_table_markdown())
    elif fmt == "json":
        typer.echo(json.dumps([{"card": face, "copies": copies, "effect": name,
                                "text": text} for face, copies, name, text in effect_rows()],
                              indent=2))
    else:
        tablefmt = "simple" if fmt == "table" else fmt
        # a long effect wraps onto lines of its cell in a terminal's table; in a document's
        # (github, rst...) each line would be a row of its own
        table = tabulated(effect_rows(), ["card", "copies", "effect", "text"],
                          tablefmt=tablefmt, maxcolwidths=[None, None, 24, 64]
                          if tablefmt in TERMINAL_FORMATS else None)
        typer.echo(_narrowed(table, fmt, [
            (f"{face} ({copies} {'copy' if copies == 1 else 'copies'}): {name}", text)
            for face, copies, name, text in effect_rows()]))


def _narrowed(table: str, fmt: str, entries: list[tuple[str, str]]) -> str:
    """``table``, or on a terminal too narrow for it (its rows broke mid-word into several
    lines each) the same entries as blocks: a heading line, then its text indented, both
    wrapped at words. Another format than ``table`` is kept as asked."""
    width = terminal_width()
    if fmt != "table" or width is None or widest(table) <= width:
        return table
    return "\n".join(fill_words(head, width, "  ") + "\n" + fill_words(f"  {text}", width, "  ")
                     for head, text in entries)


def _tabulate_format(fmt: str) -> str:
    """tabulate's name of a --format: Markdown is its github table."""
    return {"table": "simple", "markdown": "github"}.get(fmt, fmt)


def _house_rules(chosen: HouseRules, fmt: str) -> str:
    """Every house rule and reading, the chosen one marked (the defaults unless --rule)."""
    picked = chosen.to_json()
    if fmt == "json":
        return json.dumps({name: {"value": picked[name], "default": choices[0],
                                  "readings": RULE_HELP[name]}
                           for name, choices in RULE_CHOICES.items()}, indent=2)
    rows = [[name, value, "*" if picked[name] == value else "",
             "default" if value == choices[0] else "", RULE_HELP[name][value]]
            for name, choices in RULE_CHOICES.items() for value in choices]
    table = tabulated(rows, ["rule", "value", "chosen", "", "reading"],
                      tablefmt=_tabulate_format(fmt))
    entries = []
    for name, value, mark, default, reading in rows:
        said = [word for word, shown in (("chosen", mark), ("default", default)) if shown]
        entries.append((f"{name}: {value}" + (f" ({', '.join(said)})" if said else ""),
                        reading))
    return _narrowed(table, fmt, entries)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("desmos", help=_DESMOS_HELP,
                short_help="Evaluate, compare or count Desmos hands.")(desmos_command)
    app.command("simulate", help=_SIMULATE_HELP,
                short_help="Play random games in-process, with statistics.")(simulate_command)
    app.command("replay", help=_REPLAY_HELP,
                short_help="Check that game records replay identically.")(replay_command)
    app.command("rules", help=_RULES_HELP,
                short_help="Print the rules in brief, or the card effects.")(rules_command)
