"""The shared term index: every occurrence, overlaps and nesting included, at character offsets."""

from __future__ import annotations

import pytest

from rules.term_search import TermIndex


def test_every_occurrence_is_found_with_nested_and_overlapping_terms() -> None:
    index = TermIndex([("违约金", "penalty"), ("违约", "breach"), ("约金", "overlap")])
    found = sorted(index.find("乙方支付违约金，违约方承担"))
    assert found == [("breach", 4, 6), ("breach", 8, 10), ("overlap", 5, 7), ("penalty", 4, 7)]


def test_offsets_count_characters_outside_the_basic_plane_as_one() -> None:
    index = TermIndex([("保密", 1)])
    text = "😀𠮷保密义务"
    ((value, start, end),) = index.find(text)
    assert (value, text[start:end]) == (1, "保密")


def test_a_lone_surrogate_does_not_stop_the_search_or_shift_offsets() -> None:
    index = TermIndex([("定金", 1)])
    text = "a\ud800交付定金"
    assert [(start, end) for _, start, end in index.find(text)] == [(4, 6)]


def test_an_empty_index_finds_nothing_and_bad_terms_are_refused() -> None:
    assert TermIndex([]).find("任何文本") == []
    with pytest.raises(ValueError, match="listed twice"):
        TermIndex([("管辖", 1), ("管辖", 2)])
    with pytest.raises(ValueError, match="empty"):
        TermIndex([("", 1)])


def test_items_and_membership_follow_the_terms_given() -> None:
    index = TermIndex([("仲裁", "a"), ("诉讼", "b")])
    assert list(index.items()) == [("仲裁", "a"), ("诉讼", "b")]
    assert "诉讼" in index and "法院" not in index and len(index) == 2
