"""`evaluate safety`: how often the gate (lexicon + learned model) flags unsafe rows and lets safe rows through.

Three ways to get the model that scores the rows:
- the shipped model (default): figures on rows it was trained on are fits, and the report names those sources;
- `cv=K`: stratified folds over the evaluation rows, a model retrained per fold on the training corpus plus the
  other folds' licensed rows; every row is scored by a model that never saw it;
- `leave_out=SOURCE`: trained without that source; every row is scored, and each source says whether its
  figures are fits (`fitted`: the model trained on it) or honest (the left-out source, tickets).
`extra_safe` adds an organisation's own texts as safe examples to every model trained here (texts that also
occur in the evaluation rows are dropped first). Rows are judged as tickets or contracts when their source says
so (`tickets`, `contracts`), else as any other text (the generic thresholds).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rules.safety import (
    DEFAULT_BLOCK_THRESHOLD,
    DEFAULT_REVIEW_THRESHOLD,
    gate_decide_rules,
    load_safety_pack,
    safety_score,
)
from rules.safety.decision import DEFAULT_POLICIES, GatePolicy, Kind, gate_decide_text
from rules.safety.model import SafetyModel, SafetyPrediction, load_safety_model
from rules.safety.scorer import SafetyAssessment
from rules.safety.training import SOURCES, Example, train_safety_model, training_examples

TICKET_SOURCES = frozenset({"tickets"})
CONTRACT_SOURCES = frozenset({"contracts"})
SWEEP_THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99)


@dataclass
class _Tally:
    """Counts for one group of rows."""

    n: int = 0
    unsafe: int = 0
    safe: int = 0
    unsafe_flagged: int = 0
    safe_flagged: int = 0
    safe_blocked: int = 0

    def add(self, unsafe: bool, decision: str) -> None:
        flagged = decision in ("review", "block")
        self.n += 1
        if unsafe:
            self.unsafe += 1
            self.unsafe_flagged += flagged
        else:
            self.safe += 1
            self.safe_flagged += flagged
            self.safe_blocked += decision == "block"

    def rates(self) -> dict[str, float | None]:
        """Unsafe recall and false flag / block rates; None where the group has no rows of that label."""
        return {
            "unsafe_recall": round(self.unsafe_flagged / self.unsafe, 4) if self.unsafe else None,
            "false_flag_rate": round(self.safe_flagged / self.safe, 4) if self.safe else None,
            "false_block_rate": round(self.safe_blocked / self.safe, 4) if self.safe else None,
        }

    def scores(self) -> dict[str, Any]:
        """Counts, rates, and precision / recall / F1 of flagging as the detector of unsafe rows."""
        flagged = self.unsafe_flagged + self.safe_flagged
        precision = self.unsafe_flagged / flagged if flagged else None
        recall = self.unsafe_flagged / self.unsafe if self.unsafe else None
        f1 = None
        if precision is not None and recall is not None:
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "n": self.n,
            "flagged": flagged,
            "blocked_safe": self.safe_blocked,
            **self.rates(),
            "precision": None if precision is None else round(precision, 4),
            "recall": None if recall is None else round(recall, 4),
            "f1": None if f1 is None else round(f1, 4),
        }


@dataclass
class _Scored:
    """One evaluation row with what the gate needs: its kind, lexicon assessment and model prediction."""

    row: dict[str, Any]
    kind: Kind
    assessment: SafetyAssessment
    prediction: SafetyPrediction | None = None
    trained_on_source: bool = False

    @property
    def unsafe(self) -> bool:
        return bool(self.row["label"] == "unsafe")

    @property
    def source(self) -> str:
        return str(self.row.get("source") or "unknown")


@dataclass
class _Models:
    """How the rows were scored: mode, model versions, and the sources the scoring models were trained on."""

    mode: str
    versions: list[str] = field(default_factory=list)
    trained_on: set[str] = field(default_factory=set)
    extra_safe_used: int = 0
    extra_safe_dropped: int = 0
    skipped_sources: dict[str, int] = field(default_factory=dict)


def safety_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Materialise `{"id","text","label": unsafe|safe, ...}` rows; raise ValueError naming the first bad row."""
    out = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row.get("text"), str) or row.get("label") not in ("unsafe", "safe"):
            raise ValueError(f"safety row {row.get('id', number)}: needs string 'text' and label unsafe|safe")
        out.append(row)
    return out


