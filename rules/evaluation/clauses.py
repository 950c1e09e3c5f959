"""Clause evaluation: per-clause presence precision/recall/F1 and how often true positives hit the span."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rules.evaluation.common import LabelCounts, per_label_report

Span = tuple[int, int]
Predictor = Callable[[str], dict[str, Span | None]]


def presence_spans(text: str, model: Any = None) -> dict[str, Span | None]:
    """Default predictor: the span of the best stipulated finding per clause label (rules, and a heading model)."""
    from rules.clauses import clause_presence  # imported here so the metric itself has no matcher dependency

    found = clause_presence(text, model=model)
    return {label: (finding.start, finding.end) if finding else None for label, finding in found.items()}


def headings_masked(text: str) -> str:
    """`text` with every article heading title blanked (spaces; markers and offsets kept): what the matcher sees
    of a contract whose articles carry no titles."""
    from rules.clauses.structure import document_structure, fold  # imported here, as presence_spans

    chars = list(text)
    for article in document_structure(fold(text)).articles():
        if article.title is not None:
            chars[article.title[0] : article.title[1]] = " " * (article.title[1] - article.title[0])
    return "".join(chars)


def _overlaps(predicted: Span, gold: Iterable[int] | None) -> bool:
    """True when predicted overlaps the gold [start, end) span; a positive without a gold span counts."""
    if not gold:
        return True
    gold_start, gold_end = tuple(gold)[:2]
    return predicted[0] < gold_end and gold_start < predicted[1]


def evaluate_clauses(
    rows: Iterable[dict[str, Any]], predict: Predictor | None = None, *, model: Any = None, mask: bool = False
) -> dict[str, Any]:
    """Score clause presence over labelled contract rows; return the `clauses` evaluation object.

    `model`: a heading model used beside the rules; `mask`: headings blanked first (`headings_masked`)."""
    if predict is None:
        predict = lambda text: presence_spans(text, model)  # noqa: E731
    if mask:
        unmasked = predict
        predict = lambda text: unmasked(headings_masked(text))  # noqa: E731
    counts: dict[str, LabelCounts] = {}
    hits = true_positives = n_docs = 0
    for row in rows:
        n_docs += 1
        predicted = predict(row["text"])
        gold_spans = row.get("spans") or {}
        for label, present in row["labels"].items():
            tally = counts.setdefault(label, LabelCounts())
            span = predicted.get(label)
            if present and span is not None:
                tally.tp += 1
                true_positives += 1
                hits += _overlaps(span, gold_spans.get(label))
            elif present:
                tally.fn += 1
            elif span is not None:
                tally.fp += 1
    report = per_label_report(counts)
    return {
        **({"masked_headings": True} if mask else {}),
        "n_docs": n_docs,
        "micro_f1": report["micro_f1"],
        "macro_f1": report["macro_f1"],
        "per_clause": report["per_label"],
        "span_hit_rate": round(hits / true_positives, 4) if true_positives else 0.0,
    }
