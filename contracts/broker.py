"""The one door to the broker: services send Celery tasks by name, after their transaction commits.

Policy for every message: the database row (a queued job, a pending delivery) is the source of truth and the
message only a wake-up call. A message is sent once the transaction that created the row has committed (a worker
must never look for a row that is not there yet); when the broker refuses it, the failure is logged and the row
stays as it is, for the periodic sweeper to send again. Services therefore never import `contracts.tasks`.
"""

from __future__ import annotations

import logging
import random
from typing import Final

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)

JOB_RUN: Final = "contracts.tasks.job_run_task"
# The rules of a document whose file is still to be read (parsed, converted by LibreOffice, OCRed: seconds to
# minutes) run on the `convert` queue, so that no text waits behind a scan.
JOB_CONVERT: Final = "contracts.tasks.job_convert_task"
# A job's model questions run on their own queue (their own worker), so that no document's rules wait behind
# another document's model calls.
JOB_LLM: Final = "contracts.tasks.job_llm_task"
WEBHOOK_DELIVER: Final = "contracts.tasks.webhook_deliver_task"


def task_send(name: str, *args: str) -> bool:
    """Send task `name` now; False (logged) when the broker cannot take it, for the sweeper to retry later."""
    try:
        # By name: the sending process (the web server) need not import, or even have registered, the tasks.
        current_app.send_task(name, args=list(args))  # routed by CELERY_TASK_ROUTES (a queue per cost)
    except Exception:  # broker down or unreachable: the row stays, the sweeper sends it again
        logger.warning("could not send %s%s; the sweeper will send it again", name, args, exc_info=True)
        return False
    return True


def task_send_on_commit(name: str, *args: str) -> None:
    """Send task `name` once the current transaction commits (at once outside a transaction)."""
    transaction.on_commit(lambda: task_send(name, *args))


def job_task(phase: str, *, converts: bool = False) -> str:
    """The task that runs a job's phase: the model's questions (`llm`), else the rules — of a document whose file
    is still to be read (`converts`) on the `convert` queue, of a text on the default queue."""
    if phase == "llm":
        return JOB_LLM
    return JOB_CONVERT if converts else JOB_RUN


def job_send(job_id: str, phase: str, *, converts: bool = False) -> bool:
    """Send the task that runs a job's phase (`job_task`)."""
    return task_send(job_task(phase, converts=converts), job_id)


def job_send_on_commit(job_id: str, phase: str, *, converts: bool = False) -> None:
    """Send the job's phase task once the current transaction commits."""
    transaction.on_commit(lambda: job_send(job_id, phase, converts=converts))


def backoff_delay_s(attempt: int, base_s: float, cap_s: float) -> float:
    """Exponential backoff with jitter before retry `attempt` (0 for the first): uniform in [d/2, d] where
    d = min(cap_s, base_s x 2^attempt), so that retries of many failures spread out instead of arriving together."""
    ceiling = min(cap_s, base_s * (2 ** max(attempt, 0)))
    return random.uniform(ceiling / 2, ceiling)
