"""A reviewer's decision on one finding of a finished result, outside any review task (the legal grid's cells):
checked as a task's decision is (`correction_problem`), applied as finalizing applies it (`reviewed_finding`), stored
as the document's next result version, kept as a reviewer example and audited as `review.finding_decided`."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from contracts.audit import audit_record
from contracts.models import Document, FindingDecision, Organisation, Result, ReviewDecision, ReviewState, ReviewTask
from contracts.result_data import ResultData
from contracts.result_versions import result_write
from contracts.review.corrections import correction_problem
from contracts.review.examples import settled_examples_record
from contracts.review.reviewed_data import reviewed_finding
from contracts.review.workflow import ReviewError, decision_checked, require_reviewer


def _latest_settled(document: Document, seen_version: int | None) -> Result:
    """The document's newest result, when it is final, no review task is open on it, and it is the version the
    reviewer looked at (when they say which)."""
    latest = Result.objects.filter(document=document).order_by("-version").first()
    if latest is None or not latest.final:
        raise ReviewError("no_result", _("The document has no finished result to review."), 409)
    if ReviewTask.objects.filter(document=document).exclude(state=ReviewState.FINALIZED).exists():
        raise ReviewError("review_open", _("A review task is open on this document; decide its findings there."), 409)
    if seen_version is not None and seen_version != latest.version:
        message = _("The result changed (version %(now)s, you saw %(seen)s); reload and decide again.")
        raise ReviewError("stale_version", message % {"now": latest.version, "seen": seen_version}, 409)
    return latest


def review_finding_settle(
    *,
    document_id: Any,
    user: Any,
    organisation: Organisation,
    finding_id: str,
    decision: str,
    corrected: dict[str, Any] | None = None,
    note: str = "",
    seen_version: int | None = None,
) -> Result:
    """Approve, correct or reject one finding of a document's finished result: a new result version with that
    finding marked (a correction keeps its previous values), audited; reviewers and admins only."""
    require_reviewer(user, organisation)
    decision_checked(decision, corrected)
    with transaction.atomic():
        # The document row lock orders concurrent decisions on one document (each builds on the newest version).
        document = Document.objects.select_for_update().filter(pk=document_id, organisation=organisation).first()
        if document is None:
            raise ReviewError("not_found", _("No such document."), 404)
        latest = _latest_settled(document, seen_version)
        base = ResultData.stored(latest.data or {})
        finding = next((f for f in base.findings if str(f.get("id")) == finding_id), None)
        if finding is None:
            raise ReviewError("unknown_finding", _("The result has no finding %(id)r.") % {"id": finding_id})
        if decision == ReviewDecision.CORRECT:
            problem = correction_problem(corrected, dict(finding), len(document.text))
            if problem is not None:
                raise ReviewError("invalid_correction", problem)
        verdict = FindingDecision(finding_id=finding_id, decision=decision, corrected=corrected, note=note)
        findings = [reviewed_finding(f, verdict) if f is finding else f for f in base.findings]
        result = result_write(
            organisation_id=organisation.pk,
            document_id=document.pk,
            job_id=latest.job_id,
            data=base.model_copy(update={"findings": findings}),
            provenance={**(latest.provenance or {}), "decided_finding": finding_id, "reviewed_version": latest.version},
            created_by=user,
        )
        settled_examples_record(finding=finding, decision=verdict, judged=latest, reviewed=result, user=user)
        audit_record(
            organisation=organisation,
            action="review.finding_decided",
            obj=document,
            user=user,
            before={"finding_id": finding_id, "result_version": latest.version, "decision": finding.get("review")},
            after={
                "finding_id": finding_id,
                "result_version": result.version,
                "decision": decision,
                "corrected": corrected,
                "note": note,
            },
        )
    return result
