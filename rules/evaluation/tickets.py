"""`evaluate tickets`: rules alone, a classifier trained on another file, or k-fold cross-validation."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from rules.evaluation.common import classification_report
from rules.tickets.calibration import expected_calibration_error, reliability_table
from rules.tickets.classifier import baseline_pipeline, classifier_pipeline, train_classifier
from rules.tickets.combine import TicketClassification, classify_tickets
from rules.tickets.pack import load_pack

# Shares of each training fold the learning curve trains on (the whole fold is the cross-validation itself).
CURVE_SHARES = (0.125, 0.25, 0.5)


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


def _spread(values: Sequence[float]) -> dict[str, Any]:
    """Mean, population standard deviation, minimum and maximum of per-fold figures, rounded."""
    mean = sum(values) / len(values)
    std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    return {"mean": round(mean, 4), "std": round(std, 4), "min": round(min(values), 4), "max": round(max(values), 4)}


def _routing_report(gold: Sequence[str], results: Sequence[TicketClassification]) -> dict[str, Any]:
    """Calibration of the classifier's probability (ECE, reliability rows) and what its thresholds route."""
    scored = [(r.probability, r.label == g) for r, g in zip(results, gold, strict=True) if r.probability is not None]
    routed = [r.label == g for r, g in zip(results, gold, strict=True) if r.label and not r.needs_dispatcher]
    return {
        "ece": expected_calibration_error([p for p, _ in scored], [ok for _, ok in scored]),
        "reliability": reliability_table([p for p, _ in scored], [ok for _, ok in scored]),
        "routed_share": round(len(routed) / len(results), 4) if results else 0.0,
        "routed_accuracy": round(sum(routed) / len(routed), 4) if routed else None,
        "dispatcher_share": round(sum(r.needs_dispatcher for r in results) / len(results), 4) if results else 0.0,
        "top3_accuracy": round(
            sum(g in {a.label for a in r.alternatives} for r, g in zip(results, gold, strict=True)) / len(results), 4
        )
        if results
        else 0.0,
    }


def _curve_subsample(train_index: Sequence[int], gold: Sequence[str], share: float, seed: int) -> list[int]:
    """`share` of a training fold, drawn within each label (at least two of a label, so every label is learnt)."""
    import numpy as np  # heavy: only for the learning curve

    rng = np.random.default_rng(seed)
    by_label: dict[str, list[int]] = {}
    for i in train_index:
        by_label.setdefault(gold[i], []).append(int(i))
    kept: list[int] = []
    for label in sorted(by_label):
        members = by_label[label]
        size = min(len(members), max(2, round(len(members) * share)))
        kept.extend(int(i) for i in rng.choice(members, size, replace=False))
    return sorted(kept)


def _learning_curve(
    texts: Sequence[str], gold: Sequence[str], splits: Sequence[tuple[Any, Any]], seed: int, full: float
) -> list[dict[str, Any]]:
    """Pooled macro-F1 of the classifier trained on CURVE_SHARES of each training fold (same folds, same test
    tickets), then the whole fold (`full`, the cross-validation's own figure): how much more labelled history
    would help. The label is the pipeline's top class, which is what the calibrated classifier routes by."""
    points = []
    for share in CURVE_SHARES:
        predicted: list[str | None] = [None] * len(texts)
        sizes = []
        for train_index, test_index in splits:
            kept = _curve_subsample(train_index, gold, share, seed)
            sizes.append(len(kept))
            model = classifier_pipeline().fit([texts[i] for i in kept], [gold[i] for i in kept])
            for i, label in zip(test_index, model.predict([texts[i] for i in test_index]), strict=True):
                predicted[i] = str(label)
        points.append({"share": share, "n_train": round(sum(sizes) / len(sizes)),
                       "macro_f1": classification_report(list(gold), predicted)["macro_f1"]})  # fmt: skip
    full_size = round(sum(len(train) for train, _ in splits) / len(splits))
    points.append({"share": 1.0, "n_train": full_size, "macro_f1": full})
    return points


def _cross_validate(rows: list[dict[str, Any]], folds: int, seed: int, curve: bool = False) -> dict[str, Any]:
    """Stratified k-fold: train on k-1 folds, classify the held-out fold, pool; the baseline on the same folds.
    Per-fold macro-F1 (mean and spread) and training seconds beside the pooled figures; with `curve`, the
    learning curve over the same folds."""
    from sklearn.model_selection import StratifiedKFold  # heavy: scikit-learn, only for cross-validation

    texts = [row["text"] for row in rows]
    gold = [row["label"] for row in rows]
    results: list[TicketClassification | None] = [None] * len(rows)
    baseline: list[str | None] = [None] * len(rows)
    fold_f1, fold_baseline, seconds = [], [], []
    splits = list(StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(texts, gold))
    for train_index, test_index in splits:
        train_texts = [texts[i] for i in train_index]
        train_labels = [gold[i] for i in train_index]
        test_texts = [texts[i] for i in test_index]
        test_gold = [gold[i] for i in test_index]
        started = time.perf_counter()
        classifier = train_classifier(train_texts, train_labels)
        seconds.append(time.perf_counter() - started)
        fold_results = classify_tickets(test_texts, classifier)
        for i, result in zip(test_index, fold_results, strict=True):
            results[i] = result
        fold_f1.append(classification_report(test_gold, [r.label for r in fold_results])["macro_f1"])
        reference: list[str | None] = [
            str(label) for label in baseline_pipeline().fit(train_texts, train_labels).predict(test_texts)
        ]
        for i, label in zip(test_index, reference, strict=True):
            baseline[i] = label
        fold_baseline.append(classification_report(test_gold, reference)["macro_f1"])
    pooled = [r for r in results if r is not None]
    report = _summary(gold, pooled)
    report["fold_macro_f1"] = {**_spread(fold_f1), "folds": [round(v, 4) for v in fold_f1]}
    report["baseline_macro_f1"] = classification_report(gold, baseline)["macro_f1"]
    report["baseline_fold_macro_f1"] = _spread(fold_baseline)
    report["baseline"] = "char 1-3-gram TF-IDF + LinearSVC (defaults), same folds"
    report["routing"] = _routing_report(gold, pooled)
    report["training_seconds"] = _spread(seconds)
    report["folds"] = folds
    report["seed"] = seed
    if curve:
        report["learning_curve"] = _learning_curve(texts, gold, splits, seed, report["classifier_macro_f1"])
    return report


def evaluate_tickets(
    rows: Iterable[dict[str, Any]],
    train_rows: Iterable[dict[str, Any]] | None = None,
    cv: int | None = None,
    seed: int = 0,
    learning_curve: bool = False,
) -> dict[str, Any]:
    """Score ticket classification: rules alone, trained on `train_rows`, or `cv`-fold cross-validation (with
    `learning_curve`, also trained on smaller shares of every training fold)."""
    started = time.perf_counter()
    data = ticket_rows(rows)
    if cv is not None and train_rows is not None:
        raise ValueError("use either a training file or cross-validation, not both")
    if learning_curve and cv is None:
        raise ValueError("the learning curve is drawn over cross-validation folds: give --cv")
    if cv is not None:
        if cv < 2:
            raise ValueError("cross-validation needs at least 2 folds")
        report = _cross_validate(data, cv, seed, curve=learning_curve)
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
            report["routing"] = _routing_report([r["label"] for r in data], results)
            report["model_version"] = classifier.version
            report["n_train"] = len(training)
    report["pack_version"] = load_pack().version
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report
