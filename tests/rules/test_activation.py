"""Which reviewed documents judge a retrained model, and when it may replace the one in use (pure functions)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.evaluation.activation import activation_verdict, held_back
from rules.safety_thresholds import review_threshold_recalibrate


def _report(macro: float, support: int = 10, **per_label: float) -> dict[str, Any]:
    """A slice report; every class with `support` held-back documents."""
    return {"macro_f1": macro, "per_label": {label: {"f1": f1, "support": support} for label, f1 in per_label.items()}}


def test_slice_is_stable_whatever_the_order_and_holds_back_every_label() -> None:
    items = [(f"doc-{n}", "城乡建设" if n % 3 else "教育文体") for n in range(300)] + [
        ("a", "卫生计生"),
        ("b", "卫生计生"),
    ]
    held = held_back(items, 0.2)
    assert held == held_back(list(reversed(items)), 0.2)
    assert {label for key, label in items if key in held} == {"城乡建设", "教育文体", "卫生计生"}
    share = len(held) / len(items)
    assert 0.12 < share < 0.28  # a hash, not a count: about the share asked for
    # A document held back now stays held back when more arrive (its place depends on its id alone).
    grown = held_back([*items, *[(f"new-{n}", "城乡建设") for n in range(100)]], 0.2)
    assert {key for key in held if key.startswith("doc-")} <= grown


def test_a_label_seen_once_is_trained_on_not_held_back() -> None:
    assert held_back([("only", "交通运输")], 0.0) == set()


@pytest.mark.parametrize(
    ("current", "candidate", "activate", "why"),
    [
        (None, _report(0.4, a=0.4), True, "no version in use"),
        (_report(0.8, a=0.8, b=0.8), _report(0.9, a=0.9, b=0.9), True, "activated"),
        (_report(0.8, a=0.8, b=0.8), _report(0.8, a=0.77, b=0.83), True, "activated"),
        (_report(0.8, a=0.8, b=0.8), _report(0.79, a=0.9, b=0.68), False, "macro_f1 0.7900 < 0.8000"),
        (_report(0.8, a=0.8, b=0.8), _report(0.85, a=1.0, b=0.7), False, "F1 of b falls by 0.1000"),
        (_report(0.8, a=0.8, b=0.8), _report(0.9, a=1.0), False, "F1 of b falls by 0.8000"),
        # One or two held-back documents of a class: one document flips its F1 by 0.5 to 1.0, so only the primary
        # metric judges it (and still keeps out a candidate that is worse overall).
        (_report(0.6, 2, a=0.5, b=0.7), _report(0.8, 2, a=1.0, b=0.6), True, "2 with fewer than 5 held back"),
        (_report(0.6, 2, a=0.5, b=0.7), _report(0.55, 2, a=0.6, b=0.5), False, "macro_f1 0.5500 < 0.6000"),
    ],
    ids=[
        "first-version",
        "better",
        "small-class-loss",
        "worse-primary",
        "class-loss-over-margin",
        "class-lost",
        "small-support-judged-by-primary",
        "small-support-worse-primary",
    ],
)
def test_verdict(current: Any, candidate: dict[str, Any], activate: bool, why: str) -> None:
    verdict = activation_verdict(current, candidate, class_margin=0.05)
    assert verdict.activate is activate
    assert why in verdict.reason


def test_review_threshold_rises_past_what_reviewers_let_through_but_not_past_what_they_upheld() -> None:
    held = [(0.86, False), (0.88, False), (0.97, True)]
    assert review_threshold_recalibrate(0.85, held, block=0.99) == 0.885
    assert review_threshold_recalibrate(0.85, [*held, (0.87, True)], block=0.99) == 0.87
    assert review_threshold_recalibrate(0.85, [(0.86, True)], block=0.99) == 0.85  # nothing overruled
    assert review_threshold_recalibrate(0.5, [(0.95, False)], block=0.99) == 0.6  # one step at a time
