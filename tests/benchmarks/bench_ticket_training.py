"""Benchmark: training the ticket classifier on the public board (calibration and routing thresholds included,
target under two minutes on two cores) against fitting the bare pipeline once in the same run; one JSON object."""

from __future__ import annotations

import json
import os
import sys
import time

from rules.evaluation.common import jsonl_rows
from rules.tickets.classifier import classifier_pipeline, train_classifier
from tests.shared_data import shared_file

TARGET_S = 120.0


def main() -> None:
    """Run the benchmark and print its JSON report."""
    rows = list(jsonl_rows(shared_file("tickets/public.jsonl")))
    texts, labels = [r["text"] for r in rows], [r["label"] for r in rows]
    started = time.perf_counter()
    classifier_pipeline().fit(texts, labels)
    bare_s = time.perf_counter() - started
    started = time.perf_counter()
    classifier = train_classifier(texts, labels)
    train_s = time.perf_counter() - started
    started = time.perf_counter()
    classifier.predict(texts)
    predict_s = time.perf_counter() - started
    report = {
        "tickets": len(texts),
        "cpus": os.cpu_count(),
        "train_s": round(train_s, 2),
        "bare_fit_s": round(bare_s, 2),
        "ratio_vs_bare_fit": round(train_s / bare_s, 2),
        "within_target": train_s < TARGET_S,
        "target_s": TARGET_S,
        "calibration_folds": classifier.metadata["calibration"]["folds"],
        "predict_tickets_per_s": round(len(texts) / predict_s, 1),
    }
    json.dump(report, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
