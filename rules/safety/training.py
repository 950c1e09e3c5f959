"""Training the safety classifier: which rows may be learned from, their labels and categories, a seeded fit.

Only sources whose licence lets a trained model ship are accepted (SOURCES); a row from any other source is
refused, so citizen tickets (no licence) stay the false-flag check and never become training data. An
organisation's own history joins as extra safe examples (`extra_safe`), for its own model only.

Sources differ in style: social-media comments (COLD) outnumber requests to a model about ten to one. Each
style gets the same total sample weight, so the model learns what a harmful *request* looks like instead of
what a comment thread looks like; an organisation's extra safe texts form a style of their own.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from rules.feature_hashing import CHAR_BUCKETS, WORD_BUCKETS, idf_fit
from rules.safety.features import (
    CUE_SCALE,
    LEXICON_SCALE,
    feature_matrix,
    lexicon_scores,
    text_counts,
)
from rules.safety.model import LABELS, SafetyModel, platt
from rules.safety.pack import load_safety_pack
from rules.safety.safe_requests import SOURCE as OWN_SOURCE
from rules.safety.safe_requests import own_texts, safe_requests_version


@dataclass(frozen=True)
class Source:
    """A training source: its licence (the model card names it) and its style (for sample weights)."""

    licence: str
    style: str  # "comment" | "request" | "organisation"
    origin: str


SOURCES: dict[str, Source] = {
    "cold-train": Source("Apache-2.0", "comment", "thu-coai/COLDataset (train split)"),
    "cold-test": Source("Apache-2.0", "comment", "thu-coai/COLDataset (test split)"),
    "xsafety-zh": Source("Apache-2.0", "request", "Jarviswang94/Multilingual_safety_benchmark (zh)"),
    "cvalues": Source("Apache-2.0", "request", "X-PLUG/CValues"),
    "jailbench": Source("MIT", "request", "STAIR-BUPT/JailBench"),
    "jailbench-seed": Source("MIT", "request", "STAIR-BUPT/JailBench (seed questions)"),
    "multijail-zh": Source("MIT", "request", "DAMO-NLP-SG/multilingual-safety-for-LLMs (zh)"),
    "jade-v2-easy": Source("MIT", "request", "whitzard-ai/jade-db (v2 easy)"),
    OWN_SOURCE: Source("DocGate's own", "request", "rules/safety/data/safe_requests.json (templates)"),
}
OWN_COUNT = 2000
ORGANISATION_SOURCE = "organisation-safe"
# Chosen with no evaluation row in training (C = 4 / 16 / 64): at the threshold flagging 10 % of unseen safe
# COLD comments, the gate recalled 0.58 / 0.60 / 0.60 of unseen offensive ones and 0.48 / 0.50 / 0.50 of JADE.
C = 16.0
CALIBRATION_FOLDS = 3
MAX_ITER = 3000

# Source category names (first tag of a comma list) to DocGate categories, first match wins: specific before
# general. COLD's race/region/gender comments are prejudice; what matches nothing is 违法犯罪.
_CATEGORY_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("prompt_injection", ("goal_hijacking", "prompt_leaking", "role_play")),
    ("self_harm", ("self-harm", "mental_health")),
    ("sexual", ("adult", "sexual")),
    ("pii_leak", ("personally identifiable",)),
    ("abuse", ("insult", "bullying", "hate speech")),
    ("歧视偏见", ("歧视", "偏见", "discrimination", "unfairness", "race", "region", "gender", "offensive")),
    ("violence_threat", ("violence", "physical_harm", "危害他人身心", "animal abuse")),
    ("侵犯权益", ("侵犯", "侵害", "privacy", "权益", "商业秘密", "知识产权")),
)


def docgate_category(source_category: str) -> str:
    """The DocGate category of a source's category label."""
    first = source_category.split(",")[0].strip().lower()
    for category, cues in _CATEGORY_CUES:
        if any(cue in first for cue in cues):
            return category
    return "违法犯罪"


@dataclass(frozen=True)
class Example:
    """One training row: text, label (safe / sensitive / unsafe), DocGate category, source."""

    text: str
    label: str
    category: str | None
    source: str


def training_examples(rows: Iterable[dict[str, Any]]) -> tuple[list[Example], Counter[str]]:
    """Rows `{"text", "label", "category", "source"}` as examples, and the rows left out per unlicensed source.

    A row from a source outside SOURCES is never learned from (its licence does not let a model ship): it is
    counted, not used. `safe` rows whose category says sensitive (expert questions on sensitive topics) are
    `sensitive`: the model must tell a careful question from a harmful one, and neither from small talk.
    Raise ValueError for a row without text or with an unknown label.
    """
    examples = []
    skipped: Counter[str] = Counter()
    for number, row in enumerate(rows, start=1):
        source = str(row.get("source") or "")
        label = str(row.get("label") or "")
        if label not in LABELS or not isinstance(row.get("text"), str):
            raise ValueError(f"row {row.get('id', number)}: needs text and a label in {LABELS}")
        if source not in SOURCES:
            skipped[source or "(no source)"] += 1
            continue
        category = str(row.get("category") or "")
        if label == "safe" and "sensitive" in category.lower():
            label = "sensitive"
        examples.append(Example(row["text"], label, docgate_category(category) if label == "unsafe" else None, source))
    return examples, skipped


