"""A clause classifier for articles, learned from article headings by weak supervision (no labels needed).

Most contracts title their articles (第八条 违约责任, 十、保密条款, 1.1 付款方式). The pack maps a title onto a clause
type when one type's patterns occur in it (titles naming two types are skipped); the article's body *with the
heading removed* becomes an example of that type, and the bodies of titled articles that name no type become
examples of `OTHER`. A multinomial logistic regression over hashed character n-grams and jieba words
(`rules.feature_hashing`) learns what each type's articles say, and a per-class sigmoid fitted on out-of-fold scores
calibrates it. Types with fewer than MIN_EXAMPLES weak examples (责任限制, 定金, 竞业限制 in most corpora) are left
to the rules.

The matcher asks the model only about articles whose heading is missing or names no clause type; how its answer
combines with pattern evidence is documented in `rules.clauses.matcher.model_findings`. The artifact is plain
arrays (`weights.npz`) and `metadata.json` with the arrays' digest, as for the safety model.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rules.clauses.pack import ClausePack, load_pack
from rules.clauses.structure import Article, Structure, document_structure, fold
from rules.feature_hashing import N_TEXT_FEATURES, counts_matrix, hashed_terms, idf_fit, text_weights, weights_digest

FORMAT = "docgate-clause-heading-model"
FORMAT_VERSION = 1
OTHER = "其他"
MIN_EXAMPLES = 15
MIN_BODY_CHARS = 8
MAX_BODY_CHARS = 1500  # a longer "article" is a chapter; its opening is what characterises it
CALIBRATION_FOLDS = 3
C = 4.0


class ClauseModelError(ValueError):
    """The artifact is missing, altered or of another format, or the corpus cannot train a model."""


@dataclass(frozen=True)
class ArticleExample:
    """One weakly labelled article body (heading removed) and the document it came from (for grouped folds)."""

    text: str
    label: str
    document: int


def _title_patterns(pack: ClausePack) -> dict[str, tuple[str, ...]]:
    """Every literal pattern of every rule, per clause label (folded like the titles they are searched in)."""
    patterns: dict[str, set[str]] = {}
    for rule in pack.rules:
        patterns.setdefault(rule.label, set()).update(fold(pattern) for pattern in rule.patterns)
    return {label: tuple(sorted(found)) for label, found in patterns.items()}


def title_labels(title: str, pack: ClausePack | None = None) -> set[str]:
    """The clause types whose patterns occur in an article title."""
    patterns = _title_patterns(pack or load_pack())
    folded = fold(title)
    return {label for label, found in patterns.items() if any(pattern in folded for pattern in found)}


def article_body(structure: Structure, article: Article) -> str:
    """An article's body without its marker and heading, cut to MAX_BODY_CHARS."""
    return structure.text[article.body_start : article.end][:MAX_BODY_CHARS].strip()


def weak_examples(texts: Sequence[str], pack: ClausePack | None = None) -> list[ArticleExample]:
    """Weakly labelled article bodies of every titled article in `texts` (see the module docstring)."""
    pack = pack or load_pack()
    patterns = _title_patterns(pack)
    examples = []
    for number, text in enumerate(texts):
        structure = document_structure(fold(text))
        for article in structure.articles():
            if article.title is None:
                continue
            title = structure.text[article.title[0] : article.title[1]]
            labels = {label for label, found in patterns.items() if any(pattern in title for pattern in found)}
            body = article_body(structure, article)
            if len(labels) > 1 or len(body) < MIN_BODY_CHARS:
                continue
            examples.append(ArticleExample(body, labels.pop() if labels else OTHER, number))
    return examples


