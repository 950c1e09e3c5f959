"""Shared scoring helpers: per-label precision/recall/F1 and JSONL reading."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class LabelCounts:
    """True positives, false positives and false negatives for one label."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def support(self) -> int:
        return self.tp + self.fn

    def as_dict(self) -> dict[str, float | int]:
        return {
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "support": self.support,
        }


def per_label_report(counts: dict[str, LabelCounts]) -> dict[str, Any]:
    """Return `per_label`, `macro_f1` and `micro_f1` for a table of label counts."""
    labels = sorted(counts)
    macro = sum(counts[label].f1 for label in labels) / len(labels) if labels else 0.0
    total = LabelCounts(
        tp=sum(c.tp for c in counts.values()),
        fp=sum(c.fp for c in counts.values()),
        fn=sum(c.fn for c in counts.values()),
    )
    return {
        "per_label": {label: counts[label].as_dict() for label in labels},
        "macro_f1": round(macro, 4),
        "micro_f1": round(total.f1, 4),
    }


def classification_report(gold: list[str], predicted: list[str | None]) -> dict[str, Any]:
    """Single-label classification: accuracy, macro-F1 over gold labels, per-label scores."""
    if len(gold) != len(predicted):
        raise ValueError("gold and predicted differ in length")
    counts: dict[str, LabelCounts] = {label: LabelCounts() for label in set(gold)}
    correct = 0
    for g, p in zip(gold, predicted, strict=True):
        if g == p:
            counts[g].tp += 1
            correct += 1
            continue
        counts[g].fn += 1
        if p is not None:
            counts.setdefault(p, LabelCounts()).fp += 1
    report = per_label_report({k: v for k, v in counts.items() if v.support or k in set(gold)})
    return {
        "n": len(gold),
        "accuracy": round(correct / len(gold), 4) if gold else 0.0,
        "macro_f1": report["macro_f1"],
        "per_label": report["per_label"],
    }


def jsonl_rows(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield one dict per non-blank line of a UTF-8 JSONL file; raise ValueError naming a bad line."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object")
            yield row
