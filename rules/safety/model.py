"""The learned safety classifier: a linear model over `rules.safety.features`, stored as plain arrays (no pickle).

Two heads share the features: the label head (unsafe / sensitive / safe, multinomial logistic regression) whose
P(unsafe) is calibrated by a Platt curve fitted on out-of-fold scores, and the category head (which DocGate
category an unsafe text belongs to). The artifact is `weights.npz` plus `metadata.json` (format, data, licences,
seed, metrics, the arrays' SHA-256); the shipped one lives in `rules/safety/model/`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rules.feature_hashing import N_TEXT_FEATURES, weights_digest
from rules.safety.features import N_FEATURES, lexicon_row, text_terms
from rules.safety.scorer import SafetyAssessment, safety_score

FORMAT = "docgate-safety-model"
FORMAT_VERSION = 1
WEIGHTS_FILE = "weights.npz"
METADATA_FILE = "metadata.json"
SHIPPED_DIR = Path(__file__).resolve().parent / "model"
LABELS = ("safe", "sensitive", "unsafe")
# Long documents are scored in windows of about this many characters (cut at sentence ends): the model was
# trained on texts of one to a few sentences, and one harmful paragraph must not be diluted by forty pages.
WINDOW_CHARS = 400
_SENTENCE_ENDS = frozenset("。！？!?；;\n")


class SafetyModelError(ValueError):
    """The artifact is missing, altered, or of another format version."""


@dataclass(frozen=True)
class SafetyPrediction:
    """One text's calibrated P(unsafe), its most likely label, and the category an unsafe reading falls in."""

    p_unsafe: float
    label: str
    category: str | None
    category_p: float


