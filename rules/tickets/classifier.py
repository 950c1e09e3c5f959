"""Linear ticket classifier trained on an organisation's own labelled history, stored as a versioned artifact.

Features: character 1-3-gram TF-IDF of the whole ticket (sublinear tf), the same over the subject line (its
first TITLE_CHARS characters), and the keyword-rule scores of every level-1 category; a class-balanced
LinearSVC on top. Confidence is a softmax over the SVM's decision values. DocGate ships no trained model.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import sklearn
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import Pipeline, make_pipeline, make_union
from sklearn.preprocessing import FunctionTransformer
from sklearn.svm import LinearSVC

from rules.tickets.matcher import rule_match
from rules.tickets.pack import load_pack

ARTIFACT_FORMAT = "docgate-ticket-classifier"
ARTIFACT_FORMAT_VERSION = 1
MODEL_FILE = "model.joblib"
METADATA_FILE = "metadata.json"
# Most subject lines of hotline tickets fit in 40 characters; the body that follows dilutes them.
TITLE_CHARS = 40
# Rule scores are a 15-value summary next to ~10^5 n-gram features; this keeps them from dominating.
RULE_FEATURE_SCALE = 0.3
# Softmax temperature over LinearSVC decision values, set so confidence tracks accuracy on held-out tickets
# of the public board (predictions at 0.75-0.9 were ~95% right, at 0.5-0.75 ~80%); 4.0 was overconfident.
CONFIDENCE_SHARPNESS = 2.5


class IncompatibleArtifactError(ValueError):
    """The artifact was written by another format version or scikit-learn release, or was altered."""


@dataclass(frozen=True)
class Prediction:
    """The classifier's level-1 label for one ticket and its confidence in [0, 1]."""

    label: str
    confidence: float


def ticket_title(texts: Sequence[str]) -> list[str]:
    """The subject-line part of each ticket (module-level so a pickled pipeline can find it)."""
    return [text[:TITLE_CHARS] for text in texts]


