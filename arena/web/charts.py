"""Charts as SVG made here: no charting library to ship, nothing fetched when a page opens.

A bot's lines take a colour of :data:`LINE_COLOURS` (each 3:1 or more against the chart's
white, told apart with the common colour-vision deficiencies too, and none a card kind's
Okabe-Ito colour); past its eight colours, each bot's mu line also carries marks of its own
shape (a circle, a square...; filled, then hollow), so no two of a league's or a class's
lines look alike (eighty; more share a look), and the legend and the leaderboard show each
bot's colour and mark as its line has them. Each bot's two lines also differ by dash (mu
solid, mu - 3 sigma dashed) and its mu line ends in its name, so no line is told by its
colour alone; the head-to-head scale runs from orange to blue through white, so lightness
carries the value too. With more bots than names fit at the lines' ends (a class of forty),
the leaderboard's top ones are named there, and any other line's name shows while it or its
legend entry is pointed at or focused (site.js), its line drawn over the others and its
whole name under the chart. A name at a line's end is cut here in letters and again in the
browser (site.js) to what fits the chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from unicodedata import combining

from markupsafe import Markup

from arena.common.printable import isolated, printable

__all__ = ["LINE_COLOURS", "OKABE_ITO", "bot_colour", "bot_cue", "heat_colour", "rating_chart"]

#: Okabe & Ito (2008), black left out (it is the text's colour): the card kinds' colours
#: (drawn beside each card's name) and the head-to-head scale's ends.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
             "#8c8c8c")
#: The rating chart's line colours, in the order bots take them (leaderboard order). A line
#: is thin: against white, Okabe-Ito's orange, sky blue and yellow fall under the 3:1 of
#: WCAG's non-text contrast, and its colours are the cards' kinds. These are darker, apart
#: from the cards' and from each other, to normal sight and with protanopia, deuteranopia
#: or tritanopia alike.
LINE_COLOURS = ("#7777ee", "#dd3377", "#7a9900", "#7a2288", "#3a9999", "#7a5500", "#005a4a",
                "#5a0000")

_WIDTH, _HEIGHT = 760, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 104, 12, 34
#: a line's name at its end: this many characters at most (the legend has it whole), and
#: names at least this far apart, one above the other (a 12 px font's line box: 14 px)
_LABEL_CHARS, _LABEL_GAP = 14, 15.0
#: names that fit one above the other at the lines' ends; with more bots, only the top ones
#: (leaderboard order) are named there, the others on request
_NAMES_FIT = int((_HEIGHT - _BOTTOM - _TOP - 4) // _LABEL_GAP) + 1
_TOP_NAMED = 10
#: a phone draws the chart at half size: there the top few are named, larger and shorter
_PHONE_NAMED, _PHONE_CHARS, _PHONE_GAP = 5, 8, 28.0


#: The marks a line carries once the colours are all taken, in turn: each a shape's corners
#: around (0, 0), one unit its half size (a circle has none); a hollow one (filled with the
#: chart's background) after the filled ones.
_SHAPES: dict[str, tuple[tuple[float, float], ...]] = {
    "circle": (), "square": ((-.85, -.85), (.85, -.85), (.85, .85), (-.85, .85)),
    "triangle": ((0, -1.15), (1, .75), (-1, .75)), "diamond": ((0, -1.2), (1.2, 0), (0, 1.2),
                                                                (-1.2, 0)),
    "down": ((0, 1.15), (1, -.75), (-1, -.75))}
_MARKS = [*((shape, True) for shape in _SHAPES), *((shape, False) for shape in list(_SHAPES)[:4])]
#: a mark's half size, and how many a line carries (spread along it, each bot's a little
#: further on than the one before, so that lines lying together do not hide each other's)
_MARK_SIZE, _MARKS_PER_LINE = 4.5, 5


def bot_colour(index: int) -> str:
    return LINE_COLOURS[index % len(LINE_COLOURS)]


def _bot_mark(index: int) -> tuple[str, bool] | None:
    """The shape (and whether filled) of the marks on the line of the bot at ``index``, in
    leaderboard order: none for the first eight, whose colours tell them apart."""
    group = index // len(LINE_COLOURS)
    return None if group == 0 else _MARKS[(group - 1) % len(_MARKS)]


def _mark(shape: tuple[str, bool], colour: str, x: float, y: float, size: float) -> str:
    """One mark at (x, y): filled with the line's colour, or hollow, always outlined in the
    text's colour so that its shape shows on a line of any colour."""
    name, filled = shape
    paint = f'fill="{colour if filled else "#fff"}" stroke="#1a1a1a" stroke-width="1"'
    corners = _SHAPES[name]
    if not corners:
        return f'<circle class="mark" cx="{x:.1f}" cy="{y:.1f}" r="{size:.1f}" {paint}/>'
    points = " ".join(f"{x + dx * size:.1f},{y + dy * size:.1f}" for dx, dy in corners)
    return f'<polygon class="mark" points="{points}" {paint}/>'


