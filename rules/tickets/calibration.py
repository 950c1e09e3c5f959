"""Calibrated probabilities for the ticket classifier and the per-category thresholds that route a ticket.

The classifier's decision values become probabilities through a softmax whose temperature is fitted on
cross-validated decision values of the training tickets (one parameter: it keeps the ranking and only makes the
numbers mean what they say). Each category's routing threshold is the lowest probability at which the
cross-validated predictions of that category reach the target precision; below it a dispatcher decides.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize_scalar

# Bounds of the fitted inverse temperature (softmax sharpness over LinearSVC margins, which lie within about ±2).
SHARPNESS_BOUNDS = (0.1, 50.0)
ECE_BINS = 10


def softmax(decision: np.ndarray, sharpness: float) -> np.ndarray:
    """Row-wise softmax of `sharpness * decision` (shape (n, k)), numerically stable."""
    shifted = sharpness * (decision - decision.max(axis=1, keepdims=True))
    weights = np.exp(shifted)
    return np.asarray(weights / weights.sum(axis=1, keepdims=True))


def sharpness_fit(decision: np.ndarray, gold: np.ndarray) -> float:
    """The softmax sharpness minimising the log-loss of `decision` (n, k) against gold column indices `gold`."""

    def log_loss(log_sharpness: float) -> float:
        probabilities = softmax(decision, float(np.exp(log_sharpness)))
        return float(-np.mean(np.log(np.clip(probabilities[np.arange(len(gold)), gold], 1e-12, 1.0))))

    low, high = np.log(SHARPNESS_BOUNDS[0]), np.log(SHARPNESS_BOUNDS[1])
    found = minimize_scalar(log_loss, bounds=(low, high), method="bounded")
    return round(float(np.exp(found.x)), 4)


def expected_calibration_error(confidence: Sequence[float], correct: Sequence[bool], bins: int = ECE_BINS) -> float:
    """ECE: the support-weighted gap between mean confidence and accuracy over `bins` equal-width bins."""
    values, hits = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    if not len(values):
        return 0.0
    index = np.minimum((values * bins).astype(int), bins - 1)
    gap = 0.0
    for b in range(bins):
        members = index == b
        if members.any():
            gap += members.sum() * abs(values[members].mean() - hits[members].mean())
    return round(float(gap / len(values)), 4)


def reliability_table(confidence: Sequence[float], correct: Sequence[bool], bins: int = 5) -> list[dict[str, float]]:
    """Per confidence bin: its range, count, mean confidence and accuracy (the reliability diagram as rows)."""
    values, hits = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    index = np.minimum((values * bins).astype(int), bins - 1)
    rows = []
    for b in range(bins):
        members = index == b
        if members.any():
            rows.append(
                {
                    "from": round(b / bins, 2),
                    "to": round((b + 1) / bins, 2),
                    "n": int(members.sum()),
                    "confidence": round(float(values[members].mean()), 4),
                    "accuracy": round(float(hits[members].mean()), 4),
                }
            )
    return rows


def class_thresholds(
    predicted: Sequence[str], confidence: Sequence[float], correct: Sequence[bool], *, target_precision: float
) -> dict[str, float]:
    """Per predicted category, the lowest confidence from which its predictions reach `target_precision`.

    A category whose predictions never reach it gets a threshold above its highest confidence (always a
    dispatcher); one never predicted gets none (the caller's default applies).
    """
    out: dict[str, float] = {}
    for label in sorted(set(predicted)):
        rows = sorted(
            ((c, ok) for p, c, ok in zip(predicted, confidence, correct, strict=True) if p == label),
            key=lambda row: -row[0],
        )
        right, threshold = 0, min(1.0, rows[0][0] + 1e-4)
        for count, (value, ok) in enumerate(rows, start=1):
            right += bool(ok)
            # Ties: a threshold at `value` admits every row with that confidence, so decide after the last one.
            if right / count >= target_precision and (count == len(rows) or rows[count][0] < value):
                threshold = value
        out[label] = round(float(threshold), 4)
    return out