class RuleScoreFeatures(BaseEstimator, TransformerMixin):
    """Keyword-rule scores per level-1 category, log-scaled and L2-normalised, as extra features."""

    def __init__(self, scale: float = RULE_FEATURE_SCALE) -> None:
        self.scale = scale

    def fit(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> RuleScoreFeatures:
        """Nothing to learn: the rule pack is fixed."""
        return self

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """Return an (n, 15) sparse matrix of scaled rule scores."""
        pack = load_pack()
        columns = {name: index for index, name in enumerate(pack.taxonomy.level1_names)}
        values = np.zeros((len(texts), len(columns)))
        for row, text in enumerate(texts):
            for label, score in rule_match(text, pack=pack).scores:
                values[row, columns[label]] = math.log1p(score)
        norms = np.linalg.norm(values, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return sparse.csr_matrix(values / norms * self.scale)


def classifier_pipeline() -> Pipeline:
    """The untrained DocGate ticket pipeline."""
    return make_pipeline(
        make_union(
            TfidfVectorizer(analyzer="char", ngram_range=(1, 3), sublinear_tf=True, min_df=2),
            make_pipeline(
                FunctionTransformer(ticket_title),
                TfidfVectorizer(analyzer="char", ngram_range=(1, 3), sublinear_tf=True),
            ),
            RuleScoreFeatures(),
        ),
        LinearSVC(C=0.5, class_weight="balanced"),
    )


def baseline_pipeline() -> Pipeline:
    """The plain reference: character 1-3-gram TF-IDF and a default LinearSVC."""
    return make_pipeline(TfidfVectorizer(analyzer="char", ngram_range=(1, 3)), LinearSVC())


def _softmax_confidence(decision: np.ndarray) -> np.ndarray:
    """Probability-like confidence of the top class from decision values of shape (n, k)."""
    shifted = CONFIDENCE_SHARPNESS * (decision - decision.max(axis=1, keepdims=True))
    weights = np.exp(shifted)
    return 1.0 / weights.sum(axis=1)


class TicketClassifier:
    """A trained pipeline plus the metadata that makes it a versioned artifact."""

    def __init__(self, pipeline: Pipeline, metadata: dict[str, Any]) -> None:
        self.pipeline = pipeline
        self.metadata = metadata

    @property
    def version(self) -> str:
        return str(self.metadata["model_version"])

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.metadata["labels"])

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        """Return one Prediction per text, in order."""
        if not texts:
            return []
        decision = np.asarray(self.pipeline.decision_function(list(texts)), dtype=float)
        classes = self.pipeline.classes_
        if decision.ndim == 1:  # two classes: sklearn returns the positive class's margin only
            decision = np.column_stack([-decision, decision])
        confidences = _softmax_confidence(decision)
        best = decision.argmax(axis=1)
        return [
            Prediction(label=str(classes[i]), confidence=round(float(c), 4))
            for i, c in zip(best, confidences, strict=True)
        ]

    def save(self, path: str | Path) -> Path:
        """Write `model.joblib` and `metadata.json` (with the model's SHA-256) into directory `path`."""
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        model_path = directory / MODEL_FILE
        joblib.dump(self.pipeline, model_path)
        metadata = {**self.metadata, "model_sha256": _sha256(model_path)}
        (directory / METADATA_FILE).write_text(json.dumps(metadata, ensure_ascii=False, indent=2), "utf-8")
        self.metadata = metadata
        return directory

    @classmethod
    def load(cls, path: str | Path) -> TicketClassifier:
        """Read an artifact directory; raise IncompatibleArtifactError before unpickling anything doubtful."""
        directory = Path(path)
        try:
            metadata = json.loads((directory / METADATA_FILE).read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise IncompatibleArtifactError(f"{directory}: no readable {METADATA_FILE} ({exc})") from exc
        check_compatible(metadata)
        model_path = directory / MODEL_FILE
        if not model_path.exists() or _sha256(model_path) != metadata.get("model_sha256"):
            raise IncompatibleArtifactError(f"{model_path}: missing or does not match its metadata checksum")
        pack_version = load_pack().version
        if metadata.get("rule_pack_version") != pack_version:
            # Still usable (rule scores are a minor feature), but worth retraining: say so.
            warnings.warn(
                f"ticket classifier {metadata['model_version']} was trained with rule pack "
                f"{metadata.get('rule_pack_version')}, running with {pack_version}; consider retraining",
                stacklevel=2,
            )
        return cls(joblib.load(model_path), metadata)


def check_compatible(metadata: dict[str, Any]) -> None:
    """Raise IncompatibleArtifactError unless the artifact's format and scikit-learn release match ours."""
    if metadata.get("format") != ARTIFACT_FORMAT:
        raise IncompatibleArtifactError(f"not a DocGate ticket classifier (format={metadata.get('format')!r})")
    if metadata.get("format_version") != ARTIFACT_FORMAT_VERSION:
        raise IncompatibleArtifactError(
            f"artifact format version {metadata.get('format_version')} is not supported "
            f"(this DocGate reads version {ARTIFACT_FORMAT_VERSION}); retrain with train_ticket_classifier"
        )
    # Pickled estimators are only guaranteed to work under the scikit-learn release that wrote them.
    theirs, ours = str(metadata.get("sklearn_version", "")), sklearn.__version__
    if theirs.split(".")[:2] != ours.split(".")[:2]:
        raise IncompatibleArtifactError(
            f"artifact was trained with scikit-learn {theirs or 'unknown'}, this process runs {ours}; "
            "retrain with train_ticket_classifier"
        )


def _sha256(path: Path) -> str:
    """Hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def train_classifier(texts: Sequence[str], labels: Sequence[str]) -> TicketClassifier:
    """Fit the pipeline on labelled tickets; raise ValueError for unusable training data."""
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    counts = Counter(labels)
    if len(counts) < 2:
        raise ValueError("training needs at least two different labels")
    pack = load_pack()
    unknown = sorted(set(counts) - set(pack.taxonomy.level1_names))
    if unknown:
        raise ValueError(f"labels outside the ticket taxonomy's level-1 categories: {unknown}")
    pipeline = classifier_pipeline().fit(list(texts), list(labels))
    trained_at = datetime.now(UTC)
    metadata = {
        "format": ARTIFACT_FORMAT,
        "format_version": ARTIFACT_FORMAT_VERSION,
        # The random suffix keeps two models trained in the same second apart.
        "model_version": f"tickets-{trained_at:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}",
        "trained_at": trained_at.isoformat(timespec="seconds"),
        "n_samples": len(texts),
        "labels": sorted(counts),
        "label_counts": dict(sorted(counts.items())),
        "sklearn_version": sklearn.__version__,
        "rule_pack_version": pack.version,
        "taxonomy_version": pack.taxonomy.version,
    }
    return TicketClassifier(pipeline, metadata)
