"""The Desmos evaluator (rulings 2-5), its naive oracle, the census and ``arena desmos``.

The fast evaluator is held to the naive one on *every* hand of 0..5 cards: hands are swept as
distinct face multisets (two copies of ``Fate-3`` or of ``Crown`` are identical, so a multiset
stands for all the hands it weights), and the naive oracle, which tries every Crown
substitution, runs once per class of hands that differ only by a renaming of the ranks 1..5
(a symmetry of the rules, itself tested), so the sweep takes seconds, not minutes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from math import comb
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine.cards import (
    CARD_IDS,
    DECK,
    KIND_OF,
    PALAESTRON,
    RANK_OF,
    Card,
    Kind,
    parse_cards,
)
from arena.engine.desmos import (
    CODE,
    KEY,
    Category,
    Desmos,
    category_of,
    census,
    compare,
    desmos,
    evaluate,
    evaluate_naive,
)
from arena.errors import CardError

C = Category


def hand(text: str) -> list[int]:
    return parse_cards(text)


def value(text: str) -> tuple[Category, tuple[int, ...]]:
    category, key = evaluate(hand(text))
    return Category(category), key


# --- one named example per category ---------------------------------------------------------


def test_ascension_is_five_natural_gods() -> None:
    assert value("God-1 God-2 God-3 God-4 God-5") == (C.ASCENSION, (5, 5, 5, 5, 5))
    assert value("God-3 God-4 God-5 God-6 God-7") == (C.ASCENSION, (5, 5, 5, 5, 5))


def test_quartet_is_four_of_one_kind_plus_one() -> None:
    assert value("Agari-1 Agari-2 Agari-3 Agari-4 Fate-1") == (C.QUARTET, (3, 3, 3, 3, 2))


def test_full_domain_is_three_plus_two() -> None:
    assert value("Fate-1 Fate-1 Fate-2 Beast-1 Beast-2") == (C.FULL_DOMAIN, (2, 2, 2, 1, 1))


def test_rank_flush_is_five_of_one_rank_any_kinds() -> None:
    assert value("God-2 Agari-2 Umbrae-2 Fate-2 Beast-2") == (C.RANK_FLUSH, (5, 3, 3, 2, 1))


def test_straight_is_five_of_one_kind() -> None:
    assert value("Sophoi-1 Sophoi-2 Sophoi-3 Sophoi-4 Sophoi-5") == (C.STRAIGHT, (3,) * 5)


def test_triplet_is_three_plus_two_kickers() -> None:
    assert value("God-1 God-2 God-3 Fate-1 Beast-1") == (C.TRIPLET, (5, 5, 5, 2, 1))


def test_two_pair() -> None:
    assert value("God-1 God-2 Agari-1 Agari-2 Fate-1") == (C.TWO_PAIR, (5, 5, 3, 3, 2))


def test_pair() -> None:
    assert value("Agari-1 Agari-2 Umbrae-1 Fate-1 Beast-1") == (C.PAIR, (3, 3, 3, 2, 1))


def test_high_hand_is_five_different_kinds() -> None:
    assert value("God-1 Agari-1 Umbrae-2 Fate-3 Beast-4") == (C.HIGH_HAND, (5, 3, 3, 2, 1))


def test_category_labels_are_the_rulebooks_names() -> None:
    assert [c.label for c in sorted(Category, reverse=True)] == [
        "The Ascension", "Quartet", "Full Domain", "Rank Flush", "Straight", "Triplet",
        "Two Pair", "Pair", "High Hand"]


# --- exact shapes (ruling 3) ------------------------------------------------------------------


def test_five_of_one_kind_is_a_straight_not_a_quartet() -> None:
    assert category_of(hand("Fate-1 Fate-1 Fate-2 Fate-3 Fate-4")) == C.STRAIGHT


def test_three_plus_two_is_full_domain_not_triplet_or_two_pair() -> None:
    assert category_of(hand("God-1 God-2 God-3 Beast-1 Beast-2")) == C.FULL_DOMAIN


def test_rank_flush_outranks_the_two_pair_shape_it_also_has() -> None:
    # Kinds 2+2+1 (a Two Pair shape), all rank 3: the higher category counts. Its key does not
    # group by kind (E30): the tiers, highest first.
    assert value("Fate-3 Fate-3 Beast-3 Beast-3 Sophoi-3") == (C.RANK_FLUSH, (3, 2, 2, 1, 1))


def test_rank_flush_is_below_full_domain() -> None:
    # No natural hand is both, but a Crown can choose: Fate-1 x2, Beast-1 x2 + Crown as Fate
    # is a Full Domain (3+2) and also a Rank Flush; the better category is reported.
    assert category_of(hand("Fate-1 Fate-1 Beast-1 Beast-1 Crown")) == C.FULL_DOMAIN


# --- Crowns (ruling 4) ------------------------------------------------------------------------


def test_crown_completes_a_quartet_with_tier_4() -> None:
    assert value("God-1 God-2 God-3 Crown Fate-1") == (C.QUARTET, (5, 5, 5, 4, 2))


def test_four_gods_and_a_crown_is_a_quartet_not_an_ascension() -> None:
    # As a fifth God the Crown would make only a Straight; staying a Crown (4+1) is better.
    assert value("God-1 God-2 God-3 God-4 Crown") == (C.QUARTET, (5, 5, 5, 5, 4))
    assert value("God-1 God-2 God-3 Crown Crown") == (C.QUARTET, (5, 5, 5, 4, 4))


def test_two_crowns_form_a_pair_of_kind_crown() -> None:
    assert value("Crown Crown") == (C.PAIR, (4, 4))
    # ... but with kickers, joining a kind beats staying a Crown pair (Pair 4 4 5 3 2).
    assert value("Crown Crown God-1 Agari-2 Fate-3") == (C.TRIPLET, (5, 4, 4, 3, 2))


def test_crown_may_duplicate_a_card_in_the_hand() -> None:
    # Only as a second God-2 (or another rank-2 card) is this a Rank Flush; joining the God
    # gives the best key.
    assert value("God-2 Agari-2 Fate-2 Beast-2 Crown") == (C.RANK_FLUSH, (5, 4, 3, 2, 1))


def test_crown_in_a_rank_flush_must_be_a_card_of_that_rank() -> None:
    # Rank 6 exists only as God, Agari and Umbrae, so both Crowns stand as one of those.
    assert value("God-6 Agari-6 Umbrae-6 Crown Crown") == (C.RANK_FLUSH, (5, 4, 4, 3, 3))


def test_crown_keeps_tier_4_whatever_it_stands_for() -> None:
    as_fate = desmos(hand("Fate-1 Fate-2 Fate-3 Crown Beast-1"))
    all_fates = desmos(hand("Fate-1 Fate-2 Fate-3 Fate-4 Beast-1"))
    assert as_fate.key == (4, 2, 2, 2, 1) and all_fates.key == (2, 2, 2, 2, 1)
    assert as_fate > all_fates
    as_god = desmos(hand("God-1 God-2 God-3 Crown Fate-1"))
    all_gods = desmos(hand("God-1 God-2 God-3 God-4 Fate-1"))
    assert as_god < all_gods


# --- tie keys (ruling 5) ----------------------------------------------------------------------


def test_god_pair_beats_class_pair() -> None:
    god = hand("God-1 God-2 Agari-3 Fate-1 Beast-1")
    agari = hand("Agari-1 Agari-2 God-3 Fate-2 Beast-2")
    assert compare(god, agari) == 1 and compare(agari, god) == -1


def test_groups_order_by_size_before_tier() -> None:
    beasts_over_gods = desmos(hand("Beast-1 Beast-2 Beast-3 God-1 God-2"))
    fates_over_beasts = desmos(hand("Fate-1 Fate-2 Fate-3 Beast-4 Beast-5"))
    assert beasts_over_gods.key == (1, 1, 1, 5, 5)
    assert fates_over_beasts > beasts_over_gods


def test_rank_numbers_never_break_ties() -> None:
    low = hand("Agari-1 Agari-2 Fate-1 Beast-1 God-1")
    high = hand("Agari-6 Agari-5 Fate-5 Beast-5 God-7")
    assert compare(low, high) == 0
    assert desmos(low) == desmos(high)


# --- short hands, the Palaestron, bad input ---------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("", (C.HIGH_HAND, ())),
    ("God-1 God-2 God-3 God-4", (C.QUARTET, (5, 5, 5, 5))),
    ("God-1 God-2 God-3 Crown", (C.QUARTET, (5, 5, 5, 4))),
    ("Fate-1 Fate-2 Fate-3 Beast-1", (C.TRIPLET, (2, 2, 2, 1))),
    ("Fate-1 Fate-2 Beast-3 Beast-4", (C.TWO_PAIR, (2, 2, 1, 1))),
    ("Fate-1 Fate-2 God-3 Beast-4", (C.PAIR, (2, 2, 5, 1))),
    ("Fate-1 Agari-1 God-1 Beast-1", (C.HIGH_HAND, (5, 3, 2, 1))),
    ("Crown Fate-1 Beast-4", (C.PAIR, (4, 2, 1))),
    ("Crown Crown Fate-1", (C.TRIPLET, (4, 4, 2))),
    ("Crown", (C.HIGH_HAND, (4,))),
])
def test_short_hands(text: str, expected: tuple[Category, tuple[int, ...]]) -> None:
    assert value(text) == expected


def test_palaestron_never_counts() -> None:
    with_it = hand("God-1 God-2 God-3 God-4 Palaestron")
    assert evaluate(with_it) == evaluate(hand("God-1 God-2 God-3 God-4"))
    assert desmos(with_it).cards == tuple(hand("God-1 God-2 God-3 God-4"))


def test_more_than_five_counting_cards_is_refused() -> None:
    with pytest.raises(CardError, match="at most 5 cards"):
        evaluate(hand("God-1 God-2 God-3 God-4 God-5 God-6"))
    with pytest.raises(CardError, match="at most 5 cards"):
        evaluate_naive(hand("God-1 God-2 God-3 God-4 God-5 God-6"))


def test_desmos_checks_its_ids() -> None:
    with pytest.raises(CardError, match="twice"):
        desmos([0, 0, 1, 2, 3])
    with pytest.raises(CardError, match="unknown card id"):
        desmos([0, 1, 2, 3, 52])


def test_desmos_orders_by_value_and_describes_itself() -> None:
    hands = [desmos(hand(t)) for t in (
        "God-1 God-2 Agari-1 Agari-2 Fate-1", "God-1 God-2 God-3 God-4 God-5",
        "Agari-1 Agari-2 Umbrae-1 Fate-1 Beast-1")]
    assert [d.category for d in sorted(hands)] == [C.PAIR, C.TWO_PAIR, C.ASCENSION]
    quartet = desmos(hand("God-1 God-2 God-3 God-4 Crown"))
    assert quartet.describe() == "Quartet (key 5 5 5 5 4): God-1 God-2 God-3 God-4 Crown"
    assert isinstance(quartet, Desmos) and quartet.value == (7, (5, 5, 5, 5, 4))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, len(DECK) - 1), max_size=5, unique=True), st.randoms())
def test_fast_agrees_with_naive_on_random_card_ids(cards: list[int], rnd: Any) -> None:
    """Real ids (both copies, the Palaestron), any length 0..5, any order."""
    expected = evaluate_naive(cards)
    assert evaluate(cards) == expected
    rnd.shuffle(cards)
    assert evaluate(tuple(cards)) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, PALAESTRON - 1), min_size=5, max_size=5, unique=True),
       st.lists(st.integers(0, PALAESTRON - 1), min_size=5, max_size=5, unique=True))
def test_compare_is_antisymmetric_and_follows_values(a: list[int], b: list[int]) -> None:
    assert compare(a, b) == -compare(b, a)
    assert compare(a, b) == (evaluate(a) > evaluate(b)) - (evaluate(a) < evaluate(b))


# --- exhaustive sweep over face multisets -----------------------------------------------------

FACES: list[tuple[Card, tuple[int, ...]]] = [
    (card, ids) for card, ids in CARD_IDS.items() if card.kind != Kind.PALAESTRON]
CROWN_IDS = CARD_IDS[Card(Kind.CROWN)]


def face_multisets(size: int) -> Iterator[tuple[list[int], int]]:
    """(card ids of one hand, number of hands it stands for) for every face multiset."""
    def walk(start: int, left: int, ids: list[int], weight: int) -> Iterator[tuple[list[int], int]]:
        if left == 0:
            yield ids, weight
            return
        for index in range(start, len(FACES)):
            copies = FACES[index][1]
            for taken in range(1, min(len(copies), left) + 1):
                yield from walk(index + 1, left - taken, ids + list(copies[:taken]),
                                weight * comb(len(copies), taken))
    yield from walk(0, size, [], 1)


def rank_class(ids: list[int]) -> tuple[int, ...]:
    """The hand up to renaming the ranks 1..5 among themselves.

    Renaming is a symmetry of the rules: every kind has each rank 1..5 in the same number of
    copies (so the deck, and the faces a Crown may take, map onto themselves), and ranks only
    matter by being equal (Rank Flush). Hands of one class therefore have one true value, and
    the naive oracle needs to run once per class (``test_naive_is_blind_to_renaming_ranks``).
    """
    columns = [0] * 8  # per rank: the kinds of its cards, 4 bits per kind
    for cid in ids:
        columns[RANK_OF[cid]] += 1 << (4 * KIND_OF[cid])
    return (columns[0], columns[6], columns[7], *sorted(columns[1:6]))


@pytest.fixture(scope="module")
def swept() -> dict[str, Any]:
    """Every hand of 0..5 cards (as face multisets): fast versus naive, keys, naive census."""
    mismatches: list[tuple[list[int], Any, Any]] = []
    naive_census: Counter[int] = Counter()
    multisets: Counter[tuple[int, int]] = Counter()  # (size, crowns) -> multisets checked
    naive_by_class: dict[tuple[int, ...], Any] = {}
    key_to_signature: dict[int, int] = {}
    key_of, code_of = KEY.__getitem__, CODE.__getitem__
    for size in range(6):
        for ids, weight in face_multisets(size):
            rank_free = rank_class(ids)
            naive = naive_by_class.get(rank_free)
            if naive is None:
                naive = naive_by_class[rank_free] = evaluate_naive(ids)
            fast = evaluate(ids)
            if fast != naive:
                mismatches.append((ids, fast, naive))
            multisets[size, sum(map(ids.count, CROWN_IDS))] += 1
            if size == 5:
                naive_census[naive[0]] += weight
            key, signature = sum(map(key_of, ids)), sum(map(code_of, ids))
            if key_to_signature.setdefault(key, signature) != signature:
                mismatches.append((ids, "key shared by two signatures", key))
    return {"mismatches": mismatches, "census": naive_census, "multisets": multisets,
            "keys": key_to_signature, "naive_runs": len(naive_by_class)}


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2).flatmap(lambda crowns: st.lists(
           st.integers(0, CROWN_IDS[0] - 1), min_size=5 - crowns, max_size=5 - crowns,
           unique=True).map(lambda naturals: naturals + list(CROWN_IDS[:crowns]))),
       st.permutations(range(1, 6)))
def test_naive_is_blind_to_renaming_ranks(cards: list[int], renaming: list[int]) -> None:
    """The premise of the sweep's one-naive-run-per-class shortcut."""
    renamed: list[int] = []
    for cid in cards:
        card = DECK[cid]
        rank = renaming[card.rank - 1] if 1 <= card.rank <= 5 else card.rank
        renamed.append(next(i for i in CARD_IDS[Card(card.kind, rank)] if i not in renamed))
    assert rank_class(renamed) == rank_class(cards)
    assert evaluate_naive(renamed) == evaluate_naive(cards)