def _kind(row: dict[str, Any]) -> Kind:
    source = str(row.get("source") or "")
    if source in TICKET_SOURCES:
        return "ticket"
    return "contract" if source in CONTRACT_SOURCES else "text"


def _predict(model: SafetyModel, scored: Sequence[_Scored]) -> None:
    """Fill in the model's prediction for every row in `scored`."""
    for item, prediction in zip(scored, model.predict([item.row["text"] for item in scored]), strict=True):
        item.prediction = prediction


def _trainable(scored: Sequence[_Scored]) -> list[Example]:
    examples, _skipped = training_examples(item.row for item in scored)
    return examples


def _train(
    base: Sequence[Example], extra: Sequence[Example], extra_safe: Sequence[str], seed: int, models: _Models
) -> SafetyModel:
    model = train_safety_model([*base, *extra], extra_safe=extra_safe, seed=seed)
    models.versions.append(model.version)
    models.trained_on |= {example.source for example in [*base, *extra]}
    return model


def _score_with_training(
    scored: list[_Scored],
    *,
    train_rows: Sequence[dict[str, Any]],
    cv: int | None,
    leave_out: str | None,
    extra_safe: Sequence[str],
    seed: int,
) -> _Models:
    """Train the models the mode asks for and predict every row that is to be scored; return what was done."""
    base, skipped = training_examples(train_rows)
    evaluation_texts = {item.row["text"] for item in scored}
    kept_extra = [text for text in extra_safe if text not in evaluation_texts]
    models = _Models(
        mode="cv" if cv else ("leave_out" if leave_out else "trained"),
        extra_safe_used=len(kept_extra),
        extra_safe_dropped=len(extra_safe) - len(kept_extra),
        skipped_sources=dict(skipped),
    )
    if cv:
        from sklearn.model_selection import StratifiedKFold  # heavy: scikit-learn, only for cross-validation

        strata = [f"{item.source}/{item.row['label']}" for item in scored]
        folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=seed)
        for inside, outside in folds.split(np.zeros(len(scored)), strata):
            model = _train(base, _trainable([scored[i] for i in inside]), kept_extra, seed, models)
            _predict(model, [scored[i] for i in outside])
        return models
    if leave_out:
        if leave_out not in {item.source for item in scored}:
            raise ValueError(f"--leave-out {leave_out}: no evaluation rows from that source")
        kept = [item for item in scored if item.source != leave_out]
        model = _train([e for e in base if e.source != leave_out], _trainable(kept), kept_extra, seed, models)
    else:
        model = _train(base, _trainable(scored), kept_extra, seed, models)
    _predict(model, scored)
    return models


def _decide(item: _Scored, policies: Mapping[Kind, GatePolicy], review: float, block: float) -> str:
    decision, _risk, _reasons = gate_decide_text(
        item.assessment,
        item.prediction,
        kind=item.kind,
        policy=policies[item.kind],
        review_threshold=review,
        block_threshold=block,
    )
    return decision


