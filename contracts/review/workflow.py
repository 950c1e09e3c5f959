"""Review workflow: open a task for a needs_review job, claim it, decide each finding, finalize a new result."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from contracts.audit import audit_record
from contracts.models import (
    FindingDecision,
    Job,
    JobState,
    Organisation,
    Result,
    ReviewDecision,
    ReviewState,
    ReviewTask,
    Role,
    RowId,
)
from contracts.refusals import Refused
from contracts.result_data import ResultData
from contracts.result_versions import result_write
from contracts.review.corrections import correction_problem
from contracts.review.examples import reviewer_examples_record
from contracts.review.reviewed_data import review_result_data
from contracts.standing.tally import answers_review
from contracts.tenancy.memberships import REVIEWER_ROLES, reviewer_role
from contracts.webhooks.delivery import webhook_event_final

# Higher first: what the safety gate held back, then disagreement, then uncertainty, then QA samples.
REASON_PRIORITY = {
    "gate_block": 100,
    "gate_review": 90,
    "conflict": 60,
    "low_confidence": 50,
    "routing_uncertain": 50,
    "llm_unavailable": 40,
    "degraded": 40,
    "qa_sample": 10,
}
UNKNOWN_REASON_PRIORITY = 30
# Fields of a finding a correction may not touch: its identity and the review marks themselves.
MAX_RESPONSE_CHARS = 20_000


class ReviewError(Refused):
    """A review action DocGate refuses; carries a stable code and an HTTP status."""


def review_claim_seconds() -> int:
    """How long a claim holds before another reviewer may take the task over."""
    return int(settings.DOCGATE_REVIEW_CLAIM_S)


def review_priority(reasons: list[str]) -> int:
    """Return the queue priority of a task from its reasons (`gate_block:detail` counts as `gate_block`)."""
    if not reasons:
        return 0
    return max(REASON_PRIORITY.get(str(reason).split(":", 1)[0], UNKNOWN_REASON_PRIORITY) for reason in reasons)


def review_uncertainty(data: dict[str, Any]) -> float:
    """How unsure the models were of a result: 1 - its lowest stated confidence (each desk states its own, e.g. a
    ticket's category, a contract's weakest clause); 1 where it states none (nothing was found to be sure of)."""
    confidence = [float(v) for v in (data.get("confidence") or {}).values() if isinstance(v, int | float)]
    return round(1.0 - min(confidence), 4) if confidence else 1.0


def require_reviewer(user: Any, organisation: Organisation) -> None:
    """Refuse (403) anyone but a reviewer or admin of the organisation."""
    if reviewer_role(user=user, organisation=organisation) not in REVIEWER_ROLES:
        raise ReviewError("not_reviewer", _("Only reviewers of this organisation can review."), 403)


def decision_checked(decision: str, corrected: dict[str, Any] | None) -> None:
    """Refuse a decision that is none of approve / correct / reject, or a correction sent with another decision."""
    if decision not in ReviewDecision.values:
        raise ReviewError(
            "invalid_decision", _("decision must be one of %(values)s.") % {"values": ", ".join(ReviewDecision.values)}
        )
    if decision != ReviewDecision.CORRECT and corrected is not None:
        raise ReviewError("invalid_correction", _("`corrected` is only accepted with the decision `correct`."))


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _snapshot(task: ReviewTask) -> dict[str, Any]:
    """The task's state as the audit log records it before and after an action."""
    return {
        "state": task.state,
        "claimed_by": task.claimed_by.get_username() if task.claimed_by is not None else None,
        "claim_expires_at": _iso(task.claim_expires_at),
    }


def _task_locked(task_id: RowId, organisation: Organisation) -> ReviewTask:
    """Lock the organisation's task row for this transaction; another organisation's id, or one that is not a
    UUID at all (the API's route lets any 36 hex digits and dashes through), is not found."""
    try:
        pk = task_id if isinstance(task_id, uuid.UUID) else uuid.UUID(task_id)
    except ValueError:
        raise ReviewError("not_found", _("No such review task."), 404) from None
    task = (
        ReviewTask.objects.select_for_update(of=("self",))
        .select_related("claimed_by")
        .filter(pk=pk, organisation=organisation)
        .first()
    )
    if task is None:
        raise ReviewError("not_found", _("No such review task."), 404)
    return task