def test_fast_agrees_with_naive_on_every_hand_with_a_crown(swept: dict[str, Any]) -> None:
    crown_mismatches = [m for m in swept["mismatches"]
                        if any(DECK[cid].kind == Kind.CROWN for cid in m[0])]
    assert crown_mismatches == []
    # 4 natural faces + 1 Crown, and 3 + 2: every distinct five-card hand with a Crown.
    assert swept["multisets"][5, 1] == 89_326 and swept["multisets"][5, 2] == 9_519


def test_fast_agrees_with_naive_on_every_hand(swept: dict[str, Any]) -> None:
    assert swept["mismatches"] == []
    assert swept["multisets"][5, 0] == 661_782
    assert swept["multisets"][4, 2] == 751 and swept["multisets"][4, 0] == 89_326


def test_census_counts_every_hand_once() -> None:
    counts = census()
    assert sum(counts.values()) == comb(51, 5) == 2_349_060
    assert counts[C.ASCENSION] == comb(7, 5)  # five of the seven Gods, no Crown
    assert counts == {
        C.ASCENSION: 21, C.QUARTET: 54_327, C.FULL_DOMAIN: 62_380, C.RANK_FLUSH: 2_231,
        C.STRAIGHT: 518, C.TRIPLET: 452_193, C.TWO_PAIR: 342_725, C.PAIR: 1_125_570,
        C.HIGH_HAND: 309_095}


