"""evaluate_clauses: presence scores per clause and span hits, with an injected predictor."""

from __future__ import annotations

from rules.evaluation.clauses import evaluate_clauses

ROWS = [
    {"id": "a", "text": "x" * 50, "labels": {"定金": True, "保密": False}, "spans": {"定金": [10, 20]}},
    {"id": "b", "text": "y" * 50, "labels": {"定金": True, "保密": True}, "spans": {"定金": [0, 5], "保密": [30, 40]}},
]


def test_counts_and_span_hits_with_a_fixed_predictor() -> None:
    def predict(text: str) -> dict[str, tuple[int, int] | None]:
        return {"定金": (15, 25), "保密": None} if text.startswith("x") else {"定金": (6, 9), "保密": (35, 36)}

    report = evaluate_clauses(ROWS, predict)
    assert report["n_docs"] == 2
    assert report["per_clause"]["定金"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "support": 2}
    assert report["per_clause"]["保密"]["support"] == 1
    assert report["micro_f1"] == 1.0
    assert report["span_hit_rate"] == round(2 / 3, 4)  # (6, 9) misses [0, 5)


def test_false_positive_and_missing_clause_are_counted() -> None:
    report = evaluate_clauses(ROWS, lambda text: {"定金": None, "保密": (0, 1)})
    assert report["per_clause"]["定金"]["recall"] == 0.0
    assert report["per_clause"]["保密"]["precision"] == 0.5
    assert report["span_hit_rate"] == 0.0
