"""Linear ticket classifier trained on an organisation's own labelled history, stored as a versioned artifact.

Features: character 1-3-gram TF-IDF (sublinear tf) of the ticket's opening (its first OPENING_CHARS characters:
the subject and the first sentences, where citizens name the problem), the same over the subject line (as
`ticket_title` finds it), jieba word TF-IDF over the whole text (the later sentences name the problem in words
the opening may lack; jieba's search-engine mode, so 养老保险金 also counts as 养老, 保险 and 保险金),
all with anonymised place codes and numbers folded (`ticket_normalised`), and the
keyword-rule scores of every level-1 category; a class-balanced LinearSVC on top. Probabilities are a softmax
over the SVM's decision values, its sharpness fitted on cross-validated decision values of the training tickets;
the same cross-validated predictions set each category's routing threshold (`rules.tickets.calibration`). Both
are stored with the model. DocGate ships no trained model.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
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
import rjieba
import sklearn
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import Pipeline, make_pipeline, make_union
from sklearn.preprocessing import FunctionTransformer
from sklearn.svm import LinearSVC

from rules.tickets.calibration import class_thresholds, expected_calibration_error, sharpness_fit, softmax
from rules.tickets.matcher import rule_match
from rules.tickets.pack import load_pack

ARTIFACT_FORMAT = "docgate-ticket-classifier"
# 2: calibrated probabilities (fitted sharpness) and per-category routing thresholds in the metadata.
# 3: features of the ticket's opening, place codes and numbers folded, unnormalised rule scores.
# 4: jieba word TF-IDF over the whole (normalised) text beside the character n-grams.
ARTIFACT_FORMAT_VERSION = 4
MODEL_FILE = "model.joblib"
METADATA_FILE = "metadata.json"
# Most subject lines of hotline tickets fit in 40 characters; the body that follows dilutes them.
TITLE_CHARS = 40
# A message-board ticket is a subject run into its body: the subject ends at the first clause punctuation, or
# where the letter's salutation begins (尊敬的领导, 您好, 书记：…), whichever comes first.
TITLE_SEARCH_CHARS = 60
TITLE_END = re.compile(r"[，。！？,!?：:；;\s]")
SALUTATION = re.compile(r"尊敬的|您好|你好|领导|书记|市长|厅长|局长|县长|区长|主任")
TITLE_MIN_CHARS = 4
# The n-grams of a long letter's later paragraphs (history, signatures, thanks) add noise, not topic: cut at
# 150 characters, 5-fold macro-F1 on the public board rose 0.9095 -> 0.9160 (mean of three fold seeds, with the
# two changes below) and training got three times faster.
OPENING_CHARS = 150
# Words of the whole text, segmented by jieba (a word seen in one training ticket only is dropped): 5-fold
# macro-F1 on the public board 0.9159 -> 0.9192 (mean of fold seeds 0/1/2, classifier alone; every seed rose).
WORD_MIN_DF = 2
# The words are jieba's search-engine segmentation (`ticket_search_words`): citizens name one office or scheme
# in many compounds (社保局, 社保卡, 养老保险金), and the shorter words inside them (社保, 养老, 保险) are what
# such tickets share.
# 5-fold macro-F1 on the public board 0.9178/0.9193/0.9205 -> 0.9202/0.9213/0.9240 at fold seeds 0/1/2, higher at
# 7 of 8 seeds (0-7, mean +0.0017); jieba's full mode (every dictionary word, overlaps included) scored 0.9184.
# Place codes of anonymised boards (A市, A3区, D12市) and numbers (dates, amounts, phone numbers) say where and
# when, not what: folded, they stop being features of one district's tickets.
PLACE_CODE = re.compile(r"[A-Z]\d*([市区县镇乡村州])")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Rule scores enter as log(1 + score) without normalising them per ticket, so the model sees how much keyword
# evidence there is, not only its split between categories (the L2-normalised form scored 0.0025 lower); this
# scale keeps 15 values from dominating ~10^5 n-gram features.
RULE_FEATURE_SCALE = 0.15
# Softmax sharpness used when the training set is too small to cross-validate one (the value that tracked
# accuracy on held-out tickets of the public board before it was fitted per model).
CONFIDENCE_SHARPNESS = 2.5
# Routing thresholds are set so that the tickets routed without a dispatcher are this often right.
TARGET_PRECISION = 0.95
# Folds of the cross-validation inside training that calibrates the model and sets its thresholds.
CALIBRATION_FOLDS = 5
ALTERNATIVES = 3


class IncompatibleArtifactError(ValueError):
    """The artifact was written by another format version or scikit-learn release, or was altered."""


@dataclass(frozen=True)
class Prediction:
    """The classifier's level-1 label for one ticket, its probability, the ranked alternatives (label,
    probability; the label first) and the label's routing threshold (None: the model has none for it)."""

    label: str
    confidence: float
    ranked: tuple[tuple[str, float], ...] = ()
    threshold: float | None = None

    def probability(self, label: str | None) -> float:
        """The probability of `label` among the ranked ones (0 when it is not among them)."""
        return next((p for name, p in self.ranked if name == label), 0.0)