def test_census_matches_naive_count_over_face_multisets(swept: dict[str, Any]) -> None:
    naive = {Category(c): n for c, n in swept["census"].items()}
    assert sum(naive.values()) == 2_349_060
    assert census() == {c: naive.get(c, 0) for c in Category}


def test_face_multiset_weights_cover_every_hand() -> None:
    # The sweep's weighting itself: C(51, k) hands of k cards for every k.
    for size in range(5):
        assert sum(weight for _, weight in face_multisets(size)) == comb(51, size)


def test_hand_keys_identify_signatures_for_every_hand(swept: dict[str, Any]) -> None:
    # The hot table is keyed by sums of KEY; a key shared by two signatures would be a wrong
    # answer, so the sweep checks it for every hand of 0..5 cards.
    assert not [m for m in swept["mismatches"] if m[1] == "key shared by two signatures"]
    assert len(swept["keys"]) == len(set(swept["keys"].values()))


# --- arena desmos -----------------------------------------------------------------------------

runner = CliRunner()


def run(*args: str) -> Any:
    return runner.invoke(app, ["desmos", *args])


def test_cli_prints_category_and_tie_key() -> None:
    result = run("God-1", "God-2", "God-3", "God-4", "God-5")
    assert result.exit_code == 0
    assert "Category: The Ascension" in result.output
    assert "Tie key:  5 5 5 5 5" in result.output
    crown = run("God-1", "God-2", "Crown", "Fate-3", "Beast-1")
    assert "Category: Triplet" in crown.output and "Tie key:  5 5 4 2 1" in crown.output


