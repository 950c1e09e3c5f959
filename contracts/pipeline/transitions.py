"""A job's state transitions: claim, progress and lease, wait for the model, release, fail, publish the provisional
result, finish. Each is a conditional UPDATE on the run's own attempt, so a run that lost its job writes nothing."""

from __future__ import annotations

import enum
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from contracts.audit import audit_record
from contracts.broker import job_send_on_commit
from contracts.leases import lease_renewed
from contracts.llm import llm_client
from contracts.models import Job, JobPhase, JobState, Result
from contracts.result_data import ResultData
from contracts.result_versions import result_gate_decision, result_write
from contracts.review.workflow import review_task_open
from contracts.stages.base import JobContext
from contracts.standing.tally import answers_store
from contracts.webhooks.delivery import webhook_event_failed, webhook_event_final, webhook_event_provisional

logger = logging.getLogger(__name__)

JobId = uuid.UUID | str


class TransientError(Exception):
    """A failure worth retrying (LLM timeout, lost database connection); the job goes back to the queue."""


class JobLost(Exception):
    """Another process took the job over (our lease expired); this run must stop without writing."""


class RunStatus(enum.StrEnum):
    """How a run ended: the job's final state, or why this run did not (or could not) finish it."""

    DONE = JobState.DONE.value
    NEEDS_REVIEW = JobState.NEEDS_REVIEW.value
    FAILED = JobState.FAILED.value
    BUSY = "busy"  # another worker holds a live lease: look again when it runs out
    LOST = "lost"  # another run took the job over or finished it: nothing written
    MISSING = "missing"  # no such job
    ALREADY_FINAL = "already_final"
    NOT_CLAIMED = "not_claimed"
    PROVISIONAL = JobState.PROVISIONAL.value  # the rules' result is out; the model's questions are queued
    WAITING = "waiting"  # the model is unavailable: the job stays provisional and is tried again later


@dataclass(frozen=True)
class RunOutcome:
    """What a run did, and when to look again for a busy job."""

    status: RunStatus
    retry_after_s: float = 0.0


WAITING_STATE = {JobPhase.RULES: JobState.QUEUED, JobPhase.LLM: JobState.PROVISIONAL}


def job_try_claim(job_id: JobId, worker: str, phase: str) -> bool:
    """Mark a job waiting for this phase (or one of the phase whose lease ran out) as running for this worker,
    with a new attempt; whether it was claimable."""
    now = timezone.now()
    lease = now + timedelta(seconds=settings.DOCGATE_JOB_LEASE_S)
    claimable = Q(state=WAITING_STATE[JobPhase(phase)]) | Q(state=JobState.RUNNING, lease_expires_at__lt=now)
    jobs = Job.objects.filter(claimable, pk=job_id, phase=phase, attempts__lt=settings.DOCGATE_JOB_MAX_ATTEMPTS)
    updated = jobs.update(
        state=JobState.RUNNING,
        attempts=F("attempts") + 1,
        started_at=now,
        lease_expires_at=lease,
        claimed_by=worker[:200],
    )
    return updated == 1  # else another process got there first, or the job is final


def _owned(job_id: JobId, attempt: int) -> QuerySet[Job]:
    return Job.objects.filter(pk=job_id, state=JobState.RUNNING, attempts=attempt)


def progress_write(job_id: JobId, attempt: int, timings: dict[str, Any]) -> None:
    """Show the stages done so far (and renew the lease); raise JobLost when another process owns the job now."""
    lease = timezone.now() + timedelta(seconds=settings.DOCGATE_JOB_LEASE_S)
    if _owned(job_id, attempt).update(lease_expires_at=lease, stage_timings=timings) != 1:
        raise JobLost(str(job_id))


@contextmanager
def lease_kept(job_id: JobId, attempt: int) -> Iterator[None]:
    """Keep renewing the job's lease while its stages run (an OCR of a long scan or a slow model call can take
    longer than the lease), every third of DOCGATE_JOB_LEASE_S."""

    def renew() -> bool:
        lease = timezone.now() + timedelta(seconds=settings.DOCGATE_JOB_LEASE_S)
        return _owned(job_id, attempt).update(lease_expires_at=lease) == 1

    with lease_renewed(renew, interval_s=max(settings.DOCGATE_JOB_LEASE_S / 3, 0.5), what=f"job {job_id}"):
        yield


def llm_wait_over(job: Job) -> bool:
    """Whether this job has waited DOCGATE_LLM_WAIT_MAX_S for the model already."""
    since, limit = job.llm_waiting_since, settings.DOCGATE_LLM_WAIT_MAX_S
    return limit <= 0 or (since is not None and (timezone.now() - since).total_seconds() >= limit)


def llm_wait_retry_s(waited_s: float) -> float:
    """When to try a waiting job again: when the breaker lets calls through, at least after a backoff."""
    remaining = llm_client().breaker.cooldown_remaining_s()
    backoff = min(60.0, max(5.0, waited_s / 4))  # 5 s at first, then a quarter of the wait so far, at most 60 s
    return max(remaining, backoff)


def job_wait(job_id: JobId, attempt: int, reason: str, *, waiting_since: datetime | None) -> RunOutcome:
    """Put a job whose model is unavailable back to `provisional` (its provisional result stays published) and
    mark since when it waits (`waiting_since`, as this run found it, else now); the try does not count as an
    attempt. Waiting ends when the model answers, or after DOCGATE_LLM_WAIT_MAX_S, when the next try finishes the
    job without the model (review, `llm_unavailable`)."""
    now = timezone.now()
    since = waiting_since or now
    updated = _owned(job_id, attempt).update(
        state=JobState.PROVISIONAL,
        attempts=F("attempts") - 1,
        lease_expires_at=None,
        queued_at=now,
        llm_waiting_since=since,
        error={"stage": "llm", "code": "llm_unavailable", "type": "LLMWait", "message": reason},
    )
    if updated != 1:
        return RunOutcome(RunStatus.LOST)
    logger.info("job %s: the model is unavailable (%s); waiting for it", job_id, reason)
    return RunOutcome(RunStatus.WAITING, retry_after_s=llm_wait_retry_s((now - since).total_seconds()))