def subject_line(text: str) -> str:
    """A ticket's subject: up to the first clause punctuation or salutation (TITLE_CHARS where there is none)."""
    end = TITLE_END.search(text, TITLE_MIN_CHARS, TITLE_SEARCH_CHARS)
    head = text[: end.start()] if end else text[:TITLE_CHARS]
    salutation = SALUTATION.search(head, TITLE_MIN_CHARS)
    return head[: salutation.start()] if salutation else head


def ticket_normalised(text: str) -> str:
    """The text with anonymised place codes folded to 某市/某区… and every number to 0."""
    return NUMBER.sub("0", PLACE_CODE.sub(r"某\1", text))


def ticket_title(texts: Sequence[str]) -> list[str]:
    """The subject-line part of each ticket, normalised (module-level so a pickled pipeline can find it)."""
    return [ticket_normalised(subject_line(text)) for text in texts]


def ticket_text(texts: Sequence[str]) -> list[str]:
    """Each whole ticket, normalised (its words are the word features)."""
    return [ticket_normalised(text) for text in texts]


def ticket_search_words(text: str) -> list[str]:
    """jieba's search-engine words of `text` (each word, then the shorter dictionary words inside a long one; no
    HMM guessing), without whitespace tokens (module-level so a pickled pipeline can find it)."""
    return [word for word in rjieba.cut_for_search(text, False) if word.strip()]


def ticket_opening(texts: Sequence[str]) -> list[str]:
    """The first OPENING_CHARS characters of each ticket, normalised."""
    return [ticket_normalised(text[:OPENING_CHARS]) for text in texts]


class RuleScoreFeatures(BaseEstimator, TransformerMixin):
    """Keyword-rule scores per level-1 category, log-scaled, as extra features."""

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
        return sparse.csr_matrix(values * self.scale)


def classifier_pipeline() -> Pipeline:
    """The untrained DocGate ticket pipeline."""
    return make_pipeline(
        make_union(
            make_pipeline(
                FunctionTransformer(ticket_opening),
                TfidfVectorizer(analyzer="char", ngram_range=(1, 3), sublinear_tf=True, min_df=2),
            ),
            make_pipeline(
                FunctionTransformer(ticket_title),
                TfidfVectorizer(analyzer="char", ngram_range=(1, 3), sublinear_tf=True),
            ),
            make_pipeline(
                FunctionTransformer(ticket_text),
                TfidfVectorizer(analyzer=ticket_search_words, sublinear_tf=True, min_df=WORD_MIN_DF),
            ),
            RuleScoreFeatures(),
        ),
        LinearSVC(C=0.5, class_weight="balanced"),
    )


def baseline_pipeline() -> Pipeline:
    """The plain reference: character 1-3-gram TF-IDF and a default LinearSVC."""
    return make_pipeline(TfidfVectorizer(analyzer="char", ngram_range=(1, 3)), LinearSVC())