def _task_held(task_id: RowId, user: Any, organisation: Organisation) -> ReviewTask:
    """Lock a task the user holds a live claim on, renew the claim, and return it; raise otherwise."""
    task = _task_locked(task_id, organisation)
    now = timezone.now()
    if task.state == ReviewState.FINALIZED:
        raise ReviewError("already_finalized", _("This task has already been finalized."), 409)
    if task.state != ReviewState.CLAIMED or task.claimed_by_id != user.pk:
        raise ReviewError("claim_required", _("Claim the task before working on it."), 409)
    if task.claim_expires_at is None or task.claim_expires_at <= now:
        raise ReviewError("claim_expired", _("Your claim has expired; claim the task again."), 409)
    expires = now + timedelta(seconds=review_claim_seconds())
    # Working on a task keeps the claim alive; the filter repeats the check the lock already made.
    held = ReviewTask.objects.filter(pk=task.pk, state=ReviewState.CLAIMED, claimed_by=user, claim_expires_at__gt=now)
    if held.update(claim_expires_at=expires) != 1:
        raise ReviewError("claim_expired", _("Your claim has expired; claim the task again."), 409)
    task.claim_expires_at = expires
    return task


def _audit_transition(task: ReviewTask, action: str, user: Any, before: dict[str, Any]) -> None:
    """Reload the task after a conditional UPDATE and record the action with its state before and after."""
    task.refresh_from_db()
    audit_record(
        organisation=task.organisation, action=action, obj=task, user=user, before=before, after=_snapshot(task)
    )


def review_task_open(*, job: Job, reasons: list[str], result: Result | None = None) -> ReviewTask:
    """Open the review task of a needs_review job (idempotent: a second call returns the same task)."""
    latest = result if result is not None else job.document.latest_result()
    suggested = (latest.data or {}).get("suggested_response") if latest is not None else None
    with transaction.atomic():
        task, created = ReviewTask.objects.get_or_create(
            job=job,
            defaults={
                "organisation_id": job.organisation_id,
                "document_id": job.document_id,
                "reasons": list(reasons),
                "priority": review_priority(list(reasons)),
                "uncertainty": review_uncertainty(latest.data or {}) if latest is not None else 1.0,
                "response_text": suggested if isinstance(suggested, str) else "",
            },
        )
        if created:
            audit_record(
                organisation=job.organisation,
                action="review.opened",
                obj=task,
                system="pipeline",
                after={
                    "job": str(job.pk),
                    "reasons": task.reasons,
                    "priority": task.priority,
                    "uncertainty": task.uncertainty,
                },
            )
    return task


def review_task_claim(*, task_id: RowId, user: Any, organisation: Organisation) -> ReviewTask:
    """Claim an open task, one whose claim expired, or renew one's own claim; raise claimed_by_other otherwise."""
    require_reviewer(user, organisation)
    with transaction.atomic():
        task = _task_locked(task_id, organisation)
        before = _snapshot(task)
        now = timezone.now()
        claimable = (
            Q(state=ReviewState.OPEN)
            | Q(state=ReviewState.CLAIMED, claim_expires_at__lte=now)
            | Q(state=ReviewState.CLAIMED, claimed_by=user)
        )
        expires = now + timedelta(seconds=review_claim_seconds())
        updated = ReviewTask.objects.filter(claimable, pk=task.pk).update(
            state=ReviewState.CLAIMED, claimed_by=user, claim_expires_at=expires
        )
        if updated != 1:
            if task.state == ReviewState.FINALIZED:
                raise ReviewError("already_finalized", _("This task has already been finalized."), 409)
            holder = task.claimed_by.get_username() if task.claimed_by is not None else _("another reviewer")
            message = _("%(holder)s holds this task until %(until)s.") % {
                "holder": holder,
                "until": _iso(task.claim_expires_at),
            }
            raise ReviewError("claimed_by_other", message, 409)
        taken_over = before["state"] == ReviewState.CLAIMED and before["claimed_by"] != user.get_username()
        _audit_transition(task, "review.claim_taken_over" if taken_over else "review.claimed", user, before)
    return task


