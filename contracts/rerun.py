"""Send a job that finished without the model back to it (an admin's decision, after an outage outlasted the wait).

The job returns to `provisional` on the `llm` queue with fresh attempts; its open review task is withdrawn (the
audit log keeps it); the model's answers produce the document's next result version, routed as any final result.
A job a reviewer has already finalized stays as it is: a person's decision is not overwritten.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from contracts.audit import audit_record
from contracts.broker import job_send_on_commit
from contracts.models import Job, JobPhase, JobState, Organisation, ReviewState, ReviewTask
from contracts.refusals import Refused

RERUNNABLE_REASON = "llm_unavailable"


class RerunRefused(Refused):
    """A re-run DocGate refuses: the job did not end for want of the model, or a reviewer already finalized it."""

    status = 409


def job_llm_rerun(*, job_id: Any, organisation: Organisation, user: Any) -> Job:
    """Queue the model's questions again for a job that went to review with `llm_unavailable`."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id, organisation=organisation).first()
        if job is None:
            raise Job.DoesNotExist(str(job_id))
        if job.state != JobState.NEEDS_REVIEW or RERUNNABLE_REASON not in (job.review_reasons or []):
            raise RerunRefused(
                "not_rerunnable",
                _("Only a job that went to review because the model was unavailable can be sent back to it."),
            )
        task = ReviewTask.objects.filter(job=job).first()
        if task is not None and task.state == ReviewState.FINALIZED:
            raise RerunRefused("review_finalized", _("A reviewer has finalized this job; its result stays as decided."))
        before = {"state": job.state, "review_reasons": job.review_reasons, "attempts": job.attempts}
        Job.objects.filter(pk=job.pk).update(
            state=JobState.PROVISIONAL,
            phase=JobPhase.LLM,
            attempts=0,
            queued_at=timezone.now(),
            finished_at=None,
            lease_expires_at=None,
            llm_waiting_since=None,
            degraded=False,
            review_reasons=[],
            error=None,
        )
        if task is not None:
            audit_record(
                organisation=organisation,
                action="review.withdrawn",
                obj=task,
                user=user,
                before={"state": task.state, "reasons": task.reasons},
                after={"why": "the job was sent back to the model"},
            )
            task.delete()
        audit_record(
            organisation=organisation,
            action="job.llm_rerun",
            obj=job,
            user=user,
            before=before,
            after={"state": JobState.PROVISIONAL, "phase": JobPhase.LLM},
        )
        job_send_on_commit(str(job.pk), JobPhase.LLM)
    job.refresh_from_db()
    return job