def decision_values(pipeline: Pipeline, texts: Sequence[str]) -> np.ndarray:
    """The pipeline's decision values, shape (n, k) also for two classes (sklearn gives one margin then)."""
    decision = np.asarray(pipeline.decision_function(list(texts)), dtype=float)
    return np.column_stack([-decision, decision]) if decision.ndim == 1 else decision


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

    @property
    def thresholds(self) -> dict[str, float]:
        """Per level-1 category, the probability below which a ticket goes to a dispatcher."""
        return dict(self.metadata.get("thresholds") or {})

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        """Return one Prediction per text, in order, with up to ALTERNATIVES ranked labels."""
        if not texts:
            return []
        classes = [str(label) for label in self.pipeline.classes_]
        probabilities = softmax(decision_values(self.pipeline, texts), float(self.metadata["sharpness"]))
        thresholds = self.thresholds
        out = []
        for row in probabilities:
            order = np.argsort(-row, kind="stable")[:ALTERNATIVES]
            ranked = tuple((classes[i], round(float(row[i]), 4)) for i in order)
            label, confidence = ranked[0]
            out.append(Prediction(label, confidence, ranked, thresholds.get(label)))
        return out

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


def train_classifier(
    texts: Sequence[str], labels: Sequence[str], *, target_precision: float = TARGET_PRECISION
) -> TicketClassifier:
    """Fit the pipeline, its calibration and routing thresholds on labelled tickets; ValueError for unusable data."""
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    counts = Counter(labels)
    if len(counts) < 2:
        raise ValueError("training needs at least two different labels")
    pack = load_pack()
    unknown = sorted(set(counts) - set(pack.taxonomy.level1_names))
    if unknown:
        raise ValueError(f"labels outside the ticket taxonomy's level-1 categories: {unknown}")
    started = time.perf_counter()
    sharpness, thresholds, calibration = _calibration(list(texts), list(labels), target_precision)
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
        "sharpness": sharpness,
        "target_precision": target_precision,
        "thresholds": thresholds,
        "calibration": calibration,
        "training_seconds": round(time.perf_counter() - started, 2),
    }
    return TicketClassifier(pipeline, metadata)


def _calibration(
    texts: list[str], labels: list[str], target_precision: float
) -> tuple[float, dict[str, float], dict[str, Any]]:
    """Softmax sharpness and routing thresholds from cross-validated decision values of the training tickets
    (a fold count the smallest category allows, at most CALIBRATION_FOLDS; too few tickets: the defaults)."""
    from sklearn.model_selection import StratifiedKFold  # heavy: only when training

    folds = min(CALIBRATION_FOLDS, min(Counter(labels).values()))
    if folds < 2:
        return CONFIDENCE_SHARPNESS, {}, {"folds": 0}
    classes = sorted(set(labels))
    decision = np.zeros((len(texts), len(classes)))
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    for train_index, test_index in splitter.split(texts, labels):
        fold = classifier_pipeline().fit([texts[i] for i in train_index], [labels[i] for i in train_index])
        columns = [classes.index(str(label)) for label in fold.classes_]
        values = decision_values(fold, [texts[i] for i in test_index])
        full = np.full((len(test_index), len(classes)), values.min() - 10.0)  # a class missing from a fold
        full[:, columns] = values
        decision[test_index] = full
    gold = np.array([classes.index(label) for label in labels])
    sharpness = sharpness_fit(decision, gold)
    probabilities = softmax(decision, sharpness)
    predicted = [classes[i] for i in probabilities.argmax(axis=1)]
    confidence = probabilities.max(axis=1).tolist()
    correct = [p == g for p, g in zip(predicted, labels, strict=True)]
    thresholds = class_thresholds(predicted, confidence, correct, target_precision=target_precision)
    routed = [ok for c, ok, p in zip(confidence, correct, predicted, strict=True) if c >= thresholds.get(p, 0.0)]
    report = {
        "folds": folds,
        "ece": expected_calibration_error(confidence, correct),
        "accuracy": round(sum(correct) / len(correct), 4),
        "routed_share": round(len(routed) / len(correct), 4),
        "routed_precision": round(sum(routed) / len(routed), 4) if routed else None,
    }
    return sharpness, thresholds, report
