"""A table fitted to a terminal's width: columns left out in a given order, then names cut.

The listings for people (``arena leaderboard``, ``arena bots``, ``arena status``, ``arena
match``, ``arena pairings``, ``arena simulate``...) draw every column on a pipe or a file,
where scripts read them; on a narrower terminal a row wrapped onto the next line reads as two.
Each listing says which of its columns matter least, and names the ones left out under the
table. :func:`fit_columns` fits any table drawn by a function; :func:`fit_rows` draws rows
with ``tabulate`` and fits them; :func:`tabulated` is ``tabulate`` with a ``tsv``'s cells
left as their values, for a spreadsheet.

A cell's text is escaped (:func:`arena.common.printable.printable`) before the table is laid
out, never after: a database made elsewhere may hold a name with an escape sequence or a
bidi control, and a table padded around the raw text and escaped after would push that row's
other cells out of their columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tabulate import tabulate
from wcwidth import wcswidth

from arena.common.printable import printable

__all__ = ["ELLIPSIS", "TERMINAL_FORMATS", "aligned", "fit_columns", "fit_rows", "fitting_width",
           "not_shown", "not_shown_lines", "printable_cells", "shortened", "tabulated", "widest",
           "with_notes"]

#: What a cut name ends with.
ELLIPSIS = "…"
#: The fewest characters a cut name keeps (with its ellipsis): less says nothing.
_SHORTEST = 8

#: Draws the table with the columns named (in the table's order); the second argument is
#: the most characters a name may have (None: whole), cut by :func:`shortened`.
Render = Callable[[Sequence[str], int | None], str]


#: The tabulate formats drawn for a terminal, which a table is fitted to: every other one
#: (Markdown, reStructuredText, HTML, LaTeX, a wiki's, ``tsv``...) goes into a document or a
#: spreadsheet, whose width is not the terminal's, and where a line naming the columns left
#: out would be read as one more row.
TERMINAL_FORMATS = frozenset({
    "plain", "simple", "grid", "simple_grid", "rounded_grid", "heavy_grid", "mixed_grid",
    "double_grid", "fancy_grid", "outline", "simple_outline", "rounded_outline",
    "heavy_outline", "mixed_outline", "double_outline", "fancy_outline", "presto", "psql",
    "pretty"})


def fitting_width(tablefmt: str, width: int | None) -> int | None:
    """The width a table in ``tablefmt`` fits: ``width`` in a format drawn for a terminal
    (:data:`TERMINAL_FORMATS`), else None (a pipe's: every column, every name whole), as a
    document or a spreadsheet takes the table whole whatever the terminal that wrote it."""
    return width if tablefmt in TERMINAL_FORMATS else None


def with_notes(table: str, notes: Sequence[str], tablefmt: str) -> str:
    """``table`` and the lines of prose under it: right under it in a terminal's format,
    after a blank line in a document's (Markdown reads a line right under a table as one
    more row of it, reStructuredText refuses it), and none in a ``tsv`` (a spreadsheet
    reads each as a row)."""
    if tablefmt == "tsv" or not notes:
        return table
    return table + ("\n" if tablefmt in TERMINAL_FORMATS else "\n\n") + "\n".join(notes)


def printable_cells(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """``rows`` with each text cell :func:`printable`, the other cells as they are: what a
    table is laid out from, so that its columns are measured on the text it prints."""
    return [[printable(cell) if isinstance(cell, str) else cell for cell in row] for row in rows]


def tabulated(rows: Sequence[Sequence[Any]], headers: Sequence[str], tablefmt: str = "simple",
              **options: Any) -> str:
    """``tabulate(rows, headers, tablefmt, **options)`` of the cells' printable text, but a
    ``tsv`` of each cell's value alone (:func:`_tsv`): tabulate pads its cells with spaces to
    align them, which a spreadsheet keeps (a number padded is text), breaks a cell at
    ``maxcolwidths`` onto lines a spreadsheet reads as rows, and drops a row's empty cells at
    its end."""
    if tablefmt == "tsv":
        return _tsv(rows, headers, options.get("floatfmt", "g"), options.get("missingval", ""))
    return str(tabulate(printable_cells(rows), headers=[printable(h) for h in headers],
                        tablefmt=tablefmt, **options))


def _tsv(rows: Sequence[Sequence[Any]], headers: Sequence[str],
         floatfmt: str | Sequence[str], missingval: str) -> str:
    """Lines of tab-separated cells: a float written in its column's ``floatfmt``, ``None``
    as ``missingval``, text as it is, its controls escaped (a tab or a line end in it would
    start another cell or row)."""
    def cell(value: Any, column: int) -> str:
        if value is None:
            return missingval
        if isinstance(value, float):
            return format(value, floatfmt if isinstance(floatfmt, str) else floatfmt[column])
        return printable(str(value))

    return "\n".join("\t".join(cell(value, i) for i, value in enumerate(row))
                     for row in [list(headers), *rows])


def widest(text: str) -> int:
    """The columns the widest line of ``text`` takes on a terminal: a CJK letter takes two, a
    zero-width one none (as tabulate lays the cells out, with the same ``wcwidth``)."""
    return max(map(_columns, text.splitlines()), default=0)


def _columns(line: str) -> int:
    width = wcswidth(line)
    return width if width >= 0 else len(line)  # a control character: no width it knows


def shortened(name: str, most: int | None) -> str:
    """``name``, or where it is longer than ``most`` characters, its start and an ellipsis
    in ``most``."""
    if most is None or len(name) <= most:
        return name
    return name[:max(most - len(ELLIPSIS), 1)] + ELLIPSIS


def not_shown(left_out: Sequence[str], whole: str = "") -> str:
    """The line under a fitted table naming the columns it left out, and where ``whole``
    (``"--format json has every field"``) says what shows them all."""
    return f"Not shown, to fit the terminal: {', '.join(left_out)}{f'; {whole}' if whole else ''}."


def not_shown_lines(left_out: Sequence[str], whole: str = "") -> list[str]:
    """:func:`not_shown` as lines to add under a table: none when nothing was left out."""
    return [not_shown(left_out, whole)] if left_out else []


def fit_columns(render: Render, columns: Sequence[str], drop_order: Sequence[str],
                width: int | None, names: Sequence[str] = ()) -> tuple[str, list[str]]:
    """``render(columns, None)``, or on a terminal ``width`` columns wide that it is wider
    than, without the columns of ``drop_order``, first to last, until it fits; and where even
    the rest is wider, with the ``names`` (the cells :func:`shortened` may cut) cut to fit,
    down to a few characters. Returns the table and the columns left out. ``width`` None (a
    pipe's or a file's): every column, every name whole."""
    shown = list(columns)
    left_out: list[str] = []
    text = render(shown, None)
    for name in drop_order:
        if width is None or widest(text) <= width:
            return text, left_out
        if name in shown:
            shown.remove(name)
            left_out.append(name)
            text = render(shown, None)
    most = max(map(len, names), default=0)
    while width is not None and widest(text) > width and most > _SHORTEST:
        # each pass cuts the names by what the widest line is over
        most = max(most - (widest(text) - width), _SHORTEST)
        text = render(shown, most)
    return text, left_out


def aligned(headers: Sequence[str], rows: Sequence[Sequence[str]], text: Sequence[str] = (),
            indent: str = "  ") -> str:
    """A plain table of figures: each column right-aligned to its widest cell, one space
    apart, except the ``text`` columns, left-aligned two spaces on (where a note reads)."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]
    lines = []
    for row in (headers, *rows):
        line = ""
        for header, cell, width in zip(headers, row, widths):
            line += (f"  {cell:<{width}}" if header in text else f" {cell:>{width}}")
        lines.append(indent + line[1:].rstrip())
    return "\n".join(lines)


def fit_rows(headers: Sequence[str], rows: Sequence[Sequence[Any]], drop_order: Sequence[str],
             width: int | None, *, names: int | None = None, columns: Sequence[str] | None = None,
             **tabulate_options: Any) -> tuple[str, list[str]]:
    """:func:`fit_columns` of ``rows`` under ``headers``, drawn by ``tabulate`` (with
    ``tabulate_options``): the cells of column ``names`` (an index of ``headers``) are the
    ones cut, as printed (escaped); ``columns``, the headers shown at most (default all)."""
    rows = printable_cells(rows)

    def render(kept: Sequence[str], most: int | None) -> str:
        keep = [list(headers).index(column) for column in kept]
        return tabulated([[shortened(str(row[i]), most) if i == names and most is not None
                           else row[i] for i in keep] for row in rows], kept, **tabulate_options)

    cut = [str(row[names]) for row in rows] if names is not None else []
    return fit_columns(render, headers if columns is None else columns, drop_order, width, cut)
