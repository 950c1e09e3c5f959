"""The sweeper: hand back to the broker the jobs a dead worker or a lost message left behind."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from contracts.models import Job, JobPhase, JobState
from contracts.pipeline.transitions import WAITING_STATE, job_fail


@dataclass(frozen=True)
class SweepReport:
    """How many jobs the sweeper handed back to the broker or gave up on."""

    requeued_running: int
    resent_queued: int
    failed: int


def jobs_sweep() -> tuple[SweepReport, list[str]]:
    """Requeue jobs whose lease expired and resend jobs queued too long; return counts and ids to enqueue."""
    now = timezone.now()
    to_send: list[str] = []
    failed = requeued = resent = 0
    expired = Job.objects.filter(state=JobState.RUNNING, lease_expires_at__lt=now)
    for job_id, attempts, phase in expired.values_list("pk", "attempts", "phase"):
        if attempts >= settings.DOCGATE_JOB_MAX_ATTEMPTS:
            job_fail(
                job_id,
                attempts,
                {"stage": None, "type": "GaveUp", "message": f"lease expired after {attempts} attempts"},
            )
            failed += 1
            continue
        stale = Job.objects.filter(pk=job_id, state=JobState.RUNNING, lease_expires_at__lt=now)
        if stale.update(state=WAITING_STATE[JobPhase(phase)], queued_at=now, lease_expires_at=None) == 1:
            requeued += 1
            to_send.append(str(job_id))
    deadline = now - timedelta(seconds=settings.DOCGATE_JOB_QUEUED_DEADLINE_S)
    waiting = [JobState.QUEUED, JobState.PROVISIONAL]
    for job_id in Job.objects.filter(state__in=waiting, queued_at__lt=deadline).values_list("pk", flat=True):
        # Touching queued_at keeps the next sweep from resending before the deadline passes again.
        if Job.objects.filter(pk=job_id, state__in=waiting, queued_at__lt=deadline).update(queued_at=now):
            resent += 1
            to_send.append(str(job_id))
    return SweepReport(requeued_running=requeued, resent_queued=resent, failed=failed), to_send


def jobs_to_send(job_ids: list[str]) -> list[tuple[str, str, bool]]:
    """(id, phase, whether its document's text is still to be read from the file) of each job, for `job_send`."""
    jobs = Job.objects.filter(pk__in=job_ids)
    pending = jobs.filter(document__text="").exclude(document__original="").exclude(document__original__isnull=True)
    converts = {str(pk) for pk in pending.values_list("pk", flat=True)}
    return [(str(pk), phase, str(pk) in converts) for pk, phase in jobs.values_list("pk", "phase")]