def job_release(job_id: JobId, attempt: int, phase: str, error: dict[str, Any]) -> None:
    """Put a job back where its phase claims it (`queued`, or `provisional` for the llm phase) after a transient
    failure (a fresh connection if the old one died)."""
    state = WAITING_STATE[JobPhase(phase)]
    for _ in range(2):
        try:
            _owned(job_id, attempt).update(state=state, queued_at=timezone.now(), lease_expires_at=None, error=error)
            return
        except DatabaseError:
            connection.close()
    logger.warning("job %s could not be released; its lease will expire and the sweeper will requeue it", job_id)


def job_fail(job_id: JobId, attempt: int | None, error: dict[str, Any], timings: dict[str, Any] | None = None) -> None:
    """Mark a job failed with the error recorded (the document itself is kept) and its finished stages' timings."""
    jobs = Job.objects.filter(pk=job_id).exclude(state__in=[JobState.DONE, JobState.NEEDS_REVIEW])
    if attempt is not None:
        jobs = jobs.filter(attempts=attempt)
    now = timezone.now()
    progress = {} if timings is None else {"stage_timings": timings}
    with transaction.atomic():
        if jobs.update(state=JobState.FAILED, finished_at=now, lease_expires_at=None, error=error, **progress) == 1:
            job = Job.objects.select_related("organisation", "document").get(pk=job_id)
            audit_record(
                organisation=job.organisation,
                action="job.failed",
                obj=job,
                system="pipeline",
                after={"error": {k: v for k, v in error.items() if k != "trace"}},
            )
            webhook_event_failed(job=job)


def result_data(ctx: JobContext) -> ResultData:
    """The result a finished context stands for: what the API, portal and webhooks show as `data`."""
    reasons = list(dict.fromkeys(ctx.review_reasons))
    return ResultData.model_validate(
        {
            "kind": ctx.document.kind,
            "findings": [{**finding, "id": f"F{n}"} for n, finding in enumerate(ctx.findings, start=1)],
            "review_reasons": ctx.review_reasons,
            "degraded": ctx.degraded,
            "stats": ctx.stats or {},
            "normalization": ctx.normalized.report.as_dict() if ctx.normalized is not None else None,
            **({"gate": ctx.gate.as_dict()} if ctx.gate is not None else {}),
            **ctx.summary,
            "routing": {"needs_review": bool(reasons), "reasons": reasons},
        }
    )


def _result_store(ctx: JobContext, timings: dict[str, Any], *, final: bool) -> Result:
    """Write the document's next result version from a finished context (inside the caller's transaction)."""
    data = result_data(ctx)
    result = result_write(
        organisation_id=ctx.job.organisation_id,
        document_id=ctx.document.pk,
        job_id=ctx.job.pk,
        data=data,
        provenance={"stages": list(timings), **ctx.provenance()},
        final=final,
        gate_decision=result_gate_decision(data) if final else "",
    )
    result.document = ctx.document  # what webhooks and reviews read next, already loaded
    return result


def job_publish_provisional(ctx: JobContext, timings: dict[str, Any]) -> RunStatus:
    """Publish the rules' result as provisional (`final: false`) and queue the model's questions (`llm` queue).
    No review task and no `result.final` webhook: those wait for the final result."""
    with transaction.atomic():
        updated = _owned(ctx.job.pk, ctx.attempt).update(
            state=JobState.PROVISIONAL,
            phase=JobPhase.LLM,
            queued_at=timezone.now(),
            lease_expires_at=None,
            stage_timings=timings,
            artifacts=ctx.job_artifacts(),
            error=None,
        )
        if updated != 1:
            return RunStatus.LOST
        result = _result_store(ctx, timings, final=False)
        webhook_event_provisional(result=result)
        job_send_on_commit(str(ctx.job.pk), JobPhase.LLM)
    return RunStatus.PROVISIONAL


def job_finish(ctx: JobContext, timings: dict[str, Any]) -> RunStatus:
    """Store the result and move the job to done or needs_review in one transaction; return how it ended."""
    state = JobState.NEEDS_REVIEW if ctx.review_reasons else JobState.DONE
    now = timezone.now()
    with transaction.atomic():
        updated = _owned(ctx.job.pk, ctx.attempt).update(
            state=state,
            finished_at=now,
            lease_expires_at=None,
            stage_timings=timings,
            artifacts=ctx.job_artifacts(),
            review_reasons=ctx.review_reasons,
            degraded=ctx.degraded,
            error=None,
            llm_waiting_since=None,
        )
        if updated != 1:
            return RunStatus.LOST  # another run finished it; writing a second result would double the work
        result = _result_store(ctx, timings, final=True)
        if ctx.llm is not None and ctx.llm.model:
            answers_store(
                organisation_id=ctx.job.organisation_id, job_id=ctx.job.pk, model=ctx.llm.model, marks=ctx.answer_marks
            )
        if state == JobState.NEEDS_REVIEW:
            review_task_open(job=ctx.job, reasons=ctx.review_reasons, result=result)
        else:
            webhook_event_final(result=result)
        audit_record(
            organisation=ctx.job.organisation,
            action=f"job.{state}",
            obj=ctx.job,
            system="pipeline",
            after={"result_version": result.version, "review_reasons": ctx.review_reasons},
        )
    return RunStatus(state)
