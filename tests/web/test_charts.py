"""The rating chart: each bot's lines are told apart by more than their colour."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import arena.web
from arena.web.charts import rating_chart
from arena.web.site import KIND_COLOURS

_LABEL = re.compile(r'<text class="end-label" x="([\d.]+)" y="([\d.-]+)"><title>([^<]*)</title>')


def history(ends: list[float]) -> dict[str, list[list[float]]]:
    """A bot per end rating, each with as many games as its place (the lines end apart)."""
    return {f"bot-{i}": [[g + 1, 25.0 + (end - 25.0) * (g + 1) / (i + 1), 1.0]
                         for g in range(i + 1)] for i, end in enumerate(ends)}


def test_each_line_ends_in_its_bots_name() -> None:
    """The bots' lines differed by colour alone (the legend under the chart matched them by
    colour): a reader who cannot tell two of its colours apart could not tell which is whose."""
    long = "heuristic-entered-under-a-very-long-name"
    svg = rating_chart(history([28.0, 24.0, 18.0]), ["bot-0", "bot-1", "bot-2"],
                       {"bot-0": "heuristic", "bot-1": "greedy", "bot-2": long})
    labels = {name: (float(x), float(y)) for x, y, name in _LABEL.findall(svg)}
    assert set(labels) == {"heuristic", "greedy", long}
    # each isolated (a right-to-left name's ellipsis at its own end)
    assert ">\u2068heuristic\u2069</text>" in svg and ">\u2068greedy\u2069</text>" in svg
    # shortened; whole in its tooltip and the legend
    assert f">\u2068{long[:13]}\u2026\u2069</text>" in svg
    # each name at its own line's end: the line with more games ends further right
    assert labels["heuristic"][0] < labels["greedy"][0] < labels[long][0]


def label_heights(svg: str, kind: str = "") -> list[float]:
    pattern = rf'<text class="end-label{kind}" x="[\d.]+" y="([\d.-]+)"><title>'
    return sorted(float(y) for y in re.findall(pattern, svg))


@given(st.lists(st.floats(min_value=0, max_value=40), min_size=1, max_size=45))
def test_the_names_never_overlap_nor_leave_the_chart(ends: list[float]) -> None:
    """Apart by a line of text at least (forty names were squeezed a few pixels apart, each
    over the next): with more bots than fit, the top ten are named at their ends and the
    others on request (site.js), as the phone's larger names are, the top five; never above
    or below the chart."""
    keys = [f"bot-{i}" for i in range(len(ends))]
    svg = rating_chart(history(ends), keys, {})
    height = float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', svg).group(1))  # type: ignore[union-attr]
    for kind, gap, most in (("", 15.0, 10 if len(ends) > 19 else 19), (" narrow", 28.0, 5)):
        ys = label_heights(svg, kind)
        assert len(ys) == min(len(ends), most)
        assert all(b - a >= gap - 0.01 for a, b in zip(ys, ys[1:]))
        assert all(0 < y <= height for y in ys)
    asked = len(re.findall(r'<text class="end-label narrow on-request"', svg))
    assert asked == max(0, len(ends) - 5)  # every line can be named, on a phone
    named = len(label_heights(svg))
    assert len(re.findall(r'<text class="end-label on-request"', svg)) == len(ends) - named
    assert (asked > 0) == ('class="pick"' in svg)  # by its legend entry


def test_a_name_drawn_in_the_chart_keeps_two_marks_a_letter() -> None:
    """A name with a tall stack of combining marks (stored before the rule of names) was
    drawn up over the lines and names above it, and an SVG text cannot be clipped to its
    line: its label keeps a letter's first two marks (a Vietnamese letter's two), its
    tooltip and the legend the whole name; a cut counts letters, not marks."""
    tall = "z" + "\u0301\u0300\u0302" * 10 + "alg"
    decomposed = "Nguye\u0302\u0303n"  # Vietnamese: an e with a circumflex and a tilde
    svg = rating_chart(history([28.0, 24.0]), ["bot-0", "bot-1"],
                       {"bot-0": tall, "bot-1": decomposed})
    assert ">\u2068z\u0301\u0300alg\u2069</text>" in svg
    assert f"<title>{tall}</title>" in svg and f"\u2068{decomposed}\u2069" in svg
    assert f"<bdi>{tall}</bdi>" in svg  # the legend
    long = "z" + "\u0301" * 30 + "abcdefghijklmnop"
    label = re.search(r"\u2068([^<]*)\u2069</text>",
                      rating_chart(history([28.0]), ["bot-0"], {"bot-0": long})).group(1)  # type: ignore[union-attr]
    assert label == "z\u0301\u0301abcdefghijkl\u2026"  # fourteen letters, the last an ellipsis


def _mark_look(fragment: str) -> tuple[str, ...]:
    """The first mark in ``fragment`` as a reader sees it: its shape (corners around its
    middle, at unit size) and its fill; () for none."""
    mark = re.search(r'<(circle|polygon) class="mark" (?:cx="[^"]*" cy="[^"]*" r="[^"]*"|'
                     r'points="([^"]*)") fill="([^"]*)"', fragment)
    if mark is None:
        return ()
    corners = [tuple(map(float, p.split(","))) for p in (mark.group(2) or "").split()]
    if corners:
        mid = [sum(c[i] for c in corners) / len(corners) for i in (0, 1)]
        size = max(abs(c[i] - mid[i]) for c in corners for i in (0, 1))
        corners = [tuple(round((c[i] - mid[i]) / size, 1) + 0.0 for i in (0, 1))
                   for c in corners]
    return (mark.group(1), mark.group(3), *map(str, corners))


@pytest.mark.parametrize("bots", [12, 20, 40, 80])
def test_no_two_lines_look_alike_and_the_legend_shows_each(bots: int) -> None:
    """With twelve bots two lines had the same colour (the palette has eight) and nothing
    else told them apart, nor their legend entries: past the colours, each line carries
    marks of a shape of its own, and its legend entry the same colour and mark."""
    keys = [f"bot-{i}" for i in range(bots)]
    svg, legend = rating_chart(history([25.0 + i % 7 for i in range(bots)]), keys, {}).split(
        "</svg>", 1)[0], rating_chart(history([25.0] * bots), keys, {}).split("</svg>", 1)[1]
    lines = re.findall(r'<g class="bot" data-bot="([^"]+)">(.*?)</g>', svg)
    looks = {key: (re.search(r'stroke="(#\w+)"', body).group(1),  # type: ignore[union-attr]
                   *_mark_look(body)) for key, body in lines}
    assert len(looks) == bots and len(set(looks.values())) == bots, looks
    entries = re.findall(r'<svg class="swatch".*?</svg>', legend)
    assert len(entries) == bots
    for key, entry in zip(keys, entries):
        assert (re.search(r'stroke="(#\w+)"', entry).group(1),  # type: ignore[union-attr]
                *_mark_look(entry)) == looks[key], key
    # every mark is outlined in the text's colour: its shape shows on a line of any colour
    assert set(re.findall(r'class="mark" [^>]*stroke="([^"]+)"', svg)) <= {"#1a1a1a"}


def _linear(colour: str) -> list[float]:
    """An sRGB ``#rrggbb`` colour's channels, linear."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]


