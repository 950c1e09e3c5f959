"""`evaluate tickets`: rules alone, a classifier trained on another file, or k-fold cross-validation."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from rules.evaluation.common import classification_report
from rules.tickets.classifier import baseline_pipeline, train_classifier
from rules.tickets.combine import TicketClassification, classify_tickets
from rules.tickets.pack import load_pack


def ticket_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Materialise `{"id", "text", "label"}` rows; raise ValueError naming the first row without text or label."""
    out = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row.get("text"), str) or not isinstance(row.get("label"), str):
            raise ValueError(f"ticket row {row.get('id', number)}: needs string 'text' and 'label'")
        out.append(row)
    return out


def _summary(gold: Sequence[str], results: Sequence[TicketClassification]) -> dict[str, Any]:
    """Report of the combined output plus rules-only and provenance figures for the same rows."""
    report = classification_report(list(gold), [r.label for r in results])
    report["rules_macro_f1"] = classification_report(list(gold), [r.rules_label for r in results])["macro_f1"]
    report["unlabelled"] = sum(r.label is None for r in results)
    report["level2_rate"] = round(sum(r.level2 is not None for r in results) / len(results), 4) if results else 0.0
    report["sources"] = dict(sorted(Counter(r.source for r in results).items()))
    with_model = [r for r in results if r.agreement is not None]
    if with_model:
        report["agreement_rate"] = round(sum(bool(r.agreement) for r in with_model) / len(with_model), 4)
        classifier_only = classification_report(list(gold), [r.classifier_label for r in results])
        report["classifier_macro_f1"] = classifier_only["macro_f1"]
    return report


def _cross_validate(rows: list[dict[str, Any]], folds: int, seed: int) -> dict[str, Any]:
    """Stratified k-fold: train on k-1 folds, classify the held-out fold, pool; the baseline on the same folds."""
    from sklearn.model_selection import StratifiedKFold  # heavy: scikit-learn, only for cross-validation

    texts = [row["text"] for row in rows]
    gold = [row["label"] for row in rows]
    results: list[TicketClassification | None] = [None] * len(rows)
    baseline: list[str | None] = [None] * len(rows)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for train_index, test_index in splitter.split(texts, gold):
        train_texts = [texts[i] for i in train_index]
        train_labels = [gold[i] for i in train_index]
        test_texts = [texts[i] for i in test_index]
        classifier = train_classifier(train_texts, train_labels)
        for i, result in zip(test_index, classify_tickets(test_texts, classifier), strict=True):
            results[i] = result
        reference = baseline_pipeline().fit(train_texts, train_labels)
        for i, label in zip(test_index, reference.predict(test_texts), strict=True):
            baseline[i] = str(label)
    pooled = [r for r in results if r is not None]
    report = _summary(gold, pooled)
    report["baseline_macro_f1"] = classification_report(gold, baseline)["macro_f1"]
    report["baseline"] = "char 1-3-gram TF-IDF + LinearSVC (defaults), same folds"
    report["folds"] = folds
    return report


def evaluate_tickets(
    rows: Iterable[dict[str, Any]],
    train_rows: Iterable[dict[str, Any]] | None = None,
    cv: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Score ticket classification: rules alone, trained on `train_rows`, or `cv`-fold cross-validation."""
    started = time.perf_counter()
    data = ticket_rows(rows)
    if cv is not None and train_rows is not None:
        raise ValueError("use either a training file or cross-validation, not both")
    if cv is not None:
        if cv < 2:
            raise ValueError("cross-validation needs at least 2 folds")
        report = _cross_validate(data, cv, seed)
        report["mode"] = "cv"
    else:
        classifier = None
        if train_rows is not None:
            training = ticket_rows(train_rows)
            classifier = train_classifier([r["text"] for r in training], [r["label"] for r in training])
        results = classify_tickets([r["text"] for r in data], classifier)
        report = _summary([r["label"] for r in data], results)
        report["mode"] = "classifier" if classifier else "rules"
        if classifier:
            report["model_version"] = classifier.version
            report["n_train"] = len(training)
    report["pack_version"] = load_pack().version
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report
