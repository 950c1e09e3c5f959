"""Celery interfaces to the pipeline services: thin, idempotent, retried on transient errors."""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

from celery import shared_task
from django.conf import settings

from contracts.broker import WEBHOOK_DELIVER, backoff_delay_s, job_send, task_send
from contracts.models import JobPhase
from contracts.pipeline import RunOutcome, RunStatus, TransientError, job_run, jobs_sweep, jobs_to_send
from contracts.retention import idempotency_records_expire, llm_answers_expire
from contracts.webhooks.delivery import WebhookRetry, webhook_deliver, webhook_deliveries_due

logger = logging.getLogger(__name__)


def worker_name() -> str:
    """This process as host:pid, read at call time (a prefork pool's children get their own pid after import)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def retry_delay_s(retries: int) -> float:
    """Backoff before the job's next try, capped at five minutes."""
    return backoff_delay_s(retries, settings.DOCGATE_RETRY_BACKOFF_S, 300.0)


def _job_phase_run(task: Any, job_id: str, phase: str) -> str:
    """Run one phase of a job; retry on transient errors, a busy job, or (llm phase) a model that is down."""
    try:
        outcome: RunOutcome = job_run(job_id, worker_name(), phase=phase)
    except TransientError as exc:
        if task.request.retries + 1 >= settings.DOCGATE_JOB_MAX_ATTEMPTS:
            logger.warning("job %s: transient error on the last attempt; the next claim marks it failed", job_id)
        raise task.retry(exc=exc, countdown=retry_delay_s(task.request.retries)) from exc
    if outcome.status in (RunStatus.BUSY, RunStatus.WAITING):
        # Busy: another worker holds a live lease (or died holding it): look again once it has run out.
        # Waiting: the model is unavailable; look again when the breaker lets calls through.
        raise task.retry(countdown=outcome.retry_after_s)
    logger.info("job %s (%s): %s", job_id, phase, outcome.status)
    return outcome.status


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def job_run_task(self: Any, job_id: str) -> str:
    """Run a job's rules (to its provisional or, with nothing to ask the model, final result); idempotent."""
    return _job_phase_run(self, job_id, JobPhase.RULES)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def job_convert_task(self: Any, job_id: str) -> str:
    """Run the rules of a job whose document's text is still to be read from its file (`convert` queue: parsing,
    LibreOffice and OCR take seconds to minutes, and no text should wait behind them); idempotent."""
    return _job_phase_run(self, job_id, JobPhase.RULES)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def job_llm_task(self: Any, job_id: str) -> str:
    """Ask the model a job's planned questions and store its final result (`llm` queue); idempotent."""
    return _job_phase_run(self, job_id, JobPhase.LLM)


@shared_task(acks_late=True)
def jobs_sweep_task() -> dict[str, int]:
    """Periodic: hand jobs stuck in queued/running back to the broker."""
    report, job_ids = jobs_sweep()
    for job_id, phase, converts in jobs_to_send(job_ids):
        job_send(job_id, phase, converts=converts)
    if job_ids:
        logger.info("sweeper re-enqueued %d job(s): %s", len(job_ids), report)
    return {"requeued_running": report.requeued_running, "resent_queued": report.resent_queued, "failed": report.failed}


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def webhook_deliver_task(self: Any, delivery_id: str) -> str:
    """Send one webhook delivery; retried with backoff until it is delivered or has used its attempts."""

    try:
        state = webhook_deliver(delivery_id=delivery_id)
    except WebhookRetry as exc:
        raise self.retry(exc=exc, countdown=exc.delay_s) from exc
    logger.info("webhook delivery %s: %s", delivery_id, state)
    return state


@shared_task(acks_late=True)
def webhook_deliveries_sweep_task() -> int:
    """Periodic: resend pending deliveries whose retry message was lost (broker restart, killed worker)."""

    due = webhook_deliveries_due()
    for delivery_id in due:
        task_send(WEBHOOK_DELIVER, delivery_id)
    return len(due)


@shared_task(acks_late=True)
def idempotency_records_expire_task() -> int:
    """Periodic: forget Idempotency-Key records past DOCGATE_IDEMPOTENCY_TTL_S."""
    deleted = idempotency_records_expire()
    if deleted:
        logger.info("deleted %d expired idempotency record(s)", deleted)
    return deleted


@shared_task(acks_late=True)
def llm_answers_expire_task() -> int:
    """Periodic: forget the model's answers beyond what any standing window reads (contracts.retention)."""
    deleted = llm_answers_expire()
    if deleted:
        logger.info("deleted %d model answer(s) no standing window reads", deleted)
    return deleted


@shared_task(acks_late=True)
def organisations_retrain_task() -> dict[str, list[str]]:
    """Periodic (DOCGATE_RETRAIN_INTERVAL_S, off by default): retrain organisations with new reviewer examples."""
    from contracts.learned.retrain import organisations_retrain  # heavy: scikit-learn, only when retraining

    done = organisations_retrain()
    if done:
        logger.info("retrained: %s", done)
    return done


@shared_task(acks_late=True)
def organisation_retrain_task(organisation_id: str) -> list[str]:
    """Retrain one organisation's models (the admin's button); a gone organisation is nothing to do."""
    from contracts.learned.retrain import organisation_retrain  # heavy: scikit-learn, only when retraining
    from contracts.models import Organisation

    organisation = Organisation.objects.filter(pk=organisation_id).first()
    if organisation is None:
        return []
    return [f"{row.name} {row.version} {row.state}" for row in organisation_retrain(organisation)]
