"""Exact-normalised-value accuracy on the hand-labelled contract-term set (see contract_term_values.py)."""

from __future__ import annotations

import pytest

from tests.rules.contract_term_values import evaluate, evaluate_key_terms, labels

THRESHOLDS = {"date": 0.9, "amount": 0.9, "duration": 0.85, "rate": 0.85}


def test_the_labelled_set_has_at_least_150_values() -> None:
    assert len(labels()) >= 150


@pytest.fixture(scope="module")
def scores() -> dict[str, tuple[int, int]]:
    totals, _ = evaluate()
    return totals


@pytest.mark.parametrize("category", sorted(THRESHOLDS), ids=sorted(THRESHOLDS))
def test_exact_value_accuracy_meets_its_threshold(scores: dict[str, tuple[int, int]], category: str) -> None:
    correct, total = scores[category]
    assert total >= 30
    assert correct / total >= THRESHOLDS[category], f"{category}: {correct}/{total}"


def test_values_labelled_after_the_parsers_were_written_read_as_well() -> None:
    totals, misses = evaluate("fresh")
    total = sum(t for _, t in totals.values())
    assert total >= 60
    assert 1 - len(misses) / total >= 0.85, misses


def test_key_terms_read_from_whole_contracts_meet_the_duration_and_rate_bar() -> None:
    correct, total, misses = evaluate_key_terms()
    assert total >= 50
    assert correct / total >= 0.85, misses
