"""Charts as SVG made here: no charting library to ship, nothing fetched when a page opens.

Colours are the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies); each bot's two lines also differ by dash (mu solid, mu - 3 sigma dashed) and
its mu line ends in its name, so no line is told by its colour alone; the head-to-head scale
runs from orange to blue through white, so lightness carries the value too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

__all__ = ["OKABE_ITO", "bot_colour", "heat_colour", "rating_chart"]

#: Okabe & Ito (2008), black left out (it is the text's colour).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
             "#8c8c8c")

_WIDTH, _HEIGHT = 760, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 104, 12, 34
#: a line's name at its end: this many characters at most (the legend has it whole), and
#: names at least this far apart, one above the other
_LABEL_CHARS, _LABEL_GAP = 14, 13.0


def bot_colour(index: int) -> str:
    return OKABE_ITO[index % len(OKABE_ITO)]


def _mix(a: str, b: str, t: float) -> str:
    pa = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    pb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(pa, pb))


def heat_colour(rate: float) -> str:
    """A win rate's cell colour: vermillion-orange (0) through white (0.5) to blue (1)."""
    rate = min(1.0, max(0.0, rate))
    if rate < 0.5:
        return _mix("#E69F00", "#FFFFFF", rate / 0.5)
    return _mix("#FFFFFF", "#56B4E9", (rate - 0.5) / 0.5)


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = high - low or 1.0
    raw = span / count
    step = min((s * 10 ** e for e in range(-2, 6) for s in (1, 2, 5) if s * 10 ** e >= raw),
               default=raw)
    first = (low // step) * step
    return [first + i * step for i in range(count + 3) if low <= first + i * step <= high]


def _points(series: Sequence[tuple[float, float]], x: float, y: float, sx: float,
            sy: float) -> str:
    return " ".join(f"{_LEFT + (gx - x) * sx:.1f},{_TOP + (y - gy) * sy:.1f}"
                    for gx, gy in series)


def _thin(rows: Sequence[Sequence[float]], most: int = 300) -> Sequence[Sequence[float]]:
    """At most ``most`` points per line (a bot with thousands of games): every k-th, and the
    last, so the chart's end is the rating the leaderboard shows."""
    if len(rows) <= most:
        return rows
    k = -(-len(rows) // most)
    return [*rows[::k], rows[-1]] if (len(rows) - 1) % k else list(rows[::k])


def _spread(ends: list[float], low: float, high: float) -> list[float]:
    """Heights for the names at the lines' ends: each as near its line's end as lets the
    names stay ``_LABEL_GAP`` apart (closer only when more names than fit so), within
    ``low``..``high``."""
    gap = min(_LABEL_GAP, (high - low) / max(1, len(ends) - 1))
    order = sorted(range(len(ends)), key=lambda i: ends[i])
    placed = [0.0] * len(ends)
    floor = low
    for i in order:
        placed[i] = floor = max(ends[i], floor)
        floor += gap
    ceiling = high
    for i in reversed(order):  # pushed below the chart: move the stack up, keeping the gaps
        placed[i] = ceiling = min(placed[i], ceiling)
        ceiling -= gap
    return placed


def _end_labels(lines: Mapping[str, Sequence[Sequence[float]]], labels: Mapping[str, str],
                x0: float, y1: float, sx: float, sy: float) -> list[str]:
    """Each bot's name at the end of its mu line (shortened; whole in its tooltip)."""
    keys = list(lines)
    ends = [(_LEFT + (lines[k][-1][0] - x0) * sx, _TOP + (y1 - lines[k][-1][1]) * sy)
            for k in keys]
    heights = _spread([y for _, y in ends], _TOP + 4, _HEIGHT - _BOTTOM)
    out = []
    for key, (x, _), y in zip(keys, ends, heights):
        name = labels.get(key, key)
        short = name if len(name) <= _LABEL_CHARS else name[:_LABEL_CHARS - 1] + "\u2026"
        out.append(f'<text class="end-label" x="{x + 5:.1f}" y="{y + 4:.1f}">'
                   f'<title>{escape(name)}</title>{escape(short)}</text>')
    return out


def rating_chart(history: Mapping[str, Sequence[Sequence[float]]], order: Sequence[str],
                 labels: Mapping[str, str]) -> str:
    """Each bot's mu (solid) and mu - 3 sigma (dashed) after each of its own games;
    ``order`` fixes the colours (leaderboard order)."""
    bots = [key for key in order if history.get(key)]
    if not bots:
        return '<p class="empty">No rated games yet.</p>'
    lines = {key: _thin(history[key]) for key in bots}
    xs = [row[0] for rows in lines.values() for row in rows]
    ys = [v for rows in lines.values() for row in rows for v in (row[1], row[1] - 3 * row[2])]
    x0, x1 = 0.0, max(xs) or 1.0
    y0, y1 = min(ys) - 1, max(ys) + 1
    sx = (_WIDTH - _LEFT - _RIGHT) / (x1 - x0)
    sy = (_HEIGHT - _TOP - _BOTTOM) / (y1 - y0)
    out = [f'<svg class="chart" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" '
           'aria-labelledby="chart-title">',
           '<title id="chart-title">Rating over games: mu (solid) and mu - 3 sigma (dashed)'
           '</title>']
    for tick in _ticks(y0, y1):
        y = _TOP + (y1 - tick) * sy
        out.append(f'<line class="grid" x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y:.1f}" '
                   f'y2="{y:.1f}"/><text class="tick" x="{_LEFT - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{tick:g}</text>')
    for tick in _ticks(x0, x1):
        x = _LEFT + (tick - x0) * sx
        out.append(f'<text class="tick" x="{x:.1f}" y="{_HEIGHT - _BOTTOM + 16}" '
                   f'text-anchor="middle">{tick:g}</text>')
    out.append(f'<text class="axis" x="{(_WIDTH + _LEFT) / 2:.0f}" y="{_HEIGHT - 4}" '
               'text-anchor="middle">the bot\'s games (in rating order)</text>')
    for key in bots:
        colour = bot_colour(order.index(key))
        rows = lines[key]
        mu = [(r[0], r[1]) for r in rows]
        low = [(r[0], r[1] - 3 * r[2]) for r in rows]
        name = escape(labels.get(key, key))
        out.append(f'<g class="bot" data-bot="{escape(key)}"><title>{name}</title>'
                   f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                   f'points="{_points(mu, x0, y1, sx, sy)}"/>'
                   f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                   f'stroke-dasharray="5 4" points="{_points(low, x0, y1, sx, sy)}"/></g>')
    out.extend(_end_labels(lines, labels, x0, y1, sx, sy))
    out.append("</svg>")
    legend = "".join(
        f'<li><span class="swatch" style="background:{bot_colour(order.index(key))}"></span>'
        f'{escape(labels.get(key, key))}</li>' for key in bots)
    return "".join(out) + f'<ul class="legend">{legend}<li class="key">solid: mu, ' \
                          'dashed: mu - 3 sigma</li></ul>'
