"""Output formats shared by the rating commands: every tabulate format, plus json and csv.

Text tables are for people (rounded numbers); json and csv are for programs and keep full
float precision, so values read back are exactly the ones computed. A spreadsheet opens csv
and tsv too, so a cell of text that it would run as a formula is marked as text there
(:func:`_spreadsheet_text`).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tabulate import tabulate_formats

from arena.common.fitting import printable_cells, tabulated
from arena.common.printable import json_escaped, printable

__all__ = [
    "MACHINE_FORMATS",
    "OUTPUT_FORMATS",
    "TABLE_FORMATS",
    "check_format",
    "render_csv",
    "render_json",
    "render_table",
]

MACHINE_FORMATS = ("json", "csv")
#: tabulate's formats but those that write cells unescaped into HTML or LaTeX: a bot's name
#: is chosen by its author, and a page or document built from them would run its markup.
TABLE_FORMATS: tuple[str, ...] = tuple(f for f in tabulate_formats
                                       if f not in ("unsafehtml", "latex_raw"))
OUTPUT_FORMATS: tuple[str, ...] = (*MACHINE_FORMATS, *TABLE_FORMATS)


#: How a cell that a spreadsheet runs as a formula starts (OWASP's "CSV Injection" list but
#: the tab and CR, escaped before: :func:`_csv_text`), with the forms a spreadsheet may read
#: as them (fullwidth, small: their NFKC form), and the quote that marks a cell as text: a
#: cell starting with it is marked too, so that a reader drops one leading quote from a text
#: cell and gets the text back.
_FORMULA_STARTS = "=＝﹦+＋﹢\\-－﹣@＠﹫'＇"
#: Where a spreadsheet may start a cell inside a text: at ``,``, ``;`` or a tab (as a locale or
#: its reader splits lines, inside quotes too: a quote counts only at a cell's start), at
#: ``|`` when told to, and at their fullwidth and small forms.
_CELL_SEPARATORS = ",，﹐;；﹔\t|｜"
#: A cell's start (the text's, or after a separator) that runs as a formula: its spaces
#: trimmed and a quote at its start read as quoting it, as a spreadsheet may.
_FORMULA_CELL = re.compile(f"(^|[{_CELL_SEPARATORS}])(?=[\\s\"＂]*[{_FORMULA_STARTS}])")


def _spreadsheet_text(text: str) -> str:
    """``text`` as a spreadsheet shows it rather than runs it: a ``'`` is put at its start,
    and after each separator, where the cell a spreadsheet reads there starts like a formula
    (a failure's detail in the bot's words; a bot's name from a database stored before such
    names were refused)."""
    return _FORMULA_CELL.sub(r"\1'", text)


def _csv_text(text: str) -> str:
    # controls are escaped where a name enters the arena, so this changes only a name of a
    # database stored before: a tab or line end there would start a cell at another
    # separator, quoted or not
    return _spreadsheet_text(printable(text))


def _tsv_cell(text: str) -> str:
    # a lone '-' is the table's mark of a cell without a figure (a bot against itself),
    # and no formula
    shown = printable(text)
    return shown if shown == "-" else _spreadsheet_text(shown)


def _backslashed(specials: str) -> Callable[[str], str]:
    pattern = re.compile(f"[{re.escape(specials)}]")
    return lambda text: pattern.sub(lambda m: "\\" + m.group(), text)


def _replaced(old: str, new: str) -> Callable[[str], str]:
    return lambda text: text.replace(old, new)


#: How each markup format writes a cell's text so that it stays that text in its cell. A
#: bot's name may no longer hold ``|``, but a database written before still has such names,
#: and a bot.yaml's name may hold ``*``, ``_`` and the like. ``|`` separates cells in all of
#: them but one, each writing it its own way (Markdown's ``\|`` is a backslash in org-mode);
#: in reStructuredText ``|x|`` is a substitution, ``x_`` a link and ``*x*`` emphasis, each
#: an error or another text. The plain-text formats draw their ``|`` around the cells and
#: need nothing; HTML and LaTeX are escaped by tabulate.
_CELL_ESCAPES: dict[str, Callable[[str], str]] = {
    "github": _backslashed("|"),
    "pipe": _backslashed("|"),
    "jira": _backslashed("|"),
    "asciidoc": _backslashed("|"),
    "orgtbl": _replaced("|", "\\vert{}"),
    "mediawiki": _replaced("|", "&#x7C;"),
    "moinmoin": _replaced("|", "&#x7C;"),
    "textile": _replaced("|", "&#x7C;"),
    "youtrack": _replaced("|", "&#x7C;"),
    "rst": _backslashed("\\|_*`"),
    "tsv": _tsv_cell,
}


def check_format(fmt: str) -> str:
    """Return ``fmt`` if it is an output format; raise ValueError with the choices otherwise."""
    if fmt in OUTPUT_FORMATS:
        return fmt
    raise ValueError(
        f"unknown format '{fmt}' (choose json, csv or a tabulate format: "
        f"{', '.join(TABLE_FORMATS)})"
    )


def render_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str,
                 floatfmt: Sequence[str] | str = "g") -> str:
    """A tabulate table; ``None`` cells show as ``-`` (empty in ``tsv``).

    Numbers are formatted with ``floatfmt``; text columns are never parsed as numbers, so a
    version such as ``1e5`` or ``0042`` prints as stored. In the markup formats a ``|`` in a
    cell, and what else would change it, is escaped as the format expects (``_CELL_ESCAPES``),
    so that it stays its text in its cell. A ``tsv``'s cells are their values alone, unpadded
    (:func:`arena.common.fitting.tabulated`), as a spreadsheet reads them.
    """
    if fmt not in TABLE_FORMATS:  # tabulate would print an unknown format as "simple"
        raise ValueError(f"'{fmt}' is not a table format: its renderer must handle it")
    # escaped before the format's own escapes (rst would read a backslash added after as
    # its escape) and before tabulate pads the cells around the text it prints
    data = printable_cells(rows)
    text_columns = sorted({i for row in data for i, v in enumerate(row) if isinstance(v, str)})
    head = [printable(h) for h in headers]
    escape = _CELL_ESCAPES.get(fmt)
    if escape is not None:
        data = [[escape(v) if isinstance(v, str) else v for v in row] for row in data]
        head = [escape(h) for h in head]
    return tabulated(
        data,
        head,
        tablefmt=fmt,
        floatfmt=floatfmt if isinstance(floatfmt, str) else list(floatfmt),
        missingval="" if fmt == "tsv" else "-",  # a spreadsheet's empty cell, as csv's
        disable_numparse=text_columns or False,
    )


def render_json(payload: Any) -> str:
    """Pretty JSON; floats print with ``repr`` precision, so they round-trip exactly. A
    control character in a text (a database from elsewhere holds any) is a ``\\u`` escape."""
    return json_escaped(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False))


def render_csv(headers: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> str:
    """CSV with a header row; None becomes an empty cell, floats keep ``repr`` precision.

    A text cell that a spreadsheet would run as a formula is marked as text
    (:func:`_spreadsheet_text`), a header's too (the leaderboard's ``failures_TYPE`` names a
    type stored in a database that may come from elsewhere); numbers are left as they are
    (``-4.2`` is a number there)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(headers), lineterminator="\n",
                            extrasaction="ignore")
    writer.writer.writerow([_csv_text(header) for header in headers])
    for row in rows:
        writer.writerow({k: ("" if v is None else _csv_text(v) if isinstance(v, str) else v)
                         for k, v in row.items()})
    return buffer.getvalue().rstrip("\n")
