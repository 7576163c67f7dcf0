"""The rules as text, built from the engine's own tables and constants.

RULES.md's effect table and census table (:func:`effect_rows`, :func:`effect_table_markdown`,
:func:`census_table_markdown`; a test holds RULES.md to them so the document cannot drift from
the code) and the summary ``arena rules`` prints (:func:`rules_summary`).
"""

from __future__ import annotations

from typing import Final

from arena.engine.cards import CARD_IDS, DECK, NOTATION, PALAESTRON
from arena.engine.desmos import Category, census
from arena.engine.effects import EFFECTS, PALAESTRON_TEXT
from arena.engine.houserules import DEFAULT_RULES, HouseRules
from arena.engine.rulebook import MAX_TRAPS, ROUNDS_BY_PLAYERS

__all__ = [
    "CATEGORY_LABELS",
    "census_table_markdown",
    "effect_rows",
    "effect_table_markdown",
    "rules_summary",
]

#: Category names, best first (the rulebook's order).
CATEGORY_LABELS: tuple[str, ...] = tuple(c.label for c in sorted(Category, reverse=True))


def effect_rows() -> list[tuple[str, int, str, str]]:
    """(face, copies in the deck, effect name, rules text) for every card face, deck order,
    the Palaestron last. This is RULES.md's effect table."""
    rows = []
    for face in dict.fromkeys(NOTATION):
        copies = len(CARD_IDS[DECK[NOTATION.index(face)]])
        if face == NOTATION[PALAESTRON]:
            continue
        effect = EFFECTS[face]
        rows.append((face, copies, effect.name, effect.text))
    rows.append((NOTATION[PALAESTRON], 1, "The Palaestron", PALAESTRON_TEXT))
    return rows


def _escape(cell: object) -> str:
    return str(cell).replace("|", "\\|")


def effect_table_markdown() -> str:
    """The effect table as a Markdown table (exactly the block in RULES.md)."""
    lines = ["| Card | Copies | Effect | What it does |", "|---|---|---|---|"]
    for face, copies, name, text in effect_rows():
        lines.append(f"| `{face}` | {copies} | {_escape(name)} | {_escape(text)} |")
    return "\n".join(lines)


def census_table_markdown(counts: dict[Category, int] | None = None) -> str:
    """The census (every 5-card hand of the 51 cards other than the Palaestron) as Markdown."""
    counts = census() if counts is None else counts
    total = sum(counts.values())
    lines = ["| Category | Hands | Share |", "|---|---:|---:|"]
    for category in sorted(counts, reverse=True):
        hands = counts[category]
        lines.append(f"| {category.label} | {hands:,} | {100 * hands / total:.4f}% |")
    lines.append(f"| **Total** | **{total:,}** | 100% |")
    return "\n".join(lines)


#: When a trap may be triggered, by the ``trap_windows`` house rule (E10).
_TRAP_WINDOWS: Final = {
    "any_time": "at the start of any turn, when an opponent declares a play, triggers a "
                "trap or force-discards a God, when a Palaestron is drawn, and before the "
                "showdown",
    "turn_and_play": "at the start of any turn and when an opponent declares a play",
}


def rules_summary(rules: HouseRules = DEFAULT_RULES) -> str:
    """Palaestra in brief (``arena rules``) under ``rules``, built from the engine's own
    constants."""
    rounds = ", ".join(f"{n} players {r}" for n, r in ROUNDS_BY_PLAYERS.items())
    return "\n".join([
        "Palaestra in brief (every rule quoted, with the engine's rulings: RULES.md)",
        "",
        "Deck: 52 cards: 7 Gods (God-1..God-7), 22 Class cards (Agari-1..6, Umbrae-1..6, "
        "Arcoi-1..5, Sophoi-1..5), 10 Fates (Fate-1..5 x2), 10 Beasts (Beast-1..5 x2), "
        "2 Crowns (wild), 1 Palaestron.",
        f"Rounds: {rounds}. A round is one turn per player in seat order.",
        "Turn: Hold, or Play a card (resolve its effect, draw 1), or Set a Trap face-down "
        f"(draw 1; at most {MAX_TRAPS} per Arena); then optionally Swap (discard 1, draw 1). "
        "Every hand is back to 5 at the end of every turn.",
        f"Traps: their owner may trigger them {_TRAP_WINDOWS[rules.trap_windows]} (not in "
        "the turn they were set in); they expire at the end of the owner's second turn after "
        "the one they were set in.",
        "Palaestron: played at once when drawn: each player discards 1, draws 1, reveals 1; "
        "then every trap is cleared. It never counts in a Desmos.",
        "Forced discards are revealed; only a God fires its effect when force-discarded.",
        "Desmos, best first: " + ", ".join(CATEGORY_LABELS) + ". The Ascension (five natural "
        "Gods) wins at once.",
        "Ties: card by card by family tier (God 5, Crown 4, Class 3, Fate 2, Beast 1). Equal "
        "first place then goes to the most recent book finished within the year, then to "
        "Rock-Paper-Scissors; other equal hands share their place.",
        "",
        "Every card's effect: arena rules --effects",
    ])
