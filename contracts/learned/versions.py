"""Every version an organisation's retraining made, judged on its held-back slice: activate the better one, keep
the worse one out, roll back in one step; each of these audited."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from contracts.audit import audit_record
from contracts.learned.store import model_current_set, model_current_version
from contracts.models import (
    LearnedModelVersion,
    ModelState,  # registered there with Django
    Organisation,
)
from contracts.refusals import Refused
from rules.evaluation.activation import Verdict, activation_verdict

PRIMARY = "macro_f1"


class ModelVersionError(Refused):
    """A model version action DocGate refuses (nothing to roll back to)."""


def model_version_judge(
    *,
    organisation: Organisation,
    name: str,
    version: str,
    verdict: Verdict,
    metrics: dict[str, Any],
    trained_on: dict[str, Any],
    user: Any = None,
) -> LearnedModelVersion:
    """Record a saved version with its slice evaluation; make it current only when the verdict says so."""
    current = model_current_version(organisation.slug, name)
    with transaction.atomic():
        row = LearnedModelVersion.objects.create(
            organisation=organisation,
            name=name,
            version=version,
            state=ModelState.ACTIVE if verdict.activate else ModelState.REJECTED,
            replaced=current or "",
            reason=verdict.reason,
            metrics=metrics,
            trained_on=trained_on,
        )
        if verdict.activate:
            LearnedModelVersion.objects.filter(organisation=organisation, name=name, state=ModelState.ACTIVE).exclude(
                pk=row.pk
            ).update(state=ModelState.RETIRED)
            model_current_set(organisation.slug, name, version)
        audit_record(
            organisation=organisation,
            action="model.activated" if verdict.activate else "model.rejected",
            obj=row,
            user=user,
            system="" if user is not None else "retrain",
            before={"name": name, "version": current},
            after={"name": name, "version": version if verdict.activate else current, **verdict.as_dict()},
        )
    return row


def slice_verdict(current: dict[str, Any] | None, candidate: dict[str, Any]) -> Verdict:
    """`retrain`'s rule on two slice reports: PRIMARY not lower, and the settings' per-class margin on the classes
    the slice holds enough documents of."""
    return activation_verdict(
        current,
        candidate,
        primary=PRIMARY,
        class_margin=settings.DOCGATE_RETRAIN_CLASS_MARGIN,
        class_min_support=settings.DOCGATE_RETRAIN_CLASS_MIN_SUPPORT,
    )


def model_version_slice_judge(
    *,
    organisation: Organisation,
    name: str,
    version: str,
    reports: dict[str, dict[str, Any]],
    slice_statement: dict[str, Any],
    current_version: str,
    trained_on: dict[str, Any],
    user: Any = None,
    **extra_metrics: Any,
) -> LearnedModelVersion:
    """Judge a saved version by its and the current version's `reports` on the slice (an empty slice judges
    nothing: not activated), and record it with both reports and the slice statement."""
    if slice_statement["held_back"]:
        verdict = slice_verdict(reports["current"], reports["candidate"])
    else:
        verdict = Verdict(False, "not activated: nothing reviewed was held back to judge it on", PRIMARY, None, 0.0)
    metrics = {
        "primary": PRIMARY,
        "current_version": current_version,
        **reports,
        "slice": slice_statement,
        **extra_metrics,
    }
    return model_version_judge(
        organisation=organisation,
        name=name,
        version=version,
        verdict=verdict,
        metrics=metrics,
        trained_on=trained_on,
        user=user,
    )


def failed_version(name: str) -> str:
    """The name a retraining that produced no model is listed under."""
    return f"{name}-failed-{timezone.now():%Y%m%dT%H%M%S%f}"


def model_version_failed(
    *, organisation: Organisation, name: str, version: str, reason: str, trained_on: dict[str, Any], user: Any = None
) -> LearnedModelVersion:
    """Record a retraining that produced no model (too little data), so the list says why nothing changed."""
    with transaction.atomic():
        row = LearnedModelVersion.objects.create(
            organisation=organisation,
            name=name,
            version=version,
            state=ModelState.FAILED,
            replaced=model_current_version(organisation.slug, name) or "",
            reason=reason,
            trained_on=trained_on,
        )
        audit_record(
            organisation=organisation,
            action="model.training_failed",
            obj=row,
            user=user,
            system="" if user is not None else "retrain",
            after={"name": name, "reason": reason},
        )
    return row


def model_rollback(*, organisation: Organisation, name: str, user: Any = None) -> LearnedModelVersion:
    """Put back the version the active one replaced (none: the rules alone again); return the retired row."""
    with transaction.atomic():
        active = (
            LearnedModelVersion.objects.select_for_update()
            .filter(organisation=organisation, name=name, state=ModelState.ACTIVE)
            .first()
        )
        if active is None:
            raise ModelVersionError(
                "nothing_to_roll_back", _("No retrained version of %(name)s is active.") % {"name": name}, 409
            )
        previous = active.replaced or None
        model_current_set(organisation.slug, name, previous)
        LearnedModelVersion.objects.filter(pk=active.pk).update(
            state=ModelState.RETIRED, reason=f"{active.reason}; rolled back"
        )
        if previous is not None:
            LearnedModelVersion.objects.filter(organisation=organisation, name=name, version=previous).update(
                state=ModelState.ACTIVE
            )
        audit_record(
            organisation=organisation,
            action="model.rolled_back",
            obj=active,
            user=user,
            system="" if user is not None else "retrain",
            before={"name": name, "version": active.version},
            after={"name": name, "version": previous},
        )
        active.refresh_from_db()
    return active


def version_row(row: LearnedModelVersion) -> dict[str, Any]:
    """A version as the command, the admin and the API list it."""
    metrics = row.metrics or {}
    return {
        "name": row.name,
        "version": row.version,
        "state": row.state,
        "replaced": row.replaced or None,
        "reason": row.reason,
        "created_at": row.created_at.isoformat(),
        "slice": metrics.get("slice"),
        "current": metrics.get("current"),
        "candidate": metrics.get("candidate"),
        "trained_on": row.trained_on,
    }
