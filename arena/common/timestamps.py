"""Stored times (ISO 8601, UTC) as a narrow table shows them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena.common.fitting import fit_columns, shortened, widest

__all__ = ["created_fitted"]

_UTC = "+00:00"


def _shortened(stamp: Any, cells: int) -> Any:
    """``2026-12-04T04:30:36+00:00`` as ``2026-12-04 04:30`` (16 cells) or ``2026-12-04``
    (10); anything else as it is."""
    if not isinstance(stamp, str) or not stamp.endswith(_UTC) or "T" not in stamp:
        return stamp
    return stamp.removesuffix(_UTC).replace("T", " ")[:cells]


def created_fitted(render: Callable[[Sequence[str], list[list[Any]]], str],
                   headers: Sequence[str], rows: list[list[Any]], width: int | None,
                   drop_order: Sequence[str] = ()) -> tuple[str, list[str]]:
    """``render(headers, rows)``, a list whose last column is a stored time ("created") and
    whose first a name; on a terminal of ``width`` columns it is too wide for, that time to
    the minute, its header saying UTC, or else the day alone; then without the columns of
    ``drop_order``, first to last, and the names cut (:func:`arena.common.fitting.fit_columns`).
    Returns the table and the columns left out (a pipe's or a file's, ``width`` None, keeps
    every column and the whole time for scripts)."""
    table = render(headers, rows)
    shown_headers, shown_rows = list(headers), rows
    for cells, header in ((16, f"{headers[-1]} (UTC)"), (10, headers[-1])):
        if width is None or widest(table) <= width:
            return table, []
        shown_headers = [*headers[:-1], header]
        shown_rows = [[*row[:-1], _shortened(row[-1], cells)] for row in rows]
        table = render(shown_headers, shown_rows)

    def drawn(kept: Sequence[str], most: int | None) -> str:
        keep = [list(headers).index(column) for column in kept]
        return render([shown_headers[i] for i in keep],
                      [[shortened(row[i], most) if i == 0 else row[i] for i in keep]
                       for row in shown_rows])

    return fit_columns(drawn, headers, drop_order, width, [str(row[0]) for row in rows])