def style_weights(sources: Sequence[str]) -> np.ndarray:
    """Sample weights giving every style (comment, request, organisation) the same total weight, mean 1."""
    styles = [SOURCES[source].style if source in SOURCES else "organisation" for source in sources]
    counts = Counter(styles)
    weights = np.array([len(styles) / (len(counts) * counts[style]) for style in styles])
    return weights


@dataclass(frozen=True)
class _Head:
    """A fitted linear head over the full feature width."""

    classes: tuple[str, ...]
    coef: np.ndarray
    intercept: np.ndarray

    def log_proba(self, features: Any) -> np.ndarray:
        logits = np.asarray(features @ self.coef.T) + self.intercept
        return np.asarray(logits - np.logaddexp.reduce(logits, axis=1, keepdims=True))


def _fit(features: Any, labels: np.ndarray, weights: np.ndarray, seed: int) -> _Head:
    """One seeded multinomial logistic regression (lbfgs is deterministic for the same input).

    Only the columns some training row uses are optimised: under L2 an unused column's weight stays exactly
    zero, so fitting without it gives the same model in far less time (most hash buckets of a small corpus).
    """
    used = np.unique(features.indices)
    model = LogisticRegression(C=C, max_iter=MAX_ITER, random_state=seed)
    model.fit(features[:, used], labels, sample_weight=weights)
    fitted, intercept = model.coef_, np.asarray(model.intercept_, dtype=np.float64)
    if len(model.classes_) == 2:  # one logit for the second class; as softmax logits: (0, logit)
        fitted = np.vstack([np.zeros_like(fitted), fitted])
        intercept = np.array([0.0, intercept[0]])
    coef = np.zeros((fitted.shape[0], features.shape[1]))
    coef[:, used] = fitted
    return _Head(tuple(str(c) for c in model.classes_), coef, intercept)


def _unsafe_margin(head: _Head, features: Any) -> np.ndarray:
    """Log-odds of unsafe against the rest from a fitted label head."""
    log_p = head.log_proba(features)
    unsafe = head.classes.index("unsafe")
    rest = np.logaddexp.reduce(np.delete(log_p, unsafe, axis=1), axis=1)
    return np.asarray(log_p[:, unsafe] - rest)


