"""The one door to the broker: messages leave after commit, and a broker that refuses them loses nothing."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from kombu.exceptions import OperationalError

from contracts.dispatch import JOB_RUN, backoff_delay_s, task_send
from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobState
from contracts.pipeline import jobs_sweep
from contracts.tasks import job_run_task

pytestmark = pytest.mark.django_db


def test_a_job_is_sent_only_after_its_transaction_commits(actors: Any, django_capture_on_commit_callbacks: Any) -> None:
    with mock.patch.object(job_run_task, "apply_async") as send:
        with django_capture_on_commit_callbacks() as callbacks:
            outcome = document_submit(
                organisation=actors.acme, submission=Submission(kind="ticket", source="api", text="小区路灯坏了")
            )
            send.assert_not_called()
        for callback in callbacks:
            callback()
    send.assert_called_once_with(args=[str(outcome.job.pk)])


def test_a_broker_that_refuses_the_message_leaves_the_job_queued_for_the_sweeper(
    actors: Any, settings: Any, django_capture_on_commit_callbacks: Any, caplog: Any
) -> None:
    refused = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    with (
        mock.patch.object(job_run_task, "apply_async", side_effect=refused),
        django_capture_on_commit_callbacks(execute=True),
    ):
        outcome = document_submit(
            organisation=actors.acme, submission=Submission(kind="ticket", source="api", text="噪音扰民")
        )
    job = Job.objects.get(pk=outcome.job.pk)
    assert job.state == JobState.QUEUED, "the submission is kept whatever the broker says"
    assert "the sweeper will send it again" in caplog.text
    Job.objects.filter(pk=job.pk).update(queued_at=job.queued_at.replace(year=2000))
    assert jobs_sweep()[1] == [str(job.pk)]


def test_task_send_answers_whether_the_broker_took_it() -> None:
    with mock.patch.object(job_run_task, "apply_async") as send:
        assert task_send(JOB_RUN, "abc") is True
    send.assert_called_once_with(args=["abc"])
    with mock.patch.object(job_run_task, "apply_async", side_effect=OperationalError("down")):
        assert task_send(JOB_RUN, "abc") is False


def test_backoff_doubles_within_jitter_and_stops_at_its_cap() -> None:
    for attempt, ceiling in [(0, 2.0), (1, 4.0), (3, 16.0), (10, 60.0)]:
        delays = [backoff_delay_s(attempt, 2.0, 60.0) for _ in range(50)]
        assert all(ceiling / 2 <= delay <= ceiling for delay in delays)
        assert max(delays) - min(delays) > 0, "jittered, so that retries spread out"