def _sweep(scored: Sequence[_Scored], policies: Mapping[Kind, GatePolicy], review: float, block: float) -> dict:
    """Per kind, per model review threshold: each source's recall (unsafe rows) or false-flag rate (safe rows)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for kind in sorted({item.kind for item in scored}):
        rows = [item for item in scored if item.kind == kind]
        points = []
        for threshold in SWEEP_THRESHOLDS:
            base = policies[kind]
            model_block = base.block if base.require_agreement else max(threshold, base.block)
            policy = replace(base, review=threshold, block=model_block)
            per_source: dict[str, _Tally] = {}
            for item in rows:
                decision = _decide(item, {kind: policy}, review, block)
                per_source.setdefault(item.source, _Tally()).add(item.unsafe, decision)
            points.append(
                {
                    "review_threshold": threshold,
                    "per_source": {
                        source: {k: v for k, v in tally.rates().items() if v is not None and k != "false_block_rate"}
                        for source, tally in sorted(per_source.items())
                    },
                }
            )
        out[kind] = points
    return out


def evaluate_safety(
    rows: Iterable[dict[str, Any]],
    *,
    review_threshold: float = DEFAULT_REVIEW_THRESHOLD,
    block_threshold: float = DEFAULT_BLOCK_THRESHOLD,
    policies: Mapping[Kind, GatePolicy] = DEFAULT_POLICIES,
    model: SafetyModel | None = None,
    use_model: bool = True,
    train_rows: Sequence[dict[str, Any]] | None = None,
    cv: int | None = None,
    leave_out: str | None = None,
    extra_safe: Sequence[str] = (),
    seed: int = 0,
) -> dict[str, Any]:
    """Score the gate: flagged = review or block; overall, per source, per unsafe category, and a threshold sweep.

    `use_model=False` measures the lexicon alone. `train_rows` (the training corpus) is needed for `cv`,
    `leave_out` and `extra_safe`; rows of sources that may not be trained on are never trained on, here either.
    Every row is scored; `per_source[...]["fitted"]` marks figures of sources the scoring model trained on.
    Raise ValueError for bad rows or a mode without its training corpus.
    """
    started = time.perf_counter()
    data = safety_rows(rows)
    if (cv or leave_out or extra_safe) and train_rows is None:
        raise ValueError("--cv, --leave-out and --extra-safe train models: they need the training corpus (--train)")
    if cv is not None and cv < 2:
        raise ValueError("--cv needs at least 2 folds")
    pack = load_safety_pack()
    scored = [_Scored(row, _kind(row), safety_score(row["text"], pack=pack)) for row in data]
    models = _Models(mode="rules_only")
    if use_model and train_rows is not None:
        models = _score_with_training(
            scored, train_rows=train_rows, cv=cv, leave_out=leave_out, extra_safe=extra_safe, seed=seed
        )
    elif use_model:
        shipped = model or load_safety_model()
        _predict(shipped, scored)
        models = _Models(
            mode="shipped", versions=[shipped.version], trained_on=set(shipped.metadata.get("sources", {}))
        )
    for item in scored:
        item.trained_on_source = models.mode != "cv" and item.source in models.trained_on
    report = _report(scored, policies, review_threshold, block_threshold)
    report["model"] = {
        "mode": models.mode,
        "versions": models.versions,
        "trained_on_sources": sorted(models.trained_on),
        "fitted_sources_scored": sorted({item.source for item in scored if item.trained_on_source}),
        "never_trainable_sources": sorted({item.source for item in scored if item.source not in SOURCES}),
        "extra_safe_used": models.extra_safe_used,
        "extra_safe_dropped_as_evaluation_rows": models.extra_safe_dropped,
        "training_rows_skipped_by_source": models.skipped_sources,
        "cv": cv,
        "leave_out": leave_out,
        "seed": seed,
    }
    report["pack_version"] = pack.version
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report


def _report(
    scored: Sequence[_Scored], policies: Mapping[Kind, GatePolicy], review: float, block: float
) -> dict[str, Any]:
    """The figures: overall, per source (with the lexicon alone beside), per unsafe category, the sweep."""
    overall = _Tally()
    per_source: dict[str, _Tally] = {}
    rules_only: dict[str, _Tally] = {}
    per_category: dict[str, dict[str, _Tally]] = {}
    decisions = {"allow": 0, "review": 0, "block": 0}
    fitted = {item.source for item in scored if item.trained_on_source}
    for item in scored:
        decision = _decide(item, policies, review, block)
        lexicon, _ = gate_decide_rules(
            item.assessment, review_threshold=review, block_threshold=block, is_ticket=policies[item.kind].complaint
        )
        decisions[decision] += 1
        overall.add(item.unsafe, decision)
        per_source.setdefault(item.source, _Tally()).add(item.unsafe, decision)
        rules_only.setdefault(item.source, _Tally()).add(item.unsafe, lexicon)
        if item.unsafe:
            # Some sources pad category names with spaces; the category is what counts.
            category = str(item.row.get("category") or "").strip() or "unknown"
            per_category.setdefault(item.source, {}).setdefault(category, _Tally()).add(True, decision)
    report: dict[str, Any] = {"n": overall.n, **overall.rates(), "decisions": decisions}
    report["per_source"] = {
        source: {**tally.scores(), "kind": _kind({"source": source}), "fitted": source in fitted}
        for source, tally in sorted(per_source.items())
    }
    report["rules_only"] = {source: tally.scores() for source, tally in sorted(rules_only.items())}
    report["per_category_recall"] = {
        source: {
            category: {"n": tally.n, "flagged": tally.unsafe_flagged, "recall": tally.rates()["unsafe_recall"]}
            for category, tally in sorted(categories.items())
        }
        for source, categories in sorted(per_category.items())
    }
    report["sweep"] = _sweep(scored, policies, review, block) if any(i.prediction for i in scored) else {}
    report["policies"] = {kind: policy.as_dict() for kind, policy in policies.items()}
    report["review_threshold"] = review
    report["block_threshold"] = block
    return report
