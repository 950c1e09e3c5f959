"""Workers die, messages repeat, the database drops the connection: every job still ends once, with one result."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from contracts.intake.submission import Submission, document_submit
from contracts.models import AuditEvent, DeliveryState, Job, JobPhase, JobState, Result, WebhookDelivery
from contracts.tasks import job_run_task, jobs_sweep_task
from contracts.webhooks.endpoints import webhook_endpoint_configure
from tests.faults.helpers import FAULT_APP_NAME, child_pids, fault_worker_env, log_tail, pause_marks
from tests.inference.fake_server import scripted_server
from tests.unit.test_pipeline_resume import CONTRACT, contract_model_answer
from tests.unit.test_webhook_delivery import local_receiver
from tests.workers import celery_worker, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def contract_job(actors: Any, n: int) -> Job:
    """Submit one short contract (distinct per `n`) and return its queued job; it is enqueued on commit."""
    text = f"第{n}条 合同期限为一年，自双方签字之日起生效。"
    submission = Submission(kind="contract", source="api", text=text)
    return document_submit(organisation=actors.acme, submission=submission).job


def in_pause_stage(job: Job, folder: Path) -> bool:
    """True once the job runs and its pause stage has begun (after merge): the worker now sleeps there."""
    job.refresh_from_db()
    return job.state == JobState.RUNNING and (pause_marks(folder) / str(job.pk)).exists()


def is_final(job: Job) -> bool:
    job.refresh_from_db()
    return job.is_final


def assert_exactly_one_result(job: Job, state: str = JobState.DONE) -> None:
    job.refresh_from_db()
    assert job.state == state
    assert Result.objects.filter(document=job.document).count() == 1
    assert AuditEvent.objects.filter(action=f"job.{state}", object_id=str(job.pk)).count() == 1


def test_worker_process_killed_mid_job_is_redelivered_and_finishes_once_with_one_webhook(
    actors: Any, redis_flushed: str, settings: Any, tmp_path: Path
) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    log = tmp_path / "worker.log"
    with local_receiver() as receiver:
        webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
        job = contract_job(actors, 1)
        with celery_worker(extra_env=fault_worker_env(tmp_path, pause_s=4.0), log_path=log) as worker:
            assert wait_until(lambda: in_pause_stage(job, tmp_path), timeout_s=45), log_tail(log)
            [child] = child_pids(worker.pid)
            os.kill(child, signal.SIGKILL)  # the pool process dies holding the unacknowledged message
            # reject_on_worker_lost puts the message back; the next delivery waits out the lease and claims it.
            assert wait_until(lambda: is_final(job), timeout_s=60), log_tail(log)
            assert wait_until(
                lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).exists(), timeout_s=30
            ), log_tail(log)
    assert_exactly_one_result(job)
    assert job.attempts == 2
    assert WebhookDelivery.objects.count() == 1
    assert len(receiver.requests) == 1


def test_whole_worker_killed_mid_job_is_requeued_by_the_sweeper_and_finishes_once(
    actors: Any, redis_flushed: str, tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    job = contract_job(actors, 2)
    env = fault_worker_env(tmp_path, pause_s=4.0)
    with celery_worker(extra_env=env, log_path=log) as worker:
        assert wait_until(lambda: in_pause_stage(job, tmp_path), timeout_s=45), log_tail(log)
        os.killpg(worker.pid, signal.SIGKILL)  # main process and pool: nobody is left to give the message back
        worker.wait(timeout=10)
    job.refresh_from_db()
    assert job.state == JobState.RUNNING
    # The periodic sweeper (called as beat would call it) requeues the job once its lease has run out.
    assert wait_until(lambda: jobs_sweep_task()["requeued_running"] == 1, timeout_s=20, interval_s=1)
    with celery_worker(extra_env=env, log_path=tmp_path / "worker2.log"):
        assert wait_until(lambda: is_final(job), timeout_s=60), log_tail(tmp_path / "worker2.log")
    assert_exactly_one_result(job)
    assert job.attempts == 2


def test_same_message_delivered_twice_gives_one_result(actors: Any, redis_flushed: str, tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    job = contract_job(actors, 3)  # the first message, sent on commit
    job_run_task.delay(str(job.pk))  # the same message again
    with celery_worker(extra_env=fault_worker_env(tmp_path, pause_s=2.0), log_path=log, concurrency=2):
        assert wait_until(lambda: is_final(job), timeout_s=45), log_tail(log)
        # The copy found the job busy, waited out the lease, then saw it final and did nothing.
        assert wait_until(lambda: "already_final" in log.read_text(errors="replace"), timeout_s=30), log_tail(log)
    assert_exactly_one_result(job)
    assert job.attempts == 1


def worker_connections_drop() -> int:
    """Terminate the fault worker's PostgreSQL connections (a server restart, a network cut); how many."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s AND pid <> pg_backend_pid()",
            [FAULT_APP_NAME],
        )
        (dropped,) = cursor.fetchone()
    return int(dropped)


def test_database_connection_dropped_under_a_running_task_is_retried_and_ends_once(
    actors: Any, redis_flushed: str, tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    job = contract_job(actors, 4)
    with celery_worker(extra_env=fault_worker_env(tmp_path, pause_s=3.0), log_path=log):
        assert wait_until(lambda: in_pause_stage(job, tmp_path), timeout_s=45), log_tail(log)
        assert worker_connections_drop() >= 1
        assert wait_until(lambda: is_final(job), timeout_s=60), log_tail(log)
    assert_exactly_one_result(job)
    job.refresh_from_db()
    assert job.attempts == 2  # the dropped attempt released the job; the retry finished it
    assert job.error is None
    assert "Retry in" in log.read_text(errors="replace")


def test_database_connection_dropped_under_a_running_model_phase_task_is_retried_and_ends_once(
    actors: Any, redis_flushed: str, tmp_path: Path
) -> None:
    """The model's questions (llm phase) lose their database connection mid-run: the job goes back to
    `provisional`, where that phase claims it, and the retry finishes it once (it once went to `queued`, which only
    the rules phase claims, and stayed there for ever)."""
    log = tmp_path / "worker.log"
    with scripted_server() as model:
        model.count_chars_as_tokens, model.fallback = True, contract_model_answer
        env = fault_worker_env(
            tmp_path, pause_s=3.0, pause_phase="llm", LLM_ENABLED="true", LLM_POLICY="always", LLM_DRAFTS="false",
            LLM_BASE_URL=model.base_url, LLM_ENGINE="llamacpp", LLM_MAX_RETRIES="0",
        )  # fmt: skip
        job = document_submit(
            organisation=actors.acme, submission=Submission(kind="contract", source="api", text=CONTRACT)
        ).job
        with celery_worker(extra_env=env, log_path=log):
            assert wait_until(lambda: in_pause_stage(job, tmp_path), timeout_s=60), log_tail(log)
            assert job.phase == JobPhase.LLM
            assert worker_connections_drop() >= 1
            assert wait_until(lambda: is_final(job), timeout_s=60), log_tail(log)
    job.refresh_from_db()
    assert job.state in (JobState.DONE, JobState.NEEDS_REVIEW) and job.error is None
    results = Result.objects.filter(document=job.document)
    assert [(r.version, r.final) for r in results.order_by("version")] == [(1, False), (2, True)]
    final = results.get(final=True).data
    assert any(f.get("provenance") == "both" for f in final["findings"])  # the model's answers are in it
    assert AuditEvent.objects.filter(action=f"job.{job.state}", object_id=str(job.pk)).count() == 1
    assert "Retry in" in log.read_text(errors="replace")