@dataclass
class ClauseModel:
    """A trained article classifier: idf, one weight row per label, and a sigmoid (a, b) per label."""

    labels: tuple[str, ...]
    idf: np.ndarray
    coef: np.ndarray  # (len(labels), N_TEXT_FEATURES)
    intercept: np.ndarray
    calibration: np.ndarray  # (len(labels), 2): P_k ∝ 1 / (1 + exp(a_k f_k + b_k))
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def version(self) -> str:
        return str(self.metadata.get("model_version", "unversioned"))

    def probabilities(self, body: str) -> dict[str, float]:
        """Calibrated probability of each label for one article body (folded text, heading removed)."""
        indices, counts = hashed_terms(body[:MAX_BODY_CHARS])
        weights = (1.0 + np.log(counts)) * self.idf[indices].astype(np.float64)
        norm = float(np.sqrt(weights @ weights))
        if norm > 0.0:
            weights /= norm
        scores = self.coef[:, indices].astype(np.float64) @ weights + self.intercept
        return dict(zip(self.labels, _calibrated(scores[None, :], self.calibration)[0].tolist(), strict=True))

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "idf": self.idf.astype(np.float32),
            "coef": self.coef.astype(np.float32),
            "intercept": self.intercept.astype(np.float64),
            "calibration": self.calibration.astype(np.float64),
        }

    def save(self, path: str | Path) -> Path:
        """Write `weights.npz` and `metadata.json` (with the arrays' digest) into directory `path`."""
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        arrays = self.arrays()
        np.savez_compressed(directory / "weights.npz", **arrays)  # type: ignore[arg-type]
        self.metadata = {
            **self.metadata,
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "labels": list(self.labels),
            "n_features": N_TEXT_FEATURES,
            "weights_sha256": weights_digest(arrays),
        }
        text = json.dumps(self.metadata, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        (directory / "metadata.json").write_text(text, encoding="utf-8")
        return directory

    @classmethod
    def load(cls, path: str | Path) -> ClauseModel:
        """Read an artifact directory; raise ClauseModelError when it is missing, altered or of another format."""
        directory = Path(path)
        try:
            metadata = json.loads((directory / "metadata.json").read_text(encoding="utf-8"))
            with np.load(directory / "weights.npz", allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files}
        except (OSError, ValueError, KeyError) as exc:
            raise ClauseModelError(f"{directory}: no readable clause model ({exc})") from exc
        if (metadata.get("format"), metadata.get("format_version")) != (FORMAT, FORMAT_VERSION):
            raise ClauseModelError(f"{directory}: not a DocGate clause model of format version {FORMAT_VERSION}")
        if metadata.get("n_features") != N_TEXT_FEATURES or weights_digest(arrays) != metadata.get("weights_sha256"):
            raise ClauseModelError(f"{directory}: built for other features, or its weights do not match the digest")
        return cls(
            labels=tuple(metadata["labels"]),
            idf=arrays["idf"],
            coef=arrays["coef"],
            intercept=arrays["intercept"],
            calibration=arrays["calibration"],
            metadata=metadata,
        )


def _calibrated(scores: np.ndarray, calibration: np.ndarray) -> np.ndarray:
    """One-vs-rest sigmoids on each label's score, normalised over the labels (rows sum to 1)."""
    logits = np.clip(scores * calibration[:, 0] + calibration[:, 1], -500, 500)
    probabilities = 1.0 / (1.0 + np.exp(logits))
    totals = probabilities.sum(axis=1, keepdims=True)
    totals[totals == 0.0] = 1.0
    return np.asarray(probabilities / totals)


def _sigmoid_fit(scores: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """Platt's sigmoid P = 1 / (1 + exp(a s + b)) fitted to out-of-fold scores by logistic regression."""
    from sklearn.linear_model import LogisticRegression  # heavy: scikit-learn, needed only when training

    if positive.all() or not positive.any():
        return -1.0, 0.0
    fit = LogisticRegression(C=1e6, max_iter=1000).fit(scores[:, None], positive)
    return -float(fit.coef_[0, 0]), -float(fit.intercept_[0])


def _fit(raw: Any, target: np.ndarray, n_labels: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(coef over every bucket, intercept, idf) of a model fitted on raw counts. Only the buckets those rows use
    are given to the solver (the others' weights stay exactly zero under L2), several times faster on 300K."""
    from sklearn.linear_model import LogisticRegression  # heavy: scikit-learn, needed only when training

    idf = idf_fit(raw)
    weighted = text_weights(raw, idf)
    used = np.unique(weighted.indices)
    model = LogisticRegression(C=C, max_iter=2000, class_weight="balanced", random_state=seed)
    model.fit(weighted[:, used], target)
    coef = np.zeros((n_labels, N_TEXT_FEATURES))
    intercept = np.full(n_labels, -50.0)  # a label the rows lack is never predicted
    binary = len(model.classes_) == 2  # two labels: one weight row, for the second
    coef[np.ix_(model.classes_, used)] = np.vstack([-model.coef_[0], model.coef_[0]]) if binary else model.coef_
    intercept[model.classes_] = np.array([-1.0, 1.0]) * model.intercept_ if binary else model.intercept_
    return coef, intercept, idf


def train_clause_model(
    texts: Sequence[str],
    *,
    pack: ClausePack | None = None,
    seed: int = 0,
    labelled: Sequence[ArticleExample] = (),
) -> ClauseModel:
    """Train on the titled articles of `texts` (contracts, no labels) and any `labelled` examples (what reviewers
    said of a passage, its `document` an index into `texts`); raise ClauseModelError when too few.

    Calibration: CALIBRATION_FOLDS folds grouped by document give every example a score from a model that did
    not see its contract; one sigmoid per label is fitted on those scores, and the final model is fitted on all.
    """
    from sklearn.model_selection import GroupKFold  # heavy: scikit-learn, needed only when training

    pack = pack or load_pack()
    examples = [*weak_examples(texts, pack), *labelled]
    counts = Counter(example.label for example in examples)
    kept = sorted(label for label, n in counts.items() if n >= MIN_EXAMPLES and label != OTHER)
    if len(kept) < 2 or counts[OTHER] < MIN_EXAMPLES:
        raise ClauseModelError(
            f"too few titled articles to learn from ({dict(counts)}); need {MIN_EXAMPLES} of two clause types and "
            "of other articles"
        )
    labels = (*kept, OTHER)
    examples = [example for example in examples if example.label in labels]
    target = np.array([labels.index(example.label) for example in examples])
    raw = counts_matrix([example.text for example in examples])
    groups = np.array([example.document for example in examples])

    scores = np.zeros((len(examples), len(labels)))
    folds = min(CALIBRATION_FOLDS, len(set(groups.tolist())))
    for inside, outside in GroupKFold(n_splits=folds).split(raw, target, groups):
        coef, intercept, idf = _fit(raw[inside], target[inside], len(labels), seed)
        scores[outside] = text_weights(raw[outside], idf) @ coef.T + intercept
    calibration = np.array([_sigmoid_fit(scores[:, k], target == k) for k in range(len(labels))])
    coef, intercept, idf = _fit(raw, target, len(labels), seed)
    return ClauseModel(
        labels=labels,
        idf=idf,
        coef=coef,
        intercept=intercept,
        calibration=calibration,
        metadata={
            "seed": seed,
            "pack_version": pack.version,
            "texts": len(texts),
            "labelled": len(labelled),
            "examples": dict(Counter(example.label for example in examples)),
            "left_to_rules": sorted(set(pack.clauses) - set(kept)),
            "min_examples": MIN_EXAMPLES,
            "C": C,
        },
    )


def heading_model_cv(texts: Sequence[str], *, folds: int = 5, seed: int = 0) -> dict[str, Any]:
    """Cross-validate the heading model over contracts: each fold's model is trained on the other folds' contracts
    and classifies the held-out contracts' titled articles with their headings removed (the weak labels as truth).

    Per-label precision/recall/F1 of the most likely label, `OTHER` included; a type a fold's model did not learn
    counts as missed. Nothing is fitted outside its fold.
    """
    from sklearn.model_selection import KFold  # heavy: scikit-learn, needed only when evaluating

    from rules.evaluation.common import LabelCounts, per_label_report  # the metric's own module, beside it

    if folds < 2 or folds > len(texts):
        raise ClauseModelError(f"--cv needs between 2 and {len(texts)} folds")
    pack = load_pack()
    counts: dict[str, LabelCounts] = {}
    order = np.arange(len(texts))
    for inside, outside in KFold(n_splits=folds, shuffle=True, random_state=seed).split(order):
        model = train_clause_model([texts[i] for i in inside], pack=pack, seed=seed)
        for example in weak_examples([texts[i] for i in outside], pack):
            probabilities = model.probabilities(example.text)
            predicted = max(probabilities, key=probabilities.__getitem__)
            if predicted == example.label:
                counts.setdefault(example.label, LabelCounts()).tp += 1
            else:
                counts.setdefault(example.label, LabelCounts()).fn += 1
                counts.setdefault(predicted, LabelCounts()).fp += 1
    report = per_label_report(counts)
    return {"folds": folds, "contracts": len(texts), "seed": seed, **report}
