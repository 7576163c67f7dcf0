"""A table fitted to a width: columns left out in a listing's order, then names cut."""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate
from wcwidth import wcswidth

from arena.common.fitting import fit_columns, fit_rows, not_shown, shortened, widest

ROWS = [["a_bot_named_as_long_as_the_registry_lets", "2d1d71b3f0dd", "module"],
        ["short", "fba0e9a43174", "directory"]]
HEADERS = ["name", "version", "kind"]


def _render(kept: Sequence[str], most: int | None) -> str:
    keep = [HEADERS.index(column) for column in kept]
    return str(tabulate([[shortened(row[i], most) if i == 0 else row[i] for i in keep]
                         for row in ROWS], headers=list(kept)))


def test_columns_go_in_the_order_given_then_names_are_cut_with_an_ellipsis() -> None:
    whole, left_out = fit_columns(_render, HEADERS, ("kind", "version"), None,
                                  [row[0] for row in ROWS])
    assert left_out == [] and whole == _render(HEADERS, None)  # a pipe: every column
    for width, expected in ((70, []), (60, ["kind"]), (50, ["kind", "version"])):
        text, left_out = fit_columns(_render, HEADERS, ("kind", "version"), width,
                                     [row[0] for row in ROWS])
        assert left_out == expected and max(map(len, text.splitlines())) <= width
    text, left_out = fit_columns(_render, HEADERS, ("kind", "version"), 20,
                                 [row[0] for row in ROWS])
    assert left_out == ["kind", "version"]
    assert text.splitlines()[2] == "a_bot_named_as_long…" and text.splitlines()[3] == "short"
    # never cut below a few characters: a width of 3 is not met
    narrowest, _ = fit_columns(_render, HEADERS, ("kind", "version"), 3,
                               [row[0] for row in ROWS])
    assert narrowest.splitlines()[2] == "a_bot_n…"


def test_a_name_is_cut_only_where_longer_than_asked() -> None:
    assert shortened("greedy", None) == shortened("greedy", 6) == "greedy"
    assert shortened("greedy", 5) == "gree…"


def test_an_aligned_table_right_aligns_figures_and_left_aligns_its_text_columns() -> None:
    from arena.common.fitting import aligned

    assert aligned(["games", "speed", "note"], [["20", "1.5x", "slow"], ["100000", "", ""]],
                   ["note"]).splitlines() == ["   games speed  note",
                                              "      20  1.5x  slow",
                                              "  100000"]


def test_rows_drawn_by_tabulate_fit_as_a_table_drawn_by_hand() -> None:
    for width in (None, 60, 50, 20, 3):
        assert fit_rows(HEADERS, ROWS, ("kind", "version"), width, names=0) == fit_columns(
            _render, HEADERS, ("kind", "version"), width, [row[0] for row in ROWS])
    text, left_out = fit_rows(HEADERS, ROWS, (), None, columns=["name", "kind"])
    assert left_out == [] and text == _render(["name", "kind"], None)


def test_the_line_under_a_fitted_table_names_what_it_left_out_and_what_shows_it() -> None:
    assert not_shown(["kind", "version"]) == "Not shown, to fit the terminal: kind, version."
    assert not_shown(["kind"], "--json has every field").endswith("kind; --json has every field.")


def test_a_wide_name_is_fitted_by_the_columns_it_takes() -> None:
    """A CJK name takes two columns a letter: measured by its letters, a table fitted to 40
    columns was wider than 40 (where no rule under the header, drawn in columns, said so)."""
    rows = [["漢字の名前を持つとても長いボットの名前です", "2d1d71b3f0dd", "module"]]
    for width in (60, 40, 30):
        text, _ = fit_rows(HEADERS, rows, ("kind", "version"), width, names=0, tablefmt="plain")
        assert max(wcswidth(line) for line in text.splitlines()) <= width, text
    assert widest("漢字\nab") == 4 and widest("ze\u200bro") == 4
