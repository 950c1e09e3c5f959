"""The pipeline runner: claims, stage timings, failures, transient retries, duplicate delivery, the sweeper."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from contracts.broker import JOB_RUN
from contracts.intake.submission import Submission, document_submit
from contracts.models import AuditEvent, Job, JobPhase, JobState, Result
from contracts.pipeline import PROGRESS_WRITE_S, TransientError, job_run, jobs_sweep, pipeline_stages
from contracts.pipeline.transitions import job_try_claim
from contracts.stages.base import JobContext
from contracts.tasks import job_run_task, jobs_sweep_task

pytestmark = pytest.mark.django_db


def new_job(actors: Any, text: str = "第一条 合同期限自2026年1月1日起至2027年12月31日止。") -> Job:
    outcome = document_submit(organisation=actors.acme, submission=Submission(kind="contract", source="api", text=text))
    return outcome.job


class ExplodingStage:
    name = "explode"

    def run(self, ctx: JobContext) -> None:
        raise ValueError("rule pack is corrupt")


class FlakyStage:
    """Fails with a transient error the first `failures` times, then succeeds."""

    name = "flaky"

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def run(self, ctx: JobContext) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise TransientError("LLM server timed out")
        ctx.artifacts["flaky"] = self.calls


class ReviewStage:
    name = "uncertain"

    def run(self, ctx: JobContext) -> None:
        ctx.review_reasons.append("low_confidence")


NAP_S = 0.05


class NappingStage:
    """Takes NAP_S seconds; run after the built-in stages when named in DOCGATE_EXTRA_STAGES."""

    name = "nap"

    def run(self, ctx: JobContext) -> None:
        time.sleep(NAP_S)


def test_job_runs_stages_and_records_timings_and_result(actors: Any, settings: Any) -> None:
    settings.DOCGATE_EXTRA_STAGES = ("tests.unit.test_pipeline.NappingStage",)
    job = new_job(actors)
    outcome = job_run(job.pk, "test-worker")
    job.refresh_from_db()
    assert outcome.status == JobState.DONE == job.state
    assert job.attempts == 1 and job.finished_at is not None and job.lease_expires_at is None
    stages = ["extract", "normalize", "rules", "gate", "plan", "llm", "merge", "respond", "nap"]
    result = Result.objects.get(job=job)
    # The order they ran in is the provenance's list (PostgreSQL's jsonb does not keep an object's key order).
    assert result.provenance["stages"] == stages
    assert set(job.stage_timings) == set(stages)
    for timing in job.stage_timings.values():
        assert isinstance(timing["ms"], float | int) and timing["ms"] >= 0 and timing["attempt"] == 1
    assert job.stage_timings["nap"]["ms"] >= NAP_S * 1000
    assert result.version == 1
    assert result.data["stats"]["article_headings"] == 1
    assert AuditEvent.objects.filter(action="job.done", object_id=str(job.pk)).exists()


def test_stage_asking_for_review_ends_needs_review(actors: Any) -> None:
    job = new_job(actors)
    job_run(job.pk, "w", stages=[*pipeline_stages(), ReviewStage()])
    job.refresh_from_db()
    assert job.state == JobState.NEEDS_REVIEW
    assert job.review_reasons == ["low_confidence"]


def test_stage_that_raises_fails_the_job_with_the_error_recorded(actors: Any) -> None:
    job = new_job(actors)
    outcome = job_run(job.pk, "w", stages=[*pipeline_stages(), ExplodingStage()])
    job.refresh_from_db()
    assert outcome.status == JobState.FAILED == job.state
    assert (job.error or {})["stage"] == "explode"
    assert (job.error or {})["type"] == "ValueError"
    assert "corrupt" in (job.error or {})["message"]
    assert not Result.objects.filter(job=job).exists()
    assert job.document.pk is not None  # the document is kept
    # How far it got: the stages that finished before the failing one (a fast run writes them only now).
    assert set(job.stage_timings) == {stage.name for stage in pipeline_stages()}


def test_transient_error_puts_the_job_back_in_the_queue(actors: Any) -> None:
    job = new_job(actors)
    with pytest.raises(TransientError):
        job_run(job.pk, "w", stages=[FlakyStage(failures=1)])
    job.refresh_from_db()
    assert job.state == JobState.QUEUED
    assert (job.error or {})["type"] == "TransientError"
    assert job.attempts == 1


def test_transient_error_in_the_llm_phase_puts_the_job_back_where_that_phase_claims_it(actors: Any) -> None:
    # Released as `queued`, a job in the llm phase was claimable by neither phase: stuck until someone looked.
    job = new_job(actors)
    Job.objects.filter(pk=job.pk).update(state=JobState.PROVISIONAL, phase=JobPhase.LLM)
    flaky = FlakyStage(failures=1)
    with pytest.raises(TransientError):
        job_run(job.pk, "w", stages=[flaky], phase=JobPhase.LLM)
    job.refresh_from_db()
    assert (job.state, job.phase) == (JobState.PROVISIONAL, JobPhase.LLM)
    assert job_run(job.pk, "w", stages=[flaky], phase=JobPhase.LLM).status == JobState.DONE


def test_task_retries_transient_errors_then_completes(actors: Any, settings: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    job = new_job(actors)
    flaky = FlakyStage(failures=2)
    with (
        mock.patch("contracts.pipeline.runner.pipeline_stages", return_value=[flaky]),
        mock.patch("contracts.tasks.retry_delay_s", return_value=0),
    ):
        job_run_task.apply(args=[str(job.pk)])
    job.refresh_from_db()
    assert job.state == JobState.DONE
    assert job.attempts == 3 and flaky.calls == 3
    assert Result.objects.filter(job=job).count() == 1


def test_task_gives_up_after_the_attempt_limit(actors: Any, settings: Any) -> None:
    settings.DOCGATE_JOB_MAX_ATTEMPTS = 3
    job = new_job(actors)
    with (
        mock.patch("contracts.pipeline.runner.pipeline_stages", return_value=[FlakyStage(failures=99)]),
        mock.patch("contracts.tasks.retry_delay_s", return_value=0),
    ):
        job_run_task.apply(args=[str(job.pk)])
    job.refresh_from_db()
    assert job.state == JobState.FAILED
    assert job.attempts == 3
    assert "gave up" in (job.error or {})["message"]


def test_the_same_message_delivered_twice_produces_one_result(actors: Any) -> None:
    job = new_job(actors)
    assert job_run(job.pk, "w1").status == JobState.DONE
    assert job_run(job.pk, "w2").status == "already_final"
    assert Result.objects.filter(document=job.document).count() == 1
    job.refresh_from_db()
    assert job.attempts == 1


def test_a_fast_run_writes_its_job_row_when_claimed_and_when_finished_only(actors: Any) -> None:
    # Its stages take milliseconds: a write after each (seven) was a third of a job's database time.
    job = new_job(actors)
    with CaptureQueriesContext(connection) as queries:
        assert job_run(job.pk, "w").status == JobState.DONE
    job_writes = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "contracts_job"')]
    assert len(job_writes) == 2, job_writes


def test_a_slow_runs_progress_is_visible_while_it_runs(actors: Any) -> None:
    job = new_job(actors)
    seen: dict[str, Any] = {}

    class SlowStage:
        name = "slow_ocr"

        def run(self, ctx: JobContext) -> None:
            time.sleep(PROGRESS_WRITE_S + 0.1)

    class Look:
        name = "look"

        def run(self, ctx: JobContext) -> None:
            seen.update(Job.objects.values("state", "stage_timings").get(pk=ctx.job.pk))

    assert job_run(job.pk, "w", stages=[SlowStage(), Look()]).status == JobState.DONE
    assert seen["state"] == JobState.RUNNING and set(seen["stage_timings"]) == {"slow_ocr"}


def test_a_running_job_with_a_live_lease_cannot_be_claimed_twice(actors: Any) -> None:
    job = new_job(actors)
    assert job_try_claim(job.pk, "first", JobPhase.RULES)
    assert not job_try_claim(job.pk, "second", JobPhase.RULES)
    outcome = job_run(job.pk, "second")
    assert outcome.status == "busy" and outcome.retry_after_s > 0


def test_a_run_that_lost_its_lease_does_not_write_a_result(actors: Any) -> None:
    job = new_job(actors)

    class TakenOverStage:
        name = "slow"

        def run(self, ctx: JobContext) -> None:
            # While this run was slow, the sweeper requeued the job and another worker claimed it.
            Job.objects.filter(pk=ctx.job.pk).update(attempts=ctx.attempt + 1)

    assert job_run(job.pk, "w", stages=[TakenOverStage()]).status == "lost"
    assert not Result.objects.filter(job=job).exists()


@pytest.mark.django_db(transaction=True)
def test_a_stage_longer_than_the_lease_keeps_its_job(actors: Any, settings: Any) -> None:
    """An OCR of a long scan can outlast the lease: the lease is renewed while the stage runs, so the sweeper
    does not hand the job to a second worker, and the run finishes it."""
    settings.DOCGATE_JOB_LEASE_S = 1
    job = new_job(actors)
    seen: dict[str, Any] = {}

    class LongStage:
        name = "long_ocr"

        def run(self, ctx: JobContext) -> None:
            deadline = time.monotonic() + 2.5
            while time.monotonic() < deadline:
                time.sleep(0.25)
            seen["sweep"] = jobs_sweep()[0]
            seen["second_claim"] = job_try_claim(ctx.job.pk, "second-worker", JobPhase.RULES)

    assert job_run(job.pk, "w", stages=[LongStage()]).status == JobState.DONE
    assert seen["sweep"].requeued_running == 0 and seen["second_claim"] is False
    assert Result.objects.filter(job=job).count() == 1


def test_sweeper_requeues_jobs_whose_lease_expired(actors: Any) -> None:
    job = new_job(actors)
    assert job_try_claim(job.pk, "worker-that-died", JobPhase.RULES)
    Job.objects.filter(pk=job.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    report, to_send = jobs_sweep()
    job.refresh_from_db()
    assert report.requeued_running == 1 and to_send == [str(job.pk)]
    assert job.state == JobState.QUEUED
    assert job_run(job.pk, "w2").status == JobState.DONE


def test_sweeper_resends_jobs_stuck_in_queued_and_not_fresh_ones(actors: Any, settings: Any) -> None:
    stuck = new_job(actors, "第一条 付款：合同签订后五日内支付。")
    fresh = new_job(actors, "第二条 验收：到货后七日内验收。")
    Job.objects.filter(pk=stuck.pk).update(
        queued_at=timezone.now() - timedelta(seconds=settings.DOCGATE_JOB_QUEUED_DEADLINE_S + 5)
    )
    with mock.patch("contracts.broker.current_app.send_task") as send:
        counts = jobs_sweep_task()
    assert counts["resent_queued"] == 1
    send.assert_called_once_with(JOB_RUN, args=[str(stuck.pk)])
    # Its clock was reset, so the next sweep does not resend it again at once.
    assert jobs_sweep()[1] == []
    assert Job.objects.get(pk=fresh.pk).state == JobState.QUEUED


def test_sweeper_fails_a_job_that_keeps_dying(actors: Any, settings: Any) -> None:
    settings.DOCGATE_JOB_MAX_ATTEMPTS = 2
    job = new_job(actors)
    Job.objects.filter(pk=job.pk).update(
        state=JobState.RUNNING, attempts=2, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    report, to_send = jobs_sweep()
    job.refresh_from_db()
    assert report.failed == 1 and to_send == []
    assert job.state == JobState.FAILED


def test_unknown_job_is_ignored(db: Any) -> None:
    assert job_run("00000000-0000-0000-0000-000000000000", "w").status == "missing"