@dataclass
class SafetyModel:
    """The arrays of a trained model and the metadata that make it an artifact."""

    idf: np.ndarray
    label_coef: np.ndarray  # (len(LABELS), N_FEATURES)
    label_intercept: np.ndarray
    category_coef: np.ndarray  # (len(categories), N_FEATURES)
    category_intercept: np.ndarray
    categories: tuple[str, ...]
    calibration: tuple[float, float]  # Platt: P = sigmoid(a x margin + b)
    metadata: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def _table(self) -> np.ndarray:
        """One row per feature: its idf, then both heads' weights (labels, then categories), float32 as stored.

        A window's features are scattered over 300K rows; one gather from one table touches each row's memory
        once (idf and weights side by side) instead of three times in three arrays, and float32 halves it.
        """
        idf = np.zeros(N_FEATURES, dtype=np.float32)
        idf[: len(self.idf)] = self.idf
        heads = np.vstack([self.label_coef, self.category_coef]).T.astype(np.float32)
        return np.ascontiguousarray(np.column_stack([idf, heads]))

    @property
    def version(self) -> str:
        return str(self.metadata.get("model_version", "unversioned"))

    def _window_logits(self, window: str, assessment: SafetyAssessment | None) -> tuple[np.ndarray, np.ndarray]:
        """Label and category logits of one window, computed on its few non-zero features only.

        The same arithmetic as `feature_matrix` followed by the heads (sublinear tf x idf, L2 norm, lexicon
        columns), without building sparse matrices: a single short text would spend most of its time there.
        """
        indices, counts = text_terms(window)
        table = self._table
        rows = table[indices].astype(np.float64)  # float32 -> float64 is exact: the same sums as the stored weights
        weights = (1.0 + np.log(counts)) * rows[:, 0]
        norm = float(np.sqrt(weights @ weights))
        if norm > 0.0:
            weights /= norm
        lexicon = lexicon_row(assessment if assessment is not None else safety_score(window))
        logits = weights @ rows[:, 1:] + lexicon @ table[N_TEXT_FEATURES:, 1:].astype(np.float64)
        labels = len(self.label_intercept)
        return logits[:labels] + self.label_intercept, logits[labels:] + self.category_intercept

    def calibrated(self, margins: np.ndarray) -> np.ndarray:
        """P(unsafe) from margins through the Platt curve."""
        return platt(margins, *self.calibration)

    def predict(
        self, texts: Sequence[str], assessments: Sequence[SafetyAssessment] | None = None
    ) -> list[SafetyPrediction]:
        """One prediction per text, in order; a long text is judged by its riskiest window.

        `assessments` (the lexicon's, one per text) spare scoring a single-window text twice.
        """
        out = []
        a, b = self.calibration
        for number, text in enumerate(texts):
            windows = text_windows(text)
            known = assessments[number] if assessments is not None and len(windows) == 1 else None
            # Plain floats from here on: a handful of numbers per window, where numpy's per-call cost would dominate.
            scored = [
                (label.tolist(), category.tolist())
                for label, category in (self._window_logits(window, known) for window in windows)
            ]
            margins = [_unsafe_margin(label) for label, _category in scored]
            worst = _argmax(margins)
            label_logits, category_logits = scored[worst]
            category, category_p = self._category(category_logits)
            probability = 1.0 / (1.0 + math.exp(-(a * margins[worst] + b)))  # `platt` on one margin
            out.append(SafetyPrediction(round(probability, 4), LABELS[_argmax(label_logits)], category, category_p))
        return out

    def _category(self, logits: list[float]) -> tuple[str | None, float]:
        """The most likely category from its logits, and its probability."""
        if not self.categories:
            return None, 0.0
        best = _argmax(logits)
        total = sum(math.exp(value - logits[best]) for value in logits)
        return self.categories[best], round(1.0 / total, 4)

    def arrays(self) -> dict[str, np.ndarray]:
        """The stored arrays, in their stored dtypes and a fixed order."""
        return {
            "idf": self.idf.astype(np.float32),
            "label_coef": self.label_coef.astype(np.float32),
            "label_intercept": self.label_intercept.astype(np.float64),
            "category_coef": self.category_coef.astype(np.float32),
            "category_intercept": self.category_intercept.astype(np.float64),
            "calibration": np.asarray(self.calibration, dtype=np.float64),
        }

    def save(self, path: str | Path) -> Path:
        """Write `weights.npz` and `metadata.json` (with the arrays' digest) into directory `path`."""
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        arrays = self.arrays()
        np.savez_compressed(directory / WEIGHTS_FILE, **arrays)  # type: ignore[arg-type]
        self.metadata = {
            **self.metadata,
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "labels": list(LABELS),
            "categories": list(self.categories),
            "n_features": N_FEATURES,
            "weights_sha256": weights_digest(arrays),
        }
        text = json.dumps(self.metadata, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        (directory / METADATA_FILE).write_text(text, encoding="utf-8")
        return directory

    @classmethod
    def load(cls, path: str | Path) -> SafetyModel:
        """Read an artifact directory; raise SafetyModelError when it is missing, altered or of another format."""
        directory = Path(path)
        try:
            metadata = json.loads((directory / METADATA_FILE).read_text(encoding="utf-8"))
            with np.load(directory / WEIGHTS_FILE, allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files}
        except (OSError, ValueError, KeyError) as exc:
            raise SafetyModelError(f"{directory}: no readable safety model ({exc})") from exc
        if metadata.get("format") != FORMAT or metadata.get("format_version") != FORMAT_VERSION:
            raise SafetyModelError(f"{directory}: not a DocGate safety model of format version {FORMAT_VERSION}")
        if metadata.get("n_features") != N_FEATURES or tuple(metadata.get("labels", ())) != LABELS:
            raise SafetyModelError(f"{directory}: built for other features or labels; retrain it")
        try:
            digest = weights_digest(arrays)
            a, b = (float(value) for value in arrays["calibration"])
            model = cls(
                idf=arrays["idf"],
                label_coef=arrays["label_coef"],
                label_intercept=arrays["label_intercept"],
                category_coef=arrays["category_coef"],
                category_intercept=arrays["category_intercept"],
                categories=tuple(metadata["categories"]),
                calibration=(a, b),
                metadata=metadata,
            )
        except (KeyError, ValueError) as exc:
            raise SafetyModelError(f"{directory}: incomplete safety model ({exc!r})") from exc
        if digest != metadata.get("weights_sha256"):
            raise SafetyModelError(f"{directory}: {WEIGHTS_FILE} does not match its metadata digest")
        return model


def platt(margins: np.ndarray, a: float, b: float) -> np.ndarray:
    """The Platt curve sigmoid(a x margin + b)."""
    return np.asarray(1.0 / (1.0 + np.exp(-(a * margins + b))))


def _unsafe_margin(label_logits: list[float]) -> float:
    """Log-odds of `unsafe` against the other labels (log-sum-exp in plain floats: three numbers)."""
    unsafe = LABELS.index("unsafe")
    others = label_logits[:unsafe] + label_logits[unsafe + 1 :]
    top = max(others)
    return label_logits[unsafe] - (top + math.log(sum(math.exp(value - top) for value in others)))


def _argmax(values: Sequence[float]) -> int:
    """The index of the first largest value (as numpy's argmax)."""
    return max(range(len(values)), key=values.__getitem__)


def text_windows(text: str, size: int = WINDOW_CHARS) -> list[str]:
    """`text` itself when short; else consecutive pieces of about `size` characters cut after sentence ends."""
    if len(text) <= size:
        return [text]
    windows, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max((i for i in range(start + size // 2, end) if text[i] in _SENTENCE_ENDS), default=end - 1)
            end = cut + 1
        piece = text[start:end]
        if piece.strip():
            windows.append(piece)
        start = end
    return windows or [text]


def load_safety_model(path: str | Path | None = None) -> SafetyModel:
    """Load a model directory (by default the shipped one) once per process; raise SafetyModelError when unusable."""
    return _load_cached(str(path or SHIPPED_DIR))


@lru_cache(maxsize=8)
def _load_cached(path: str) -> SafetyModel:
    return SafetyModel.load(path)
