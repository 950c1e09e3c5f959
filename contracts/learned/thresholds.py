"""An organisation's own safety review threshold per document kind, recalibrated on the gate holds its reviewers
overruled or upheld, and judged on the held-back holds before it replaces the one in use."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings

from contracts.learned.slice import Labelled, slice_split
from contracts.learned.store import model_current_dir, model_current_version, model_save
from contracts.learned.versions import model_version_slice_judge
from contracts.models import (
    ExampleKind,  # registered there with Django
    LearnedModelVersion,
    Organisation,
    ReviewerExample,
)
from rules.evaluation.common import classification_report
from rules.safety_thresholds import review_threshold_recalibrate

NAME = "safety_thresholds"
FILE = "thresholds.json"


def safety_thresholds_current(organisation_slug: str | None) -> dict[str, tuple[float, float]]:
    """The organisation's recalibrated (review, block) thresholds per kind; empty: the settings' for every kind."""
    directory = model_current_dir(organisation_slug, NAME) if organisation_slug else None
    return {} if directory is None else _load(str(directory))


@lru_cache(maxsize=16)
def _load(directory: str) -> dict[str, tuple[float, float]]:
    try:
        stored = json.loads((Path(directory) / FILE).read_text(encoding="utf-8"))
        return {str(kind): (float(pair[0]), float(pair[1])) for kind, pair in stored["thresholds"].items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return {}


def _thresholds_in_use(organisation: Organisation) -> dict[str, tuple[float, float]]:
    own = safety_thresholds_current(organisation.slug)
    return {kind: own.get(kind, (float(pair[0]), float(pair[1]))) for kind, pair in settings.SAFETY_POLICIES.items()}


def _gate_holds(organisation: Organisation) -> list[tuple[Labelled, str, float]]:
    """Each held-back result a reviewer judged: (document, upheld|overruled), its kind and the model's risk."""
    rows = ReviewerExample.objects.filter(organisation=organisation, kind=ExampleKind.GATE).order_by("created_at")
    latest = {str(row.document_id): row for row in rows}
    return [
        (Labelled(key, "", row.decision), str(row.detail.get("kind")), float(row.detail["model_risk"]))
        for key, row in latest.items()
        if isinstance(row.detail.get("model_risk"), int | float) and row.detail.get("kind") in settings.SAFETY_POLICIES
    ]


def holds_report(
    thresholds: dict[str, tuple[float, float]], holds: Sequence[tuple[Labelled, str, float]]
) -> dict[str, Any]:
    """How often the thresholds hold back what reviewers upheld and let through what they overruled."""
    gold = ["hold" if item.label == "upheld" else "allow" for item, _kind, _risk in holds]
    predicted: list[str | None] = ["hold" if risk >= thresholds[kind][0] else "allow" for _item, kind, risk in holds]
    return classification_report(gold, predicted)


def thresholds_retrain(organisation: Organisation, *, user: Any = None) -> LearnedModelVersion | None:
    """Recalibrate each kind's review threshold on the holds outside the slice and judge it on the slice; None
    when reviewers have judged no hold yet."""
    holds = _gate_holds(organisation)
    if not holds:
        return None
    split = slice_split([item for item, _kind, _risk in holds])
    held_keys = {item.key for item in split.held}
    current = _thresholds_in_use(organisation)
    candidate = dict(current)
    for kind, (review, block) in current.items():
        judged = [(risk, item.label == "upheld") for item, k, risk in holds if k == kind and item.key not in held_keys]
        candidate[kind] = (review_threshold_recalibrate(review, judged, block=block), block)
    slice_holds = [hold for hold in holds if hold[0].key in held_keys]
    version = f"thresholds-{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}"

    def save(directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        payload = {"thresholds": {kind: list(pair) for kind, pair in candidate.items()}, "version": version}
        (directory / FILE).write_text(json.dumps(payload, indent=2), encoding="utf-8")
        return directory

    model_save(organisation.slug, NAME, version, save)
    return model_version_slice_judge(
        organisation=organisation,
        name=NAME,
        version=version,
        reports={"current": holds_report(current, slice_holds), "candidate": holds_report(candidate, slice_holds)},
        slice_statement=split.statement(),
        current_version=model_current_version(organisation.slug, NAME) or "settings",
        trained_on={"holds": len(holds) - len(slice_holds)},
        user=user,
        thresholds={"current": current, "candidate": candidate},
    )