def _contrast(colour: str, background: str) -> float:
    """WCAG 2's contrast ratio."""
    def luminance(c: str) -> float:
        r, g, b = _linear(c)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(colour), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


#: How protanopia, deuteranopia and tritanopia see linear RGB (Machado et al. 2009, severity
#: 1), and normal sight.
_SIGHTS = {"normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
           "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                          (-0.003882, -0.048116, 1.051998)),
           "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                            (-0.011820, 0.042940, 0.968881)),
           "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                          (0.004733, 0.691367, 0.303900))}


def _lab(colour: str, sight: str) -> tuple[float, float, float]:
    """CIELAB (D65) of a colour as ``sight`` sees it."""
    rgb = _linear(colour)
    r, g, b = (min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb))))
               for row in _SIGHTS[sight])
    xyz = (0.4124 * r + 0.3576 * g + 0.1805 * b, 0.2126 * r + 0.7152 * g + 0.0722 * b,
           0.0193 * r + 0.1192 * g + 0.9505 * b)
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
                  for t in (v / w for v, w in zip(xyz, (0.95047, 1.0, 1.08883))))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _apart(a: str, b: str, sight: str = "normal") -> float:
    """How far apart two colours look (CIE76 distance)."""
    return math.dist(_lab(a, sight), _lab(b, sight))


#: Colours closer than this (CIE76) are taken for one on a thin line.
_ALIKE = 15.0