def bot_cue(index: int) -> Markup:
    """The key to the line of the bot at ``index`` (leaderboard order), as the legend and
    the leaderboard show it: a short piece of its line, in its colour, with its mark."""
    colour = bot_colour(index)
    shape = _bot_mark(index)
    mark = _mark(shape, colour, 11, 6, 4) if shape else ""
    return Markup(f'<svg class="swatch" viewBox="0 0 22 12" width="22" height="12" '
                  f'aria-hidden="true" focusable="false"><line x1="0" y1="6" x2="22" y2="6" '
                  f'stroke="{colour}" stroke-width="3"/>{mark}</svg>')


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


def _line_marks(index: int, mu: str) -> str:
    """The marks on the mu line (its ``points``) of the bot at ``index``: spread along it,
    each bot's set a little further on than the one before; none for the first eight."""
    shape = _bot_mark(index)
    if shape is None:
        return ""
    corners = [point.split(",") for point in mu.split()]
    phase = (index % len(LINE_COLOURS) + 0.5) / len(LINE_COLOURS)
    at = sorted({round((k + phase) / _MARKS_PER_LINE * (len(corners) - 1))
                 for k in range(_MARKS_PER_LINE)})
    return "".join(_mark(shape, bot_colour(index), float(corners[i][0]), float(corners[i][1]),
                         _MARK_SIZE) for i in at)