def test_cli_compare_names_the_winner() -> None:
    result = run("--compare", "God-1 God-2 Agari-1 Agari-2 Fate-1",
                 "Umbrae-1 Umbrae-2 Arcoi-1 Arcoi-2 God-3")
    assert result.exit_code == 0
    assert "Hand 1 wins" in result.output
    result = run("--compare", "Agari-1 Agari-2 Fate-1 Beast-1 God-1",
                 "God-1 God-2 God-3 God-4 Crown")
    assert "Hand 2 wins: Quartet beats Pair" in result.output


def test_cli_compare_reports_a_true_tie() -> None:
    result = run("--compare", "Agari-1 Agari-2 Fate-1 Beast-1 God-1",
                 "Agari-6 Agari-5 Fate-5 Beast-5 God-7")
    assert result.exit_code == 0
    assert "Tie:" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (("Foo-1", "God-2", "God-3", "God-4", "God-5"), "Error: unknown card 'Foo-1'"),
    (("God-1", "God-2", "God-3", "God-4"), "Error: a Desmos is exactly 5 cards, got 4"),
    (("God-1", "God-2", "God-3", "God-4", "God-5", "God-6"),
     "Error: a Desmos is exactly 5 cards, got 6"),
    (("God-1", "God-2", "God-3", "God-4", "Palaestron"),
     "Error: the Palaestron cannot be part of a Desmos"),
    (("God-1", "God-1", "God-3", "God-4", "God-5"), "Error: too many copies of God-1"),
    (("--compare", "God-1 God-2", "God-1 God-2 God-3 God-4 God-5"),
     "Error: hand 1 ('God-1 God-2'): a Desmos is exactly 5 cards, got 2"),
    (("--compare", "God-1 God-2 God-3 God-4 God-5", "Fate-1 Fate-2 Nope-3 Beast-1 Beast-2"),
     "Error: hand 2 ('Fate-1 Fate-2 Nope-3 Beast-1 Beast-2'): unknown card 'Nope-3'"),
])
def test_cli_bad_hands_are_one_line_errors(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 1
    assert result.output.strip().startswith(message)
    assert "Traceback" not in result.output


def test_cli_census_prints_the_table() -> None:
    result = run("--census")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert any(line.startswith("The Ascension") and " 21 " in f"{line} " for line in lines)
    assert any(line.startswith("Pair") and "1,125,570" in line for line in lines)
    assert any(line.startswith("Total") and "2,349,060" in line for line in lines)


def test_cli_help_has_an_example() -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert "Example: arena desmos God-1 God-2 Crown Fate-3 Beast-1" in result.output


def test_module_imports_are_within_the_engine() -> None:
    import ast
    from pathlib import Path

    import arena.engine as engine_package  # its __init__ is never compiled: a true __file__

    source = Path(engine_package.__file__).with_name("desmos.py").read_text()
    imported = {node.module for node in ast.walk(ast.parse(source))
                if isinstance(node, ast.ImportFrom) and node.module}
    assert all(not name.startswith("arena") or name.startswith(("arena.engine", "arena.errors"))
               for name in imported)