def review_task_release(*, task_id: RowId, user: Any, organisation: Organisation) -> ReviewTask:
    """Give a claimed task back to the queue (its holder, or an admin of the organisation)."""
    require_reviewer(user, organisation)
    with transaction.atomic():
        task = _task_locked(task_id, organisation)
        before = _snapshot(task)
        releasable = ReviewTask.objects.filter(pk=task.pk, state=ReviewState.CLAIMED)
        if reviewer_role(user=user, organisation=organisation) != Role.ADMIN:
            releasable = releasable.filter(claimed_by=user)
        if releasable.update(state=ReviewState.OPEN, claimed_by=None, claim_expires_at=None) != 1:
            raise ReviewError(
                "claim_required", _("Only the reviewer holding this task (or an admin) can release it."), 409
            )
        _audit_transition(task, "review.released", user, before)
    return task


def review_task_reassign(*, task_id: RowId, admin_user: Any, to_user: Any, organisation: Organisation) -> ReviewTask:
    """Hand a task to another reviewer of the organisation with a fresh claim (admins only)."""
    if reviewer_role(user=admin_user, organisation=organisation) != Role.ADMIN:
        raise ReviewError("not_admin", _("Only an admin of this organisation can reassign review tasks."), 403)
    if reviewer_role(user=to_user, organisation=organisation) not in REVIEWER_ROLES:
        raise ReviewError("invalid_assignee", _("The new assignee must be a reviewer of this organisation."), 400)
    with transaction.atomic():
        task = _task_locked(task_id, organisation)
        before = _snapshot(task)
        expires = timezone.now() + timedelta(seconds=review_claim_seconds())
        open_or_claimed = ReviewTask.objects.filter(pk=task.pk, state__in=[ReviewState.OPEN, ReviewState.CLAIMED])
        if open_or_claimed.update(state=ReviewState.CLAIMED, claimed_by=to_user, claim_expires_at=expires) != 1:
            raise ReviewError("already_finalized", _("This task has already been finalized."), 409)
        _audit_transition(task, "review.reassigned", admin_user, before)
    return task


def _findings_of(task: ReviewTask) -> list[dict[str, Any]]:
    latest = task.document.latest_result()
    findings = (latest.data or {}).get("findings", []) if latest is not None else []
    return [finding for finding in findings if isinstance(finding, dict)]


def _decision_view(decision: FindingDecision | None) -> dict[str, Any] | None:
    if decision is None:
        return None
    return {"decision": decision.decision, "corrected": decision.corrected, "note": decision.note}


def review_finding_decide(
    *,
    task_id: RowId,
    user: Any,
    organisation: Organisation,
    finding_id: str,
    decision: str,
    corrected: dict[str, Any] | None = None,
    note: str = "",
) -> FindingDecision:
    """Record approve / correct / reject for one finding of the task's latest result; a new call replaces it."""
    require_reviewer(user, organisation)
    decision_checked(decision, corrected)
    with transaction.atomic():
        task = _task_held(task_id, user, organisation)
        finding = next((f for f in _findings_of(task) if str(f.get("id")) == finding_id), None)
        if finding is None:
            raise ReviewError(
                "unknown_finding", _("The result under review has no finding %(id)r.") % {"id": finding_id}
            )
        if decision == ReviewDecision.CORRECT:
            problem = correction_problem(corrected, finding, len(task.document.text))
            if problem is not None:
                raise ReviewError("invalid_correction", problem)
        previous = FindingDecision.objects.filter(task=task, finding_id=finding_id).first()
        before = _decision_view(previous)
        stored, _created = FindingDecision.objects.update_or_create(
            task=task,
            finding_id=finding_id,
            defaults={
                "decision": decision,
                "corrected": corrected if decision == ReviewDecision.CORRECT else None,
                "note": note,
                "decided_by": user,
                "decided_at": timezone.now(),
            },
        )
        audit_record(
            organisation=organisation,
            action="review.finding_decided",
            obj=task,
            user=user,
            before={"finding_id": finding_id, **(before or {"decision": None})},
            after={"finding_id": finding_id, **(_decision_view(stored) or {})},
        )
    return stored


