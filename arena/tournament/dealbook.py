"""A deal book: a file of fixed deals that every pairing of a tournament plays in order, as
chess engines play an opening book (docs/TOURNAMENTS.md, "Deal books").

A deal is a game seed: it shuffles the deck and decides every later draw, so two tables given
one seed are dealt the same cards (who starts still follows ruling 13). The file holds one
deal a line: a seed (an integer from 0 to 2**63 - 1), or a JSON object with a ``seed`` (a line
of ``arena export``, or a game record; one whose seed an earlier line gave is the same deal in
another seating, and is skipped); blank lines and lines starting with ``#`` are skipped. The
file may be gzip-compressed.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path
from typing import Any

from arena.common.wholefile import read_text
from arena.errors import SpecError

__all__ = ["book_digest", "read_deal_book", "table_deals"]

#: The most deals a book may hold (a typo such as a binary file stops here, not in memory).
MAX_DEALS = 1_000_000
_SEED_LIMIT = 2**63


def read_deal_book(path: Path) -> tuple[int, ...]:
    """The deals of the book at ``path``, in order; a :class:`SpecError` naming the line of
    the first problem."""
    try:
        text = read_text(path)  # arena export FILE.gz writes gzip
    except (OSError, EOFError, zlib.error, ValueError) as exc:  # BadGzipFile: OSError
        # a ValueError other than text's: a spec's name holding a NUL, which no file has
        why = ("not UTF-8 text" if isinstance(exc, UnicodeDecodeError)
               else "no file's name holds a NUL character" if isinstance(exc, ValueError)
               else getattr(exc, "strerror", None) or f"a broken gzip file ({exc})")
        raise SpecError(f"cannot read the deal book {path}: {why}") from None
    deals: list[int] = []
    dealt: set[int] = set()
    # "\n" only: a line of an export may hold U+2028 and the like inside its JSON strings
    for number, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        seed = _seed(line)
        if seed is None:
            shown = line if len(line) <= 40 else line[:40] + "..."
            raise SpecError(f"deal book {path}, line {number}: expected a seed (an integer from "
                            f"0 to 2**63 - 1) or a JSON object with one, got {shown!r}")
        if line.startswith("{") and seed in dealt:
            # an export of a duplicate tournament (or of one played from a book) holds each
            # deal once per seating: read as it stands, its pairings would play it again
            continue
        deals.append(seed)
        dealt.add(seed)
        if len(deals) > MAX_DEALS:
            raise SpecError(f"deal book {path}: more than {MAX_DEALS:,} deals")
    if not deals:
        raise SpecError(f"deal book {path} holds no deals (one seed a line)")
    return tuple(deals)


def _seed(line: str) -> int | None:
    value: Any
    if line.startswith("{"):
        try:
            value = json.loads(line).get("seed")
        except (ValueError, AttributeError):
            return None
    else:
        try:
            value = int(line.replace("_", ""), 10)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value < _SEED_LIMIT else None


def book_digest(deals: tuple[int, ...]) -> str:
    """16 hex digits naming a book's deals (its file name and comments do not count)."""
    return hashlib.sha256(",".join(map(str, deals)).encode()).hexdigest()[:16]


def table_deals(deals: tuple[int, ...], round_no: int, per_table: int) -> tuple[int, ...]:
    """The seeds of a table's deals in round ``round_no`` (1-based): every table of a round
    plays the same ``per_table`` deals of the book, and each round goes on from where the
    previous one stopped, starting over at the book's end. Empty without a book."""
    if not deals:
        return ()
    start = (round_no - 1) * per_table
    return tuple(deals[(start + d) % len(deals)] for d in range(per_table))
