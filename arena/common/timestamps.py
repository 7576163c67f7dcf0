"""Stored times (ISO 8601, UTC) as a narrow table shows them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["created_fitted"]

_UTC = "+00:00"


def _shortened(stamp: Any, cells: int) -> Any:
    """``2026-12-04T04:30:36+00:00`` as ``2026-12-04 04:30`` (16 cells) or ``2026-12-04``
    (10); anything else as it is."""
    if not isinstance(stamp, str) or not stamp.endswith(_UTC) or "T" not in stamp:
        return stamp
    return stamp.removesuffix(_UTC).replace("T", " ")[:cells]


def created_fitted(render: Callable[[Sequence[str], list[list[Any]]], str],
                   headers: Sequence[str], rows: list[list[Any]], width: int | None) -> str:
    """``render(headers, rows)``, a list whose last column is a stored time ("created"); on a
    terminal of ``width`` columns it is too wide for, that time to the minute, its header
    saying UTC, or else the day alone (a pipe's or a file's, ``width`` None, keeps the whole
    time for scripts)."""
    table = render(headers, rows)
    for cells, header in ((16, f"{headers[-1]} (UTC)"), (10, headers[-1])):
        if width is None or max(map(len, table.splitlines()), default=0) <= width:
            break
        table = render([*headers[:-1], header],
                       [[*row[:-1], _shortened(row[-1], cells)] for row in rows])
    return table