def test_every_line_colour_stands_out_from_the_chart_and_from_the_others() -> None:
    """Okabe-Ito's orange, sky blue and yellow lines were under WCAG's 3:1 non-text contrast
    against the chart's white, and every line took a card kind's colour. Each colour the
    chart draws is read from it."""
    css = (Path(arena.web.__file__).parent / "static" / "site.css").read_text()
    panel = re.search(r"--panel: #([0-9a-fA-F]{3,6});", css).group(1)  # type: ignore[union-attr]
    panel = "#" + (panel if len(panel) == 6 else "".join(c * 2 for c in panel))
    assert re.search(r"\.chart \{[^}]*background: var\(--panel\)", css)
    keys = [f"bot-{i}" for i in range(12)]
    svg = rating_chart(history([25.0] * 12), keys, {})
    colours = list(dict.fromkeys(re.findall(r'<polyline fill="none" stroke="(#\w+)"', svg)))
    assert len(colours) > 2
    assert [c for c in colours if _contrast(c, panel) < 3] == []
    for colour in colours:
        for kind, card in KIND_COLOURS.items():
            assert _apart(colour, card) >= _ALIKE, (colour, kind)
    for sight in _SIGHTS:
        for a, b in itertools.combinations(colours, 2):
            assert _apart(a, b, sight) >= _ALIKE, (a, b, sight)


def _drawn(svg: str) -> list[str]:
    """The bots' lines in the order they are drawn (the last on top)."""
    return re.findall(r'<g class="bot" data-bot="([^"]+)">', svg)


def test_a_line_along_the_start_of_a_longer_one_is_drawn_over_it() -> None:
    """Two round-one winners rate alike: the shorter line, drawn first, lay wholly under the
    longer one, and its bot was not on the chart but for its name."""
    long = [[0, 25.0, 8.3], [1, 29.4, 7.2], [2, 23.4, 6.0], [3, 27.1, 5.3]]
    svg = rating_chart({"alpha": long, "gamma": long[:3]}, ["gamma", "alpha"], {})
    assert _drawn(svg) == ["alpha", "gamma"]
    assert "hidden-lines" not in svg


def test_bots_whose_lines_are_the_same_are_named_under_the_chart() -> None:
    """Bots with the same rating after each game have one line: which of them it is (and
    that the other lies under it) can be told only in words."""
    same = [[0, 25.0, 8.3], [1, 20.6, 7.2], [2, 26.6, 6.0]]
    svg = rating_chart({"beta": same, "gamma": [row[:] for row in same],
                        "alpha": [[0, 25.0, 8.3], [1, 29.4, 7.2]]},
                       ["beta", "gamma", "alpha"], {"gamma": "gamma <g>"})
    note = re.search(r'<p class="hidden-lines" id="hidden-lines">(.*?)</p>', svg)
    assert note is not None
    assert note.group(1) == ("Lines drawn one on another (the same rating after each game): "
                             "<bdi>beta</bdi>'s under <bdi>gamma &lt;g&gt;</bdi>'s.")
    apart = rating_chart({"beta": same, "alpha": [[0, 25.0, 8.3], [1, 29.4, 7.2]]},
                         ["beta", "alpha"], {})
    assert "hidden-lines" not in apart


def test_each_line_plots_its_ratings_against_the_axis_as_labelled() -> None:
    """Read back through the y axis's own tick labels, each bot's solid line passes through
    its mu after each game and its dashed line through mu - 3 sigma."""
    rated = {"alpha": [[0, 25.0, 8.3333], [1, 27.5, 7.0], [2, 29.0, 6.1]],
             "beta": [[0, 25.0, 8.3333], [1, 22.5, 7.0], [2, 20.0, 6.2]]}
    svg = rating_chart(rated, ["alpha", "beta"], {"alpha": "alpha", "beta": "beta"})
    ticks = [(float(y), float(label)) for y, label in re.findall(
        r'<text class="tick" x="[\d.]+" y="([\d.]+)" text-anchor="end">([\d.-]+)</text>', svg)]
    (y_a, v_a), (y_b, v_b) = ticks[0], ticks[-1]

    def value(y: float) -> float:  # the text's baseline sits 4 below its grid line
        return v_a + (y - (y_a - 4)) * (v_b - v_a) / (y_b - y_a)

    for key, rows in rated.items():
        group = svg.split(f'data-bot="{key}"', 1)[1].split("</g>", 1)[0]
        solid, dashed = re.findall(r'<polyline fill="none"[^>]*points="([^"]+)"', group)
        for points, expected in ((solid, [mu for _, mu, _ in rows]),
                                 (dashed, [mu - 3 * sigma for _, mu, sigma in rows])):
            ys = [float(point.split(",")[1]) for point in points.split()]
            assert [value(y) for y in ys] == pytest.approx(expected, abs=0.05), key
