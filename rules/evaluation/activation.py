"""Whether a retrained model may replace the one in use: a held-back slice picked by a hash of each document's id
within its label (stratified, stable), and the verdict on the two models' scores on it."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# The share of an organisation's reviewed documents held back from training to judge new versions.
SLICE_SHARE = 0.2
# A new version may lose at most this much F1 on any one class of the slice (it must not lose on the primary).
CLASS_MARGIN = 0.05
# ... judged on the classes the slice holds at least this many documents of. On fewer, one document is the whole
# difference (1 of 1 right is F1 1.0, 0 of 1 is 0.0): such a class counts through the primary metric only, or
# every retraining of a small organisation would stand or fall on one ticket.
CLASS_MIN_SUPPORT = 5


def slice_position(key: str) -> float:
    """Where a document's id falls in [0, 1): the same id always falls in the same place."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:12], 16) / float(16**12)


def held_back(items: Sequence[tuple[str, str]], share: float = SLICE_SHARE) -> set[str]:
    """The keys of the (key, label) items held back: within each label those whose position is below `share`, and
    for a label of two or more items that has none there, its lowest one (so that every label is judged)."""
    by_label: dict[str, list[str]] = defaultdict(list)
    for key, label in items:
        by_label[label].append(key)
    held: set[str] = set()
    for keys in by_label.values():
        ordered = sorted(set(keys), key=slice_position)
        chosen = [key for key in ordered if slice_position(key) < share]
        if not chosen and len(ordered) >= 2:
            chosen = ordered[:1]
        held.update(chosen)
    return held


@dataclass(frozen=True)
class Verdict:
    """Whether the candidate replaces the current version, and why, in words an audit log can keep."""

    activate: bool
    reason: str
    primary: str
    current: float | None
    candidate: float
    worst_class: str | None = None
    worst_drop: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "activate": self.activate,
            "reason": self.reason,
            "primary": self.primary,
            "current": self.current,
            "candidate": self.candidate,
            "worst_class": self.worst_class,
            "worst_drop": round(self.worst_drop, 4),
        }


def _class_scores(report: Mapping[str, Any]) -> dict[str, float]:
    return {label: float(scores["f1"]) for label, scores in (report.get("per_label") or {}).items()}


def _class_support(report: Mapping[str, Any]) -> dict[str, int]:
    return {label: int(scores.get("support", 0)) for label, scores in (report.get("per_label") or {}).items()}


def activation_verdict(
    current: Mapping[str, Any] | None,
    candidate: Mapping[str, Any],
    *,
    primary: str = "macro_f1",
    class_margin: float = CLASS_MARGIN,
    class_min_support: int = CLASS_MIN_SUPPORT,
) -> Verdict:
    """Activate the candidate only if it is not worse than the current version on `primary` and loses no more than
    `class_margin` F1 on any class the slice holds `class_min_support` or more documents of (no current version:
    the candidate is judged alone, and wins)."""
    score = float(candidate[primary])
    if current is None:
        return Verdict(True, f"no version in use; {primary} {score:.4f} on the slice", primary, None, score)
    before = float(current[primary])
    support = _class_support(current)
    judged = {label: f1 for label, f1 in _class_scores(current).items() if support.get(label, 0) >= class_min_support}
    after = _class_scores(candidate)
    drops = {label: f1 - after.get(label, 0.0) for label, f1 in judged.items()}
    worst = max(drops, key=drops.__getitem__) if drops else None
    worst_drop = drops[worst] if worst is not None else 0.0
    if score < before:
        reason = f"not activated: {primary} {score:.4f} < {before:.4f} of the version in use"
        return Verdict(False, reason, primary, before, score, worst, worst_drop)
    if worst is not None and worst_drop > class_margin:
        reason = (
            f"not activated: F1 of {worst} falls by {worst_drop:.4f} (more than the margin {class_margin}) "
            f"although {primary} is {score:.4f} >= {before:.4f}"
        )
        return Verdict(False, reason, primary, before, score, worst, worst_drop)
    small = len(support) - len(judged)
    reason = f"activated: {primary} {score:.4f} >= {before:.4f}; no class falls by more than {class_margin}" + (
        f" ({small} with fewer than {class_min_support} held back judged by {primary} only)" if small else ""
    )
    return Verdict(True, reason, primary, before, score, worst, worst_drop)
