"""Retrain an organisation's models from its reviewers' corrections: each kind judged on its own held-back slice
and activated only when better (`contracts.learned.versions`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from contracts.learned.clauses_retrain import clauses_retrain
from contracts.learned.thresholds import thresholds_retrain
from contracts.learned.tickets_retrain import tickets_retrain
from contracts.models import LearnedModelVersion, Organisation, ReviewerExample

RETRAINERS: dict[str, Callable[..., LearnedModelVersion | None]] = {
    "tickets": tickets_retrain,
    "clauses": clauses_retrain,
    "safety_thresholds": thresholds_retrain,
}


def organisation_retrain(
    organisation: Organisation, *, kinds: Sequence[str] = tuple(RETRAINERS), user: Any = None
) -> list[LearnedModelVersion]:
    """Retrain each model kind asked for; return the version rows written (a kind with nothing to learn from
    writes none)."""
    unknown = sorted(set(kinds) - set(RETRAINERS))
    if unknown:
        raise ValueError(f"unknown model kinds {unknown}; known: {sorted(RETRAINERS)}")
    rows = [RETRAINERS[kind](organisation, user=user) for kind in kinds]
    return [row for row in rows if row is not None]


def organisations_retrain() -> dict[str, list[str]]:
    """Retrain every organisation whose reviewers left examples since its last retraining (beat's job)."""
    done: dict[str, list[str]] = {}
    for organisation in Organisation.objects.all():
        last = LearnedModelVersion.objects.filter(organisation=organisation).order_by("-created_at").first()
        examples = ReviewerExample.objects.filter(organisation=organisation)
        if last is not None:
            examples = examples.filter(created_at__gt=last.created_at)
        if examples.exists():
            done[organisation.slug] = [
                f"{row.name} {row.version} {row.state}" for row in organisation_retrain(organisation)
            ]
    return done