def _thin(rows: Sequence[Sequence[float]], most: int = 300) -> Sequence[Sequence[float]]:
    """At most ``most`` points per line (a bot with thousands of games): every k-th, and the
    last, so the chart's end is the rating the leaderboard shows."""
    if len(rows) <= most:
        return rows
    k = -(-len(rows) // most)
    return [*rows[::k], rows[-1]] if (len(rows) - 1) % k else list(rows[::k])


def _spread(ends: list[float], low: float, high: float, gap: float = _LABEL_GAP) -> list[float]:
    """Heights for the names at the lines' ends: each as near its line's end as lets the
    names stay ``gap`` apart, within ``low``..``high`` (room for as many as are given)."""
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


#: combining marks kept on a letter of a name drawn in the chart: an accent or two (a
#: Vietnamese letter has two); a taller stack (a name stored before the rule of names) would
#: be drawn over the lines and names above it, which SVG text cannot clip
_MARKS_KEPT = 2


def _short_label(name: str, chars: int) -> str:
    """``name`` as a line's end shows it: at most ``chars`` letters (a letter with its
    marks), the last an ellipsis when it is cut, and at most :data:`_MARKS_KEPT` marks on a
    letter."""
    letters: list[str] = []
    for char in name:
        if combining(char) and letters:
            if len(letters[-1]) <= _MARKS_KEPT:
                letters[-1] += char
        else:
            letters.append(char)
    if len(letters) > chars:
        letters = [*letters[:chars - 1], "\u2026"]
    return "".join(letters)


def _label(name: str, x: float, y: float, extra: str = "", chars: int = _LABEL_CHARS) -> str:
    short = _short_label(name, chars)
    return (f'<text class="end-label{extra}" x="{x + 5:.1f}" y="{y + 4:.1f}">'
            f'<title>{escape(printable(name))}</title>{escape(isolated(short))}</text>')


def _end_labels(lines: Mapping[str, Sequence[Sequence[float]]], labels: Mapping[str, str],
                x0: float, y1: float, sx: float, sy: float) -> tuple[list[str], dict[str, str]]:
    """The names at the ends of the mu lines (shortened; whole in their tooltips): those
    drawn, kept apart (a set for wide screens, one for phones), and by bot those drawn only
    on request, each at its own line's end."""
    keys = list(lines)
    ends = {k: (_LEFT + (lines[k][-1][0] - x0) * sx, _TOP + (y1 - lines[k][-1][1]) * sy)
            for k in keys}
    named = keys if len(keys) <= _NAMES_FIT else keys[:_TOP_NAMED]
    heights = _spread([ends[k][1] for k in named], _TOP + 4, _HEIGHT - _BOTTOM)
    shown = [_label(labels.get(k, k), ends[k][0], y) for k, y in zip(named, heights)]
    phone = keys[:_PHONE_NAMED]
    heights = _spread([ends[k][1] for k in phone], _TOP + 16, _HEIGHT - _BOTTOM, _PHONE_GAP)
    shown += [_label(labels.get(k, k), ends[k][0], y, " narrow", _PHONE_CHARS)
              for k, y in zip(phone, heights)]
    # a line named at its end on a wide screen is named on request on a phone alone, there
    # as short as the phone's other names: the longer one would run off the chart
    asked = {k: ("" if k in named else _label(
                 labels.get(k, k), ends[k][0], min(max(ends[k][1], _TOP + 4), _HEIGHT - _BOTTOM),
                 " on-request"))
             + _label(labels.get(k, k), ends[k][0],
                      min(max(ends[k][1], _TOP + 16), _HEIGHT - _BOTTOM), " narrow on-request",
                      _PHONE_CHARS)
             for k in keys[len(phone):]}
    return shown, asked


def rating_chart(history: Mapping[str, Sequence[Sequence[float]]], order: Sequence[str],
                 labels: Mapping[str, str]) -> str:
    """Each bot's mu (solid) and mu - 3 sigma (dashed) after each of its own games;
    ``order`` fixes the colours (leaderboard order)."""
    # each bot's line starts at its prior, at game 0: a bot without games has no line (its
    # lone point would pin its name at the chart's corner); it is named under the chart
    bots = [key for key in order if any(row[0] > 0 for row in history.get(key) or ())]
    if not bots:
        return '<p class="empty">No rated games yet.</p>'
    waiting = [key for key in order if key not in bots]
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
    shown, asked = _end_labels(lines, labels, x0, y1, sx, sy)
    mus = {key: _points([(r[0], r[1]) for r in lines[key]], x0, y1, sx, sy) for key in bots}
    # the bots with more games first: every line starts at the prior, and a bot's line that
    # runs along the start of a longer one (two round-one winners) is drawn over it, not under
    drawn = sorted(bots, key=lambda key: -len(lines[key]))
    for key in drawn:
        colour = bot_colour(order.index(key))
        rows = lines[key]
        mu = mus[key]
        low = _points([(r[0], r[1] - 3 * r[2]) for r in rows], x0, y1, sx, sy)
        name = escape(printable(labels.get(key, key)))
        # a wider line no one sees under the mu line: a thin line is hard to point at
        hit = f'<polyline class="hit" points="{mu}"/>' if asked else ""
        out.append(f'<g class="bot" data-bot="{escape(key)}"><title>{name}</title>{hit}'
                   f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{mu}"/>'
                   f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                   f'stroke-dasharray="5 4" points="{low}"/>'
                   f'{_line_marks(order.index(key), mu)}{asked.get(key, "")}</g>')
    out.extend(shown)
    out.append("</svg>")
    return ("".join(out) + _legend(bots, order, labels, bool(asked))
            + _hidden_note(_hidden_lines(drawn, mus), labels) + _not_yet(waiting, labels))


def _segments(points: str) -> set[tuple[str, str]]:
    corners = points.split()
    return set(zip(corners, corners[1:]))


def _hidden_lines(drawn: Sequence[str], mus: Mapping[str, str]) -> dict[str, list[str]]:
    """The bots whose whole mu line (``mus``: its points as drawn) lies under the lines
    drawn after it (``drawn``: in drawing order), each with those lines' bots: two bots with
    the same rating after each game have one line, and the one drawn first is not seen."""
    hidden: dict[str, list[str]] = {}
    for at, key in enumerate(drawn):
        own = _segments(mus[key])
        over = [other for other in drawn[at + 1:] if own & _segments(mus[other])]
        covered = set().union(*(_segments(mus[other]) for other in over))
        if own and own <= covered:
            hidden[key] = over
    return hidden


def _hidden_note(hidden: Mapping[str, Sequence[str]], labels: Mapping[str, str]) -> str:
    """The line naming each bot whose line lies under others' (none: no line)."""
    if not hidden:
        return ""

    def name(key: str) -> str:
        return f"<bdi>{escape(printable(labels.get(key, key)))}</bdi>"

    under = "; ".join(f"{name(key)}'s under " + " and ".join(f"{name(o)}'s" for o in over)
                      for key, over in hidden.items())
    return (f'<p class="hidden-lines" id="hidden-lines">Lines drawn one on another (the same '
            f'rating after each game): {under}.</p>')


def _not_yet(waiting: Sequence[str], labels: Mapping[str, str]) -> str:
    """The line naming the bots that have played no game yet (none: no line)."""
    if not waiting:
        return ""
    names = ", ".join(f"<bdi>{escape(printable(labels.get(k, k)))}</bdi>" for k in waiting)
    return f'<p class="not-yet" id="not-yet">Not yet played, so not on the chart: {names}</p>'


def _legend(bots: Sequence[str], order: Sequence[str], labels: Mapping[str, str],
            on_request: bool) -> str:
    """Every bot's name by its colour and mark; where some lines are not named at their ends, each
    entry is a button that names and raises its line (site.js)."""
    items = []
    for key in bots:
        swatch = bot_cue(order.index(key))
        name = escape(printable(labels.get(key, key)))
        items.append(f'<li><button type="button" class="pick" data-bot="{escape(key)}" '
                     f'aria-pressed="false">{swatch}<bdi>{name}</bdi></button></li>' if on_request
                     else f'<li>{swatch}<bdi>{name}</bdi></li>')
    hint = ("; the top ones are named at their lines' ends: point at a line or at a name "
            "here (or focus it, or press it to keep it) to name and raise its line; the names "
            "are one stop of the Tab key, and the arrow keys move between them"
            if on_request else "")
    # the picked line's whole name, under the chart (site.js): its end has room for a few
    # letters, on a phone fewer, and the legend may be screens away
    picked = '<p class="picked-name" id="picked-name"></p>' if on_request else ""
    # the buttons are a toolbar: one stop of the Tab key, its arrow keys move within it
    # (site.js); its list keeps its role, which a toolbar on the list itself would take
    legend = (f'<ul class="legend">{"".join(items)}<li class="key">solid: mu, dashed: '
              f'mu - 3 sigma{hint}</li></ul>')
    if on_request:
        legend = (f'<div role="toolbar" aria-label="The chart\'s lines, by bot">{legend}'
                  '</div>')
    return picked + legend