def review_response_edit(*, task_id: RowId, user: Any, organisation: Organisation, text: str) -> ReviewTask:
    """Replace the outgoing response text of a task the user holds."""
    require_reviewer(user, organisation)
    if len(text) > MAX_RESPONSE_CHARS:
        raise ReviewError("response_too_long", _("The response exceeds %(n)s characters.") % {"n": MAX_RESPONSE_CHARS})
    with transaction.atomic():
        task = _task_held(task_id, user, organisation)
        before = {"response_text": task.response_text}
        ReviewTask.objects.filter(pk=task.pk).update(response_text=text)
        task.response_text = text
        audit_record(
            organisation=organisation,
            action="review.response_edited",
            obj=task,
            user=user,
            before=before,
            after={"response_text": text},
        )
    return task


def review_task_finalize(*, task_id: RowId, user: Any, organisation: Organisation) -> Result:
    """Write the reviewed result as a new version, mark the job done and the task finalized; one winner only.

    One transaction from the result write to the webhook, so no step commits apart (size-limit exception)."""
    require_reviewer(user, organisation)
    with transaction.atomic():
        task = _task_held(task_id, user, organisation)
        before = _snapshot(task)
        latest = Result.objects.filter(document_id=task.document_id).order_by("-version").first()
        if latest is None:
            raise ReviewError("no_result", _("The document has no result to review."), 409)
        now = timezone.now()
        decisions = {decision.finding_id: decision for decision in task.decisions.all()}
        result = result_write(
            organisation_id=organisation.pk,
            document_id=task.document_id,
            job_id=task.job_id,
            data=review_result_data(
                base=ResultData.stored(latest.data or {}),
                decisions=decisions,
                response_text=task.response_text,
                reviewer=user.get_username(),
                reviewed_at=now,
            ),
            provenance={**(latest.provenance or {}), "review_task": str(task.pk), "reviewed_version": latest.version},
            created_by=user,
        )
        # Conditional: two finalize calls can both pass the checks above only without the row lock (SQLite);
        # the one whose UPDATE matches nothing rolls back its result.
        won = ReviewTask.objects.filter(pk=task.pk, state=ReviewState.CLAIMED, claimed_by=user).update(
            state=ReviewState.FINALIZED,
            finalized_at=now,
            finalized_by=user,
            final_result=result,
            claim_expires_at=None,
        )
        if won != 1:
            raise ReviewError("already_finalized", _("Another finalize of this task got there first."), 409)
        examples = reviewer_examples_record(task=task, judged=latest, reviewed=result, decisions=decisions, user=user)
        answers_review(job_id=task.job_id, findings=result.data.get("findings", []))  # the model's, judged again
        job_done = Job.objects.filter(pk=task.job_id, state=JobState.NEEDS_REVIEW).update(
            state=JobState.DONE, finished_at=now
        )
        task.refresh_from_db()
        audit_record(
            organisation=organisation,
            action="review.finalized",
            obj=task,
            user=user,
            before={**before, "result_version": latest.version},
            after={
                **_snapshot(task),
                "result_version": result.version,
                "decisions": len(decisions),
                "examples": len(examples),
            },
        )
        if job_done:
            audit_record(
                organisation=organisation,
                action="job.done",
                obj=task.job,
                user=user,
                before={"state": JobState.NEEDS_REVIEW},
                after={"state": JobState.DONE, "result_version": result.version},
            )
        webhook_event_final(result=result)
    return result
