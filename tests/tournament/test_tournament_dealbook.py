"""Deal books: what a file may hold, and which deals each round's tables play."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli.main import app
from arena.errors import SpecError
from arena.tournament.dealbook import book_digest, read_deal_book, table_deals


def test_seeds_json_lines_comments_and_blank_lines(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("# opening deals\n\n7\n1_000\n{\"seed\": 9, \"game_id\": \"x/r1/t0/g0\"}\n")
    assert read_deal_book(book) == (7, 1000, 9)


def test_an_export_of_a_duplicate_tournament_gives_each_deal_once(tmp_path: Path) -> None:
    """An export lists a duplicate deal once per seating: as a book, each pairing would play
    it twice in a row (the same bot processes dealt the same cards again). A number repeated
    on purpose stays."""
    book = tmp_path / "games.jsonl"
    book.write_text("".join(f'{{"game_id": "x/r1/t{t}/g{g}", "seed": {seed}}}\n'
                            for t, g, seed in [(0, 0, 5), (0, 1, 6), (1, 0, 5), (1, 1, 6),
                                               (2, 0, 7), (3, 0, 7)]) + "8\n8\n")
    assert read_deal_book(book) == (5, 6, 7, 8, 8)


@pytest.mark.parametrize(("text", "message"), [
    ("", "deal book {book} holds no deals (one seed a line)"),
    ("# only a comment\n", "deal book {book} holds no deals (one seed a line)"),
    ("5\n-1\n", "deal book {book}, line 2: expected a seed (an integer from 0 to 2**63 - 1) or "
                "a JSON object with one, got '-1'"),
    (f"{2**63}\n", "deal book {book}, line 1: expected a seed (an integer from 0 to 2**63 - 1) "
                   f"or a JSON object with one, got '{2**63}'"),
    ('{"seed": true}\n', "deal book {book}, line 1: expected a seed (an integer from 0 to "
                         "2**63 - 1) or a JSON object with one, got '{\"seed\": true}'"),
])
def test_a_bad_book_is_refused_naming_the_line(tmp_path: Path, text: str, message: str) -> None:
    book = tmp_path / "book.txt"
    book.write_text(text)
    with pytest.raises(SpecError) as info:
        read_deal_book(book)
    assert str(info.value) == message.replace("{book}", str(book))


def test_a_missing_book_says_so(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        read_deal_book(tmp_path / "none.txt")
    assert str(info.value) == f"cannot read the deal book {tmp_path / 'none.txt'}: No such " \
                              "file or directory"


def test_a_book_named_with_a_nul_is_refused_in_one_line(tmp_path: Path) -> None:
    """A spec's "deals: \\x00" was a traceback (ValueError: embedded null byte)."""
    book = tmp_path / "bo\x00ok.txt"
    with pytest.raises(SpecError) as info:
        read_deal_book(book)
    assert str(info.value) == (f"cannot read the deal book {book}: no file's name holds a NUL "
                               "character")


def test_a_gzip_book_reads_as_its_text_and_a_torn_one_says_so(tmp_path: Path) -> None:
    """``arena export -o FILE.gz`` writes gzip, and an export is a deal book."""
    import gzip

    book = tmp_path / "games.jsonl.gz"
    book.write_bytes(gzip.compress(b'{"seed": 4}\n{"seed": 5}\n'))
    assert read_deal_book(book) == (4, 5)
    book.write_bytes(book.read_bytes()[:12])
    with pytest.raises(SpecError) as info:
        read_deal_book(book)
    assert str(info.value).startswith(f"cannot read the deal book {book}: a broken gzip file (")


def test_a_json_line_holding_a_unicode_line_separator_is_one_deal(tmp_path: Path) -> None:
    book = tmp_path / "games.jsonl"
    book.write_text('{"seed": 4, "log": "a\u2028b\x85c"}\n5\n', encoding="utf-8")
    assert read_deal_book(book) == (4, 5)


def test_rounds_go_on_through_the_book_and_start_over() -> None:
    book = (10, 20, 30, 40, 50)
    assert table_deals(book, 1, 2) == (10, 20)
    assert table_deals(book, 2, 2) == (30, 40)
    assert table_deals(book, 3, 2) == (50, 10)
    assert table_deals((), 1, 3) == ()


@given(st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=20),
       st.integers(1, 50), st.integers(1, 10))
def test_every_table_deal_comes_from_the_book_in_order(book: list[int], round_no: int,
                                                       per_table: int) -> None:
    deals = table_deals(tuple(book), round_no, per_table)
    assert len(deals) == per_table
    start = (round_no - 1) * per_table
    assert deals == tuple(book[(start + d) % len(book)] for d in range(per_table))


def test_the_digest_names_the_deals_not_the_file() -> None:
    assert book_digest((1, 2)) == book_digest((1, 2)) != book_digest((2, 1))


def test_a_book_that_is_a_device_is_refused_unread(tmp_path: Path) -> None:
    """``deals: /dev/zero`` (a typo's completion) would be read until the memory ran out."""
    spec = tmp_path / "t.yaml"
    spec.write_text(f"name: t\nformat: round_robin\nbots: [random, greedy]\nplayers_per_game: 2\n"
                    f"deals: /dev/zero\nresults: {tmp_path / 'r.db'}\n")
    result = CliRunner().invoke(app, ["run", str(spec)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {spec} is not a valid tournament spec:\n"
        "  deals: cannot read the deal book /dev/zero: a device, not a file\n")