def _platt(margins: np.ndarray, unsafe: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of P(unsafe) = sigmoid(a x margin + b) fitted on out-of-fold margins."""
    curve = LogisticRegression(C=1e6, max_iter=1000).fit(margins.reshape(-1, 1), unsafe)
    return float(curve.coef_[0, 0]), float(curve.intercept_[0])


SWEEP = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99)
# The generic-text review threshold is the lowest at which at most this share of curated legitimate questions
# (CValues: sensitive topics asked by domain experts, out of fold) is flagged. xsafety's `sensitive` rows are not
# used for this: they were labelled by keyword rules and hold many harmful requests.
TEXT_THRESHOLD_SOURCE = "cvalues"
TEXT_FALSE_FLAG_BUDGET = 0.03


def out_of_fold_sweep(p_unsafe: np.ndarray, labels: np.ndarray, sources: Sequence[str]) -> dict[str, list[float]]:
    """Per licensed source, out of fold, at each SWEEP threshold: the share flagged (of its unsafe rows when it has
    any, else of its safe and sensitive rows)."""
    source_array = np.array(sources)
    out: dict[str, list[float]] = {}
    for source in sorted(set(sources) & SOURCES.keys() - {OWN_SOURCE}):
        rows = source_array == source
        unsafe = rows & (labels == "unsafe")
        chosen = unsafe if unsafe.any() else rows
        out[source] = [round(float((p_unsafe[chosen] >= threshold).mean()), 4) for threshold in SWEEP]
    return out


def _text_threshold(sweep: dict[str, list[float]]) -> float | None:
    """The lowest swept threshold at which TEXT_THRESHOLD_SOURCE is flagged within the budget (None without it)."""
    flagged = sweep.get(TEXT_THRESHOLD_SOURCE)
    if flagged is None:
        return None
    return next((t for t, share in zip(SWEEP, flagged, strict=True) if share <= TEXT_FALSE_FLAG_BUDGET), None)


def train_safety_model(
    examples: Sequence[Example],
    *,
    extra_safe: Sequence[str] = (),
    seed: int = 0,
    calibrate: bool = True,
    own: int = OWN_COUNT,
) -> SafetyModel:
    """Fit both heads and the calibration curve; raise ValueError for data that cannot train a model.

    Calibration: CALIBRATION_FOLDS stratified folds (seeded) give every example a margin from a label head that
    did not see it; a Platt curve on those margins maps the final head's margin to P(unsafe).
    `calibrate=False` (tests, quick looks) keeps the identity-like curve a=1, b=0. `own` texts from DocGate's
    templates (`rules.safety.safe_requests`) join as safe and sensitive requests.

    Longer than 60 lines on purpose (size-limit exception): the training recipe reads top to bottom as one
    sequence (examples, features, folds, calibration, heads, metadata), and every step feeds the reproducibility
    the determinism test checks; split into helpers it would hand a dozen arrays from one to the next.
    """
    all_examples = [
        *examples,
        *(Example(text, label, None, OWN_SOURCE) for text, label in own_texts(own, seed=seed)),
        *(Example(text, "safe", None, ORGANISATION_SOURCE) for text in extra_safe),
    ]
    labels = np.array([example.label for example in all_examples])
    present = Counter(labels.tolist())
    if set(present) != set(LABELS):
        raise ValueError(f"training needs examples of every label {LABELS}; got {dict(present)}")
    texts = [example.text for example in all_examples]
    sources = [example.source for example in all_examples]
    counts = text_counts(texts)
    idf = idf_fit(counts)
    pack = load_safety_pack()
    features = feature_matrix(counts, idf, lexicon_scores(texts, pack))
    weights = style_weights(sources)
    head = _fit(features, labels, weights, seed)
    if head.classes != LABELS:
        raise ValueError(f"unexpected label order {head.classes}")
    calibration = (1.0, 0.0)
    sweep: dict[str, list[float]] = {}
    if calibrate:
        margins = np.zeros(len(labels))
        folds = StratifiedKFold(n_splits=CALIBRATION_FOLDS, shuffle=True, random_state=seed)
        for inside, outside in folds.split(np.zeros(len(labels)), labels):
            fold_head = _fit(features[inside], labels[inside], weights[inside], seed)
            margins[outside] = _unsafe_margin(fold_head, features[outside])
        calibration = _platt(margins, (labels == "unsafe").astype(int))
        sweep = out_of_fold_sweep(platt(margins, *calibration), labels, sources)
    unsafe_rows = np.flatnonzero(labels == "unsafe")
    category_labels = np.array([all_examples[i].category for i in unsafe_rows])
    categories = tuple(sorted(set(category_labels.tolist())))
    if len(categories) >= 2:
        category_head = _fit(features[unsafe_rows], category_labels, weights[unsafe_rows], seed)
        category_coef, category_intercept = category_head.coef, category_head.intercept
    else:
        category_coef = np.zeros((len(categories), features.shape[1]))
        category_intercept = np.zeros(len(categories))
    trained_at = datetime.now(UTC)
    by_source = Counter((example.source, example.label) for example in all_examples)
    metadata: dict[str, Any] = {
        "model_version": f"safety-{trained_at:%Y%m%dT%H%M%SZ}",
        "trained_at": trained_at.isoformat(timespec="seconds"),
        "seed": seed,
        "n_samples": len(all_examples),
        "label_counts": dict(sorted(present.items())),
        "sources": {
            source: {
                "licence": SOURCES[source].licence if source in SOURCES else "the organisation's own data",
                "origin": SOURCES[source].origin if source in SOURCES else "--extra-safe",
                "style": SOURCES[source].style if source in SOURCES else "organisation",
                "rows": {label: n for (s, label), n in sorted(by_source.items()) if s == source},
            }
            for source in sorted({example.source for example in all_examples})
        },
        "hyperparameters": {
            "C": C,
            "char_ngrams": [1, 4],
            "char_buckets": CHAR_BUCKETS,
            "word_buckets": WORD_BUCKETS,
            "lexicon_scale": LEXICON_SCALE,
            "cue_scale": CUE_SCALE,
            "calibration_folds": CALIBRATION_FOLDS if calibrate else 0,
        },
        "calibration": {"a": round(calibration[0], 6), "b": round(calibration[1], 6)},
        "out_of_fold": {"thresholds": list(SWEEP), "flagged_by_source": sweep},
        "text_review_threshold_out_of_fold": _text_threshold(sweep),
        "sklearn_version": sklearn.__version__,
        "safety_pack_version": pack.version,
        "safe_requests_version": safe_requests_version(),
    }
    if not all(math.isfinite(value) for value in calibration):
        raise ValueError("calibration failed: the training labels are not separable into a curve")
    return SafetyModel(
        idf=idf,
        label_coef=head.coef,
        label_intercept=head.intercept,
        category_coef=np.asarray(category_coef),
        category_intercept=np.asarray(category_intercept),
        categories=categories,
        calibration=calibration,
        metadata=metadata,
    )
